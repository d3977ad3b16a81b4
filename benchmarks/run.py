"""The federation-scale benchmark: ``python -m benchmarks.run [--sizes S,M,L] [--databases ...]``.

For each size and database it imports a synthetic history (all but its last month), rates it in
full, publishes the list and exports the full ranking in every format; then imports and rates the
last month on top (the monthly update), corrects a tournament one year back (only what follows
it is re-rated) and last re-rates the whole rated history (``ratings run --full``). Separately it
rates the whole history with the compiled kernel alone and with the row-at-a-time reference,
checks that both give the same exact ratings, and prints the ratio.

Every measurement runs in a fresh subprocess, so the peak RSS printed is that run's own. Timings
come from this module's clock; the jobs only announce their phases (``jobs.rating.PhaseCallback``).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from benchmarks.generator import SIZES, History, generate_history, load_or_generate

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

NOW = datetime(2030, 1, 1, tzinfo=UTC)
"""Import and publication time stamps: fixed, so runs are comparable."""
ADMIN_URL = os.environ.get(
    "RATINGS_BENCH_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)
DATABASES = ("sqlite", "postgresql")
EXPORT_FORMATS = ("csv", "xlsx", "json", "html")
TINY = "XS"
"""A size for the harness's own test: a few dozen events, generated on the fly, never cached."""
Row = dict[str, Any]
HISTORY_LIMIT = 4 * 1024**3
"""The input limit the history's import runs with (the ``input_limit_bytes`` setting): L's file
has 9.9 million rows of 14 columns, more cells than 2 GiB allows (one cell for every 16 bytes)."""


def load(size: str) -> History:
    if size == TINY:
        return generate_history(80, 60, seed=3, start=date(2021, 1, 1), years=3.0)
    return load_or_generate(size)


# --- the scenario ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Scenario:
    """The history cut the way a federation lives it."""

    history: pl.DataFrame
    """Every tournament ending before the last month."""
    month: pl.DataFrame
    """The last month's tournaments: the monthly update."""
    correction: pl.DataFrame
    """A tournament about one year before the last month, with one Buchholz value changed."""
    period: str
    """The list that holds the history (its cut-off is the day before the last month)."""
    next_period: str


def scenario(results: pl.DataFrame) -> Scenario:
    last = results["end_date"].max()
    assert isinstance(last, date)
    month_start = last.replace(day=1)
    history = results.filter(pl.col("end_date") < month_start)
    month = results.filter(pl.col("end_date") >= month_start)
    year_back = month_start - timedelta(days=365)
    keys = (
        history.filter(pl.col("end_date") >= year_back)
        .sort("end_date", "start_date", "tournament_id")
        .select("tournament_id")
        .head(1)
        .item()
    )
    event = history.filter(pl.col("tournament_id") == keys).with_row_index("_i")
    # Half a point less Buchholz for one player who has some: still a valid file, and it moves
    # that tournament's ratings, so everything after it has to be rated again.
    target = event.filter(pl.col("buchholz") >= 1).select("_i").head(1).item()
    correction = event.with_columns(
        pl.when(pl.col("_i") == target)
        .then(pl.col("buchholz") - 0.5)
        .otherwise(pl.col("buchholz"))
        .alias("buchholz")
    ).drop("_i")
    following = date(month_start.year + month_start.month // 12, month_start.month % 12 + 1, 1)
    return Scenario(history, month, correction, f"{month_start:%Y-%m}", f"{following:%Y-%m}")


# --- one database run -------------------------------------------------------------------------


class Clock:
    """Seconds spent in named steps, and the phases the rating job announces."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self._phase: tuple[str, float] | None = None
        self._prefix = ""

    @contextmanager
    def step(self, name: str) -> Iterator[None]:
        began = time.perf_counter()
        self._prefix = name
        try:
            yield
        finally:
            self.seconds[name] = time.perf_counter() - began

    def phase(self, name: str) -> None:
        now = time.perf_counter()
        if self._phase is not None:
            done, began = self._phase
            self.seconds[f"{self._prefix}.{done}"] = now - began
        self._phase = None if name == "done" else (name, now)


def prepare(size: str, workdir: Path) -> None:
    """Write the scenario's files (history, month, correction) and what the run needs to know.

    It runs in a process of its own: the generated history is gigabytes at L and no part of the
    service, and the peak RSS of the measured process must be the jobs' own.
    """
    plan = scenario(load(size).results)
    for name, frame in (
        ("history", plan.history),
        ("month", plan.month),
        ("correction", plan.correction),
    ):
        frame.write_parquet(workdir / f"{name}.parquet")
    meta = {
        "period": plan.period,
        "results": plan.history.height,
        "tournaments": plan.history["tournament_id"].n_unique(),
        "month_results": plan.month.height,
        "next_period": plan.next_period,
    }
    (workdir / "scenario.json").write_text(json.dumps(meta))


def measure(size: str, database: str, workdir: Path) -> Row:
    """Run the whole scenario of ``size`` on ``database`` and return the figures."""
    from exporters.documents import write_ranking
    from jobs.folder import write_list_files
    from jobs.importing import import_files
    from jobs.monthly import run_monthly
    from jobs.options import ListOptions, MonthlyOptions
    from jobs.publishing import publish_list
    from jobs.queries import published_ranking
    from jobs.rating import run_ratings
    from jobs.reading import read_files
    from ratings.parameters import MeloParams
    from ratings.storage.database import open_engine

    meta = json.loads((workdir / "scenario.json").read_text())
    files = {name: workdir / f"{name}.parquet" for name in ("history", "month", "correction")}
    period = meta["period"]
    params = MeloParams()
    clock = Clock()
    row: Row = {
        "size": size,
        "database": database,
        "results": meta["results"],
        "tournaments": meta["tournaments"],
        "month_results": meta["month_results"],
    }
    with _database(database, workdir) as url:
        engine = open_engine(url)
        try:
            with clock.step("import"):
                # Ten years of a large federation in one file is more than the default input
                # limit (L's Parquet decodes to 279 MB); an officer raises input_limit_bytes.
                import_files(
                    engine, [files["history"]], imported_by="bench", now=NOW, limit=HISTORY_LIMIT
                )
            # What the import cannot go below: the same file only read and checked, nothing
            # written (the import's slices are read this way before it writes anything).
            with clock.step("import.read"):
                read_files([files["history"]], None, None, HISTORY_LIMIT)
            with clock.step("rate"):
                rated = run_ratings(engine, params, now=NOW, phase=clock.phase)
            row["rated_tournaments"] = rated.tournaments
            with clock.step("publish"):
                publish_list(engine, period, ListOptions(), by="bench", now=NOW)
            clock.seconds["publish.floor"] = list_floor(engine)
            with clock.step("export"):
                with engine.connect() as connection:
                    document = published_ranking(
                        connection, period, everyone=True, rounding="half_up"
                    )
                row["ranked_players"] = document.rows.height
                for fmt in EXPORT_FORMATS:
                    with (
                        clock.step(f"export.{fmt}"),
                        (workdir / f"ranking.{fmt}").open("wb") as out,
                    ):
                        write_ranking(document, fmt, out)
            # The officer's month: the month's file in the inbox, then the monthly job imports,
            # rates, publishes the next list and writes every file of the publish folder.
            inbox = workdir / "inbox"
            inbox.mkdir()
            shutil.copy(files["month"], inbox / "month.parquet")
            options = MonthlyOptions(
                inbox_dir=inbox, publish_dir=workdir / "publish", imported_by="bench"
            )
            with clock.step("month"):
                monthly = run_monthly(
                    engine,
                    options,
                    today=NOW.date(),
                    clock=lambda: NOW,
                    period=meta["next_period"],
                    phase=clock.phase,
                )
            assert monthly.accepted == ["month.parquet"]
            # The files as they were written before the job handed over what it published.
            with clock.step("month.read_back"):
                write_list_files(engine, workdir / "read-back", meta["next_period"], "half_up")
            assert monthly.published_version == 1
            row["month_tournaments"] = monthly.tournaments_rated
            with clock.step("late.import"):
                import_files(
                    engine, [files["correction"]], replace=True, imported_by="bench", now=NOW
                )
            with clock.step("late.rate"):
                late = run_ratings(engine, params, now=NOW)
            row["late_tournaments"] = late.tournaments
            # What `ratings run --full` costs an officer: every rating of the rated history
            # computed again and written where it changed (the first rating above wrote them all).
            with clock.step("rerate"):
                again = run_ratings(engine, params, now=NOW, full=True, phase=clock.phase)
            row["rerated_tournaments"] = again.tournaments
            # What it costs after the officer changed a parameter (k of a regular tournament 5
            # -> 6): every rating comes out different, so every change, stamp and total is
            # written again.
            with clock.step("retuned"):
                retuned = MeloParams(k_regular=params.k_regular + 1)
                changed = run_ratings(engine, retuned, now=NOW, full=True, phase=clock.phase)
            row["retuned_tournaments"] = changed.tournaments
            row["all_tournaments"] = row["tournaments"] + monthly.tournaments_rated
        finally:
            engine.dispose()
    row["seconds"] = clock.seconds
    row["peak_rss_mib"] = _peak_rss_mib()
    return row


def list_floor(engine: Engine) -> float:
    """Seconds to store the newest list's entries as a table of their own and build its key and
    the site's orders on it, in one sorted pass each, the list's rows already computed: the
    least a list stored whole, with every order the site reads through an index, costs on this
    database. Nothing is kept (the transaction is rolled back)."""
    from sqlalchemy import text

    from ratings.storage import list_partitions, lists
    from ratings.storage.schema import list_entries

    dialect = engine.dialect.name
    with engine.connect() as connection, connection.begin() as transaction:
        newest = lists.latest_list(connection)
        assert newest is not None
        connection.execute(text("CREATE TEMPORARY TABLE floor_rows AS SELECT * FROM list_entries"
                                f" WHERE list_id = {newest.id}"))  # fmt: skip
        key = ", ".join(c.name for c in list_entries.primary_key.columns)
        statements = [
            "CREATE TABLE floor_entries AS SELECT * FROM floor_rows",
            f"CREATE UNIQUE INDEX floor_key ON floor_entries ({key})",
            *list_partitions.order_indexes("floor_entries", "floor", dialect),
        ]
        began = time.perf_counter()
        for statement in statements:
            connection.execute(text(statement))
        seconds = time.perf_counter() - began
        transaction.rollback()
    return seconds


@contextmanager
def workdir_kept(kept: Path | None, prefix: str) -> Iterator[Path]:
    """The folder ``kept`` (made when missing), kept after the run; else a temporary folder."""
    if kept is None:
        with tempfile.TemporaryDirectory(prefix=prefix) as folder:
            yield Path(folder)
        return
    kept.mkdir(parents=True, exist_ok=True)
    yield kept


@contextmanager
def _database(database: str, workdir: Path) -> Iterator[str]:
    if database == "sqlite":
        yield f"sqlite:///{workdir / 'bench.sqlite'}"
        return
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    admin = create_engine(ADMIN_URL, isolation_level="AUTOCOMMIT")
    name = f"ratings_bench_{uuid.uuid4().hex[:12]}"
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(ADMIN_URL).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def _peak_rss_mib() -> float:
    # Linux reports ru_maxrss in KiB.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# --- the kernel against the reference ------------------------------------------------------------


def kernel_check(size: str, *, reference: bool = True) -> Row:
    """Rate the whole history with the kernel (and the reference), no database involved."""
    from ratings.formula import MeloParams, rate_sequence
    from ratings.melo_reference import Entry, Event, rate_events

    params = MeloParams()
    began = time.perf_counter()
    results = load(size).results
    read_seconds = time.perf_counter() - began
    games = pl.col("wins") + pl.col("draws") + pl.col("losses")
    ordered = (
        results.with_columns(
            pl.col("player_id").cast(pl.Categorical).to_physical().alias("_dense"),
            (pl.col("buchholz") * 10_000).round().cast(pl.Int64).alias("_b"),
        )
        .sort("end_date", "start_date", "tournament_id", "player_id")
        .with_columns(pl.col("tournament_id").rle_id().alias("_t"))
    )
    events = ordered.group_by("_t", maintain_order=True).agg(
        pl.len().alias("n"),
        pl.col("tier").first(),
        ((pl.col("title") == "GM") & (games > 0)).any().alias("gm"),
    )
    k = np.array(
        [params.k_for(t, bool(g)) for t, g in events.select("tier", "gm").iter_rows()],
        dtype=np.int64,
    )
    offsets = np.zeros(events.height + 1, dtype=np.int64)
    offsets[1:] = np.cumsum(events["n"].to_numpy())
    dense = ordered["_dense"].to_numpy().astype(np.int64)
    players = int(dense.max()) + 1

    def column(name: str) -> np.ndarray[Any, Any]:
        return ordered[name].to_numpy().astype(np.int64)

    arrays = [column(c) for c in ("wins", "draws", "losses", "_b")]
    start = np.full(players, params.initial_rating, dtype=np.int64)
    # The first rating in this fresh process, as a fresh `ratings run` pays it: numba's one-time
    # set-up and loading the cached machine code (or compiling it when the cache is cold), the
    # thread pool if two threads are used, and the output arrays' fresh pages.
    began = time.perf_counter()
    rate_sequence(start, offsets, k, dense, *arrays)
    first_seconds = time.perf_counter() - began
    # Best of three: the kernel alone.
    kernel_seconds = float("inf")
    for _ in range(3):
        began = time.perf_counter()
        rated = rate_sequence(start, offsets, k, dense, *arrays)
        kernel_seconds = min(kernel_seconds, time.perf_counter() - began)
    row: Row = {
        "size": size,
        "results": results.height,
        "tournaments": events.height,
        "kernel_s": kernel_seconds,
        "kernel_ns_per_result": kernel_seconds / max(results.height, 1) * 1e9,
        "first_over_kernel_s": first_seconds - kernel_seconds,
        "cache_misses": _cache_misses(),
    }
    if reference:
        began = time.perf_counter()
        wins, draws, losses, buchholz = (a.tolist() for a in arrays)
        who = dense.tolist()
        bounds = offsets.tolist()
        plain = [
            Event(
                int(k[t]),
                tuple(
                    Entry(str(who[i]), wins[i], draws[i], losses[i], buchholz[i])
                    for i in range(bounds[t], bounds[t + 1])
                ),
            )
            for t in range(events.height)
        ]
        build_seconds = time.perf_counter() - began
        began = time.perf_counter()
        expected = rate_events(plain, initial=params.initial_rating)
        row["reference_s"] = time.perf_counter() - began
        # What an officer without the service would run each month: read the whole history,
        # rate it in order with a plain loop, write everyone's rating. The reading and the
        # sorting are polars' (above), the rest is plain Python.
        began = time.perf_counter()
        with tempfile.TemporaryFile("w") as out:
            out.writelines(f"{p},{value}\n" for p, value in expected.items())
        write_seconds = time.perf_counter() - began
        row["plain_script_s"] = read_seconds + build_seconds + row["reference_s"] + write_seconds
        row["ratio"] = row["reference_s"] / kernel_seconds
        differing = sum(1 for p, value in expected.items() if rated.ratings[int(p)] != value)
        # Ratings are integers of 1e-10 points: equal integers are equal to the 10th decimal.
        row["equal_to_10_decimals"] = differing == 0
        row["differing_players"] = differing
    row["peak_rss_mib"] = _peak_rss_mib()
    return row


def _cache_misses() -> int:
    """Kernel functions this process compiled instead of loading them from numba's cache."""
    from ratings import kernels

    compiled = (kernels.schedule, kernels.rate_levels_serial, kernels.rate_levels)
    return sum(sum(f.stats.cache_misses.values()) for f in compiled)


# --- running and printing ----------------------------------------------------------------------


def _child(task: Sequence[str]) -> Row:
    """Run one task in a fresh interpreter and return its figures."""
    with tempfile.TemporaryDirectory(prefix="ratings-bench-") as tmp:
        out = Path(tmp) / "row.json"
        subprocess.run(
            [sys.executable, "-m", "benchmarks.run", "--child", *task, "--out", str(out)],
            check=True,
        )
        loaded: Row = json.loads(out.read_text())
        return loaded


def _run_child(args: argparse.Namespace) -> None:
    kind, size = args.child
    if kind == "kernel":
        row = kernel_check(size, reference=not args.skip_reference)
    elif kind == "prepare":
        prepare(size, Path(args.out))
        return
    else:
        with tempfile.TemporaryDirectory(prefix="ratings-bench-") as tmp:
            subprocess.run(
                [sys.executable, "-m", "benchmarks.run", "--child", "prepare", size, "--out", tmp],
                check=True,
            )
            row = measure(size, kind, Path(tmp))
    Path(args.out).write_text(json.dumps(row))


def database_table(rows: Sequence[Row]) -> str:
    """A Markdown table: one column per size and database."""
    heads = [f"{r['size']} {r['database']}" for r in rows]
    lines = [
        "| step | " + " | ".join(heads) + " |",
        "|---|" + "---:|" * len(rows),
    ]

    def add(label: str, cell: Callable[[Row], str]) -> None:
        lines.append(f"| {label} | " + " | ".join(cell(r) for r in rows) + " |")

    def sec(*names: str) -> Callable[[Row], str]:
        return lambda r: f"{sum(r['seconds'].get(n, 0.0) for n in names):.2f}"

    def phases(step: str) -> Callable[[Row], str]:
        parts = [sec(f"{step}.{phase}") for phase in ("load", "compute", "persist")]
        return lambda r: " / ".join(part(r) for part in parts)

    add("results imported", lambda r: f"{r['results']:,}")
    add("tournaments", lambda r: f"{r['tournaments']:,}")
    add("import (s)", sec("import"))
    add("import (rows/s)", lambda r: f"{r['results'] / r['seconds']['import']:,.0f}")
    add("  floor: the file read and checked, nothing written (s)", sec("import.read"))
    add("full rating (s)", sec("rate"))
    add("  of which load (s)", sec("rate.load"))
    add("  of which compute (s)", sec("rate.compute"))
    add("  of which persist (s)", sec("rate.persist"))
    add("publish (s)", sec("publish"))
    add("  floor: the list's rows into a table, its key and orders built (s)", sec("publish.floor"))
    add("ranking players", lambda r: f"{r['ranked_players']:,}")
    for fmt in EXPORT_FORMATS:
        add(f"export {fmt} (s)", sec(f"export.{fmt}"))
    add("export, all formats (s)", sec("export"))
    add("end to end (s)", sec("import", "rate", "publish", "export"))
    add("monthly: results", lambda r: f"{r['month_results']:,}")
    add("monthly job, end to end (s)", sec("month"))
    add("  of which import (s)", sec("month.import"))
    add("  of which rate (s)", sec("month.rate"))
    add("  of which publish (s)", sec("month.publish"))
    add("  of which commit (s)", sec("month.commit"))
    add("  of which exports (s)", sec("month.export"))
    add("  the same files, the list read back (s)", sec("month.read_back"))
    add(
        "plain script re-rating the whole history (s)",
        lambda r: f"{r['plain_script_s']:.2f}" if "plain_script_s" in r else "-",
    )
    add(
        "plain script ÷ monthly job",
        lambda r: (
            f"{r['plain_script_s'] / r['seconds']['month']:.1f}×" if "plain_script_s" in r else "-"
        ),
    )
    add("late correction: import (s)", sec("late.import"))
    add("late correction: rate (s)", sec("late.rate"))
    add(
        "late correction: re-rated of all",
        lambda r: f"{r['late_tournaments']:,} of {r['all_tournaments']:,}",
    )
    add("full re-rating, `run --full` (s)", sec("rerate"))
    add("  of which load / compute / persist (s)", phases("rerate"))
    add("full re-rating after a parameter change, every rating changed (s)", sec("retuned"))
    add("  of which load / compute / persist (s)", phases("retuned"))
    add("peak RSS (MiB)", lambda r: f"{r['peak_rss_mib']:,.0f}")
    return "\n".join(lines)


def kernel_table(rows: Sequence[Row]) -> str:
    lines = [
        "| size | results | kernel (s) | ns/result | first call − kernel (s) | reference (s) | ratio "
        "| equal to 10 decimals | peak RSS (MiB) |",
        "|---|---:|---:|---:|---:|---:|---:|---|---:|",
    ]
    for r in rows:
        ref = f"{r['reference_s']:.2f}" if "reference_s" in r else "-"
        ratio = f"{r['ratio']:.0f}×" if "ratio" in r else "-"
        equal = (
            "-"
            if "equal_to_10_decimals" not in r
            else ("yes" if r["equal_to_10_decimals"] else f"NO ({r['differing_players']} differ)")
        )
        # A compiled (not cached) kernel makes the first call a figure of the compiler.
        first = f"{r['first_over_kernel_s']:.2f}" + (" (compiled)" if r["cache_misses"] else "")
        lines.append(
            f"| {r['size']} | {r['results']:,} | {r['kernel_s']:.3f} | "
            f"{r['kernel_ns_per_result']:.0f} | {first} | {ref} | {ratio} | {equal} | "
            f"{r['peak_rss_mib']:,.0f} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.run", description=__doc__)
    parser.add_argument("--sizes", default="S,M,L", help="comma-separated sizes (default S,M,L)")
    parser.add_argument(
        "--databases", default="sqlite,postgresql", help="comma-separated: sqlite, postgresql"
    )
    parser.add_argument(
        "--skip-reference", action="store_true", help="time the kernel only, not the reference"
    )
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        _run_child(args)
        return 0
    sizes = [s for s in args.sizes.split(",") if s]
    databases = [d for d in args.databases.split(",") if d]
    for size in sizes:
        if size not in SIZES and size != TINY:
            parser.error(f"size must be one of {', '.join(SIZES)}, not {size!r}")
    for database in databases:
        if database not in DATABASES:
            parser.error(f"database must be one of {', '.join(DATABASES)}, not {database!r}")
    kernel_rows = []
    database_rows = []
    for size in sizes:
        task = ["kernel", size] + (["--skip-reference"] if args.skip_reference else [])
        kernel_rows.append(_child(task))
        print(kernel_table(kernel_rows[-1:]), flush=True)
        for database in databases:
            database_rows.append(_child([database, size]))
            if "plain_script_s" in kernel_rows[-1]:
                database_rows[-1]["plain_script_s"] = kernel_rows[-1]["plain_script_s"]
            print(database_table(database_rows[-1:]), flush=True)
    print(f"\n## Kernel against the row-at-a-time reference\n\n{kernel_table(kernel_rows)}")
    print(f"\n## Database runs\n\n{database_table(database_rows)}")
    if len(kernel_rows) > 1:
        print(f"\n## Scaling\n\n{scaling_table(kernel_rows, database_rows)}")
    return 0


def scaling_table(kernel_rows: Sequence[Row], database_rows: Sequence[Row]) -> str:
    """Time and memory per result across sizes: flat per-result figures mean linear growth."""
    lines = [
        "| size | database | results | full rating µs/result | import µs/result "
        "| peak RSS bytes/result |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for r in database_rows:
        n = max(r["results"], 1)
        lines.append(
            f"| {r['size']} | {r['database']} | {n:,} | {r['seconds']['rate'] / n * 1e6:.2f} | "
            f"{r['seconds']['import'] / n * 1e6:.2f} | {r['peak_rss_mib'] * 2**20 / n:,.0f} |"
        )
    for r in kernel_rows:
        n = max(r["results"], 1)
        lines.append(
            f"| {r['size']} | kernel | {n:,} | {r['kernel_s'] / n * 1e6:.3f} | - | "
            f"{r['peak_rss_mib'] * 2**20 / n:,.0f} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
