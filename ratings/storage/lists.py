"""Rating lists: the live ranking from the rating changes, and the published lists frozen from it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

import polars as pl
from sqlalchemy import Select, and_, insert, select
from sqlalchemy.engine import Connection

from ratings.storage.bulk import insert_frame
from ratings.storage.frames import ENTRY_SCHEMA, RANKING_SCHEMA, read_frame
from ratings.storage.schema import (
    list_entries,
    players,
    published_lists,
    rating_changes,
    tournaments,
)


def ranking(connection: Connection, as_of: date | None = None) -> pl.DataFrame:
    """Every rated player's exact rating, games, tournaments and last date played, counting the
    tournaments rated so far that ended on or before ``as_of`` (all of them when None)."""
    # The rating changes are read in one pass over the table's key and aggregated by polars: left
    # to group ten million changes by player, SQLite walked the (player, position) index and
    # looked every row up, which took a minute at federation scale.
    rated = tournaments.c.seq.is_not(None)
    ends = read_frame(
        connection,
        select(tournaments.c.seq, tournaments.c.end_date).where(
            rated if as_of is None else and_(rated, tournaments.c.end_date <= as_of)
        ),
        {"seq": pl.Int64, "end_date": pl.Date},
    )
    changes = select(
        rating_changes.c.player_id,
        rating_changes.c.seq,
        rating_changes.c.games,
        rating_changes.c.rating_after,
    )
    if as_of is not None:
        # Positions follow the end dates, so the list's changes are a range of the key.
        last = ends.select(pl.col("seq").max().fill_null(-1)).item()
        changes = changes.where(rating_changes.c.seq <= int(last))
    played = pl.col("games") > 0
    per_player = (
        read_frame(
            connection,
            changes,
            {"player_id": pl.Int64, "seq": pl.Int64, "games": pl.Int64, "rating": pl.Int64},
        )
        .join(ends, on="seq", how="inner")
        .group_by("player_id")
        .agg(
            pl.col("rating").get(pl.col("seq").arg_max()),
            pl.col("games").sum(),
            played.sum().cast(pl.Int64).alias("tournaments"),
            pl.col("end_date").filter(played).max().alias("last_played"),
        )
        .rename({"player_id": "id"})
    )
    people = read_frame(
        connection,
        select(
            players.c.id,
            players.c.federation_id,
            players.c.name,
            players.c.country,
            players.c.title,
        ).where(players.c.merged_into.is_(None)),
        {
            "id": pl.Int64,
            "player_id": pl.String,
            "name": pl.String,
            "country": pl.String,
            "title": pl.String,
        },
    )
    return (
        people.join(per_player, on="id", how="inner")
        .rename({"id": "player"})
        .select(*RANKING_SCHEMA)
    )


@dataclass(frozen=True, slots=True)
class ListInfo:
    id: int
    period: str
    version: int
    cutoff: date
    created_at: datetime
    created_by: str
    players: int
    active_players: int
    mean_rating: int
    initial_rating: int
    active_months: int
    previous_id: int | None
    replaces_id: int | None


def _list_query() -> Select[Any]:
    return select(*(published_lists.c[f] for f in ListInfo.__dataclass_fields__))


def latest_list(connection: Connection, period: str | None = None) -> ListInfo | None:
    """The newest version of ``period``'s list, or of the newest period when None."""
    query = _list_query().order_by(
        published_lists.c.period.desc(), published_lists.c.version.desc()
    )
    if period is not None:
        query = query.where(published_lists.c.period == period)
    row = connection.execute(query.limit(1)).first()
    return ListInfo(*row) if row is not None else None


def list_version(connection: Connection, period: str, version: int) -> ListInfo | None:
    row = connection.execute(
        _list_query().where(
            published_lists.c.period == period, published_lists.c.version == version
        )
    ).first()
    return ListInfo(*row) if row is not None else None


def list_by_id(connection: Connection, list_id: int) -> ListInfo:
    row = connection.execute(_list_query().where(published_lists.c.id == list_id)).one()
    return ListInfo(*row)


def previous_period_list(connection: Connection, period: str) -> ListInfo | None:
    """The newest version of the newest period before ``period``."""
    row = connection.execute(
        _list_query()
        .where(published_lists.c.period < period)
        .order_by(published_lists.c.period.desc(), published_lists.c.version.desc())
        .limit(1)
    ).first()
    return ListInfo(*row) if row is not None else None


def all_lists(connection: Connection) -> list[ListInfo]:
    rows = connection.execute(
        _list_query().order_by(published_lists.c.period, published_lists.c.version)
    ).all()
    return [ListInfo(*row) for row in rows]


def list_entries_of(connection: Connection, list_id: int) -> pl.DataFrame:
    query = select(
        list_entries.c.player_id, list_entries.c.federation_id, list_entries.c.name,
        list_entries.c.country, list_entries.c.title, list_entries.c.rating, list_entries.c.games,
        list_entries.c.tournaments, list_entries.c.last_played, list_entries.c.active,
        list_entries.c.previous_rating,
    ).where(list_entries.c.list_id == list_id)  # fmt: skip
    return read_frame(connection, query, ENTRY_SCHEMA)


def insert_list(connection: Connection, info: dict[str, Any], entries: pl.DataFrame) -> int:
    list_id = int(
        connection.execute(
            insert(published_lists).values(**info).returning(published_lists.c.id)
        ).scalar_one()
    )
    rows = entries.select(
        pl.lit(list_id, dtype=pl.Int64).alias("list_id"), pl.col("player").alias("player_id"),
        pl.col("player_id").alias("federation_id"), "name", "country", "title", "rating",
        "games", "tournaments", "last_played", "active", "previous_rating",
    )  # fmt: skip
    insert_frame(connection, list_entries, rows)
    return list_id
