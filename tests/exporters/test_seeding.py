"""Seed lists and round-1 pairings (SPEC 7): matching, Swiss, McMahon, and two real events.

Golden files (``tests/data/golden``, sources in ``tests/data/SOURCES.md``):

* ``chess_vega/bestinthewest2025_*``: the player list and the round-1 pairing Vega made for a
  106-player Swiss event, read by :mod:`tests.golden.vega_pairing`;
* ``go_opengotha/juvisy2019.*`` and ``egc2013.*``: OpenGotha's saves and ``.h9`` exports of two
  McMahon events, read by :mod:`tests.golden.opengotha_mms`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import polars as pl
import pytest

from exporters.seeding import (
    EGF_RANKS,
    MATCHED_SCHEMA,
    PAIRING_COLUMNS,
    SeedingOptions,
    match_participants,
)
from exporters.seeding_mcmahon import (
    MCMAHON_COLUMNS,
    initial_mms,
    mcmahon_pairings,
    mcmahon_seed_list,
    rank_of_rating,
)
from exporters.seeding_swiss import SEED_COLUMNS, swiss_pairings, swiss_seed_list
from importers.names import name_key
from importers.participants import read_participants
from ratings.errors import InputError, SeedingOptionError, UnclearParticipantsError
from ratings.formula import RATING_SCALE
from ratings.go import handicap_stones, rank_value
from ratings.participants import Participants
from tests.golden import opengotha_mms, vega_pairing

KNOWN_SCHEMA = {
    "player_id": pl.String,
    "name": pl.String,
    "name_key": pl.String,
    "country": pl.String,
    "title": pl.String,
    "rating": pl.Int64,
}
NOBODY = pl.DataFrame(schema=KNOWN_SCHEMA)


def known(*players: tuple[str, str, str | None, str | None, float | None]) -> pl.DataFrame:
    """Rating list rows (player_id, name, country, title, rating in points)."""
    return pl.DataFrame(
        [
            {
                "player_id": player_id,
                "name": name,
                "name_key": name_key(name),
                "country": country,
                "title": title,
                "rating": None if rating is None else round(rating * RATING_SCALE),
            }
            for player_id, name, country, title, rating in players
        ],
        schema=KNOWN_SCHEMA,
        orient="row",
    )


def entries(*lines: str) -> Participants:
    return read_participants(("\n".join(lines) + "\n").encode(), "entries.csv", "csv")


def table(columns: dict[str, Sequence[Any]]) -> Participants:
    """A participant list written as CSV, so that names with commas are quoted."""
    return read_participants(pl.DataFrame(columns).write_csv().encode(), "entries.csv", "csv")


def names(frame: pl.DataFrame, column: str = "name") -> list[str | None]:
    return frame[column].to_list()


def boards(pairing: pl.DataFrame) -> list[tuple[Any, ...]]:
    return list(pairing.select("board", "white_name", "black_name", "bye").iter_rows())


LIST = known(
    ("101", "Anna Müller", "GER", "GM", 1250.0),
    ("102", "Ben Okafor", "NGA", None, 1180.4),
    ("103", "Chloé Martin", "FRA", None, 1099.5),
    ("104", "Ivan Petrov", "RUS", None, 1010.0),
    ("105", "Ivan Petrov", "BUL", None, 990.0),
    ("106", "Dario Rossi", "ITA", None, None),
)


# --- options ---------------------------------------------------------------------------------


def test_the_bar_must_not_be_below_the_floor() -> None:
    with pytest.raises(
        SeedingOptionError, match=r"^the bar \(5k\) must not be below the floor \(1k\)$"
    ):
        SeedingOptions(bar="5k", floor="1k")
    with pytest.raises(
        SeedingOptionError, match=r"the bar \(score 3\) must not be below the floor \(2k\)"
    ):
        SeedingOptions(bar=3, floor="2k")


def test_a_bar_exactly_on_the_floor_is_allowed() -> None:
    options = SeedingOptions(bar="10k", floor="10k")
    assert {initial_mms(rank, options) for rank in (-30, -10, 8)} == {10}


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"bar": "4 pro"}, r"the bar must be a Go rank such as 4d or a whole score, not '4 pro'"),
        ({"floor": "40k"}, r"the floor must be a Go rank such as 4d or a whole score, not '40k'"),
        ({"zero": "zero"}, r"the zero rank must be a Go rank such as 20k, not 'zero'"),
        ({"rounding": "up"}, r"rounding must be half_up or truncate, not 'up'"),
        ({"mms_from": "elo"}, r"mms_from must be rank or rating, not 'elo'"),
        (
            {"classes": ((1100, "B"), (1200, "A"))},
            r"the class table must go from the highest bound down: 1200 \(A\) comes after "
            r"1100 \(B\)",
        ),
        ({"classes": ((1200, ""),)}, r"the class table needs a class name for 1200, not ''"),
        ({"lowest_class": " "}, r"the lowest class needs a name, not an empty string"),
        (
            {"rank_table": ((2100, "1d"), (2000, "1x"))},
            r"the rating-to-rank table needs a Go rank such as 3k or 2d for 2000, not '1x'",
        ),
        ({"rank_table": ()}, r"the rating-to-rank table needs at least one row, not none"),
        (
            {"newcomer_rating": 1000.0},
            r"the newcomer rating must be a whole number of 1e-10 points, not 1000.0",
        ),
        ({"handicap_ceiling": 10}, r"the handicap ceiling must be a whole number 0 to 9, not 10"),
        ({"handicap_correction": -1}, r"the handicap correction must be a whole number 0 to 9"),
        ({"handicap_threshold": "1p"}, r"the handicap threshold must be a Go rank such as 1d"),
        ({"handicap_from": "elo"}, r"handicap_from must be mms or rank, not 'elo'"),
    ],
)
def test_bad_options_are_named(options: dict[str, Any], message: str) -> None:
    with pytest.raises(SeedingOptionError, match=message):
        SeedingOptions(**options)


# --- matching --------------------------------------------------------------------------------


def test_participants_are_found_by_id_or_by_name_and_country() -> None:
    matched = match_participants(
        entries("player_id,name,country", "101,,", ",chloe MARTIN,", ",Ivan Petrov,BUL"), LIST
    )
    assert set(matched.columns) == set(MATCHED_SCHEMA)
    assert names(matched, "player_id") == ["101", "103", "105"]
    assert names(matched) == ["Anna Müller", "Chloé Martin", "Ivan Petrov"]
    # The entry's own country, in the stored form (ISO alpha-3: FIDE's BUL is BGR).
    assert names(matched, "country") == ["GER", "FRA", "BGR"]
    assert names(matched, "title") == ["GM", None, None]
    assert matched["rating"].to_list() == [
        12_500_000_000_000,
        10_995_000_000_000,
        9_900_000_000_000,
    ]
    assert matched["newcomer"].to_list() == [False, False, False]


def test_a_newcomer_starts_at_the_initial_rating_unless_the_file_gives_one() -> None:
    matched = match_participants(
        entries("name,country,rating", "Zoe Quinn,IRL,", "Yan Li,CHN,1111.0000000001"), LIST
    )
    assert names(matched, "player_id") == [None, None]
    assert matched["newcomer"].to_list() == [True, True]
    assert matched["rating"].to_list() == [1000 * RATING_SCALE, 11_110_000_000_001]
    lower = SeedingOptions(newcomer_rating=800 * RATING_SCALE)
    assert match_participants(entries("name", "Zoe Quinn"), LIST, lower)["rating"][0] == (
        800 * RATING_SCALE
    )


def test_an_unrated_player_of_the_list_takes_the_files_rating() -> None:
    matched = match_participants(entries("player_id,rating", "106,1044"), LIST)
    assert (matched["rating"][0], matched["newcomer"][0]) == (1044 * RATING_SCALE, False)
    matched = match_participants(entries("player_id", "106"), LIST)
    assert matched["rating"][0] == 1000 * RATING_SCALE


def test_a_rated_players_file_rating_must_agree_with_the_list() -> None:
    agreeing = entries("player_id,rating", "102,1180", "103,1099.5")
    assert match_participants(agreeing, LIST)["rating"].to_list() == [
        11_804_000_000_000,
        10_995_000_000_000,
    ]
    with pytest.raises(
        InputError,
        match=r"line 2, column 'rating': value '1300.0000000000': no rating, or the list's: "
        r"player 102 is rated 1180.4000000000",
    ):
        match_participants(entries("player_id,rating", "102,1300"), LIST)


def test_an_unknown_player_id_is_an_error() -> None:
    with pytest.raises(
        InputError,
        match=r"entries.csv, line 3, column 'player_id': value '999': a player_id of the rating "
        r"list \(for a newcomer, leave it empty and give the name\)",
    ):
        match_participants(entries("player_id,name", "101,", "999,Somebody New"), LIST)


def test_an_ambiguous_name_lists_the_candidates() -> None:
    with pytest.raises(UnclearParticipantsError) as caught:
        match_participants(entries("name", "Ivan Petrov"), LIST)
    assert str(caught.value) == (
        "1 participant may be a player of the rating list: give its player_id in the file "
        "(or new for a newcomer); candidates as id, name, country, rating:\n"
        "  entries.csv, line 2: 'Ivan Petrov' (no country): 2 players of the rating list have "
        "this name\n"
        "      104  Ivan Petrov  RUS  1010\n"
        "      105  Ivan Petrov  BUL  990"
    )


KLEINS = known(
    ("201", "Klaus Klein", "DEU", None, 1093.2),
    ("202", "Stefan Klein", "DEU", None, 1067.8),
    ("203", "Tobias Klein", "AUT", None, None),
    ("204", "Anna Kleinert", "DEU", None, 1010.0),
    ("205", "Jan Nowak", "POL", None, 1120.0),
)


def test_a_surname_alone_is_not_a_newcomer_when_players_have_it() -> None:
    with pytest.raises(UnclearParticipantsError) as caught:
        match_participants(entries("name", "Klein", "Nina Neu"), KLEINS)
    (unclear,) = caught.value.unclear
    assert (unclear.line, unclear.name) == (2, "Klein")
    assert [(c.player_id, c.name, c.country, c.rating) for c in unclear.candidates] == [
        ("201", "Klaus Klein", "DEU", 1093),
        ("202", "Stefan Klein", "DEU", 1068),
        ("203", "Tobias Klein", "AUT", None),
    ]
    assert "      203  Tobias Klein  AUT  unrated" in str(caught.value)


def test_a_country_narrows_the_candidates_and_a_name_like_nobody_is_a_newcomer() -> None:
    with pytest.raises(UnclearParticipantsError) as caught:
        match_participants(entries("name,country", "Klein,AUT", "Nina Neu,NOR"), KLEINS)
    assert [c.player_id for c in caught.value.unclear[0].candidates] == ["203"]
    matched = match_participants(entries("name,country", "Klein,NOR", "Nina Neu,NOR"), KLEINS)
    assert matched["newcomer"].to_list() == [True, True]


def test_a_close_spelling_and_an_initial_are_asked_about() -> None:
    with pytest.raises(UnclearParticipantsError) as caught:
        match_participants(entries("name", "Jan Novak", "K. Klein", "Klien Klaus"), KLEINS)
    found = {u.name: [c.player_id for c in u.candidates] for u in caught.value.unclear}
    assert found == {"Jan Novak": ["205"], "K. Klein": ["201"], "Klien Klaus": ["201"]}
    assert caught.value.unclear[0].reason == (
        "no player of the rating list has this name, but it is part of or close to the name "
        "of 1 player"
    )


def test_initials_alone_and_players_of_other_lines_are_not_candidates() -> None:
    matched = match_participants(entries("player_id,name", "205,", ",J N"), KLEINS)
    assert matched["newcomer"].to_list() == [False, True]
    # Only Jan Nowak is like "Jan Nowak Jr": he is on line 2, so line 3 is a newcomer.
    matched = match_participants(entries("player_id,name", "205,", ",Jan Nowak Jr"), KLEINS)
    assert matched["newcomer"].to_list() == [False, True]


def test_a_player_given_on_another_line_is_no_candidate_for_a_shared_name() -> None:
    with pytest.raises(UnclearParticipantsError) as caught:
        match_participants(entries("player_id,name", "104,", ",Ivan Petrov"), LIST)
    (unclear,) = caught.value.unclear
    assert [c.player_id for c in unclear.candidates] == ["105"]


def test_new_in_the_player_id_or_an_answer_settles_a_participant() -> None:
    matched = match_participants(entries("player_id,name,rating", "new,Klein,1150"), KLEINS)
    assert matched.select("player_id", "name", "rating", "newcomer").row(0) == (
        None, "Klein", 1150 * RATING_SCALE, True,
    )  # fmt: skip
    participants = entries("name", "Klein", "Ivan Petrov")
    answered = participants.answered({2: "202", 3: "NEW"})
    matched = match_participants(answered, pl.concat([KLEINS, LIST]))
    assert matched.select("player_id", "name", "newcomer").rows() == [
        ("202", "Stefan Klein", False), (None, "Ivan Petrov", True),
    ]  # fmt: skip
    with pytest.raises(InputError, match=r"line 2, column 'player_id': value '299': a player_id"):
        match_participants(participants.answered({2: "299"}), KLEINS)


def test_a_newcomer_needs_a_name() -> None:
    with pytest.raises(InputError, match=r"line 2, column 'name': the name of the newcomer"):
        entries("player_id,name", "new,")


def test_candidates_are_found_among_a_large_list_without_scoring_it_whole() -> None:
    many = known(
        *((f"{i}", f"Name{i} Surname{i % 5000}", "FRA", None, 1000.0) for i in range(200_000)),
        ("K1", "Klaus Klein", "DEU", None, 1100.0),
    )
    started = time.perf_counter()
    with pytest.raises(UnclearParticipantsError) as caught:
        match_participants(entries("name", "Klein", "Surnam7 Name7"), many)
    elapsed = time.perf_counter() - started
    found = {u.name: [c.player_id for c in u.candidates] for u in caught.value.unclear}
    assert found == {"Klein": ["K1"], "Surnam7 Name7": ["7"]}
    assert elapsed < 10, elapsed


def test_the_same_player_by_id_and_by_name_is_listed_twice() -> None:
    with pytest.raises(
        InputError,
        match=r"line 3, column 'name': value 'Ben Okafor': each participant once \(this is "
        r"player 102, already on line 2\)",
    ):
        match_participants(entries("player_id,name", "102,", ",Ben Okafor"), LIST)


def test_the_rating_list_needs_its_columns() -> None:
    with pytest.raises(
        ValueError, match=r"^the rating list lacks the column\(s\) name_key, rating$"
    ):
        match_participants(entries("name", "Ann"), LIST.drop("name_key", "rating"))


def test_matching_problems_are_all_reported_at_once() -> None:
    with pytest.raises(InputError, match=r"^2 problems found:") as caught:
        match_participants(entries("player_id,name", "998,", "102,", ",Ben Okafor"), LIST)
    assert [(p.line, p.column) for p in caught.value.problems] == [(2, "player_id"), (4, "name")]


def test_problems_of_the_file_come_before_the_names_to_settle() -> None:
    with pytest.raises(InputError, match=r"^1 problem found:"):
        match_participants(entries("player_id,name", "998,", ",Ivan Petrov"), LIST)


# --- Swiss -----------------------------------------------------------------------------------


def swiss(*lines: str, options: SeedingOptions | None = None) -> pl.DataFrame:
    return swiss_seed_list(match_participants(entries(*lines), LIST, options), options)


def test_swiss_seeds_by_exact_rating_then_title_then_name() -> None:
    seeds = swiss(
        "name,player_id,title,rating,country",
        "Zed Newman,,,1250,",
        ",101,,,",
        "Al Newman,,,1250,",
        "Bo Newman,,GM,1250,",
        ",104,,,",
        "Cy Newman,,,1009.9999999999,",
    )
    assert seeds.columns == list(SEED_COLUMNS)
    assert names(seeds) == [
        "Anna Müller",
        "Bo Newman",
        "Al Newman",
        "Zed Newman",
        "Ivan Petrov",
        "Cy Newman",
    ]
    assert seeds["seed"].to_list() == [1, 2, 3, 4, 5, 6]
    assert names(seeds, "player_id") == ["101", None, None, None, "104", None]
    # Cy's exact rating is below Ivan's although both show 1010.
    assert seeds["rating"].to_list() == [1250, 1250, 1250, 1250, 1010, 1010]
    assert str(seeds["rating_exact"].cast(pl.String)[5]) == "1009.9999999999"


def test_the_published_rating_follows_the_rounding_option() -> None:
    lines = ("name,rating", "Ann,1099.5", "Bob,1099.4999999999")
    assert swiss(*lines)["rating"].to_list() == [1100, 1099]
    truncated = SeedingOptions(rounding="truncate")
    assert swiss(*lines, options=truncated)["rating"].to_list() == [1099, 1099]


def test_classes_come_from_the_exact_rating_and_a_configurable_table() -> None:
    lines = (
        "name,rating",
        "A,1200",
        "B,1199.9999999999",
        "C,1000",
        "D,900",
        "E,899.9999999999",
    )
    assert names(swiss(*lines), "class") == ["A", "B", "C", "D", "E"]
    two = SeedingOptions(classes=((1100, "open"),), lowest_class="reserve")
    assert names(swiss(*lines, options=two), "class") == [
        "open",
        "open",
        "reserve",
        "reserve",
        "reserve",
    ]


def test_an_empty_participant_list_cannot_be_seeded() -> None:
    empty = pl.DataFrame(schema=MATCHED_SCHEMA)
    with pytest.raises(
        ValueError, match=r"^the participant list is empty: there is nobody to seed"
    ):
        swiss_seed_list(empty)
    with pytest.raises(
        ValueError, match=r"^the participant list is empty: there is nobody to seed"
    ):
        mcmahon_seed_list(empty)
    with pytest.raises(ValueError, match=r"^the seed list is empty: there is nobody to pair$"):
        swiss_pairings(swiss(*players(1)).clear())


def players(count: int, *byes: int) -> list[str]:
    """CSV lines of ``count`` participants P01, P02, … rated 2000, 1990, …; ``byes`` ask for one."""
    return ["name,rating,bye"] + [
        f"P{i:02},{2000 - 10 * i},{'yes' if i in byes else ''}" for i in range(1, count + 1)
    ]


def test_swiss_round_one_is_top_half_against_bottom_half_with_alternating_colours() -> None:
    pairing = swiss_pairings(swiss(*players(6)))
    assert pairing.columns == list(PAIRING_COLUMNS)
    assert boards(pairing) == [
        (1, "P01", "P04", None),
        (2, "P05", "P02", None),
        (3, "P03", "P06", None),
    ]
    assert pairing.select("white_seed", "black_seed").rows() == [(1, 4), (5, 2), (3, 6)]


def test_the_last_seed_gets_the_bye_when_the_number_is_odd() -> None:
    assert boards(swiss_pairings(swiss(*players(5)))) == [
        (1, "P01", "P03", None),
        (2, "P04", "P02", None),
        (3, "P05", None, "pairing"),
    ]


def test_requested_byes_are_listed_but_not_paired() -> None:
    pairing = swiss_pairings(swiss(*players(7, 2, 6)))
    assert boards(pairing) == [
        (1, "P01", "P04", None),
        (2, "P05", "P03", None),
        (3, "P07", None, "pairing"),
        (4, "P02", None, "requested"),
        (5, "P06", None, "requested"),
    ]
    assert pairing.filter(pl.col("bye").is_not_null())["black_seed"].to_list() == [None] * 3


def test_the_first_board_colour_is_an_option() -> None:
    black_first = SeedingOptions(first_board_white=False)
    assert boards(swiss_pairings(swiss(*players(4)), black_first)) == [
        (1, "P03", "P01", None),
        (2, "P02", "P04", None),
    ]


def test_one_participant_gets_the_bye() -> None:
    assert boards(swiss_pairings(swiss("name", "Solo"))) == [(1, "Solo", None, "pairing")]


def test_everyone_asking_for_a_bye_leaves_no_game() -> None:
    assert boards(swiss_pairings(swiss(*players(2, 1, 2)))) == [
        (1, "P01", None, "requested"),
        (2, "P02", None, "requested"),
    ]


# --- McMahon ---------------------------------------------------------------------------------


def test_seed_000_scale_counts_20_kyu_as_0() -> None:
    options = SeedingOptions()
    scores = {rank: initial_mms(rank_value(rank) or 0, options) for rank in ("20k", "19k", "1k")}
    assert scores == {"20k": 0, "19k": 1, "1k": 19}
    assert initial_mms(rank_value("1d") or 0, options) == 20
    assert initial_mms(rank_value("25k") or 0, options) == -5


def test_the_bar_and_floor_hold_ranks_at_their_scores() -> None:
    options = SeedingOptions(bar="4d", floor="15k")
    score = {r: initial_mms(rank_value(r) or 0, options) for r in ("7d", "4d", "3d", "15k", "16k")}
    # Exactly on the bar and above it: the bar's score; on the floor and below it: the floor's.
    assert score == {"7d": 23, "4d": 23, "3d": 22, "15k": 5, "16k": 5}


def test_bar_and_floor_may_be_given_as_scores_from_the_zero_rank() -> None:
    by_score = SeedingOptions(zero="30k", bar=33, floor=10)
    by_rank = SeedingOptions(zero="30k", bar="4d", floor="20k")
    for rank in range(-30, 9):
        assert initial_mms(rank, by_score) == initial_mms(rank, by_rank)


def mcmahon(*lines: str, options: SeedingOptions | None = None) -> pl.DataFrame:
    return mcmahon_seed_list(match_participants(entries(*lines), LIST, options), options)


def test_mcmahon_lists_score_groups_then_rating() -> None:
    options = SeedingOptions(bar="2d", floor="10k")
    seeds = mcmahon(
        "name,rank,rating,mms_correction",
        "Kyu Low,12k,1500,",
        "Dan Top,5d,1100,",
        "Dan Two,2d,1300,",
        "Kyu High,10k,1200,",
        "Super,3d,1000,1",
        options=options,
    )
    assert seeds.columns == list(MCMAHON_COLUMNS)
    assert names(seeds) == ["Super", "Dan Two", "Dan Top", "Kyu Low", "Kyu High"]
    assert seeds["mms"].to_list() == [22, 21, 21, 10, 10]
    assert names(seeds, "rank") == ["3d", "2d", "5d", "12k", "10k"]
    # McMahon's own group, not the Swiss strength class: the bar and floor that held a score,
    # and the organiser's correction.
    assert "class" not in seeds.columns
    assert names(seeds, "group") == ["bar +1", "bar", "bar", "floor", "floor"]


def test_a_mcmahon_group_is_empty_where_no_bar_or_floor_held_the_score() -> None:
    seeds = mcmahon("name,rank,mms_correction", "Ann,3k,", "Bob,5k,-1", options=None)
    assert names(seeds, "group") == [None, "-1"]
    assert seeds["mms"].to_list() == [17, 14]


def test_mcmahon_scores_can_come_from_ratings() -> None:
    options = SeedingOptions(mms_from="rating", zero="30k", bar="4d")
    seeds = mcmahon(
        "name,rating", "Ann,2050", "Bob,2049.9999999999", "Cid,2900", "Dee,-1000", options=options
    )
    assert dict(zip(names(seeds), names(seeds, "rank"), strict=True)) == {
        "Cid": "9d",
        "Ann": "1d",
        "Bob": "1k",
        "Dee": "30k",
    }
    assert seeds["mms"].to_list() == [33, 30, 29, 0]


def test_the_egf_rank_table_reads_ratings_as_opengotha_does() -> None:
    # OpenGotha's Player.rankFromRating: (rating + 950) / 100 - 30 with Java's integer division,
    # held between 30k and 9d.
    options = SeedingOptions()
    for rating in range(-1200, 3200, 7):
        expected = max(-30, min(8, int((rating + 950) / 100) - 30))
        assert rank_of_rating(rating * RATING_SCALE, options) == expected, rating
    assert EGF_RANKS[0] == (2850, "9d")
    assert EGF_RANKS[-1] == (-950, "30k")


def test_a_missing_rank_is_an_input_error_when_scores_come_from_ranks() -> None:
    with pytest.raises(
        InputError,
        match=r"entries.csv, line 3, column 'rank': a Go rank such as 3k or 2d: the McMahon "
        r"scores come from ranks \(or seed from ratings instead\)",
    ):
        mcmahon("name,rank", "Ann,3k", "Bob,")


def test_mcmahon_pairs_inside_groups_and_moves_the_odd_player_down() -> None:
    seeds = mcmahon(
        "name,rank,rating",
        "A1,2d,1300",
        "A2,2d,1200",
        "A3,2d,1100",
        "B1,1d,1250",
        "B2,1d,1150",
        "B3,1d,1050",
        "B4,1d,1000",
        "C1,5k,900",
        options=SeedingOptions(bar="2d"),
    )
    # Group 21: A1 A2 A3 -> A3 moves down and tops group 20: A3 B1 B2 B3 B4 -> B4 moves down and
    # tops group 15: B4 C1.
    assert boards(mcmahon_pairings(seeds)) == [
        (1, "A1", "A2", None),
        (2, "B2", "A3", None),
        (3, "B1", "B3", None),
        (4, "C1", "B4", None),
    ]


def test_the_lowest_left_over_gets_the_bye_and_requested_byes_are_kept_out() -> None:
    seeds = mcmahon(
        "name,rank,bye",
        "A1,3d,",
        "A2,3d,yes",
        "B1,1k,",
        "B2,1k,",
        "C1,10k,",
        "C2,10k,",
        options=SeedingOptions(bar="3d"),
    )
    # A1 is alone in group 22 and tops group 19; B2 is left over there and tops group 10, where
    # C2 is left over: the bye.
    assert boards(mcmahon_pairings(seeds)) == [
        (1, "A1", "B1", None),
        (2, "C1", "B2", None),
        (3, "C2", None, "pairing"),
        (4, "A2", None, "requested"),
    ]
    assert boards(mcmahon_pairings(seeds, SeedingOptions(first_board_white=False)))[:2] == [
        (1, "B1", "A1", None),
        (2, "B2", "C1", None),
    ]


def test_a_mcmahon_pairing_needs_initial_scores() -> None:
    with pytest.raises(ValueError, match=r"^the seed list lacks the column\(s\) mms$"):
        mcmahon_pairings(swiss(*players(2)))


# --- unrated participants: at the initial rating, or last ----------------------------------

UNRATED_ENTRIES = (
    "player_id,name,country,title,rating",
    "102,,,,",  # rated 1180.4
    "105,,,,",  # rated 990
    "106,,,,",  # on the list, unrated
    ",Zoe Quinn,IRL,,",  # a newcomer
    ",Yan Li,CHN,,1111",  # a newcomer the file rates
    ",Adam Zorn,AUT,FM,",  # a titled newcomer
)


def test_unrated_players_sit_at_the_initial_rating_by_default() -> None:
    seeds = swiss_seed_list(match_participants(entries(*UNRATED_ENTRIES), LIST))
    assert names(seeds) == [
        "Ben Okafor", "Yan Li", "Adam Zorn", "Dario Rossi", "Zoe Quinn", "Ivan Petrov",
    ]  # fmt: skip
    assert seeds["rating"].to_list() == [1180, 1111, 1000, 1000, 1000, 990]
    assert names(seeds, "class") == ["B", "B", "C", "C", "C", "D"]


def test_unrated_players_seeded_last_by_title_then_name_without_a_rating() -> None:
    last = SeedingOptions(unrated="last")
    matched = match_participants(entries(*UNRATED_ENTRIES), LIST, last)
    assert matched["unrated"].to_list() == [False, False, True, True, False, True]
    seeds = swiss_seed_list(matched, last)
    # A rating the file gives (Yan Li's) is a rating: he stays among the rated.
    assert names(seeds) == [
        "Ben Okafor", "Yan Li", "Ivan Petrov", "Adam Zorn", "Dario Rossi", "Zoe Quinn",
    ]  # fmt: skip
    assert seeds["seed"].to_list() == [1, 2, 3, 4, 5, 6]
    assert seeds["rating"].to_list() == [1180, 1111, 990, None, None, None]
    assert names(seeds, "rating_exact")[3:] == [None, None, None]
    assert names(seeds, "class") == ["B", "B", "D", None, None, None]
    # Round 1: the unrated are the bottom half's last seeds, as in Vega and FIDE's rules.
    assert boards(swiss_pairings(seeds, last)) == [
        (1, "Ben Okafor", "Adam Zorn", None),
        (2, "Dario Rossi", "Yan Li", None),
        (3, "Ivan Petrov", "Zoe Quinn", None),
    ]


def test_the_unrated_option_takes_initial_or_last() -> None:
    with pytest.raises(SeedingOptionError, match=r"^unrated must be initial or last, not 'first'$"):
        SeedingOptions(unrated="first")


# --- golden: Vega's seeding and round 1 of a 106-player Swiss event ---------------------------

VEGA_UNRATED = SeedingOptions(newcomer_rating=0)
"""Vega prints 0 for an unrated player and seeds them last, alphabetically: a newcomer rating of 0
with our name order does the same."""


def vega_entries(chosen: Sequence[vega_pairing.VegaPlayer], unrated: set[int]) -> Participants:
    byes = {board.white for board in vega_pairing.read_pairing() if board.black is None}
    return table(
        {
            "name": [p.name for p in chosen],
            "country": [p.federation for p in chosen],
            "title": [p.title for p in chosen],
            "rating": [None if p.rating == 0 or p.number in unrated else p.rating for p in chosen],
            "bye": ["yes" if p.number in byes else "" for p in chosen],
        }
    )


def vega_numbers(frame: pl.DataFrame, column: str) -> list[int | None]:
    number = {p.name: p.number for p in vega_pairing.read_players()}
    return [None if name is None else number[name] for name in frame[column].to_list()]


def test_vega_seed_order_is_ours_except_for_a_rating_entered_after_numbering() -> None:
    vega = vega_pairing.read_players()
    assert len(vega) == 106
    # Fed in reverse, so that the order is ours and not the file's.
    seeds = swiss_seed_list(
        match_participants(vega_entries(vega[::-1], set()), NOBODY, VEGA_UNRATED), VEGA_UNRATED
    )
    ours = vega_numbers(seeds, "name")
    # Vega numbered Black, Nick (86, rated 1867) among the unrated, alphabetically between
    # Bakker (85) and Chapnevis (87): his rating came after the numbers. We seed him 11th, by his
    # rating; everyone else has Vega's number as seed.
    assert ours.index(86) == 10
    assert [n for n in ours if n != 86] == [p.number for p in vega if p.number != 86]


def test_vega_round_one_is_ours_given_vegas_numbering() -> None:
    vega = vega_pairing.read_players()
    pairing = vega_pairing.read_pairing()
    # Vega paired 104 and 106 with each other on board 51, outside the top/bottom split of the
    # other 100 (a late pairing); Black is seeded where Vega numbered him, without a rating.
    chosen = [p for p in vega if p.number not in (104, 106)]
    seeds = swiss_seed_list(
        match_participants(vega_entries(chosen, {86}), NOBODY, VEGA_UNRATED), VEGA_UNRATED
    )
    assert vega_numbers(seeds, "name") == [p.number for p in chosen]
    ours = swiss_pairings(seeds, VEGA_UNRATED)
    games = list(
        zip(
            ours["board"],
            vega_numbers(ours, "white_name"),
            vega_numbers(ours, "black_name"),
            strict=True,
        )
    )
    assert games[:50] == [(b.board, b.white, b.black) for b in pairing[:50]]
    assert (pairing[50].board, pairing[50].white, pairing[50].black) == (51, 104, 106)
    # The four half-point byes: Vega lists them on boards 52-55, we on 51-54, in seed order.
    assert [white for _, white, black in games[50:]] == [b.white for b in pairing[51:]]
    assert ours["bye"].to_list()[50:] == ["requested"] * 4
    assert [b.bye for b in pairing[51:]] == ["half point bye"] * 4


def test_vega_round_one_from_the_real_ratings_keeps_the_first_ten_boards() -> None:
    vega = vega_pairing.read_players()
    pairing = vega_pairing.read_pairing()
    seeds = swiss_seed_list(
        match_participants(vega_entries(vega, set()), NOBODY, VEGA_UNRATED), VEGA_UNRATED
    )
    ours = swiss_pairings(seeds, VEGA_UNRATED)
    games = set(
        zip(vega_numbers(ours, "white_name"), vega_numbers(ours, "black_name"), strict=True)
    )
    theirs = [(b.white, b.black) for b in pairing if b.black is not None]
    # With Black seeded 11th and 104 and 106 in the split, seeds 11 on of the top half move one
    # place; the bottom half still starts with 53, as in Vega's.
    assert [game for game in theirs if game in games] == theirs[:10]
    assert ours.filter(pl.col("board") == 11).select("white_name", "black_name").row(0) == (
        "Black,Nick",
        "Ngo,William",
    )


def test_vega_seeding_is_ours_with_unrated_players_last_at_the_melo_start() -> None:
    # The same as giving unrated players a rating of 0, without the trick: the newcomer rating
    # stays the MELO start, and every unrated player is seeded after the rated ones.
    vega = vega_pairing.read_players()
    last = SeedingOptions(unrated="last")
    assert last.newcomer_rating == 1000 * RATING_SCALE
    zero = swiss_seed_list(
        match_participants(vega_entries(vega, set()), NOBODY, VEGA_UNRATED), VEGA_UNRATED
    )
    seeds = swiss_seed_list(match_participants(vega_entries(vega, set()), NOBODY, last), last)
    assert names(seeds) == names(zero)
    unrated = [p.number for p in vega if p.rating == 0]
    assert len(unrated) > 10
    assert vega_numbers(seeds, "name")[-len(unrated) :] == unrated
    pairing = vega_pairing.read_pairing()
    games = set(
        zip(
            vega_numbers(swiss_pairings(seeds, last), "white_name"),
            vega_numbers(swiss_pairings(seeds, last), "black_name"),
            strict=True,
        )
    )
    theirs = [(b.white, b.black) for b in pairing if b.black is not None]
    assert [game for game in theirs if game in games] == theirs[:10]


# --- golden: OpenGotha's initial McMahon scores ---------------------------------------------


def gotha_seeds(event: opengotha_mms.GothaEvent, corrections: bool) -> dict[str, int]:
    chosen = event.players
    entries_ = table(
        {
            "name": [p.name for p in chosen],
            "country": [p.country for p in chosen],
            "rank": [p.rank for p in chosen],
            "rating": [p.rating for p in chosen],
            "mms_correction": [p.correction if corrections else 0 for p in chosen],
        }
    )
    options = SeedingOptions(zero=event.zero, bar=event.bar, floor=event.floor)
    seeds = mcmahon_seed_list(match_participants(entries_, NOBODY, options), options)
    return dict(zip(seeds["name"].to_list(), seeds["mms"].to_list(), strict=True))


@pytest.mark.parametrize(("event", "count"), [("juvisy2019", 19), ("egc2013", 594)])
def test_opengotha_initial_scores_are_ours(event: str, count: int) -> None:
    gotha = opengotha_mms.read_event(event)
    assert (gotha.bar, gotha.floor, gotha.zero) == ("4D", "20K", "30K")
    ours = gotha_seeds(gotha, corrections=True)
    implied = {p.name: p.implied_mms for p in gotha.players}
    assert len(ours) == count
    assert ours == implied


def test_egc_2013_super_group_is_opengothas_correction_of_one() -> None:
    gotha = opengotha_mms.read_event("egc2013")
    plain = gotha_seeds(gotha, corrections=False)
    differing = {
        p.name: p.implied_mms - plain[p.name]
        for p in gotha.players
        if p.implied_mms != plain[p.name]
    }
    super_group = {p.name: p.correction for p in gotha.players if p.correction}
    assert len(super_group) == 32
    assert differing == super_group
    # The super-group sits one point above the bar group (4d and stronger, score 33).
    assert {plain[name] for name in super_group} == {33}


# --- handicap --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("first", "second", "correction", "ceiling", "threshold", "stones"),
    [
        ("3d", "3d", 1, 9, None, 0),
        ("3d", "2d", 1, 9, None, 0),  # one grade apart, less the correction: even
        ("3d", "1d", 1, 9, None, 1),  # two grades: no komi
        ("1d", "5k", 1, 9, None, 4),
        ("5k", "1d", 1, 9, None, 4),  # the order of the two does not count
        ("3d", "15k", 1, 9, None, 9),  # at most the ceiling
        ("1d", "5k", 0, 9, None, 5),
        ("4d", "1k", 1, 9, "1d", 0),  # from the threshold up, every rank counts as 1d
        ("4d", "3k", 1, 9, "1d", 2),
        ("1d", "5k", 1, 0, None, 0),  # no handicap event
    ],
)
def test_handicap_is_the_difference_less_the_correction_within_the_ceiling(
    first: str, second: str, correction: int, ceiling: int, threshold: str | None, stones: int
) -> None:
    values = [rank_value(r) for r in (first, second, threshold or "1d")]
    assert None not in values
    a, b, t = (v for v in values if v is not None)
    assert (
        handicap_stones(
            a, b, correction=correction, ceiling=ceiling, threshold=t if threshold else None
        )
        == stones
    )


def handicaps(pairing: pl.DataFrame) -> list[tuple[Any, ...]]:
    return list(pairing.select("board", "white_name", "black_name", "handicap").iter_rows())


GO_FIELD = ("name,rank", "A1,3d", "A2,1d", "B1,1k", "B2,4k", "C1,10k", "C2,12k")


def test_a_handicap_event_gives_each_game_its_handicap_and_black_to_the_weaker() -> None:
    # The groups of 23, 21, 19, 16, 10 and 8: the top half of the field meets the bottom half
    # of its group; first_board_white alternates colours, which handicap overrides.
    options = SeedingOptions(handicap_ceiling=9)
    even = mcmahon_pairings(mcmahon(*GO_FIELD, options=SeedingOptions()))
    assert "handicap" not in even.columns
    paired = mcmahon_pairings(mcmahon(*GO_FIELD, options=options), options)
    assert handicaps(paired) == [(1, "A1", "A2", 1), (2, "B1", "B2", 2), (3, "C1", "C2", 1)]
    assert boards(even) == [(1, "A1", "A2", None), (2, "B2", "B1", None), (3, "C1", "C2", None)]
    corrected = SeedingOptions(handicap_ceiling=1, handicap_correction=0)
    assert handicaps(mcmahon_pairings(mcmahon(*GO_FIELD, options=corrected), corrected)) == [
        (1, "A1", "A2", 1), (2, "B1", "B2", 1), (3, "C1", "C2", 1),
    ]  # fmt: skip


def test_handicap_from_initial_scores_makes_a_bar_group_play_even() -> None:
    # With the bar at 1k, A1, A2 and B1 start alike: by scores they play even, by ranks not.
    # B1, odd one out of the bar group, meets C1 one grade below: the stronger takes White
    # although board 2 would give the higher seed Black.
    barred = SeedingOptions(handicap_ceiling=9, bar="1k", handicap_correction=0)
    seeds = mcmahon("name,rank", "A1,3d", "A2,1d", "B1,1k", "C1,2k", options=barred)
    by_score = mcmahon_pairings(seeds, barred)
    assert handicaps(by_score) == [(1, "A1", "A2", 0), (2, "B1", "C1", 1)]
    by_rank = SeedingOptions(
        handicap_ceiling=9, bar="1k", handicap_correction=0, handicap_from="rank"
    )
    assert handicaps(mcmahon_pairings(seeds, by_rank)) == [
        (1, "A1", "A2", 2), (2, "B1", "C1", 1),
    ]  # fmt: skip
