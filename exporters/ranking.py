"""The world ranking (SPEC 6 and 9): a pure function from ratings to the rows a list shows."""

from __future__ import annotations

from datetime import date

import polars as pl

from ratings.list_rules import active_expr, active_since, rank_expr
from ratings.parameters import RATING_SCALE
from ratings.rounding import Rounding, published_expr

COLUMNS = (
    "rank", "player_id", "name", "country", "rating", "rating_exact", "games", "tournaments",
    "last_played",
)  # fmt: skip


def shown_ids(rows: pl.DataFrame) -> pl.DataFrame:
    """``rows`` with the federation's id under the name the published rows give it,
    ``player_id``."""
    return rows.rename({"federation_id": "player_id"})


def exact_text(units: pl.Expr) -> pl.Expr:
    """An exact rating as text with its 10 decimals, from an integer of 1e-10 points."""
    whole = units.abs() // RATING_SCALE
    fraction = (units.abs() % RATING_SCALE).cast(pl.String).str.pad_start(10, "0")
    sign = pl.when(units < 0).then(pl.lit("-")).otherwise(pl.lit(""))
    return pl.concat_str(sign, whole.cast(pl.String), pl.lit("."), fraction)


EXACT = pl.Decimal(38, 10)
"""The type of an exact rating in published rows: a number with its 10 decimals, which CSV writes
as it is, XLSX as a number cell and JSON as text (a JSON number would be read as a float)."""


def exact_number(units: pl.Expr) -> pl.Expr:
    """An exact rating as a number with its 10 decimals, from an integer of 1e-10 points."""
    # The factor is cast from its text: a Decimal literal makes polars build a Series through
    # numpy, loaded for nothing by a command that shows a list.
    return units.cast(pl.Decimal(38, 0)) * pl.lit("0.0000000001").cast(EXACT)


def ranking_rows(
    ratings: pl.DataFrame,
    *,
    as_of: date,
    active_months: int,
    rounding: str = Rounding.HALF_UP,
    everyone: bool = False,
) -> pl.DataFrame:
    """Rank players by exact rating (ties share a rank). Only active players (a game within
    ``active_months`` before ``as_of``) unless ``everyone``, which adds an ``active`` column."""
    since = active_since(as_of, active_months)
    rows = ratings.with_columns(active_expr(pl.col("last_played"), since).alias("active"))
    if not everyone:
        rows = rows.filter(pl.col("active"))
    rows = rows.sort(["rating", "name", "federation_id"], descending=[True, False, False])
    rows = rows.with_columns(
        rank_expr(pl.col("rating")).alias("rank"),
        exact_number(pl.col("rating")).alias("rating_exact"),
        published_expr(pl.col("rating"), rounding).alias("rating"),
    )
    columns = [*COLUMNS, "active"] if everyone else list(COLUMNS)
    return shown_ids(rows).select(columns)
