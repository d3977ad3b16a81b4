"""The bytes of a built column of texts, written one after another; a text table's cells."""

from __future__ import annotations

import io

import polars as pl

from exporters.ranking import EXACT
from exporters.writers import write_csv, write_joined, write_text


def joined(column: pl.Series) -> bytes:
    stream = io.BytesIO()
    write_joined(column, stream)
    return stream.getvalue()


def test_a_columns_texts_are_joined_as_written() -> None:
    column = pl.Series(["<row>", "", None, "Åsa 🙂", 'a, "b"\n', "x" * 40])
    assert joined(column) == '<row>Åsa 🙂a, "b"\n'.encode() + b"x" * 40
    assert joined(column.slice(3, 1)) == "Åsa 🙂".encode()
    pieces = pl.concat([column, pl.Series(["end"])], rechunk=False)
    assert pieces.n_chunks() == 2
    assert joined(pieces) == joined(column) + b"end"
    assert joined(pl.Series([], dtype=pl.String)) == b""
    assert joined(pl.Series([None, ""], dtype=pl.String)) == b""


def test_a_text_table_prints_a_flag_as_a_person_reads_it() -> None:
    frame = pl.DataFrame({"name": ["Ann", "Bob", "Cid"], "active": [True, False, None]})
    stream = io.BytesIO()
    write_text(frame, stream)
    assert stream.getvalue().decode().splitlines() == [
        "name  active",
        "----  ------",
        "Ann   yes",
        "Bob   no",
        "Cid",
    ]
    # CSV and JSON keep the values a program reads.
    stream = io.BytesIO()
    write_csv(frame, stream)
    assert stream.getvalue().decode().splitlines()[1:] == ["Ann,true", "Bob,false", "Cid,"]


def test_numbers_are_never_guarded_and_text_always_is() -> None:
    frame = pl.DataFrame(
        {
            "name": ["-2", "=1+1", "Ann", "@x", "\tTab"],
            "club": ["+49", None, None, None, None],
            "change": pl.Series(
                ["-0.5226685202", "0.0000000000", "12.0000000001", None, "-1500.1000000000"]
            ).cast(EXACT),
            "rating": [-3, 1, 2, None, 4],
            "mms": ["-3", "20.6667", None, "0", "12.5"],
        }
    )
    buffer = io.BytesIO()
    write_csv(frame, buffer)
    assert buffer.getvalue().decode().splitlines() == [
        "name,club,change,rating,mms",
        "'-2,'+49,-0.5226685202,-3,-3",
        "'=1+1,,0.0000000000,1,20.6667",
        "Ann,,12.0000000001,2,",
        "'@x,,,,0",
        "'\tTab,,-1500.1000000000,4,12.5",
    ]
