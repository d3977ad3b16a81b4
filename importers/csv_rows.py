"""Where a CSV file the reader refused goes wrong: polars names neither the line nor the row of a
row with more cells than the header, or of a broken quote; Python's own reader finds it again."""

from __future__ import annotations

import csv
import io

from ratings.errors import Problem


def unreadable(data: bytes, separator: str, source: str, reason: str) -> Problem:
    """The problem of a CSV file (UTF-8 ``data``) the reader refused for ``reason``: the first
    line with more cells than the header, or with a quote that is not closed or is followed by
    more than a separator, found again by Python's own reader; else ``reason`` alone."""
    text = data.decode("utf-8", errors="replace")
    if "\n" not in text:
        text = text.replace("\r", "\n")
    rows = csv.reader(io.StringIO(text, newline=""), delimiter=separator, strict=True)
    found = None
    try:
        header = len(next(rows, []))
        for row in rows:
            if len(row) > header:
                found = f"this line has {len(row)} cells where the header has {header}"
                break
    except csv.Error as quoted:
        if "field larger than field limit" not in str(quoted):
            found = f"a quote is not closed, or is followed by more than a separator ({quoted})"
    if found is None:
        return Problem(source, None, None, None, f"not a readable CSV table ({reason})")
    return Problem(source, rows.line_num, None, None, f"not a readable CSV table: {found}")
