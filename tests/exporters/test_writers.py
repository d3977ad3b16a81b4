"""The bytes of a built column of texts, taken whole from its Arrow array."""

from __future__ import annotations

import polars as pl

from exporters.writers import joined_text


def test_a_columns_texts_are_joined_as_written() -> None:
    column = pl.Series(["<row>", "", None, "Åsa 🙂", "x" * 40])
    assert bytes(joined_text(column)) == "<row>Åsa 🙂".encode() + b"x" * 40
    # A slice starts where its first text does; a column in pieces is one text all the same.
    assert bytes(joined_text(column.slice(3, 1))) == "Åsa 🙂".encode()
    pieces = pl.concat([column, pl.Series(["end"])], rechunk=False)
    assert pieces.n_chunks() == 2
    assert bytes(joined_text(pieces)) == bytes(joined_text(column)) + b"end"
    assert bytes(joined_text(pl.Series([], dtype=pl.String))) == b""
    assert bytes(joined_text(pl.Series([None, ""], dtype=pl.String))) == b""
