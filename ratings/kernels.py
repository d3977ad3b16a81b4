"""The compiled kernels of the MELO formula (:mod:`ratings.formula` calls them).

They live apart so that only a rating loads numba (a third of a second and a hundred megabytes
in a fresh process): :func:`ratings.formula.rate_sequence` imports them when it first runs, and
everything that only needs the formula's values takes them from :mod:`ratings.parameters`. Each
kernel is one sequence of IEEE-754 double operations in a fixed order (see :mod:`ratings.formula` on
exactness); they read the arrays they are given and write only the output arrays.
"""

from __future__ import annotations

import math

import numba
import numpy as np
import numpy.typing as npt

from ratings.parameters import BUCHHOLZ_SCALE, RATING_SCALE

I64 = npt.NDArray[np.int64]


@numba.njit(cache=True, nogil=True, inline="always")
def rate_one(
    t: int,
    ratings: I64,
    offsets: I64,
    k: I64,
    player: I64,
    wins: I64,
    draws: I64,
    losses: I64,
    buchholz: I64,
    scale: float,
    before: I64,
    after: I64,
    expected: I64,
    m_avg: I64,
    b_avg: I64,
) -> None:
    """Rate tournament ``t``, updating the ratings of its players in ``ratings``.

    Tournament ``t`` owns results ``offsets[t]`` to ``offsets[t + 1] - 1``; ``m_avg`` and
    ``b_avg`` get one entry per tournament (the caller spreads them over the results: storing
    them per result in this loop cost about a sixth of its time).
    """
    lo = offsets[t]
    hi = offsets[t + 1]
    # M_avg and B_avg count only players with at least one game (SPEC 2).
    n = 0
    sum_m = 0
    sum_b = 0
    for i in range(lo, hi):
        # Every rating is read once, here, and kept in ``before``: the ratings array is large and
        # read at random, the result arrays in order.
        r = ratings[player[i]]
        before[i] = r
        if wins[i] + draws[i] + losses[i] > 0:
            n += 1
            sum_m += r
            sum_b += buchholz[i]
    if n > 0:
        avg_m_units = (2 * sum_m + n) // (2 * n)
        avg_b_units = (2 * sum_b * (RATING_SCALE // BUCHHOLZ_SCALE) + n) // (2 * n)
        m_tournament = float(sum_m) / n / RATING_SCALE
    else:
        avg_m_units = 0
        avg_b_units = 0
        m_tournament = 0.0
    kt = float(k[t])
    m_avg[t] = avg_m_units
    b_avg[t] = avg_b_units
    for i in range(lo, hi):
        r = before[i]
        games = wins[i] + draws[i] + losses[i]
        if games == 0:
            # A player without a game keeps the rating and expects nothing (SPEC 2).
            after[i] = r
            expected[i] = 0
            continue
        # B_A / B_avg = B_A * n / sum(B), one correctly rounded division of exact integers;
        # B_avg = 0 means nobody has a Buchholz value: the factor is then 1 (SPEC 2).
        ratio = float(buchholz[i] * n) / float(sum_b) if sum_b > 0 else 1.0
        m_opp = m_tournament * (1.0 + (ratio - 1.0) / 2.0)
        m_a = float(r) / RATING_SCALE
        e = games / (1.0 + math.pow(10.0, (m_opp - m_a) / scale))
        p = wins[i] + 0.5 * draws[i]
        delta = kt * (p - e)
        # Round to 10 decimals after every tournament (seed section 2, point 10).
        updated = r + np.int64(np.rint(delta * RATING_SCALE))
        after[i] = updated
        expected[i] = np.int64(np.rint(e * RATING_SCALE))
        # A player appears once per tournament, and every rating of it was read above.
        ratings[player[i]] = updated


@numba.njit(cache=True, nogil=True)
def schedule(offsets: I64, player: I64, players: int) -> tuple[I64, I64]:
    """Dependency levels of the tournaments: a tournament's level is one more than the highest
    level of an earlier tournament sharing a player with it. Tournaments of one level share no
    player, so rating them in any order, or at the same time, gives exactly the sequential
    result. Returns the tournaments ordered by level (chronological within a level) and where
    each level starts in that order."""
    tournaments = len(offsets) - 1
    free_from = np.zeros(players, dtype=np.int64)
    level = np.empty(tournaments, dtype=np.int64)
    levels = 0
    for t in range(tournaments):
        lv = 0
        for i in range(offsets[t], offsets[t + 1]):
            lv = max(lv, free_from[player[i]])
        level[t] = lv
        for i in range(offsets[t], offsets[t + 1]):
            free_from[player[i]] = lv + 1
        levels = max(levels, lv + 1)
    starts = np.zeros(levels + 1, dtype=np.int64)
    for t in range(tournaments):
        starts[level[t] + 1] += 1
    for lv in range(levels):
        starts[lv + 1] += starts[lv]
    order = np.empty(tournaments, dtype=np.int64)
    filled = starts[:-1].copy()
    for t in range(tournaments):
        order[filled[level[t]]] = t
        filled[level[t]] += 1
    return order, starts


@numba.njit(cache=True, nogil=True)
def rate_levels_serial(
    ratings: I64,
    offsets: I64,
    k: I64,
    player: I64,
    wins: I64,
    draws: I64,
    losses: I64,
    buchholz: I64,
    scale: float,
    order: I64,
    starts: I64,
    first: int,
    last: int,
    before: I64,
    after: I64,
    expected: I64,
    m_avg: I64,
    b_avg: I64,
) -> None:
    """Rate levels ``first`` to ``last - 1`` on the calling thread, in the order of ``order``."""
    for j in range(starts[first], starts[last]):
        rate_one(
            order[j], ratings, offsets, k, player, wins, draws, losses, buchholz, scale,
            before, after, expected, m_avg, b_avg,
        )  # fmt: skip


@numba.njit(cache=True, nogil=True, parallel=True)
def rate_levels(
    ratings: I64,
    offsets: I64,
    k: I64,
    player: I64,
    wins: I64,
    draws: I64,
    losses: I64,
    buchholz: I64,
    scale: float,
    order: I64,
    starts: I64,
    wide: npt.NDArray[np.bool_],
    first: int,
    last: int,
    before: I64,
    after: I64,
    expected: I64,
    m_avg: I64,
    b_avg: I64,
) -> None:
    """Rate levels ``first`` to ``last - 1`` in order, the tournaments of a ``wide`` level in
    parallel and those of any other level on the calling thread."""
    for lv in range(first, last):
        if wide[lv]:
            for j in numba.prange(starts[lv], starts[lv + 1]):
                rate_one(
                    order[j], ratings, offsets, k, player, wins, draws, losses, buchholz, scale,
                    before, after, expected, m_avg, b_avg,
                )  # fmt: skip
        else:
            for j in range(starts[lv], starts[lv + 1]):
                rate_one(
                    order[j], ratings, offsets, k, player, wins, draws, losses, buchholz, scale,
                    before, after, expected, m_avg, b_avg,
                )  # fmt: skip
