"""Filled databases that several test modules start from, built through the jobs as the officer
builds them; used with the ``prepared`` fixture, which builds each once per session."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from jobs.importing import import_files
from jobs.rating import run_ratings
from ratings.formula import MeloParams
from ratings.storage.database import open_engine

SAMPLES = Path(__file__).parents[2] / "samples"
NOW = datetime(2026, 11, 1, tzinfo=UTC)


def samples_2023_rated(url: str) -> None:
    """The samples' 2023 results imported (by ``cli``, at :data:`NOW`) and rated."""
    engine = open_engine(url)
    try:
        import_files(engine, [SAMPLES / "results-2023.csv"], imported_by="cli", now=NOW)
        run_ratings(engine, MeloParams(), now=NOW)
    finally:
        engine.dispose()
