"""The canonical import: tournament results in long format (SPEC 4.1), one row per player per event.

:func:`read_results` reads and checks a file and returns a :class:`ResultsFile`; it never touches
the database. Every problem in the file is collected (SPEC 4.4) and reported in one
:class:`~ratings.errors.InputError`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl
from numpy.typing import NDArray

from importers.headers import unknown
from importers.limits import (
    MAX_GAMES,
    TABLES,
    TableLimits,
    clean_expr,
    cleaned,
    results_within_limits,
)
from importers.names import name_key_expr
from importers.problems import ROWS_SHOWN, note_rest, problem_rows
from importers.tabular import LINE, ScatteredGroups, as_text, read_table_slices
from ratings.countries import country_code_expr, unknown_countries
from ratings.errors import InputError, Problem, shortened
from ratings.parameters import BUCHHOLZ_SCALE
from ratings.tiers import TIERS, Tier

REQUIRED = ("tournament", "end_date", "wins", "draws", "losses", "buchholz")
OPTIONAL = (
    "tournament_id", "start_date", "tier", "player_id", "name", "country", "club", "title",
    "fide_id", "egd_pin",
)  # fmt: skip
COLUMNS = REQUIRED + OPTIONAL
"""Every column of a results table, by the names of ``importers.headers``."""
ID_COLUMNS = {"fide_id": "fide", "egd_pin": "egd"}
"""Columns holding another body's id of the player (matched on first, stored as identifiers),
and the scheme each is stored as."""
_ID = r"^\d{1,20}(\.0*)?$"
"""An external id: digits (a spreadsheet may have stored it as a number, ``4600001.0``)."""

_INT = r"^\d+(\.0*)?$"
_NUMBER = r"^-?\d+([.,]\d*)?$"
# Ten digits of whole points is beyond any event (MAX_GAMES games of MAX_GAMES + 1 points each);
# a longer number would overflow the 64 bits of the stored 1e-4 points.
_HUGE_BUCHHOLZ = r"^0*\d{10,}([.,]\d*)?$"
_DATE = r"^\d{4}-\d{2}-\d{2}([ T]00:00(:00(\.0+)?)?)?$"


@dataclass(frozen=True, slots=True)
class ResultsFile:
    """A checked long-format file: its tournaments and its result rows."""

    source: str
    sha256: str
    format: str
    tournaments: pl.DataFrame
    """key, name, start_date, end_date, tier, line (first line of the tournament)."""
    results: pl.DataFrame
    """key, line, player_id, name, name_key, country, club, title, wins, draws, losses, buchholz
    (Buchholz as an integer count of 1e-4 points), id_scheme, id_value (the row's FIDE id or
    EGD PIN, if any)."""
    warnings: tuple[Problem, ...] = ()
    """Values read only after cleaning (control characters removed from a name)."""


SLICE_ROWS = 100_000
"""Rows of a results table read, checked and stored at a time (whole tournaments): what the
import holds of a large file at once, besides the compact form of the rows it has checked."""

IDENTITY = ("player_id", "name", "name_key", "country", "club", "id_scheme", "id_value")
"""What the matching reads of a row to find its player: rows alike in all of these are the same
player, found once."""

COMPACT = {
    "tournament": pl.UInt32, "who": pl.UInt32, "line": pl.Int32, "title": pl.Categorical,
    "wins": pl.Int16, "draws": pl.Int16, "losses": pl.Int16, "buchholz": pl.Int64,
}  # fmt: skip
"""A checked slice's rows as kept until they are stored: the tournament (its row in
``tournaments``), the player as written (its row in ``players``), and the values stored."""


@dataclass(frozen=True, slots=True)
class SlicedResults:
    """A checked results file in compact form: its tournaments, the distinct players as written
    in it, and its rows in slices of whole tournaments, each row naming its tournament and its
    player by their row number. Ten million rows take a few hundred megabytes so."""

    source: str
    sha256: str
    format: str
    tournaments: pl.DataFrame
    """key, name, start_date, end_date, tier, line (first line of the tournament)."""
    players: pl.DataFrame
    """line (where the player is first written), then the ``IDENTITY`` columns; row ``who``."""
    slices: tuple[pl.DataFrame, ...]
    """``COMPACT`` columns (and ``position``, a crosstable's player number), in file order."""
    warnings: tuple[Problem, ...] = ()

    @property
    def rows(self) -> int:
        return sum(part.height for part in self.slices)

    def expanded(self, part: pl.DataFrame) -> pl.DataFrame:
        """Rows of ``part`` (a slice, or some of its rows) in the columns of
        ``ResultsFile.results``."""
        keys = self.tournaments["key"].gather(part["tournament"])
        players = self.players.drop("line").gather(part["who"])
        extra = [c for c in part.columns if c not in COMPACT]
        return pl.concat(
            [part.select("line").with_columns(keys.alias("key")), players,
             part.select("title", "wins", "draws", "losses", "buchholz", *extra)],
            how="horizontal",
        ).select(
            "key", pl.col("line").cast(pl.Int64), "player_id", "name", "name_key", "country",
            "club", pl.col("title").cast(pl.String),
            pl.col("wins", "draws", "losses").cast(pl.Int64), "buchholz", "id_scheme",
            "id_value", *extra,
        )  # fmt: skip

    def results(self) -> pl.DataFrame:
        """Every row, expanded (for small files and tests)."""
        parts = [self.expanded(part) for part in self.slices]
        return pl.concat(parts) if parts else pl.DataFrame()

    def file(self) -> ResultsFile:
        return ResultsFile(
            self.source, self.sha256, self.format, self.tournaments, self.results(), self.warnings
        )


class _Identities:
    """The distinct players of a file as its slices are read, each with the line of its first
    row; a row's player is its row number here."""

    def __init__(self) -> None:
        self.known = _Distinct(
            IDENTITY, lambda fresh: fresh.select(*IDENTITY, pl.col(LINE).alias("line"))
        )

    def who(self, rows: pl.DataFrame) -> pl.Series:
        """The player of each of ``rows`` (``LINE`` and the IDENTITY columns), new ones added."""
        return pl.Series("who", self.known.number(rows), dtype=pl.UInt32)

    def players(self) -> pl.DataFrame:
        known = self.known.frame()
        if known is None:
            return pl.DataFrame(schema={"line": pl.Int64, **dict.fromkeys(IDENTITY, pl.String)})
        return known.select("line", *IDENTITY)


class _NameKeys:
    """The folded form of each distinct name of a file (``name_key``), folded once however many
    slices write it: folding is Python work per name, and the same players are written in slice
    after slice (at L each name was folded again in about 25 slices)."""

    def __init__(self) -> None:
        self.known = _Distinct(
            ("name",), lambda fresh: fresh.select("name", name_key_expr("name").alias("name_key"))
        )

    def keys(self, names: pl.Series) -> pl.Series:
        """The key of each of ``names`` (null for a null name), in their order."""
        numbers = self.known.number(names.alias("name").to_frame())
        distinct, inverse = np.unique(numbers, return_inverse=True)
        return (
            self.known.stored(distinct)
            .get_column("name_key")
            .gather(pl.Series(inverse.reshape(-1), dtype=pl.UInt32))
        )


class _Distinct:
    """The distinct values of ``columns`` in the slices of a file, numbered in the order they
    first appear, each stored once with what the caller keeps of it (``keep``, which holds
    ``columns``).

    A slice's values are looked up by a 64-bit hash among the sorted hashes of those seen
    before: joining each slice to everything seen so far built a hash table of all of the
    file's players in every slice, a cost that grew with the file (at L, 31 of the import's 130
    processor seconds). Equal hashes are not trusted: every row is compared with the values
    stored under its number, and should two different values ever share a hash, the file goes
    on with the joins from that slice."""

    def __init__(self, columns: Sequence[str], keep: Callable[[pl.DataFrame], pl.DataFrame]):
        self.columns = list(columns)
        self.keep = keep
        self.merged: pl.DataFrame | None = None
        """What is kept of the first values, in one piece (a gather from many is slow)."""
        self.tail: list[pl.DataFrame] = []
        """What is kept of the values after them, a piece per slice until they are merged."""
        self.joined: pl.DataFrame | None = None
        """The tail in one piece, once a lookup needed it."""
        self.count = 0
        self.hashes = np.empty(0, dtype=np.uint64)
        self.numbers = np.empty(0, dtype=np.uint32)
        self.exact = False

    def number(self, rows: pl.DataFrame) -> NDArray[np.uint32]:
        """The number of each of ``rows`` (which hold ``columns``), new values added."""
        values = rows.select(self.columns)
        if not self.exact:
            found = self._by_hash(rows, values)
            if found is not None:
                return found
            self.exact = True
        return self._by_join(rows, values)

    def stored(self, numbers: NDArray[np.uint32]) -> pl.DataFrame:
        """What is kept of the values of ``numbers``, in their order."""
        pieces = [self.merged] if self.merged is not None else []
        if self.tail:
            if self.joined is None:
                self.joined = pl.concat(self.tail).rechunk()
            pieces.append(self.joined)
        if len(pieces) == 1:
            return pieces[0].gather(pl.Series(numbers, dtype=pl.UInt32))
        merged = pieces[0].height
        early = numbers < merged
        parts = pl.concat(
            [
                pieces[0].gather(pl.Series(numbers[early], dtype=pl.UInt32)),
                pieces[1].gather(pl.Series(numbers[~early] - merged, dtype=pl.UInt32)),
            ]
        )
        where = np.concatenate([np.flatnonzero(early), np.flatnonzero(~early)])
        back = np.empty_like(where)
        back[where] = np.arange(where.size)
        return parts.gather(pl.Series(back, dtype=pl.UInt32))

    def frame(self) -> pl.DataFrame | None:
        """What is kept of every value, in the order of their numbers."""
        if self.tail:
            pieces = [self.merged, *self.tail] if self.merged is not None else self.tail
            self.merged = pl.concat(pieces).rechunk()
            self.tail = []
            self.joined = None
        return self.merged

    def _by_hash(self, rows: pl.DataFrame, values: pl.DataFrame) -> NDArray[np.uint32] | None:
        hashes = _hashes(values)
        distinct, first, inverse = np.unique(hashes, return_index=True, return_inverse=True)
        inverse = inverse.reshape(-1)
        # Every row equal to the first row of its hash in the slice (the others than the first).
        firsts = first[inverse]
        again = np.flatnonzero(firsts != np.arange(firsts.size))
        if again.size and not _same(
            values.gather(pl.Series(again, dtype=pl.UInt32)),
            values.gather(pl.Series(firsts[again], dtype=pl.UInt32)),
        ):
            return None
        place = np.searchsorted(self.hashes, distinct)
        seen = place < self.hashes.size
        seen[seen] = self.hashes[place[seen]] == distinct[seen]
        numbers = np.empty(distinct.size, dtype=np.uint32)
        numbers[seen] = self.numbers[place[seen]]
        # ... and to the values stored under the number of its hash.
        if seen.any() and not _same(
            values.gather(pl.Series(first[seen], dtype=pl.UInt32)),
            self.stored(numbers[seen]).select(self.columns),
        ):
            return None
        # New values numbered in the order they first appear.
        new = np.flatnonzero(~seen)
        if new.size:
            appearing = new[np.argsort(first[new], kind="stable")]
            numbers[appearing] = np.arange(self.count, self.count + new.size, dtype=np.uint32)
            self._add(rows.gather(pl.Series(first[appearing], dtype=pl.UInt32)))
            # In the order of the hashes (``distinct`` is sorted), each before the first larger.
            self.hashes = np.insert(self.hashes, place[new], distinct[new])
            self.numbers = np.insert(self.numbers, place[new], numbers[new])
        return numbers[inverse]

    def _by_join(self, rows: pl.DataFrame, values: pl.DataFrame) -> NDArray[np.uint32]:
        first = rows.unique(self.columns, keep="first", maintain_order=True)
        known = self.frame()
        if known is not None:
            first = first.join(
                known.select(self.columns), on=self.columns, how="anti", nulls_equal=True
            )
        self._add(first)
        everyone = self.frame()
        assert everyone is not None
        numbered = values.join(
            everyone.select(self.columns).with_row_index("_number"),
            on=self.columns, how="left", nulls_equal=True, maintain_order="left",
        )  # fmt: skip
        return numbered["_number"].to_numpy().astype(np.uint32)

    def _add(self, fresh: pl.DataFrame) -> None:
        if fresh.height == 0:
            return
        self.tail.append(_own(self.keep(fresh)))
        self.joined = None
        self.count += fresh.height
        # Merged when the pieces after the first ones hold a quarter as many: each value is
        # copied a few times in all, and a lookup gathers from two pieces at most.
        merged = self.merged.height if self.merged is not None else 0
        if sum(piece.height for piece in self.tail) * 4 > merged:
            self.frame()


def _hashes(values: pl.DataFrame) -> NDArray[np.uint64]:
    return values.hash_rows(seed=20261124).to_numpy()


def _same(left: pl.DataFrame, right: pl.DataFrame) -> bool:
    """Whether two frames of the same columns hold the same values, nulls equal to nulls."""
    return all(left[c].eq_missing(right[c]).all() for c in left.columns)


def _own(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` with text of its own: polars' text columns point into the buffers of the frame
    they were taken from, so a few players kept from each slice would keep every slice's text
    alive (about a hundred bytes a row of the whole file)."""
    owned = pl.from_arrow(frame.to_arrow(compat_level=pl.CompatLevel.oldest()))
    assert isinstance(owned, pl.DataFrame)
    return owned


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


TYPED = ("wins", "draws", "losses", "start_date", "end_date", "buchholz")
"""Columns checked as they are stored when a file stores them as whole numbers or dates, and
Buchholz values stored as floats (:func:`_as_read`)."""


def _as_read(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` (a table's cells, ``TYPED`` columns as stored) with its float columns and any
    Buchholz column that is not text as text, as the checks read them, but for a Buchholz column of 64-bit floats that are all exact
    counts of 1e-4 points below the largest possible (:func:`_exact_buchholz`): turning such a
    column into text only to read the number back from it cost more than the checks of all
    the other columns. Every check of the text passes for such values, and the text gives the
    same number."""

    def stays(name: str, dtype: pl.DataType) -> bool:
        if name == "buchholz":
            return dtype == pl.String or (
                dtype == pl.Float64
                and bool(frame.select(_exact_buchholz(pl.col(name)).all()).item())
            )
        return not dtype.is_float()

    text = [as_text(name) for name, dtype in frame.schema.items() if not stays(name, dtype)]
    return frame.with_columns(text) if text else frame


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
    for number, frame in enumerate(
        read_table_slices(data, source, fmt, _key_of, rows, limits, TYPED, read_warnings, COLUMNS)
    ):
        if number == 0:
            _check_columns(frame, source, header_line)
            _refuse_early(frame, source)
        frame = _add_missing(_as_read(frame))
        for column, found in zip(("tournament", "name", "club"), cleanings, strict=True):
            frame = cleaned(frame, source, (column,), found, line=LINE)
        countries += unknown_countries(frame, source, line=LINE)
        found = _cell_problems(frame, source)
        typed = _typed(frame, names)
        found += _tournament_problems(typed, source)
        problems += found
        if problems:
            # The file is refused: what is left to do is finding all of its problems.
            continue
        part_tournaments = _tournaments(typed)
        results, part_tournaments, groups, over = results_within_limits(
            _results(typed), part_tournaments, source
        )
        too_large += over
        limit_cleanings.append(groups)
        if too_large:
            continue
        index = part_tournaments.select("key").with_row_index("tournament", offset=counted)
        counted += part_tournaments.height
        tournaments.append(_own(part_tournaments))
        who = identities.who(results.select(pl.col("line").alias(LINE), *IDENTITY))
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
        hashlib.sha256(data).hexdigest(),
        fmt,
        pl.concat(tournaments),
        identities.players(),
        tuple(slices),
        tuple(warnings),
    )


def _refuse_early(frame: pl.DataFrame, source: str) -> None:
    """Refuse a large table whose first ``SLICE_ROWS`` rows already have ``ROWS_SHOWN`` problems
    in their cells, with those problems, before the rest is checked: the message would name no
    more of them, and a file of millions of wrong rows would take a minute to go through."""
    if frame.height <= SLICE_ROWS:
        return
    found = _cell_problems(_add_missing(_as_read(frame.head(SLICE_ROWS))), source)
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
        "key", pl.col(LINE).alias("line"), "player_id", "name", "name_key", "country", "club",
        "title", "wins", "draws", "losses", "buchholz", "id_scheme", "id_value",
    )  # fmt: skip


def _check_columns(frame: pl.DataFrame, source: str, header_line: int | None) -> None:
    columns = [c for c in frame.columns if c != LINE]
    problems = [
        Problem(source, header_line, column, None, "this column is required")
        for column in REQUIRED
        if column not in columns
    ]
    if "player_id" not in columns and "name" not in columns:
        problems.append(
            Problem(
                source, header_line, "player_id", None, "a player_id or a name column is required"
            )
        )
    problems += [
        Problem(source, header_line, column, None, unknown(column, COLUMNS))
        for column in columns
        if column not in COLUMNS
    ]
    if problems:
        raise InputError(problems)


def _add_missing(frame: pl.DataFrame) -> pl.DataFrame:
    missing = [pl.lit(None, dtype=pl.String).alias(c) for c in OPTIONAL if c not in frame.columns]
    return frame.with_columns(missing) if missing else frame


def _bad(
    frame: pl.DataFrame, source: str, column: str, condition: pl.Expr, expected: str
) -> list[Problem]:
    return problem_rows(frame, source, column, condition, expected, line=LINE)


Check = tuple[str, pl.Expr, str]
"""A check of cells: the column named in its problems, the rows it finds, what was expected."""


def _found(frame: pl.DataFrame, source: str, checks: list[Check]) -> list[Problem]:
    """The problems of ``checks``, in their order. One pass over ``frame`` says which checks
    find any row at all (all of them at once, in parallel), and only those list their rows: a
    valid slice of a hundred thousand rows otherwise went through some twenty filters that
    each found nothing, a good part of reading a large file."""
    if not checks:
        return []
    hits = frame.select(
        condition.any().alias(f"check_{i}") for i, (_, condition, _) in enumerate(checks)
    ).row(0)
    problems: list[Problem] = []
    for (column, condition, expected), hit in zip(checks, hits, strict=True):
        if hit:
            problems += _bad(frame, source, column, condition, expected)
    return problems


def _cell_problems(frame: pl.DataFrame, source: str) -> list[Problem]:
    checks: list[Check] = []
    for column in ("tournament", "end_date", "wins", "draws", "losses", "buchholz"):
        checks.append((column, pl.col(column).is_null(), "a value is required"))
    checks.append(
        (
            "name",
            pl.col("player_id").is_null() & pl.col("name").is_null(),
            "a player_id or a name is required",
        )
    )
    for column in ("wins", "draws", "losses"):
        value = pl.col(column)
        present = value.is_not_null()
        if frame.schema[column].is_integer():
            # Stored as whole numbers: only the sign and the size can be wrong.
            checks.append((column, present & (value < 0), "must not be negative"))
            checks.append((
                column, present & (value > MAX_GAMES),
                f"more than {MAX_GAMES} games in one event",
            ))  # fmt: skip
            continue
        checks.append(
            (
                column,
                present & value.str.starts_with("-") & value.str.contains(_NUMBER),
                "must not be negative",
            )
        )
        checks.append(
            (
                column,
                present
                & ~value.str.starts_with("-")
                & value.str.contains(_NUMBER)
                & ~value.str.contains(_INT),
                "expected a whole number of games",
            )
        )
        checks.append((column, present & ~value.str.contains(_NUMBER), "expected a whole number"))
        checks.append(
            (
                column,
                present & value.str.contains(_INT) & _too_many(value),
                f"more than {MAX_GAMES} games in one event",
            )
        )
    for column in ID_COLUMNS:
        value = pl.col(column).str.strip_chars()
        checks.append((
            column, value.is_not_null() & (value != "") & ~value.str.contains(_ID),
            "expected the id's digits",
        ))  # fmt: skip
    checks.append((
        "egd_pin", _given("fide_id") & _given("egd_pin"),
        "a row gives one external id: a FIDE id (chess) or an EGD PIN (Go), not both",
    ))  # fmt: skip
    if frame.schema["buchholz"] != pl.String:
        # Exact counts of 1e-4 points (``_as_read``): every check of their text passes.
        return _found(frame, source, checks + _date_and_tier_checks(frame))
    buchholz = pl.col("buchholz")
    present = buchholz.is_not_null()
    checks.append(("buchholz", present & ~buchholz.str.contains(_NUMBER), "expected a number"))
    checks.append(
        (
            "buchholz",
            present & buchholz.str.contains(r"^-\d"),
            "must not be negative",
        )
    )
    checks.append(
        (
            "buchholz",
            present & buchholz.str.contains(_HUGE_BUCHHOLZ),
            f"larger than possible: more than {MAX_GAMES} games × {MAX_GAMES + 1} points",
        )
    )
    checks.append(
        (
            "buchholz",
            present
            & buchholz.str.contains(r"[.,]\d{5,}$")
            & ~buchholz.str.contains(r"[.,]\d{4}0+$"),
            "at most 4 decimal places",
        )
    )
    return _found(frame, source, checks + _date_and_tier_checks(frame))


def _date_and_tier_checks(frame: pl.DataFrame) -> list[Check]:
    checks: list[Check] = []
    for column in ("start_date", "end_date"):
        if frame.schema[column] == pl.Date:
            continue
        value = pl.col(column)
        shaped = value.str.contains(_DATE)
        checks.append(
            (
                column,
                value.is_not_null() & ~shaped,
                "expected a date as YYYY-MM-DD",
            )
        )
        checks.append(
            (
                column,
                value.is_not_null() & shaped & _to_date(value).is_null(),
                "not a real calendar date",
            )
        )
    checks.append(
        (
            "tier",
            pl.col("tier").is_not_null() & ~pl.col("tier").str.to_lowercase().is_in(TIERS),
            f"expected one of {', '.join(TIERS)}",
        )
    )
    return checks


def _given(column: str) -> pl.Expr:
    value = pl.col(column).str.strip_chars()
    return value.is_not_null() & (value != "")


def _external_id(column: str) -> pl.Expr:
    """The id of ``column`` as stored: digits only, without a spreadsheet's ``.0``."""
    value = pl.col(column).str.strip_chars()
    return pl.when(value.str.contains(_ID)).then(value.str.replace(r"\..*$", ""))


def _too_many(value: pl.Expr) -> pl.Expr:
    """A whole number of games above MAX_GAMES, however many digits it has (a cast to 64 bits
    of a longer number would fail)."""
    whole = value.str.replace(r"\..*$", "").str.strip_chars_start("0")
    too_long = whole.str.len_chars() > len(str(MAX_GAMES))
    return (too_long | (whole.cast(pl.Int64, strict=False) > MAX_GAMES)).fill_null(False)


def _to_date(value: pl.Expr) -> pl.Expr:
    return value.str.slice(0, 10).str.to_date("%Y-%m-%d", strict=False)


def _date(frame: pl.DataFrame, column: str) -> pl.Expr:
    """``column`` as dates: as stored, or read from its text."""
    value = pl.col(column)
    return value if frame.schema[column] == pl.Date else _to_date(value)


def _count(frame: pl.DataFrame, column: str) -> pl.Expr:
    """``column`` as a count of games (null where it failed its checks)."""
    value = pl.col(column)
    if frame.schema[column].is_integer():
        return pl.when((value >= 0) & (value <= MAX_GAMES)).then(value.cast(pl.Int64))
    return (
        pl.when(value.str.contains(_INT) & ~_too_many(value))
        .then(value.str.replace(r"\..*$", "").cast(pl.Int64, strict=False))
        .otherwise(None)
    )


def _typed(frame: pl.DataFrame, names: _NameKeys | None = None) -> pl.DataFrame:
    """Parsed values; cells that failed their checks become null and drop out of later checks.
    ``names`` folds the names (each distinct name once for all the slices of a file)."""
    name_key = (
        name_key_expr("name") if names is None else pl.lit(names.keys(frame["name"]))
    ).alias("name_key")
    int_value = {c: _count(frame, c).alias(c) for c in ("wins", "draws", "losses")}
    end = _date(frame, "end_date")
    start = pl.coalesce(_date(frame, "start_date"), end)
    buchholz = (
        (pl.col("buchholz") * BUCHHOLZ_SCALE).round().cast(pl.Int64)
        if frame.schema["buchholz"] == pl.Float64
        else pl.when(
            pl.col("buchholz").str.contains(r"^\d+([.,]\d*)?$")
            & ~pl.col("buchholz").str.contains(_HUGE_BUCHHOLZ)
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
        name_key,
        pl.when(_given("fide_id"))
        .then(pl.lit("fide"))
        .when(_given("egd_pin"))
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


def _tournament_problems(typed: pl.DataFrame, source: str) -> list[Problem]:
    problems: list[Problem] = []
    # Window expressions (``over``) cost a grouping of the whole file each; one cheap pass says
    # which checks can find anything at all, and only those run (on a valid file of a million
    # rows this was most of the validation time).
    identity = (
        # Every row names its player by id (as a federation's history does): the id alone
        # tells players apart, without building a text for every row.
        pl.col("player_id")
        if typed["player_id"].null_count() == 0
        else pl.coalesce(
            pl.concat_str(pl.lit("id:"), pl.col("player_id")),
            pl.concat_str(pl.lit("name:"), pl.col("name_key"), pl.lit("|"), pl.col("country")),
            pl.concat_str(pl.lit("name:"), pl.col("name_key")),
        )
    )
    varying = ("tournament", "start_date", "end_date", "tier")
    readable = (
        pl.col("wins").is_not_null()
        & pl.col("draws").is_not_null()
        & pl.col("losses").is_not_null()
    )
    survey = (
        typed.lazy()
        .group_by("key")
        .agg(
            *(pl.col(c).drop_nulls().n_unique().alias(c) for c in varying),
            (pl.col("start_date") > pl.col("end_date")).any().alias("_late_start"),
            (identity.drop_nulls().len() - identity.drop_nulls().n_unique()).alias("_twice"),
        )
        .select(
            *(pl.col(c).max() > 1 for c in varying),
            pl.col("_late_start").any(),
            pl.col("_twice").max() > 0,
        )
        .collect()
        .row(0, named=True)
    )
    if survey["_late_start"]:
        problems += _bad(
            typed,
            source,
            "start_date",
            (pl.col("start_date") > pl.col("end_date")) & (pl.int_range(pl.len()).over("key") == 0),
            "the tournament cannot start after its end date",
        )
    # One tournament key must describe one event: name, dates and tier agree on every row.
    for column in (c for c in varying if survey[c]):
        first = pl.col(column).drop_nulls().first().over("key")
        differs = typed.with_columns(first.alias("_first")).filter(
            pl.col(column).is_not_null() & (pl.col(column) != pl.col("_first"))
        )
        problems += [
            Problem(
                source,
                line,
                column,
                shortened(str(value)),
                f"differs from the first row of tournament {shortened(key)!r} ({first_value})",
            )
            for line, value, key, first_value in differs.select(LINE, column, "key", "_first")
            .head(ROWS_SHOWN)
            .rows()
        ]
        note_rest(problems, differs.height)
    twice = (
        typed.with_columns(identity.alias("_who")).filter(
            pl.col("_who").is_not_null() & (pl.int_range(pl.len()).over("key", "_who") > 0)
        )
        if survey["_twice"]
        else typed.clear()
    )
    shown = twice.select(LINE, "player_id", "name", "key").head(ROWS_SHOWN)
    for line, player_id, name, key in shown.rows():
        column, value = ("player_id", player_id) if player_id is not None else ("name", name)
        problems.append(
            Problem(
                source, line, column, shortened(value),
                f"the player appears twice in tournament {shortened(str(key))!r}",
            )
        )  # fmt: skip
    note_rest(problems, twice.height)
    # Totals only mean something when every count of the tournament could be read.
    all_readable = typed.select(readable.all()).item()
    complete = typed if all_readable else typed.filter(readable.all().over("key"))
    totals = complete.group_by("key", maintain_order=True).agg(
        pl.col(LINE).min().alias("line"),
        pl.col("wins").sum(),
        pl.col("draws").sum(),
        pl.col("losses").sum(),
    )
    wrong = totals.filter((pl.col("wins") != pl.col("losses")) | (pl.col("draws") % 2 == 1))
    for key, line, wins, draws, losses in (
        wrong.select("key", "line", "wins", "draws", "losses").head(ROWS_SHOWN).rows()
    ):
        key = shortened(str(key))
        if wins != losses:
            problems.append(
                Problem(
                    source,
                    line,
                    "wins",
                    str(wins),
                    f"tournament {key!r}: total wins ({wins}) must equal total losses ({losses})",
                )
            )
        if draws % 2:
            problems.append(
                Problem(
                    source,
                    line,
                    "draws",
                    str(draws),
                    f"tournament {key!r}: the total of draws must be even (each draw has two sides)",
                )
            )
    note_rest(problems, wrong.height)
    # Nobody can have a Buchholz above their games times the best score of the event. The file
    # does not show byes, which give points without a game, so a player's best possible score
    # counts every round they did not play as a full point: the event had at least as many
    # rounds as the most games anyone played, and one more when everybody sat one out.
    scored = (
        complete.with_columns(
            (pl.col("wins") + pl.col("draws") + pl.col("losses")).alias("_games"),
            (pl.col("wins") * 2 + pl.col("draws")).alias("_score_x2"),
        )
        .with_columns((pl.col("_games").max().over("key") + 1).alias("_rounds"))
        .with_columns(
            (pl.col("_score_x2") + 2 * (pl.col("_rounds") - pl.col("_games")))
            .max()
            .over("key")
            .alias("_best_x2")
        )
    )
    too_high = scored.filter(
        pl.col("buchholz").is_not_null()
        & (pl.col("buchholz") * 2 > pl.col("_games") * pl.col("_best_x2") * BUCHHOLZ_SCALE)
    )
    for line, value, games, best in (
        too_high.select(LINE, "buchholz", "_games", "_best_x2").head(ROWS_SHOWN).rows()
    ):
        problems.append(
            Problem(
                source,
                line,
                "buchholz",
                _points(value),
                f"larger than possible: {games} games × the best score anyone could have "
                f"({best / 2:g}, byes included) = {games * best / 2:g}",
            )
        )
    note_rest(problems, too_high.height)
    return problems


def _points(units: int) -> str:
    whole, fraction = divmod(units, BUCHHOLZ_SCALE)
    return f"{whole}.{fraction:04d}".rstrip("0").rstrip(".")
