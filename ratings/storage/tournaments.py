"""Tournaments and their results and games: importing, correcting, listing, deleting (with the
audit of deletions), and what waits to be rated."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

import polars as pl
from sqlalchemy import and_, delete, func, insert, select, update
from sqlalchemy.engine import Connection

from ratings.storage import frames
from ratings.storage.audit import PLAYED
from ratings.storage.bulk import insert_frame, insert_rows, reserve_ids
from ratings.storage.frames import (
    DATED_TOURNAMENTS,
    DELETION_SCHEMA,
    EVENT_GAMES_SCHEMA,
    EVENT_RESULTS_SCHEMA,
    OUTCOMES_SCHEMA,
    PLAYER_GAME_RATINGS,
    PLAYER_GAMES_SCHEMA,
    STORED_BUCHHOLZ,
    TOURNAMENT_LIST_SCHEMA,
    chunks,
    read_frame,
)
from ratings.storage.schema import (
    games,
    player_merge_results,
    players,
    rating_changes,
    results,
    tournament_deletions,
    tournaments,
)
from ratings.storage.window import mark_rerate


@dataclass(frozen=True, slots=True)
class StoredTournament:
    id: int
    key: str
    seq: int | None
    status: str


def _no_fewer_than_rows(connection: Connection, asked: int) -> bool:
    """Whether ``asked`` values looked up are no fewer than the tournaments may be (their largest
    id bounds them: the first import into a new database): the whole table is then read once
    instead of looking them up in chunks."""
    return asked >= (connection.execute(select(func.max(tournaments.c.id))).scalar() or 0)


def tournaments_by_key(connection: Connection, keys: Sequence[str]) -> dict[str, StoredTournament]:
    """The stored tournaments among ``keys``, by key. Many keys, or no fewer keys than the table
    may hold rows (:func:`_no_fewer_than_rows`), are looked up in the whole table read once, the
    others in chunks."""
    found: dict[str, StoredTournament] = {}
    if len(keys) > frames.WHOLE_TABLE_FROM or _no_fewer_than_rows(connection, len(keys)):
        every = read_frame(
            connection,
            select(tournaments.c.id, tournaments.c.key, tournaments.c.seq, tournaments.c.status),
            {"id": pl.Int64, "key": pl.String, "seq": pl.Int64, "status": pl.String},
        ).filter(pl.col("key").is_in(pl.Series(list(keys), dtype=pl.String).implode()))
        return {row[1]: StoredTournament(*row) for row in every.iter_rows()}
    for chunk in chunks(list(keys), 5000):
        query = select(
            tournaments.c.id, tournaments.c.key, tournaments.c.seq, tournaments.c.status
        ).where(tournaments.c.key.in_(chunk))
        found.update({row.key: StoredTournament(*row) for row in connection.execute(query)})
    return found


def tournaments_ending_on(connection: Connection, days: Sequence[date]) -> pl.DataFrame:
    """The tournaments that end on one of ``days`` (``DATED_TOURNAMENTS``), found in the index
    of the tournaments' order, which starts with the end date; or in the whole table read once
    for no fewer days than it may hold rows (:func:`_no_fewer_than_rows`: four lists of a
    thousand dates against an empty table took 0.12 s)."""
    t = tournaments.c
    columns = (t.id, t.key, t.name, t.start_date, t.end_date)
    days = sorted(set(days))
    if _no_fewer_than_rows(connection, len(days)):
        every = read_frame(connection, select(*columns), DATED_TOURNAMENTS)
        return every.filter(pl.col("end_date").is_in(pl.Series(days, dtype=pl.Date).implode()))
    parts = [
        read_frame(connection, select(*columns).where(t.end_date.in_(chunk)), DATED_TOURNAMENTS)
        for chunk in chunks(days, 1000)
    ]
    return pl.concat(parts) if parts else pl.DataFrame(schema=DATED_TOURNAMENTS)


def outcomes(connection: Connection, ids: Sequence[int]) -> pl.DataFrame:
    """The results of these tournaments by player and outcome (``OUTCOMES_SCHEMA``)."""
    r = results.c
    columns = (r.tournament_id, r.player_id, r.wins, r.draws, r.losses)
    parts = [
        read_frame(connection, select(*columns).where(r.tournament_id.in_(chunk)), OUTCOMES_SCHEMA)
        for chunk in chunks(sorted(set(ids)), 1000)
    ]
    return pl.concat(parts) if parts else pl.DataFrame(schema=OUTCOMES_SCHEMA)


def insert_tournaments(
    connection: Connection, frame: pl.DataFrame, ids: pl.Series | None = None
) -> pl.Series:
    """Frame columns: key, name, start_date, end_date, tier, source_name, source_hash,
    source_format, imported_at, imported_by, and standings (a crosstable's
    :class:`~ratings.tiebreaks.record.StandingsRecord` as text; null or absent for a results
    table). They are created with ``ids`` (taken by ``bulk.reserve_ids``, one per row) or with
    ids taken now; their database ids are returned, in the frame's order."""
    columns = [
        "key", "name", "start_date", "end_date", "tier", "source_name", "source_hash",
        "source_format", "imported_at", "imported_by",
    ]  # fmt: skip
    if "standings" in frame.columns:
        columns.append("standings")
    ids = (reserve_ids(connection, tournaments, frame.height) if ids is None else ids).alias("id")
    if frame.height:
        rows = frame.select(ids, *columns, pl.lit("pending").alias("status"))
        insert_frame(connection, tournaments, rows, main=True)
    return ids


def replace_tournament(
    connection: Connection, stored: StoredTournament, values: dict[str, Any]
) -> None:
    """A correction: new details and results, pending again; its old place must be re-rated."""
    connection.execute(delete(results).where(results.c.tournament_id == stored.id))
    connection.execute(delete(games).where(games.c.tournament_id == stored.id))
    connection.execute(
        update(tournaments)
        .where(tournaments.c.id == stored.id)
        .values(**values, status="pending", seq=None, k=None, rated_at=None)
    )
    if stored.seq is not None:
        mark_rerate(connection, stored.seq, f"tournament {stored.key} was corrected")


def tournament_ids(connection: Connection, keys: Sequence[str]) -> dict[str, int]:
    return {key: t.id for key, t in tournaments_by_key(connection, keys).items()}


def insert_games(connection: Connection, frame: pl.DataFrame) -> None:
    """Frame columns: tournament, round, player, opponent, kind, outcome, color, handicap."""
    columns = [
        "tournament_id",
        "round",
        "player_id",
        "opponent_id",
        "kind",
        "outcome",
        "color",
        "handicap",
    ]
    rows = frame.select(
        "tournament", "round", "player", "opponent", "kind", "outcome", "color", "handicap"
    ).iter_rows()
    insert_rows(connection, games, columns, rows)


def tournaments_with_games(connection: Connection, keys: Sequence[str]) -> set[str]:
    """Keys, among ``keys``, of tournaments imported from a crosstable."""
    query = (
        select(tournaments.c.key)
        .where(tournaments.c.key.in_(list(keys)))
        .where(select(games.c.round).where(games.c.tournament_id == tournaments.c.id).exists())
    )
    return set(connection.execute(query).scalars())


def stored_buchholz(connection: Connection, keys: Sequence[str]) -> pl.DataFrame:
    query = (
        select(tournaments.c.key, players.c.federation_id, results.c.buchholz)
        .join(results, results.c.tournament_id == tournaments.c.id)
        .join(players, players.c.id == results.c.player_id)
        .where(tournaments.c.key.in_(list(keys)))
    )
    return read_frame(connection, query, STORED_BUCHHOLZ)


def source_imported(connection: Connection, sha256: str) -> bool:
    """Whether a file with this content has been imported (its tournaments carry its hash)."""
    query = select(tournaments.c.id).where(tournaments.c.source_hash == sha256).limit(1)
    return connection.execute(query).first() is not None


def pending_count(connection: Connection) -> int:
    """How many tournaments are not rated yet. A tournament is pending exactly when it has no
    position (``ratings.storage.window``), so they are counted in the position's index: counting
    them by their status read every tournament on each page of the website."""
    return int(
        connection.execute(
            select(func.count()).select_from(tournaments).where(tournaments.c.seq.is_(None))
        ).scalar_one()
    )


def pending_until(connection: Connection, cutoff: date) -> list[str]:
    """Keys of tournaments ending on or before ``cutoff`` that are not rated yet (found through
    the position's index, as :func:`pending_count` counts them)."""
    query = (
        select(tournaments.c.key)
        .where(tournaments.c.seq.is_(None), tournaments.c.end_date <= cutoff)
        .order_by(tournaments.c.end_date, tournaments.c.key)
    )
    return list(connection.execute(query).scalars())


@dataclass(frozen=True, slots=True)
class EventRow:
    id: int
    key: str
    name: str
    start_date: date
    end_date: date
    tier: str
    status: str
    seq: int | None
    k: int | None


def event_by_key(connection: Connection, key: str) -> EventRow | None:
    t = tournaments.c
    row = connection.execute(
        select(t.id, t.key, t.name, t.start_date, t.end_date, t.tier, t.status, t.seq, t.k).where(
            t.key == key
        )
    ).first()
    return EventRow(*row) if row is not None else None


def event_results(connection: Connection, event: EventRow) -> pl.DataFrame:
    """The event's results in the order of its file, each with the player's rating change when
    the event is rated (found by the event's position, the changes' key)."""
    r, p, c = results.c, players.c, rating_changes.c
    seq = -1 if event.seq is None else event.seq
    query = (
        select(
            p.federation_id,
            p.name,
            p.country,
            r.wins,
            r.draws,
            r.losses,
            r.buchholz,
            c.games,
            c.expected,
            c.rating_before,
            c.rating_after,
        )
        .join(players, p.id == r.player_id)
        .outerjoin(rating_changes, and_(c.seq == seq, c.player_id == r.player_id))
        .where(r.tournament_id == event.id)
        .order_by(r.line, r.player_id)
    )
    return read_frame(connection, query, EVENT_RESULTS_SCHEMA)


def event_games(connection: Connection, event: EventRow) -> pl.DataFrame:
    """The rounds of an event that came as a crosstable (none for one that came as results): the
    games and forfeits with their opponent, the byes and absences (``kind``) without."""
    g = games.c
    opponent = players.alias("opponent")
    query = (
        select(
            g.round,
            players.c.federation_id,
            opponent.c.federation_id,
            g.outcome,
            g.color,
            g.handicap,
            g.kind,
            opponent.c.name,
        )
        .join(players, players.c.id == g.player_id)
        .outerjoin(opponent, opponent.c.id == g.opponent_id)
        .where(g.tournament_id == event.id)
        .order_by(g.round, players.c.federation_id)
    )
    return read_frame(connection, query, EVENT_GAMES_SCHEMA)


def player_games(connection: Connection, player: int) -> pl.DataFrame:
    """The player's rounds in every rated event that came as a crosstable, in one query (the
    events in rating order, each by round): what :func:`event_games` gives for each, filtered."""
    g, c, opponent = games.c, rating_changes.c, players.alias("opponent")
    query = (
        select(
            tournaments.c.key,
            g.round,
            g.kind,
            opponent.c.federation_id,
            opponent.c.name,
            g.color,
            g.outcome,
        )
        .select_from(rating_changes)
        .join(tournaments, tournaments.c.id == c.tournament_id)
        .join(games, and_(g.tournament_id == c.tournament_id, g.player_id == c.player_id))
        .outerjoin(opponent, opponent.c.id == g.opponent_id)
        .where(c.player_id == player)
        .order_by(c.seq, g.round)
    )
    return read_frame(connection, query, PLAYER_GAMES_SCHEMA)


def player_game_ratings(connection: Connection, player: int) -> pl.DataFrame:
    """Each game the player played over the board in a rated event, with both players' ratings
    before it, in one query: what the per-game expectation of each event needs of this player."""
    c, g = rating_changes.c, games.c
    theirs = rating_changes.alias("theirs")
    query = (
        select(tournaments.c.key, c.rating_before, theirs.c.rating_before)
        .select_from(rating_changes)
        .join(tournaments, tournaments.c.id == c.tournament_id)
        .join(games, and_(g.tournament_id == c.tournament_id, g.player_id == c.player_id))
        .join(theirs, and_(theirs.c.seq == c.seq, theirs.c.player_id == g.opponent_id))
        .where(c.player_id == player, g.kind == PLAYED)
        .order_by(c.seq, g.round)
    )
    return read_frame(connection, query, PLAYER_GAME_RATINGS)


def list_tournaments(
    connection: Connection,
    *,
    ends_from: date | None = None,
    ends_to: date | None = None,
    player: int | None = None,
    status: str | None = None,
) -> pl.DataFrame:
    """Tournaments in rating order (end date, start date, key) with their number of results;
    narrowed to those ending in a range, of one status, or in which a player (database id) has
    a result."""
    t = tournaments.c
    counted = (
        select(results.c.tournament_id, func.count().label("n"))
        .group_by(results.c.tournament_id)
        .subquery()
    )
    query = (
        select(
            t.key, t.name, t.start_date, t.end_date, t.tier, t.status,
            func.coalesce(counted.c.n, 0), t.source_format, t.imported_at, t.imported_by,
        )
        .outerjoin(counted, counted.c.tournament_id == t.id)
        .order_by(t.end_date, t.start_date, t.key)
    )  # fmt: skip
    if ends_from is not None:
        query = query.where(t.end_date >= ends_from)
    if ends_to is not None:
        query = query.where(t.end_date <= ends_to)
    if status is not None:
        query = query.where(t.status == status)
    if player is not None:
        query = query.where(
            t.id.in_(select(results.c.tournament_id).where(results.c.player_id == player))
        )
    return read_frame(connection, query, TOURNAMENT_LIST_SCHEMA)


@dataclass(frozen=True, slots=True)
class EventSource:
    """Where a tournament came from and when it was imported and rated."""

    source_name: str
    source_hash: str
    source_format: str
    imported_at: datetime
    imported_by: str
    rated_at: datetime | None


def event_source(connection: Connection, event: EventRow) -> EventSource:
    t = tournaments.c
    row = connection.execute(
        select(
            t.source_name, t.source_hash, t.source_format, t.imported_at, t.imported_by,
            t.rated_at,
        ).where(t.id == event.id)
    ).one()  # fmt: skip
    return EventSource(*row)


def event_lines(connection: Connection, event: EventRow) -> dict[str, tuple[int | None, str]]:
    """Each player's line in the event's file and name (by federation id), in the file's order."""
    r, p = results.c, players.c
    rows = connection.execute(
        select(p.federation_id, r.line, p.name)
        .join(players, p.id == r.player_id)
        .where(r.tournament_id == event.id)
        .order_by(r.line, r.player_id)
    )
    return {row[0]: (row[1], row[2]) for row in rows}


def event_standings(connection: Connection, event: EventRow) -> tuple[str, str | None]:
    """The event's file format and its standings record as stored (None: a results table, or a
    crosstable imported before the record was kept)."""
    t = tournaments.c
    row = connection.execute(select(t.source_format, t.standings).where(t.id == event.id)).one()
    return row[0], row[1]


@dataclass(frozen=True, slots=True)
class Deletion:
    key: str
    name: str
    results: int
    deleted_at: datetime
    deleted_by: str


def delete_tournament(connection: Connection, event: EventRow, by: str, now: datetime) -> Deletion:
    """Remove a wrongly imported tournament with its results and games, record it in the audit,
    and mark everything rated from its position on for a re-rating.

    Its rating changes stay until that re-rating: the ratings its players had before it are read
    from them, and the re-rating replaces every change from that position on."""
    t = tournaments.c
    source = event_source(connection, event)
    counts = connection.execute(
        select(
            select(func.count()).where(results.c.tournament_id == event.id).scalar_subquery(),
            select(func.count()).where(games.c.tournament_id == event.id).scalar_subquery(),
        )
    ).one()
    connection.execute(
        insert(tournament_deletions).values(
            key=event.key, name=event.name, start_date=event.start_date,
            end_date=event.end_date, status=event.status, results=int(counts[0]),
            games=int(counts[1]), source_name=source.source_name,
            source_hash=source.source_hash, imported_at=source.imported_at,
            imported_by=source.imported_by, deleted_at=now, deleted_by=by,
        )
    )  # fmt: skip
    # Explicitly, not by the keys' cascades: SQLite's connections here do not enforce them.
    connection.execute(delete(games).where(games.c.tournament_id == event.id))
    connection.execute(delete(results).where(results.c.tournament_id == event.id))
    connection.execute(
        delete(player_merge_results).where(player_merge_results.c.tournament_id == event.id)
    )
    connection.execute(delete(tournaments).where(t.id == event.id))
    if event.seq is not None:
        mark_rerate(connection, event.seq, f"tournament {event.key} was deleted")
    return Deletion(event.key, event.name, int(counts[0]), now, by)


def last_deletion(connection: Connection, key: str) -> Deletion | None:
    """The latest deletion of a tournament with this key, if it was ever deleted."""
    d = tournament_deletions.c
    row = connection.execute(
        select(d.key, d.name, d.results, d.deleted_at, d.deleted_by)
        .where(d.key == key)
        .order_by(d.deleted_at.desc(), d.id.desc())
        .limit(1)
    ).first()
    return Deletion(*row) if row is not None else None


def deletions(connection: Connection) -> pl.DataFrame:
    """Every recorded deletion of a tournament, newest first."""
    d = tournament_deletions.c
    query = select(*(d[name] for name in DELETION_SCHEMA)).order_by(
        d.deleted_at.desc(), d.id.desc()
    )
    return read_frame(connection, query, DELETION_SCHEMA)
