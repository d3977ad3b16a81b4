import io
import random
import struct
import zipfile
from datetime import date, datetime
from decimal import Decimal

import openpyxl
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exporters import xlsx
from exporters.ranking import EXACT
from exporters.xlsx import MAX_WIDTH, write_xlsx


def _sheet(frame: pl.DataFrame) -> openpyxl.worksheet.worksheet.Worksheet:
    buffer = io.BytesIO()
    write_xlsx(frame, buffer, sheet="ranking")
    book = openpyxl.load_workbook(io.BytesIO(buffer.getvalue()))
    return book["ranking"]


def test_cells_keep_their_types_and_the_sheet_its_layout() -> None:
    long_name = "Maximilian " * 10
    frame = pl.DataFrame(
        {
            "rank": [1, 2],
            "name": ["Ann", long_name],
            "rating": [1012.5, 998.25],
            "last_played": [date(2025, 3, 1), None],
            "active": [True, False],
        }
    )
    sheet = _sheet(frame)
    assert [c.value for c in sheet[1]] == frame.columns
    assert all(c.font.b for c in sheet[1])
    assert sheet.freeze_panes == "A2"
    assert sheet.auto_filter.ref == "A1:E3"
    rows = [[c.value for c in row] for row in sheet.iter_rows(min_row=2)]
    assert rows == [
        [1, "Ann", 1012.5, datetime(2025, 3, 1), True],
        [2, long_name, 998.25, None, False],
    ]
    assert sheet["D2"].is_date
    assert sheet["D2"].number_format == "yyyy-mm-dd"
    assert sheet.column_dimensions["B"].width >= MAX_WIDTH
    assert sheet.column_dimensions["A"].width >= 10


def test_an_empty_frame_gives_the_header_row_only() -> None:
    sheet = _sheet(pl.DataFrame(schema={"rank": pl.Int64, "name": pl.String}))
    assert [[c.value for c in row] for row in sheet.iter_rows()] == [["rank", "name"]]


def _parts(data: bytes) -> dict[str, bytes]:
    """A workbook's parts but the time it was written, checked against their CRCs."""
    book = zipfile.ZipFile(io.BytesIO(data))
    assert book.testzip() is None
    return {i.filename: book.read(i) for i in book.infolist() if i.filename != "docProps/core.xml"}


def _both(frame: pl.DataFrame, monkeypatch: pytest.MonkeyPatch) -> tuple[bytes, bytes]:
    """The workbook of ``frame`` with its rows built here, and rust_xlsxwriter's own."""
    monkeypatch.setattr(xlsx, "ROWS_FROM", 0)
    built = io.BytesIO()
    write_xlsx(frame, built, sheet="ranking")
    monkeypatch.setattr(xlsx, "ROWS_FROM", frame.height + 1)
    whole = io.BytesIO()
    write_xlsx(frame, whole, sheet="ranking")
    return built.getvalue(), whole.getvalue()


EDGES = pl.DataFrame(
    {
        "rank": [1, -2, None, 0, 9_007_199_254_740_991],
        "name": ['Ann & <Bo> "Q" \'s', " lead", None, "", "Åsa\u00a0Öberg\u3000"],
        "blank": pl.Series([None, "", "", None, None], dtype=pl.String),
        "day": [date(2020, 1, 1), None, None, date(1900, 3, 1), date(9999, 12, 31)],
        "active": [True, False, None, None, True],
        "small": pl.Series([1, None, -3, None, 127], dtype=pl.Int8),
        "count": pl.Series([1, 2, 3, None, 4], dtype=pl.UInt32),
        "trail": ["x ", "a  b", None, None, "zz"],
        "float": [1e-10, -0.0, None, 1234.567890123, 1e20],
        "exact": pl.Series(["-0.5226685202", "0.0000000000", None, None, "99999.9999999999"]).cast(
            EXACT
        ),
    }
)
"""Every kind of cell built here: escapes, spaces kept at either end, empty text and nulls (no
cell), a row of nothing but nulls and empty text (no row), the widest integer and date, doubles
written short and long, and exact ratings (decimals, written as their doubles)."""


def test_a_sheet_built_here_is_rust_xlsxwriters_part_for_part(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    built, whole = _both(EDGES, monkeypatch)
    assert xlsx.copied(EDGES.with_columns(pl.col("exact").cast(pl.Float64)))
    assert _parts(built) == _parts(whole)
    sheet = zipfile.ZipFile(io.BytesIO(built)).getinfo(xlsx.SHEET_PART)
    whole_sheet = zipfile.ZipFile(io.BytesIO(whole)).getinfo(xlsx.SHEET_PART)
    assert (sheet.flag_bits, whole_sheet.flag_bits) == (0, 8)  # two writers, one XML
    # Columns past Z, and rows all empty at the end (the sheet's size stops before them).
    wide = pl.DataFrame({f"c{i}": [i, None, None] for i in range(30)})
    built, whole = _both(wide, monkeypatch)
    assert _parts(built) == _parts(whole)
    assert b'<dimension ref="A1:AD2"/>' in _parts(built)[xlsx.SHEET_PART]
    assert b'<autoFilter ref="A1:AD4"/>' in _parts(built)[xlsx.SHEET_PART]
    empty = pl.DataFrame(
        {"a": [None, None], "b": ["", None]}, schema={"a": pl.Int64, "b": pl.String}
    )
    built, whole = _both(empty, monkeypatch)
    assert _parts(built) == _parts(whole)


def test_rows_built_in_slices_are_numbered_on_across_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Two rows a slice: every slice numbers its rows from where the one before stopped. The
    # plain names need no escape and keep no space: their cells are written without either.
    monkeypatch.setattr(xlsx, "SLICE", 2)
    plain = EDGES.with_columns(pl.Series("plain", ["Bo", "Cy", None, "Di", "Ed"]))
    built, whole = _both(plain, monkeypatch)
    assert _parts(built) == _parts(whole)
    assert b'<row r="6"><c r="A6">' in _parts(built)[xlsx.SHEET_PART]


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.none() | st.integers(-(2**53) + 1, 2**53 - 1),
            st.none() | st.text(alphabet=" &<>\"'aéÅ_x0-\u00a0\u2603🙂", max_size=8),
            st.none() | st.dates(date(1900, 3, 1), date(9999, 12, 31)),
            st.none() | st.booleans(),
            st.none() | st.floats(allow_nan=False, allow_infinity=False),
        ),
        min_size=1,
        max_size=30,
    )
)
def test_any_frame_of_copied_cells_is_built_as_rust_xlsxwriter_writes_it(
    rows: list[tuple[int | None, str | None, date | None, bool | None, float | None]],
) -> None:
    frame = pl.DataFrame(
        rows,
        schema={"n": pl.Int64, "s": pl.String, "d": pl.Date, "b": pl.Boolean, "f": pl.Float64},
        orient="row",
    )
    with pytest.MonkeyPatch.context() as monkeypatch:
        built, whole = _both(frame, monkeypatch)
    assert _parts(built) == _parts(whole)


@pytest.mark.parametrize(
    "column",
    [
        pl.Series("x", [1.5, float("inf")]),
        pl.Series("x", [float("nan"), 2.0]),
        pl.Series("x", [1.5, 2.0], dtype=pl.Float32),
        pl.Series("x", ["tab\there", "b"]),
        pl.Series("x", ["_x0041_", "b"]),
        pl.Series("x", [date(1900, 2, 28), date(2000, 1, 1)]),
        pl.Series("x", [2**53, 1]),
        pl.Series("x", [datetime(2020, 1, 1, 12), datetime(2020, 1, 2)]),
    ],
)
def test_cells_not_copied_leave_the_whole_sheet_to_rust_xlsxwriter(
    column: pl.Series, monkeypatch: pytest.MonkeyPatch
) -> None:
    frame = pl.DataFrame({"rank": [1, 2]}).with_columns(column)
    assert not xlsx.copied(frame)
    built, whole = _both(frame, monkeypatch)
    assert _parts(built) == _parts(whole)
    sheet = zipfile.ZipFile(io.BytesIO(built)).getinfo(xlsx.SHEET_PART)
    assert sheet.flag_bits == 8  # rust_xlsxwriter's own


def test_a_workbook_past_4_gib_keeps_its_sizes_in_zip64_fields(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Sizes and offsets from 100 bytes count as large here, as 4 GiB do for a real list.
    monkeypatch.setattr(xlsx, "ZIP32_LIMIT", 100)
    built, whole = _both(EDGES, monkeypatch)
    assert _parts(built) == _parts(whole)
    book = zipfile.ZipFile(io.BytesIO(built))
    assert all(info.extract_version == 45 for info in book.infolist())
    assert built.rfind(struct.pack("<I", 0x06064B50)) > 0
    sheet = openpyxl.load_workbook(io.BytesIO(built))["ranking"]
    assert sheet.max_row == EDGES.height + 1


def test_a_workbook_not_laid_out_as_expected_is_rust_xlsxwriters_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Say a later rust_xlsxwriter wrote the filter differently: nothing is built around it.
    template = xlsx._template

    def without_filter(frame: pl.DataFrame, sheet: str, widths: list[float]) -> bytes:
        book = zipfile.ZipFile(io.BytesIO(template(frame, sheet, widths)))
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w") as changed:
            for item in book.infolist():
                data = book.read(item)
                if item.filename == xlsx.SHEET_PART:
                    data = data.replace(b"<autoFilter", b"<autoFilters")
                changed.writestr(item, data)
        return out.getvalue()

    monkeypatch.setattr(xlsx, "_template", without_filter)
    assert xlsx._layout(EDGES, "ranking", xlsx._widths(EDGES)) is None
    built, whole = _both(EDGES, monkeypatch)
    assert _parts(built) == _parts(whole)
    sheet = zipfile.ZipFile(io.BytesIO(built)).getinfo(xlsx.SHEET_PART)
    assert sheet.flag_bits == 8  # rust_xlsxwriter's own


@pytest.mark.parametrize("rows_from", [0, 10_000])
def test_exact_ratings_are_number_cells_that_read_back_to_their_10_decimals(
    rows_from: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Exact ratings from -100,000 to 100,000 points in 1e-10 steps, the largest and smallest
    # included: the double of each prints back as its 10 decimals (built here and by
    # rust_xlsxwriter alike).
    monkeypatch.setattr(xlsx, "ROWS_FROM", rows_from)
    generator = random.Random(24)
    units = [generator.randint(-(10**15) + 1, 10**15 - 1) for _ in range(2_000)]
    units += [10**15 - 1, -(10**15) + 1, 1, -1, 0, 15_000_000_000_000, 5_226_685_202]
    texts = [f"{'-' if u < 0 else ''}{abs(u) // 10**10}.{abs(u) % 10**10:010d}" for u in units]
    frame = pl.DataFrame({"name": ["-2"] * len(units), "rating_exact": texts}).with_columns(
        pl.col("rating_exact").cast(EXACT)
    )
    sheet = _sheet(frame)
    cells = [row[1] for row in sheet.iter_rows(min_row=2)]
    assert all(c.data_type == "n" for c in cells)
    assert [f"{c.value:.10f}" for c in cells] == texts
    assert [Decimal(f"{c.value:.10f}") for c in cells] == [Decimal(t) for t in texts]
    # Text stays text, a leading minus and all.
    assert {(row[0].value, row[0].data_type) for row in sheet.iter_rows(min_row=2)} == {("-2", "s")}
