"""The one error hierarchy of the service.

Every error a user can cause derives from :class:`RatingsError`; the command line turns any of them
into a message and a non-zero exit code in one place. Errors about input files carry a list of
:class:`Problem`, each naming the file, line, column and value, so that a rejected file reports every
problem at once.

Each class takes the values its problem is about and builds its sentence from them, so that the
code raising it passes values, not sentences, and a message reads the same wherever it is raised.
A ``ValueError`` stays what it is, a mistake in the code (a wrong format name passed by a caller):
the command line and the web service never present one as the user's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime

from ratings.wording import counted


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with an input file, located as precisely as the format allows."""

    file: str
    line: int | None
    column: str | None
    value: str | None
    expected: str

    def __str__(self) -> str:
        # Every part is cut, not only the value: a header cell of a megabyte is a column's name,
        # and a reader's own error may quote a whole line of the file.
        where = [shortened(self.file)]
        if self.line is not None:
            where.append(f"line {self.line}")
        if self.column is not None:
            where.append(f"column {shortened(self.column)!r}")
        text = ", ".join(where)
        if self.value is not None:
            text += f": value {shortened(self.value)!r}"
        return f"{text}: {shortened(self.expected, EXPECTED_SHOWN)}"


SHOWN = 80
"""Most characters of a value, a file or a column name a message shows: a message is one line
read on a terminal."""
EXPECTED_SHOWN = 400
"""Most characters of what a problem says was expected (a list of the known columns fits)."""


_CUT = re.compile(r"… \([\d,]+ characters\)\Z")


def shortened(text: str, limit: int = SHOWN) -> str:
    """``text`` as a message shows it: when longer than ``limit``, its first ``limit - 20``
    characters, an ellipsis and its length (a cell of a megabyte is shown by its start). A text
    already cut is left as it is. Every message of the command line and the site cuts what it
    quotes here."""
    if len(text) <= limit or (len(text) <= limit + 20 and _CUT.search(text)):
        return text
    return f"{text[: limit - 20]}… ({len(text):,} characters)"


MAX_SHOWN = 20
"""Most problems an error message lists, the rest counted: an error fits on a screen."""


class RatingsError(Exception):
    """Base class of every error the service reports to its user."""

    def listed(self, shown: int | None = MAX_SHOWN) -> str:
        """The message with at most ``shown`` items of the list it holds (a file's problems,
        the names to review, the tournaments of a merge refused), the rest counted; None: every
        item. ``str(error)`` is the message with ``MAX_SHOWN`` of them, which fits a screen."""
        return str(self)


def paged(items: Sequence[str], shown: int | None, more: str = "more") -> list[str]:
    """``items`` cut to the first ``shown`` (None: all), with a last line counting the rest."""
    if shown is None or len(items) <= shown:
        return list(items)
    return [*items[:shown], f"  ... and {len(items) - shown} {more}"]


class InputError(RatingsError):
    """An input file (or several) cannot be imported; ``problems`` lists everything found."""

    def __init__(self, problems: Iterable[Problem]) -> None:
        self.problems: tuple[Problem, ...] = tuple(problems)
        if not self.problems:
            raise ValueError("an InputError needs at least one problem")
        super().__init__(self.listed())

    def listed(self, shown: int | None = MAX_SHOWN) -> str:
        # A header of a million unknown columns must not become a million lines.
        head = f"{counted(len(self.problems), 'problem')} found:"
        return "\n".join([head, *paged([f"  {p}" for p in self.problems], shown)])


@dataclass(frozen=True, slots=True)
class Candidate:
    """A known player an uncertain name may be."""

    score: float
    """Similarity of the names, 0-100."""
    player: int
    """Database id."""
    federation_id: str
    name: str
    country: str | None
    last_event: str | None = None

    def __str__(self) -> str:
        last = f"last played {self.last_event}" if self.last_event else "no event yet"
        return (
            f"{self.score:5.1f}  {self.federation_id}  {self.name}  {self.country or '-'}  {last}"
        )


@dataclass(frozen=True, slots=True)
class Uncertain:
    """A name in a file that the import does not decide alone, and why."""

    source: str
    line: int | None
    name: str
    country: str | None
    reason: str
    candidates: tuple[Candidate, ...]

    def __str__(self) -> str:
        where = f"{self.source}, line {self.line}" if self.line is not None else self.source
        head = f"{where}: {self.name!r} ({self.country or 'no country'}): {self.reason}"
        if not self.candidates:
            return head + "\n      (no known player is close)"
        return "\n".join([head, *(f"      {c}" for c in self.candidates)])


class ReviewError(RatingsError):
    """Names in the files may be known players: the officer says who they are before any is
    created (``--map``)."""

    def __init__(self, uncertain: Iterable[Uncertain]) -> None:
        self.uncertain: tuple[Uncertain, ...] = tuple(uncertain)
        super().__init__(self.listed())

    def listed(self, shown: int | None = MAX_SHOWN) -> str:
        head = (
            f"{counted(len(self.uncertain), 'name needs', 'names need')} a review before "
            "import; answer with --map FILE (lines: name,player_id or name,new):"
        )
        names = paged([f"  {u}" for u in self.uncertain], shown, "more names")
        return "\n".join([head, *names])


class DuplicateTournamentError(RatingsError):
    """A tournament key is already in the database and ``--replace`` was not given."""

    def __init__(self, key: str) -> None:
        self.key = key
        super().__init__(f"the tournament {key} is already imported (use --replace to correct it)")


class UnknownPlayerError(RatingsError):
    """A player id that the database does not know, or knows only as merged into another."""

    def __init__(self, player_id: str, *, merged: bool = False) -> None:
        self.player_id = player_id
        self.merged = merged
        super().__init__(
            f"player {player_id} was merged into another player"
            if merged
            else f"no player has the id {player_id}"
        )


class PlayerNameError(RatingsError):
    """A name a player cannot be given: empty, or longer than the registry keeps."""

    def __init__(self, player_id: str, name: str, reason: str) -> None:
        self.player_id = player_id
        self.name = name
        self.reason = reason
        shown = name if len(name) <= 60 else name[:60] + "..."
        super().__init__(f"cannot rename player {player_id} to {shown!r}: {reason}")


class UnknownEventError(RatingsError):
    """An event key that the database does not know."""


class NoStandingsError(UnknownEventError):
    """An event imported as a results table: without its rounds it has no standings."""

    def __init__(self, key: str) -> None:
        self.key = key
        super().__init__(
            f"the event {key} was imported as a results table, without its rounds: it has no "
            "standings (its page shows each player's rated games)"
        )


class UnknownListError(RatingsError):
    """A published list that does not exist (or a name that cannot be a list's)."""

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(self._text())

    def _text(self) -> str:
        return f"no list {self.name} has been published"


class PeriodError(UnknownListError):
    """A list period not written ``YYYY-MM``."""

    def _text(self) -> str:
        return f"a list period is written YYYY-MM, not {self.name!r}"


class ListVersionError(UnknownListError):
    """A list version (after the ``@`` of ``YYYY-MM@N``) that is not a number."""

    def __init__(self, period: str, version: str) -> None:
        self.period = period
        self.version = version
        super().__init__(f"{period}@{version}")

    def _text(self) -> str:
        return f"a list version is a number, as in {self.period}@2, not {self.version!r}"


class ListExistsError(RatingsError):
    """A list for the period is already published and ``--republish`` was not given."""

    def __init__(self, period: str, version: int, published: datetime) -> None:
        self.period = period
        self.version = version
        self.published = published
        super().__init__(
            f"the {period} list is already published (version {version}, "
            f"{published:%Y-%m-%d %H:%M}); use --republish to publish a new version"
        )


class NotRatedError(RatingsError):
    """Tournaments that a list must include are imported but not rated yet."""

    SHOWN = 5
    """How many of the tournaments the message names."""

    def __init__(self, cutoff: date, tournaments: Sequence[str]) -> None:
        self.cutoff = cutoff
        self.tournaments = tuple(tournaments)
        shown = ", ".join(self.tournaments[: self.SHOWN])
        more = " ..." if len(self.tournaments) > self.SHOWN else ""
        super().__init__(
            f"{counted(len(self.tournaments), 'tournament')} ending by {cutoff} "
            f"{'is' if len(self.tournaments) == 1 else 'are'} not rated yet "
            f"({shown}{more}): run `ratings run` first"
        )


class EmptyListError(RatingsError):
    """No player is rated by a list's cut-off: a list of nobody (mean 0, drift minus the
    initial rating) is never published, as it is what a job run on the wrong or an empty
    database would otherwise report as a success."""

    def __init__(self, period: str, cutoff: date) -> None:
        self.period = period
        self.cutoff = cutoff
        super().__init__(
            f"the {period} list would have no player: nobody is rated by its cut-off {cutoff}"
            " (import results and rate them first, or check that database_url is the"
            " federation's database)"
        )


class StaleRatingsError(RatingsError):
    """The ratings wait for a re-rating (after a merge, a title change, a correction or changed
    rating parameters): a list frozen now would be stale."""

    def __init__(self, reason: str, command: str) -> None:
        self.reason = reason
        self.command = command
        super().__init__(f"{reason}: run `{command}` first")


class MergeError(RatingsError):
    """Two players cannot be merged (same player, already merged, or both in one tournament)."""


class SelfMergeError(MergeError):
    """A player cannot be merged into himself."""

    def __init__(self, player_id: str) -> None:
        self.player_id = player_id
        super().__init__(f"cannot merge player {player_id} into itself")


class AlreadyMergedError(MergeError):
    """One of the two players is already merged into another player."""

    def __init__(self, player_id: str, *, kept: bool) -> None:
        self.player_id = player_id
        self.kept = kept
        super().__init__(
            f"player {player_id} was itself merged into another player"
            if kept
            else f"player {player_id} is already merged"
        )


class SharedTournamentsError(MergeError):
    """Both players played in one tournament, so they are two people."""

    def __init__(self, keep: str, duplicate: str, tournaments: Sequence[str]) -> None:
        self.keep = keep
        self.duplicate = duplicate
        self.tournaments = tuple(tournaments)
        super().__init__(self.listed())

    def listed(self, shown: int | None = MAX_SHOWN) -> str:
        names = ", ".join(self.tournaments[:shown])
        if shown is not None and len(self.tournaments) > shown:
            count = len(self.tournaments)
            names = f"{count:,} tournaments, {names} and {count - shown:,} more"
        return (
            f"players {self.keep} and {self.duplicate} both played in {names}: they cannot be "
            "one person"
        )


class DifferentIdsError(MergeError):
    """The two players hold different ids of one scheme (two FIDE ids): two people."""

    def __init__(self, keep: str, duplicate: str, scheme: str, values: tuple[str, str]) -> None:
        self.keep = keep
        self.duplicate = duplicate
        self.scheme = scheme
        self.values = values
        super().__init__(
            f"players {keep} and {duplicate} have different {scheme} ids ({values[0]} and "
            f"{values[1]}): they cannot be one person"
        )


class UnmergeError(RatingsError):
    """A merge cannot be undone: the player was never merged, or the merge predates the record
    of the results it moved."""


class NotMergedError(UnmergeError):
    """The player is not merged into another player."""

    def __init__(self, player_id: str) -> None:
        self.player_id = player_id
        super().__init__(f"player {player_id} is not merged into another player")


class OtherMergeError(UnmergeError):
    """The player was merged, but into another player than the one named."""

    def __init__(self, player_id: str, named: str, kept: str) -> None:
        self.player_id = player_id
        self.named = named
        self.kept = kept
        super().__init__(f"player {player_id} was merged into {kept}, not into {named}")


class UnrecordedMergeError(UnmergeError):
    """A merge made before merges recorded the tournaments they moved."""

    def __init__(self, player_id: str, kept: str, merged_at: datetime) -> None:
        self.player_id = player_id
        self.kept = kept
        self.merged_at = merged_at
        super().__init__(
            f"the merge of {player_id} into {kept} ({merged_at:%Y-%m-%d}) was made before merges "
            "recorded the results they moved: which results to give back is not known, so it "
            "cannot be undone"
        )


class ConfirmationError(RatingsError):
    """A command that changes stored history needs a yes: on a terminal it asks, elsewhere
    ``--yes`` gives it."""

    def __init__(self, action: str) -> None:
        self.action = action
        super().__init__(
            f"{action} needs a confirmation: run it on a terminal to be asked, or add --yes"
        )


class JobLockedError(RatingsError):
    """Another job holds the database's job lock."""

    def __init__(self, waited: float) -> None:
        self.waited = waited
        waiting = f" (waited {waited:g} s)" if waited else ""
        super().__init__(
            f"another job is running on this database{waiting}; try again when it has finished"
        )


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


class ArchiveError(RatingsError):
    """A backup archive that cannot be restored: missing, damaged, truncated or not an archive;
    ``reason`` says what is wrong."""

    def __init__(self, path: object, reason: str) -> None:
        self.path = str(path)
        self.reason = reason
        # The officer's own path, shown whole: it is what to look for on the disk.
        super().__init__(f"the archive {self.path} cannot be used: {reason}")


class ArchiveRevisionError(ArchiveError):
    """An archive made at a schema revision this version of the software does not know."""

    def __init__(self, path: object, revision: str, newest: str | None) -> None:
        self.revision = revision
        super().__init__(
            path,
            f"it was made at schema revision {revision}, which this version does not know"
            f" (its newest is {newest}): restore it with a newer version",
        )


class RestoreRefusedError(RatingsError):
    """A restore into a database that already holds data."""

    def __init__(self, database: str, table: str) -> None:
        self.database = database
        self.table = table
        super().__init__(
            f"the database {database} holds data (table {table}); nothing was changed:"
            " restore into an empty database, or add --force to replace everything in it"
        )


class TimeZoneError(ConfigurationError):
    """The ``timezone`` setting is not a time zone."""

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"timezone must be an IANA time zone such as Europe/Zurich, not {name!r}")


class ScheduleError(ConfigurationError):
    """The ``schedule`` setting is not a cron expression; ``reason`` says what is wrong."""

    def __init__(self, expression: str, reason: str, setting: str = "schedule") -> None:
        self.expression = expression
        self.reason = reason
        self.setting = setting
        super().__init__(f"{setting} {expression!r} is not a cron expression: {reason}")


class SeedingOptionError(RatingsError):
    """A seed-list option that cannot work (the web service answers 422, the command line shows
    its usage)."""


class OptionValueError(SeedingOptionError):
    """An option whose value is not one it can take; ``expected`` says which it can."""

    def __init__(self, option: str, value: object, expected: str) -> None:
        self.option = option
        self.value = value
        self.expected = expected
        super().__init__(f"{option} must be {expected}, not {value!r}")


class SwissOnlyOptionError(SeedingOptionError):
    """An option of Swiss seeding given for a McMahon event, which its initial scores order."""

    def __init__(self, option: str, value: str) -> None:
        self.option = option
        self.value = value
        super().__init__(
            f"{option} {value} orders a Swiss seed list; a McMahon event is seeded by its "
            "initial scores (leave it out, or give the system swiss)"
        )


class NamelessOptionError(SeedingOptionError):
    """An option that names something (a class) with an empty name."""

    def __init__(self, option: str) -> None:
        self.option = option
        super().__init__(f"{option} needs a name, not an empty string")


class TableOptionError(SeedingOptionError):
    """A table of (lowest whole rating, label) rows that cannot be read from the top down."""


class EmptyTableError(TableOptionError):
    """A table without rows."""

    def __init__(self, table: str) -> None:
        self.table = table
        super().__init__(f"the {table} needs at least one row, not none")


class TableBoundError(TableOptionError):
    """A bound that is not a whole rating."""

    def __init__(self, table: str, bound: object) -> None:
        self.table = table
        self.bound = bound
        super().__init__(f"the {table} needs whole ratings as bounds, not {bound!r}")


class TableLabelError(TableOptionError):
    """A row's label that is not what the table holds (``expected``)."""

    def __init__(self, table: str, bound: int, label: object, expected: str) -> None:
        self.table = table
        self.bound = bound
        self.label = label
        self.expected = expected
        super().__init__(f"the {table} needs {expected} for {bound}, not {label!r}")


class TableOrderError(TableOptionError):
    """Two rows out of order: every bound must be below the one before it."""

    def __init__(self, table: str, high: tuple[int, str], low: tuple[int, str]) -> None:
        self.table = table
        self.high = high
        self.low = low
        super().__init__(
            f"the {table} must go from the highest bound down: {low[0]} ({low[1]}) comes "
            f"after {high[0]} ({high[1]})"
        )


class BarBelowFloorError(SeedingOptionError):
    """A McMahon bar below the floor; each is a Go rank or an initial score."""

    def __init__(self, bar: str | int, floor: str | int) -> None:
        self.bar = bar
        self.floor = floor
        super().__init__(
            f"the bar ({_limit_text(bar)}) must not be below the floor ({_limit_text(floor)})"
        )


@dataclass(frozen=True, slots=True)
class SeedCandidate:
    """A player of the rating list that a participant's name may be."""

    player_id: str
    name: str
    country: str | None
    rating: int | None
    """The whole rating the list shows; None for a player without one."""

    def __str__(self) -> str:
        rating = "unrated" if self.rating is None else str(self.rating)
        return f"{self.player_id}  {self.name}  {self.country or '-'}  {rating}"


@dataclass(frozen=True, slots=True)
class UnclearParticipant:
    """A participant given by name only whose name the rating list does not settle: several
    players have it, or it is part of, or close to, the names of players the list has."""

    source: str
    line: int
    name: str
    country: str | None
    reason: str
    candidates: tuple[SeedCandidate, ...]
    more: int = 0
    """Candidates found beyond those listed."""

    def __str__(self) -> str:
        head = (
            f"{self.source}, line {self.line}: {self.name!r} ({self.country or 'no country'}): "
            f"{self.reason}"
        )
        rows = [f"      {c}" for c in self.candidates]
        if self.more:
            rows.append(f"      ... and {self.more} more (give the country to narrow them)")
        return "\n".join([head, *rows])


class UnclearParticipantsError(RatingsError):
    """Participants who may be one of several players of the rating list: the director gives
    their ids (or says they are newcomers) rather than the seed list guessing."""

    def __init__(self, unclear: Iterable[UnclearParticipant]) -> None:
        self.unclear: tuple[UnclearParticipant, ...] = tuple(unclear)
        if not self.unclear:
            raise ValueError("an UnclearParticipantsError needs at least one participant")
        super().__init__(self.listed())

    def listed(self, shown: int | None = MAX_SHOWN) -> str:
        count = len(self.unclear)
        one = count == 1
        head = (
            f"{count} participant{'' if one else 's'} may be {'a player' if one else 'players'} "
            f"of the rating list: give {'its' if one else 'each one'} player_id in the file "
            f"(or new for a newcomer); candidates as id, name, country, rating:"
        )
        return "\n".join([head, *paged([f"  {u}" for u in self.unclear], shown)])


def _limit_text(limit: str | int) -> str:
    return f"score {limit}" if isinstance(limit, int) else str(limit)


def collect(problems: Sequence[Problem]) -> None:
    """Raise an :class:`InputError` if ``problems`` is not empty."""
    if problems:
        raise InputError(problems)


class AccountError(RatingsError):
    """A command about the site's accounts cannot be done: a name taken or unknown, a role or
    a password that cannot be used."""


class UnknownAccountError(AccountError):
    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"no account is named {shortened(name)!r} (see `ratings users list`)")


class SubmissionStateError(RatingsError):
    """A submission cannot change that way any more (withdrawn after it was accepted, accepted
    twice)."""

    def __init__(self, submission: int, status: str, action: str) -> None:
        self.submission = submission
        self.status = status
        super().__init__(f"submission {submission} is {status}: it cannot be {action}")


class UnknownSubmissionError(RatingsError):
    def __init__(self, submission: int) -> None:
        self.submission = submission
        super().__init__(f"there is no submission {submission}")


class UnansweredNamesError(RatingsError):
    """Accepting a submission needs an answer for every name that may be a known player."""

    def __init__(self, names: Iterable[str]) -> None:
        self.names: tuple[str, ...] = tuple(names)
        listed = ", ".join(repr(shortened(n)) for n in self.names)
        super().__init__(
            f"{counted(len(self.names), 'name needs', 'names need')} an answer "
            f"(a player id or new): {listed}"
        )
