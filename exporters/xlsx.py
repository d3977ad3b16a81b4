"""XLSX output. Every text cell is written as text: a name such as ``=HYPERLINK(...)`` or ``-2``
arrives in the spreadsheet as those characters, never as a formula or a number (SPEC 4.4)."""

from __future__ import annotations

from datetime import date
from typing import IO

import polars as pl
import xlsxwriter


def write_xlsx(frame: pl.DataFrame, stream: IO[bytes], *, sheet: str = "list") -> None:
    workbook = xlsxwriter.Workbook(
        stream,
        {
            "in_memory": True,
            "strings_to_formulas": False,
            "strings_to_numbers": False,
            "strings_to_urls": False,
        },
    )
    bold = workbook.add_format({"bold": True})
    dates = workbook.add_format({"num_format": "yyyy-mm-dd"})
    worksheet = workbook.add_worksheet(sheet[:31])
    widths = [len(c) for c in frame.columns]
    for col, name in enumerate(frame.columns):
        worksheet.write_string(0, col, name, bold)
    for row_number, row in enumerate(frame.iter_rows(), start=1):
        for col, value in enumerate(row):
            if value is None:
                continue
            if isinstance(value, bool):
                worksheet.write_boolean(row_number, col, value)
            elif isinstance(value, (int, float)):
                worksheet.write_number(row_number, col, value)
            elif isinstance(value, date):
                worksheet.write_datetime(row_number, col, value, dates)
            else:
                text = str(value)
                worksheet.write_string(row_number, col, text)
                widths[col] = max(widths[col], min(len(text), 60))
    for col, width in enumerate(widths):
        worksheet.set_column(col, col, max(width, 10) + 2)
    worksheet.freeze_panes(1, 0)
    if frame.height:
        worksheet.autofilter(0, 0, frame.height, max(frame.width - 1, 0))
    workbook.close()
