import io
import random
from datetime import date, datetime
from decimal import Decimal

import fastexcel
import openpyxl
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exporters import xlsx
from exporters.ranking import EXACT
from exporters.xlsx import MAX_WIDTH, write_xlsx


def _workbook(frame: pl.DataFrame) -> bytes:
    buffer = io.BytesIO()
    write_xlsx(frame, buffer, sheet="ranking")
    return buffer.getvalue()


def _sheet(frame: pl.DataFrame) -> openpyxl.worksheet.worksheet.Worksheet:
    book = openpyxl.load_workbook(io.BytesIO(_workbook(frame)))
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
    assert sheet.freeze_panes == "A2"


EDGES = pl.DataFrame(
    {
        "rank": [1, -2, None, 0, 9_007_199_254_740_991],
        "name": ['=HYPERLINK("http://x","y")', "-2", None, "", "Åsa\u00a0Öberg\u3000"],
        "odd": ["tab\there", "_x0041_", "a\x01b", " lead", 'Ann & <Bo> "Q" \'s '],
        "blank": pl.Series([None, "", "", None, None], dtype=pl.String),
        "day": [date(2020, 1, 1), None, None, date(1900, 3, 1), date(9999, 12, 31)],
        "active": [True, False, None, None, True],
        "small": pl.Series([1, None, -3, None, 127], dtype=pl.Int8),
        "count": pl.Series([1, 2, 3, None, 4], dtype=pl.UInt32),
        "float": [1e-10, -0.0, None, 1234.567890123, 1e20],
        "exact": pl.Series(["-0.5226685202", "0.0000000000", None, None, "99999.9999999999"]).cast(
            EXACT
        ),
    }
)
"""Text that looks like a formula or a number, text with escapes, control characters, spaces at
either end and characters past ASCII; empty text and nulls; the widest integer and date;
doubles written short and long; exact ratings (decimals, written as their doubles)."""

READ_AS = {
    "rank": "int", "name": "string", "odd": "string", "blank": "string", "day": "date",
    "active": "boolean", "small": "int", "count": "int", "float": "float", "exact": "float",
}  # fmt: skip


def _read_back(data: bytes, dtypes: dict[str, str]) -> pl.DataFrame:
    """The sheet's values as a reader takes them (text unescaped as Excel does)."""
    sheet = fastexcel.read_excel(data).load_sheet(0, dtypes=dtypes)  # type: ignore[arg-type]
    return sheet.to_polars()


def test_every_cell_reads_back_as_written_and_text_stays_text() -> None:
    data = _workbook(EDGES)
    back = _read_back(data, READ_AS)
    # Empty text is no cell: it reads back as nothing, like a null.
    expected = EDGES.with_columns(
        pl.col(pl.String).replace("", None), pl.col("exact").cast(pl.Float64)
    )
    assert back.rows() == expected.rows()
    sheet = openpyxl.load_workbook(io.BytesIO(data))["ranking"]
    # Every text is a string cell, formula-like and number-like text included; every number a
    # number cell, and the cells of no value are empty.
    kinds = {
        (name, cell.data_type)
        for row in sheet.iter_rows(min_row=2)
        for name, cell in zip(EDGES.columns, row, strict=True)
        if cell.value is not None
    }
    texts = {name for name, dtype in EDGES.schema.items() if dtype == pl.String}
    assert {kind for name, kind in kinds if name in texts} == {"s"}
    assert {kind for name, kind in kinds if name not in texts | {"active", "day"}} == {"n"}
    assert sheet["B2"].value == '=HYPERLINK("http://x","y")'
    assert sheet["B3"].value == "-2"
    assert sheet.auto_filter.ref == "A1:J6"
    assert sheet.column_dimensions["B"].width >= len(EDGES["name"][0])


def test_columns_past_z_and_rows_of_nothing_keep_the_filter_over_every_row() -> None:
    wide = pl.DataFrame({f"c{i}": [i, None, None] for i in range(30)})
    sheet = _sheet(wide)
    assert sheet.auto_filter.ref == "A1:AD4"
    assert [c.value for c in sheet[2]] == list(range(30))
    assert sheet.cell(1, 30).value == "c29"


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.none() | st.integers(-(2**53) + 1, 2**53 - 1),
            st.none() | st.text(alphabet=" &<>\"'aéÅ_x0-=+@\t\r\n\u00a0\u2603🙂", max_size=8),
            st.none() | st.dates(date(1900, 3, 1), date(9999, 12, 31)),
            st.none() | st.booleans(),
            st.none() | st.floats(allow_nan=False, allow_infinity=False),
        ),
        min_size=1,
        max_size=30,
    )
)
def test_any_frame_reads_back_cell_for_cell(
    rows: list[tuple[int | None, str | None, date | None, bool | None, float | None]],
) -> None:
    schema = {"n": pl.Int64, "s": pl.String, "d": pl.Date, "b": pl.Boolean, "f": pl.Float64}
    frame = pl.DataFrame(rows, schema=schema, orient="row")
    dtypes = {"n": "int", "s": "string", "d": "date", "b": "boolean", "f": "float"}
    data = _workbook(frame)
    back = _read_back(data, dtypes)
    expected = frame.with_columns(pl.col("s").replace("", None))
    sheet = openpyxl.load_workbook(io.BytesIO(data))["ranking"]
    kinds = {row[1].data_type for row in sheet.iter_rows(min_row=2) if row[1].value is not None}
    assert kinds <= {"s"}
    # A row of nothing but empty cells at the end is not read back: nothing is in it.
    assert back.rows() == expected.head(back.height).rows()
    assert expected.slice(back.height).null_count().sum_horizontal().item() == (
        (expected.height - back.height) * expected.width
    )


def test_a_long_sheet_name_is_cut_to_what_a_workbook_allows() -> None:
    buffer = io.BytesIO()
    write_xlsx(pl.DataFrame({"a": [1]}), buffer, sheet="x" * 40)
    assert openpyxl.load_workbook(buffer).sheetnames == ["x" * 31]


def test_exact_ratings_are_number_cells_that_read_back_to_their_10_decimals() -> None:
    # Exact ratings from -100,000 to 100,000 points in 1e-10 steps, the largest and smallest
    # included: the double of each prints back as its 10 decimals.
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
    # Its shortest text is the decimal itself (trailing zeros apart).
    assert [Decimal(repr(c.value)) for c in cells] == [Decimal(t) for t in texts]
    # Text stays text, a leading minus and all.
    assert {(row[0].value, row[0].data_type) for row in sheet.iter_rows(min_row=2)} == {("-2", "s")}


@pytest.mark.parametrize(
    "column",
    [
        pl.Series("x", [1.5, float("inf")]),
        pl.Series("x", [float("nan"), 2.0]),
        pl.Series("x", [1.5, 2.0], dtype=pl.Float32),
        pl.Series("x", [date(1900, 2, 28), date(2000, 1, 1)]),
        pl.Series("x", [datetime(2020, 1, 1, 12), datetime(2020, 1, 2)]),
    ],
)
def test_other_kinds_of_cell_are_written_too(column: pl.Series) -> None:
    sheet = _sheet(pl.DataFrame({"rank": [1, 2]}).with_columns(column))
    assert [c.value for c in sheet[1]] == ["rank", "x"]
    assert sheet.max_row == 3
    assert sheet["A3"].value == 2


def test_a_large_frame_is_written_by_a_process_of_its_own_cell_for_cell(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    frame = pl.DataFrame(
        {
            "rank": [1, 2, 3],
            "name": ['=HYPERLINK("x")', "-2", "Zoë"],
            "rating": [Decimal("1280.5443968736"), Decimal("999.0000000001"), Decimal("1000")],
        },
        schema_overrides={"rating": EXACT},
    )
    here = _workbook(frame)
    monkeypatch.setattr(xlsx, "PROCESS_FROM", 1)

    def not_here(*_: object) -> None:
        raise AssertionError("the large frame was written in the calling process")

    # The writing process imports the module afresh: the stand-in holds only in this process.
    monkeypatch.setattr(xlsx, "_write", not_here)
    there = _workbook(frame)
    read = [fastexcel.read_excel(book).load_sheet(0).to_polars() for book in (here, there)]
    assert read[0].equals(read[1])
    assert read[1]["name"].to_list() == ['=HYPERLINK("x")', "-2", "Zoë"]
    assert read[1]["rating"].to_list() == [1280.5443968736, 999.0000000001, 1000.0]
