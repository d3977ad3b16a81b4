"""The rules of a rating list (SPEC 6): who is active, a player's rank and the list's mean rating.

Each rule is written once for polars (``*_expr``, over a frame's columns) and once for SQL
(``*_sql``, over a statement's columns), side by side, so that a list polars builds and a list
the database builds agree; ``tests/ratings/test_list_rules.py`` checks the pairs on every backend.
"""

from __future__ import annotations

import calendar
from datetime import date
from typing import TYPE_CHECKING, Any

from sqlalchemy import ColumnElement, and_, case, func, literal
from sqlalchemy.types import Integer

from ratings.rounding import mean_units

if TYPE_CHECKING:
    import polars as pl


def active_since(cutoff: date, active_months: int) -> date:
    """The day after which a game keeps a player active on a list cut off at ``cutoff``: the
    same day ``active_months`` calendar months earlier (the month's last day when shorter)."""
    index = cutoff.year * 12 + cutoff.month - 1 - active_months
    year, month = divmod(index, 12)
    month += 1
    return date(year, month, min(cutoff.day, calendar.monthrange(year, month)[1]))


# --- active: a game played after the day ``since`` ---------------------------------------------


def active_expr(last_played: pl.Expr, since: date) -> pl.Expr:
    """Whether each player is active: their last game was after ``since``."""
    return last_played.is_not_null() & (last_played > since)


def active_sql(last_played: ColumnElement[Any], since: date) -> ColumnElement[bool]:
    """:func:`active_expr` in SQL."""
    return and_(last_played.is_not(None), last_played > since)


# --- rank: one more than the players rated strictly higher (ties share the lower place) --------


def rank_expr(rating: pl.Expr) -> pl.Expr:
    """Each player's rank among every row of the frame."""
    import polars as pl

    return rating.rank("min", descending=True).cast(pl.Int64)


def active_rank_expr(rating: pl.Expr, active: pl.Expr) -> pl.Expr:
    """Each active player's rank among the active players; null for the inactive."""
    import polars as pl

    return pl.when(active).then(rank_expr(rating).over(active))


def ranks_sql(
    active: ColumnElement[bool], rating: ColumnElement[Any]
) -> tuple[ColumnElement[Any], ColumnElement[Any]]:
    """:func:`active_rank_expr` and :func:`rank_expr` in SQL, as window functions of the
    statement building a list.

    Both come from one window, so the rows are sorted once: a rank is one more than the players
    rated strictly higher, among everyone and among the active, which are the rows of the peer
    groups before the current one (a ``GROUPS`` frame), ties left out as ``rank()`` leaves them.
    Two ``rank()`` windows, one partitioned by activity, sorted the rows twice (measured in
    benchmarks/RESULTS.md)."""
    higher = {"order_by": rating.desc(), "groups": (None, -1)}
    above = func.count().over(**higher)  # type: ignore[arg-type]
    active_above = func.sum(case((active, 1), else_=0)).over(**higher)  # type: ignore[arg-type]
    return case((active, 1 + func.coalesce(active_above, 0))), 1 + above


# --- mean: the exact mean of the ratings, rounded half up --------------------------------------


def mean_rating(ratings: pl.Series) -> int:
    """The mean of a column of exact ratings (:func:`~ratings.rounding.mean_units`), summed
    exactly: as 128-bit integers, since a million ratings of 1000 points (1e19 units) wrap a
    64-bit sum."""
    import polars as pl

    count = ratings.len()
    return mean_units(int(ratings.cast(pl.Int128).sum()), count) if count else 0


LOW_BITS = 20
"""A rating is summed in SQL as its high and low bits: a million ratings of 1e-10 points overflow
a 64-bit sum (SQLite raises), neither part does."""


def rating_sums_sql(rating: ColumnElement[Any]) -> tuple[ColumnElement[Any], ColumnElement[Any]]:
    """The sums of the high and of the low bits of ``rating``, the two aggregates from which
    :func:`mean_from_sums` takes the mean in SQL (0 for no rows)."""
    high = func.coalesce(func.sum(rating.op(">>")(literal(LOW_BITS, Integer()))), 0)
    low = func.coalesce(func.sum(rating.op("&")((1 << LOW_BITS) - 1)), 0)
    return high, low


def mean_from_sums(count: int, high: int, low: int) -> int:
    """:func:`mean_rating` of ``count`` ratings from the two sums of :func:`rating_sums_sql`,
    added as Python integers, which never wrap."""
    return mean_units((int(high) << LOW_BITS) + int(low), int(count))
