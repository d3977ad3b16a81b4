"""The whole number a list shows for an exact rating (SPEC 2, publication).

An exact rating is an integer count of 1e-10 points (:data:`~ratings.parameters.RATING_SCALE`). Lists,
exports, diffs and seed lists all show it through :func:`published` (one value) or
:func:`published_expr` (a column), so that every document rounds the same way.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING

from ratings.parameters import RATING_SCALE

if TYPE_CHECKING:
    # The columns' functions are given polars values; the settings read only the enum, and must
    # not load polars for it.
    import polars as pl


class Rounding(StrEnum):
    """How an exact rating becomes the whole number shown; the value is the setting's text."""

    HALF_UP = "half_up"
    """To the nearest whole point, halves up (towards +∞): 1499.5 → 1500, -3.5 → -3."""
    TRUNCATE = "truncate"
    """The whole points, towards zero: 1499.9 → 1499, -3.5 → -3."""


ROUNDINGS: tuple[str, ...] = tuple(rounding.value for rounding in Rounding)
"""The roundings' names as the settings and options write them."""


def _unknown(rounding: str) -> ValueError:
    return ValueError(f"rounding must be {' or '.join(ROUNDINGS)}, not {rounding!r}")


def published(units: int, rounding: str = Rounding.HALF_UP) -> int:
    """The whole number shown for the exact rating ``units``."""
    if rounding == Rounding.HALF_UP:
        return (int(units) + RATING_SCALE // 2) // RATING_SCALE
    if rounding == Rounding.TRUNCATE:
        value = abs(int(units)) // RATING_SCALE
        return value if units >= 0 else -value
    raise _unknown(rounding)


def published_expr(units: pl.Expr, rounding: str = Rounding.HALF_UP) -> pl.Expr:
    """:func:`published` of every value of an integer column of exact ratings."""
    import polars as pl

    if rounding == Rounding.HALF_UP:
        return (units + RATING_SCALE // 2) // RATING_SCALE
    if rounding == Rounding.TRUNCATE:
        return (
            pl.when(units >= 0).then(units // RATING_SCALE).otherwise(-((-units) // RATING_SCALE))
        )
    raise _unknown(rounding)


def mean_units(total: int, count: int) -> int:
    """The mean of ``count`` exact ratings whose sum is ``total`` (Python integers, which never
    wrap), in 1e-10 points rounded half up; 0 for none. Every mean of a pool of ratings (a
    list's, the live ranking's), summed by the database or by polars
    (:mod:`ratings.list_rules`), is rounded here."""
    return (2 * total + count) // (2 * count) if count else 0
