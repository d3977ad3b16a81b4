"""The participant list of an upcoming event, as the seeding reads it (SPEC 7).

:func:`importers.participants.read_participants` builds it from a file; the seed lists of
:mod:`exporters.seeding` are made from it.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from ratings.errors import Problem


@dataclass(frozen=True, slots=True)
class Participants:
    """A checked participant list."""

    source: str
    rows: pl.DataFrame
    """line, player_id, name, name_key, country, title, rank (``3k``/``2d``), rating (exact
    1e-10 points, null when the file gives none), bye (bool), mms_correction (int), in file order."""
    warnings: tuple[Problem, ...] = ()
    """The reader's guesses (a file read as Windows-1252)."""
