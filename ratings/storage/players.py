"""Players: creating and updating them, looking them up, and merging duplicates."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

import polars as pl
from sqlalchemy import Select, String, any_, bindparam, delete, func, insert, select, update
from sqlalchemy.engine import Connection

from ratings.storage import frames, totals
from ratings.storage.bulk import insert_frame, reserve_ids, update_by_id, update_from_frame
from ratings.storage.frames import (
    ALIAS_SCHEMA,
    IDENTIFIER_SCHEMA,
    KNOWN_SCHEMA,
    REGISTRY_SCHEMA,
    SEEDING_SCHEMA,
    chunks,
    read_frame,
)
from ratings.storage.schema import (
    games,
    player_aliases,
    player_identifiers,
    player_merge_results,
    player_merges,
    player_totals,
    players,
    rating_changes,
    results,
    tournaments,
)


def known_players(connection: Connection, among: Sequence[str] | None = None) -> pl.DataFrame:
    """Every player (``KNOWN_SCHEMA``); with ``among``, only those of these federation ids and
    whom they were merged into, when they are few against the registry (a month's file names
    tens of thousands of a million players: reading all of them was most of its import)."""
    columns = (
        players.c.id, players.c.federation_id, players.c.name, players.c.name_key,
        players.c.country, players.c.merged_into,
    )  # fmt: skip
    if among is not None:
        wanted = sorted(set(among))
        # The largest id stands for the registry's size (ids are never reused): one look into
        # the key, where counting read a million entries (slow on a cold disk).
        registry = connection.execute(select(func.max(players.c.id))).scalar_one() or 0
        if len(wanted) * NARROW_SHARE <= registry:
            query = select(*columns).where(_among(connection, players.c.federation_id, wanted))
            named = pl.DataFrame(connection.execute(query).all(), schema=KNOWN_SCHEMA, orient="row")
            merged = named["merged_into"].drop_nulls().unique()
            targets = merged.filter(~merged.is_in(named["id"].implode()))
            more = [
                read_frame(connection, select(*columns).where(players.c.id.in_(chunk)),
                           KNOWN_SCHEMA)
                for chunk in chunks(sorted(targets.to_list()), 5000)
            ]  # fmt: skip
            return pl.concat([named, *more]).sort("id")
    return read_frame(connection, select(*columns), KNOWN_SCHEMA)


def _among(connection: Connection, column: Any, values: list[str]) -> Any:
    """``column`` is one of ``values``, sent as one parameter (an array on PostgreSQL, a JSON
    array on SQLite) rather than as thousands of literals to compile and plan."""
    if connection.dialect.name == "postgresql":
        from sqlalchemy.dialects import postgresql

        return column == any_(bindparam("among", values, type_=postgresql.ARRAY(String)))
    each = func.json_each(bindparam("among", json.dumps(values))).table_valued("value")
    return column.in_(select(each.c.value))


NARROW_SHARE = 4
"""``known_players`` asks for the players it is given by their ids when they are at most this
fraction (one in ``NARROW_SHARE``) of the registry, else it reads the whole registry at once."""


def identifiers(connection: Connection) -> pl.DataFrame:
    """Every stored external id (player as database id, scheme, value)."""
    query = select(player_identifiers.c.player_id, player_identifiers.c.scheme,
                   player_identifiers.c.value)  # fmt: skip
    return read_frame(connection, query, IDENTIFIER_SCHEMA)


def aliases(connection: Connection) -> pl.DataFrame:
    """Every remembered spelling (scheme, spelling, player as database id)."""
    query = select(player_aliases.c.scheme, player_aliases.c.spelling, player_aliases.c.player_id)
    return read_frame(connection, query, ALIAS_SCHEMA)


def insert_identifiers(connection: Connection, frame: pl.DataFrame) -> None:
    """Store external ids from a frame with player (database id), scheme and value columns."""
    if frame.height:
        insert_frame(connection, player_identifiers, frame.rename({"player": "player_id"}))


def insert_aliases(
    connection: Connection,
    frame: pl.DataFrame,
    by: str,
    now: datetime,
    *,
    replacing: bool = True,
) -> None:
    """Remember spellings from a frame with scheme, spelling and player (database id) columns;
    a spelling remembered before is answered again: the new answer replaces it (``replacing``;
    without it the caller knows none of them is remembered, and they are written in bulk)."""
    if frame.height == 0:
        return
    frame = frame.unique(["scheme", "spelling"], keep="last", maintain_order=True)
    for scheme, spelling in frame.select("scheme", "spelling").iter_rows() if replacing else ():
        connection.execute(
            delete(player_aliases).where(
                player_aliases.c.scheme == scheme, player_aliases.c.spelling == spelling
            )
        )
    rows = frame.select(
        "scheme", "spelling", pl.col("player").alias("player_id"),
        pl.lit(now).alias("created_at"), pl.lit(by).alias("created_by"),
    )  # fmt: skip
    insert_frame(connection, player_aliases, rows)


@dataclass(frozen=True, slots=True)
class LastEvent:
    """A player's latest tournament, as the review and ``players show`` name it."""

    key: str
    name: str
    end_date: date

    def __str__(self) -> str:
        return f"{self.name} ({self.end_date:%Y-%m-%d})"


def rename(connection: Connection, pid: int, name: str, key: str) -> None:
    """Give a player a new name (and the matching key it folds to)."""
    connection.execute(update(players).where(players.c.id == pid).values(name=name, name_key=key))


def last_events(connection: Connection, ids: Sequence[int]) -> dict[int, LastEvent]:
    """The latest tournament of each of the given players, for the review."""
    found: dict[int, LastEvent] = {}
    for chunk in chunks(sorted(set(ids)), 5000):
        query = (
            select(
                results.c.player_id, tournaments.c.key, tournaments.c.name, tournaments.c.end_date
            )
            .join(tournaments, tournaments.c.id == results.c.tournament_id)
            .where(results.c.player_id.in_(chunk))
            .order_by(tournaments.c.end_date, tournaments.c.key)
        )
        for pid, key, name, end in connection.execute(query):
            found[pid] = LastEvent(key, name, end)
    return found


def insert_players(
    connection: Connection, frame: pl.DataFrame, now: datetime, ids: pl.Series | None = None
) -> pl.Series:
    """Create players from a frame with federation_id, name, name_key, country, club columns
    (and first_seen, when given), with ``ids`` (taken by ``imports.new_player_ids``, one per
    row) or with ids taken now; their database ids are returned, in the frame's order."""
    ids = (reserve_ids(connection, players, frame.height) if ids is None else ids).alias("id")
    if frame.height == 0:
        return ids
    extra = ["first_seen"] if "first_seen" in frame.columns else []
    rows = frame.select(
        ids, "federation_id", "name", "name_key", "country", "club", *extra,
        pl.lit(now).alias("created_at"),
    )  # fmt: skip
    if connection.dialect.name == "postgresql":
        # In the order of the unique federation ids: each entry of their index goes at its
        # end instead of on a page of its own (a million players from a history came in the
        # order of their first event). SQLite keeps the rows in the order of their ids.
        rows = rows.sort("federation_id")
    insert_frame(connection, players, rows, main=True)
    return ids


def player_ids(connection: Connection, federation_ids: Sequence[str]) -> dict[str, int]:
    """Database ids of the given federation ids (merged players resolve to whom they merged into)."""
    found: dict[str, int] = {}
    if len(federation_ids) > frames.WHOLE_TABLE_FROM:
        everyone = read_frame(
            connection,
            select(players.c.federation_id, func.coalesce(players.c.merged_into, players.c.id)),
            {"federation_id": pl.String, "id": pl.Int64},
        ).filter(
            pl.col("federation_id").is_in(
                pl.Series(list(federation_ids), dtype=pl.String).implode()
            )
        )
        return dict(zip(everyone["federation_id"], everyone["id"], strict=True))
    for chunk in chunks(list(federation_ids), 5000):
        query = select(
            players.c.federation_id, func.coalesce(players.c.merged_into, players.c.id)
        ).where(players.c.federation_id.in_(chunk))
        found.update(dict(connection.execute(query).all()))
    return found


@dataclass(frozen=True, slots=True)
class PlayerRow:
    id: int
    federation_id: str
    name: str
    country: str | None
    club: str | None
    title: str | None
    title_date: date | None
    merged_into: int | None
    rating: int | None


RATED = players.outerjoin(player_totals, player_totals.c.player_id == players.c.id)
"""Players beside their totals, whose ``rating`` is a player's current rating (null for a player
never rated): the one copy of it (migration 0017)."""


def _player_rows() -> Select[Any]:
    return select(
        players.c.id, players.c.federation_id, players.c.name, players.c.country,
        players.c.club, players.c.title, players.c.title_date, players.c.merged_into,
        player_totals.c.rating,
    ).select_from(RATED)  # fmt: skip


def player_by_federation_id(connection: Connection, federation_id: str) -> PlayerRow | None:
    query = _player_rows().where(players.c.federation_id == federation_id)
    row = connection.execute(query).first()
    return PlayerRow(*row) if row is not None else None


def player_by_id(connection: Connection, pid: int) -> PlayerRow:
    return PlayerRow(*connection.execute(_player_rows().where(players.c.id == pid)).one())


def federation_ids(connection: Connection, ids: Sequence[int]) -> dict[int, str]:
    """The federation ids of the given players (database ids)."""
    found: dict[int, str] = {}
    for chunk in chunks(sorted(set(ids)), 5000):
        query = select(players.c.id, players.c.federation_id).where(players.c.id.in_(chunk))
        found.update({int(pid): fid for pid, fid in connection.execute(query)})
    return found


def update_players(
    connection: Connection, rows: Sequence[Sequence[Any]], columns: Sequence[str]
) -> None:
    update_by_id(connection, players, columns, rows)


def registry_fields(connection: Connection, ids: Sequence[int]) -> pl.DataFrame:
    """The registry's fields of these players (``REGISTRY_SCHEMA``), as an update compares
    them: in chunks of ids, or the whole table once when they are many."""
    columns = (
        players.c.id, players.c.name, players.c.country, players.c.club, players.c.title,
        players.c.title_date,
    )  # fmt: skip
    wanted = sorted(set(ids))
    if len(wanted) > frames.WHOLE_TABLE_FROM:
        everyone = read_frame(connection, select(*columns), REGISTRY_SCHEMA)
        return everyone.filter(pl.col("id").is_in(pl.Series(wanted, dtype=pl.Int64).implode()))
    parts = [
        read_frame(connection, select(*columns).where(players.c.id.in_(chunk)), REGISTRY_SCHEMA)
        for chunk in chunks(wanted, 5000)
    ]
    return pl.concat(parts) if parts else pl.DataFrame(schema=REGISTRY_SCHEMA)


def update_fields(connection: Connection, frame: pl.DataFrame) -> None:
    """Set the players' columns the frame names (an ``id`` column, then one per field); a row
    whose values are already stored is not written."""
    update_from_frame(connection, players, frame)


def player_titles(
    connection: Connection, ids: Sequence[int]
) -> dict[int, tuple[str | None, date | None]]:
    query = select(players.c.id, players.c.title, players.c.title_date).where(
        players.c.id.in_(list(ids))
    )
    return {pid: (title, since) for pid, title, since in connection.execute(query)}


def set_first_seen(connection: Connection, first_seen: pl.DataFrame) -> None:
    """Lower ``first_seen`` to the given dates (frame: player, first_seen) where earlier."""
    update_from_frame(
        connection,
        players,
        first_seen.select(pl.col("player").alias("id"), "first_seen"),
        where="players.first_seen IS NULL OR src.first_seen < players.first_seen",
    )


def record_merge(connection: Connection, kept: int, duplicate: int, by: str, now: datetime) -> int:
    """Record a merge and the tournaments whose results it moves (call before moving them)."""
    merge_id = int(
        connection.execute(
            insert(player_merges)
            .values(
                kept_id=kept,
                duplicate_id=duplicate,
                merged_at=now,
                merged_by=by,
                results_recorded=True,
            )
            .returning(player_merges.c.id)
        ).scalar_one()
    )
    played = select(results.c.tournament_id).where(results.c.player_id == duplicate)
    for chunk in chunks(list(connection.execute(played).scalars()), 5000):
        connection.execute(
            insert(player_merge_results),
            [{"merge_id": merge_id, "tournament_id": t} for t in chunk],
        )
    return merge_id


@dataclass(frozen=True, slots=True)
class MergeRow:
    id: int
    kept_id: int
    merged_at: datetime
    merged_by: str
    results_recorded: bool


def standing_merge(connection: Connection, duplicate: int) -> MergeRow | None:
    """The merge (not undone) that made ``duplicate`` part of another player, if any."""
    m = player_merges.c
    row = connection.execute(
        select(m.id, m.kept_id, m.merged_at, m.merged_by, m.results_recorded)
        .where(m.duplicate_id == duplicate, m.undone_at.is_(None))
        .order_by(m.merged_at.desc(), m.id.desc())
        .limit(1)
    ).first()
    if row is None:
        return None
    return MergeRow(int(row[0]), int(row[1]), row[2], row[3], bool(row[4]))


def merged_tournaments(connection: Connection, merge_id: int) -> list[int]:
    """Database ids of the tournaments whose results the merge moved (those still stored)."""
    query = select(player_merge_results.c.tournament_id).where(
        player_merge_results.c.merge_id == merge_id
    )
    return sorted(int(t) for t in connection.execute(query).scalars())


def undo_merge(
    connection: Connection,
    merge: MergeRow,
    duplicate: int,
    holder: int,
    tournament_ids: Sequence[int],
    by: str,
    now: datetime,
) -> None:
    """Give ``duplicate`` back its results and games in ``tournament_ids`` (held by ``holder``,
    whom the duplicate resolves to now), and the players once merged into it; record the undo."""
    for chunk in chunks(list(tournament_ids), 5000):
        connection.execute(
            update(results)
            .where(results.c.tournament_id.in_(chunk), results.c.player_id == holder)
            .values(player_id=duplicate)
        )
        connection.execute(
            update(games)
            .where(games.c.tournament_id.in_(chunk), games.c.player_id == holder)
            .values(player_id=duplicate)
        )
        connection.execute(
            update(games)
            .where(games.c.tournament_id.in_(chunk), games.c.opponent_id == holder)
            .values(opponent_id=duplicate)
        )
    # Players merged into the duplicate before it was merged itself (and those merged into
    # them, at any depth) follow it back.
    absorbed: list[int] = []
    frontier = [duplicate]
    while frontier:
        frontier = [
            int(pid)
            for pid in connection.execute(
                select(player_merges.c.duplicate_id).where(
                    player_merges.c.kept_id.in_(frontier), player_merges.c.undone_at.is_(None)
                )
            ).scalars()
        ]
        absorbed += frontier
    for chunk in chunks(absorbed, 5000):
        connection.execute(
            update(players).where(players.c.id.in_(chunk)).values(merged_into=duplicate)
        )
    connection.execute(update(players).where(players.c.id == duplicate).values(merged_into=None))
    connection.execute(
        update(player_merges)
        .where(player_merges.c.id == merge.id)
        .values(undone_at=now, undone_by=by)
    )


def shared_tournaments(connection: Connection, first: int, second: int) -> list[str]:
    """Keys of tournaments in which both players have a result."""
    a = results.alias("a")
    b = results.alias("b")
    query = (
        select(tournaments.c.key)
        .join(a, a.c.tournament_id == tournaments.c.id)
        .join(b, b.c.tournament_id == tournaments.c.id)
        .where(a.c.player_id == first, b.c.player_id == second)
        .order_by(tournaments.c.end_date)
    )
    return list(connection.execute(query).scalars())


def reassign_player(connection: Connection, kept: int, duplicate: int) -> None:
    """Move every result, game and rating change of ``duplicate`` to ``kept``; mark the duplicate
    merged."""
    connection.execute(
        update(results).where(results.c.player_id == duplicate).values(player_id=kept)
    )
    connection.execute(
        update(rating_changes).where(rating_changes.c.player_id == duplicate).values(player_id=kept)
    )
    connection.execute(update(games).where(games.c.player_id == duplicate).values(player_id=kept))
    connection.execute(
        update(games).where(games.c.opponent_id == duplicate).values(opponent_id=kept)
    )
    connection.execute(
        update(players).where(players.c.merged_into == duplicate).values(merged_into=kept)
    )
    connection.execute(update(players).where(players.c.id == duplicate).values(merged_into=kept))
    totals.recompute(connection, [kept, duplicate])


def seeding_players(connection: Connection) -> pl.DataFrame:
    """Every player with the current exact rating (null for a player never rated)."""
    query = (
        select(
            players.c.federation_id, players.c.name, players.c.name_key, players.c.country,
            players.c.title, player_totals.c.rating,
        )
        .select_from(RATED)
        .where(players.c.merged_into.is_(None))
    )  # fmt: skip
    return read_frame(connection, query, SEEDING_SCHEMA)


@dataclass(frozen=True, slots=True)
class PlayerRecord:
    """What is stored about a player besides results: external ids, aliases and merges."""

    identifiers: list[tuple[str, str]]
    """(scheme, value)"""
    aliases: list[tuple[str, str]]
    """(scheme, spelling)"""
    merged: list[tuple[str, datetime, str]]
    """Players merged into this one: (federation id, when, by whom)."""


def player_record(connection: Connection, pid: int) -> PlayerRecord:
    ids = connection.execute(
        select(player_identifiers.c.scheme, player_identifiers.c.value)
        .where(player_identifiers.c.player_id == pid)
        .order_by(player_identifiers.c.scheme, player_identifiers.c.value)
    ).all()
    spellings = connection.execute(
        select(player_aliases.c.scheme, player_aliases.c.spelling)
        .where(player_aliases.c.player_id == pid)
        .order_by(player_aliases.c.scheme, player_aliases.c.spelling)
    ).all()
    merges = connection.execute(
        select(players.c.federation_id, player_merges.c.merged_at, player_merges.c.merged_by)
        .join(players, players.c.id == player_merges.c.duplicate_id)
        .where(player_merges.c.kept_id == pid, player_merges.c.undone_at.is_(None))
        .order_by(player_merges.c.merged_at)
    ).all()
    return PlayerRecord(
        [(a, b) for a, b in ids], [(a, b) for a, b in spellings], [(a, b, c) for a, b, c in merges]
    )


def activity(connection: Connection, pid: int) -> tuple[int, int]:
    """How many tournaments a player has results in, and how many games those results count."""
    row = connection.execute(
        select(
            func.count(),
            func.coalesce(func.sum(results.c.wins + results.c.draws + results.c.losses), 0),
        ).where(results.c.player_id == pid)
    ).one()
    return int(row[0]), int(row[1])
