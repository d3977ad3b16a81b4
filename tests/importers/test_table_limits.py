"""A table's size once decoded is checked before it is decoded: a workbook's zip directory, a
Parquet file's footer, a JSON array's objects and a CSV file's header and rows are counted first,
and a file beyond its limits is one problem, found without building its cells."""

from __future__ import annotations

import io
import struct
import zipfile
from pathlib import Path

import polars as pl
import pyarrow as pa
import pytest

from importers.limits import PARTICIPANTS, TableLimits
from importers.participants import read_participants
from importers.tabular import json_rows, read_table
from jobs.reading import read_file
from ratings.errors import InputError
from tests.support.tables import parquet, workbook

MB = 1024 * 1024


def refusal(data: bytes, source: str, fmt: str, limits: TableLimits = PARTICIPANTS) -> str:
    with pytest.raises(InputError) as refused:
        read_table(data, source, fmt, limits)
    assert len(refused.value.problems) == 1
    return refused.value.problems[0].expected


def test_a_small_workbook_is_read_and_its_sizes_allowed() -> None:
    frame = read_table(workbook(3), "p.xlsx", "xlsx", PARTICIPANTS)
    assert frame["name"].to_list() == ["Player"] * 3


def test_a_workbook_that_unpacks_beyond_the_limit_is_refused_from_its_directory() -> None:
    bomb = workbook(40_000)  # a sheet of 2 MB packed into a few kilobytes
    assert len(bomb) < 64 * 1024
    expected = refusal(bomb, "bomb.xlsx", "xlsx", TableLimits(decoded=MB))
    assert expected == "unpacks to 2.1 MB once decoded, more than the limit of 1 MB"


def test_a_member_packed_like_a_zip_bomb_is_refused() -> None:
    bomb = workbook(40_000)
    expected = refusal(bomb, "bomb.xlsx", "xlsx", TableLimits(ratio=50))
    assert expected.startswith("member xl/worksheets/sheet1.xml is packed ")
    assert expected.endswith(" to 1, more than 50 to 1: not a spreadsheet's own compression")


def test_a_member_holding_more_than_it_declares_is_refused() -> None:
    honest = workbook(40_000)
    real = zipfile.ZipFile(io.BytesIO(honest)).getinfo("xl/worksheets/sheet1.xml").file_size
    # Both the local header and the directory say 1000 bytes: the sizes checked up front lie.
    lying = honest.replace(struct.pack("<I", real), struct.pack("<I", 1000))
    assert lying != honest
    assert refusal(lying, "lying.xlsx", "xlsx").startswith("not a readable XLSX workbook (")


def test_a_parquet_file_of_a_million_rows_is_refused_from_its_footer() -> None:
    data = parquet(pa.table({"name": pa.array([None] * 1_000_000, pa.string())}))
    assert len(data) < 10_000
    expected = refusal(data, "million.parquet", "parquet")
    assert expected == "has more than 10,000 rows, the limit for this kind of file"


def test_parquet_text_repeated_from_its_dictionary_is_refused_before_it_is_written_out() -> None:
    # 2,000 cells of 20,000 characters each, stored once: 40 MB of text from a small file.
    data = parquet(pa.table({"name": pa.array(["x" * 20_000] * 2000).dictionary_encode()}))
    assert len(data) < 100_000
    expected = refusal(data, "long.parquet", "parquet")
    assert expected == "holds text of 38.1 MB once decoded, more than the limit of 32 MB"


def test_parquet_pages_unpacking_beyond_the_limit_are_refused() -> None:
    data = parquet(pa.table({"rating": pa.array(range(200_000), pa.int64())}))
    assert refusal(data, "big.parquet", "parquet", TableLimits(decoded=MB)).startswith(
        "unpacks to 1."
    )


def test_a_parquet_participant_list_reads_as_before() -> None:
    stream = io.BytesIO()
    pl.DataFrame({"player_id": ["1", "2"], "rating": [1500, None]}).write_parquet(stream)
    frame = read_table(stream.getvalue(), "p.parquet", "parquet", PARTICIPANTS)
    assert frame.select("__line__", "player_id", "rating").rows() == [
        (1, "1", "1500"),
        (2, "2", None),
    ]


def test_json_rows_are_counted_before_they_are_built() -> None:
    data = b"[" + b",".join([b'{"name": "a{b}", "x": {"y": 1}}'] * 10_001) + b"]"
    assert json_rows(data) == 10_001
    expected = refusal(data, "many.json", "json")
    assert expected == "has more than 10,000 rows, the limit for this kind of file"


def test_a_csv_file_of_a_million_rows_stops_at_the_limit() -> None:
    data = b"name\n" + b"x\n" * 1_000_000
    expected = refusal(data, "million.csv", "csv")
    assert expected == "has more than 10,000 rows, the limit for this kind of file"


def test_a_header_of_a_million_columns_is_refused_before_it_is_parsed() -> None:
    data = b",".join(b"c%d" % i for i in range(1_000_000)) + b"\n" + b"1\n"
    expected = refusal(data, "wide.csv", "csv", TableLimits())
    assert expected == "has 1,000,000 columns, more than the limit of 1,000"


def test_a_participant_file_with_too_many_rows_is_one_problem() -> None:
    data = b"name\n" + b"".join(b"P%d\n" % i for i in range(10_001))
    with pytest.raises(InputError) as refused:
        read_participants(data, "big.csv", "csv")
    assert str(refused.value) == (
        "1 problem found:\n  big.csv: has more than 10,000 rows, the limit for this kind of file"
    )


def test_a_long_cell_is_shown_by_its_start() -> None:
    data = b"name,rank\nAnna," + b"9" * 5_000 + b"\n"
    with pytest.raises(InputError) as refused:
        read_participants(data, "p.csv", "csv")
    line = str(refused.value).splitlines()[1]
    assert line == (
        "  p.csv, line 2, column 'rank': value '" + "9" * 60 + "… (5,000 characters)': "
        "at most 4,096 characters"
    )


def test_the_decoded_limit_of_an_imported_table_follows_the_input_limit_setting(
    tmp_path: Path,
) -> None:
    # A history of a few hundred thousand results packs well: its cells decode to several times
    # the file's bytes. Raising input_limit_bytes for it raises the decoded limit with it.
    rows = 60_000
    frame = pl.DataFrame(
        {
            "tournament": [f"T{i // 10}" for i in range(rows)],
            "end_date": ["2024-05-01"] * rows,
            "player_id": [f"P{i % 5000}" for i in range(rows)],
            "name": [f"Player {i % 5000}" for i in range(rows)],
            "wins": [1] * rows,
            "draws": [0] * rows,
            "losses": [1] * rows,
            "buchholz": [2.0] * rows,
        }
    )
    path = tmp_path / "history.parquet"
    frame.write_parquet(path)
    assert path.stat().st_size < 200 * 1024
    with pytest.raises(InputError) as refused:
        read_file(path, limit=200 * 1024)
    [problem] = refused.value.problems
    assert problem.expected.startswith("unpacks to ")
    assert problem.expected.endswith("more than the limit of 200 KB (setting input_limit_bytes)")
    assert read_file(path, limit=64 * MB).file.rows == rows
