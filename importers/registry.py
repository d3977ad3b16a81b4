"""The player registry (SPEC 4.2): ``player_id``, ``name`` and optionally ``country``, ``club``,
``title`` and ``title_date``. Read and checked here; the job writes it."""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from importers.headers import unknown
from importers.limits import TABLES, TableLimits, checked_players
from importers.names import name_key_expr
from importers.problems import problem_rows
from importers.tabular import LINE, read_table
from ratings.countries import country_code_expr, unknown_countries
from ratings.errors import InputError, Problem

REQUIRED = ("player_id", "name")
OPTIONAL = ("country", "club", "title", "title_date", "fide_id", "egd_pin")
KEPT = (
    "not a country code (ISO 3166, FIDE/IOC or a historic one): the stored country is kept "
    "(a new player's is unknown)"
)
ID_COLUMNS = {"fide_id": "fide", "egd_pin": "egd"}
"""Registry columns holding another body's id of the player, and the scheme each is stored as."""


@dataclass(frozen=True, slots=True)
class Registry:
    source: str
    players: pl.DataFrame
    """player_id, name, name_key, country, club, title, title_date (Date), line, and
    country_unknown: the cell holds a code that names no country (read as no country; an update
    keeps the stored one, even with ``--clear-empty``)."""
    identifiers: pl.DataFrame
    """player_id, scheme, value: the external ids the registry gives."""
    columns: frozenset[str] = frozenset(REQUIRED)
    """The columns the file has: an update touches only these (a column the file does not have
    is null in ``players`` and means "unchanged", never "empty")."""
    warnings: tuple[Problem, ...] = ()
    """The reader's guesses: a file read as Windows-1252, names read only after cleaning
    (control characters removed), then the countries no table knows (stored as unknown)."""


def read_registry(data: bytes, source: str, fmt: str, limits: TableLimits = TABLES) -> Registry:
    warnings: list[Problem] = []
    frame = read_table(data, source, fmt, limits, warnings=warnings, known=REQUIRED + OPTIONAL)
    header = 1 if fmt in ("csv", "xlsx") else None
    columns = [c for c in frame.columns if c != LINE]
    problems = [
        Problem(source, header, c, None, "this column is required")
        for c in REQUIRED
        if c not in columns
    ]
    problems += [
        Problem(source, header, c, None, unknown(c, REQUIRED + OPTIONAL))
        for c in columns
        if c not in REQUIRED + OPTIONAL
    ]
    if problems:
        raise InputError(problems)
    frame = frame.with_columns(
        [pl.lit(None, dtype=pl.String).alias(c) for c in OPTIONAL if c not in frame.columns]
    )
    for column in REQUIRED:
        problems += _rows(frame, source, column, pl.col(column).is_null(), "a value is required")
    date_text = pl.col("title_date")
    parsed = date_text.str.slice(0, 10).str.to_date("%Y-%m-%d", strict=False)
    problems += _rows(
        frame,
        source,
        "title_date",
        date_text.is_not_null()
        & (~date_text.str.contains(r"^\d{4}-\d{2}-\d{2}") | parsed.is_null()),
        "expected a real date as YYYY-MM-DD",
    )
    problems += _rows(
        frame,
        source,
        "title_date",
        date_text.is_not_null() & pl.col("title").is_null(),
        "a title date needs a title",
    )
    problems += _rows(
        frame,
        source,
        "player_id",
        pl.col("player_id").is_not_null()
        & pl.col("player_id").is_duplicated()
        & (pl.int_range(pl.len()).over("player_id") > 0),
        "the player id appears twice in the file",
    )
    for column in ID_COLUMNS:
        value = pl.col(column).cast(pl.String).str.strip_chars()
        problems += _rows(
            frame.with_columns(value.alias(column)),
            source,
            column,
            value.is_not_null()
            & (value != "")
            & value.is_duplicated()
            & (pl.int_range(pl.len()).over(value) > 0),
            "this id is given to another player of the file too",
        )
    if problems:
        problems.sort(key=lambda p: (p.line or 0, p.column or ""))
        raise InputError(problems)
    frame = checked_players(frame.rename({LINE: "line"}), source, warnings).rename({"line": LINE})
    warnings += unknown_countries(frame, source, line=LINE, expected=KEPT)
    players = frame.select(
        "player_id",
        "name",
        name_key_expr("name").alias("name_key"),
        country_code_expr("country"),
        (pl.col("country").is_not_null() & country_code_expr("country").is_null()).alias(
            "country_unknown"
        ),
        "club",
        pl.col("title").str.to_uppercase(),
        parsed.alias("title_date"),
        pl.col(LINE).alias("line"),
    )
    identifiers = pl.concat(
        [
            frame.filter(pl.col(column).is_not_null()).select(
                "player_id",
                pl.lit(scheme).alias("scheme"),
                pl.col(column).cast(pl.String).str.strip_chars().alias("value"),
            )
            for column, scheme in ID_COLUMNS.items()
        ]
    ).filter(pl.col("value") != "")
    return Registry(source, players, identifiers, frozenset(columns), tuple(warnings))


def _rows(
    frame: pl.DataFrame, source: str, column: str, condition: pl.Expr, expected: str
) -> list[Problem]:
    return problem_rows(frame, source, column, condition, expected, line=LINE)
