"""Published lists (SPEC 6): the frozen entries of a period, their statistics and their diffs.

Pure functions of frames; the publishing job stores what they build, and exporters read it back.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta

import polars as pl

from exporters.ranking import COLUMNS, exact_number, shown_ids
from ratings.errors import PeriodError
from ratings.list_rules import active_expr, active_since, mean_rating, rank_expr
from ratings.parameters import RATING_SCALE
from ratings.rounding import Rounding, published_expr

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
    since = active_since(cutoff, active_months)
    entries = ratings.with_columns(active_expr(pl.col("last_played"), since).alias("active"))
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
    return entries.sort(["rating", "name", "federation_id"], descending=[True, False, False])


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
        rank_expr(pl.col("rating")).alias("rank"),
        exact_number(pl.col("rating")).alias("rating_exact"),
        shown.alias("rating"),
        (shown - before).alias("change"),
    )
    extra = ["change", "active"] if everyone else ["change"]
    return shown_ids(rows).select([*COLUMNS, *extra])


def diff_rows(
    old: pl.DataFrame,
    new: pl.DataFrame,
    *,
    rounding: str = Rounding.HALF_UP,
    exact: bool = False,
) -> pl.DataFrame:
    """Player by player, what changed between two lists: rating, rank, entered or left.

    In whole points (as the lists publish them) unless ``exact``: a player is ``changed`` when
    the whole rating the lists show differs, and ``rating_old``, ``rating_new`` and ``change``
    are whole numbers; with ``exact`` any change of the exact rating counts, and the three are
    exact values (decimals with 10 places). Ranks are ranks among active players, as the lists
    show them; players on neither active list whose rating did not change are left out.
    """

    def ranked(entries: pl.DataFrame, suffix: str) -> pl.DataFrame:
        active = entries.filter(pl.col("active")).with_columns(
            rank_expr(pl.col("rating")).alias("rank")
        )
        everyone = entries.join(active.select("player", "rank"), on="player", how="left")
        return everyone.select(
            "player",
            pl.col("federation_id").alias(f"federation_id{suffix}"),
            pl.col("name").alias(f"name{suffix}"),
            pl.col("rating").alias(f"exact{suffix}"),
            pl.col("rank").alias(f"rank{suffix}"),
        )

    joined = ranked(old, "_old").join(ranked(new, "_new"), on="player", how="full", coalesce=True)
    if exact:
        before, after = pl.col("exact_old"), pl.col("exact_new")
        shown = [exact_number(before), exact_number(after), exact_number(after - before)]
    else:
        before = published_expr(pl.col("exact_old"), rounding)
        after = published_expr(pl.col("exact_new"), rounding)
        shown = [before, after, after - before]
    status = (
        pl.when(pl.col("rank_old").is_null() & pl.col("rank_new").is_not_null())
        .then(pl.lit("entered"))
        .when(pl.col("rank_old").is_not_null() & pl.col("rank_new").is_null())
        .then(pl.lit("left"))
        .when(before != after)
        .then(pl.lit("changed"))
        .otherwise(pl.lit("same"))
    )
    rows = joined.with_columns(
        pl.coalesce("federation_id_new", "federation_id_old").alias("player_id"),
        pl.coalesce("name_new", "name_old").alias("name"),
        status.alias("status"),
        shown[0].alias("rating_old"),
        shown[1].alias("rating_new"),
        shown[2].alias("change"),
        (pl.col("rank_old") - pl.col("rank_new")).alias("rank_change"),
    )
    rows = rows.filter(
        (pl.col("status") != "same")
        & ~(pl.col("rank_old").is_null() & pl.col("rank_new").is_null() & (before == after))
    )
    return rows.sort(["status", "rank_new", "name"], nulls_last=True).select(
        "player_id", "name", "status", "rating_old", "rating_new", "change", "rank_old",
        "rank_new", "rank_change",
    )  # fmt: skip


def drift(mean_rating: int, initial_rating: int) -> str:
    """How far the pool's mean has moved from the initial rating, as text with 10 decimals."""
    difference = mean_rating - initial_rating
    sign = "+" if difference >= 0 else "-"
    whole, fraction = divmod(abs(difference), RATING_SCALE)
    return f"{sign}{whole}.{fraction:010d}"
