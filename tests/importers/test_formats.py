"""The format registry: every reader's format found by its name or, failing that, its first bytes."""

from __future__ import annotations

import importlib
import io
import pathlib

import polars as pl
import pytest

from importers.formats import (
    CROSSTABLES,
    FORMATS,
    IMPORT_FORMATS,
    TABLES,
    Kind,
    crosstable_format,
    results_table,
    table_format,
    table_format_of,
)
from ratings.errors import InputError
from tests.golden import DATA

ROOT = pathlib.Path(__file__).parents[2]
FIXTURES = pathlib.Path(__file__).parent / "fixtures"
GO = DATA / "go_opengotha"
PLAYERS = ROOT / "samples" / "players.csv"

CROSSTABLE_FILES = [
    (GO / "juvisy2019.h9", "h9"),
    (GO / "juvisy2019.xml", "opengotha"),
    (FIXTURES / "club_championship.trf", "trf"),
    (FIXTURES / "macmahon_sample.txt", "macmahon"),
]


def table_bytes(fmt: str) -> bytes:
    if fmt in ("csv", "xlsx"):
        return (PLAYERS if fmt == "csv" else ROOT / "samples" / "results-2025.xlsx").read_bytes()
    frame = pl.read_csv(PLAYERS, infer_schema=False)
    buffer = io.BytesIO()
    frame.write_json(buffer) if fmt == "json" else frame.write_parquet(buffer)
    return buffer.getvalue()


@pytest.mark.parametrize(("path", "expected"), CROSSTABLE_FILES)
def test_each_crosstable_is_sniffed_from_its_content(path: pathlib.Path, expected: str) -> None:
    data = path.read_bytes()
    assert crosstable_format(path.name, data) == expected
    assert crosstable_format("upload", data) == expected
    assert crosstable_format("upload.txt", data) == expected


def test_a_crosstable_csv_is_known_by_its_suffix_only() -> None:
    data = (FIXTURES / "club_championship.csv").read_bytes()
    assert crosstable_format("event.csv", data) == "csv"
    assert crosstable_format("event.txt", data) is None


@pytest.mark.parametrize("fmt", TABLES)
def test_each_table_is_sniffed_from_its_content(fmt: str) -> None:
    data = table_bytes(fmt)
    assert table_format("upload", data) == fmt
    assert table_format(f"players.{fmt.upper()}", b"") == fmt


def test_a_suffix_wins_over_the_content() -> None:
    assert table_format("players.csv", table_bytes("xlsx")) == "csv"
    assert crosstable_format("event.csv", b"001 anything") == "csv"


def test_a_path_without_a_table_suffix_is_an_input_error() -> None:
    assert table_format_of(pathlib.Path("players.TXT")) == "csv"
    with pytest.raises(
        InputError, match=r"players\.pdf: value '\.pdf': expected a \.csv, \.xlsx, \.json"
    ):
        table_format_of(pathlib.Path("players.pdf"))


@pytest.mark.parametrize(
    ("name", "data", "expected"),
    [
        ("results.csv", (ROOT / "samples" / "results-2023.csv").read_bytes(), "csv"),
        ("results.xlsx", b"", "xlsx"),
        ("results.tsv", b"tournament\tWINS\n", "csv"),
        ("event.csv", (FIXTURES / "club_championship.csv").read_bytes(), None),
        ("event.h9", (GO / "juvisy2019.h9").read_bytes(), None),
        # A TRF title may say "wins": a text file in an import is a crosstable.
        ("event.txt", b"012 Twins Open\n001    1 ...\n", None),
    ],
)
def test_what_the_import_job_reads_as_results(name: str, data: bytes, expected: str | None) -> None:
    assert results_table(name, data) == expected


def test_every_crosstable_reader_exists_and_every_import_name_has_a_reader() -> None:
    for fmt in CROSSTABLES.values():
        module, _, function = (fmt.reader or "").partition(":")
        assert callable(getattr(importlib.import_module(module), function))
    assert {f for f in IMPORT_FORMATS.values() if f is not None} == set(CROSSTABLES)


def test_no_suffix_names_two_formats_of_one_kind() -> None:
    for kind in Kind:
        suffixes = [s for f in FORMATS if f.kind is kind for s in f.suffixes]
        assert len(suffixes) == len(set(suffixes))
