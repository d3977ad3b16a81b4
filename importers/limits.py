"""What an import accepts must fit where it is stored and be plausible: every text within its
column's length (``ratings/storage/schema.py``), every count within a plausible bound, names
free of control characters and terminal escape sequences. A value the database would refuse
must be refused here, with its file, line and column, on every backend alike; and nothing an
import accepts may make a later rating run fail."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

import polars as pl

from importers.problems import problem_rows
from importers.result_columns import ResultsFile
from ratings.errors import InputError, Problem

MAX_GAMES = 1000
"""Most games one player can have in one event. The longest events (a season-long league, a
marathon of blitz) have a few hundred rounds; a count above this is a typing error, and would
give one event the weight of a career in the rating."""

RESULT_TEXT = {"player_id": 64, "name": 200, "country": 16, "club": 200, "title": 16}
"""Longest text per column of a result row: the players table's columns."""
TOURNAMENT_TEXT = {"key": 200, "name": 200}
"""Longest tournament key and name: the tournaments table's columns."""
SOURCE_COLUMN = {"key": "tournament", "name": "tournament"}
"""The input column a tournament's key and name come from."""

CLEANED = ("name", "club")
"""Free text that is cleaned of control characters (with a warning) rather than refused: ids,
countries and titles must be exact, so a control character there is a problem."""


@dataclasses.dataclass(frozen=True, slots=True)
class TableLimits:
    """How large a table may be once decoded, checked before it is decoded: a compressed
    workbook or Parquet file of a few kilobytes can hold gigabytes, and a row of a file is read
    into several objects. A file beyond a limit is refused with one problem saying which."""

    rows: int | None = None
    """Most rows (None: only the other limits bound them)."""
    columns: int = 1000
    """Most columns: a results table has about fifteen, a crosstable CSV one per round."""
    decoded: int = 256 * 1024 * 1024
    """Most bytes the cells may take once decoded: an XLSX workbook's unpacked members, a
    Parquet file's uncompressed pages and its text cells written out."""
    ratio: int = 100
    """Most an XLSX member may be compressed (unpacked size over packed size) once it is larger
    than a megabyte: a real sheet packs ten to twenty times, a zip bomb a thousand."""
    setting: str | None = None
    """The setting that raises ``decoded``, named in the refusal (None: a fixed limit)."""

    @property
    def cells(self) -> int:
        """Most cells (rows times columns), one per ``CELL_BYTES`` of ``decoded``: a cell
        costs its reader about 16 bytes however empty it is, so that a file of separators
        and newlines would otherwise hold ten times its size in cells."""
        return self.decoded // CELL_BYTES

    @property
    def json_rows(self) -> int:
        """Most rows of a JSON table, one per ``JSON_ROW_BYTES`` of ``decoded``: a JSON object
        is read into a dictionary of a few hundred bytes, ``{}`` as much as a full row."""
        return self.decoded // JSON_ROW_BYTES


CELL_BYTES = 16
"""Bytes of the decoded limit per cell a table may hold: 16.8 million cells at 256 MB, which
the reading and checking of a table hold in about a gigabyte (polars' cells, their text stripped,
the checks' columns, the file's bytes). A results file of seven columns at the default limit
may so have 2.4 million rows, some hundred megabytes of CSV; a larger history is a Parquet file
with ``input_limit_bytes`` raised. A file of little but separators has eight times more cells
than bytes and is refused from its line count."""
HEADER_CELL_BYTES = 100
"""Longest a CSV header line may be, in bytes per column the table may have: a header is read
before the lines are counted, and a file on one line is all header."""
JSON_ROW_BYTES = 512
"""Bytes of the decoded limit per row a JSON table may hold: 524,288 rows at 256 MB, which
Python's reader builds into dictionaries of about 800 bytes each (a result row in JSON takes
about 120 bytes of the file)."""


TABLES = TableLimits(setting="input_limit_bytes")
"""What a table read by the command line or the monthly job may be: it may decode to as much
as the default input file limit, so a compressed file cannot bring more than a plain one."""


def table_limits(input_limit: int) -> TableLimits:
    """What a table may be when input files may have ``input_limit`` bytes (the
    ``input_limit_bytes`` setting): raising that setting for a large history file raises what
    its compressed cells may decode to with it."""
    return dataclasses.replace(TABLES, decoded=input_limit)


CROSSTABLE_LIMITS = TableLimits(rows=100_000, decoded=256 * 1024 * 1024)
"""What a crosstable CSV may be: a row per player, and the largest open events have a few
thousand players; its lines are counted before anything is read."""

PARTICIPANTS = TableLimits(rows=10_000, columns=64, decoded=32 * 1024 * 1024)
"""What a participant file may be (the web's upload and ``ratings seed``): the largest open
events have a few thousand players, and a participant list has eight columns."""

# An escape sequence (CSI such as a colour, or OSC such as a window title) is removed whole, so
# no stray "[31m" remains; then every other C0/C1 control character, tabs and newlines included.
_ESCAPE = r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]?"
_CONTROL = r"[\x00-\x1f\x7f-\x9f]"


def clean_expr(column: str) -> pl.Expr:
    """``column`` without escape sequences and control characters."""
    return pl.col(column).str.replace_all(_ESCAPE, "").str.replace_all(_CONTROL, "")


def checked_results(file: ResultsFile) -> ResultsFile:
    """``file`` with its names cleaned (each cleaning a warning), or an InputError listing every
    value that does not fit."""
    results, tournaments, cleanings, problems = results_within_limits(
        file.results, file.tournaments, file.source
    )
    if problems:
        problems.sort(key=lambda p: (p.line or 0, p.column or ""))
        raise InputError(problems)
    warnings = (*file.warnings, *(w for group in cleanings for w in group))
    return dataclasses.replace(file, results=results, tournaments=tournaments, warnings=warnings)


def results_within_limits(
    results: pl.DataFrame, tournaments: pl.DataFrame, source: str
) -> tuple[pl.DataFrame, pl.DataFrame, list[list[Problem]], list[Problem]]:
    """The checks of :func:`checked_results` on a file's rows and tournaments (or a slice of
    them): the cleaned frames, the cleanings as warnings in one list per column (a file read in
    slices lists them column by column, as one read whole does), and the values that do not
    fit, unsorted."""
    cleanings: list[list[Problem]] = [[] for _ in range(len(CLEANED) + 2)]
    results = cleaned_apart(results, source, CLEANED, cleanings[: len(CLEANED)])
    # A crosstable's key is made of its name: both are cleaned.
    tournaments = cleaned_apart(
        tournaments, source, ("name", "key"), cleanings[len(CLEANED) :], SOURCE_COLUMN
    )
    games = pl.col("wins") + pl.col("draws") + pl.col("losses")
    problems = _checked_rows(
        results.with_columns(games.alias("games")), source,
        [
            *_text_checks(),
            ("games", pl.col("games") > MAX_GAMES,
             f"more than {MAX_GAMES} games in one event (wins + draws + losses)"),
        ],
        {"games": "wins"},
    )  # fmt: skip
    problems += _checked_rows(
        tournaments, source,
        [*_length_checks(TOURNAMENT_TEXT), ("key", _has_control("key"), _CONTROL_EXPECTED)],
        SOURCE_COLUMN,
    )  # fmt: skip
    return results, tournaments, cleanings, problems


_CONTROL_EXPECTED = "must not contain control characters"


def _has_control(column: str) -> pl.Expr:
    return pl.col(column).str.contains(_CONTROL)


def _text_checks() -> list[tuple[str, pl.Expr, str]]:
    """A result's or a registry player's texts: each within its column's length, and the ids,
    countries and titles, which must be exact, free of control characters."""
    exact = [(c, _has_control(c), _CONTROL_EXPECTED) for c in ("player_id", "country", "title")]
    return [*_length_checks(RESULT_TEXT), *exact]


def _length_checks(limits: Mapping[str, int]) -> list[tuple[str, pl.Expr, str]]:
    return [
        (column, pl.col(column).str.len_chars() > longest, f"longer than {longest} characters")
        for column, longest in limits.items()
    ]


def _checked_rows(
    frame: pl.DataFrame,
    source: str,
    checks: Sequence[tuple[str, pl.Expr, str]],
    names: Mapping[str, str],
) -> list[Problem]:
    """The problems of ``checks`` (a column, the condition that is wrong, what is expected) on
    ``frame``, in their order: one pass over the frame says which of them hold for some row, and
    only those list their rows (a valid slice was read once per check)."""
    problems: list[Problem] = []
    hits = _surveyed(frame, [condition for _, condition, _ in checks])
    for (column, condition, expected), hit in zip(checks, hits, strict=True):
        if hit:
            problems += _rows(frame, source, column, names, condition, expected)
    return problems


def _surveyed(frame: pl.DataFrame, conditions: Sequence[pl.Expr]) -> list[bool]:
    """Whether each of ``conditions`` holds for some row of ``frame``, all found in one pass."""
    if frame.height == 0 or not conditions:
        return [False] * len(conditions)
    found = frame.select(
        condition.fill_null(False).any().alias(f"_{i}") for i, condition in enumerate(conditions)
    )
    return [bool(hit) for hit in found.row(0)]


def checked_players(frame: pl.DataFrame, source: str, warnings: list[Problem]) -> pl.DataFrame:
    """A registry's players (with a ``line`` column) with names and clubs cleaned, or an
    InputError listing every value that does not fit the players table."""
    frame = cleaned(frame, source, CLEANED, warnings)
    problems = _checked_rows(frame, source, _text_checks(), {})
    if problems:
        problems.sort(key=lambda p: (p.line or 0, p.column or ""))
        raise InputError(problems)
    return frame


def cleaned(
    frame: pl.DataFrame,
    source: str,
    columns: tuple[str, ...],
    warnings: list[Problem],
    names: Mapping[str, str] | None = None,
    line: str = "line",
) -> pl.DataFrame:
    """``frame`` with ``columns`` cleaned of control characters; each value cleaned is added to
    ``warnings`` (``names`` maps a column to the input column it came from)."""
    return cleaned_apart(frame, source, columns, [warnings] * len(columns), names, line)


def cleaned_apart(
    frame: pl.DataFrame,
    source: str,
    columns: Sequence[str],
    warnings: Sequence[list[Problem]],
    names: Mapping[str, str] | None = None,
    line: str = "line",
) -> pl.DataFrame:
    """:func:`cleaned`, each column's warnings added to its own list of ``warnings``."""
    names = names or {}
    # Every escape sequence starts with a control character: only values holding one can
    # change, and looking for one (in every column at once) is far cheaper than cleaning.
    hits = _surveyed(frame, [pl.col(column).str.contains(_CONTROL) for column in columns])
    for column, found, hit in zip(columns, warnings, hits, strict=True):
        if not hit:
            continue
        clean = clean_expr(column)
        changed = frame.filter(pl.col(column).str.contains(_CONTROL)).select(
            line, column, clean.alias("_c")
        )
        for number, value, cleaned in changed.rows():
            found.append(
                Problem(
                    source, number, names.get(column, column), value,
                    f"control characters removed: read as {cleaned!r}",
                )
            )  # fmt: skip
        frame = frame.with_columns(clean.alias(column))
    return frame


def control_problems(
    frame: pl.DataFrame, source: str, columns: tuple[str, ...], line: str = "line"
) -> list[Problem]:
    """A problem for each value of ``columns`` holding a control character: an id, a country or
    a title must be exact, so it is refused rather than cleaned."""
    return [
        problem
        for column in columns
        for problem in _rows(
            frame.rename({line: "line"}) if line != "line" else frame,
            source,
            column,
            {},
            pl.col(column).str.contains(_CONTROL),
            "must not contain control characters",
        )
    ]


def _rows(
    frame: pl.DataFrame,
    source: str,
    column: str,
    names: Mapping[str, str],
    condition: pl.Expr,
    expected: str,
) -> list[Problem]:
    return problem_rows(
        frame, source, column, condition, expected, names.get(column, column), line="line"
    )
