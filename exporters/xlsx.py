"""XLSX output. Every text cell is written as text: a name such as ``=HYPERLINK(...)`` or ``-2``
arrives in the spreadsheet as those characters, never as a formula or a number (SPEC 4.4).

The workbook is written by rust_xlsxwriter (through ``rustpy_xlsxwriter``) straight from the
frame's columns: a federation's full ranking (close to a million rows) took about two minutes
cell by cell through the Python xlsxwriter, and takes seconds this way.
"""

from __future__ import annotations

from typing import IO, BinaryIO, cast

import polars as pl
from rustpy_xlsxwriter import FastExcel

MIN_WIDTH = 10
MAX_WIDTH = 60


def write_xlsx(frame: pl.DataFrame, stream: IO[bytes], *, sheet: str = "list") -> None:
    (
        FastExcel(cast(BinaryIO, stream), sanitize_formulas=False)
        .format(bold_headers=True, datetime_format="yyyy-mm-dd")
        .freeze(row=1, col=0)
        .sheet(
            sheet[:31],
            frame,
            column_widths=_widths(frame),
            autofilter=frame.height > 0,
        )
        .save()
    )


def _widths(frame: pl.DataFrame) -> list[float]:
    """Each column as wide as its heading or its longest text (at most ``MAX_WIDTH``)."""
    widths = []
    for name, dtype in frame.schema.items():
        width = len(name)
        if dtype == pl.String and frame.height:
            longest = frame.select(pl.col(name).str.len_chars().max().fill_null(0)).item()
            width = max(width, min(int(longest), MAX_WIDTH))
        widths.append(float(max(width, MIN_WIDTH) + 2))
    return widths
