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

import polars as pl
from anyascii import anyascii

from benchmarks.names import COUNTRIES
from importers.matching import Known, empty_known, match_players
from ratings.names import name_key, name_key_expr


def registry(size: int, rng: random.Random) -> pl.DataFrame:
    weights = [c.weight for c in COUNTRIES]
    rows = []
    seen: set[tuple[str, str]] = set()
    while len(rows) < size:
        country = rng.choices(COUNTRIES, weights)[0]
        first = rng.choice(country.male + country.female)
        last = rng.choice(country.surnames)
        if country.double_surname or rng.random() < 0.5:
            last = f"{last}-{rng.choice(country.surnames)}"
        # A real registry has namesakes too, but each is an ambiguous name to the matching:
        # left out, so the figure is the matching's, not the officer's.
        key = (name_key(f"{first} {last}"), country.code)
        if key in seen:
            continue
        seen.add(key)
        rows.append((f"P{len(rows):07d}", f"{first} {last}", country.code))
    frame = pl.DataFrame(rows, schema=["federation_id", "name", "country"], orient="row")
    return frame.with_row_index("id", offset=1).with_columns(
        pl.col("id").cast(pl.Int64), pl.lit(None, dtype=pl.Int64).alias("merged_into")
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
    players = registry(args.registry, rng)
    players = players.with_columns(name_key_expr("name").alias("name_key")).select(
        empty_known().players.columns
    )
    file = results(players, args.rows, rng)
    print(f"generated {players.height:,} players and {file.height:,} rows "
          f"in {time.perf_counter() - started:.1f} s")  # fmt: skip
    base = empty_known()
    known = Known(players, base.identifiers, base.aliases)
    started = time.perf_counter()
    matched = match_players(file, known)
    seconds = time.perf_counter() - started
    print(
        f"matched {file.height:,} rows against {players.height:,} players in {seconds:.2f} s: "
        f"{matched.results['player'].is_not_null().sum():,} known, "
        f"{matched.new_players.height:,} new, {len(matched.uncertain):,} for review, "
        f"{len(matched.problems):,} ambiguous"
    )


if __name__ == "__main__":
    main()
