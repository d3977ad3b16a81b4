"""XLSX output, written whole by rust_xlsxwriter (through ``rustpy_xlsxwriter``): the frame's
columns go to it as Arrow batches, and it writes the sheet's rows in its constant-memory mode
(each row's XML to a temporary file as it comes, text as inline strings).

Every text cell is written as text: a name such as ``=HYPERLINK(...)`` or ``-2`` arrives in the
spreadsheet as those characters, never as a formula or a number (SPEC 4.4); rust_xlsxwriter
writes a string as a string cell whatever it holds. A number is a number cell: an exact rating (a
decimal with 10 places) is written as the double nearest to it, whose shortest text is that
decimal again for any value below 100,000 points (a double keeps 15 significant digits), and
rust_xlsxwriter writes a double as its shortest text, so the cell shows and reads back its 10
decimals. The header row is bold and frozen, with a filter over the rows; each column is as
wide as its heading or its longest text; dates show as ``yyyy-mm-dd``.

The binding holds the interpreter's lock while it turns the batches into rows, and lets it go
while it compresses and writes the file: a caller with other work to do meanwhile writes the
workbook in a thread of its own (the publish folder's writers do, ``jobs.folder``).
"""

from __future__ import annotations

from typing import IO, BinaryIO, cast

import polars as pl
from rustpy_xlsxwriter import FastExcel

MIN_WIDTH = 10
MAX_WIDTH = 60
SHEET_NAME_LENGTH = 31
"""The longest sheet name a workbook may have."""


def write_xlsx(frame: pl.DataFrame, stream: IO[bytes], *, sheet: str = "list") -> None:
    # rust_xlsxwriter leaves a column of decimals out of the sheet: it gets their doubles.
    decimals = [name for name, dtype in frame.schema.items() if dtype.is_decimal()]
    if decimals:
        frame = frame.with_columns(pl.col(decimals).cast(pl.Float64))
    (
        FastExcel(cast(BinaryIO, stream))
        .format(bold_headers=True, datetime_format="yyyy-mm-dd")
        .freeze(row=1, col=0)
        .sheet(
            sheet[:SHEET_NAME_LENGTH],
            frame,
            column_widths=_widths(frame),
            autofilter=frame.height > 0,
        )
        .save()
    )


def _widths(frame: pl.DataFrame) -> list[float]:
    """Each column as wide as its heading or its longest text (at most ``MAX_WIDTH``)."""
    texts = [name for name, dtype in frame.schema.items() if dtype == pl.String]
    longest: dict[str, int] = {}
    if texts and frame.height:
        found = frame.select(pl.col(texts).str.len_chars().max().fill_null(0)).row(0)
        longest = dict(zip(texts, found, strict=True))
    return [
        float(max(len(name), min(longest.get(name, 0), MAX_WIDTH), MIN_WIDTH) + 2)
        for name in frame.columns
    ]
