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
only while it compresses and writes the file. A large frame is therefore written by a process of
its own (the frame handed over as an Arrow file, the workbook handed back as a file), so that the
threads of the caller go on meanwhile: the site's other requests while a whole list is downloaded
as a workbook, the publish folder's other writers (``jobs.folder``). A small one is written here,
where starting a process would cost more than the rows.
"""

from __future__ import annotations

import multiprocessing
import shutil
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import IO, BinaryIO, cast

import polars as pl
from rustpy_xlsxwriter import FastExcel

MIN_WIDTH = 10
MAX_WIDTH = 60
SHEET_NAME_LENGTH = 31
"""The longest sheet name a workbook may have."""
PROCESS_FROM = 50_000
"""Rows from which the workbook is written by a process of its own."""
_COPY_CHUNK = 1 << 20


def write_xlsx(frame: pl.DataFrame, stream: IO[bytes], *, sheet: str = "list") -> None:
    # rust_xlsxwriter leaves a column of decimals out of the sheet: it gets their doubles.
    decimals = [name for name, dtype in frame.schema.items() if dtype.is_decimal()]
    if decimals:
        frame = frame.with_columns(pl.col(decimals).cast(pl.Float64))
    if frame.height < PROCESS_FROM:
        _write(frame, stream, sheet)
        return
    with tempfile.TemporaryDirectory(prefix="ratings-xlsx-") as scratch:
        rows, book = Path(scratch) / "rows.arrow", Path(scratch) / "book.xlsx"
        frame.write_ipc(rows, compression="uncompressed")
        # A fresh interpreter, not a fork: the caller may be running threads of its own.
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=1, mp_context=context) as writer:
            writer.submit(_write_file, str(rows), str(book), sheet).result()
        with book.open("rb") as written:
            shutil.copyfileobj(written, stream, _COPY_CHUNK)


def _write_file(rows: str, book: str, sheet: str) -> None:
    """In the writing process: the Arrow file's frame into the workbook file."""
    frame = pl.read_ipc(rows)
    with open(book, "wb") as stream:
        _write(frame, stream, sheet)


def _write(frame: pl.DataFrame, stream: IO[bytes], sheet: str) -> None:
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
