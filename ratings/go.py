"""Go ranks and the McMahon scale: what a rank is worth, wherever a rank is read or shown.

Ranks sit on one integer scale, the one OpenGotha keeps them on: ``30k`` → −30, ``1k`` → −1,
``1d`` → 0, ``9d`` → 8. Kyu grades count down and dan grades up with no gap between 1k and 1d, so
the difference of two values is the number of grades between them. Participant lists, crosstable
readers, tie-breaks and seeding all read ranks through :func:`rank_value`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_RANK = re.compile(r"^(\d{1,2})\s*-?\s*(k|kyu|d|dan)$", re.IGNORECASE | re.ASCII)


def rank_value(rank: str) -> int | None:
    """A Go rank on the scale: ``30k`` → −30, ``1k`` → −1, ``1d`` → 0, ``9d`` → 8; else None.

    Case and blanks do not matter, and grades may be spelt out: ``3K``, ``3 kyu``, ``2-dan``.
    """
    match = _RANK.match(rank.strip())
    if match is None:
        return None
    number = int(match.group(1))
    if match.group(2).lower().startswith("k"):
        return -number if 1 <= number <= 30 else None
    return number - 1 if 1 <= number <= 9 else None


def rank_text(value: int) -> str:
    """The rank of a value of :func:`rank_value`: −3 → ``3k``, 1 → ``2d``."""
    return f"{-value}k" if value < 0 else f"{value + 1}d"


def initial_score(rank: int, *, zero: int, bar: int | None, floor: int | None) -> int:
    """The initial McMahon score of a rank value: the rank held between ``floor`` and ``bar``
    (None: no limit on that side), counted from ``zero`` (seed 001; OpenGotha's ``Player.smms``
    without the per-player correction)."""
    held = rank if bar is None else min(rank, bar)
    held = held if floor is None else max(held, floor)
    return held - zero


@dataclass(frozen=True, slots=True)
class McMahonScale:
    """Initial McMahon score from a Go rank, for files that give the rank but not the score.

    OpenGotha's rule (``Player.smms``): the rank's distance from ``zero``, with every rank at or
    above ``bar`` counted as the bar and every rank at or below ``floor`` as the floor. Seed 000's
    scale has ``zero="20k"``; OpenGotha's default is ``30k``.
    """

    bar: str = "9d"
    """Strongest rank with its own score (the McMahon bar)."""
    floor: str = "30k"
    """Weakest rank with its own score (the McMahon floor)."""
    zero: str = "30k"
    """Rank whose initial score is 0."""

    def initial(self, rank: str) -> int | None:
        """The initial score of ``rank``; None when ``rank`` (or the scale) is not a Go rank."""
        value, bar, floor, zero = (rank_value(r) for r in (rank, self.bar, self.floor, self.zero))
        if value is None or bar is None or floor is None or zero is None:
            return None
        return initial_score(value, zero=zero, bar=bar, floor=floor)


def handicap_stones(
    first: int, second: int, *, correction: int, ceiling: int, threshold: int | None
) -> int:
    """The handicap of a game between two strengths on the rank scale (Go ranks, or initial
    McMahon scores counted from the zero rank), OpenGotha's rule: each strength above
    ``threshold`` counts as the threshold (None: no threshold), so players at or above it play
    even; the difference less ``correction``, at least 0 and at most ``ceiling``. 0 is an even
    game; 1 a game without komi, the weaker player taking Black; n > 1 is n stones."""
    if threshold is not None:
        first, second = min(first, threshold), min(second, threshold)
    return max(0, min(abs(first - second) - correction, ceiling))
