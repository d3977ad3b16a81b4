"""What a rating run writes: its rating changes (and with them every player's totals) and each
rated tournament's stamps, in the order a run from the first position needs."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

import polars as pl
from sqlalchemy import delete, select
from sqlalchemy.engine import Connection

from ratings.storage import totals
from ratings.storage.bulk import (
    REBUILD_INDEXES_FROM,
    analyze,
    columnar,
    insert_frame,
    update_from_frame,
    whole_table,
)
from ratings.storage.frames import HELD_STAMPS, read_frame
from ratings.storage.schema import rating_changes, tournaments

if TYPE_CHECKING:
    import numpy as np


def write_changes(
    connection: Connection,
    start: int,
    columns: dict[str, np.ndarray[Any, Any]],
    ends: pl.DataFrame,
    stamps: pl.DataFrame,
    now: datetime,
    held: pl.DataFrame | None = None,
) -> None:
    """Write a run's rating changes from position ``start`` (:func:`replace_rating_changes`) and
    its tournaments' stamps (:func:`mark_rated`; ``held``: the stamps as stored, read by a run
    from the first position). From the first position every change is written again and only
    the stamps that changed; on SQLite the changes' rows file is written by another thread
    meanwhile (:func:`.whole_table.staged`), so the tournaments go first."""
    if start == 0:
        with whole_table.staged(connection, rating_changes, pl.DataFrame(columns)):
            mark_rated(connection, stamps, now, held)
            replace_rating_changes(connection, start, columns, ends)
    else:
        replace_rating_changes(connection, start, columns, ends)
        mark_rated(connection, stamps, now)


def replace_rating_changes(
    connection: Connection,
    start: int,
    columns: dict[str, np.ndarray[Any, Any]],
    ends: pl.DataFrame,
) -> None:
    """Drop every rating change at or after ``start`` and write the new ones, and bring every
    player's totals up to date with them; ``ends`` holds the ``end_date`` of the tournament rated
    at each new position ``seq``. From the first position the table is emptied and written whole
    (:func:`.whole_table.replace_all`)."""
    written = pl.DataFrame(columns)
    removed = None
    if start == 0:
        # The totals first: on SQLite the changes' rows file may still be being written
        # (:func:`.whole_table.staged`), and the totals need nothing of the table.
        new = totals.aggregate_arrays(
            columns["player_id"], columns["seq"], columns["games"], columns["rating_after"], ends
        )
        totals.replace(
            connection, totals.aggregate(_with_ends(written, ends)) if new is None else new
        )
        whole_table.replace_all(connection, rating_changes, written)
        return
    else:
        removed = read_frame(
            connection,
            select(rating_changes.c.player_id.label("player"), rating_changes.c.games).where(
                rating_changes.c.seq >= start
            ),
            {"player": pl.Int64, "games": pl.Int64},
        )
        connection.execute(delete(rating_changes).where(rating_changes.c.seq >= start))
        insert_frame(connection, rating_changes, written)
    totals.follow(connection, start, removed, _with_ends(written, ends))


def _with_ends(written: pl.DataFrame, ends: pl.DataFrame) -> pl.DataFrame:
    """The written changes (named as the table's columns) as :func:`.totals.aggregate` takes
    them."""
    return written.select(pl.col("player_id").alias("player"), "seq", "games", "rating_after").join(
        ends, on="seq"
    )


def held_stamps(connection: Connection, reader: columnar.Reader | None = None) -> pl.DataFrame:
    """Every tournament's stamps as stored (what :func:`mark_rated` writes but the time)."""
    query = select(
        tournaments.c.id,
        tournaments.c.seq,
        tournaments.c.k,
        tournaments.c.m_avg,
        tournaments.c.b_avg,
        tournaments.c.status,
    )
    return (reader or columnar.Reader(connection)).read(query, HELD_STAMPS)


def mark_rated(
    connection: Connection, rated: pl.DataFrame, now: datetime, held: pl.DataFrame | None = None
) -> None:
    """Record each tournament's position and what its rating used: a frame of ``id``, ``seq``,
    ``k``, ``m_avg`` and ``b_avg``, rated at ``now``. Given the stamps ``held`` before
    (:func:`held_stamps`, read by a run that stamps most tournaments), only those that change
    are written, and when they are most of the table, with its indexes built again afterwards
    (:func:`.whole_table.updating_most`).

    A tournament rated again with its place, k and averages as they were keeps the time it was
    rated (``rated_at``): nothing of its rating changed. A full re-rating that changes nothing
    writes nothing (it restamped every tournament, 0.9 s of 4.3 on PostgreSQL for 45,000), and a
    director's submission stays on the list it first appeared on, which is found by that time
    (``storage.submissions``)."""
    frame = rated.select("id", "seq", "k", "m_avg", "b_avg").with_columns(
        pl.lit("rated").alias("status"), pl.lit(now).alias("rated_at")
    )
    if held is None:
        update_from_frame(connection, tournaments, frame)
        return
    frame = _changed_stamps(frame, held)
    # The statistics must learn of tournaments no longer pending, once: after the indexes are
    # built again around an update of most of them (PostgreSQL), or by the update when it
    # changed a tenth of the table or more, or else here below the rebuild's size (a full
    # re-rating analysed them twice, 0.18 s each on PostgreSQL for 45,000 tournaments).
    with whole_table.updating_most(connection, tournaments, frame.height) as rebuilt:
        analysed = update_from_frame(connection, tournaments, frame, analyse=not rebuilt)
    if 0 < frame.height < REBUILD_INDEXES_FROM and not (analysed or rebuilt):
        analyze(connection, tournaments.name)


def _changed_stamps(frame: pl.DataFrame, held: pl.DataFrame) -> pl.DataFrame:
    """The rows of ``frame`` whose stamps differ from those ``held``: a tournament not rated
    before, or rated with another place, k or averages."""
    values = ("seq", "k", "m_avg", "b_avg")
    kept = held.select(
        "id",
        *(pl.col(name).alias(f"held_{name}") for name in values),
        (pl.col("status") == "rated").fill_null(False).alias("held_rated"),
    )
    same = pl.all_horizontal(
        pl.col("held_rated").fill_null(False),
        *(pl.col(name).eq_missing(pl.col(f"held_{name}")) for name in values),
    )
    return (
        frame.join(kept, on="id", how="left", maintain_order="left")
        .filter(~same)
        .select(frame.columns)
    )
