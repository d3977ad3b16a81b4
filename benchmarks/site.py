"""The site's list at federation scale: ``python -m benchmarks.site [--players N] [--databases ...]``.

Publishes a list of ``N`` players (a million by default) with names from the benchmark's name
pools, three ``Höller``s among them, then times the pages a visitor asks for through the app in
this process (no network): the first page, a page deep in the list, two searches by name (one
matching few names, one matching thousands), a country, an order by name deep in the list, and
the order by games. Each is asked five times; the figure is the median, with the
page's size. Target: under 300 ms and under 200 KB each.

``--distinct-names`` gives the list's ``N`` entries names that all differ, as a federation's do
(the pools alone repeat them, which hides the cost of folding each one and makes a search find
few names), and times first the folding publishing does once per name not printed before
(:func:`ratings.names.page_forms`) on both kinds of names.

``--publish`` times publishing itself (:func:`jobs.publishing.publish_list`) for ``N`` players
with names that all differ and stored totals (no history: the totals are what a list reads): the
federation's first list, then the next month's, after a month changed one player in 25.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from datetime import UTC, date, datetime
from pathlib import Path

import numpy as np
import polars as pl

from benchmarks.names import COUNTRIES
from benchmarks.run import _database
from jobs.publishing import with_page_columns
from ratings.names import page_forms

NOW = datetime(2030, 1, 1, tzinfo=UTC)
TIMES = 5
TARGET_MS = 300
TARGET_KB = 200
QUERIES = (
    ("first page", "/"),
    ("page 10,000", "/?page=10000"),
    ("search holler", "/?q=holler&all=true"),
    ("search mul", "/?q=mul"),
    ("country AUT", "/?country=AUT"),
    ("by name, page 500", "/?sort=name&page=500"),
    ("by games", "/?sort=games"),
)


def entries(count: int, seed: int = 1, *, distinct: bool = False) -> pl.DataFrame:
    """``count`` list entries drawn from the name pools (names that all differ for ``distinct``),
    as the publishing job stores them."""
    frame = _entries(count, seed)
    if distinct:
        frame = frame.with_columns(pl.Series("name", distinct_names(count)))
    # The columns publishing adds, by the publishing job's own rule.
    return with_page_columns(frame)


def _entries(count: int, seed: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    weights = np.array([c.weight for c in COUNTRIES])
    country = rng.choice(len(COUNTRIES), size=count, p=weights / weights.sum())
    names, codes = [], []
    for i, c in enumerate(country):
        pool = COUNTRIES[c]
        first = pool.male[i % len(pool.male)] if i % 2 else pool.female[i % len(pool.female)]
        names.append(f"{first} {pool.surnames[(i * 7919) % len(pool.surnames)]}")
        codes.append(pool.code)
    rating = np.sort(rng.normal(1500, 200, count) * 10**10).astype(np.int64)[::-1]
    return pl.DataFrame(
        {
            "player": np.arange(1, count + 1, dtype=np.int64),
            "federation_id": [str(100_000 + i) for i in range(count)],
            "name": names,
            "country": codes,
            "title": pl.Series([None] * count, dtype=pl.String),
            "rating": rating,
            "games": rng.integers(1, 400, count),
            "tournaments": rng.integers(1, 40, count),
            "last_played": [date(2029, 12, 1)] * count,
            "active": rng.random(count) < 0.7,
            "previous_rating": pl.Series([None] * count, dtype=pl.Int64),
        }
    )


def distinct_names(count: int, seed: int = 1) -> list[str]:
    """``count`` different names from the name pools: a first name, sometimes a second one, and a
    surname, often double with a surname from anywhere (a federation's players marry across
    borders; one country's pools alone do not make a million people)."""
    rng = np.random.default_rng(seed)
    everywhere = [name for c in COUNTRIES for name in c.surnames]
    weights = np.array([c.weight for c in COUNTRIES])
    names: set[str] = set()
    while len(names) < count:
        n = count - len(names)
        for c in rng.choice(len(COUNTRIES), size=n, p=weights / weights.sum()):
            pool = COUNTRIES[c]
            firsts = pool.male + pool.female
            given = firsts[rng.integers(len(firsts))]
            if rng.random() < 0.4:
                given = f"{given} {firsts[rng.integers(len(firsts))]}"
            surname = pool.surnames[rng.integers(len(pool.surnames))]
            if pool.double_surname or rng.random() < 0.5:
                surname = f"{surname}-{everywhere[rng.integers(len(everywhere))]}"
            names.add(f"{surname}, {given}" if rng.random() < 0.3 else f"{given} {surname}")
    return sorted(names)[:count]


def measure_columns(count: int) -> list[tuple[str, float]]:
    """(names, seconds) of :func:`ratings.names.page_forms` on the names of ``count`` entries
    with repeating names and on as many names that all differ."""
    repeating = _entries(count, seed=1).get_column("name")
    distinct = pl.Series("name", distinct_names(count))
    figures = []
    for label, names in (("repeating names", repeating), ("distinct names", distinct)):
        started = time.perf_counter()
        page_forms(names.unique())
        figures.append((label, time.perf_counter() - started))
    return figures


def measure(url: str, count: int, *, distinct: bool = False) -> list[tuple[str, float, int, int]]:
    """(query, median ms, bytes, rows shown) for each of :data:`QUERIES`."""
    from fastapi.testclient import TestClient

    from ratings.storage import lists
    from ratings.storage.database import open_engine
    from service.settings import Settings, configure
    from service.web import create_app

    engine = open_engine(url)
    frame = entries(count, distinct=distinct)
    started = time.perf_counter()
    with engine.begin() as connection:
        lists.insert_list(
            connection,
            {
                "period": "2030-01", "version": 1, "cutoff": date(2029, 12, 31),
                "created_at": NOW, "created_by": "bench", "players": count,
                "active_players": int(frame["active"].sum()),
                "mean_rating": int(frame["rating"].mean() or 0),
                "initial_rating": 15_000_000_000_000, "active_months": 24,
                "previous_id": None, "replaces_id": None,
            },
            frame,
        )  # fmt: skip
    print(f"  stored {count:,} entries in {time.perf_counter() - started:.1f} s", flush=True)
    if engine.dialect.name == "postgresql":
        # What autovacuum does within a minute of a publication on a running server: statistics
        # for the planner, and the visibility map that lets an index answer without the table.
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            connection.exec_driver_sql("VACUUM ANALYZE list_entries, list_names, name_words")
    client = TestClient(create_app(engine, configure(Settings(_env_file=None)).web))
    figures = []
    for label, path in QUERIES:
        times, size, shown = [], 0, 0
        for _ in range(TIMES):
            start = time.perf_counter()
            response = client.get(path)
            times.append((time.perf_counter() - start) * 1000)
            assert response.status_code == 200, (path, response.status_code)
            size = len(response.content)
            shown = response.text.count('<td class="name">')
        figures.append((label, statistics.median(times), size, shown))
    engine.dispose()
    return figures


def measure_publish(url: str, count: int) -> list[tuple[str, float]]:
    """(list, seconds) of publishing the first list and the next one of ``count`` players."""
    from sqlalchemy import update

    from jobs.options import ListOptions
    from jobs.publishing import publish_list
    from ratings.storage.bulk import insert_frame
    from ratings.storage.database import open_engine
    from ratings.storage.schema import player_totals, players

    rng = np.random.default_rng(2)
    names = distinct_names(count)
    rng.shuffle(names)
    ids = np.arange(1, count + 1, dtype=np.int64)
    codes = [c.code for c in COUNTRIES]
    people = pl.DataFrame(
        {
            "id": ids,
            "federation_id": [str(100_000 + i) for i in range(count)],
            "name": names,
            "name_key": pl.Series(names).str.to_lowercase(),
            "country": rng.choice(codes, count),
            "title": pl.Series([None] * count, dtype=pl.String),
            "created_at": [NOW] * count,
        }
    )
    days = rng.integers(0, 1500, count).astype("timedelta64[D]")
    totals = pl.DataFrame(
        {
            "player_id": ids,
            "changes": rng.integers(1, 40, count),
            "games": rng.integers(1, 400, count),
            "tournaments": rng.integers(1, 40, count),
            "last_played": pl.Series(np.datetime64("2025-01-01") + days).cast(pl.Date),
            "rating": (rng.normal(1500, 200, count) * 10**10).astype(np.int64),
        }
    )
    engine = open_engine(url)
    with engine.begin() as connection:
        insert_frame(connection, players, people)
        insert_frame(connection, player_totals, totals)
    figures = []
    started = time.perf_counter()
    publish_list(engine, "2029-11", ListOptions(), by="bench", now=NOW)
    figures.append(("first list", time.perf_counter() - started))
    t = player_totals.c
    with engine.begin() as connection:
        connection.execute(
            update(player_totals)
            .where(t.player_id % 25 == 0)
            .values(rating=t.rating + 12_345_678, games=t.games + 5)
        )
    started = time.perf_counter()
    publish_list(engine, "2029-12", ListOptions(), by="bench", now=NOW)
    figures.append(("next month's list", time.perf_counter() - started))
    engine.dispose()
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=1_000_000)
    parser.add_argument("--databases", default="postgresql,sqlite")
    parser.add_argument(
        "--distinct-names",
        action="store_true",
        help="names that all differ; time first the folding of each name",
    )
    parser.add_argument(
        "--publish",
        action="store_true",
        help="time publishing a first and a next list of that many players instead",
    )
    args = parser.parse_args(argv)
    if args.publish:
        for database in args.databases.split(","):
            print(f"{database}, publishing {args.players:,} players", flush=True)
            with tempfile.TemporaryDirectory() as folder, _database(database, Path(folder)) as url:
                for label, seconds in measure_publish(url, args.players):
                    print(f"| {label} | {seconds:.2f} s |", flush=True)
        return 0
    if args.distinct_names:
        print(f"page columns of {args.players:,} entries\n| names | seconds |\n|---|---:|")
        for label, seconds in measure_columns(args.players):
            print(f"| {label} | {seconds:.1f} |", flush=True)
    failed = False
    for database in args.databases.split(","):
        kind = "distinct names" if args.distinct_names else "names from the pools"
        print(f"{database}, {args.players:,} players, {kind}", flush=True)
        with tempfile.TemporaryDirectory() as folder, _database(database, Path(folder)) as url:
            print("| query | median ms | KB | rows |\n|---|---:|---:|---:|")
            for label, ms, size, shown in measure(url, args.players, distinct=args.distinct_names):
                slow = ms > TARGET_MS or size > TARGET_KB * 1024
                failed |= slow
                flag = " (over target)" if slow else ""
                print(f"| {label} | {ms:.0f} | {size / 1024:.1f} | {shown}{flag} |", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
