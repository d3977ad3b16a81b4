"""Per-player totals: what a list shows of each player, kept current as rating changes are written.

A list shows each player's rating, games, tournaments played and the end date of the last one.
Aggregated from the rating changes, that is a read of every change ever made (ten million at
federation scale) for every list and export. The ``player_totals`` table holds the aggregate per
player instead, and :func:`follow` keeps it equal to the aggregate over ``rating_changes``: the
rating job calls it (through :func:`ratings.storage.changes.replace_rating_changes`, the one place
that writes changes) with the changes it removed and the ones it wrote, so only the players of the
re-rated range are touched, and a player's older changes are read only when the range took away
what their last rating or last tournament came from (a merge, a deleted or corrected result).

Anything else that moves rating changes between players outside the rating job keeps the table
true by calling :func:`recompute` for the players it touched (a merge does).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date
from typing import TYPE_CHECKING, Any

import polars as pl
from sqlalchemy import Column, Integer, MetaData, Table, delete, func, select
from sqlalchemy.engine import Connection

from ratings.storage.bulk import insert_frame, whole_table
from ratings.storage.frames import TOTALS_SCHEMA, read_frame
from ratings.storage.schema import player_totals, rating_changes, tournaments

if TYPE_CHECKING:
    import numpy as np

TAIL_SHARE = 4
"""A list whose cut-off leaves out more than a quarter of all changes (a list of a past period
published again) is aggregated from the changes up to its cut-off; otherwise the totals are taken
back by the changes after the cut-off."""

_CHANGE = {"player": pl.Int64, "seq": pl.Int64, "games": pl.Int64, "rating_after": pl.Int64}


def _column(table: Table, name: str) -> Any:
    """The column of ``table`` read into the frame column ``name``: a frame's ``player`` is the
    table's ``player_id``."""
    return table.c.player_id.label(name) if name == "player" else table.c[name]


def _as_stored(frame: pl.DataFrame) -> pl.DataFrame:
    """Totals (:data:`TOTALS_SCHEMA`) with their columns named as the table's, to be written."""
    return frame.rename({"player": "player_id"})


def _counts(prefix: str = "") -> list[pl.Expr]:
    """The counted totals of a group of changes: changes, games, and tournaments played (a change
    with games), each named with ``prefix``."""
    return [
        pl.len().cast(pl.Int64).alias(f"{prefix}changes"),
        pl.col("games").sum().cast(pl.Int64).alias(f"{prefix}games"),
        (pl.col("games") > 0).sum().cast(pl.Int64).alias(f"{prefix}tournaments"),
    ]


def aggregate(changes: pl.DataFrame) -> pl.DataFrame:
    """Totals of a frame of changes (``player``, ``seq``, ``games``, ``rating_after`` and the
    tournament's ``end_date``): a tournament counts as played when the change has games."""
    played = pl.col("games") > 0
    return (
        changes.group_by("player")
        .agg(
            *_counts(),
            pl.col("end_date").filter(played).max().alias("last_played"),
            pl.col("rating_after").get(pl.col("seq").arg_max()).alias("rating"),
        )
        .select(*TOTALS_SCHEMA)
        .cast(TOTALS_SCHEMA)  # type: ignore[arg-type]
    )


def aggregate_arrays(
    player_ids: np.ndarray[Any, Any],
    seq: np.ndarray[Any, Any],
    games: np.ndarray[Any, Any],
    rating_after: np.ndarray[Any, Any],
    ends: pl.DataFrame,
) -> pl.DataFrame | None:
    """:func:`aggregate` of changes given as arrays, each with its tournament's end date found by
    its position in ``ends`` (``seq``, ``end_date``): counted along each player's place among the
    distinct players instead of grouped and joined by polars, which costs more for the ten
    million changes of a full re-rating. None when a change's position is not in ``ends`` (the
    caller then aggregates as usual)."""
    import numpy as np  # a rating's work: the pages and lists that read totals never load it

    positions = ends["seq"].to_numpy().astype(np.int64, copy=False)
    if player_ids.size == 0 or positions.size == 0:
        return None
    seq = seq.astype(np.int64, copy=False)
    first = int(positions[0])
    # A run's positions follow one another: each change's is its place in ``ends``.
    if not bool((positions == np.arange(first, first + positions.size)).all()):
        return None
    at = seq - first
    if not bool(((at >= 0) & (at < positions.size)).all()):
        return None
    day = ends["end_date"].cast(pl.Int32).to_numpy().astype(np.int64, copy=False)[at]
    players, where = places(player_ids.astype(np.int64, copy=False))
    n, none = players.size, np.iinfo(np.int64).min
    games = games.astype(np.int64, copy=False)
    played = games > 0
    total_games = np.zeros(n, dtype=np.int64)
    np.add.at(total_games, where, games)
    # The rating after each player's last change: the one at the player's largest position.
    largest = np.full(n, none, dtype=np.int64)
    np.maximum.at(largest, where, seq)
    last = np.zeros(n, dtype=np.int64)
    is_last = seq == largest[where]
    last[where[is_last]] = np.flatnonzero(is_last)
    last_day = np.full(n, none, dtype=np.int64)
    np.maximum.at(last_day, where[played], day[played])
    return (
        pl.DataFrame(
            {
                "player": players,
                "changes": np.bincount(where, minlength=n).astype(np.int64),
                "games": total_games,
                "tournaments": np.bincount(where[played], minlength=n).astype(np.int64),
                "last_played": last_day,
                "rating": rating_after.astype(np.int64, copy=False)[last],
            }
        )
        .with_columns(
            pl.when(pl.col("last_played") != none)
            .then(pl.col("last_played"))
            .cast(pl.Int32)
            .cast(pl.Date)
        )
        .cast(TOTALS_SCHEMA)  # type: ignore[arg-type]
    )


DENSE_IDS = 4
"""Ids at most this many times the number of values are placed through an array as long as the
largest id (:func:`places`) instead of by sorting them."""


def places(ids: np.ndarray[Any, Any]) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """The distinct ``ids`` in order, and where each of ``ids`` is among them (``np.unique``
    with its inverse): ids come from a sequence and are usually dense, and then one pass marks
    them and one looks them up, much less work than sorting ten million."""
    import numpy as np

    low, high = int(ids.min()), int(ids.max())
    if low < 0 or high >= DENSE_IDS * max(ids.size, 1 << 16):
        players, where = np.unique(ids, return_inverse=True)
        return players, where.reshape(-1)
    seen = np.zeros(high + 1, dtype=np.bool_)
    seen[ids] = True
    players = np.flatnonzero(seen).astype(np.int64, copy=False)
    place = np.zeros(high + 1, dtype=np.int64)
    place[players] = np.arange(players.size, dtype=np.int64)
    return players, place[ids]


def read_totals(connection: Connection) -> pl.DataFrame:
    """Every player's stored totals."""
    query = select(*(_column(player_totals, name) for name in TOTALS_SCHEMA))
    return read_frame(connection, query, TOTALS_SCHEMA)


def from_changes(connection: Connection, last: int | None = None) -> pl.DataFrame:
    """The totals aggregated from the stored changes (up to position ``last``): what the table
    holds when it is true, and the way to a list cut off far back."""
    query = select(*(_column(rating_changes, name) for name in _CHANGE))
    if last is not None:
        query = query.where(rating_changes.c.seq <= last)
    ends = read_frame(
        connection,
        select(tournaments.c.seq, tournaments.c.end_date).where(tournaments.c.seq.is_not(None)),
        {"seq": pl.Int64, "end_date": pl.Date},
    )
    return aggregate(read_frame(connection, query, _CHANGE).join(ends, on="seq", how="left"))


def follow(
    connection: Connection,
    start: int,
    removed: pl.DataFrame | None,
    written: pl.DataFrame,
) -> None:
    """Bring the totals up to date after a rating run replaced every change from ``start`` on:
    ``removed`` holds the ``player`` and ``games`` of the changes it deleted (None when it
    deleted all), ``written`` the new changes with their tournaments' ``end_date``."""
    new = aggregate(written)
    if removed is None:
        replace(connection, new)
        return
    old = removed.group_by("player").agg(_counts("o_"))
    affected = pl.concat([old.select("player"), new.select("player")]).unique()
    if affected.height == 0:
        return
    with _chosen(connection, affected["player"]) as chosen:
        # Looked up by membership, as the delete below: joined, SQLite read every player's
        # totals and looked each up among the chosen.
        stored = read_frame(
            connection,
            select(*(_column(player_totals, name) for name in TOTALS_SCHEMA)).where(
                player_totals.c.player_id.in_(select(chosen.c.id))
            ),
            TOTALS_SCHEMA,
        )
        connection.execute(
            delete(player_totals).where(player_totals.c.player_id.in_(select(chosen.c.id)))
        )
    counts = ("changes", "games", "tournaments")
    both = (
        affected.join(stored, on="player", how="left")
        .join(old, on="player", how="left")
        .join(
            new.rename({c: f"n_{c}" for c in new.columns if c != "player"}),
            on="player",
            how="left",
        )
        .with_columns(
            pl.col(*counts, *(f"o_{c}" for c in counts), *(f"n_{c}" for c in counts)).fill_null(0)
        )
        .with_columns((pl.col(c) - pl.col(f"o_{c}") + pl.col(f"n_{c}")).alias(c) for c in counts)
    )
    # The new changes are the player's last, so their rating and last played date hold; without
    # them the rating comes from an older change, and so does the last played date when the
    # removed changes had games and the new ones none.
    last_gone = (
        pl.col("n_last_played").is_null()
        & (pl.col("o_tournaments") > 0)
        & (pl.col("tournaments") > 0)
    )
    again = (
        ((pl.col("n_changes") == 0) & (pl.col("changes") > 0))
        | last_gone
        | (pl.min_horizontal(*counts) < 0)
    )
    kept = both.filter(~again & (pl.col("changes") > 0)).select(
        "player",
        *counts,
        pl.coalesce("n_last_played", pl.when(pl.col("tournaments") > 0).then("last_played")).alias(
            "last_played"
        ),
        pl.coalesce("n_rating", "rating").alias("rating"),
    )
    redo = both.filter(again)["player"]
    if redo.len():
        older = _changes_of(connection, redo, before=start)
        fresh = written.filter(pl.col("player").is_in(redo.implode()))
        again_totals = aggregate(pl.concat([older, fresh.select(older.columns)]))
        kept = pl.concat([kept.cast(TOTALS_SCHEMA), again_totals])  # type: ignore[arg-type]
    # In key order: each row goes next to the last one written, not to a random page.
    rows = kept.select(*TOTALS_SCHEMA).cast(TOTALS_SCHEMA).sort("player")  # type: ignore[arg-type]
    insert_frame(connection, player_totals, _as_stored(rows))


def replace(connection: Connection, new: pl.DataFrame) -> None:
    """Every player's totals replaced by ``new`` (from :func:`aggregate`)."""
    whole_table.replace_all(connection, player_totals, _as_stored(new))


def recompute(connection: Connection, player_ids: list[int]) -> None:
    """Set the totals of these players from all their stored changes."""
    ids = pl.Series("player", player_ids, dtype=pl.Int64)
    connection.execute(delete(player_totals).where(player_totals.c.player_id.in_(player_ids)))
    insert_frame(connection, player_totals, _as_stored(aggregate(_changes_of(connection, ids))))


def totals_at(connection: Connection, as_of: date | None) -> pl.DataFrame:
    """Each player's totals over the changes of tournaments rated so far that ended on or before
    ``as_of`` (over all changes when None); players without such a change are left out."""
    stored = read_totals(connection)
    if as_of is None:
        return stored
    last_seq = connection.execute(
        select(func.max(tournaments.c.seq)).where(
            tournaments.c.seq.is_not(None), tournaments.c.end_date <= as_of
        )
    ).scalar()
    last = -1 if last_seq is None else int(last_seq)
    # Positions follow the end dates: what the list leaves out is a range of the key.
    tail = read_frame(
        connection,
        select(
            rating_changes.c.player_id.label("player"),
            rating_changes.c.seq,
            rating_changes.c.games,
            rating_changes.c.rating_before,
        ).where(rating_changes.c.seq > last),
        {"player": pl.Int64, "seq": pl.Int64, "games": pl.Int64, "rating_before": pl.Int64},
    )
    if tail.height == 0:
        return stored
    if tail.height * TAIL_SHARE > int(stored["changes"].sum()):
        return from_changes(connection, last)
    after = (
        tail.sort("seq")
        .group_by("player")
        .agg(
            *_counts("a_"),
            pl.col("rating_before").first().alias("a_rating"),
        )
    )
    counts = ("changes", "games", "tournaments")
    taken = (
        stored.join(after, on="player", how="left")
        .with_columns(pl.col(*(f"a_{c}" for c in counts)).fill_null(0))
        .with_columns((pl.col(c) - pl.col(f"a_{c}")).alias(c) for c in counts)
        .filter(pl.col("changes") > 0)
        .with_columns(
            pl.coalesce("a_rating", "rating").alias("rating"),
            pl.when(pl.col("tournaments") == 0)
            .then(None)
            .otherwise("last_played")
            .alias("last_played"),
        )
    )
    # Who played after the cut-off and before it too: their last tournament before it is found
    # through the (player, position) index.
    redo = taken.filter((pl.col("a_tournaments") > 0) & (pl.col("tournaments") > 0))["player"]
    if redo.len():
        played = _last_played(connection, redo, last)
        taken = taken.join(played, on="player", how="left", suffix="_before").with_columns(
            pl.when(pl.col("player").is_in(redo.implode()))
            .then("last_played_before")
            .otherwise("last_played")
            .alias("last_played")
        )
    return taken.select(*TOTALS_SCHEMA).cast(TOTALS_SCHEMA)  # type: ignore[arg-type]


@contextmanager
def _chosen(connection: Connection, ids: pl.Series) -> Iterator[Table]:
    """A temporary table of player ids, to join to: a list of a hundred thousand ids is beyond
    what SQLite takes as parameters."""
    name = "_totals_players"
    table = Table(name, MetaData(), Column("id", Integer, primary_key=True))
    connection.exec_driver_sql(f"CREATE TEMPORARY TABLE {name} (id integer PRIMARY KEY)")
    try:
        insert_frame(connection, table, pl.DataFrame({"id": ids.unique()}), rebuild=False)
        # Analysed here however few they are. Without its size known, SQLite takes the table
        # for a million rows and walks the whole (player, position) index looking each player
        # up in it (a second for a month's five thousand players on a medium history) instead
        # of looking up each chosen player.
        connection.exec_driver_sql(f"ANALYZE {name}")
        yield table
    finally:
        connection.exec_driver_sql(f"DROP TABLE {name}")


def _changes_of(connection: Connection, ids: pl.Series, before: int | None = None) -> pl.DataFrame:
    """The changes of these players (before position ``before``) with their tournaments' end
    dates, read through the (player, position) index."""
    c = rating_changes.c
    with _chosen(connection, ids) as chosen:
        query = (
            select(
                c.player_id.label("player"), c.seq, c.games, c.rating_after, tournaments.c.end_date
            )
            .join(chosen, chosen.c.id == c.player_id)
            .outerjoin(tournaments, tournaments.c.seq == c.seq)
        )
        if before is not None:
            query = query.where(c.seq < before)
        return read_frame(connection, query, {**_CHANGE, "end_date": pl.Date})


def _last_played(connection: Connection, ids: pl.Series, last: int) -> pl.DataFrame:
    """The end date of each player's last tournament with games up to position ``last``."""
    c = rating_changes.c
    with _chosen(connection, ids) as chosen:
        # Asked player by player, the newest change with games is found walking back from the
        # cut-off in the (player, position) index: usually the first one met.
        newest = (
            select(func.max(c.seq))
            .where(c.player_id == chosen.c.id, c.seq <= last, c.games > 0)
            .scalar_subquery()
        )
        latest = select(chosen.c.id.label("player_id"), newest.label("seq")).subquery()
        query = select(latest.c.player_id.label("player"), tournaments.c.end_date).join(
            tournaments, tournaments.c.seq == latest.c.seq
        )
        return read_frame(connection, query, {"player": pl.Int64, "last_played": pl.Date})
