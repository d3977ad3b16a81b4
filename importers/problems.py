"""What every reader does with the problems it finds: collect them all, then report them together
(SPEC 4.4: every problem of a file in one error, each naming the file, line, column and value)."""

from __future__ import annotations

import typing
from collections.abc import Collection
from dataclasses import replace

import polars as pl

from ratings.countries import UNKNOWN, is_unknown
from ratings.crosstable import Crosstable
from ratings.errors import MAX_SHOWN, InputError, Problem, shortened
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


ROWS_SHOWN = MAX_SHOWN
"""Most rows one check of a table names; the rest are counted in one more problem."""


def problem_rows(
    frame: pl.DataFrame,
    source: str,
    column: str,
    condition: pl.Expr,
    expected: str,
    shown: str | None = None,
    *,
    line: str,
) -> list[Problem]:
    """A problem for each row of ``frame`` where ``condition`` holds, naming its ``line`` and the
    value of ``column`` (called ``shown`` in the file, when another name), cut to a message's
    length. Past ``ROWS_SHOWN`` rows the last problem counts the rest: a file of a million bad
    rows is told in a hundred lines, without a million problems built first."""
    found = frame.filter(condition.fill_null(False)).select(line, column)
    name = shown or column
    problems = [
        Problem(source, number, name, None if value is None else shortened(str(value)), expected)
        for number, value in found.head(ROWS_SHOWN).rows()
    ]
    note_rest(problems, found.height)
    return problems


def note_rest(problems: list[Problem], rows: int) -> None:
    """When a check found ``rows`` rows and named only the first ``ROWS_SHOWN`` of them, say so
    in the last of ``problems``: that many more rows after it are wrong the same way."""
    if rows > ROWS_SHOWN and problems:
        last = problems[-1]
        more = f" (and {rows - ROWS_SHOWN:,} more rows like this after it)"
        problems[-1] = replace(last, expected=last.expected + more)
