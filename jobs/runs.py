"""Recording every batch run (SPEC 3, job runs): start, end, outcome, counts and the error text.

The record is written in transactions of its own, so a failed job still leaves its record while
everything the job itself wrote is rolled back.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from sqlalchemy.engine import Engine

from ratings.storage import runs


class JobRecord:
    """Counts a job reports while it runs; written when it ends."""

    def __init__(self) -> None:
        self.counts: dict[str, Any] = {}

    def count(self, **counts: Any) -> None:
        self.counts.update(counts)


@contextmanager
def recorded(engine: Engine, kind: str, clock: Callable[[], datetime]) -> Iterator[JobRecord]:
    with engine.begin() as connection:
        job = runs.start_job(connection, kind, clock())
    record = JobRecord()
    try:
        yield record
    except BaseException as error:
        with engine.begin() as connection:
            text = str(error) or type(error).__name__
            runs.finish_job(connection, job, clock(), "failed", error=text, **record.counts)
        raise
    with engine.begin() as connection:
        runs.finish_job(connection, job, clock(), "succeeded", **record.counts)
