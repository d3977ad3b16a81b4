"""The tier of a tournament: what sets its k, besides a grandmaster playing (seed 004, section 1).

The values are what the database stores and what results files and the command line write.
"""

from __future__ import annotations

from enum import StrEnum


class Tier(StrEnum):
    """How much a tournament weighs in the rating."""

    REGULAR = "regular"
    """Any tournament that is not a championship: k 5, or 10 when a grandmaster played."""
    NATIONAL = "national"
    """A national championship: k 20 whoever played."""
    INTERNATIONAL = "international"
    """An international championship: k 30 whoever played."""


TIERS: tuple[str, ...] = tuple(tier.value for tier in Tier)
"""The tiers' names as written, from the lightest."""
