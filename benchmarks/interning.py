"""The numbering of a file's distinct players (``importers.interning.Distinct``, by 64-bit row
hashes) against a plain dictionary from each player's values to its number.

A synthetic file of N players writes each of them twice, in shuffled order, and is numbered in
slices of ``importers.results.SLICE_ROWS`` rows, as the results reader numbers the players
(the ``IDENTITY`` columns) and the names (``name``) of a file. Both ways must give every row the
same number and keep the same first rows; the script prints both timings, their ratio and the
load average before and after.

    python -m benchmarks.interning [--players 50000 1000000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np
import polars as pl
from numpy.typing import NDArray

from importers.interning import Distinct, own
from importers.result_columns import IDENTITY
from importers.results import SLICE_ROWS

Keep = Callable[[pl.DataFrame], pl.DataFrame]


class Numbering(Protocol):
    def number(self, rows: pl.DataFrame) -> NDArray[np.uint32]: ...

    def frame(self) -> pl.DataFrame | None: ...


class DictNumbering:
    """The distinct values of ``columns`` numbered by a dictionary from their tuple of values."""

    def __init__(self, columns: Sequence[str], keep: Keep) -> None:
        self.columns = list(columns)
        self.keep = keep
        self.known: dict[tuple[object, ...], int] = {}
        self.kept: list[pl.DataFrame] = []

    def number(self, rows: pl.DataFrame) -> NDArray[np.uint32]:
        known = self.known
        start = len(known)
        numbers = np.fromiter(
            (known.setdefault(row, len(known)) for row in rows.select(self.columns).iter_rows()),
            dtype=np.uint32,
            count=rows.height,
        )
        new = np.flatnonzero(numbers >= start)
        if new.size:
            _, first = np.unique(numbers[new], return_index=True)
            self.kept.append(own(self.keep(rows.gather(pl.Series(new[first], dtype=pl.UInt32)))))
        return numbers

    def frame(self) -> pl.DataFrame | None:
        return pl.concat(self.kept) if self.kept else None


def players(count: int, seed: int = 20261128) -> pl.DataFrame:
    """``count`` distinct players in the ``IDENTITY`` columns, each written twice, shuffled,
    with a line number."""
    rng = np.random.default_rng(seed)
    countries = pl.Series([["DEU", "POL", "FRA", "ESP", "NLD", None][i % 6] for i in range(count)])
    frame = pl.DataFrame({"i": np.arange(count)}).select(
        pl.format("P{}", "i").alias("player_id"),
        pl.format("Player {} Example", "i").alias("name"),
        pl.format("player {} example", "i").alias("name_key"),
        pl.lit(countries).alias("country"),
        pl.format("Club {}", pl.col("i") % 997).alias("club"),
        pl.when(pl.col("i") % 3 == 0).then(pl.lit("fide")).alias("id_scheme"),
        pl.when(pl.col("i") % 3 == 0)
        .then(pl.format("{}", pl.col("i") + 4_600_000))
        .alias("id_value"),
    )
    twice = pl.concat([frame, frame]).gather(rng.permutation(2 * count))
    return twice.with_columns(pl.int_range(2, 2 * count + 2).alias("line"))


def run(
    make: Callable[[Sequence[str], Keep], Numbering], rows: pl.DataFrame, columns: Sequence[str]
) -> tuple[NDArray[np.uint32], pl.DataFrame | None, float]:
    """The numbers of every row, what is kept of the distinct values, and the seconds taken."""

    def keep(fresh: pl.DataFrame) -> pl.DataFrame:
        return fresh.select(*columns, "line")

    numbering = make(columns, keep)
    started = time.perf_counter()
    numbers = [
        numbering.number(rows.slice(at, SLICE_ROWS)) for at in range(0, rows.height, SLICE_ROWS)
    ]
    kept = numbering.frame()
    seconds = time.perf_counter() - started
    return np.concatenate(numbers), kept, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, nargs="+", default=[50_000, 1_000_000])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("players    numbered  rows        hash (s)  dict (s)  dict / hash")
    for count in args.players:
        rows = players(count)
        for label, columns in (("players", IDENTITY), ("names", ("name",))):
            best: dict[str, tuple[float, NDArray[np.uint32], pl.DataFrame | None]] = {}
            makers: tuple[tuple[str, Callable[[Sequence[str], Keep], Numbering]], ...] = (
                ("hash", Distinct),
                ("dict", DictNumbering),
            )
            for name, make in makers:
                times = []
                for _ in range(args.repeat):
                    numbers, kept, seconds = run(make, rows, columns)
                    times.append(seconds)
                best[name] = (min(times), numbers, kept)
            assert np.array_equal(best["hash"][1], best["dict"][1])
            hash_kept, dict_kept = best["hash"][2], best["dict"][2]
            assert hash_kept is not None
            assert dict_kept is not None
            assert hash_kept.equals(dict_kept)
            hashed, plain = best["hash"][0], best["dict"][0]
            print(
                f"{count:>9,}  {label:<8}  {rows.height:>10,}  {hashed:>8.3f}  {plain:>8.3f}  "
                f"{plain / hashed:>10.2f}"
            )
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
