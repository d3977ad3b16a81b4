"""Published lists (SPEC 6): the frozen entries of a period, their statistics and their diffs.

Pure functions of frames; the publishing job stores what they build, and exporters read it back.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta

import polars as pl

from exporters.ranking import COLUMNS, exact_text, months_before
from ratings.errors import PeriodError
from ratings.formula import RATING_SCALE
from ratings.rounding import Rounding, mean_rating, published_expr

PERIOD = re.compile(r"^(\d{4})-(0[1-9]|1[0-2])$")


def parse_period(period: str) -> tuple[int, int]:
    """Year and month of a list period ``YYYY-MM``; a :class:`~ratings.errors.PeriodError` when
    it is not one."""
    match = PERIOD.match(period)
    if match is None:
        raise PeriodError(period)
    return int(match.group(1)), int(match.group(2))


def default_cutoff(period: str) -> date:
    """The last day of the month before the period: the 2026-11 list holds October's events."""
    year, month = parse_period(period)
    return date(year, month, 1) - timedelta(days=1)


@dataclass(frozen=True, slots=True)
class ListStatistics:
    players: int
    active_players: int
    mean_rating: int
    """Mean exact rating of everyone on the list, in 1e-10 points (rounded half up)."""


def list_entries(
    ratings: pl.DataFrame, previous: pl.DataFrame | None, *, cutoff: date, active_months: int
) -> pl.DataFrame:
    """Everyone rated by the cut-off, with ``active`` (a game within ``active_months``) and the
    rating they had on the previous list (null for players new to the list)."""
    since = months_before(cutoff, active_months)
    entries = ratings.with_columns(
        (pl.col("last_played").is_not_null() & (pl.col("last_played") > since)).alias("active")
    )
    if previous is None:
        return entries.with_columns(pl.lit(None, dtype=pl.Int64).alias("previous_rating"))
    return entries.join(
        previous.select("player", pl.col("rating").alias("previous_rating")),
        on="player",
        how="left",
    )


def statistics(entries: pl.DataFrame) -> ListStatistics:
    return ListStatistics(
        entries.height, int(entries["active"].sum()), mean_rating(entries["rating"])
    )


def in_rank_order(entries: pl.DataFrame) -> pl.DataFrame:
    """``entries`` in the order a list shows them: by exact rating, then name, then id."""
    return entries.sort(["rating", "name", "player_id"], descending=[True, False, False])


def list_rows(
    entries: pl.DataFrame,
    *,
    rounding: str = Rounding.HALF_UP,
    everyone: bool = False,
    ordered: bool = False,
) -> pl.DataFrame:
    """The rows a published list shows: SPEC 9's columns, then ``change`` since the previous list
    (in whole points as shown, empty for a player new to the list) and, for everyone, ``active``.
    ``ordered``: the entries are already :func:`in_rank_order` (a million strings sorted once
    for both rankings of the publish folder)."""
    rows = entries if everyone else entries.filter(pl.col("active"))
    shown = published_expr(pl.col("rating"), rounding)
    before = published_expr(pl.col("previous_rating"), rounding)
    rows = (rows if ordered else in_rank_order(rows)).with_columns(
        pl.col("rating").rank("min", descending=True).cast(pl.Int64).alias("rank"),
        exact_text(pl.col("rating")).alias("rating_exact"),
        shown.alias("rating"),
        (shown - before).alias("change"),
    )
    extra = ["change", "active"] if everyone else ["change"]
    return rows.select([*COLUMNS, *extra])


def diff_rows(
    old: pl.DataFrame, new: pl.DataFrame, *, rounding: str = Rounding.HALF_UP
) -> pl.DataFrame:
    """Player by player, what changed between two lists: rating, rank, entered or left.

    Ranks are ranks among active players, as the lists show them; players on neither active list
    whose exact rating did not change are left out.
    """

    def ranked(entries: pl.DataFrame, suffix: str) -> pl.DataFrame:
        active = entries.filter(pl.col("active")).with_columns(
            pl.col("rating").rank("min", descending=True).cast(pl.Int64).alias("rank")
        )
        everyone = entries.join(active.select("player", "rank"), on="player", how="left")
        return everyone.select(
            "player",
            pl.col("player_id").alias(f"player_id{suffix}"),
            pl.col("name").alias(f"name{suffix}"),
            pl.col("rating").alias(f"exact{suffix}"),
            pl.col("rank").alias(f"rank{suffix}"),
        )

    joined = ranked(old, "_old").join(ranked(new, "_new"), on="player", how="full", coalesce=True)
    status = (
        pl.when(pl.col("rank_old").is_null() & pl.col("rank_new").is_not_null())
        .then(pl.lit("entered"))
        .when(pl.col("rank_old").is_not_null() & pl.col("rank_new").is_null())
        .then(pl.lit("left"))
        .when(pl.col("exact_old") != pl.col("exact_new"))
        .then(pl.lit("changed"))
        .otherwise(pl.lit("same"))
    )
    rows = joined.with_columns(
        pl.coalesce("player_id_new", "player_id_old").alias("player_id"),
        pl.coalesce("name_new", "name_old").alias("name"),
        status.alias("status"),
        published_expr(pl.col("exact_old"), rounding).alias("rating_old"),
        published_expr(pl.col("exact_new"), rounding).alias("rating_new"),
        exact_text(pl.col("exact_new") - pl.col("exact_old")).alias("change_exact"),
        (pl.col("rank_old") - pl.col("rank_new")).alias("rank_change"),
    )
    rows = rows.filter(
        (pl.col("status") != "same")
        & ~(
            pl.col("rank_old").is_null()
            & pl.col("rank_new").is_null()
            & (pl.col("exact_old") == pl.col("exact_new"))
        )
    )
    return rows.sort(["status", "rank_new", "name"], nulls_last=True).select(
        "player_id", "name", "status", "rating_old", "rating_new", "change_exact", "rank_old",
        "rank_new", "rank_change",
    )  # fmt: skip


def drift(mean_rating: int, initial_rating: int) -> str:
    """How far the pool's mean has moved from the initial rating, as text with 10 decimals."""
    difference = mean_rating - initial_rating
    sign = "+" if difference >= 0 else "-"
    whole, fraction = divmod(abs(difference), RATING_SCALE)
    return f"{sign}{whole}.{fraction:010d}"
