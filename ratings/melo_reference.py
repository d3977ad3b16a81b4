"""A plain, row-at-a-time MELO implementation: the oracle the fast kernel is checked against.

It follows seed ``004`` line by line with Python numbers and dictionaries, the way a one-off
script would, and makes the same choices as :mod:`ratings.formula` where the seed leaves them open:
exact ratings are integers of 1e-10 points, averages come from exact integer sums, and every
tournament's result is rounded to 10 decimals (half to even, as Python's ``round``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ratings.parameters import BUCHHOLZ_SCALE, RATING_SCALE


@dataclass(frozen=True, slots=True)
class Entry:
    """One player's result in one tournament."""

    player: str
    wins: int
    draws: int
    losses: int
    buchholz: int
    """Buchholz in 1e-4 points."""


@dataclass(frozen=True, slots=True)
class Event:
    k: int
    entries: tuple[Entry, ...]


def expected_score(games: int, m_a: float, m_avg: float, ratio: float, scale: float) -> float:
    """E_A = N / (1 + 10^((M_avg * (1 + (B_A/B_avg - 1)/2) - M_A) / 400)) (seed section 1)."""
    m_opp = m_avg * (1.0 + (ratio - 1.0) / 2.0)
    power: float = 10.0 ** ((m_opp - m_a) / scale)
    return games / (1.0 + power)


def rate_events(
    events: Iterable[Event],
    start: Mapping[str, int] | None = None,
    *,
    initial: int = 1000 * RATING_SCALE,
    scale: float = 400.0,
) -> dict[str, int]:
    """Rate events in order; returns every player's exact rating (1e-10 points) afterwards."""
    ratings: dict[str, int] = dict(start or {})
    for event in events:
        for entry in event.entries:
            ratings.setdefault(entry.player, initial)
        playing = [e for e in event.entries if e.wins + e.draws + e.losses > 0]
        n = len(playing)
        if n == 0:
            continue
        sum_m = sum(ratings[e.player] for e in playing)
        sum_b = sum(e.buchholz for e in playing)
        m_avg = float(sum_m) / n / RATING_SCALE
        new: dict[str, int] = {}
        for e in playing:
            games = e.wins + e.draws + e.losses
            ratio = float(e.buchholz * n) / float(sum_b) if sum_b > 0 else 1.0
            m_a = float(ratings[e.player]) / RATING_SCALE
            expected = expected_score(games, m_a, m_avg, ratio, scale)
            points = e.wins + 0.5 * e.draws
            new[e.player] = ratings[e.player] + round(event.k * (points - expected) * RATING_SCALE)
        ratings.update(new)
    return ratings


assert RATING_SCALE % BUCHHOLZ_SCALE == 0
