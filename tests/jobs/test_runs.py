"""Every batch run is recorded, and a failed run leaves its record with the error."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy.engine import Engine

from jobs.runs import recorded
from ratings.storage import runs


def clock() -> datetime:
    return datetime(2026, 11, 1, 3, 0, tzinfo=UTC)


def test_a_successful_run_is_recorded_with_its_counts(engine: Engine) -> None:
    with recorded(engine, "run", clock) as record:
        record.count(tournaments_rated=4, results_rated=40)
    with engine.connect() as connection:
        job = runs.recent_jobs(connection).row(0, named=True)
    assert (job["kind"], job["outcome"], job["tournaments_rated"], job["results_rated"]) == (
        "run",
        "succeeded",
        4,
        40,
    )
    assert job["error"] is None
    assert job["finished_at"] is not None


def test_a_failed_run_is_recorded_with_the_error(engine: Engine) -> None:
    with pytest.raises(RuntimeError, match="server went away"), recorded(engine, "monthly", clock):
        raise RuntimeError("server went away")
    with engine.connect() as connection:
        job = runs.recent_jobs(connection).row(0, named=True)
    assert (job["outcome"], job["error"]) == ("failed", "server went away")
