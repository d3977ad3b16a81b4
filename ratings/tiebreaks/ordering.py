"""Standing order: players sorted by score and tie-breaks, equal players sharing a place."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from fractions import Fraction

from ratings.tiebreaks.criteria import Standing

CRITERIA: tuple[str, ...] = tuple(
    f.name for f in fields(Standing) if f.name not in ("index", "name")
)
"""Names ``ordered`` accepts: every numeric field of :class:`Standing`."""


@dataclass(frozen=True, slots=True)
class Placed:
    """A standing with its place; players equal on every criterion share the place."""

    place: int
    standing: Standing
    shared: bool
    """True when another player has the same place."""


def _key(standing: Standing, criteria: Sequence[str]) -> tuple[Fraction, ...]:
    values: list[Fraction] = []
    for name in criteria:
        value = getattr(standing, name)
        if value is None:
            raise ValueError(f"criterion {name!r} does not apply to this event (no McMahon score)")
        values.append(Fraction(value))
    return tuple(values)


def ordered(
    standings: Sequence[Standing], criteria: Sequence[str] = ("score", "sos", "sosos")
) -> tuple[Placed, ...]:
    """``standings`` best first by ``criteria`` (each higher is better), then by file order.

    Places follow the usual convention (and OpenGotha's ``positionStrings``): equal players share
    the place of the first of them, the next player's place counts everyone above him.
    """
    unknown = [c for c in criteria if c not in CRITERIA]
    if unknown:
        raise ValueError(f"unknown criterion {unknown[0]!r}, expected one of {', '.join(CRITERIA)}")
    keyed = sorted(
        ((_key(s, criteria), s) for s in standings),
        key=lambda pair: (tuple(-v for v in pair[0]), pair[1].index),
    )
    places: list[int] = []
    for position, (key, _) in enumerate(keyed):
        tied = position > 0 and key == keyed[position - 1][0]
        places.append(places[-1] if tied else position + 1)
    counts = {p: places.count(p) for p in places}
    return tuple(
        Placed(place, standing, counts[place] > 1)
        for place, (_, standing) in zip(places, keyed, strict=True)
    )
