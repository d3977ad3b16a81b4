"""The audit rows read back whole, for judging the list: every rated tournament in rating
order, every rating change with the result it was made from, and the games of the events that
came as crosstables. Nothing here writes."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl
from sqlalchemy import select
from sqlalchemy.engine import Connection

from ratings.storage.bulk import columnar
from ratings.storage.frames import AUDIT_CHANGES, AUDIT_GAMES, AUDIT_TOURNAMENTS, read_frame
from ratings.storage.schema import games, rating_changes, tournaments

PLAYED = "game"
"""The kind of a round played over the board: the only rounds with a per-game expectation."""


def rated_tournaments(connection: Connection) -> pl.DataFrame:
    """Every rated tournament in rating order (its position): id, key, seq, tier, k, end date."""
    t = tournaments.c
    query = (
        select(t.id, t.key, t.seq, t.tier, t.k, t.end_date)
        .where(t.seq.is_not(None))
        .order_by(t.seq)
    )
    return read_frame(connection, query, AUDIT_TOURNAMENTS)


def rated_changes(connection: Connection, reader: columnar.Reader | None = None) -> pl.DataFrame:
    """Every rating change in the order it was made (position, then player): the rating before
    and after and E. Read alone, a range of the table's key, and joined to the results' counts by
    the caller (on SQLite a look-up of each change's result through its index took most of the
    read)."""
    c = rating_changes.c
    query = select(
        c.seq,
        c.tournament_id,
        c.player_id.label("player"),
        c.games,
        c.rating_before,
        c.rating_after,
        c.expected,
    ).order_by(c.seq, c.player_id)
    return (reader or columnar.Reader(connection)).read(query, AUDIT_CHANGES)


def played_games(
    connection: Connection, tournament_ids: Sequence[int] | None = None
) -> pl.DataFrame:
    """The games played over the board in rated tournaments (of ``tournament_ids`` only, when
    given), one row per player and game: each game twice, once from each side."""
    g = games.c
    query = (
        select(
            g.tournament_id,
            g.round,
            g.player_id.label("player"),
            g.opponent_id.label("opponent"),
            g.outcome,
        )
        .join(tournaments, tournaments.c.id == g.tournament_id)
        .where(g.kind == PLAYED, g.opponent_id.is_not(None), tournaments.c.seq.is_not(None))
        .order_by(g.tournament_id, g.round, g.player_id)
    )
    if tournament_ids is not None:
        query = query.where(g.tournament_id.in_(list(tournament_ids)))
    return read_frame(connection, query, AUDIT_GAMES)
