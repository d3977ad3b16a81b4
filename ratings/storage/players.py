"""Players: creating and updating them, looking them up, and merging duplicates."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

import polars as pl
from sqlalchemy import func, insert, select, update
from sqlalchemy.engine import Connection

from ratings.storage import frames
from ratings.storage.bulk import insert_frame, update_by_id, update_from_frame
from ratings.storage.frames import KNOWN_SCHEMA, SEEDING_SCHEMA, chunks, read_frame
from ratings.storage.schema import player_merges, players, rating_changes, results, tournaments


def known_players(connection: Connection) -> pl.DataFrame:
    query = select(
        players.c.id, players.c.federation_id, players.c.name_key, players.c.country,
        players.c.merged_into,
    )  # fmt: skip
    return read_frame(connection, query, KNOWN_SCHEMA)


def insert_players(connection: Connection, frame: pl.DataFrame, now: datetime) -> None:
    """Create players from a frame with federation_id, name, name_key, country, club columns."""
    if frame.height == 0:
        return
    rows = frame.select(
        "federation_id", "name", "name_key", "country", "club", pl.lit(now).alias("created_at")
    )
    insert_frame(connection, players, rows)


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


def player_by_federation_id(connection: Connection, federation_id: str) -> PlayerRow | None:
    row = connection.execute(
        select(
            players.c.id, players.c.federation_id, players.c.name, players.c.country,
            players.c.club, players.c.title, players.c.title_date, players.c.merged_into,
            players.c.rating,
        ).where(players.c.federation_id == federation_id)
    ).first()  # fmt: skip
    return PlayerRow(*row) if row is not None else None


def update_players(
    connection: Connection, rows: Sequence[Sequence[Any]], columns: Sequence[str]
) -> None:
    update_by_id(connection, players, columns, rows)


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


def record_merge(connection: Connection, kept: int, duplicate: int, by: str, now: datetime) -> None:
    connection.execute(
        insert(player_merges).values(
            kept_id=kept, duplicate_id=duplicate, merged_at=now, merged_by=by
        )
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
    """Move every result and rating change of ``duplicate`` to ``kept``; mark the duplicate merged."""
    connection.execute(
        update(results).where(results.c.player_id == duplicate).values(player_id=kept)
    )
    connection.execute(
        update(rating_changes).where(rating_changes.c.player_id == duplicate).values(player_id=kept)
    )
    connection.execute(
        update(players).where(players.c.merged_into == duplicate).values(merged_into=kept)
    )
    connection.execute(
        update(players).where(players.c.id == duplicate).values(merged_into=kept, rating=None)
    )


def seeding_players(connection: Connection) -> pl.DataFrame:
    """Every player with the current exact rating (null for a player never rated)."""
    query = select(
        players.c.federation_id, players.c.name, players.c.name_key, players.c.country,
        players.c.title, players.c.rating,
    ).where(players.c.merged_into.is_(None))  # fmt: skip
    return read_frame(connection, query, SEEDING_SCHEMA)
