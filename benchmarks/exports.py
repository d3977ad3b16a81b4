"""The publish folder's files at federation scale: ``python -m benchmarks.exports [--players N]``.

Builds the entries of a published list of ``N`` players (881,060 by default, the L list's size;
names that all differ, accented ones among them, countries, titles, ratings, a previous rating
for most) as publishing hands them to the publish folder, with no database, then times the rows
of both rankings (the active players and everyone), each writer on its own, how long the
workbook's writer holds the interpreter's lock at a stretch, and the whole folder two ways: one
file after another, and as a publication writes it. Each figure is the best of ``--repeat`` runs,
with its processor time and the machine's load average beside it: on a shared machine only the
processor times and the ratios within one run mean much."""

from __future__ import annotations

import argparse
import io
import os
import resource
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from datetime import UTC, date, datetime
from functools import partial
from pathlib import Path

import numpy as np
import polars as pl

from benchmarks.site import distinct_names
from exporters.documents import RankingDocument, write_ranking
from exporters.lists import statistics
from ratings.list_rules import active_expr
from ratings.storage.frames import ENTRY_SCHEMA
from ratings.storage.lists import ListInfo

NOW = datetime(2030, 1, 1, tzinfo=UTC)
TITLES = (("GM", 0.0015), ("IM", 0.004), ("FM", 0.01), ("CM", 0.01), ("WGM", 0.001))
"""Titles and the share of players holding each; the rest have none."""
TARGET_S = 10.0
"""The issue's target for all exports of the L list (881,060 players)."""


def ranking_entries(count: int, seed: int = 1) -> pl.DataFrame:
    """``count`` entries of a published list as publishing holds them after storing them."""
    rng = np.random.default_rng(seed)
    from benchmarks.names import COUNTRIES

    weights = np.array([c.weight for c in COUNTRIES])
    country = rng.choice(len(COUNTRIES), size=count, p=weights / weights.sum())
    codes = np.array([c.code for c in COUNTRIES], dtype=object)[country]
    shares = rng.random(count)
    title = np.full(count, None, dtype=object)
    edge = 0.0
    for name, share in TITLES:
        title[(shares >= edge) & (shares < edge + share)] = name
        edge += share
    rating = (rng.normal(1500, 250, count) * 10**10).astype(np.int64) + rng.integers(
        0, 10**10, count
    )
    # A rating many share (an unrated-looking 1500 exactly), so ties and the name order matter.
    rating[rng.random(count) < 0.02] = 1500 * 10**10
    previous = rating - (rng.normal(0, 20, count) * 10**10).astype(np.int64)
    newcomer = rng.random(count) < 0.08
    days_ago = rng.exponential(300, count).astype(np.int64)
    entries = pl.DataFrame(
        {
            "player": np.arange(1, count + 1, dtype=np.int64),
            "federation_id": [f"{1_000_000 + i}" for i in rng.permutation(count)],
            "name": rng.permutation(np.array(distinct_names(count, seed), dtype=object)).tolist(),
            "country": codes.tolist(),
            "title": title.tolist(),
            "rating": rating,
            "games": rng.integers(1, 600, count),
            "tournaments": rng.integers(1, 60, count),
            "last_played": days_ago,
            "previous_rating": pl.Series(np.where(newcomer, 0, previous)),
        },
        schema_overrides={"name": pl.String, "country": pl.String, "title": pl.String},
    ).with_columns(
        (pl.lit(date(2029, 12, 31)) - pl.duration(days=pl.col("last_played"))).alias("last_played")
    ).with_columns(
        active_expr(pl.col("last_played"), date(2027, 12, 31)).alias("active"),
        pl.when(pl.Series(newcomer)).then(None).otherwise(pl.col("previous_rating"))
        .alias("previous_rating"),
    )  # fmt: skip
    # As publishing hands them to the publish folder (``Publication.entries``), and as reading
    # the list back gives them.
    return entries.select(*ENTRY_SCHEMA).cast(ENTRY_SCHEMA)  # type: ignore[arg-type]


def list_info(entries: pl.DataFrame) -> ListInfo:
    stats = statistics(entries)
    return ListInfo(
        id=1, period="2030-01", version=1, cutoff=date(2029, 12, 31), created_at=NOW,
        created_by="bench", players=stats.players, active_players=stats.active_players,
        mean_rating=stats.mean_rating, initial_rating=15_000_000_000_000, active_months=24,
        previous_id=None, replaces_id=None,
    )  # fmt: skip


def held_stretch(work: Callable[[], object]) -> float:
    """The longest time another thread of this process waited for the interpreter's lock while
    ``work`` ran (a thread that asks for it every millisecond)."""
    longest = 0.0
    done = threading.Event()

    def ask() -> None:
        nonlocal longest
        last = time.perf_counter()
        while not done.is_set():
            time.sleep(0.001)
            now = time.perf_counter()
            longest = max(longest, now - last)
            last = now

    asker = threading.Thread(target=ask)
    asker.start()
    try:
        work()
    finally:
        done.set()
        asker.join()
    return longest


def best(runs: int, work: Callable[[], object]) -> tuple[float, float]:
    """The best wall time of ``runs`` runs of ``work``, and the processor time of that run (this
    process's threads and the processes it waited for): on a shared machine the second moves
    much less with the neighbours' load than the first."""
    times = []
    for _ in range(runs):
        started, cpu = time.perf_counter(), _cpu()
        work()
        times.append((time.perf_counter() - started, _cpu() - cpu))
    return min(times)


def _cpu() -> float:
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def load() -> str:
    return "/".join(f"{value:.1f}" for value in os.getloadavg())


def measure(count: int, runs: int) -> list[tuple[str, float, float, str]]:
    """(step, best seconds, its processor seconds, load average after it) for the folder's
    parts and the whole; the last is the folder as a publication writes it."""
    from jobs.folder import EXPORTS, WRITERS, write_rankings, write_streamed
    from jobs.queries import list_rankings

    started = time.perf_counter()
    entries = ranking_entries(count)
    print(f"built {count:,} entries in {time.perf_counter() - started:.1f} s", flush=True)
    info = list_info(entries)
    figures: list[tuple[str, float, float, str]] = []

    def note(step: str, seconds: tuple[float, float]) -> None:
        figures.append((step, *seconds, load()))
        print(f"| {step} | {seconds[0]:.2f} | {seconds[1]:.2f} | {figures[-1][3]} |", flush=True)

    print("| step | best (s) | processor (s) | load average |\n|---|---:|---:|---|")
    documents: dict[bool, RankingDocument] = {}
    note(
        "rows of both rankings",
        best(runs, lambda: documents.update(list_rankings(info, entries, "half_up"))),
    )
    for name, fmt, everyone in EXPORTS:
        document = documents[everyone]

        def write(document: RankingDocument = document, fmt: str = fmt) -> None:
            write_ranking(document, fmt, io.BytesIO())

        note(f"{name} ({document.rows.height:,} rows)", best(runs, write))
    buffer = io.BytesIO()
    held = held_stretch(lambda: write_ranking(documents[True], "xlsx", buffer))
    print(
        f"ranking.xlsx: {buffer.tell() / 1e6:.1f} MB, the interpreter's lock held for {held:.2f} s"
        " at a stretch",
        flush=True,
    )
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)

        def one_by_one() -> None:
            made = list_rankings(info, entries, "half_up")
            for file, fmt, everyone in EXPORTS:
                write_streamed(folder / file, partial(write_ranking, made[everyone], fmt))

        def at_once() -> None:
            write_rankings(folder, list_rankings(info, entries, "half_up"))

        note("whole folder, one file after another", best(runs, one_by_one))
        note(f"whole folder, {WRITERS} files at a time (as published)", best(runs, at_once))
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=881_060)
    parser.add_argument("--repeat", type=int, default=3, help="runs of each step (the best counts)")
    args = parser.parse_args(argv)
    print(f"{os.cpu_count()} cores, load average {load()}", flush=True)
    figures = measure(args.players, args.repeat)
    whole = figures[-1][1]
    print(
        f"\nall exports: {whole:.2f} s, {figures[-1][2]:.2f} s of processor time "
        f"(target {TARGET_S:.0f} s at 881,060 players)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
