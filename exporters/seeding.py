"""Seed lists for the first round of an event (SPEC 7): what Swiss and McMahon seeding share.

Pure functions of frames: no database, settings, files or clock. The steps are

1. :func:`match_participants` finds each participant of a
   :class:`~ratings.participants.Participants` list on the rating list and gives everyone the
   exact rating the seed list orders by;
2. :func:`exporters.seeding_swiss.swiss_seed_list` or
   :func:`exporters.seeding_mcmahon.mcmahon_seed_list` orders them and numbers the seeds;
3. :func:`exporters.seeding_swiss.swiss_pairings` or
   :func:`exporters.seeding_mcmahon.mcmahon_pairings` pairs round 1 from that list.

Every parameter is a field of :class:`SeedingOptions`, checked when the options are built; a bad
value is a :class:`~ratings.errors.SeedingOptionError` whose sentence names it. Problems of the participant file (an
unknown id, an ambiguous name) are an :class:`~ratings.errors.InputError` naming its line.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from exporters.ranking import exact_number, exact_text
from ratings.countries import country_code
from ratings.errors import (
    BarBelowFloorError,
    EmptyTableError,
    InputError,
    NamelessOptionError,
    OptionValueError,
    Problem,
    SeedCandidate,
    TableBoundError,
    TableLabelError,
    TableOrderError,
    UnclearParticipant,
    UnclearParticipantsError,
)
from ratings.go import rank_text, rank_value
from ratings.names import alphabetical_expr
from ratings.parameters import RATING_SCALE
from ratings.participants import Participants, name_candidates
from ratings.rounding import ROUNDINGS, Rounding, published, published_expr

TITLES = ("GM", "IM", "WGM", "FM", "WIM", "CM", "WFM", "WCM")
"""Titles from the strongest: among equal ratings a GM is seeded first (SPEC 7), the others follow
FIDE's order; any other title comes after these, no title last."""

DEFAULT_CLASSES = ((1200, "A"), (1100, "B"), (1000, "C"), (900, "D"))
"""Strength classes on the MELO scale, whose newcomers start at 1000: a class per 100 points around
the start, so a newcomer is class C, a player who gained 100 points B, one who lost 100 points D."""

EGF_RANKS = tuple((2050 + 100 * value, rank_text(value)) for value in range(8, -31, -1))
"""The EGF's reading of a rating as a Go rank, which OpenGotha uses too: 1d from 2050 (an EGD
rating of 2100 is a "typical" 1d), one grade per 100 points, 9d from 2850, 30k below -850."""

MATCHED_SCHEMA = {
    "source": pl.String,
    "line": pl.Int64,
    "player_id": pl.String,
    "name": pl.String,
    "name_key": pl.String,
    "country": pl.String,
    "title": pl.String,
    "rank": pl.String,
    "rating": pl.Int64,
    "newcomer": pl.Boolean,
    "unrated": pl.Boolean,
    "bye": pl.Boolean,
    "mms_correction": pl.Int64,
}
"""Columns of :func:`match_participants`' frame."""

UNRATED = ("initial", "last")
"""Where a Swiss seed list puts unrated participants (:attr:`SeedingOptions.unrated`)."""

KNOWN_COLUMNS = ("player_id", "name", "name_key", "country", "title", "rating")
"""Columns :func:`match_participants` reads from the rating list."""

PAIRING_COLUMNS = {
    "board": pl.Int64,
    "white_seed": pl.Int64,
    "white_id": pl.String,
    "white_name": pl.String,
    "black_seed": pl.Int64,
    "black_id": pl.String,
    "black_name": pl.String,
    "bye": pl.String,
}
"""Columns of a round-1 pairing; ``bye`` is null for a game, ``pairing`` for the bye the pairing
gives the odd player out, ``requested`` for a participant who asked not to be paired."""


@dataclass(frozen=True, slots=True)
class SeedingOptions:
    """How a seed list and its round-1 pairing are made. Every default is stated with its field."""

    newcomer_rating: int = 1000 * RATING_SCALE
    """Exact rating (1e-10 points) of a participant the rating list does not know, or knows
    unrated, when the file gives no rating: the MELO start of 1000 (SPEC 2)."""
    rounding: str = Rounding.HALF_UP
    """How the published whole rating is shown: ``half_up`` or ``truncate`` (SPEC 2)."""
    classes: tuple[tuple[int, str], ...] = DEFAULT_CLASSES
    """Strength classes: (lowest whole rating, class name), strongest first; see
    :data:`DEFAULT_CLASSES`. The exact rating decides, like ranks in the ranking list."""
    lowest_class: str = "E"
    """Class of a rating below every bound of ``classes``."""
    first_board_white: bool = True
    """The higher seed of board 1 has White; colours then alternate board by board."""
    mms_from: str = "rank"
    """Where a McMahon strength class comes from: ``rank`` (the Go rank in the file, seed 000) or
    ``rating`` (the exact rating read through ``rank_table``)."""
    rank_table: tuple[tuple[int, str], ...] = EGF_RANKS
    """(lowest whole rating, Go rank), strongest first; a rating below every bound gets the last
    rank. Default :data:`EGF_RANKS`."""
    zero: str = "20k"
    """The rank whose initial McMahon score is 0: seed 000 counts 20 kyu = 0, 19 kyu = 1, …,
    1 kyu = 19, 1 dan = 20. OpenGotha's default is 30k, the Polish seed's "usual" 15k."""
    bar: str | int | None = None
    """McMahon bar, a rank (``"4d"``) or an initial score (an ``int``): every rank at or above it
    starts with the bar's score. None: no bar."""
    floor: str | int | None = None
    """McMahon floor, a rank or a score: every rank at or below it starts with the floor's score.
    None: no floor (ranks below ``zero`` start below 0)."""
    handicap_ceiling: int = 0
    """McMahon: the most handicap a game of the round-1 pairing gets (OpenGotha's ``hdCeiling``,
    at most 9). 0: every game is even, the event is not a handicap event."""
    handicap_correction: int = 1
    """How much less handicap than the difference of strengths a game gets (``hdCorrection``):
    with 1, players one grade apart play even and two grades apart without komi."""
    handicap_threshold: str | None = None
    """A Go rank from which up nobody gets handicap: stronger players count as this rank
    (``hdNoHdRankThreshold``, often ``1d``). None: no threshold."""
    unrated: str = "initial"
    """Where a Swiss seed list puts a participant with no rating (not on the list, or on it
    unrated) when the file gives none: ``initial``, at ``newcomer_rating`` among the rated (the
    MELO start, so the default); ``last``, after every rated participant, by title then name, with
    no rating or class shown, as FIDE's pairing rules and Vega seed unrated players."""
    review_score: float = 85.0
    """A participant named only, whose name no player of the list has, is asked about when it is
    this close (0-100, :func:`~ratings.names.similarity`) to a player's name, or part of it; the
    import's ``review_score`` setting."""
    handicap_from: str = "mms"
    """What the handicap is the difference of: ``mms`` (the initial McMahon scores, so that the
    players a bar puts in one group play even; OpenGotha's ``hdBasedOnMMS``) or ``rank``."""

    def __post_init__(self) -> None:
        if not isinstance(self.newcomer_rating, int) or isinstance(self.newcomer_rating, bool):
            raise OptionValueError(
                "the newcomer rating", self.newcomer_rating, "a whole number of 1e-10 points"
            )
        if self.rounding not in ROUNDINGS:
            raise OptionValueError("rounding", self.rounding, " or ".join(ROUNDINGS))
        _check_table("class table", self.classes, lambda name: bool(name.strip()), "a class name")
        if not self.lowest_class.strip():
            raise NamelessOptionError("the lowest class")
        if self.unrated not in UNRATED:
            raise OptionValueError("unrated", self.unrated, " or ".join(UNRATED))
        if self.mms_from not in ("rank", "rating"):
            raise OptionValueError("mms_from", self.mms_from, "rank or rating")
        if not self.rank_table:
            raise EmptyTableError("rating-to-rank table")
        _check_table(
            "rating-to-rank table",
            self.rank_table,
            lambda rank: rank_value(rank) is not None,
            "a Go rank such as 3k or 2d",
        )
        if rank_value(self.zero) is None:
            raise OptionValueError("the zero rank", self.zero, "a Go rank such as 20k")
        if not _whole(self.handicap_ceiling) or not 0 <= self.handicap_ceiling <= MAX_HANDICAP:
            raise OptionValueError(
                "the handicap ceiling", self.handicap_ceiling, f"a whole number 0 to {MAX_HANDICAP}"
            )
        if not _whole(self.handicap_correction) or not 0 <= self.handicap_correction <= 9:
            raise OptionValueError(
                "the handicap correction", self.handicap_correction, "a whole number 0 to 9"
            )
        if self.handicap_threshold is not None and rank_value(self.handicap_threshold) is None:
            raise OptionValueError(
                "the handicap threshold", self.handicap_threshold, "a Go rank such as 1d"
            )
        if isinstance(self.review_score, bool) or not 0 <= self.review_score <= 100:
            raise OptionValueError("the review score", self.review_score, "a number 0 to 100")
        if self.handicap_from not in ("mms", "rank"):
            raise OptionValueError("handicap_from", self.handicap_from, "mms or rank")
        bar, floor = self.bar_value, self.floor_value
        if bar is not None and floor is not None and bar < floor:
            assert self.bar is not None  # a bar value comes from a bar
            assert self.floor is not None
            raise BarBelowFloorError(self.bar, self.floor)

    @property
    def handicapped(self) -> bool:
        """True for a handicap event: a game between different strengths may get handicap."""
        return self.handicap_ceiling > 0

    @property
    def threshold_value(self) -> int | None:
        """:attr:`handicap_threshold` on the scale of :func:`~ratings.go.rank_value`."""
        return None if self.handicap_threshold is None else rank_value(self.handicap_threshold)

    @property
    def zero_value(self) -> int:
        """:attr:`zero` on the scale of :func:`~ratings.go.rank_value`."""
        value = rank_value(self.zero)
        assert value is not None  # checked in __post_init__
        return value

    @property
    def bar_value(self) -> int | None:
        """The bar on the rank scale (a score is counted from :attr:`zero`)."""
        return self._limit("bar", self.bar)

    @property
    def floor_value(self) -> int | None:
        """The floor on the rank scale (a score is counted from :attr:`zero`)."""
        return self._limit("floor", self.floor)

    def _limit(self, what: str, limit: str | int | None) -> int | None:
        if limit is None:
            return None
        if isinstance(limit, bool):
            raise OptionValueError(f"the {what}", limit, "a Go rank or a score")
        if isinstance(limit, int):
            return self.zero_value + limit
        value = rank_value(limit)
        if value is None:
            raise OptionValueError(f"the {what}", limit, "a Go rank such as 4d or a whole score")
        return value


MAX_HANDICAP = 9
"""The most handicap stones a Go game is given."""


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_table(
    what: str, table: Sequence[tuple[int, str]], valid: Callable[[str], bool], expected: str
) -> None:
    for bound, label in table:
        if not isinstance(bound, int) or isinstance(bound, bool):
            raise TableBoundError(what, bound)
        if not isinstance(label, str) or not valid(label):
            raise TableLabelError(what, bound, label, expected)
    for high, low in itertools.pairwise(table):
        if low[0] >= high[0]:
            raise TableOrderError(what, high, low)


def match_participants(
    participants: Participants, known: pl.DataFrame, options: SeedingOptions | None = None
) -> pl.DataFrame:
    """Find each participant on the rating list and give everyone an exact rating.

    ``known`` holds the rating list: player_id (federation id), name, name_key, country, title,
    rating (exact 1e-10 points, null for a player without a rating). A participant with a player_id
    is that player (an unknown id is an error); one with a name only is the known player of that
    name (and country, when given), compared as :func:`~importers.names.name_key` does. A name
    the list holds more than once, or that is only part of or close to names it holds
    (:func:`~ratings.participants.name_candidates`), is not guessed: an
    :class:`~ratings.errors.UnclearParticipantsError` lists the players it may be, for the
    director to give the id, or ``new``. A name like nobody's, or one the file marks ``new``,
    is a newcomer, seeded at the file's rating or ``newcomer_rating``. A rating in the file is
    for newcomers and unrated players: for a rated player it must agree with the list.

    Returns one row per participant, in file order, with the columns of :data:`MATCHED_SCHEMA`.
    """
    options = options or SeedingOptions()
    missing = [c for c in KNOWN_COLUMNS if c not in known.columns]
    if missing:
        raise ValueError(f"the rating list lacks the column(s) {', '.join(missing)}")
    rows = participants.rows
    if "newcomer" not in rows.columns:
        rows = rows.with_columns(pl.lit(False).alias("newcomer"))
    source = participants.source
    ids = rows["player_id"].drop_nulls().implode()
    keys = rows.filter(pl.col("player_id").is_null())["name_key"].drop_nulls().implode()
    by_id = {
        row["player_id"]: row
        for row in known.filter(pl.col("player_id").is_in(ids)).iter_rows(named=True)
    }
    by_key: dict[str, list[dict[str, Any]]] = {}
    for row in known.filter(pl.col("name_key").is_in(keys)).iter_rows(named=True):
        by_key.setdefault(row["name_key"], []).append(row)

    problems: list[Problem] = []
    unclear: list[UnclearParticipant] = []
    found: list[dict[str, Any] | None] = []
    unknown: list[dict[str, Any]] = []
    first_line: dict[str, int] = {}
    for row in rows.iter_rows(named=True):
        line = row["line"]
        settled = len(unclear)
        player = _find(row, by_id, by_key, source, problems, unclear, options)
        found.append(player)
        if player is None:
            named_only = row["player_id"] is None and not row["newcomer"]
            if named_only and len(unclear) == settled:
                unknown.append(row)
            continue
        earlier = first_line.setdefault(player["player_id"], line)
        if earlier != line:
            column = "player_id" if row["player_id"] is not None else "name"
            problems.append(
                Problem(
                    source,
                    line,
                    column,
                    row[column],
                    f"each participant once (this is player {player['player_id']}, "
                    f"already on line {earlier})",
                )
            )
    if problems:
        raise InputError(problems)
    taken = {player["player_id"] for player in found if player is not None}
    unclear = [_without(u, taken) for u in unclear]
    unclear += _resembling(unknown, known, taken, source, options)
    if unclear:
        raise UnclearParticipantsError(sorted(unclear, key=lambda u: u.line))

    matched: list[dict[str, Any]] = []
    for row, player in zip(rows.iter_rows(named=True), found, strict=True):
        line = row["line"]
        rating = _rating(row, player, options, source, problems)
        matched.append(
            {
                "source": source,
                "line": line,
                "player_id": None if player is None else player["player_id"],
                "name": row["name"] if player is None else player["name"],
                "name_key": row["name_key"] if player is None else player["name_key"],
                "country": row["country"] or (None if player is None else player["country"]),
                "title": row["title"] or (None if player is None else player["title"]),
                "rank": row["rank"],
                "rating": rating,
                "newcomer": player is None,
                "unrated": row["rating"] is None and (player is None or player["rating"] is None),
                "bye": row["bye"],
                "mms_correction": row["mms_correction"],
            }
        )
    if problems:
        raise InputError(problems)
    return pl.DataFrame(matched, schema=MATCHED_SCHEMA, orient="row")


SHOWN_CANDIDATES = 10
"""Most candidates listed for one participant: a surname alone may be shared by hundreds."""


def _unclear(
    row: dict[str, Any],
    source: str,
    reason: str,
    candidates: Sequence[dict[str, Any]],
    options: SeedingOptions,
) -> UnclearParticipant:
    listed = tuple(
        SeedCandidate(
            str(c["player_id"]),
            c["name"],
            c["country"],
            None if c["rating"] is None else published(c["rating"], options.rounding),
        )
        for c in candidates[:SHOWN_CANDIDATES]
    )
    more = max(len(candidates) - SHOWN_CANDIDATES, 0)
    return UnclearParticipant(
        source, row["line"], row["name"], row["country"], reason, listed, more
    )


def _without(unclear: UnclearParticipant, taken: set[str]) -> UnclearParticipant:
    """``unclear`` without the candidates other lines of the file give: a player given on
    another line is not who this one is, unless nobody else is left."""
    free = tuple(c for c in unclear.candidates if c.player_id not in taken)
    return dataclasses.replace(unclear, candidates=free) if free else unclear


def _resembling(
    rows: Sequence[dict[str, Any]],
    known: pl.DataFrame,
    taken: set[str],
    source: str,
    options: SeedingOptions,
) -> list[UnclearParticipant]:
    """The participants no player of the list has the name of, whose name is part of or close
    to the names of players not ``taken`` by other lines: newcomers only when the director
    says so."""
    queries = [(row["name_key"], country_code(row["country"])) for row in rows]
    candidates = [
        [c for c in found if c["player_id"] not in taken]
        for found in name_candidates(queries, known, min_score=options.review_score)
    ]
    return [
        _unclear(
            row,
            source,
            f"no player of the rating list has this name, but it is part of or close to the "
            f"name of {len(found)} player{'s' if len(found) != 1 else ''}",
            found,
            options,
        )
        for row, found in zip(rows, candidates, strict=True)
        if found
    ]


def _find(
    row: dict[str, Any],
    by_id: dict[str, dict[str, Any]],
    by_key: dict[str, list[dict[str, Any]]],
    source: str,
    problems: list[Problem],
    unclear: list[UnclearParticipant],
    options: SeedingOptions,
) -> dict[str, Any] | None:
    """The rating-list row of a participant; None for a newcomer, a name not settled or after a
    problem."""
    if row["player_id"] is not None:
        player = by_id.get(row["player_id"])
        if player is None:
            problems.append(
                Problem(
                    source,
                    row["line"],
                    "player_id",
                    row["player_id"],
                    "a player_id of the rating list (for a newcomer, leave it empty and give "
                    "the name)",
                )
            )
        return player
    if row["newcomer"]:
        return None
    # Both sides normalised: a list published before countries were stored as ISO codes still
    # says GER where the participant file may say DEU or DE.
    country = country_code(row["country"])
    candidates = [
        known
        for known in by_key.get(row["name_key"], [])
        if country is None or country_code(known["country"]) == country
    ]
    if len(candidates) > 1:
        unclear.append(
            _unclear(
                row,
                source,
                f"{len(candidates)} players of the rating list have this name",
                sorted(candidates, key=lambda c: str(c["player_id"])),
                options,
            )
        )
        return None
    return candidates[0] if candidates else None


def _rating(
    row: dict[str, Any],
    player: dict[str, Any] | None,
    options: SeedingOptions,
    source: str,
    problems: list[Problem],
) -> int:
    given: int | None = row["rating"]
    if player is None or player["rating"] is None:
        return options.newcomer_rating if given is None else given
    listed: int = player["rating"]
    shown = published(listed, options.rounding) * RATING_SCALE
    if given is not None and given not in (listed, shown):
        problems.append(
            Problem(
                source,
                row["line"],
                "rating",
                _exact(given),
                f"no rating, or the list's: player {player['player_id']} is rated {_exact(listed)} "
                f"(a rating in the file is for newcomers and unrated players)",
            )
        )
    return listed


def _exact(units: int) -> str:
    return str(pl.select(exact_text(pl.lit(units, dtype=pl.Int64))).item())


def ordered(matched: pl.DataFrame, options: SeedingOptions, *first: pl.Expr) -> pl.DataFrame:
    """Participants in seed order, numbered: ``first`` (McMahon: the initial score, descending),
    then exact rating (descending), then title (GM first), then name; adds the shown columns."""
    if matched.height == 0:
        raise ValueError("the participant list is empty: there is nobody to seed")
    missing = [c for c in MATCHED_SCHEMA if c not in matched.columns]
    if missing:
        raise ValueError(
            f"the participants need the columns of match_participants; missing: "
            f"{', '.join(missing)}"
        )
    title = pl.col("title").str.to_uppercase()
    title_order = (
        pl.when(title.is_null())
        .then(len(TITLES) + 1)
        .otherwise(
            title.replace_strict(list(TITLES), list(range(len(TITLES))), default=len(TITLES))
        )
    )
    keys = [
        *first,
        -pl.col("rating"),
        title_order,
        alphabetical_expr("name"),
        pl.col("name"),
        pl.col("player_id"),
        pl.col("line"),
    ]
    rows = matched.sort(keys, nulls_last=True)
    return rows.with_columns(
        pl.int_range(1, rows.height + 1, dtype=pl.Int64).alias("seed"),
        published_expr(pl.col("rating"), options.rounding).alias("rating_shown"),
        exact_number(pl.col("rating")).alias("rating_exact"),
        _class_expr(options).alias("class"),
    )


def _class_expr(options: SeedingOptions) -> pl.Expr:
    expr = pl.lit(options.lowest_class)
    for bound, name in reversed(options.classes):
        expr = pl.when(pl.col("rating") >= bound * RATING_SCALE).then(pl.lit(name)).otherwise(expr)
    return expr


def pair_groups(
    groups: Sequence[Sequence[dict[str, Any]]],
    requested: Sequence[dict[str, Any]],
    options: SeedingOptions,
) -> pl.DataFrame:
    """Round 1 from seed-list rows: inside each group (strongest group first, each in seed order)
    the top half meets the bottom half in order (1 v n/2+1, 2 v n/2+2, …); the last of an odd
    group moves down as the top player of the next group; the last one left over gets the bye.
    The higher seed has White on board 1 (Black if not ``first_board_white``), and colours
    alternate board by board. Byes follow the games, then the ``requested`` byes in seed order."""
    games: list[tuple[dict[str, Any], dict[str, Any]]] = []
    moved: dict[str, Any] | None = None
    for group in groups:
        members = [*([moved] if moved is not None else []), *group]
        moved = members.pop() if len(members) % 2 else None
        half = len(members) // 2
        games += zip(members[:half], members[half:], strict=True)
    rows: list[dict[str, Any]] = []
    for index, (higher, lower) in enumerate(games):
        higher_white = (index % 2 == 0) == options.first_board_white
        white, black = (higher, lower) if higher_white else (lower, higher)
        rows.append(_board(len(rows) + 1, white, black, None))
    if moved is not None:
        rows.append(_board(len(rows) + 1, moved, None, "pairing"))
    for player in requested:
        rows.append(_board(len(rows) + 1, player, None, "requested"))
    return pl.DataFrame(rows, schema=PAIRING_COLUMNS, orient="row")


def _board(
    board: int, white: dict[str, Any], black: dict[str, Any] | None, bye: str | None
) -> dict[str, Any]:
    return {
        "board": board,
        "white_seed": white["seed"],
        "white_id": white["player_id"],
        "white_name": white["name"],
        "black_seed": None if black is None else black["seed"],
        "black_id": None if black is None else black["player_id"],
        "black_name": None if black is None else black["name"],
        "bye": bye,
    }


def check_seed_list(seed_list: pl.DataFrame, needed: Sequence[str]) -> None:
    """A pairing needs a non-empty seed list with the columns it reads."""
    if seed_list.height == 0:
        raise ValueError("the seed list is empty: there is nobody to pair")
    missing = [c for c in needed if c not in seed_list.columns]
    if missing:
        raise ValueError(f"the seed list lacks the column(s) {', '.join(missing)}")
