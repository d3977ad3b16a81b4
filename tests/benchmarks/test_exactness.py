"""A generated federation history rated through the database path gives, to the 10th decimal,
what the row-at-a-time reference gives, after a late tournament and a correction too.

The bulk paths (frames written by COPY or executemany, indexes rebuilt around large writes,
reads straight from the driver) must not move a single digit on either database.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import polars as pl
import pytest
from sqlalchemy import inspect, select
from sqlalchemy.engine import Engine

from benchmarks.generator import generate_history
from jobs.importing import import_files
from jobs.rating import run_ratings
from ratings.formula import BUCHHOLZ_SCALE, MeloParams, format_exact
from ratings.melo_reference import Entry, Event, rate_events
from ratings.storage import frames
from ratings.storage.bulk import columnar, indexes
from ratings.storage.schema import player_totals, players, rating_changes, results

NOW = datetime(2026, 11, 1, tzinfo=UTC)
PARAMS = MeloParams()


@pytest.fixture(scope="module")
def history() -> pl.DataFrame:
    return generate_history(240, 160, seed=5, start=date(2021, 1, 1), years=3.0).results


def reference(results: pl.DataFrame) -> dict[str, str]:
    """Every player's exact rating from the plain reference, rating order (end, start, key)."""
    events = []
    ordered = results.sort("end_date", "start_date", "tournament_id", "player_id")
    for (_key,), rows in ordered.group_by("tournament_id", maintain_order=True):
        gm_played = any(
            r["title"] == "GM" and r["wins"] + r["draws"] + r["losses"] > 0
            for r in rows.iter_rows(named=True)
        )
        entries = tuple(
            Entry(
                r["player_id"], r["wins"], r["draws"], r["losses"],
                round(r["buchholz"] * BUCHHOLZ_SCALE),
            )
            for r in rows.iter_rows(named=True)
        )  # fmt: skip
        events.append(Event(PARAMS.k_for(rows["tier"][0], gm_played), entries))
    return {p: format_exact(v) for p, v in rate_events(events).items()}


def stored(engine: Engine) -> dict[str, str]:
    with engine.connect() as connection:
        rows = connection.execute(
            select(players.c.federation_id, player_totals.c.rating).select_from(
                players.outerjoin(player_totals, player_totals.c.player_id == players.c.id)
            )
        ).all()
    return {fid: format_exact(rating) for fid, rating in rows if rating is not None}


def load(engine: Engine, frame: pl.DataFrame, path: Path, *, replace: bool = False) -> None:
    frame.write_parquet(path)
    import_files(engine, [path], replace=replace, imported_by="test", now=NOW)


@pytest.mark.parametrize("rebuild", [False, True], ids=["small-paths", "bulk-paths"])
def test_generated_history_matches_the_reference_after_late_and_corrected_events(
    engine: Engine,
    history: pl.DataFrame,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    rebuild: bool,
) -> None:
    if rebuild:
        # Every write then takes the large-write path that drops and rebuilds indexes, and every
        # look-up the one that reads the whole table.
        monkeypatch.setattr(indexes, "REBUILD_INDEXES_FROM", 0)
        monkeypatch.setattr(frames, "WHOLE_TABLE_FROM", 0)
        # and every rating run that may read through a second connection does.
        monkeypatch.setattr(columnar, "FAST_READ_FROM", 0)
    last = history["end_date"].max()
    assert isinstance(last, date)
    year_back = last - timedelta(days=365)
    by_date = history.sort("end_date", "start_date", "tournament_id")
    late_key = by_date.filter(pl.col("end_date") >= year_back)["tournament_id"][0]
    fixed_key = by_date.filter(pl.col("end_date") >= year_back)["tournament_id"].unique(
        maintain_order=True
    )[3]
    first = history.filter(pl.col("tournament_id") != late_key)

    load(engine, first, tmp_path / "first.parquet")
    everything = run_ratings(engine, PARAMS, now=NOW)
    assert stored(engine) == reference(first)

    # A tournament of a year ago arrives late: only it and what follows are rated again.
    load(engine, history.filter(pl.col("tournament_id") == late_key), tmp_path / "late.parquet")
    late = run_ratings(engine, PARAMS, now=NOW)
    assert 1 < late.tournaments < everything.tournaments
    assert stored(engine) == reference(history)

    # A correction of a later tournament: one player's Buchholz half a point lower.
    event = history.filter(pl.col("tournament_id") == fixed_key).with_row_index("_i")
    target = event.filter(pl.col("buchholz") >= 1)["_i"][0]
    corrected = event.with_columns(
        pl.when(pl.col("_i") == target)
        .then(pl.col("buchholz") - 0.5)
        .otherwise(pl.col("buchholz"))
        .alias("buchholz")
    ).drop("_i")
    load(engine, corrected, tmp_path / "fix.parquet", replace=True)
    fixed = run_ratings(engine, PARAMS, now=NOW)
    assert 1 < fixed.tournaments < late.tournaments
    final = pl.concat([history.filter(pl.col("tournament_id") != fixed_key), corrected])
    expected = reference(final)
    assert expected != reference(history)
    assert stored(engine) == expected
    # Whatever a large write dropped for speed is back when the job has finished.
    schema = inspect(engine)
    for table in (results, rating_changes):
        assert {i["name"] for i in schema.get_indexes(table.name)} >= {
            str(i.name) for i in table.indexes
        }
        assert len(schema.get_foreign_keys(table.name)) == len(table.foreign_key_constraints)
