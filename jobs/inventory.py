"""The officer's inventory: the reads behind ``ratings tournaments list/show`` and the side by
side view of two players before a merge. Like :mod:`jobs.queries`, they assemble what the command
line prints from storage, so that the command line never reads storage itself."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

import polars as pl
from sqlalchemy.engine import Connection

from jobs.players import check_merge, check_unmerge
from ratings.errors import UnknownEventError, UnknownPlayerError
from ratings.storage import players, tournaments

STATUSES = ("pending", "rated")
"""What a tournament's status can be: imported and waiting for a run, or rated."""


def unknown_event(connection: Connection, key: str) -> UnknownEventError:
    """The error for a key no stored tournament has, naming its deletion when it was deleted."""
    deleted = tournaments.last_deletion(connection, key)
    if deleted is None:
        return UnknownEventError(f"no tournament has the key {key}")
    return UnknownEventError(
        f"no tournament has the key {key}: it was deleted on {deleted.deleted_at:%Y-%m-%d %H:%M} "
        f"by {deleted.deleted_by}"
    )


def tournament_list(
    connection: Connection,
    *,
    ends_from: date | None = None,
    ends_to: date | None = None,
    player: str | None = None,
    status: str | None = None,
) -> pl.DataFrame:
    """Tournaments in rating order: key, name, start_date, end_date, tier, status, results,
    source_format, imported_at, imported_by; ``player`` is a federation id (a merged player's
    tournaments are those of whom he was merged into)."""
    pid = None
    if player is not None:
        row = players.player_by_federation_id(connection, player)
        if row is None:
            raise UnknownPlayerError(player)
        pid = row.merged_into if row.merged_into is not None else row.id
    return tournaments.list_tournaments(
        connection, ends_from=ends_from, ends_to=ends_to, player=pid, status=status
    )


def deleted_tournaments(connection: Connection) -> pl.DataFrame:
    """The audit of deleted tournaments, newest first: key, name, dates, status, results, games,
    source file and hash, who imported it when, who deleted it when."""
    return tournaments.deletions(connection)


@dataclass(frozen=True, slots=True)
class TournamentCard:
    event: tournaments.EventRow
    source: tournaments.EventSource
    results: pl.DataFrame
    """federation_id, name, country, wins, draws, losses, buchholz, games, expected,
    rating_before, rating_after: in the order of the file, ratings null before the tournament is
    rated."""
    games: pl.DataFrame
    """round, federation_id, opponent_federation_id, outcome, color, handicap: empty unless the
    tournament came as a crosstable."""


def tournament_card(connection: Connection, key: str) -> TournamentCard:
    """Everything stored about one tournament, for ``ratings tournaments show``."""
    event = tournaments.event_by_key(connection, key)
    if event is None:
        raise unknown_event(connection, key)
    return TournamentCard(
        event,
        tournaments.event_source(connection, event),
        tournaments.event_results(connection, event),
        tournaments.event_games(connection, event),
    )


@dataclass(frozen=True, slots=True)
class PlayerSide:
    """One of two players shown side by side before a merge."""

    player: players.PlayerRow
    identifiers: list[tuple[str, str]]
    """(scheme, value)"""
    tournaments: int
    games: int
    last_event: str | None
    """Name and end date of the latest tournament."""


def merge_preview(connection: Connection, keep: str, duplicate: str) -> tuple[PlayerSide, ...]:
    """Both players of a merge as the officer compares them, or the reason the merge is refused."""
    sides = []
    for row in check_merge(connection, keep, duplicate):
        events, played = players.activity(connection, row.id)
        last = players.last_events(connection, [row.id]).get(row.id)
        sides.append(
            PlayerSide(
                row,
                players.player_record(connection, row.id).identifiers,
                events,
                played,
                str(last) if last else None,
            )
        )
    return tuple(sides)


@dataclass(frozen=True, slots=True)
class MergeRecord:
    """A standing merge as the officer sees it before undoing it."""

    duplicate: str
    kept: str
    merged_at: datetime
    merged_by: str
    tournaments: int
    """Tournaments whose results the merge moved (and an unmerge gives back)."""


def unmerge_preview(connection: Connection, duplicate: str, kept: str | None = None) -> MergeRecord:
    """The merge an unmerge of ``duplicate`` (from ``kept``, if named) would undo, or the reason
    there is none to undo."""
    _dup, merge, into = check_unmerge(connection, duplicate, kept)
    moved = players.merged_tournaments(connection, merge.id)
    return MergeRecord(duplicate, into.federation_id, merge.merged_at, merge.merged_by, len(moved))
