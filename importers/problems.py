"""What every reader does with the problems it finds: collect them all, then report them together
(SPEC 4.4: every problem of a file in one error, each naming the file, line, column and value)."""

from __future__ import annotations

import typing
from collections.abc import Collection
from dataclasses import replace

from ratings.countries import UNKNOWN, is_unknown
from ratings.crosstable import Crosstable
from ratings.errors import InputError, Problem
from ratings.tiebreaks.validation import validate


class ProblemLog:
    """The problems found so far in one file, and the warnings: places where a lenient reader had
    to guess (a guess is never silent; a real inconsistency is a problem, never a warning)."""

    country_column = "country"
    """Where the format writes a player's country, as a warning names it."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.problems: list[Problem] = []
        self.warnings: list[Problem] = []

    def warn(self, line: int | None, column: str | None, value: str | None, guess: str) -> None:
        """Record that the reader read ``value`` as ``guess`` rather than refusing it."""
        self.warnings.append(Problem(self.source, line, column, value, guess))

    def problem(
        self, line: int | None, column: str | None, value: str | None, expected: str
    ) -> None:
        self.problems.append(Problem(self.source, line, column, value, expected))

    def fail(self) -> typing.NoReturn:
        """Stop reading: raise every problem found, in line order."""
        raise InputError(sorted(self.problems, key=lambda p: p.line or 0))

    def finish(
        self, crosstable: Crosstable, unread: Collection[tuple[int, int]] = ()
    ) -> Crosstable:
        """The crosstable a reader built, once its games pass the one shared check of every
        pairing (:func:`~ratings.tiebreaks.validation.validate`); else raise what that check
        finds with the reader's own problems. ``unread`` holds (player index, round) of the cells
        the reader could not read, already among its problems.

        A player's country that names no country (``???``, a club's code) becomes unknown, with
        a warning naming the line and the value, for every format alike."""
        self.problems.extend(validate(crosstable, unread))
        if self.problems:
            self.fail()
        return self.known_countries(crosstable)

    def known_countries(self, crosstable: Crosstable) -> Crosstable:
        """``crosstable`` with each country no table knows stored as unknown, and warned of."""
        unknown = [i for i, p in enumerate(crosstable.players) if is_unknown(p.country)]
        if not unknown:
            return crosstable
        warned = [
            Problem(self.source, p.line, self.country_column, p.country, UNKNOWN)
            for p in (crosstable.players[i] for i in unknown)
        ]
        players = list(crosstable.players)
        for i in unknown:
            players[i] = replace(players[i], country=None)
        warnings = sorted((*crosstable.warnings, *warned), key=lambda w: w.line or 0)
        return replace(crosstable, players=tuple(players), warnings=tuple(warnings))
