"""The MELO rating formula (seed ``004``, "MELO", World Association of Nine Men's Morris, 2010).

Ratings are updated once per tournament from each player's wins, draws, losses and Buchholz value
(section 1 of the seed)::

    M_opp = M_avg * (1 + (B_A / B_avg - 1) / 2)          estimated mean opponent rating
    E_A   = N_A / (1 + 10 ** ((M_opp - M_A) / 400))      expected score over N_A games
    M'_A  = M_A + k * (P_A - E_A)                         new rating

Exactness. The seed keeps ratings to 10 decimal places (section 2, point 10). Here an exact rating
is an integer count of 1e-10 points (``RATING_SCALE``) and Buchholz values an integer count of
1e-4 points (``BUCHHOLZ_SCALE``), so sums and averages are exact and storage is exact on every
database. Each step below is one IEEE-754 double operation in a fixed order, and 10 ** x is the C
library's ``pow`` (the same function Python's ``**`` calls), so the kernel gives the same digits as
the plain-Python reference in :mod:`ratings.melo_reference`. A vectorised numpy version would not:
numpy's SIMD ``power`` differs from libm's ``pow`` in the last bit for about one input in twenty,
which moves the 10th decimal after rounding often enough to matter over millions of results.

The kernels are compiled with numba (:mod:`ratings.kernels`, loaded by the first rating in a
process, so that a command that does not rate never loads numba); each is a pure function of its
arrays: it reads ratings, writes only the output arrays it is given, and never touches files,
settings, clocks or databases.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ratings.parameters import (
    BUCHHOLZ_SCALE,
    RATING_SCALE,
    MeloParams,
    format_exact,
    format_hundredths,
    to_units,
)

__all__ = [
    "BUCHHOLZ_SCALE",
    "COMPILED_FROM",
    "I64",
    "RATING_SCALE",
    "SERIAL_BELOW",
    "MeloParams",
    "ProgressCallback",
    "RatedResults",
    "compile_kernels",
    "format_exact",
    "format_hundredths",
    "load_kernels",
    "rate_sequence",
    "rate_tournament",
    "to_units",
    "wide_levels",
]

I64 = npt.NDArray[np.int64]
ProgressCallback = Callable[[int, int], None]
"""Called as ``progress(done, total)`` with counts of tournaments."""


@dataclass(frozen=True, slots=True)
class RatedResults:
    """What rating a sequence of tournaments produced, one entry per result (same order as input)."""

    ratings: I64
    """Every player's exact rating after the last tournament (a new array)."""
    before: I64
    after: I64
    expected: I64
    """E_A in 1e-10 points (0 for a player without a game)."""
    tournament_m_avg: I64
    """M_avg of each tournament, in 1e-10 points (rounded half up; 0 for one without a game)."""
    tournament_b_avg: I64
    """B_avg of each tournament, in 1e-10 points (rounded half up; 0 for one without a game)."""
    sizes: I64
    """Results per tournament."""

    @property
    def m_avg(self) -> I64:
        """M_avg of each result's tournament."""
        return np.repeat(self.tournament_m_avg, self.sizes)

    @property
    def b_avg(self) -> I64:
        """B_avg of each result's tournament."""
        return np.repeat(self.tournament_b_avg, self.sizes)


COMPILED_FROM = 50_000
"""Fewer results than this are rated in plain Python (:func:`_rate_in_python`), with the same
digits: a month's few thousand take milliseconds that way, while loading numba and its compiled
kernels costs a fresh process 0.4 s. Measured in ``benchmarks/RESULTS.md`` ("The monthly job at
medium scale")."""

SERIAL_BELOW = 200_000
"""Levels with fewer results than this are rated on one thread.

Two threads meet at a barrier after every level. On a busy machine the second thread may wait
for a core at that barrier for a scheduler time slice, so a level pays for a second thread only
when the half of its work the thread saves outweighs such a wait; most levels of a history are far
smaller than that. A history with no level this wide never starts the thread pool. The figures
behind the threshold are in ``benchmarks/RESULTS.md`` ("Rating threads: the serial threshold")."""


def wide_levels(offsets: I64, order: I64, starts: I64, serial_below: int) -> npt.NDArray[np.bool_]:
    """Which dependency levels have at least ``serial_below`` results (those run on all cores)."""
    sizes = np.diff(offsets)[order]
    before_level = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes, out=before_level[1:])
    results: I64 = before_level[starts[1:]] - before_level[starts[:-1]]
    return results >= serial_below


def rate_sequence(
    ratings: I64,
    offsets: I64,
    k: I64,
    player: I64,
    wins: I64,
    draws: I64,
    losses: I64,
    buchholz: I64,
    *,
    scale: float = 400.0,
    chunk: int = 0,
    progress: ProgressCallback | None = None,
    serial_below: int = SERIAL_BELOW,
    compiled_from: int = COMPILED_FROM,
) -> RatedResults:
    """Rate tournaments in the given (chronological) order.

    ``ratings`` holds every player's exact rating before the first tournament, indexed by the
    dense player numbers used in ``player``; it is not modified. Results are grouped by
    tournament: tournament ``t`` owns results ``offsets[t]:offsets[t + 1]``, has factor ``k[t]``,
    and lists each player at most once. ``chunk`` > 0 calls ``progress(done, total)`` about
    every ``chunk`` tournaments.

    The work runs in dependency levels (see ``kernels.schedule``), the tournaments of each level
    with at least ``serial_below`` results on all cores, of any other level on one; every
    tournament is computed by the same sequence of operations as in a plain loop, so the digits
    do not depend on the schedule or on the number of threads. Fewer than ``compiled_from``
    results are rated in plain Python, with the same digits (:func:`_rate_in_python`).
    """
    tournaments = len(offsets) - 1
    count = len(player)
    _check_shapes(ratings, offsets, k, player, wins, draws, losses, buchholz)
    if count < compiled_from:
        rated = _rate_in_python(
            ratings, offsets, k, player, wins, draws, losses, buchholz, float(scale)
        )
        if progress is not None:
            progress(tournaments, tournaments)
        return rated
    from ratings import kernels  # numba loads with the first large rating, never for other work

    offsets, k, player, wins, draws, losses, buchholz = (
        _read_only(array) for array in (offsets, k, player, wins, draws, losses, buchholz)
    )
    state = np.array(ratings, dtype=np.int64, copy=True)
    before = np.empty(count, dtype=np.int64)
    after = np.empty(count, dtype=np.int64)
    expected = np.empty(count, dtype=np.int64)
    m_avg = np.empty(tournaments, dtype=np.int64)
    b_avg = np.empty(tournaments, dtype=np.int64)
    order, starts = kernels.schedule(offsets, player, len(state))
    wide = wide_levels(offsets, order, starts, serial_below)
    levels = len(starts) - 1
    step = chunk if chunk > 0 else max(tournaments, 1)
    first = 0
    while first < levels:
        # Whole levels, about ``step`` tournaments at a time.
        last = int(np.searchsorted(starts, starts[first] + step, side="right")) - 1
        last = min(max(last, first + 1), levels)
        if wide[first:last].any():
            kernels.rate_levels(
                state, offsets, k, player, wins, draws, losses, buchholz, float(scale),
                order, starts, wide, first, last, before, after, expected, m_avg, b_avg,
            )  # fmt: skip
        else:
            # Not even loaded: the parallel kernel's first call starts the thread pool.
            kernels.rate_levels_serial(
                state, offsets, k, player, wins, draws, losses, buchholz, float(scale),
                order, starts, first, last, before, after, expected, m_avg, b_avg,
            )  # fmt: skip
        if progress is not None:
            progress(int(starts[last]), tournaments)
        first = last
    return RatedResults(state, before, after, expected, m_avg, b_avg, np.diff(offsets))


def _rate_in_python(
    ratings: I64,
    offsets: I64,
    k: I64,
    player: I64,
    wins: I64,
    draws: I64,
    losses: I64,
    buchholz: I64,
    scale: float,
) -> RatedResults:
    """:func:`rate_sequence` for a few results, tournament after tournament in plain Python: the
    same operations as :func:`ratings.kernels.rate_one`, in the same order, on the same doubles
    (Python's integers stand for int64 ones: no sum here comes near 2**63, and ``round`` of a
    double rounds half to even as ``rint`` does; Python's ``math.pow`` refuses the overflow that
    the C library's gives as infinity), so the digits are the kernel's."""
    state = ratings.tolist()
    ends, factors, who = offsets.tolist(), k.tolist(), player.tolist()
    won, drawn, lost, bz = wins.tolist(), draws.tolist(), losses.tolist(), buchholz.tolist()
    count, tournaments = len(who), len(factors)
    before, after, expected = [0] * count, [0] * count, [0] * count
    m_avg, b_avg = [0] * tournaments, [0] * tournaments
    per_buchholz = RATING_SCALE // BUCHHOLZ_SCALE
    pow_ = math.pow
    for t in range(tournaments):
        lo, hi = ends[t], ends[t + 1]
        n = sum_m = sum_b = 0
        for i in range(lo, hi):
            r = state[who[i]]
            before[i] = r
            if won[i] + drawn[i] + lost[i] > 0:
                n += 1
                sum_m += r
                sum_b += bz[i]
        if n > 0:
            m_avg[t] = (2 * sum_m + n) // (2 * n)
            b_avg[t] = (2 * sum_b * per_buchholz + n) // (2 * n)
            m_tournament = float(sum_m) / n / RATING_SCALE
        else:
            m_tournament = 0.0
        kt = float(factors[t])
        for i in range(lo, hi):
            r = before[i]
            games = won[i] + drawn[i] + lost[i]
            if games == 0:
                after[i] = r
                continue
            ratio = float(bz[i] * n) / float(sum_b) if sum_b > 0 else 1.0
            m_opp = m_tournament * (1.0 + (ratio - 1.0) / 2.0)
            m_a = float(r) / RATING_SCALE
            try:
                power = pow_(10.0, (m_opp - m_a) / scale)
            except OverflowError:  # where the C library's pow gives infinity, as in the kernel
                power = math.inf
            e = games / (1.0 + power)
            p = won[i] + 0.5 * drawn[i]
            updated = r + round(kt * (p - e) * RATING_SCALE)
            after[i] = updated
            expected[i] = round(e * RATING_SCALE)
            state[who[i]] = updated

    def array(values: list[int]) -> I64:
        return np.array(values, dtype=np.int64)

    return RatedResults(
        array(state), array(before), array(after), array(expected), array(m_avg), array(b_avg),
        np.diff(offsets),
    )  # fmt: skip


def _read_only(array: I64) -> I64:
    """``array`` as a read-only, contiguous int64 view (a copy only if it is not contiguous int64).

    numba compiles, and caches, a kernel once per kind of array it is given: read-only or
    writable, contiguous or not. Polars hands a column over read-only when it can share its
    memory and writable when it had to copy (a column of several chunks), so the same job could
    meet an uncached kind of array and compile for seconds. Seen read-only always, every kernel
    has one form, which :func:`compile_kernels` puts in the cache ahead of time."""
    view = np.ascontiguousarray(array, dtype=np.int64).view()
    view.flags.writeable = False
    return view


def compile_kernels() -> None:
    """Compile every kernel into numba's cache (``make setup`` runs this once), so that a new
    installation's first rating loads machine code rather than compiling it for seconds. The
    parallel kernel too, although only a level of ``SERIAL_BELOW`` results runs it."""
    load_kernels()
    _rate_tiny(serial_below=0)


def load_kernels() -> None:
    """Rate a tiny history: numba's one-time set-up in this process (a third of a second: its
    registries, its runtime) and the serial kernels loaded from the cache. A rating job runs
    this in a thread while it reads its window, so that its first rating does not pay it."""
    _rate_tiny(serial_below=SERIAL_BELOW)


def _rate_tiny(*, serial_below: int) -> None:
    """Two players' one-game tournament, on the kernels a rating of that width takes."""
    one = np.ones(2, dtype=np.int64)
    rate_sequence(
        np.full(2, MeloParams().initial_rating, dtype=np.int64),
        np.array([0, 2], dtype=np.int64),
        np.array([5], dtype=np.int64),
        np.arange(2, dtype=np.int64),
        np.array([1, 0], dtype=np.int64),
        np.zeros(2, dtype=np.int64),
        np.array([0, 1], dtype=np.int64),
        one * BUCHHOLZ_SCALE,
        serial_below=serial_below,
        compiled_from=0,
    )


def _check_shapes(
    ratings: I64,
    offsets: I64,
    k: I64,
    player: I64,
    wins: I64,
    draws: I64,
    losses: I64,
    buchholz: I64,
) -> None:
    count = len(player)
    for name, array in (
        ("wins", wins),
        ("draws", draws),
        ("losses", losses),
        ("buchholz", buchholz),
    ):
        if len(array) != count:
            raise ValueError(f"{name} must have one entry per result ({count}), not {len(array)}")
    if len(offsets) < 1 or offsets[0] != 0 or offsets[-1] != count:
        raise ValueError(f"offsets must run from 0 to the number of results ({count})")
    if np.any(np.diff(offsets) < 0):
        raise ValueError("offsets must not decrease")
    if len(k) != len(offsets) - 1:
        raise ValueError(f"k must have one entry per tournament ({len(offsets) - 1}), not {len(k)}")
    if count and (player.min() < 0 or player.max() >= len(ratings)):
        raise ValueError(f"player numbers must lie in 0..{len(ratings) - 1}")
    for name, array in (
        ("wins", wins),
        ("draws", draws),
        ("losses", losses),
        ("buchholz", buchholz),
    ):
        if count and array.min() < 0:
            raise ValueError(f"{name} must not be negative, not {array.min()}")


def rate_tournament(
    ratings: I64,
    wins: I64,
    draws: I64,
    losses: I64,
    buchholz: I64,
    k: int,
    *,
    scale: float = 400.0,
) -> RatedResults:
    """Rate one tournament whose i-th player had rating ``ratings[i]`` before it."""
    n = len(ratings)
    return rate_sequence(
        ratings,
        np.array([0, n], dtype=np.int64),
        np.array([k], dtype=np.int64),
        np.arange(n, dtype=np.int64),
        wins,
        draws,
        losses,
        buchholz,
        scale=scale,
    )
