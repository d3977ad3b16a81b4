"""Player matching at federation scale: ``python -m benchmarks.matching [--registry N] [--rows N]``.

A registry of a million players (the synthetic federation's first names and surnames, every
country) and a results file of 50,000 rows written the way files arrive: most rows are registered
players in another spelling (``Last, First``, upper-case surnames, accents dropped), some are new
people, some carry a typo. Prints the time of one :func:`importers.matching.match_players` call,
which is what an import spends on matching (the reads from the database are not included).
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np
import polars as pl
from anyascii import anyascii

from benchmarks.names import COUNTRIES
from importers.matching import Known, empty_known, match_players
from ratings.names import name_key_expr


def registry(size: int, rng: random.Random) -> pl.DataFrame:
    """``size`` players: each country's first names and (often double) surnames, drawn by the
    country's weight. A real registry has namesakes too, but each is an ambiguous name to the
    matching; they are left out, so that the figure is the matching's, not the officer's."""
    draw = np.random.default_rng(rng.randrange(1 << 30))
    weights = np.array([c.weight for c in COUNTRIES])
    names: list[str] = []
    codes: list[str] = []
    count = int(size * 2)
    # Second surnames from every country: a federation's players marry across borders, and the
    # small countries' name lists alone would not make a million distinct people.
    everywhere = [name for c in COUNTRIES for name in c.surnames]
    picks = draw.choice(len(COUNTRIES), size=count, p=weights / weights.sum())
    for index in range(len(COUNTRIES)):
        country = COUNTRIES[index]
        n = int((picks == index).sum())
        firsts = country.male + country.female
        first = draw.integers(0, len(firsts), n)
        last = draw.integers(0, len(country.surnames), n)
        second = draw.integers(0, len(everywhere), n)
        double = draw.random(n) < (1.0 if country.double_surname else 0.5)
        middle = draw.integers(0, len(firsts), n)
        has_middle = draw.random(n) < 0.4
        for f, a, b, d, m, h in zip(first, last, second, double, middle, has_middle, strict=True):
            surname = country.surnames[a]
            if d:
                surname = f"{surname}-{everywhere[b]}"
            given = f"{firsts[f]}-{firsts[m]}" if h and m != f else firsts[f]
            names.append(f"{given} {surname}")
            codes.append(country.code)
    frame = (
        pl.DataFrame({"name": names, "country": codes})
        .sample(fraction=1.0, shuffle=True, seed=rng.randrange(1 << 30))
        .with_columns(name_key_expr("name").alias("name_key"))
        .unique(["name_key", "country"], keep="first", maintain_order=True)
        .head(size)
    )
    return frame.select(
        pl.int_range(1, frame.height + 1, dtype=pl.Int64).alias("id"),
        pl.format("P{}", pl.int_range(0, frame.height).cast(pl.String).str.pad_start(7, "0")).alias(
            "federation_id"
        ),
        "name",
        "name_key",
        "country",
        pl.lit(None, dtype=pl.Int64).alias("merged_into"),
    )


def spelled(name: str, rng: random.Random) -> str:
    first, _, last = name.partition(" ")
    choice = rng.random()
    if choice < 0.4:
        return f"{last}, {first}"
    if choice < 0.7:
        return f"{last.upper()} {first}"
    if choice < 0.85:
        return anyascii(name)
    return name


def typo(name: str, rng: random.Random) -> str:
    at = rng.randrange(1, len(name))
    return name[:at] + rng.choice("aeiourstn") + name[at + 1 :]


def results(known: pl.DataFrame, rows: int, rng: random.Random) -> pl.DataFrame:
    people = known.sample(rows, seed=rng.randrange(1 << 30)).select("name", "country").rows()
    names, countries = [], []
    for i, (name, country) in enumerate(people):
        if i % 20 == 0:
            name = f"Newcomer{i} {name.split(' ', 1)[-1]}"  # a new person
        elif i % 20 == 1:
            name = typo(name, rng)
        names.append(spelled(name, rng))
        countries.append(country)
    frame = pl.DataFrame({"name": names, "country": countries})
    return frame.select(
        pl.lit("month.csv").alias("source"),
        pl.int_range(2, rows + 2, dtype=pl.Int64).alias("line"),
        pl.lit(None, dtype=pl.String).alias("player_id"),
        "name",
        name_key_expr("name").alias("name_key"),
        "country",
        pl.lit(None, dtype=pl.String).alias("club"),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--registry", type=int, default=1_000_000)
    parser.add_argument("--rows", type=int, default=50_000)
    args = parser.parse_args()
    rng = random.Random(12)
    started = time.perf_counter()
    players = registry(args.registry, rng).select(empty_known().players.columns)
    file = results(players, args.rows, rng)
    print(f"generated {players.height:,} players and {file.height:,} rows "
          f"in {time.perf_counter() - started:.1f} s")  # fmt: skip
    base = empty_known()
    known = Known(players, base.identifiers, base.aliases)
    started, cpu = time.perf_counter(), time.process_time()
    matched = match_players(file, known)
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    # CPU time too: on a shared machine the wall time says more about the neighbours.
    print(
        f"matched {file.height:,} rows against {players.height:,} players in {seconds:.2f} s "
        f"({cpu:.2f} s of CPU): "
        f"{matched.results['player'].is_not_null().sum():,} known, "
        f"{matched.new_players.height:,} new, {len(matched.uncertain):,} for review, "
        f"{len(matched.problems):,} ambiguous"
    )


if __name__ == "__main__":
    main()
