"""McMahon seed list and round-1 pairing (SPEC 7, McMahon; seeds 000 and 001).

Each participant starts with an initial McMahon score (MMS) from a strength class: the Go rank of
the participant file, or the rank the exact rating reads as through ``rank_table``. Seed 000 counts
20 kyu = 0, 19 kyu = 1, …, 1 kyu = 19, 1 dan = 20 (``zero`` moves that origin). Seed 001: everyone
at or above the bar starts with the bar's score, so the top group is decided by games alone;
likewise everyone at or below the floor starts with the floor's score. A participant's
``mms_correction`` is added last: OpenGotha's super-group (+1) and super-super-group (+2) above the
bar, or a group below it (−1), chosen by the organiser player by player.

Round 1 is paired inside each score group, top half against bottom half by seed; the last player of
an odd group goes down as the top player of the next group, and the last player left gets the bye.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from exporters.seeding import SeedingOptions, check_seed_list, ordered, pair_groups
from exporters.seeding_swiss import SEED_COLUMNS
from ratings.errors import InputError, Problem
from ratings.go import handicap_stones, initial_score, rank_text, rank_value
from ratings.parameters import RATING_SCALE

MCMAHON_COLUMNS = (
    *(c for c in SEED_COLUMNS if c not in ("class", "bye")), "rank", "mms", "group", "bye",
)  # fmt: skip
"""Swiss columns but the Swiss strength class, plus McMahon's own: the rank the score comes from,
the initial McMahon score ``mms`` and the ``group`` that decided it (:func:`group_text`)."""


def initial_mms(rank: int, options: SeedingOptions, correction: int = 0) -> int:
    """The initial McMahon score of a rank (a :func:`~ratings.go.rank_value`): the rank held
    between floor and bar, counted from ``zero``, plus the participant's correction."""
    held = initial_score(
        rank, zero=options.zero_value, bar=options.bar_value, floor=options.floor_value
    )
    return held + correction


def group_text(rank: int, options: SeedingOptions, correction: int = 0) -> str | None:
    """The McMahon group a rank starts in when the bar or floor decided its score: ``bar``
    (everyone at or above the bar), ``floor`` (at or below the floor), with the organiser's
    correction (``bar +1``, OpenGotha's super-group); None for a rank scored as it is."""
    bar, floor = options.bar_value, options.floor_value
    held = (
        "bar" if bar is not None and rank >= bar
        else "floor" if floor is not None and rank <= floor
        else None
    )  # fmt: skip
    if not correction:
        return held
    return f"{held} {correction:+d}" if held else f"{correction:+d}"


def rank_of_rating(units: int, options: SeedingOptions) -> int:
    """The rank an exact rating reads as through ``rank_table`` (the last rank below every bound)."""
    for bound, rank in options.rank_table:
        if units >= bound * RATING_SCALE:
            return _value(rank)
    return _value(options.rank_table[-1][1])


def _value(rank: str) -> int:
    value = rank_value(rank)
    assert value is not None  # the options checked their table
    return value


def mcmahon_seed_list(matched: pl.DataFrame, options: SeedingOptions | None = None) -> pl.DataFrame:
    """The seed list of a McMahon event: initial-score groups from the highest, inside each group by
    exact rating, title and name. Raises :class:`InputError` for a participant without a rank
    when the scores come from ranks."""
    options = options or SeedingOptions()
    if matched.height == 0:
        raise ValueError("the participant list is empty: there is nobody to seed")
    problems: list[Problem] = []
    ranks: list[str | None] = []
    scores: list[int | None] = []
    groups: list[str | None] = []
    for row in matched.iter_rows(named=True):
        value = _strength(row, options, problems)
        correction = row["mms_correction"]
        ranks.append(None if value is None else rank_text(value))
        scores.append(None if value is None else initial_mms(value, options, correction))
        groups.append(None if value is None else group_text(value, options, correction))
    if problems:
        raise InputError(problems)
    scored = matched.with_columns(
        pl.Series("rank", ranks, dtype=pl.String),
        pl.Series("mms", scores, dtype=pl.Int64),
        pl.Series("group", groups, dtype=pl.String),
    )
    rows = ordered(scored, options, -pl.col("mms"))
    return rows.with_columns(pl.col("rating_shown").alias("rating")).select(MCMAHON_COLUMNS)


def _strength(row: dict[str, Any], options: SeedingOptions, problems: list[Problem]) -> int | None:
    if options.mms_from == "rating":
        return rank_of_rating(row["rating"], options)
    value = None if row["rank"] is None else rank_value(row["rank"])
    if value is None:
        problems.append(
            Problem(
                row["source"],
                row["line"],
                "rank",
                row["rank"],
                "a Go rank such as 3k or 2d: the McMahon scores come from ranks "
                "(or seed from ratings instead)",
            )
        )
    return value


def mcmahon_pairings(
    seed_list: pl.DataFrame, options: SeedingOptions | None = None
) -> pl.DataFrame:
    """Round 1 of a McMahon event, group by group from the highest initial score. Columns of
    :data:`~exporters.seeding.PAIRING_COLUMNS`."""
    options = options or SeedingOptions()
    check_seed_list(seed_list, ("seed", "player_id", "name", "mms", "bye"))
    rows = seed_list.sort("seed")
    requested = rows.filter(pl.col("bye")).to_dicts()
    groups = [
        group.sort("seed").to_dicts()
        for _, group in rows.filter(~pl.col("bye")).group_by("mms", maintain_order=True)
    ]
    groups.sort(key=lambda group: -int(group[0]["mms"]))
    paired = pair_groups(groups, requested, options)
    return with_handicaps(paired, seed_list, options) if options.handicapped else paired


def with_handicaps(
    paired: pl.DataFrame, seed_list: pl.DataFrame, options: SeedingOptions
) -> pl.DataFrame:
    """A handicap event's pairing: each game's ``handicap`` (:func:`~ratings.go.handicap_stones`
    of the two players' initial scores or ranks), the stronger player taking White in a game
    with handicap, since the weaker one plays Black and gets the stones."""
    if options.handicap_from == "rank":
        values = [rank_value(r or "") for r in seed_list["rank"]]
    else:
        values = [options.zero_value + m for m in seed_list["mms"]]
    strength = dict(zip(seed_list["seed"], values, strict=True))
    rows = []
    for board in paired.iter_rows(named=True):
        white, black = board["white_seed"], board["black_seed"]
        stones = None
        if (
            black is not None
            and strength.get(white) is not None
            and strength.get(black) is not None
        ):
            stronger, weaker = strength[white], strength[black]
            stones = handicap_stones(
                stronger, weaker, correction=options.handicap_correction,
                ceiling=options.handicap_ceiling, threshold=options.threshold_value,
            )  # fmt: skip
            if stones and stronger < weaker:
                board = board | {
                    f"{a}_{c}": board[f"{b}_{c}"]
                    for a, b in (("white", "black"), ("black", "white"))
                    for c in ("seed", "id", "name")
                }
        rows.append(board | {"handicap": stones})
    return pl.DataFrame(rows, schema=paired.schema | {"handicap": pl.Int64})
