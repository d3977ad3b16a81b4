"""The one error hierarchy of the service.

Every error a user can cause derives from :class:`RatingsError`; the command line turns any of them
into a message and a non-zero exit code in one place. Errors about input files carry a list of
:class:`Problem`, each naming the file, line, column and value, so that a rejected file reports every
problem at once.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with an input file, located as precisely as the format allows."""

    file: str
    line: int | None
    column: str | None
    value: str | None
    expected: str

    def __str__(self) -> str:
        where = [self.file]
        if self.line is not None:
            where.append(f"line {self.line}")
        if self.column is not None:
            where.append(f"column {self.column!r}")
        text = ", ".join(where)
        if self.value is not None:
            text += f": value {self.value!r}"
        return f"{text}: {self.expected}"


MAX_SHOWN = 100
"""Most problems an error message lists; the rest are counted."""


class RatingsError(Exception):
    """Base class of every error the service reports to its user."""


class InputError(RatingsError):
    """An input file (or several) cannot be imported; ``problems`` lists everything found."""

    def __init__(self, problems: Iterable[Problem]) -> None:
        self.problems: tuple[Problem, ...] = tuple(problems)
        if not self.problems:
            raise ValueError("an InputError needs at least one problem")
        super().__init__(self._text())

    def _text(self) -> str:
        count = len(self.problems)
        head = f"{count} problem{'s' if count != 1 else ''} found:"
        shown = [f"  {p}" for p in self.problems[:MAX_SHOWN]]
        if count > MAX_SHOWN:
            # A header of a million unknown columns must not become a million lines.
            shown.append(f"  ... and {count - MAX_SHOWN} more")
        return "\n".join([head, *shown])


class DuplicateTournamentError(RatingsError):
    """A tournament key is already in the database and ``--replace`` was not given."""


class UnknownPlayerError(RatingsError):
    """A player id or name that the database does not know."""


class UnknownListError(RatingsError):
    """A published list period that does not exist."""


class ListExistsError(RatingsError):
    """A list for the period is already published and ``--republish`` was not given."""


class NotRatedError(RatingsError):
    """Tournaments that a list must include are imported but not rated yet."""


class MergeError(RatingsError):
    """Two players cannot be merged (same player, already merged, or both in one tournament)."""


class JobLockedError(RatingsError):
    """Another job holds the database's job lock."""


class OutputError(RatingsError):
    """An output file cannot be written where it was asked for."""


class ConfigurationError(RatingsError):
    """A setting has a value the service cannot use."""


class DatabaseError(RatingsError):
    """The database named by the settings cannot be opened."""


class DatabaseUrlError(DatabaseError, ConfigurationError):
    """``database_url`` is not a URL the service can open."""


class DatabaseUnreachableError(DatabaseError):
    """The database server does not answer at the address the URL names."""


class DatabaseLoginError(DatabaseError):
    """The database server refuses the URL's user or password."""


class MissingDatabaseError(DatabaseError):
    """The database the URL names does not exist (yet)."""


def collect(problems: Sequence[Problem]) -> None:
    """Raise an :class:`InputError` if ``problems`` is not empty."""
    if problems:
        raise InputError(problems)
