"""What every reader does with the problems it finds: collect them all, then report them together
(SPEC 4.4: every problem of a file in one error, each naming the file, line, column and value)."""

from __future__ import annotations

import typing
from collections.abc import Collection

from ratings.crosstable import Crosstable
from ratings.errors import InputError, Problem
from ratings.tiebreaks.validation import validate


class ProblemLog:
    """The problems found so far in one file, and the warnings: places where a lenient reader had
    to guess (a guess is never silent; a real inconsistency is a problem, never a warning)."""

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
        the reader could not read, already among its problems."""
        self.problems.extend(validate(crosstable, unread))
        if self.problems:
            self.fail()
        return crosstable
