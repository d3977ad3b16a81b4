"""The canonical import: tournament results in long format (SPEC 4.1), one row per player per event.

:func:`read_results` reads and checks a file and returns a :class:`ResultsFile`; it never touches
the database. Every problem in the file is collected (SPEC 4.4) and reported in one
:class:`~ratings.errors.InputError`.
"""

from __future__ import annotations

import collections
import concurrent.futures
import dataclasses
import hashlib
from collections.abc import Iterator

import numpy as np
import polars as pl

from importers.interning import Distinct, own, row_hashes
from importers.limits import (
    MAX_GAMES,
    TABLES,
    TableLimits,
    clean_expr,
    cleaned_apart,
    results_within_limits,
)
from importers.names import name_key_expr
from importers.problems import ROWS_SHOWN
from importers.result_checks import (
    cell_problems,
    check_columns,
    given,
    to_date,
    too_many,
    tournament_problems,
)
from importers.result_columns import (
    COLUMNS,
    COMPACT,
    HUGE_BUCHHOLZ_TEXT,
    ID_TEXT,
    IDENTITY,
    INT_TEXT,
    OPTIONAL,
    TYPED,
    ResultsFile,
    SlicedResults,
)
from importers.tabular import LINE, ScatteredGroups, as_text, read_table_slices
from ratings.aside import aside
from ratings.countries import country_code_expr, unknown_countries
from ratings.errors import InputError, Problem
from ratings.parameters import BUCHHOLZ_SCALE
from ratings.tiers import TIERS, Tier

__all__ = [
    "COLUMNS",
    "SLICE_ROWS",
    "ResultsFile",
    "SlicedResults",
    "compact",
    "read_results",
    "read_results_sliced",
]

SLICE_ROWS = 100_000
"""Rows of a results table read, checked and stored at a time (whole tournaments): what the
import holds of a large file at once, besides the compact form of the rows it has checked."""

_hashes = row_hashes
"""The hash of each row by which the distinct players and names of a file are numbered."""


_TOLD_APART_BY = tuple(c for c in IDENTITY if c != "name_key")
"""The columns that tell a file's players apart: a name's key is the name folded, so rows alike
in these are alike in every ``IDENTITY`` column."""


class _Identities:
    """The distinct players of a file as its slices are read, each with the line of its first
    row; a row's player is its row number here. Only a new player's name is folded into its key
    (``name_key``), unless its row brings the key: a history identified by ids folds each of its
    50,000 players' names once, not each distinct name of every slice of 100,000 rows before its
    players are numbered (0.4 s of the 1.7 s a history of 807,856 results took to read)."""

    def __init__(self) -> None:
        self.folded: dict[str, str] = {}
        """Each name folded so far → its key: 46,688 players of a history write 13,175 names."""
        self.known = Distinct(_TOLD_APART_BY, self._kept, _hashes)

    def who(self, rows: pl.DataFrame) -> pl.Series:
        """The player of each of ``rows`` (``LINE`` and the IDENTITY columns, ``name_key``
        optional), new ones added."""
        return pl.Series("who", self.known.number(rows), dtype=pl.UInt32)

    def players(self) -> pl.DataFrame:
        known = self.known.frame()
        if known is None:
            return pl.DataFrame(schema={"line": pl.Int64, **dict.fromkeys(IDENTITY, pl.String)})
        return known.select("line", *IDENTITY)

    def _kept(self, fresh: pl.DataFrame) -> pl.DataFrame:
        """What is kept of a file's new players: the line of the row first writing each, and
        its ``IDENTITY`` columns, the name's key folded here (once per name) unless the rows
        bring it."""
        if "name_key" not in fresh.columns:
            fresh = fresh.with_columns(name_key_expr("name", self.folded).alias("name_key"))
        return fresh.select(*IDENTITY, pl.col(LINE).alias("line"))


class _NameKeys:
    """The folded form of each distinct name of a file's slices that name players without an id
    (``name_key``, by which their tournaments' checks tell players apart), folded once however
    many slices write it: folding is Python work per name, and the same players are written in
    slice after slice."""

    def __init__(self) -> None:
        self.known = Distinct(
            ("name",),
            lambda fresh: fresh.select("name", name_key_expr("name").alias("name_key")),
            _hashes,
        )

    def keys(self, names: pl.Series) -> pl.Series:
        """The key of each of ``names`` (null for a null name), in their order, as ``name_key``."""
        numbers = self.known.number(names.alias("name").to_frame())
        distinct, inverse = np.unique(numbers, return_inverse=True)
        return (
            self.known.stored(distinct)
            .get_column("name_key")
            .gather(pl.Series(inverse.reshape(-1), dtype=pl.UInt32))
        )


def compact(file: ResultsFile) -> SlicedResults:
    """``file`` (a crosstable's rows, all at once) as one slice of the compact form."""
    identities = _Identities()
    results = file.results
    who = identities.who(results.select(pl.col("line").alias(LINE), *IDENTITY))
    index = file.tournaments.select("key").with_row_index("tournament")
    part = (
        results.join(index, on="key", how="left", maintain_order="left")
        .with_columns(who.alias("who"))
        .select(*COMPACT, *(c for c in results.columns if c == "position"))
        .cast(COMPACT)  # type: ignore[arg-type]
    )
    return SlicedResults(
        file.source, file.sha256, file.format, file.tournaments, identities.players(), (part,),
        file.warnings,
    )  # fmt: skip


def _as_read(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` (a table's cells, ``TYPED`` columns as stored) as the checks read it: its float
    columns as text, but for a Buchholz column of floats that are exact counts of 1e-4 points
    (:func:`_exact_buchholz`); and a text column of ``TYPED`` as its values
    (:func:`_read_where_exact`) where every cell is written as that value's own text."""
    frame, exact = _read_where_exact(frame)

    def stays(name: str, dtype: pl.DataType) -> bool:
        if name == "buchholz":
            return (
                dtype == pl.String
                or name in exact
                or (
                    dtype == pl.Float64
                    and bool(frame.select(_exact_buchholz(pl.col(name)).all()).item())
                )
            )
        return not dtype.is_float()

    text = [as_text(name) for name, dtype in frame.schema.items() if not stays(name, dtype)]
    return frame.with_columns(text) if text else frame


_EXACT_READS: dict[str, pl.Expr] = {
    **{c: pl.col(c).cast(pl.Int64, strict=False) for c in ("wins", "draws", "losses")},
    **{c: pl.col(c).str.to_date("%Y-%m-%d", strict=False) for c in ("start_date", "end_date")},
    "buchholz": pl.col("buchholz").cast(pl.Float64, strict=False),
}
"""How a text column of ``TYPED`` is read as its values when every cell allows it."""


def _read_where_exact(frame: pl.DataFrame) -> tuple[pl.DataFrame, list[str]]:
    """``frame`` with each text column of counts, dates or Buchholz values read as numbers or
    dates when every cell of it is written exactly as that value's own text (``3``,
    ``2024-05-01``, ``23.5``; a Buchholz value also as a whole number, ``23``), or is empty; and
    the columns so read. Such cells pass every check of their text, and their text gives the
    same value (a Buchholz value also :func:`_exact_buchholz`), so the checks and the parsing
    of values that were stored (a spreadsheet's numbers, a Parquet file's columns) apply: the
    regular expressions of the text's checks were most of the reading of a large CSV file. A
    column with any other cell (``03``, ``3.0``, `` 3``, a word) stays text, for its checks to
    name each cell."""
    read = [c for c in _EXACT_READS if frame.schema.get(c) == pl.String]
    chosen = [c for c in read if _written_exactly(frame.get_column(c).unique(), c)]
    if not chosen:
        return frame, []
    return frame.with_columns(_EXACT_READS[c].alias(c) for c in chosen), chosen


def _written_exactly(cells: pl.Series, column: str) -> bool:
    """Whether each of ``cells`` (the distinct cells of ``column``) is empty or its value's own
    text, as :func:`_read_where_exact` reads them."""
    value = _EXACT_READS[column].alias("_value")
    cell = pl.col(column)
    written = pl.col("_value").cast(pl.String)
    same = written == cell
    if column == "buchholz":
        # Also a whole number of points written without its ".0".
        same = (same | (written == pl.concat_str(cell, pl.lit(".0")))) & _exact_buchholz(
            pl.col("_value")
        )
    found = cells.to_frame(column).with_columns(value)
    return bool(found.select((cell.is_null() | same.fill_null(False)).all()).item())


def _exact_buchholz(value: pl.Expr) -> pl.Expr:
    """Whether a float is missing, or is the float nearest to a number of at most four decimal
    places (so its shortest text, which polars writes, has at most four) that is not negative
    (nor -0.0, whose text starts with a minus) and has fewer than ten digits before the point
    (so its text is written without an exponent and is not too large): then ``value × 10⁴``,
    rounded, is the count of 1e-4 points its text gives."""
    scaled = (value * BUCHHOLZ_SCALE).round()
    return value.is_null() | (
        ((value > 0) | ((value == 0) & (1.0 / value > 0)))
        & (value < 1e9)
        & (scaled / BUCHHOLZ_SCALE == value)
    )


def read_results(data: bytes, source: str, fmt: str, limits: TableLimits = TABLES) -> ResultsFile:
    """Read and check a long-format results file, a table within ``limits``; raise InputError
    listing every problem."""
    return read_results_sliced(data, source, fmt, None, limits).file()


def read_results_sliced(
    data: bytes,
    source: str,
    fmt: str,
    rows: int | None = SLICE_ROWS,
    limits: TableLimits = TABLES,
) -> SlicedResults:
    """Read and check a long-format results file in slices of whole tournaments of about
    ``rows`` rows (None: at once); raise InputError listing every problem of the whole file,
    exactly as when it is read at once. A file whose tournaments' rows are not next to each
    other is read at once."""
    try:
        return _read_sliced(data, source, fmt, rows, limits)
    except ScatteredGroups:
        return _read_sliced(data, source, fmt, None, limits)


def _read_sliced(
    data: bytes, source: str, fmt: str, rows: int | None, limits: TableLimits
) -> SlicedResults:
    header_line = 1 if fmt in ("csv", "xlsx") else None
    problems: list[Problem] = []
    too_large: list[Problem] = []
    # Warnings column by column (the table's tournament, name and club, then what the limits
    # clean), each in file order: a file read at once lists them so.
    cleanings: list[list[Problem]] = [[] for _ in range(3)]
    countries: list[Problem] = []
    limit_cleanings: list[list[list[Problem]]] = []
    tournaments: list[pl.DataFrame] = []
    slices: list[pl.DataFrame] = []
    identities = _Identities()
    names = _NameKeys()
    counted = 0
    read_warnings: list[Problem] = []
    digest = _digest_aside(data)
    slices_read = read_table_slices(
        data, source, fmt, _key_of, rows, limits, TYPED, read_warnings, COLUMNS
    )
    for checked in _checked_ahead(slices_read, source, header_line):
        for found_here, found in zip(checked.cleanings, cleanings, strict=True):
            found += found_here
        countries += checked.countries
        # A slice naming players without an id tells them apart by their names' keys: the
        # file's, numbered as the slices come.
        name_keys = names.keys(checked.typed["name"]) if checked.by_names else None
        problems += checked.problems
        if name_keys is not None:
            problems += tournament_problems(checked.typed.with_columns(name_keys), source)
        if problems:
            # The file is refused: what is left to do is finding all of its problems.
            continue
        results, part_tournaments, groups, over = checked.within_limits
        too_large += over
        limit_cleanings.append(groups)
        if too_large:
            continue
        index = part_tournaments.select("key").with_row_index("tournament", offset=counted)
        counted += part_tournaments.height
        tournaments.append(own(part_tournaments))
        written: list[str | pl.Expr] = [pl.col("line").alias(LINE), *_TOLD_APART_BY]
        if name_keys is not None:
            results = results.with_columns(name_keys)
            written.append("name_key")
        who = identities.who(results.select(written))
        slices.append(
            results.join(index, on="key", how="left", maintain_order="left")
            .with_columns(who.alias("who"))
            .select(*COMPACT)
            .cast(COMPACT)  # type: ignore[arg-type]
        )
    for refused in (problems, too_large):
        if refused:
            refused.sort(key=lambda p: (p.line or 0, p.column or ""))
            raise InputError(refused)
    warnings = read_warnings + [w for group in cleanings for w in group]
    if limit_cleanings:
        for place in range(len(limit_cleanings[0])):
            warnings += [w for groups in limit_cleanings for w in groups[place]]
    warnings += countries
    return SlicedResults(
        source,
        digest.result(),
        fmt,
        pl.concat(tournaments),
        identities.players(),
        tuple(slices),
        tuple(warnings),
    )


def _digest_aside(data: bytes) -> concurrent.futures.Future[str]:
    """The SHA-256 of ``data`` (which tells a file imported before), computed by a thread of its
    own while the file is read: hashlib leaves Python's lock on large data, and a hundred
    megabytes took 0.06 s after the last slice."""
    return aside("sha256", lambda: hashlib.sha256(data).hexdigest())


@dataclasses.dataclass(frozen=True, slots=True)
class _Checked:
    """What the checks of one slice found that needs nothing of the slices before it."""

    cleanings: tuple[list[Problem], ...]
    """The warnings of cleaning the tournament, name and club columns, in this order."""
    countries: list[Problem]
    problems: list[Problem]
    """The problems of its cells, and those of its tournaments unless ``by_names``."""
    by_names: bool
    """Whether some row names its player without an id: the checks of its tournaments, which
    tell players apart by their names' keys then, are the caller's."""
    typed: pl.DataFrame
    """Its values parsed (:func:`_typed`), without the names' keys."""
    within_limits: tuple[pl.DataFrame, pl.DataFrame, list[list[Problem]], list[Problem]]
    """Its results (without the names' keys) and tournaments as
    :func:`~importers.limits.results_within_limits` gives them."""


CHECKERS = 2
"""Threads checking slices ahead of the caller (:func:`_checked_ahead`). With the players'
names folded only for new players, one thread's checks were the longer half of a slice's work
(0.8 s for the 9 slices of a history of 807,856 results, against 0.3 s of numbering players);
two took the file's reading from 1.46 s to 1.36 s on two cores. Each holds a slice."""


def _checked_ahead(
    slices: Iterator[pl.DataFrame], source: str, header_line: int | None
) -> Iterator[_Checked]:
    """The checks of each slice that need nothing of the slices before it (:func:`_checked`),
    made by ``CHECKERS`` threads of their own ahead of the caller, who numbers the players of
    the slices checked meanwhile: polars leaves Python's lock while it works, so they share the
    processor's cores. The slices come back in their order. The first slice's columns are
    checked first, and a large file with many problems near its start is refused before the
    rest is read (:func:`_refuse_early`)."""
    first = next(slices, None)
    if first is None:
        return
    check_columns(first, source, header_line)
    _refuse_early(first, source)
    with concurrent.futures.ThreadPoolExecutor(CHECKERS, thread_name_prefix="checks") as ahead:
        pending = collections.deque([ahead.submit(_checked, first, source)])
        for frame in slices:
            pending.append(ahead.submit(_checked, frame, source))
            if len(pending) > CHECKERS:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()


def _checked(frame: pl.DataFrame, source: str) -> _Checked:
    frame = _add_missing(_as_read(frame))
    cleanings: tuple[list[Problem], ...] = ([], [], [])
    frame = cleaned_apart(frame, source, ("tournament", "name", "club"), cleanings, line=LINE)
    countries = unknown_countries(frame, source, line=LINE)
    problems = cell_problems(frame, source)
    typed = _typed(frame)
    by_names = typed["player_id"].null_count() > 0
    if not by_names:
        problems += tournament_problems(typed, source)
    within_limits = results_within_limits(_results(typed), _tournaments(typed), source)
    return _Checked(cleanings, countries, problems, by_names, typed, within_limits)


def _refuse_early(frame: pl.DataFrame, source: str) -> None:
    """Refuse a large table whose first ``SLICE_ROWS`` rows already have ``ROWS_SHOWN`` problems
    in their cells, with those problems, before the rest is checked: the message would name no
    more of them, and a file of millions of wrong rows would take a minute to go through."""
    if frame.height <= SLICE_ROWS:
        return
    found = cell_problems(_add_missing(_as_read(frame.head(SLICE_ROWS))), source)
    if len(found) < ROWS_SHOWN:
        return
    rest = frame.get_column(LINE).item(SLICE_ROWS)
    found.sort(key=lambda p: (p.line or 0, p.column or ""))
    unchecked = "the rows from here on are not checked: fix the problems of those before first"
    raise InputError([Problem(source, rest, None, None, unchecked), *found])


def _key_of(frame: pl.DataFrame) -> pl.Series:
    """Each row's tournament key as ``_typed`` makes it, from the table's cells (null where the
    end date cannot be read and no tournament_id is given)."""
    columns = frame.columns
    if "tournament_id" in columns and frame["tournament_id"].null_count() == 0:
        return frame["tournament_id"].alias("key")
    none = pl.lit(None, dtype=pl.String)
    end = _date(frame, "end_date") if "end_date" in columns else pl.lit(None, dtype=pl.Date)
    name = clean_expr("tournament") if "tournament" in columns else none
    key = pl.coalesce(
        pl.col("tournament_id") if "tournament_id" in columns else none,
        pl.concat_str(name, pl.lit(" "), end.cast(pl.String)),
    )
    return frame.select(key.alias("key")).to_series()


def _tournaments(typed: pl.DataFrame) -> pl.DataFrame:
    return (
        typed.group_by("key", maintain_order=True)
        .agg(
            pl.col("tournament").first().alias("name"),
            pl.col("start_date").first(),
            pl.col("end_date").first(),
            pl.col("tier").first(),
            pl.col(LINE).min().alias("line"),
        )
        .sort("line")
    )


def _results(typed: pl.DataFrame) -> pl.DataFrame:
    return typed.select(
        "key", pl.col(LINE).alias("line"), "player_id", "name", "country", "club",
        "title", "wins", "draws", "losses", "buchholz", "id_scheme", "id_value",
    )  # fmt: skip


def _add_missing(frame: pl.DataFrame) -> pl.DataFrame:
    missing = [pl.lit(None, dtype=pl.String).alias(c) for c in OPTIONAL if c not in frame.columns]
    return frame.with_columns(missing) if missing else frame


def _external_id(column: str) -> pl.Expr:
    """The id of ``column`` as stored: digits only, without a spreadsheet's ``.0``."""
    value = pl.col(column).str.strip_chars()
    return pl.when(value.str.contains(ID_TEXT)).then(value.str.replace(r"\..*$", ""))


def _date(frame: pl.DataFrame, column: str) -> pl.Expr:
    """``column`` as dates: as stored, or read from its text."""
    value = pl.col(column)
    return value if frame.schema[column] == pl.Date else to_date(value)


def _count(frame: pl.DataFrame, column: str) -> pl.Expr:
    """``column`` as a count of games (null where it failed its checks)."""
    value = pl.col(column)
    if frame.schema[column].is_integer():
        return pl.when((value >= 0) & (value <= MAX_GAMES)).then(value.cast(pl.Int64))
    return (
        pl.when(value.str.contains(INT_TEXT) & ~too_many(value))
        .then(value.str.replace(r"\..*$", "").cast(pl.Int64, strict=False))
        .otherwise(None)
    )


def _typed(frame: pl.DataFrame) -> pl.DataFrame:
    """Parsed values; cells that failed their checks become null and drop out of later checks.
    The names' keys are the caller's (:class:`_Identities` folds each new player's name once,
    :class:`_NameKeys` each distinct name of the slices that name players without an id)."""
    int_value = {c: _count(frame, c).alias(c) for c in ("wins", "draws", "losses")}
    end = _date(frame, "end_date")
    start = pl.coalesce(_date(frame, "start_date"), end)
    buchholz = (
        (pl.col("buchholz") * BUCHHOLZ_SCALE).round().cast(pl.Int64)
        if frame.schema["buchholz"] == pl.Float64
        else pl.when(
            pl.col("buchholz").str.contains(r"^\d+([.,]\d*)?$")
            & ~pl.col("buchholz").str.contains(HUGE_BUCHHOLZ_TEXT)
        )
        .then(_fixed_point(pl.col("buchholz").str.replace(",", ".")))
        .otherwise(None)
    )
    typed = frame.with_columns(
        *int_value.values(),
        end.alias("end_date"),
        start.alias("start_date"),
        buchholz.alias("buchholz"),
        pl.when(pl.col("tier").is_null())
        .then(pl.lit(Tier.REGULAR.value))
        .when(pl.col("tier").str.to_lowercase().is_in(TIERS))
        .then(pl.col("tier").str.to_lowercase())
        .otherwise(None)
        .alias("tier"),
        pl.col("title").str.to_uppercase().alias("title"),
        country_code_expr("country"),
        pl.when(given("fide_id"))
        .then(pl.lit("fide"))
        .when(given("egd_pin"))
        .then(pl.lit("egd"))
        .alias("id_scheme"),
        pl.coalesce(_external_id("fide_id"), _external_id("egd_pin")).alias("id_value"),
    )
    if typed["tournament_id"].null_count() == 0:
        return typed.with_columns(pl.col("tournament_id").alias("key"))
    key = pl.coalesce(
        pl.col("tournament_id"),
        pl.concat_str(pl.col("tournament"), pl.lit(" "), pl.col("end_date").cast(pl.String)),
    )
    return typed.with_columns(key.alias("key"))


def _fixed_point(text: pl.Expr) -> pl.Expr:
    """A decimal string as an exact integer count of 1e-4 (no float on the way)."""
    whole = text.str.extract(r"^(\d+)", 1).cast(pl.Int64)
    fraction = text.str.extract(r"\.(\d+)$", 1).fill_null("").str.slice(0, 4).str.pad_end(4, "0")
    return whole * BUCHHOLZ_SCALE + fraction.cast(pl.Int64)
