"""Write the bundled demo files in ``samples/`` from one synthetic history.

Run ``python -m benchmarks.make_samples [OUT_DIR]``. The same seed always gives the same files, so
re-running it only changes them when the generator itself changes.

The three result files deliberately use the three layouts a rating officer receives (comma CSV,
semicolon CSV with a byte-order mark as a spreadsheet program saves it, and XLSX), so the demo
exercises the importer's format detection as well as the rating.
"""

from __future__ import annotations

import sys
import unicodedata
from datetime import date, datetime
from pathlib import Path

import numpy as np
import polars as pl
import xlsxwriter

from benchmarks.generator import History, generate_history
from benchmarks.names import COUNTRIES

SEED = 2023
PLAYERS = 300
TOURNAMENTS = 80
START = date(2023, 1, 1)
YEARS = 3.0
PARTICIPANTS = 40
NEWCOMERS = 3
NEWCOMER_RATING = 1150
"""The rating a tournament director gives one newcomer they know to be stronger than a beginner."""


def sample_history() -> History:
    return generate_history(PLAYERS, TOURNAMENTS, seed=SEED, start=START, years=YEARS)


def fold(name: str) -> str:
    """Case- and accent-insensitive form, as the importer compares names."""
    decomposed = unicodedata.normalize("NFKD", name.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def participants(history: History, rng: np.random.Generator) -> pl.DataFrame:
    """An entry list for an event in January 2026: known players by id or by name, and newcomers.

    Known players are drawn from those who played in the last year, as a real entry list would be.
    """
    recent = (
        history.results.filter(pl.col("end_date") >= date(2025, 1, 1))
        .select("player_id")
        .unique()
        .sort("player_id")
        .join(history.registry, on="player_id", maintain_order="left")
    )
    known = PARTICIPANTS - NEWCOMERS
    chosen = recent[rng.choice(recent.height, size=known, replace=False).tolist()]
    by_id = rng.random(known) < 0.5
    rows: list[dict[str, object]] = []
    for row, use_id in zip(chosen.iter_rows(named=True), by_id, strict=True):
        if use_id:
            rows.append({"player_id": row["player_id"], "name": row["name"], "country": None})
        else:
            rows.append({"player_id": None, "name": row["name"], "country": row["country"]})
    for i, (name, country) in enumerate(_newcomers(history, rng)):
        rating = NEWCOMER_RATING if i == 0 else None
        rows.append({"player_id": None, "name": name, "country": country, "rating": rating})
    order = rng.permutation(len(rows))
    return pl.DataFrame(
        [rows[i] for i in order],
        schema={
            "player_id": pl.String,
            "name": pl.String,
            "country": pl.String,
            "rating": pl.Int64,
        },
    )


def _newcomers(history: History, rng: np.random.Generator) -> list[tuple[str, str]]:
    """Names no registered player of the same country has, even ignoring case and accents."""
    taken = {(fold(n), c) for n, c in history.registry.select("name", "country").iter_rows()}
    found: list[tuple[str, str]] = []
    for country in ("DEU", "CHE", "POL"):
        c = next(c for c in COUNTRIES if c.code == country)
        while True:
            name = f"{rng.choice(list(c.male))} {rng.choice(list(c.surnames))}"
            if (fold(name), country) not in taken:
                taken.add((fold(name), country))
                found.append((name, country))
                break
    return found


def check_unique_names(registry: pl.DataFrame) -> None:
    """Name matching in the demo must never be ambiguous."""
    keys = registry.select(pl.col("name").map_elements(fold, return_dtype=pl.String), "country")
    repeated = keys.filter(keys.is_duplicated())
    if repeated.height:
        raise ValueError(f"sample names are not unique within a country: {repeated.rows()}")


def write_samples(out_dir: Path) -> None:
    history = sample_history()
    check_unique_names(history.registry)
    out_dir.mkdir(parents=True, exist_ok=True)
    results = history.results.sort("tournament_id", maintain_order=True)
    year = pl.col("end_date").dt.year()
    results.filter(year == 2023).write_csv(out_dir / "results-2023.csv")
    results.filter(year == 2024).write_csv(
        out_dir / "results-2024.csv", separator=";", include_bom=True
    )
    # A fixed creation time keeps the workbook byte-for-byte reproducible.
    with xlsxwriter.Workbook(out_dir / "results-2025.xlsx") as book:
        book.set_properties({"created": datetime(2026, 1, 1)})
        results.filter(year == 2025).write_excel(
            book, worksheet="results", dtype_formats={pl.Date: "yyyy-mm-dd"}, autofit=True
        )
    history.registry.write_csv(out_dir / "players.csv")
    participants(history, np.random.default_rng(SEED)).write_csv(out_dir / "participants.csv")


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    write_samples(Path(args[0]) if args else Path("samples"))


if __name__ == "__main__":
    main()
