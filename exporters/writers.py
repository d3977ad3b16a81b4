"""Writers: turn rows (a polars frame) into CSV, JSON or a plain-text table.

Text exported from the service must never run as a spreadsheet formula (SPEC 4.4): a text cell
starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return gets a leading apostrophe in
CSV, which spreadsheet programs show as text. A number is never guarded: a column of a number type
(exact ratings are decimals, see ``exporters.ranking.EXACT``), or a text column whose every value
is a written number (a standings' points and tie-breaks, ``-3`` or ``20.6667``), is written as
the numbers it holds. JSON keeps values as they are.
"""

from __future__ import annotations

import io
from typing import IO, cast

import polars as pl

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
FORMATS = ("csv", "json", "text")
WRITTEN_NUMBER = r"^-?[0-9]+(\.[0-9]+)?$"
"""A number as the exporters write one in text: digits, a minus sign, decimals after a point."""
SIGNED_NUMBER = r"^[+-]?[0-9]+(\.[0-9]+)?$"
"""A number as a terminal table may show one: a change with its sign, ``+3.14``."""


def number_texts(frame: pl.DataFrame, pattern: str = WRITTEN_NUMBER) -> set[str]:
    """The text columns of ``frame`` that hold numbers only (and at least one)."""
    texts = [c for c, dtype in frame.schema.items() if dtype == pl.String]
    if not texts or frame.height == 0:
        return set()
    found = frame.select(
        (pl.col(c).str.contains(pattern).all() & pl.col(c).is_not_null().any()).alias(c)
        for c in texts
    ).row(0)
    return {c for c, numbers in zip(texts, found, strict=True) if numbers}


def defuse(frame: pl.DataFrame) -> pl.DataFrame:
    """Make every text column safe to open in a spreadsheet; numbers are left as they are."""
    numbers = number_texts(frame)
    return frame.with_columns(
        pl.when(pl.col(c).str.contains(r"^[=+\-@\t\r]"))
        .then(pl.lit("'") + pl.col(c))
        .otherwise(pl.col(c))
        .alias(c)
        for c, dtype in frame.schema.items()
        if dtype == pl.String and c not in numbers
    )


def as_text(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` with its decimals as their text (``1512.0000000000``, every decimal kept), for
    the writers that print values: Python writes a decimal zero as ``0E-10``."""
    decimals = [c for c, dtype in frame.schema.items() if dtype.is_decimal()]
    if not decimals:
        return frame
    return frame.with_columns(pl.col(decimals).cast(pl.String))


def text_pieces(pieces: list[pl.Expr | str]) -> list[pl.Expr]:
    """``pieces`` of a text built row by row, for ``pl.concat_str``: each run of fixed texts
    joined into one. Every piece costs ``concat_str`` a step per row, and a sheet or a page of a
    million rows is tens of millions of them."""
    joined: list[pl.Expr] = []
    run: list[str] = []
    for piece in pieces:
        if isinstance(piece, str):
            run.append(piece)
            continue
        if run:
            joined.append(pl.lit("".join(run)))
            run = []
        joined.append(piece)
    if run:
        joined.append(pl.lit("".join(run)))
    return joined


def write_joined(column: pl.Series, stream: IO[bytes]) -> None:
    """The texts of ``column`` one after another (a null as no text), written by polars in
    native code straight to ``stream``: a CSV file of the one column, never quoted, with no line
    ends. Neither a Python text of the whole nor pyarrow (a tenth of a second to load)."""
    column.to_frame().write_csv(
        stream, include_header=False, quote_style="never", line_terminator="", null_value=""
    )


def write_csv(frame: pl.DataFrame, stream: IO[bytes]) -> None:
    """Written by polars straight to ``stream`` (never a text of the whole file in Python)."""
    defuse(frame).write_csv(stream, null_value="")


def write_json(frame: pl.DataFrame, stream: IO[bytes]) -> None:
    """An array of one object per row (dates as ISO text, nulls as null), written by polars in
    native code straight to ``stream``, never as Python dictionaries of the rows."""
    frame.write_json(cast(io.IOBase, stream))
    stream.write(b"\n")


YES, NO = "yes", "no"
"""How a person reads a flag (``active``, ``bye``) in a text table or a page, as the site's pages
write it; CSV and JSON keep ``true`` and ``false``."""


def shown_value(value: object) -> str:
    """A cell as a person reads it: nothing for a null, ``yes`` or ``no`` for a flag."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return YES if value else NO
    return str(value)


def write_text(frame: pl.DataFrame, stream: IO[bytes], *, limit: int | None = None) -> None:
    """A plain aligned table for the terminal."""
    shown = as_text(frame if limit is None else frame.head(limit))
    cells = [[shown_value(v) for v in row] for row in shown.iter_rows()]
    header = list(frame.columns)
    widths = [max([len(h), *(len(r[i]) for r in cells)]) for i, h in enumerate(header)]
    numbers = number_texts(frame, SIGNED_NUMBER)
    numeric = [frame.schema[c].is_numeric() or c in numbers for c in header]
    out = io.StringIO()

    def line(values: list[str]) -> None:
        parts = [
            v.rjust(w) if num else v.ljust(w)
            for v, w, num in zip(values, widths, numeric, strict=True)
        ]
        out.write("  ".join(parts).rstrip() + "\n")

    line(header)
    line(["-" * w for w in widths])
    for row in cells:
        line(row)
    if limit is not None and frame.height > limit:
        out.write(f"... {frame.height - limit} more rows\n")
    stream.write(out.getvalue().encode("utf-8"))


def write(frame: pl.DataFrame, fmt: str, stream: IO[bytes]) -> None:
    if fmt == "csv":
        write_csv(frame, stream)
    elif fmt == "json":
        write_json(frame, stream)
    elif fmt == "text":
        write_text(frame, stream)
    else:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, not {fmt!r}")
