"""Tournament jobs: deleting a wrongly imported tournament. One transaction."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.engine import Engine

from jobs.inventory import unknown_event
from ratings.storage import tournaments


@dataclass(frozen=True, slots=True)
class DeletionReport:
    key: str
    name: str
    results: int
    rerate: bool
    """Whether the tournament was rated, so everything rated after it waits for a re-rating."""


def delete_tournament(engine: Engine, key: str, *, by: str, now: datetime) -> DeletionReport:
    """Remove the tournament ``key`` with its results and games, and record who did it when in
    the audit; when it was rated, everything from its position on is re-rated by the next run
    (and publishing waits for it)."""
    with engine.begin() as connection:
        event = tournaments.event_by_key(connection, key)
        if event is None:
            raise unknown_event(connection, key)
        deletion = tournaments.delete_tournament(connection, event, by, now)
    return DeletionReport(deletion.key, deletion.name, deletion.results, event.seq is not None)
