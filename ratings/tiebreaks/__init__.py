"""Tie-breaks of a crosstable: pure functions of a :class:`~ratings.crosstable.Crosstable`.

``compute(crosstable, Policy(...))`` gives one :class:`Standing` per player; ``ordered`` sorts them
into a standing with shared places; ``melo_buchholz`` is the Buchholz value the MELO rating uses;
``validate`` lists the inconsistencies of a crosstable. No file, database, settings or clock here.
"""

from ratings.go import McMahonScale
from ratings.tiebreaks.criteria import Standing, compute, melo_buchholz
from ratings.tiebreaks.ordering import CRITERIA, Placed, ordered
from ratings.tiebreaks.policy import MissedRounds, Policy
from ratings.tiebreaks.validation import validate

__all__ = [
    "CRITERIA",
    "McMahonScale",
    "MissedRounds",
    "Placed",
    "Policy",
    "Standing",
    "compute",
    "melo_buchholz",
    "ordered",
    "validate",
]
