"""The officer's commands at medium scale against a plain script: ``python -m benchmarks.medium``.

The history is the generator's ``M18`` (50,000 players, 45,000 tournaments of about 18 players;
814,845 results), cut as ``benchmarks.run`` cuts it: every tournament before the last month in
one CSV file, the last month in another. Each step runs as the officer runs it, a command in a
fresh process timed from outside (its module imports included):

1. the plain script (``benchmarks.plain_script``) reads the history CSV and rates everything;
2. on a fresh database, ``ratings import`` of the same file, ``ratings run``, ``ratings publish``
   of the history's list; every player's exact rating is compared with the plain script's;
3. the month's file in the inbox and ``ratings monthly`` (import, rate, publish, the publish
   folder's files);
4. ``ratings run --full``.

It prints each step's seconds and the plain script's time over the import's, the monthly job's
and the full re-rating's: the issue's targets are 2, 4 and 2, taken within one run. The plain
script and the steps run ``--rounds`` times (3 unless told), a round after the other, each round's
steps on a database of their own; the times printed are the medians of the rounds, and each
ratio's lowest and highest over the rounds are printed beside (one run of a step moves by a tenth
with the machine).
"""

from __future__ import annotations

import argparse
import csv
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks.bytecode import compile_project
from benchmarks.run import DATABASES, _database, load, scenario, workdir_kept

SIZE = "M18"
TARGETS = {"import": 2.0, "month": 4.0, "full": 2.0}
"""How many times faster than the plain script each step is to be."""


def prepare(folder: Path, size: str) -> dict[str, Any]:
    plan = scenario(load(size).results)
    plan.history.write_csv(folder / "history.csv")
    plan.month.write_csv(folder / "month.csv")
    return {
        "results": plan.history.height,
        "tournaments": plan.history["tournament_id"].n_unique(),
        "month_results": plan.month.height,
        "period": plan.period,
        "next_period": plan.next_period,
    }


def timed(
    args: Sequence[str], environment: dict[str, str] | None = None, *, silent: bool = False
) -> float:
    """Seconds the command took; it must succeed, and when ``silent`` say nothing on stderr."""
    began = time.perf_counter()
    done = subprocess.run(
        [sys.executable, *args], env=environment, capture_output=True, text=True, check=False
    )
    seconds = time.perf_counter() - began
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed: {done.stderr.strip()}")
    if silent and done.stderr.strip():
        first = done.stderr.strip().splitlines()[0]
        raise RuntimeError(f"{' '.join(args)} warned of the generator's clean file: {first}")
    return seconds


def ratings_of(path: Path, column: str) -> dict[str, str]:
    with path.open(newline="", encoding="utf-8") as stream:
        return {row["player_id"]: row[column] for row in csv.DictReader(stream)}


def run_database(
    database: str, folder: Path, meta: dict[str, Any], round_: int = 1
) -> dict[str, Any]:
    work = folder / database if round_ == 1 else folder / f"{database}-{round_}"
    work.mkdir()
    settings = work / "empty.toml"
    settings.write_text("")
    row: dict[str, Any] = {"database": database}
    with _database(database, work) as url:
        environment = {
            **os.environ,
            "RATINGS_DATABASE_URL": url,
            "RATINGS_CONFIG": str(settings),
            "RATINGS_INBOX_DIR": str(work / "inbox"),
            "RATINGS_PUBLISH_DIR": str(work / "publish"),
        }

        def ratings(*args: str, silent: bool = False) -> float:
            return timed(["-m", "service.cli", *args], environment, silent=silent)

        ratings("db", "upgrade")
        # Every row of the generator's file is good: a warning is a reader's mistake.
        row["import"] = ratings("import", str(folder / "history.csv"), silent=True)
        row["rate"] = ratings("run")
        row["publish"] = ratings("publish", meta["period"])
        ranking = work / "ranking.csv"
        ratings("ranking", "--all", "--as-of", "2100-01-01", "-o", str(ranking))
        theirs = ratings_of(folder / "plain.csv", "rating")
        ours = ratings_of(ranking, "rating_exact")
        row["players"] = len(ours)
        row["differing"] = sum(1 for p, value in theirs.items() if ours.get(p) != value)
        (work / "inbox").mkdir()
        shutil.copy(folder / "month.csv", work / "inbox" / "month.csv")
        row["month"] = ratings("monthly", "--period", meta["next_period"])
        row["full"] = ratings("run", "--full")
    return row


def medians(rounds: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """One database's rounds as one row: each step's median time, the most ratings that
    differed in any round, and each ratio's range over the rounds (``ratios``: the plain
    script's time of the same round over the step's)."""
    row: dict[str, Any] = {"database": rounds[0]["database"], "rounds": len(rounds)}
    for step in ("import", "rate", "publish", "month", "full", "plain"):
        row[step] = statistics.median(r[step] for r in rounds)
    row["differing"] = max(r["differing"] for r in rounds)
    row["ranges"] = {
        step: (min(ratios), max(ratios))
        for step in TARGETS
        for ratios in [[r["plain"] / r[step] for r in rounds]]
    }
    return row


def table(plain: float, meta: dict[str, Any], rows: Sequence[dict[str, Any]]) -> str:
    lines = [
        "| step | " + " | ".join(r["database"] for r in rows) + " |",
        "|---|" + "---:|" * len(rows),
    ]

    def add(label: str, cell: Any) -> None:
        lines.append(f"| {label} | " + " | ".join(cell(r) for r in rows) + " |")

    add("results in the history file", lambda r: f"{meta['results']:,}")
    add("plain script: read the CSV, rate everything (s)", lambda r: f"{plain:.2f}")
    add("`ratings import` of the same file (s)", lambda r: f"{r['import']:.2f}")
    add("`ratings run` (s)", lambda r: f"{r['rate']:.2f}")
    add("`ratings publish` (s)", lambda r: f"{r['publish']:.2f}")
    add("month's results", lambda r: f"{meta['month_results']:,}")
    add("`ratings monthly` (s)", lambda r: f"{r['month']:.2f}")
    add("`ratings run --full` (s)", lambda r: f"{r['full']:.2f}")
    for step, label in (("import", "import"), ("month", "monthly job"), ("full", "run --full")):
        target = TARGETS[step]
        add(
            f"plain script ÷ {label} (target ≥ {target:.0f}×)",
            lambda r, s=step: f"{plain / r[s]:.2f}×",
        )
    if any(r.get("rounds", 1) > 1 for r in rows):
        for step, label in (("import", "import"), ("month", "monthly job"), ("full", "run --full")):
            add(
                f"the same ratio, round by round: lowest – highest ({label})",
                lambda r, s=step: "{:.2f}× – {:.2f}×".format(*r["ranges"][s]),
            )
    add(
        "ratings equal to the plain script's, 10 decimals",
        lambda r: "yes" if r["differing"] == 0 else f"NO ({r['differing']} differ)",
    )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.medium", description=__doc__)
    parser.add_argument("--databases", default="sqlite", help="comma-separated: sqlite, postgresql")
    parser.add_argument("--size", default=SIZE, help=argparse.SUPPRESS)
    parser.add_argument(
        "--workdir",
        type=Path,
        help="keep the history, the month's file and the SQLite databases in this new folder "
        "(to time or profile one step again alone); by default a temporary folder",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="run the plain script and every database's steps this many times, one round after "
        "the other, and print the medians (and each ratio's range over the rounds): a single "
        "run moves by a tenth with the machine (default: 3)",
    )
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    databases = [d for d in args.databases.split(",") if d]
    for database in databases:
        if database not in DATABASES:
            parser.error(f"database must be one of {', '.join(DATABASES)}, not {database!r}")
    if args.workdir is not None and args.workdir.exists():
        parser.error(f"--workdir must be a new folder; {args.workdir} exists")
    compiled = compile_project()
    with workdir_kept(args.workdir, "ratings-medium-") as folder:
        meta = prepare(folder, args.size)
        history, plain_out = str(folder / "history.csv"), str(folder / "plain.csv")
        plains: list[float] = []
        rounds: dict[str, list[dict[str, Any]]] = {database: [] for database in databases}
        for round_ in range(1, args.rounds + 1):
            plains.append(timed(["-m", "benchmarks.plain_script", history, plain_out]))
            for database in databases:
                row = run_database(database, folder, meta, round_)
                rounds[database].append({**row, "plain": plains[-1]})
        rows = [medians(rounds[database]) for database in databases]
    print(f"load average over the last minute: {os.getloadavg()[0]:.1f}")
    print(compiled)
    print(f"{args.rounds} round(s); every time below is the median of the rounds")
    print(table(statistics.median(plains), meta, rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
