"""XLSX output. Every text cell is written as text: a name such as ``=HYPERLINK(...)`` or ``-2``
arrives in the spreadsheet as those characters, never as a formula or a number (SPEC 4.4).

The workbook is written by rust_xlsxwriter (through ``rustpy_xlsxwriter``) straight from the
frame's columns: a federation's full ranking (close to a million rows) took about two minutes
cell by cell through the Python xlsxwriter, and takes seconds this way.
"""

from __future__ import annotations

import io
import multiprocessing
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
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


def xlsx_bytes(frame: pl.DataFrame, sheet: str) -> bytes:
    """The workbook :func:`write_xlsx` writes, as bytes."""
    buffer = io.BytesIO()
    write_xlsx(frame, buffer, sheet=sheet)
    return buffer.getvalue()


def xlsx_apart(frame: pl.DataFrame, sheet: str) -> Callable[[], bytes]:
    """Start writing the workbook in a process of its own and return what waits for its bytes.

    rust_xlsxwriter holds the interpreter's lock while it writes, and a million-row sheet takes
    seconds: in a second process it is written while this one writes the other formats. The
    process is started fresh (``spawn``): a fork would copy polars' thread pool mid-flight.
    """
    pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
    future = pool.submit(xlsx_bytes, frame, sheet)

    def result() -> bytes:
        try:
            return future.result()
        finally:
            pool.shutdown()

    return result
