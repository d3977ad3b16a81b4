"""Many Swiss events of the same size and length, paired and played side by side.

A batch holds ``G`` events of ``n`` players each, as rows of 2-D arrays; column ``i`` of a row is
the event's seed number ``i + 1`` (column 0 the top seed). Every round pairs all events at once, so
the Python loop runs over rounds and boards, never over events or games.

Pairing, round by round, as a tournament director's program does it in its simplest form:

1. Players are ordered by score, then by seed.
2. With an odd number of players the lowest one in that order who has not had a bye yet gets the
   bye: a point, but not a game.
3. The highest unpaired player meets the player half a score group below them (top half against
   bottom half); a lone player left in a score group floats down to meet the top of the next group.
4. If they have met before, the next player down the group is tried, then the ones above, then the
   lower groups; only when everyone left is a former opponent is a rematch accepted.

Game results are drawn from the players' hidden strengths: the expected score follows the logistic
curve of the rating system (400 points for a factor 10 in odds) and a share of the games that would
be even are drawn instead, so the expected score stays the same and stronger fields draw more.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

WIN, DRAW, LOSS = 2, 1, 0
"""Points of one round, in half-points; a bye is worth a win."""


@dataclass(frozen=True)
class SwissBatch:
    """The games of ``G`` Swiss events of ``n`` players each."""

    opponents: NDArray[np.int16]
    """``(rounds, G, n)``: the column of the opponent in each round, -1 for the bye."""
    points: NDArray[np.int8]
    """``(rounds, G, n)``: half-points taken in each round (2 for a win or the bye)."""

    @property
    def games(self) -> NDArray[np.bool_]:
        return self.opponents >= 0

    @property
    def wins(self) -> NDArray[np.int16]:
        return _rounds_total(self.games & (self.points == WIN))

    @property
    def draws(self) -> NDArray[np.int16]:
        return _rounds_total(self.points == DRAW)

    @property
    def losses(self) -> NDArray[np.int16]:
        return _rounds_total(self.games & (self.points == LOSS))

    @property
    def score(self) -> NDArray[np.int16]:
        """Final Swiss points in half-points, bye included."""
        return _rounds_total(self.points)

    @property
    def buchholz(self) -> NDArray[np.int16]:
        """Sum of the opponents' final scores in half-points, over the games played only.

        A bye round adds nothing: MELO's Buchholz compares players by whom they actually met, and
        the importer's bound (games × best score) only holds when no virtual opponent counts.
        """
        score = self.score
        games = self.games
        opp = np.where(games, self.opponents, 0).astype(np.intp)
        rows = np.arange(score.shape[0])[None, :, None]
        return _rounds_total(np.where(games, score[rows, opp], 0))


def _rounds_total(per_round: NDArray[np.bool_] | NDArray[np.integer[Any]]) -> NDArray[np.int16]:
    total: NDArray[np.int16] = np.sum(per_round, axis=0, dtype=np.int16)
    return total


def expected_score(own: NDArray[np.float64], other: NDArray[np.float64]) -> NDArray[np.float64]:
    """The rating system's expected score of ``own`` against ``other``."""
    result: NDArray[np.float64] = 1.0 / (1.0 + 10.0 ** ((other - own) / 400.0))
    return result


def play_swiss(
    strength: NDArray[np.float64],
    rounds: int,
    rng: np.random.Generator,
    draw_share: NDArray[np.float64] | float = 0.3,
    size: NDArray[np.int64] | None = None,
) -> SwissBatch:
    """Pair and play ``rounds`` rounds of every event in ``strength``.

    ``strength`` is ``(G, n)``: each player's hidden strength on the day, columns in seed order.
    ``draw_share`` (per event or one value, at most 0.5) is the chance of a draw between equals;
    it shrinks with the strength gap. ``size`` (per event, default ``n``) lets events of different
    sizes share a batch: columns from ``size`` on are empty seats that never play.
    """
    if strength.ndim != 2 or not 2 <= strength.shape[1] <= 64:
        raise ValueError(
            f"strength must be an (events, 2..64 players) array, not shape {strength.shape}"
        )
    if rounds < 1:
        raise ValueError(f"rounds must be at least 1, not {rounds}")
    g_count, n = strength.shape
    share = np.broadcast_to(np.asarray(draw_share, dtype=np.float64), (g_count,))
    if np.any((share < 0) | (share > 0.5)):
        raise ValueError(f"draw_share must lie between 0 and 0.5, not {share.min()}..{share.max()}")
    seats = np.full(g_count, n, dtype=np.int64) if size is None else np.asarray(size, np.int64)
    if seats.shape != (g_count,) or np.any((seats < 2) | (seats > n)):
        raise ValueError(f"size must give 2..{n} players for each of the {g_count} events")

    # Internally everything is (players, events): reductions over a field then run across events
    # in contiguous memory, and masks are applied by arithmetic, which is far cheaper than
    # branching selections on random masks.
    power = np.ascontiguousarray(strength.T)
    pos = np.arange(n, dtype=np.int16)[:, None]
    # Empty seats are the last columns, and after every sort the last positions too.
    empty = pos >= seats
    odd = np.flatnonzero(seats % 2)
    boards = n // 2
    live = np.arange(boards)[:, None] < seats // 2  # the boards each event really has
    live_board, live_event = np.nonzero(live)
    opponents = np.full((rounds, n, g_count), -1, dtype=np.int16)
    points = np.zeros((rounds, n, g_count), dtype=np.int8)
    score = np.zeros((n, g_count), dtype=np.int16)
    had_bye = np.zeros((n, g_count), dtype=bool)

    for rnd in range(rounds):
        # Seed order breaks ties in score: one integer key (-score, seed); empty seats go last.
        key = (empty * np.int32(1024) - score) * n + pos
        sorting = np.argsort(key, axis=0, kind="stable")
        score_pos = np.take_along_axis(score, sorting, axis=0)
        order = sorting.astype(np.int16)
        paired = empty.copy()
        # Rank of each position among the players still unpaired (meaningful where unpaired).
        rank = np.repeat(pos, g_count, axis=1)
        if odd.size:
            eligible = ~np.take_along_axis(had_bye[:, odd], order[:, odd], axis=0) & ~empty[:, odd]
            last = np.max(eligible * (pos + 1), axis=0) - 1
            bye_pos = np.where(last < 0, seats[odd] - 1, last)
            bye_col = order[bye_pos, odd]
            paired[bye_pos, odd] = True
            rank[:, odd] -= pos > bye_pos
            had_bye[bye_col, odd] = True
            points[rnd, bye_col, odd] = WIN
            score[bye_col, odd] += WIN

        first, second = _pair(order, score_pos, paired, rank, opponents[:rnd], live)
        _repair_rematches(first, second, opponents[:rnd], live)

        one = first[live_board, live_event]
        two = second[live_board, live_event]
        expected = expected_score(power[one, live_event], power[two, live_event])
        # A draw takes half its probability from each side, keeping the expected score intact.
        half_draw = share[live_event] * 2.0 * expected * (1.0 - expected)
        u = rng.random(expected.shape)
        one_pts = (u < expected - half_draw).astype(np.int8) + (u < expected + half_draw)
        opponents[rnd, one, live_event] = two
        opponents[rnd, two, live_event] = one
        points[rnd, one, live_event] = one_pts
        points[rnd, two, live_event] = WIN - one_pts
        score[one, live_event] += one_pts
        score[two, live_event] += WIN - one_pts

    return SwissBatch(
        opponents=np.ascontiguousarray(opponents.transpose(0, 2, 1)),
        points=np.ascontiguousarray(points.transpose(0, 2, 1)),
    )


def _pair(
    order: NDArray[np.int16],
    score_pos: NDArray[np.int16],
    paired: NDArray[np.bool_],
    rank: NDArray[np.int16],
    history: NDArray[np.int16],
    live: NDArray[np.bool_],
) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """Greedy pairing of one round, board by board from the top (steps 3 and 4).

    ``order`` gives the column at each position; ``paired`` and ``rank`` are updated in place.
    Returns the columns of both players per board, ``(boards, G)``; boards that do not exist
    (``live`` false) hold meaningless values.
    """
    n, g_count = order.shape
    rows = np.arange(g_count)
    pos = np.arange(n, dtype=np.int16)[:, None]
    flat_order = order.ravel()
    flat_score = score_pos.ravel()
    flat_paired = paired.ravel()
    past = history.reshape(history.shape[0], n * g_count)
    boards = live.shape[0]
    first = np.empty((boards, g_count), dtype=np.intp)
    second = np.empty((boards, g_count), dtype=np.intp)
    for board in range(boards):
        # Flat indices (position × events + event) keep gathers one-dimensional, hence cheap.
        top = np.minimum(np.min(pos + paired * np.int16(n), axis=0), n - 1)
        top_at = top.astype(np.intp) * g_count + rows
        flat_paired[top_at] = True
        rank -= 1
        top_col = flat_order[top_at]
        free = ~paired
        others = (free & (score_pos == flat_score[top_at])).sum(axis=0, dtype=np.int16)
        # The target is the first of the bottom half of the top player's score group, or the
        # next player down when the group has no one else (the lone player floats down).
        target = np.maximum((others + 1) // 2 - 1, 0).astype(np.int16)
        mate = np.min(pos + ((rank != target) | paired) * np.int16(n), axis=0)
        mate = np.minimum(mate, n - 1)
        mate_at = mate.astype(np.intp) * g_count + rows
        if past.shape[0]:
            top_key = top_col.astype(np.intp) * g_count + rows
            clash = (past[:, top_key] == flat_order[mate_at]).any(axis=0) & live[board]
            redo = np.flatnonzero(clash)
            if redo.size:
                mate[redo] = _fallback_mate(
                    rank[:, redo],
                    free[:, redo],
                    target[redo],
                    others[redo],
                    order[:, redo],
                    past[:, top_key[redo]],
                )
                mate_at = mate.astype(np.intp) * g_count + rows
        flat_paired[mate_at] = True
        rank -= pos > mate
        first[board] = top_col
        second[board] = flat_order[mate_at]
    return first, second


def _fallback_mate(
    rank: NDArray[np.int16],
    free: NDArray[np.bool_],
    target: NDArray[np.int16],
    others: NDArray[np.int16],
    order: NDArray[np.int16],
    met_before: NDArray[np.int16],
) -> NDArray[np.int16]:
    """The best partner when the target has already been met: the order of preference of step 4.

    Arrays are ``(players, k)`` for the ``k`` events concerned; ``met_before`` holds the columns of
    the top player's earlier opponents, one row per round.
    """
    n = rank.shape[0]
    pos = np.arange(n, dtype=np.int16)[:, None]
    # Ranks below ``others`` are the top player's own score group: first the target and those
    # below it, then those above it, then the next groups in order.
    shift = rank - target
    cost = np.abs(shift) + (shift < 0) * np.int16(n) + (rank >= others) * (2 * n + target)
    met = np.zeros(rank.shape, dtype=bool)
    for earlier in met_before:
        met |= order == earlier
    cost = cost + met * np.int16(4 * n) + ~free * np.int16(8 * n)
    # Costs of free players are distinct, so the position rides in the low bits of the minimum.
    best: NDArray[np.int16] = (np.min(cost.astype(np.int32) * 64 + pos, axis=0) & 63).astype(
        np.int16
    )
    return best


def _met(history: NDArray[np.int16], a: NDArray[np.intp], b: NDArray[np.intp]) -> NDArray[np.bool_]:
    """Whether players ``a`` and ``b`` (columns, ``(k, G)``) met in the rounds of ``history``."""
    rows = np.arange(a.shape[1])
    result = np.zeros(np.broadcast_shapes(a.shape, b.shape), dtype=bool)
    for earlier in history:
        result |= earlier[a, rows] == b
    return result


def _repair_rematches(
    first: NDArray[np.intp],
    second: NDArray[np.intp],
    history: NDArray[np.int16],
    live: NDArray[np.bool_],
) -> None:
    """Swap partners with the nearest board where that removes a rematch without making one.

    The greedy pass pairs from the top, so former opponents pile up on the last boards; a single
    exchange with a board above usually fixes them, as a director would do by hand.
    """
    boards = first.shape[0]
    if history.shape[0] == 0:
        return
    for board in range(boards - 1, -1, -1):
        bad = _met(history, first[board][None], second[board][None])[0] & live[board]
        bad = np.flatnonzero(bad)
        if bad.size == 0:
            continue
        past = history[:, :, bad]
        up, down = first[:, bad], second[:, bad]
        x, y = up[board][None], down[board][None]
        straight = ~_met(past, x, up) & ~_met(past, y, down)
        crossed = ~_met(past, x, down) & ~_met(past, y, up)
        straight[board] = crossed[board] = False
        ok = (straight | crossed) & live[:, bad]
        distance = np.abs(np.arange(boards) - board)[:, None] + ~ok * (boards + 1)
        other = np.argmin(distance, axis=0)
        cols = np.arange(bad.size)
        fix = ok[other, cols]
        events, j, cols = bad[fix], other[fix], cols[fix]
        use_straight = straight[j, cols]
        partner_x = np.where(use_straight, up[j, cols], down[j, cols])
        partner_y = np.where(use_straight, down[j, cols], up[j, cols])
        first[j, events] = y[0, cols]
        second[j, events] = partner_y
        second[board, events] = partner_x
