"""Publishing a monthly list: freeze the ratings at the cut-off, in one transaction.

A published list never changes. Publishing a period again needs ``republish``; the new version is
stored beside the old one, which stays as it was, and the diff between them can be shown at any
time (``ratings diff 2026-11@1 2026-11@2``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime

from sqlalchemy.engine import Connection, Engine

from exporters.lists import default_cutoff, list_entries, parse_period, statistics
from ratings.errors import ListExistsError, ListVersionError, NotRatedError, UnknownListError
from ratings.storage import repository as repo


@dataclass(frozen=True, slots=True)
class Publication:
    info: repo.ListInfo
    replaced: repo.ListInfo | None


def publish_list(
    engine: Engine,
    period: str,
    *,
    cutoff: date | None = None,
    republish: bool = False,
    active_months: int,
    initial_rating: int,
    by: str,
    now: datetime,
) -> Publication:
    with engine.begin() as connection:
        return publish_into(
            connection, period, cutoff=cutoff, republish=republish, active_months=active_months,
            initial_rating=initial_rating, by=by, now=now,
        )  # fmt: skip


def publish_into(
    connection: Connection,
    period: str,
    *,
    cutoff: date | None = None,
    republish: bool = False,
    active_months: int,
    initial_rating: int,
    by: str,
    now: datetime,
) -> Publication:
    """Publish inside the caller's transaction."""
    parse_period(period)
    cutoff = cutoff or default_cutoff(period)
    existing = repo.latest_list(connection, period)
    if existing is not None and not republish:
        raise ListExistsError(period, existing.version, existing.created_at)
    waiting = repo.pending_until(connection, cutoff)
    if waiting:
        raise NotRatedError(cutoff, waiting)
    previous = repo.previous_period_list(connection, period)
    entries = list_entries(
        repo.ranking(connection, cutoff),
        repo.list_entries_of(connection, previous.id) if previous else None,
        cutoff=cutoff,
        active_months=active_months,
    )
    stats = statistics(entries)
    list_id = repo.insert_list(
        connection,
        {
            "period": period,
            "version": 1 if existing is None else existing.version + 1,
            "cutoff": cutoff,
            "created_at": now,
            "created_by": by,
            "players": stats.players,
            "active_players": stats.active_players,
            "mean_rating": stats.mean_rating,
            "initial_rating": initial_rating,
            "active_months": active_months,
            "previous_id": previous.id if previous else None,
            "replaces_id": existing.id if existing else None,
        },
        entries,
    )
    return Publication(repo.list_by_id(connection, list_id), existing)


def find_list(connection: Connection, name: str) -> repo.ListInfo:
    """A list by ``YYYY-MM`` (its newest version) or ``YYYY-MM@N`` (version N)."""
    period, _, version = name.partition("@")
    parse_period(period)
    if version:
        if re.fullmatch(r"[0-9]{1,6}", version) is None:
            raise ListVersionError(period, version)
        found = repo.list_version(connection, period, int(version))
    else:
        found = repo.latest_list(connection, period)
    if found is None:
        raise UnknownListError(name)
    return found
