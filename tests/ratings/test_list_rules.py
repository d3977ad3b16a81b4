"""Each rule of a list gives the same answer in polars and in SQL, on every backend: who is
active, the ranks among everyone and among the active, and the mean rating (exact past a 64-bit
sum at a million players of 1000 points)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta
from typing import Any

import polars as pl
import pytest
from sqlalchemy import BigInteger, Column, Date, Integer, MetaData, Table, func, select, text
from sqlalchemy.engine import Connection, Engine

from ratings.list_rules import (
    active_expr,
    active_rank_expr,
    active_since,
    active_sql,
    mean_from_sums,
    mean_rating,
    rank_expr,
    ranks_sql,
    rating_sums_sql,
)
from ratings.parameters import RATING_SCALE, format_exact

CUTOFF = date(2026, 10, 31)
SINCE = active_since(CUTOFF, 12)
THOUSAND_POINTS = 1000 * RATING_SCALE
MILLION = 1_000_000

POOL = pl.DataFrame(
    {
        "id": list(range(1, 11)),
        # Ties among the active, among the inactive and across both; ratings near the top of a
        # 64-bit integer, so that a plain sum of them wraps.
        "rating": [
            2 * 10**18,
            2 * 10**18,
            15 * 10**17,
            15 * 10**17,
            3,
            3,
            -7,
            10**18,
            10**18,
            0,
        ],
        # Never played, the day the window starts (not active), the day after it (active).
        "last_played": [
            date(2026, 10, 1),
            None,
            SINCE,
            SINCE + timedelta(days=1),
            date(2020, 1, 1),
            date(2026, 5, 5),
            None,
            date(2026, 10, 31),
            date(2025, 1, 1),
            date(2026, 1, 1),
        ],
    },
    schema={"id": pl.Int64, "rating": pl.Int64, "last_played": pl.Date},
)

metadata = MetaData()
pool = Table(
    "pool",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("rating", BigInteger, nullable=False),
    Column("last_played", Date),
)


def _by_sql(connection: Connection, value: Any) -> list[Any]:
    rows = connection.execute(select(pool.c.id, value).order_by(pool.c.id)).all()
    return [row[1] for row in rows]


def _active_sql() -> Any:
    return active_sql(pool.c.last_played, SINCE)


def _active(connection: Connection) -> tuple[list[Any], list[Any]]:
    by_polars = POOL.select(active_expr(pl.col("last_played"), SINCE))
    by_sql = [bool(v) for v in _by_sql(connection, _active_sql())]
    return by_polars.to_series().to_list(), by_sql


def _rank(connection: Connection) -> tuple[list[Any], list[Any]]:
    by_polars = POOL.select(rank_expr(pl.col("rating")))
    _, rank_all = ranks_sql(_active_sql(), pool.c.rating)
    return by_polars.to_series().to_list(), _by_sql(connection, rank_all)


def _active_rank(connection: Connection) -> tuple[list[Any], list[Any]]:
    active = active_expr(pl.col("last_played"), SINCE)
    by_polars = POOL.select(active_rank_expr(pl.col("rating"), active))
    rank, _ = ranks_sql(_active_sql(), pool.c.rating)
    return by_polars.to_series().to_list(), _by_sql(connection, rank)


def _mean(connection: Connection) -> tuple[list[Any], list[Any]]:
    by_polars = mean_rating(POOL["rating"])
    count, high, low = connection.execute(
        select(func.count(), *rating_sums_sql(pool.c.rating))
    ).one()
    return [by_polars], [mean_from_sums(count, high, low)]


RULES: dict[str, Callable[[Connection], tuple[list[Any], list[Any]]]] = {
    "active": _active,
    "rank": _rank,
    "active rank": _active_rank,
    "mean": _mean,
}


@pytest.mark.parametrize("rule", list(RULES))
def test_polars_and_sql_give_the_same_answer(engine: Engine, rule: str) -> None:
    with engine.begin() as connection:
        metadata.create_all(connection)
        connection.execute(pool.insert(), POOL.to_dicts())
        by_polars, by_sql = RULES[rule](connection)
    assert by_polars == by_sql
    if rule == "active":
        assert by_polars == [True, False, False, True, False, True, False, True, False, True]
    if rule == "active rank":
        assert by_polars == [1, None, None, 2, None, 4, None, 3, None, 5]
    if rule == "mean":
        assert by_polars == [(2 * (4 * 10**18 + 3 * 10**18 + 2 * 10**18 - 1) + 10) // 20]


MILLION_AT_A_THOUSAND = {
    # A thousand rows by recursion, a million by joining them with themselves.
    "sqlite": (
        "WITH RECURSIVE k(j) AS (SELECT 0 UNION ALL SELECT j + 1 FROM k WHERE j < 999)"
        " SELECT :rating AS rating FROM k AS a, k AS b"
    ),
    "postgresql": "SELECT :rating AS rating FROM generate_series(1, 1000000)",
}


def test_a_million_players_at_a_thousand_points_have_a_mean_of_a_thousand(engine: Engine) -> None:
    ratings = pl.Series("rating", [THOUSAND_POINTS] * MILLION, pl.Int64)
    assert int(ratings.sum()) < 0  # what a 64-bit sum gives
    assert format_exact(mean_rating(ratings)) == "1000.0000000000"
    entries = (
        text(MILLION_AT_A_THOUSAND[engine.dialect.name])
        .bindparams(rating=THOUSAND_POINTS)
        .columns(rating=BigInteger())
        .subquery("entries")
    )
    with engine.connect() as connection:
        count, high, low = connection.execute(
            select(func.count(), *rating_sums_sql(entries.c.rating))
        ).one()
    assert count == MILLION
    assert format_exact(mean_from_sums(count, high, low)) == "1000.0000000000"
