"""Writing seed lists and round-1 pairings in every format; HTML prints as pairing cards."""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO

import polars as pl

from exporters.html import render
from exporters.writers import write_csv, write_json, write_text
from exporters.xlsx import write_xlsx
from ratings.errors import Problem


@dataclass(frozen=True, slots=True)
class SeedDocument:
    rows: pl.DataFrame
    title: str
    subtitle: str
    pairings: bool
    """True when ``rows`` is a round-1 pairing rather than a seed list."""
    warnings: tuple[Problem, ...] = ()
    """What reading the participant file changed or guessed (a file read as Windows-1252, a name
    cleaned of control characters, a country stored as unknown); shown, never written into the
    list."""


SEED_COLUMNS = ("seed", "player_id", "name", "country", "rating", "rating_exact", "class")
MCMAHON_COLUMNS = (*SEED_COLUMNS[:-1], "rank", "mms", "group")
"""A McMahon list has McMahon's columns in place of the Swiss strength class."""
PAIRING_COLUMNS = (
    "board", "white_seed", "white_id", "white_name", "black_seed", "black_id", "black_name",
)  # fmt: skip


def csv_columns(rows: pl.DataFrame, pairings: bool) -> list[str]:
    """SPEC 7's CSV columns: the seed list (McMahon's with ``rank``, ``mms`` and ``group`` in
    place of the class) or the pairing table."""
    if pairings:
        return list(PAIRING_COLUMNS)
    return list(MCMAHON_COLUMNS if "mms" in rows.columns else SEED_COLUMNS)


def write_seed(document: SeedDocument, fmt: str, stream: IO[bytes]) -> None:
    """CSV has exactly SPEC 7's columns; the other formats also carry title, rank and byes."""
    rows = document.rows
    if fmt == "csv":
        write_csv(rows.select(csv_columns(rows, document.pairings)), stream)
    elif fmt == "json":
        write_json(rows, stream)
    elif fmt == "xlsx":
        write_xlsx(rows, stream, sheet="pairing" if document.pairings else "seed list")
    elif fmt == "html":
        template = "pairing.html.j2" if document.pairings else "seed.html.j2"
        page = render(template, rows, title=document.title, subtitle=document.subtitle)
        stream.write(page.encode("utf-8"))
    elif fmt == "text":
        stream.write(f"{document.title}\n{document.subtitle}\n".encode())
        write_text(rows, stream)
    else:
        raise ValueError(f"format must be csv, json, xlsx, html or text, not {fmt!r}")
