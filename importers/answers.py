"""The officer's answers to an import's review: a CSV of ``name,player_id`` lines, where
``player_id`` is a known player's id or ``new``. Read and checked here; the import applies them."""

from __future__ import annotations

import polars as pl

from importers.tabular import LINE, read_table
from ratings.errors import InputError, Problem

COLUMNS = ("name", "player_id")


def read_answers(data: bytes, source: str) -> dict[str, str]:
    """Name as written in the file → federation id or ``new``."""
    frame = read_table(data, source, "csv")
    missing = [c for c in COLUMNS if c not in frame.columns]
    if missing:
        raise InputError(
            Problem(source, 1, c, None, "this column is required (name,player_id)") for c in missing
        )
    blank = frame.filter(pl.col("name").is_null() | pl.col("player_id").is_null())
    if blank.height:
        raise InputError(
            Problem(source, line, "player_id", None, "give a player id or 'new' for every name")
            for line in blank[LINE].to_list()
        )
    return {
        name.strip(): answer.strip()
        for name, answer in frame.select("name", "player_id").iter_rows()
    }
