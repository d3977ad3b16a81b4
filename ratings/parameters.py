"""The MELO formula's parameters and the exact units its ratings are counted in: what the settings,
the readers, the lists and the pages need of the formula without rating anything, so that they
load neither numpy nor numba (:mod:`ratings.formula` rates, and names all of these too).

Exactness (seed 004, section 2, point 10): an exact rating is an integer count of 1e-10 points
(``RATING_SCALE``) and a Buchholz value an integer count of 1e-4 points (``BUCHHOLZ_SCALE``).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from ratings.tiers import TIERS, Tier

RATING_SCALE = 10**10
"""Exact ratings are integers counting 1e-10 points: the seed's 10 decimal places."""
BUCHHOLZ_SCALE = 10**4
"""Buchholz values are integers counting 1e-4 points (half points and handicap-adjusted values fit)."""


@dataclass(frozen=True, slots=True)
class MeloParams:
    """The parameters of the formula, built once from the settings; the engine never reads settings.

    Every value is the seed's default (section 1 and section 2, point 4).
    """

    k_regular: int = 5
    """k for a regular tournament without a grandmaster playing."""
    k_grandmaster: int = 10
    """k for a regular tournament in which a player holding the GM title played a game."""
    k_national: int = 20
    """k for a national championship (wins over the GM rule)."""
    k_international: int = 30
    """k for an international championship (wins over the GM rule)."""
    initial_rating: int = 1000 * RATING_SCALE
    """Rating of a player at their first tournament, in 1e-10 points."""
    scale: float = 400.0
    """The 400 of ``10 ** (d / 400)``: a 190-point gap expects 3 of 4 points, 382 points 9 of 10."""

    def __post_init__(self) -> None:
        for name in ("k_regular", "k_grandmaster", "k_national", "k_international"):
            value = getattr(self, name)
            if value < 0:
                raise ValueError(f"{name} must not be negative, not {value}")
        if not self.scale > 0:
            raise ValueError(f"scale must be positive, not {self.scale}")

    def k_for(self, tier: str, grandmaster_played: bool) -> int:
        """k of a tournament: championship tiers win over the GM rule (seed section 1)."""
        if tier == Tier.INTERNATIONAL:
            return self.k_international
        if tier == Tier.NATIONAL:
            return self.k_national
        if tier == Tier.REGULAR:
            return self.k_grandmaster if grandmaster_played else self.k_regular
        names = f"{', '.join(TIERS[:-1])} or {TIERS[-1]}"
        raise ValueError(f"tier must be {names}, not {tier!r}")


def to_units(points: float | int | str) -> int:
    """An exact rating in 1e-10 points from a value in points (rounded half to even)."""
    return int((Decimal(str(points)) * RATING_SCALE).to_integral_value())


def format_hundredths(units: int) -> str:
    """An exact rating to two decimals, halves away from zero, e.g. ``1112.20`` (``0.00``, not
    ``-0.00``, for a value that rounds to nothing)."""
    hundredths = (abs(int(units)) + RATING_SCALE // 200) // (RATING_SCALE // 100)
    sign = "-" if units < 0 and hundredths else ""
    whole, frac = divmod(hundredths, 100)
    return f"{sign}{whole}.{frac:02d}"


def format_exact(units: int) -> str:
    """An exact rating with its 10 decimals, e.g. ``1112.1955337931``."""
    sign = "-" if units < 0 else ""
    whole, frac = divmod(abs(int(units)), RATING_SCALE)
    return f"{sign}{whole}.{frac:010d}"
