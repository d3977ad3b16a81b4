"""The rating window and the rating changes: from which position a rating run rates again,
what it reads and starts from, and the changes read back (what it writes is :mod:`.changes`'s)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from contextlib import AbstractContextManager
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

import polars as pl
from sqlalchemy import (
    and_,
    func,
    insert,
    literal,
    or_,
    select,
    true,
    tuple_,
    update,
)
from sqlalchemy.engine import Connection

from ratings.storage.bulk import columnar
from ratings.storage.frames import (
    HISTORY_SCHEMA,
    PLAYER_RATINGS,
    WINDOW_PLAYERS,
    WINDOW_RESULTS,
    WINDOW_TOURNAMENTS,
    read_frame,
)
from ratings.storage.schema import (
    player_totals,
    players,
    rating_changes,
    rating_state,
    results,
    tournaments,
)

if TYPE_CHECKING:
    from ratings.parameters import MeloParams

REASONS_KEPT = 3
"""How many reasons for a pending re-rating are named; more are counted."""


def mark_rerate(connection: Connection, seq: int, reason: str) -> None:
    """Remember that everything rated at position ``seq`` or later must be rated again, and why."""
    current = connection.execute(
        select(rating_state.c.rerate_from_seq, rating_state.c.rerate_reason).where(
            rating_state.c.id == 1
        )
    ).first()
    if current is None:
        connection.execute(
            insert(rating_state).values(id=1, rerate_from_seq=seq, rerate_reason=reason)
        )
        return
    marked, reasons = current
    connection.execute(
        update(rating_state)
        .where(rating_state.c.id == 1)
        .values(
            rerate_from_seq=seq if marked is None else min(int(marked), seq),
            rerate_reason=_add_reason(reasons if marked is not None else None, reason),
        )
    )


def _add_reason(reasons: str | None, reason: str) -> str:
    named = [] if not reasons else reasons.split("; ")
    more = 0
    if named and named[-1].startswith("and ") and named[-1].endswith(" more"):
        more = int(named.pop()[4:-5])
    if reason in named:
        return "; ".join(named + ([f"and {more} more"] if more else []))
    if len(named) < REASONS_KEPT:
        named.append(reason)
    else:
        more += 1
    return "; ".join(named + ([f"and {more} more"] if more else []))


def pending_rerate(connection: Connection) -> tuple[int, str] | None:
    """The position a re-rating must start from and why, or None when none is marked."""
    row = connection.execute(
        select(rating_state.c.rerate_from_seq, rating_state.c.rerate_reason).where(
            rating_state.c.id == 1
        )
    ).first()
    if row is None or row[0] is None:
        return None
    return int(row[0]), row[1] or "a change to the rated history"


def clear_rerate(connection: Connection) -> None:
    connection.execute(update(rating_state).values(rerate_from_seq=None, rerate_reason=None))


def rating_parameters(connection: Connection) -> str | None:
    """The parameters the current ratings were computed with (as stored), or None if unknown."""
    return connection.execute(
        select(rating_state.c.parameters).where(rating_state.c.id == 1)
    ).scalar()


def set_rating_parameters(connection: Connection, parameters: str) -> None:
    found = connection.execute(select(rating_state.c.id).where(rating_state.c.id == 1)).first()
    if found is None:
        connection.execute(insert(rating_state).values(id=1, parameters=parameters))
    else:
        connection.execute(
            update(rating_state).where(rating_state.c.id == 1).values(parameters=parameters)
        )


def parameters_text(params: MeloParams) -> str:
    """The parameters as the rating state stores them: JSON, keys sorted."""
    return json.dumps(asdict(params), sort_keys=True)


def changed_parameters(connection: Connection, params: MeloParams) -> str | None:
    """Which parameters differ from those the current ratings were computed with (``k_regular 5
    -> 6``), or None when they are the same or nothing was rated with known parameters."""
    stored = rating_parameters(connection)
    if stored is None:
        return None
    before = json.loads(stored)
    now = asdict(params)
    changed = [
        f"{name} {before.get(name)} -> {value}"
        for name, value in now.items()
        if before.get(name) != value
    ]
    return ", ".join(changed) or None


def window_start(connection: Connection) -> int | None:
    """The first position to rate again, or None when nothing is pending or marked.

    It is the earliest of: the position marked by a correction or a merge, and the position of the
    first rated tournament that comes after the earliest pending one in (end, start, key) order.

    A tournament is pending exactly when it has no position (importing and correcting one clear
    it, rating one sets both), and the rated tournaments' positions follow their order (a run
    rates its window in order, and its window holds every rated tournament that comes after a
    pending one). So both are found through an index: the pending ones through the position's,
    the first rated one after them as the next in order. Asked by status, and for the smallest
    position of all that come later, the database walked every tournament ever rated.
    """
    marked = connection.execute(
        select(rating_state.c.rerate_from_seq).where(rating_state.c.id == 1)
    ).scalar()
    order = (tournaments.c.end_date, tournaments.c.start_date, tournaments.c.key)
    # PostgreSQL, told to stop at the first, walked the (end, start, key) index from the oldest
    # tournament, expecting pending ones all along it; they are the newest. Kept apart, they are
    # found through the position's index and only they are sorted.
    pending = (
        select(*order)
        .where(tournaments.c.seq.is_(None))
        .cte("pending")
        .prefix_with("MATERIALIZED", dialect="postgresql")
    )
    first_pending = connection.execute(select(*pending.c).order_by(*pending.c).limit(1)).first()
    candidates: list[int] = [] if marked is None else [int(marked)]
    if first_pending is not None:
        after = connection.execute(
            select(tournaments.c.seq)
            .where(tournaments.c.seq.is_not(None), tuple_(*order) > tuple_(*first_pending))
            .order_by(*order)
            .limit(1)
        ).scalar()
        if after is None:
            last = connection.execute(select(func.max(tournaments.c.seq))).scalar()
            after = 0 if last is None else int(last) + 1
        candidates.append(int(after))
    return min(candidates) if candidates else None


def _in_window(start: int) -> Any:
    """The window's tournaments: the pending ones (without a position) and those rated from
    ``start`` on, both ranges of the position's index (by status, a scan of every tournament)."""
    return or_(tournaments.c.seq.is_(None), tournaments.c.seq >= start)


def _result_in_window(start: int) -> Any:
    """A result belongs to the window: its tournament is found first, then its results through
    the (tournament, player) index; joining on the window's condition made the database read
    every result ever imported to rate one month on top of a long history. A window from the
    first position is everything, and one pass over the table beats a look-up per tournament."""
    if start == 0:
        return true()
    return results.c.tournament_id.in_(select(tournaments.c.id).where(_in_window(start)))


def window_reader(
    connection: Connection, start: int, *, fresh: bool
) -> AbstractContextManager[columnar.Reader]:
    """What a rating run reads its window through: a second connection that sees what the job
    sees (:func:`.columnar.reader`) when the run's transaction is its own (``fresh``: it has
    written nothing yet), the database holds many results and the window takes them all (on
    PostgreSQL any window: its second connection costs little to open); else the job's own
    connection. Open it before the run writes."""
    fast = fresh and (start == 0 or connection.dialect.name == "postgresql")
    if fast:
        # Counted up to the threshold only: a scan of as many rows at most.
        some = select(literal(1)).select_from(results).limit(columnar.FAST_READ_FROM).subquery()
        held = connection.execute(select(func.count()).select_from(some)).scalar_one()
        fast = held >= columnar.FAST_READ_FROM
    return columnar.reader(connection, fast=fast)


def window_tournaments(
    connection: Connection, start: int, reader: columnar.Reader | None = None
) -> pl.DataFrame:
    """Tournaments to rate, in chronological order (end date, start date, key)."""
    query = (
        select(
            tournaments.c.id,
            tournaments.c.key,
            tournaments.c.name,
            tournaments.c.start_date,
            tournaments.c.end_date,
            tournaments.c.tier,
        )
        .where(_in_window(start))
        .order_by(tournaments.c.end_date, tournaments.c.start_date, tournaments.c.key)
    )
    return (reader or columnar.Reader(connection)).read(query, WINDOW_TOURNAMENTS)


def window_results(
    connection: Connection,
    start: int,
    events: pl.DataFrame,
    reader: columnar.Reader | None = None,
    known: pl.DataFrame | None = None,
) -> pl.DataFrame:
    """Results of the window whose tournaments are ``events`` (from :func:`window_tournaments`),
    with whether the player held the GM title on the end date. The one large read goes through
    ``reader``; the grandmasters' small ones (with nullable dates) through the connection. The
    registered grandmasters are taken from ``known`` (the window's players, from
    :func:`window_players`) when given, else read from every player."""
    pair = {"tournament_id": pl.Int64, "player": pl.Int64}
    counts = {name: t for name, t in WINDOW_RESULTS.items() if name != "grandmaster"}
    in_window = _result_in_window(start)
    query = select(
        *(
            results.c.player_id.label(name) if name == "player" else results.c[name]
            for name in counts
        )
    ).where(in_window)
    later = (reader or columnar.Reader(connection)).read_later(query, counts)
    # Grandmasters are few, so who held the title is worked out from small reads rather than
    # from the title and end date of every result, which made the window's read much slower
    # (and a column of whether each result's title is GM added more on PostgreSQL than the
    # scan for them takes). Through the job's connection they are
    # read while a reader of its own reads the results.
    marked = read_frame(
        connection,
        select(results.c.tournament_id, results.c.player_id.label("player")).where(
            in_window, results.c.title == "GM"
        ),
        pair,
    )
    masters = (
        read_frame(
            connection,
            select(players.c.id.label("player"), players.c.title_date).where(
                players.c.title == "GM"
            ),
            {"player": pl.Int64, "title_date": pl.Date},
        )
        if known is None
        else known.filter("grandmaster").select("player", "title_date")
    )
    rows = later()
    # Who held the title is marked by one look-up of each result's (tournament, player) pair
    # among the few holders': a left join of every result to them costs much more at ten
    # million results.
    candidates = rows.select(*pair).filter(pl.col("player").is_in(masters["player"].implode()))
    ends = events.select(pl.col("id").alias("tournament_id"), "end_date")
    registered = (
        candidates.join(masters, on="player")
        .join(ends, on="tournament_id")
        .filter(pl.col("title_date").is_null() | (pl.col("title_date") <= pl.col("end_date")))
        .select(*pair)
    )
    holders = pl.concat([marked, registered])
    return rows.with_columns(
        _pair_key(rows).is_in(_pair_key(holders).implode()).alias("grandmaster")
    )


def _pair_key(frame: pl.DataFrame) -> pl.Series:
    """A result's (tournament, player) pair as one number: ids are 32-bit."""
    return frame["tournament_id"].cast(pl.Int64) * (1 << 32) + frame["player"].cast(pl.Int64)


def state_at(connection: Connection, start: int) -> pl.DataFrame:
    """Each player's rating just before position ``start``, for players rated there or later.

    That is the rating before their earliest rating change at or after ``start``: nothing of theirs
    was rated between ``start`` and that change, and everything before ``start`` stays as it is.
    The changes from ``start`` on are read in key order (a range of the primary key) and the first
    of each player is picked here: asked to number each player's changes, SQLite walked the
    (player, position) index over the whole history instead.
    """
    changes = read_frame(
        connection,
        select(
            rating_changes.c.player_id.label("player"),
            rating_changes.c.seq,
            rating_changes.c.rating_before.label("rating"),
        )
        .where(rating_changes.c.seq >= start)
        .order_by(rating_changes.c.seq, rating_changes.c.player_id),
        {"player": pl.Int64, "seq": pl.Int64, "rating": pl.Int64},
    )
    return changes.unique("player", keep="first", maintain_order=True).select(*PLAYER_RATINGS)


def rated_players(connection: Connection, reader: columnar.Reader | None = None) -> pl.DataFrame:
    """Every player with a rating change (``rating`` null): who a full re-rating must reset.
    They are the players with totals, a row each, rather than the distinct players of every
    rating change."""
    return (
        (reader or columnar.Reader(connection))
        .read(select(player_totals.c.player_id.label("player")), {"player": pl.Int64})
        .with_columns(pl.lit(None, dtype=pl.Int64).alias("rating"))
    )


def window_players(connection: Connection, start: int) -> pl.DataFrame:
    """Every player with a result in the window: the current rating (null if never rated),
    whether the player holds the GM title and since when (null if not known). One look-up per
    result through the window's tournaments, rather than a read of every player for the few
    grandmasters: what a month costs stays what the month holds."""
    # Joined, not ``players.id IN (the window's players)``: PostgreSQL planned that as a probe of
    # the results for every player, seven seconds for a month on top of fifty thousand players.
    query = (
        select(
            players.c.id.label("player"),
            player_totals.c.rating,
            func.coalesce(players.c.title == "GM", False).label("grandmaster"),
            players.c.title_date,
        )
        .distinct()
        .select_from(
            results.join(players, players.c.id == results.c.player_id).outerjoin(
                player_totals, player_totals.c.player_id == players.c.id
            )
        )
        .where(_result_in_window(start))
    )
    return read_frame(connection, query, WINDOW_PLAYERS)


def earliest_seq(connection: Connection, player_ids_: Iterable[int]) -> int | None:
    """The earliest rated position at which any of the players appears."""
    value = connection.execute(
        select(func.min(rating_changes.c.seq)).where(
            rating_changes.c.player_id.in_(list(player_ids_))
        )
    ).scalar()
    return int(value) if value is not None else None


def earliest_position(connection: Connection, tournament_ids: Iterable[int]) -> int | None:
    """The earliest rated position among the given tournaments (None if none is rated)."""
    ids = list(tournament_ids)
    found = [
        connection.execute(
            select(func.min(tournaments.c.seq)).where(tournaments.c.id.in_(ids[at : at + 5000]))
        ).scalar()
        for at in range(0, len(ids), 5000)
    ]
    positions = [int(value) for value in found if value is not None]
    return min(positions) if positions else None


def history(connection: Connection, player: int) -> pl.DataFrame:
    """Every rated tournament of a player, in rating order."""
    query = (
        select(
            tournaments.c.name,
            tournaments.c.key,
            tournaments.c.start_date,
            tournaments.c.end_date,
            tournaments.c.tier,
            tournaments.c.k,
            rating_changes.c.games,
            (2 * results.c.wins + results.c.draws).label("points_x2"),
            rating_changes.c.expected,
            rating_changes.c.rating_before,
            rating_changes.c.rating_after,
            tournaments.c.m_avg,
            tournaments.c.b_avg,
            results.c.wins,
            results.c.draws,
            results.c.losses,
            results.c.buchholz,
        )
        .join(tournaments, tournaments.c.id == rating_changes.c.tournament_id)
        .join(
            results,
            and_(
                results.c.tournament_id == rating_changes.c.tournament_id,
                results.c.player_id == rating_changes.c.player_id,
            ),
        )
        .where(rating_changes.c.player_id == player)
        .order_by(rating_changes.c.seq)
    )
    return read_frame(connection, query, HISTORY_SCHEMA)
