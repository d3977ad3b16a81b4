"""Column headings as people type them: the one table of the names each column of a table may go
by, for every reader of tables (results, the registry, participant lists, a crosstable CSV).

A heading is compared *folded*: without regard to case, spaces, hyphens, underscores and dots,
so that ``Start Date``, ``start-date`` and ``START_DATE`` are ``start_date``, ``Player ID`` is
``player_id`` and Swiss-Manager's ``FIDE-ID`` is ``fide_id``. A folded heading is a column's
name, or one of its aliases below (Swiss-Manager's ``Fed`` and ``Rtg``, a spreadsheet's ``Date``).
Each reader knows its own columns; a heading that stands for none of them is refused, with the
closest of them when one is close (``did you mean 'end_date'?``), so that a misspelt column is
never silently ignored. The README's table of input columns is this table.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping

ALIASES: Mapping[str, tuple[str, ...]] = {
    "tournament": ("event", "event name", "tournament name"),
    "tournament_id": ("event id", "tournament key"),
    "start_date": ("start", "from", "date from"),
    "end_date": ("date", "end", "to", "date to"),
    "player_id": ("id", "pid", "member id"),
    "name": ("player", "player name", "full name"),
    "country": ("fed", "federation", "nation", "nat", "land", "pays"),
    "club": ("club/city", "verein"),
    "title": ("tit", "titel", "titre"),
    "fide_id": ("fide", "fide no", "fide number"),
    "egd_pin": ("pin", "egd"),
    "wins": ("won", "w"),
    "draws": ("drawn", "d"),
    "losses": ("lost", "l"),
    "buchholz": ("bh", "buch"),
    "rank": ("strength", "str", "grade"),
    "rating": ("rtg", "elo"),
    "bye": ("round 1 bye",),
    "mms_correction": ("smms correction",),
    "no": ("number", "nr", "sno", "start no", "starting number"),
    "points": ("pts", "score"),
}
"""Each column's other names, as written (they are folded when compared). A column not named here
goes by its own name only."""

_IGNORED = re.compile(r"[\s\-_.]+")


def fold(heading: str) -> str:
    """``heading`` as it is compared: lower case, without a BOM, spaces, hyphens, underscores
    and dots."""
    return _IGNORED.sub("", heading.lstrip("\ufeff").lower())


def _names(known: Collection[str]) -> dict[str, str]:
    """Every folded name of the columns in ``known``, with the column it stands for."""
    names: dict[str, str] = {}
    for column in known:
        for written in (column, *ALIASES.get(column, ())):
            names.setdefault(fold(written), column)
    return names


def canonical(heading: str, known: Collection[str]) -> str | None:
    """The column of ``known`` that ``heading`` stands for; None when it stands for none."""
    return _names(known).get(fold(heading))


LONGEST_COMPARED = 64
"""Longest heading compared with the known names: a longer one is not a misspelling."""


def closest(heading: str, known: Collection[str]) -> str | None:
    """The column of ``known`` whose name or alias is closest to ``heading``, when it is close
    enough to be what was meant (a similarity of 75 of 100, rapidfuzz's ratio of the folded
    texts: ``enddate`` for ``end_date``, ``tournamnet`` for ``tournament``)."""
    folded = fold(heading)
    if not folded or len(folded) > LONGEST_COMPARED:
        return None
    from rapidfuzz import fuzz, process  # for a misspelt heading only

    names = _names(known)
    found = process.extractOne(folded, list(names), scorer=fuzz.ratio, score_cutoff=75)
    return None if found is None else names[found[0]]


def unknown(heading: str, known: Collection[str], listed: Collection[str] | None = None) -> str:
    """What a problem about the unknown column ``heading`` says was expected: the known columns
    (``listed``, else ``known``), and the closest one when one is close."""
    suggestion = closest(heading, known)
    names = ", ".join(known if listed is None else listed)
    hint = f"; did you mean {suggestion!r}?" if suggestion is not None else ""
    return f"unknown column (expected: {names}){hint}"
