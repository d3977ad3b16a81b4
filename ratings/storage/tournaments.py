"""Tournaments and their results and games: importing, correcting, and what waits to be rated."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

import polars as pl
from sqlalchemy import delete, func, select, update
from sqlalchemy.engine import Connection

from ratings.storage import frames
from ratings.storage.bulk import insert_frame, insert_rows
from ratings.storage.frames import STORED_BUCHHOLZ, chunks, read_frame
from ratings.storage.schema import games, players, results, tournaments
from ratings.storage.window import mark_rerate


@dataclass(frozen=True, slots=True)
class StoredTournament:
    id: int
    key: str
    seq: int | None
    status: str


def tournaments_by_key(connection: Connection, keys: Sequence[str]) -> dict[str, StoredTournament]:
    found: dict[str, StoredTournament] = {}
    if len(keys) > frames.WHOLE_TABLE_FROM:
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


def insert_tournaments(connection: Connection, frame: pl.DataFrame) -> None:
    """Frame columns: key, name, start_date, end_date, tier, source_name, source_hash,
    source_format, imported_at, imported_by."""
    columns = [
        "key", "name", "start_date", "end_date", "tier", "source_name", "source_hash",
        "source_format", "imported_at", "imported_by",
    ]  # fmt: skip
    insert_frame(connection, tournaments, frame.select(*columns, pl.lit("pending").alias("status")))


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


def insert_results(connection: Connection, frame: pl.DataFrame) -> None:
    """Frame columns: tournament, player, line, wins, draws, losses, buchholz, title."""
    rows = frame.select(
        pl.col("tournament").alias("tournament_id"), pl.col("player").alias("player_id"),
        "line", "wins", "draws", "losses", "buchholz", "title",
    )  # fmt: skip
    insert_frame(connection, results, rows)


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
    return int(
        connection.execute(
            select(func.count()).select_from(tournaments).where(tournaments.c.status == "pending")
        ).scalar_one()
    )


def pending_until(connection: Connection, cutoff: date) -> list[str]:
    """Keys of tournaments ending on or before ``cutoff`` that are not rated yet."""
    query = (
        select(tournaments.c.key)
        .where(tournaments.c.status == "pending", tournaments.c.end_date <= cutoff)
        .order_by(tournaments.c.end_date, tournaments.c.key)
    )
    return list(connection.execute(query).scalars())
