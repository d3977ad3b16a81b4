"""The participant list of an upcoming event, from which the first round is seeded (SPEC 7).

:func:`read_participants` reads and checks a CSV, XLSX, JSON or Parquet file and returns a
:class:`Participants`; it never touches the database. Every problem in the file is collected and
reported at once in one :class:`~ratings.errors.InputError` (SPEC 4.4). A name is cleaned of
control characters as an import cleans it (:func:`importers.limits.cleaned`, a warning each);
in an id, a country or a title a control character is a problem.

Columns (case, spaces, hyphens, underscores and dots do not matter, and each column may go by
the other names of :data:`importers.headers.ALIASES`):

========================  ==========================================================================
``player_id``, ``name``   at least one of them; an id is matched against the rating list, a name
                          (with ``country`` when given) case- and accent-insensitively;
                          ``player_id`` ``new`` says the named player is a newcomer, whoever
                          the list holds of a like name
``country``, ``title``    optional; ``title`` ranks players of equal rating (``GM`` first)
``rank``                  optional Go rank: ``30k`` … ``1k``, ``1d`` … ``9d``; ``3 kyu``, ``2D``,
                          ``2 dan`` are read too
``rating``                optional rating a TD gives a newcomer: a number, at most 10 decimals
``bye``                   optional; ``yes``, ``y``, ``true``, ``1`` or ``x`` asks for a round-1 bye
``mms_correction``        optional McMahon group correction, −2 … 2 (OpenGotha's per-player
                          ``smmsCorrection``: +1 puts a player of the bar group in a super-group)
========================  ==========================================================================
"""

from __future__ import annotations

import re
from typing import Any

import polars as pl

from importers.headers import unknown
from importers.limits import PARTICIPANTS, cleaned, control_problems
from importers.names import name_key_expr
from importers.tabular import LINE, read_table
from ratings.countries import country_code, country_code_expr, unknown_countries
from ratings.errors import InputError, Problem
from ratings.go import rank_text, rank_value
from ratings.parameters import RATING_SCALE
from ratings.participants import NEWCOMER, Participants

COLUMNS = ("player_id", "name", "country", "title", "rank", "rating", "bye", "mms_correction")
YES = ("yes", "y", "true", "1", "x")
NO = ("no", "n", "false", "0")
MAX_CORRECTION = 2
"""OpenGotha's McMahon-groups window moves players between the bar group and the groups one and two
points above it (and one below); larger corrections are not a group any program offers."""

_RATING = re.compile(r"^-?\d+([.,]\d*)?$", re.ASCII)
_DECIMALS = len(str(RATING_SCALE)) - 1


def exact_rating(text: str) -> int | None:
    """A decimal with at most 10 decimals as exact 1e-10 points; None if it is not one.

    Parsed from the digits, never through a float, so ``1523.4567891234`` stays exact. Negative
    values are ratings too: the EGF scale goes down to -900 for a 30 kyu.
    """
    text = text.strip()
    if not _RATING.match(text):
        return None
    negative = text.startswith("-")
    whole, _, fraction = text.lstrip("-").replace(",", ".").partition(".")
    if len(fraction.rstrip("0")) > _DECIMALS:
        return None
    units = int(whole) * RATING_SCALE + int(fraction.rstrip("0").ljust(_DECIMALS, "0"))
    return -units if negative else units


def read_participants(data: bytes, source: str, fmt: str) -> Participants:
    """Read and check a participant list; raise :class:`InputError` listing every problem."""
    warnings: list[Problem] = []
    frame = read_table(data, source, fmt, PARTICIPANTS, warnings=warnings, known=COLUMNS)
    header_line = 1 if fmt in ("csv", "xlsx") else None
    _check_columns(frame, source, header_line)
    missing = [pl.lit(None, dtype=pl.String).alias(c) for c in COLUMNS if c not in frame.columns]
    frame = cleaned(frame.with_columns(missing), source, ("name",), warnings, line=LINE)
    frame = frame.with_columns(name_key_expr("name").alias("name_key"))
    problems = control_problems(frame, source, ("player_id", "country", "title"), line=LINE)
    rows: list[dict[str, object]] = []
    for row in frame.iter_rows(named=True):
        checked = _check_row(row, source, problems)
        if checked is not None:
            rows.append(checked)
    problems += _duplicates(frame, source)
    if problems:
        problems.sort(key=lambda p: (p.line or 0, COLUMNS.index(p.column or "name")))
        raise InputError(problems)
    schema = {
        "line": pl.Int64,
        "player_id": pl.String,
        "name": pl.String,
        "name_key": pl.String,
        "country": pl.String,
        "title": pl.String,
        "rank": pl.String,
        "rating": pl.Int64,
        "bye": pl.Boolean,
        "mms_correction": pl.Int64,
        "newcomer": pl.Boolean,
    }
    warnings += unknown_countries(frame, source, line=LINE)
    return Participants(source, pl.DataFrame(rows, schema=schema, orient="row"), tuple(warnings))


def _check_columns(frame: pl.DataFrame, source: str, header_line: int | None) -> None:
    columns = [c for c in frame.columns if c != LINE]
    problems = [
        Problem(source, header_line, column, None, unknown(column, COLUMNS))
        for column in columns
        if column not in COLUMNS
    ]
    if "player_id" not in columns and "name" not in columns:
        problems.append(
            Problem(source, header_line, "name", None, "a player_id or a name column is required")
        )
    if problems:
        raise InputError(problems)


def _check_row(
    row: dict[str, Any], source: str, problems: list[Problem]
) -> dict[str, object] | None:
    """The row's typed values, or None after adding its problems to ``problems``."""
    line: int = row[LINE]
    found: list[Problem] = []

    def bad(column: str, expected: str) -> None:
        found.append(Problem(source, line, column, row[column], expected))

    if row["player_id"] is None and row["name"] is None:
        bad("name", "a player_id or a name is required")
    if (row["player_id"] or "").strip().lower() == NEWCOMER and row["name"] is None:
        bad("name", f"the name of the newcomer (the player_id says {NEWCOMER})")
    rank = row["rank"]
    value = None if rank is None else rank_value(rank)
    if rank is not None and value is None:
        bad("rank", "a Go rank from 30k to 1k or 1d to 9d (such as 3k, 2d, 3 kyu)")
    rating = row["rating"]
    exact = None if rating is None else exact_rating(rating)
    if rating is not None and exact is None:
        bad("rating", "a rating: a number with at most 10 decimals (such as 1523 or 1523.25)")
    bye = row["bye"]
    if bye is not None and bye.lower() not in YES + NO:
        bad("bye", f"yes or no ({', '.join(YES)} ask for a bye; {', '.join(NO)} or empty do not)")
    correction = row["mms_correction"]
    shift = _correction(correction)
    if correction is not None and shift is None:
        bad("mms_correction", f"a whole number from -{MAX_CORRECTION} to {MAX_CORRECTION}")
    if found:
        problems.extend(found)
        return None
    newcomer = (row["player_id"] or "").strip().lower() == NEWCOMER
    return {
        "line": line,
        "player_id": None if newcomer else row["player_id"],
        "name": row["name"],
        "name_key": row["name_key"],
        "country": country_code(row["country"]),
        "title": None if row["title"] is None else row["title"].upper(),
        "rank": None if value is None else rank_text(value),
        "rating": exact,
        "bye": bye is not None and bye.lower() in YES,
        "mms_correction": shift or 0,
        "newcomer": newcomer,
    }


def _correction(text: str | None) -> int | None:
    if text is None:
        return 0
    try:
        value = int(text.strip().removesuffix(".0"))
    except ValueError:
        return None
    return value if -MAX_CORRECTION <= value <= MAX_CORRECTION else None


def _duplicates(frame: pl.DataFrame, source: str) -> list[Problem]:
    """A participant twice: the same player_id, or (without ids) the same name and country."""
    problems: list[Problem] = []
    first_by_id: dict[str, int] = {}
    first_by_name: dict[tuple[str, str | None], int] = {}
    for line, player_id, name, key, country in frame.select(
        LINE, "player_id", "name", "name_key", country_code_expr("country")
    ).iter_rows():
        if player_id is not None and player_id.strip().lower() == NEWCOMER:
            player_id = None
        if player_id is not None:
            if player_id in first_by_id:
                problems.append(
                    Problem(
                        source,
                        line,
                        "player_id",
                        player_id,
                        f"each participant once (this player_id is also on line "
                        f"{first_by_id[player_id]})",
                    )
                )
            else:
                first_by_id[player_id] = line
        elif key is not None:
            if (key, country) in first_by_name:
                problems.append(
                    Problem(
                        source,
                        line,
                        "name",
                        name,
                        f"each participant once (this name is also on line "
                        f"{first_by_name[(key, country)]}; give player_ids to tell them apart)",
                    )
                )
            else:
                first_by_name[(key, country)] = line
    return problems
