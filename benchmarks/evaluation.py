"""The evaluation's benchmark: ``python -m benchmarks.evaluation [--size M] [--database sqlite]``.

It imports a synthetic history (``benchmarks.generator``) into a fresh database, rates it, then
times what ``ratings evaluate`` does: reading the audit rows and the games back
(``jobs.evaluation.rated_history``), and every figure with a k sweep of 9 values for each of 3
tiers (27 re-ratings of the whole history in memory by the kernel; today's k of each tier is one
of the nine, and the runs that equal each other are made once). It also times one re-rating by
the kernel alone, from which the sweep at another size can be foreseen: the sweep is that many
runs, two at a time on two cores.

The synthetic histories come as results tables: they have no games, so the per-game figures
(Brier score, the 1000 games problem) cost nothing here.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from benchmarks.run import HISTORY_LIMIT, NOW, _database, load

GRID = {
    "regular": [2, 3, 4, 5, 6, 7, 8, 9, 10],
    "grandmaster": [5, 6, 7, 8, 10, 12, 14, 17, 20],
    "national": [10, 11, 14, 16, 20, 24, 29, 34, 40],
}
"""Nine values of k for each of three tiers, from half to twice today's."""


def measure(size: str, database: str, workdir: Path) -> dict[str, float]:
    from jobs.evaluation import rated_history
    from jobs.importing import import_files
    from jobs.rating import run_ratings
    from ratings.evaluation import evaluate
    from ratings.formula import MeloParams, load_kernels, rate_sequence
    from ratings.storage.database import open_engine

    history = load(size).results
    path = workdir / "history.parquet"
    history.write_parquet(path)
    params = MeloParams()
    figures: dict[str, float] = {"results": float(history.height)}
    with _database(database, workdir) as url:
        engine = open_engine(url, create=True)
        began = time.perf_counter()
        # The generator's whole frame has more columns than the run's history (14 at L:
        # 140 million cells), so the limit grows with it as an officer would raise it.
        limit = max(HISTORY_LIMIT, 16 * history.height * history.width * 11 // 10)
        import_files(engine, [path], imported_by="bench", now=NOW, limit=limit)
        run_ratings(engine, params, now=NOW)
        figures["import and rate (s)"] = time.perf_counter() - began
        load_kernels()
        with engine.connect() as connection:
            began = time.perf_counter()
            rated = rated_history(connection)
            figures["read the audit rows (s)"] = time.perf_counter() - began
        engine.dispose()
    initial = np.full(len(rated.player_ids), params.initial_rating, dtype=np.int64)
    runs = []
    for _ in range(3):
        began = time.perf_counter()
        rate_sequence(
            initial, rated.offsets, rated.k, rated.player, rated.wins, rated.draws,
            rated.losses, rated.buchholz,
        )  # fmt: skip
        runs.append(time.perf_counter() - began)
    figures["one re-rating, kernel alone (s, best of 3)"] = min(runs)
    began = time.perf_counter()
    found = evaluate(rated, params, grid=GRID)
    figures["figures with the 9x3 sweep (s)"] = time.perf_counter() - began
    figures["sweep rows"] = float(len(found.figures["k_sweep"]))
    figures["tiers swept"] = float(len({r["tier"] for r in found.figures["k_sweep"]}))
    return figures


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.evaluation", description=__doc__)
    parser.add_argument("--size", default="M", help="S, M or L (default M)")
    parser.add_argument("--database", default="sqlite", choices=("sqlite", "postgresql"))
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="ratings-evaluation-") as folder:
        figures = measure(args.size, args.database, Path(folder))
    print(f"evaluation benchmark, size {args.size}, {args.database}")
    for name, value in figures.items():
        shown = f"{value:,.0f}" if value >= 100 or value.is_integer() else f"{value:.3f}"
        print(f"  {name:<45} {shown:>12}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
