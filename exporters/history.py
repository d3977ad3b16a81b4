"""A player's history: every rated tournament with the numbers behind the change (SPEC 3)."""

from __future__ import annotations

from decimal import Decimal

import polars as pl

from exporters.ranking import exact_number
from ratings.parameters import format_hundredths
from ratings.rounding import Rounding, published


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


def history_text(rows: pl.DataFrame, rounding: str = Rounding.HALF_UP) -> pl.DataFrame:
    """:func:`history_rows` for reading in a terminal: the rating after each tournament as the
    lists show it (whole points) and the exact values to two decimals (the files keep all 10).
    Points, E and the change are what the tournament did; Buchholz and the averages stay in the
    files."""

    def units(value: Decimal | None) -> int | None:
        """The exact value in 1e-10 points, as the ratings are kept."""
        return None if value is None else int(value.scaleb(10))

    def two(column: str, signed: bool = False) -> pl.Series:
        texts = []
        for value in rows[column].to_list():
            exact = units(value)
            text = None if exact is None else format_hundredths(exact)
            if signed and text is not None and text != "0.00" and not text.startswith("-"):
                text = "+" + text
            texts.append(text)
        return pl.Series(column, texts, dtype=pl.String)

    after = [units(v) for v in rows["rating_after"].to_list()]
    whole = [None if u is None else published(u, rounding) for u in after]
    return rows.select("date", "tournament", "tier", "k", "games", "wins", "draws", "losses",
                       "points").with_columns(
        two("expected"),
        two("rating_before").alias("before"),
        two("rating_after").alias("after"),
        two("change", signed=True).alias("change"),
        pl.Series("rating", whole, dtype=pl.Int64),
    )  # fmt: skip
