"""The checks of a results table's cells, columns and tournaments: each returns every problem it
finds (SPEC 4.4), so that one refusal lists them all."""

from __future__ import annotations

import polars as pl

from importers.headers import unknown
from importers.limits import MAX_GAMES
from importers.problems import ROWS_SHOWN, note_rest, problem_rows
from importers.result_columns import (
    COLUMNS,
    DATE_TEXT,
    HUGE_BUCHHOLZ_TEXT,
    ID_COLUMNS,
    ID_TEXT,
    INT_TEXT,
    NUMBER_TEXT,
    REQUIRED,
)
from importers.tabular import LINE
from ratings.errors import InputError, Problem, shortened
from ratings.parameters import BUCHHOLZ_SCALE
from ratings.tiers import TIERS


def check_columns(frame: pl.DataFrame, source: str, header_line: int | None) -> None:
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


def cell_problems(frame: pl.DataFrame, source: str) -> list[Problem]:
    """The problems of each cell read alone: required values, counts, ids, Buchholz values,
    dates and tiers."""
    checks: list[Check] = [
        (column, pl.col(column).is_null(), "a value is required") for column in REQUIRED
    ]
    checks.append((
        "name", pl.col("player_id").is_null() & pl.col("name").is_null(),
        "a player_id or a name is required",
    ))  # fmt: skip
    for column in ("wins", "draws", "losses"):
        checks += _count_checks(column, stored=frame.schema[column].is_integer())
    checks += _id_checks()
    if frame.schema["buchholz"] == pl.String:
        # Otherwise exact counts of 1e-4 points (``importers.results._as_read``): every check
        # of their text passes.
        checks += _buchholz_checks()
    return _found(frame, source, checks + _date_and_tier_checks(frame))


def _count_checks(column: str, stored: bool) -> list[Check]:
    """The checks of a count of games, ``stored`` as whole numbers or as text."""
    value = pl.col(column)
    present = value.is_not_null()
    too_many_games = f"more than {MAX_GAMES} games in one event"
    if stored:
        # Stored as whole numbers: only the sign and the size can be wrong.
        return [
            (column, present & (value < 0), "must not be negative"),
            (column, present & (value > MAX_GAMES), too_many_games),
        ]
    number = value.str.contains(NUMBER_TEXT)
    negative = value.str.starts_with("-")
    return [
        (column, present & negative & number, "must not be negative"),
        (
            column, present & ~negative & number & ~value.str.contains(INT_TEXT),
            "expected a whole number of games",
        ),
        (column, present & ~number, "expected a whole number"),
        (column, present & value.str.contains(INT_TEXT) & too_many(value), too_many_games),
    ]  # fmt: skip


def _id_checks() -> list[Check]:
    """The checks of the external ids: digits, and one of them at most."""
    checks: list[Check] = []
    for column in ID_COLUMNS:
        value = pl.col(column).str.strip_chars()
        checks.append((
            column, value.is_not_null() & (value != "") & ~value.str.contains(ID_TEXT),
            "expected the id's digits",
        ))  # fmt: skip
    checks.append((
        "egd_pin", given("fide_id") & given("egd_pin"),
        "a row gives one external id: a FIDE id (chess) or an EGD PIN (Go), not both",
    ))  # fmt: skip
    return checks


def _buchholz_checks() -> list[Check]:
    """The checks of a Buchholz value written as text."""
    buchholz = pl.col("buchholz")
    present = buchholz.is_not_null()
    return [
        ("buchholz", present & ~buchholz.str.contains(NUMBER_TEXT), "expected a number"),
        ("buchholz", present & buchholz.str.contains(r"^-\d"), "must not be negative"),
        (
            "buchholz", present & buchholz.str.contains(HUGE_BUCHHOLZ_TEXT),
            f"larger than possible: more than {MAX_GAMES} games × {MAX_GAMES + 1} points",
        ),
        (
            "buchholz",
            present
            & buchholz.str.contains(r"[.,]\d{5,}$")
            & ~buchholz.str.contains(r"[.,]\d{4}0+$"),
            "at most 4 decimal places",
        ),
    ]  # fmt: skip


def _date_and_tier_checks(frame: pl.DataFrame) -> list[Check]:
    checks: list[Check] = []
    for column in ("start_date", "end_date"):
        if frame.schema[column] == pl.Date:
            continue
        value = pl.col(column)
        shaped = value.str.contains(DATE_TEXT)
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
                value.is_not_null() & shaped & to_date(value).is_null(),
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


def given(column: str) -> pl.Expr:
    value = pl.col(column).str.strip_chars()
    return value.is_not_null() & (value != "")


def too_many(value: pl.Expr) -> pl.Expr:
    """A whole number of games above MAX_GAMES, however many digits it has (a cast to 64 bits
    of a longer number would fail)."""
    whole = value.str.replace(r"\..*$", "").str.strip_chars_start("0")
    too_long = whole.str.len_chars() > len(str(MAX_GAMES))
    return (too_long | (whole.cast(pl.Int64, strict=False) > MAX_GAMES)).fill_null(False)


def to_date(value: pl.Expr) -> pl.Expr:
    return value.str.slice(0, 10).str.to_date("%Y-%m-%d", strict=False)


def tournament_problems(typed: pl.DataFrame, source: str) -> list[Problem]:
    problems: list[Problem] = []
    # A row without a tournament key (no tournament id, and a name or end date missing) belongs to
    # no tournament: the check of its cells names what is missing, and it is compared with nothing.
    if typed["key"].null_count():
        typed = typed.filter(pl.col("key").is_not_null())
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
