"""The mean rating of a pool of a million players, exact: a list's ratings in 1e-10 points sum to
about 1e19 at a million players of 1000 points, past a 64-bit integer (the mean was printed as
-844). Polars' lists and the database's lists give the same mean, rounded half up."""

from __future__ import annotations

import time

import polars as pl
from sqlalchemy import BigInteger, Integer, text
from sqlalchemy.engine import Engine

from exporters.lists import statistics
from ratings.formula import RATING_SCALE, format_exact
from ratings.list_rules import mean_rating
from ratings.rounding import mean_units
from ratings.storage.lists import pool_statistics
from ratings.storage.schema import list_entries

MILLION = 1_000_000
THOUSAND_POINTS = 1000 * RATING_SCALE


def test_a_million_players_at_a_thousand_points_have_a_mean_of_a_thousand() -> None:
    ratings = pl.Series("rating", [THOUSAND_POINTS] * MILLION, pl.Int64)
    assert int(ratings.sum()) < 0  # what a 64-bit sum gives
    started = time.perf_counter()
    mean = mean_rating(ratings)
    assert time.perf_counter() - started < 2
    assert format_exact(mean) == "1000.0000000000"
    entries = pl.DataFrame(
        {"rating": ratings, "active": pl.Series("active", [True, False] * (MILLION // 2))}
    )
    assert statistics(entries).mean_rating == THOUSAND_POINTS
    assert statistics(entries).active_players == MILLION // 2


def test_the_mean_is_the_exact_one_rounded_half_up() -> None:
    # 1000 points plus 1 to a million units: the exact mean ends in a half unit.
    ratings = pl.int_range(1, MILLION + 1, dtype=pl.Int64, eager=True) + THOUSAND_POINTS
    exact = sum(ratings.to_list())
    assert exact == MILLION * THOUSAND_POINTS + MILLION * (MILLION + 1) // 2
    assert mean_rating(ratings) == THOUSAND_POINTS + 500_001
    assert mean_units(exact, MILLION) == THOUSAND_POINTS + 500_001
    # Halves go up, below zero too, and nobody has a mean of 0.
    assert mean_rating(pl.Series([-3, -2], dtype=pl.Int64)) == -2
    assert mean_rating(pl.Series([], dtype=pl.Int64)) == 0


GENERATED = {
    # A thousand numbers by recursion, a million by joining them with themselves (a million
    # steps of recursion took seconds).
    "sqlite": (
        "WITH RECURSIVE k(j) AS (SELECT 0 UNION ALL SELECT j + 1 FROM k WHERE j < 999),"
        " n(i) AS (SELECT a.j * 1000 + b.j + 1 FROM k AS a, k AS b)"
        " SELECT :base + i AS rating, CASE WHEN i % 4 = 0 THEN i END AS rank FROM n"
    ),
    "postgresql": (
        "SELECT :base + i AS rating, CASE WHEN i % 4 = 0 THEN i END AS rank"
        " FROM generate_series(1, 1000000) AS i"
    ),
}
"""A million entries made by the database itself (nothing crosses the driver): 1000 points plus
1 to a million units, every fourth one ranked (active)."""


def test_the_database_sums_a_million_ratings_exactly(engine: Engine) -> None:
    query = (
        text(GENERATED[engine.dialect.name])
        .bindparams(base=THOUSAND_POINTS)
        .columns(rating=BigInteger(), rank=Integer())
        .subquery("entries")
    )
    started = time.perf_counter()
    with engine.connect() as connection:
        count, active, mean = pool_statistics(connection, query)
    assert time.perf_counter() - started < 10
    assert (count, active) == (MILLION, MILLION // 4)
    ratings = pl.int_range(1, MILLION + 1, dtype=pl.Int64, eager=True) + THOUSAND_POINTS
    # The same mean as polars gives for a list it computes, on either database.
    assert mean == mean_rating(ratings) == THOUSAND_POINTS + 500_001
    assert format_exact(mean) == "1000.0000500001"


def test_an_empty_pool_has_no_mean(engine: Engine) -> None:
    with engine.connect() as connection:
        assert pool_statistics(connection, list_entries, list_entries.c.list_id == 1) == (0, 0, 0)
