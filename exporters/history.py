"""A player's history: every rated tournament with the numbers behind the change (SPEC 3)."""

from __future__ import annotations

import polars as pl

from exporters.ranking import exact_number


def history_rows(history: pl.DataFrame) -> pl.DataFrame:
    """One row per tournament: rating before and after, E, P, k and the tournament's averages."""
    change = pl.col("rating_after") - pl.col("rating_before")
    return history.select(
        pl.col("end_date").alias("date"),
        "tournament",
        "tier",
        "k",
        "games",
        "wins",
        "draws",
        "losses",
        (pl.col("buchholz") / 10_000).alias("buchholz"),
        (pl.col("points_x2") / 2).alias("points"),
        exact_number(pl.col("expected")).alias("expected"),
        exact_number(pl.col("m_avg")).alias("m_avg"),
        exact_number(pl.col("b_avg")).alias("b_avg"),
        exact_number(pl.col("rating_before")).alias("rating_before"),
        exact_number(pl.col("rating_after")).alias("rating_after"),
        exact_number(change).alias("change"),
    )
