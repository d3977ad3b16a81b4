"""The rating job: rate everything pending in chronological order, in one transaction.

Tournaments are rated in (end date, start date, key) order (SPEC 2, chronology). Each rated
tournament has a position ``seq``; each rating change remembers the position it was made at. A
late tournament, a correction or a merge moves the start of the work back to the first position
it touches, and everything from there on is rated again, starting from the ratings players had
just before that position. The outcome is the same, to the last digit, as rating everything in
order from scratch (``full=True``), which a test checks.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np
import polars as pl
from sqlalchemy.engine import Connection, Engine

from ratings.formula import (
    COMPILED_FROM,
    MeloParams,
    ProgressCallback,
    load_kernels,
    rate_sequence,
)
from ratings.storage import changes as stored_changes
from ratings.storage import window as rating_window
from ratings.storage.totals import DENSE_IDS, places

log = logging.getLogger(__name__)

PhaseCallback = Callable[[str], None]
"""Called as ``phase(name)`` when the job starts ``load``, ``compute``, ``persist``, and when it is
``done``: a caller that wants timings keeps its own clock, so the job and the formula need none."""


@dataclass(frozen=True, slots=True)
class RatingReport:
    tournaments: int
    """Tournaments rated by this run (pending ones and re-rated ones)."""
    results: int
    players: int
    start: int | None
    """Position the run started from (None when there was nothing to do)."""


def run_ratings(
    engine: Engine,
    params: MeloParams,
    *,
    now: datetime,
    full: bool = False,
    progress: ProgressCallback | None = None,
    phase: PhaseCallback | None = None,
) -> RatingReport:
    with engine.begin() as connection:
        # The transaction is this run's own: nothing is written before the window is read, so a
        # second connection may read it (``window.window_reader``).
        return rate_pending(
            connection, params, now=now, full=full, progress=progress, phase=phase, fresh=True
        )


def rate_pending(
    connection: Connection,
    params: MeloParams,
    *,
    now: datetime,
    full: bool = False,
    progress: ProgressCallback | None = None,
    phase: PhaseCallback | None = None,
    fresh: bool = False,
) -> RatingReport:
    """Rate inside the caller's transaction. Ratings computed with other parameters than
    ``params`` are all stale: then everything is rated again, as with ``full``. ``fresh`` says
    that the transaction has written nothing before this call (a caller that imported first
    leaves it False, and the window is read through the transaction's own connection)."""
    mark = phase or _no_phase
    mark("load")
    full = full or rating_window.changed_parameters(connection, params) is not None
    start = 0 if full else rating_window.window_start(connection)
    with rating_window.window_reader(
        connection, start or 0, fresh=fresh and start is not None
    ) as reader:
        rating_window.set_rating_parameters(connection, rating_window.parameters_text(params))
        if start is None:
            return RatingReport(0, 0, 0, None)
        events = rating_window.window_tournaments(connection, start, reader)
        kernels_loaded = _loading_kernels(events.height)
        if events.height == 0:
            kernels_loaded()
            # Nothing left to rate from ``start`` (the last rated tournament was deleted): its
            # changes go, and its players' totals go back to the ratings they had before it.
            before = rating_window.state_at(connection, start)
            stored_changes.replace_rating_changes(
                connection,
                start,
                _no_changes(),
                pl.DataFrame(schema={"seq": pl.Int64, "end_date": pl.Date}),
            )
            rating_window.clear_rerate(connection)
            return RatingReport(0, 0, before.height, start)
        # The window's players as they stand (ratings, titles), read once for the grandmasters
        # and the ratings to start from; from the first position nobody's rating is read.
        known = None if start == 0 else rating_window.window_players(connection, start)
        rows = rating_window.window_results(connection, start, events, reader, known)
        # On --full everyone starts from the initial rating: only who was rated matters (a
        # player whose results are gone gets the initial rating back), not the ratings they had.
        previous = (
            rating_window.rated_players(connection, reader)
            if full
            else rating_window.state_at(connection, start)
        )
        # A run from the first position writes only the stamps that change (none when a full
        # re-rating finds what is stored), so it reads them as they are.
        held_stamps = stored_changes.held_stamps(connection, reader) if start == 0 else None
    window = _arrange(events, rows, params)
    players, dense = _players(window.player_ids, previous["player"].to_numpy())
    initial = _initial_ratings(players, previous, known, params, full)
    kernels_loaded()
    mark("compute")
    rated = rate_sequence(
        initial,
        window.offsets,
        window.k,
        dense,
        window.wins,
        window.draws,
        window.losses,
        window.buchholz,
        scale=params.scale,
        chunk=max(1, len(window.k) // 50),
        progress=progress,
    )
    mark("persist")
    sizes = np.diff(window.offsets)
    seq = start + np.repeat(np.arange(len(window.k), dtype=np.int64), sizes)
    changes = {
        "seq": seq,
        "player_id": window.player_ids,
        "tournament_id": window.tournament_ids,
        "games": window.wins + window.draws + window.losses,
        "rating_before": rated.before,
        "rating_after": rated.after,
        "expected": rated.expected,
    }
    positions = start + np.arange(events.height, dtype=np.int64)
    ends = pl.DataFrame({"seq": positions, "end_date": events["end_date"]})
    stamps = pl.DataFrame(
        {
            "id": events["id"],
            "seq": positions,
            "k": window.k,
            "m_avg": rated.tournament_m_avg,
            "b_avg": rated.tournament_b_avg,
        }
    )
    # A player's current rating is the one after their last change, kept in their totals as the
    # changes are written (``replace_rating_changes``): nothing else holds it.
    stored_changes.write_changes(connection, start, changes, ends, stamps, now, held_stamps)
    rating_window.clear_rerate(connection)
    mark("done")
    return RatingReport(events.height, len(window.player_ids), len(players), start)


def _no_phase(_name: str) -> None:
    pass


PRELOAD_FROM = COMPILED_FROM // 50
"""Windows of at least this many tournaments load numba while their results are read: they are
likely to hold ``COMPILED_FROM`` results (tournaments of fifty players) and to be rated by the
compiled kernels. A smaller window is likely rated in plain Python, and numba's loading, which
holds the interpreter's lock for most of its 0.4 s, would only slow its reads; when such a
window does hold that many results, the rating loads numba itself."""


def _loading_kernels(tournaments: int) -> Callable[[], None]:
    """The formula's one-time set-up in a fresh process (numba's), run in a thread while the job
    reads a window of ``tournaments`` (from :data:`PRELOAD_FROM` on): the reads wait for the
    database most of the time. Call what it returns before rating, to wait for it; the rating
    itself is the same either way."""
    if tournaments < PRELOAD_FROM:
        return _nothing_to_wait_for
    thread = threading.Thread(target=_load_kernels, name="load-kernels")
    thread.start()
    return thread.join


def _nothing_to_wait_for() -> None:
    pass


def _load_kernels() -> None:
    try:
        load_kernels()
    except Exception:  # the rating's own call meets the same problem and reports it
        log.debug("loading the rating kernels ahead failed", exc_info=True)


def _no_changes() -> dict[str, np.ndarray[Any, Any]]:
    columns = ("seq", "player_id", "tournament_id", "games", "rating_before", "rating_after",
               "expected")  # fmt: skip
    return dict.fromkeys(columns, np.zeros(0, dtype=np.int64))


@dataclass(frozen=True, slots=True)
class _Window:
    tournament_ids: np.ndarray
    player_ids: np.ndarray
    offsets: np.ndarray
    k: np.ndarray
    wins: np.ndarray
    draws: np.ndarray
    losses: np.ndarray
    buchholz: np.ndarray


def _arrange(events: pl.DataFrame, rows: pl.DataFrame, params: MeloParams) -> _Window:
    """Results grouped by tournament in rating order (by player within one), and each
    tournament's k. Each result's place comes from an array indexed by tournament id, and the
    rows are sorted only when they do not come in that order already (a whole table read in
    the order it was imported usually does), which costs less than joining ten million results
    to the tournaments' positions and sorting them by polars."""
    where, found = _positions(events["id"].to_numpy(), rows["tournament_id"].to_numpy())
    if not found.all():
        rows, where = rows.filter(pl.Series(found)), where[found]
    key = where * (1 << 32) + rows["player"].to_numpy().astype(np.int64, copy=False)
    if key.size > 1 and not bool((key[1:] > key[:-1]).all()):
        order = np.argsort(key, kind="stable")
        rows, where = rows[order], where[order]

    def column(name: str) -> np.ndarray:
        return rows[name].to_numpy().astype(np.int64, copy=False)

    wins, draws, losses = column("wins"), column("draws"), column("losses")
    played = rows["grandmaster"].to_numpy() & ((wins + draws + losses) > 0)
    gm = np.bincount(where[played], minlength=events.height) > 0
    k = np.array(
        [
            params.k_for(tier, bool(held))
            for tier, held in zip(events["tier"].to_list(), gm.tolist(), strict=True)
        ],
        dtype=np.int64,
    )
    offsets = np.zeros(events.height + 1, dtype=np.int64)
    offsets[1:] = np.cumsum(np.bincount(where, minlength=events.height))
    return _Window(
        tournament_ids=column("tournament_id"),
        player_ids=column("player"),
        offsets=offsets,
        k=k,
        wins=wins,
        draws=draws,
        losses=losses,
        buchholz=column("buchholz"),
    )


def _positions(
    ids: np.ndarray[Any, Any], wanted: np.ndarray[Any, Any]
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """Where each of ``wanted`` is in ``ids`` (distinct), and whether it is there at all: through
    an array as long as the largest id when ids are dense (they come from a sequence), else by
    sorting ``ids`` and searching."""
    ids = ids.astype(np.int64, copy=False)
    wanted = wanted.astype(np.int64, copy=False)
    if ids.size == 0 or wanted.size == 0:
        return np.zeros(wanted.size, dtype=np.int64), np.zeros(wanted.size, dtype=np.bool_)
    low = min(int(ids.min()), int(wanted.min()))
    high = max(int(ids.max()), int(wanted.max()))
    if low >= 0 and high < DENSE_IDS * max(ids.size + wanted.size, 1 << 16):
        lookup = np.full(high + 1, -1, dtype=np.int64)
        lookup[ids] = np.arange(ids.size, dtype=np.int64)
        where = lookup[wanted]
        return where, where >= 0
    order = np.argsort(ids, kind="stable")
    at = np.minimum(np.searchsorted(ids, wanted, sorter=order), ids.size - 1)
    found = ids[order[at]] == wanted
    return order[at], found


def _players(
    window_ids: np.ndarray[Any, Any], previous_ids: np.ndarray[Any, Any]
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """The distinct players of the window and of ``previous``, in id order, and where each of the
    window's results' players is among them (:func:`.totals.places`, where ``np.unique`` and
    ``np.searchsorted`` sorted and searched ten million ids, a large part of a full re-rating's
    reading)."""
    both = np.concatenate([window_ids, previous_ids]).astype(np.int64, copy=False)
    if both.size == 0:
        return both, np.zeros(0, dtype=np.int64)
    players, where = places(both)
    return players, where[: window_ids.size]


def _initial_ratings(
    players: np.ndarray,
    previous: pl.DataFrame,
    known: pl.DataFrame | None,
    params: MeloParams,
    full: bool,
) -> np.ndarray:
    """Ratings at the start of the window: the state before it, the current rating of players
    the window does not reach back to (``known``, the window's players), the initial rating for
    new players (and for all on --full)."""
    ratings = np.full(len(players), params.initial_rating, dtype=np.int64)
    if full:
        return ratings
    # From the first position nobody's rating reaches back before the window: those rated at
    # all are in ``previous``, the others start from the initial rating.
    if known is not None:
        current = known.drop_nulls("rating")
        where = np.searchsorted(players, current["player"].to_numpy())
        ratings[where] = current["rating"].to_numpy()
    if previous.height:
        where = np.searchsorted(players, previous["player"].to_numpy())
        ratings[where] = previous["rating"].to_numpy()
    return ratings
