"""Tests of the TRF16 reader.

Real files: ``chess_trf_samples/`` in ``tests/data/golden``, copied unchanged from
BieremaBoyzProgramming/bbpPairings @ 16a000f9 (see ``tests/data/SOURCES.md``): a 6-player Dutch
system test after 2 rounds, and a 60-player, 14-round file with carriage-return-only line endings
and forfeits. The expected numbers below were counted by hand from those files.

``fixtures/club_championship.trf`` is made up for these tests: 6 players, 4 rounds, every result
code TRF16 defines (``1 = 0 W D L + - H F U Z`` and blank, in both cases), a double forfeit and a
player whose line stops before the last round.
"""

from __future__ import annotations

import io
import re
from datetime import date
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from importers.trf import policy_for, read_trf
from importers.trf_dates import read_date
from ratings.crosstable import CellKind, Color, Crosstable, Outcome
from ratings.errors import InputError
from ratings.tiebreaks import MissedRounds, Policy
from tests.support.data import GOLDEN

SAMPLES = GOLDEN / "chess_trf_samples"
C5 = SAMPLES / "bbp_dutch_2025_C5.trf"
CR = SAMPLES / "bbp_issue_7_CR_line_endings.trf"
FIXTURES = Path(__file__).parent / "fixtures"
CLUB = FIXTURES / "club_championship.trf"


def read(data: bytes, source: str = "test.trf") -> Crosstable:
    return read_trf(io.BytesIO(data), source)


def player_line(rank: int, name: str, blocks: str = "", points: str = "", rating: str = "") -> str:
    """A 001 record in TRF16's columns; ``blocks`` is the text from column 90 on."""
    return f"001 {rank:>4}      {name:<33} {rating:>4} {'':<3} {'':>11} {'':<10} {points:>4}     {blocks}"


def block(opponent: int | str, color: str, result: str) -> str:
    return f"  {opponent:>4} {color} {result}"


def two_players(first: str, second: str) -> bytes:
    lines = ["012 Test", player_line(1, "Alpha, A", first), player_line(2, "Beta, B", second)]
    return "\n".join(lines).encode()


def outline(crosstable: Crosstable) -> list[list[tuple[str, str, int | None, str | None]]]:
    """Every cell as (kind, outcome, opponent number, colour), per player."""
    numbers = [p.number for p in crosstable.players]
    return [
        [
            (
                c.kind.value,
                c.outcome.value,
                None if c.opponent is None else numbers[c.opponent],
                None if c.color is None else c.color.value,
            )
            for c in player.cells
        ]
        for player in crosstable.players
    ]


# --- the real files ----------------------------------------------------------------------------


def test_dutch_c5_players_rounds_and_results() -> None:
    """``chess_trf_samples/bbp_dutch_2025_C5.trf`` (bbpPairings @ 16a000f9)."""
    crosstable = read_trf(C5.open("rb"), C5.name)
    assert crosstable.format == "trf"
    assert crosstable.name == "Dutch 2025 C5 test"
    assert [p.number for p in crosstable.players] == [1, 2, 3, 4, 5, 6]
    assert crosstable.players[0].name == "Test0001 Player0001"
    assert [p.rating for p in crosstable.players] == [2720, 2701, 2697, 2689, 2673, 2664]
    # Two rounds are played; XXR announces three and player 4 has a zero-point bye ("0000 - Z")
    # announced for round 3, which is not paired yet.
    assert crosstable.rounds == 2
    assert crosstable.parameters["rounds_planned"] == "3"
    assert [(p.wins, p.draws, p.losses) for p in crosstable.players] == [
        (2, 0, 0),
        (1, 0, 1),
        (2, 0, 0),
        (0, 0, 2),
        (1, 0, 1),
        (0, 0, 2),
    ]
    assert [p.points for p in crosstable.players] == [
        p.printed["points"] for p in crosstable.players
    ]
    # Line 2: "4 w 1" then "2 b 1": beat 4 with White, then 2 with Black.
    assert outline(crosstable)[0] == [("game", "+", 4, "w"), ("game", "+", 2, "b")]


def test_dutch_c5_round_three_pairing_is_for_the_players_left() -> None:
    """The pairing bbpPairings made for round 3 pairs everyone but player 4, who announced a bye.

    ``bbp_dutch_2025_C5.output.expected`` is the number of pairs, then one pair per line, ``0`` for
    the pairing-allocated bye.
    """
    crosstable = read_trf(C5.open("rb"), C5.name)
    pairs = C5.with_suffix(".output.expected").read_text().split("\n")
    count = int(pairs[0])
    paired = {int(n) for pair in pairs[1 : count + 1] for n in pair.split()} - {0}
    assert {p.number for p in crosstable.players} - paired == {4}
    assert C5.read_text().splitlines()[4].endswith("0000 - Z")


def test_carriage_return_file_players_rounds_and_results() -> None:
    """``chess_trf_samples/bbp_issue_7_CR_line_endings.trf`` (bbpPairings @ 16a000f9)."""
    crosstable = read_trf(CR.open("rb"), CR.name)
    assert crosstable.name == "AutoTest Tournament 1110065304"
    assert len(crosstable.players) == 60
    assert crosstable.rounds == 14
    assert crosstable.parameters["rounds_planned"] == "15"
    by_number = {p.number: p for p in crosstable.players}
    # Player 1: 10 wins, 1 draw (round 13), 3 losses (rounds 5, 7, 12) = 10.5.
    assert (by_number[1].wins, by_number[1].draws, by_number[1].losses) == (10, 1, 3)
    # Player 4 won rounds 1 and 10 and lost round 8 by forfeit; those are not games:
    # 5 wins, 4 draws, 2 losses over the board, 9 points in all.
    four = by_number[4]
    assert (four.wins, four.draws, four.losses, four.points) == (5, 4, 2, Fraction(9))
    assert [c.round for c in four.cells if c.kind is CellKind.FORFEIT] == [1, 8, 10]
    # Player 56: forfeits in rounds 1 (lost) and 3 (won); 1 win, 3 draws, 8 losses, 3.5 points.
    fifty_six = by_number[56]
    assert (fifty_six.wins, fifty_six.draws, fifty_six.losses) == (1, 3, 8)
    assert fifty_six.points == Fraction(7, 2)
    for player in crosstable.players:
        assert player.points == player.printed["points"], player.number
    assert sum(p.wins for p in crosstable.players) == sum(p.losses for p in crosstable.players)
    assert sum(p.draws for p in crosstable.players) % 2 == 0


@pytest.mark.parametrize("ending", [b"\n", b"\r\n"])
def test_line_endings_do_not_matter(ending: bytes) -> None:
    data = CR.read_bytes()
    assert b"\n" not in data
    assert read(data.replace(b"\r", ending), CR.name) == read(data, CR.name)


# --- the fixture with every code ---------------------------------------------------------------


def test_every_result_code_maps_onto_the_model() -> None:
    crosstable = read_trf(CLUB.open("rb"), CLUB.name)
    assert crosstable.name == "Club Championship 2025"
    assert (crosstable.start_date, crosstable.end_date) == (date(2025, 3, 1), date(2025, 3, 15))
    assert crosstable.parameters["city"] == "Springfield"
    assert crosstable.rounds == 4
    assert outline(crosstable) == [
        [
            ("game", "+", 4, "w"),
            ("game", "+", 2, "b"),
            ("game", "-", 3, "w"),
            ("game", "+", 5, "b"),
        ],
        [
            ("game", "=", 5, "b"),
            ("game", "-", 1, "w"),
            ("forfeit", "-", 6, "b"),
            ("game", "=", 3, "w"),
        ],
        [
            ("forfeit", "+", 6, "w"),
            ("requested_bye", "=", None, None),
            ("game", "+", 1, "b"),
            ("game", "=", 2, "b"),
        ],
        [
            ("game", "-", 1, "b"),
            ("game", "=", 5, "w"),
            ("bye", "+", None, None),
            ("absent", "-", None, None),
        ],
        [
            ("game", "=", 2, "w"),
            ("game", "=", 4, "b"),
            ("requested_bye", "-", None, None),
            ("game", "-", 1, "w"),
        ],
        [
            ("forfeit", "-", 3, "b"),
            ("bye", "+", None, None),
            ("forfeit", "-", 2, "w"),
            ("absent", "-", None, None),
        ],
    ]
    assert [(p.wins, p.draws, p.losses) for p in crosstable.players] == [
        (3, 0, 1),
        (0, 2, 1),
        (1, 1, 0),
        (0, 1, 1),
        (0, 2, 1),
        (0, 0, 0),
    ]
    first = crosstable.players[0]
    assert (first.title, first.country, first.player_id, first.rating) == (
        "IM",
        "POL",
        "1100001",
        2315,
    )
    assert crosstable.players[3].player_id is None
    assert crosstable.players[5].rating is None
    assert crosstable.players[1].line == 11


def test_lower_case_codes_read_like_upper_case() -> None:
    lower = two_players(
        block(2, "w", "w") + block("0000", "-", "h"), block(1, "b", "l") + block("0000", "-", "u")
    )
    upper = two_players(
        block(2, "W", "W") + block("0000", "-", "H"), block(1, "B", "L") + block("0000", "-", "U")
    )
    assert outline(read(lower)) == outline(read(upper))


def test_legacy_bye_and_absence_codes_without_opponent() -> None:
    """Before TRF16 had U and Z, programs wrote "0000 - +" for the bye, "0000 - -" for absent."""
    lines = [
        player_line(1, "Alpha, A", block(2, "w", "1") + block(3, "b", "=")),
        player_line(2, "Beta, B", block(1, "b", "0") + block("0000", "-", "-")),
        player_line(3, "Gamma, C", block("0000", "-", "+") + block(1, "w", "=")),
    ]
    crosstable = read("\n".join(lines).encode())
    assert crosstable.players[1].cells[1].kind is CellKind.ABSENT
    assert crosstable.players[2].cells[0].kind is CellKind.BYE
    assert crosstable.players[2].points == Fraction(3, 2)


def test_windows_1252_file_is_read() -> None:
    lines = [
        player_line(1, "Müller, Jörg", block(2, "w", "1")),
        player_line(2, "Beta, B", block(1, "b", "0")),
    ]
    assert read("\n".join(lines).encode("cp1252")).players[0].name == "Müller, Jörg"


def test_utf8_file_with_bom_counts_columns_in_characters() -> None:
    lines = [
        player_line(1, "Łukasiewicz, Żaneta", block(2, "w", "=")),
        player_line(2, "Beta, B", block(1, "b", "=")),
    ]
    crosstable = read(b"\xef\xbb\xbf" + "\n".join(lines).encode("utf-8"))
    assert crosstable.players[0].name == "Łukasiewicz, Żaneta"
    assert crosstable.players[0].cells[0].outcome is Outcome.DRAW


def test_colour_is_kept() -> None:
    crosstable = read(two_players(block(2, "b", "1"), block(1, "w", "0")))
    assert crosstable.players[0].cells[0].color is Color.BLACK


# --- bad input ---------------------------------------------------------------------------------


def test_empty_file() -> None:
    with pytest.raises(
        InputError, match=r"empty\.trf: a TRF file with player records \(001\); the file is empty"
    ):
        read(b"", "empty.trf")


def test_file_without_players() -> None:
    with pytest.raises(InputError, match=r"x\.trf: at least one player record \(001\)"):
        read(b"012 Only a name\n", "x.trf")


def test_truncated_round_block() -> None:
    data = two_players(block(2, "w", "1") + "     1 b", block(1, "b", "0") + block(1, "w", "1"))
    with pytest.raises(
        InputError,
        match=r"test\.trf, line 2, column 'round 2 \(columns 102-109\)': value '     1 b': "
        r"a result code \(1 = 0 W D L \+ -\) for the game against 1; the block ends early",
    ):
        read(data)


def test_line_cut_after_the_opponent_number() -> None:
    data = two_players(block(2, "w", "1") + "     1", block(1, "b", "0") + block(1, "w", "1"))
    with pytest.raises(
        InputError,
        match=r"line 2, column 'round 2 \(columns 102-109\)': value '     1': a result code",
    ):
        read(data)


def test_unknown_result_code() -> None:
    data = two_players(block(2, "w", "X"), block(1, "b", "0"))
    with pytest.raises(
        InputError,
        match=r"line 2, column 'round 1 \(columns 92-99\)': value '     2 w X': a result code 1 = 0",
    ):
        read(data)


def test_game_result_without_opponent() -> None:
    data = two_players(block("0000", "-", "1"), "")
    with pytest.raises(
        InputError,
        match=r"line 2, column 'round 1 \(columns 92-99\)'.*an opponent for a game result",
    ):
        read(data)


def test_bye_code_with_opponent() -> None:
    data = two_players(block(2, "w", "H"), block(1, "b", "H"))
    with pytest.raises(
        InputError,
        match=r"line 2, column 'round 1 .*a game result .*not H, since an opponent \(2\)",
    ):
        read(data)


def test_game_without_colour() -> None:
    data = two_players(block(2, "-", "1"), block(1, "-", "0"))
    with pytest.raises(
        InputError, match=r"line 2, column 'round 1 .*the colour \(w or b\) of a game played"
    ):
        read(data)


def test_opponent_out_of_range() -> None:
    data = two_players(block(7, "w", "1"), "")
    with pytest.raises(
        InputError,
        match=r"line 2, column 'round 1 \(columns 92-99\)': value '     7 w 1': an opponent start rank "
        r"that has a player record \(001\); 7 has none",
    ):
        read(data)


def test_one_sided_game() -> None:
    data = two_players(block(2, "w", "1"), block("0000", "-", "H"))
    with pytest.raises(
        InputError,
        match=r"line 2, column 'round 1 \(columns 92-99\)': value '     2 w 1': Alpha, A: the same game "
        r"in the row of #2 Beta, B, which has '  0000 - H' on line 3: one-sided game",
    ):
        read(data)


def test_results_that_disagree() -> None:
    data = two_players(block(2, "w", "1"), block(1, "b", "1"))
    with pytest.raises(
        InputError,
        match=r"line 2, column 'round 1 \(columns 92-99\)': value '     2 w 1': Alpha, A: a result "
        r"matching #2 Beta, B \('     1 b 1' on line 3\): the two sides disagree on the result",
    ):
        read(data)


def test_same_colour_on_both_sides() -> None:
    data = two_players(block(2, "w", "1"), block(1, "w", "0"))
    with pytest.raises(
        InputError,
        match=r"line 2, column 'round 1 .*opposite colours, but #2 Beta, B also had White "
        r"\('     1 w 0' on line 3\)",
    ):
        read(data)


def test_player_twice_in_a_round() -> None:
    lines = [
        player_line(1, "Alpha, A", block(3, "w", "1")),
        player_line(2, "Beta, B", block(3, "w", "1")),
        player_line(3, "Gamma, C", block(1, "b", "0")),
    ]
    with pytest.raises(InputError) as raised:
        read("\n".join(lines).encode())
    message = str(raised.value)
    # Reported once, on the player named twice, with the lines of both players who name him.
    assert re.search(
        r"line 3, column 'round 1 \(columns 92-99\)': value '1, 2': Gamma, C: one opponent per "
        r"round, but 2 players \(1, 2\) say they played him \(lines 1, 2\)",
        message,
    )
    assert message.count("paired twice") == 1


def test_start_rank_used_twice() -> None:
    lines = [player_line(1, "Alpha, A", block(1, "w", "1")), player_line(1, "Beta, B")]
    with pytest.raises(
        InputError,
        match=r"line 2, column 'start rank \(columns 5-8\)': value '1': a start rank not already used on line 1",
    ):
        read("\n".join(lines).encode())


def test_points_that_do_not_add_up() -> None:
    lines = [
        player_line(1, "Alpha, A", block(2, "w", "1"), points="2.0"),
        player_line(2, "Beta, B", block(1, "b", "0"), points="0.0"),
    ]
    with pytest.raises(
        InputError,
        match=r"line 1, column 'points \(columns 81-84\)': value '2.0': the sum of the round results, 1.0",
    ):
        read("\n".join(lines).encode())


def test_shifted_line() -> None:
    data = two_players(block(2, "w", "1"), block(1, "b", "0")).replace(b"Beta, B", b"Beta, B ")
    with pytest.raises(
        InputError, match=r"line 3, column 'round 1 \(columns 92-99\)'.*\(a shifted line\?\)"
    ):
        read(data)


def test_undecodable_bytes() -> None:
    data = two_players(block(2, "w", "1"), block(1, "b", "0")).replace(b"Beta", b"Be\x81a")
    with pytest.raises(
        InputError,
        match=r"test\.trf, line 3, column 'character 17': value '81': text in UTF-8 or Windows-1252",
    ):
        read(data)


def test_binary_data() -> None:
    with pytest.raises(InputError, match=r"line 1, column 'character 4'.*printable text"):
        read(b"001\x00\x00 1\n")


def test_end_date_before_start_date() -> None:
    data = b"042 2025/02/03\n052 2025/01/01\n" + two_players(block(2, "w", "1"), block(1, "b", "0"))
    with pytest.raises(
        InputError,
        match=r"line 2, column '5-14': value '2025/01/01': an end date on or after 2025-02-03",
    ):
        read(data)


def test_unreadable_date_is_left_out_with_a_warning() -> None:
    """``standings`` needs no date, and ``import --end-date`` gives the one the file lacks."""
    data = b"042 2025/02/30\n052 sometime\n" + two_players(block(2, "w", "1"), block(1, "b", "0"))
    crosstable = read(data)
    assert crosstable.start_date is None
    assert crosstable.end_date is None
    assert [str(w) for w in crosstable.warnings] == [
        "test.trf, line 1, column '5-14': value '2025/02/30': not a date that can be read; "
        "give --start-date to import",
        "test.trf, line 2, column '5-14': value 'sometime': not a date that can be read; "
        "give --end-date to import",
    ]


@pytest.mark.parametrize(
    ("text", "expected", "guessed"),
    [
        ("2020/05/29", date(2020, 5, 29), False),
        ("2020-05-29", date(2020, 5, 29), False),
        ("2009.09.09", date(2009, 9, 9), False),
        ("25.02.2011", date(2011, 2, 25), False),
        ("28. 07. 2005", date(2005, 7, 28), False),
        ("24/09/2010", date(2010, 9, 24), False),
        ("09/24/2010", date(2010, 9, 24), False),
        ("02/10/2010", date(2010, 10, 2), True),
        ("May 10, 2020", date(2020, 5, 10), False),
        ("Sep 5, 2021", date(2021, 9, 5), False),
        ("5 September 2021", date(2021, 9, 5), False),
        ("10.09.13", date(2010, 9, 13), True),
        ("11.03.13", date(2011, 3, 13), True),
        ("31.12.99", date(1999, 12, 31), True),
    ],
)
def test_dates_in_every_common_form(text: str, expected: date, guessed: bool) -> None:
    when, guess = read_date(text)
    assert when == expected
    assert (guess is not None) is guessed


def test_guessed_date_is_warned() -> None:
    """``icu-armstrong-2011.trf`` writes ``10.09.13``: read year first, as TRF's round dates."""
    crosstable = read(
        b"042 10.09.13\n052 11.03.13\n" + two_players(block(2, "w", "1"), block(1, "b", "0"))
    )
    assert (crosstable.start_date, crosstable.end_date) == (date(2010, 9, 13), date(2011, 3, 13))
    assert [w.line for w in crosstable.warnings] == [1, 2]
    assert "read year first" in crosstable.warnings[0].expected


def test_comments_rulers_and_unknown_records() -> None:
    lines = [
        "### Column guide for 001 lines",
        "012 Test",
        "         1         2         3",
        "01234567890123456789012345678901234567890123456789",
        "DDD SSSS sTTT NNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNN RRRR FFF",
        "555 a record of nobody's",
        "XXC white1",
        player_line(1, "Alpha, A", block(2, "w", "1")),
        player_line(2, "Beta, B", block(1, "b", "0")),
    ]
    crosstable = read("\n".join(lines).encode())
    assert crosstable.name == "Test"
    assert len(crosstable.players) == 2
    assert [(w.line, w.value) for w in crosstable.warnings] == [(6, "555")]
    assert crosstable.warnings[0].expected == "an unknown record; skipped"


def test_national_records_are_skipped_with_one_warning_per_federation() -> None:
    # TRF-2026 national records, as Sharly Chess writes them after the player records: the
    # federation's code, then its own data on the player (national id, club). FIDE's TRF-2026
    # sample writes its column guides without ###: the code as three equal letters.
    lines = [
        "012 Open",
        "DDD SSSS sTTT NNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNN RRRR FFF IIIIIIIIIII BBBB/BB/BB PPPP RRRR",
        player_line(1, "Alpha, A", block(2, "w", "1"), "1.0"),
        player_line(2, "Beta, B", block(1, "b", "0"), "0.0"),
        "### SSSS sCCC NNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNN RRRR OOO IIIIIIIIIII BBBB/BB/BB",
        "FRA    1    A                                        ARA      Y02046",
        "FRA    2    A                                        BRE      C69548",
        "CCC SSS NNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNN FFFFF EEEEEE MMMMMM GGGGGG RRR  PPP1 PPP2",
        "GER    2         Beta, B                                      123456",
    ]
    crosstable = read("\n".join(lines).encode())
    assert [(w.line, w.column, w.value) for w in crosstable.warnings] == [
        (6, "1-3", "FRA"),
        (9, "1-3", "GER"),
    ]
    assert "national records" in crosstable.warnings[0].expected
    assert [p.cells[0].outcome for p in crosstable.players] == [Outcome.WIN, Outcome.LOSS]


def paired_round_two(first: str, second: str) -> bytes:
    """Two rounds between two players, round 2 as ``first`` and ``second`` write it."""
    return two_players(block(2, "w", "1") + first, block(1, "b", "0") + second)


@pytest.mark.parametrize("result", ["", " ", "*"])
def test_a_round_paired_without_results_is_left_out_and_the_event_unfinished(
    result: str,
) -> None:
    # A file saved after pairing round 2: the games are written without result (Sharly Chess
    # writes opponent, colour and a blank result; TRF-2026's * says "not yet known").
    crosstable = read(paired_round_two(f"     2 b {result}", f"     1 w {result}"))
    assert crosstable.rounds == 1
    assert crosstable.unfinished
    (warning,) = crosstable.warnings
    assert (warning.line, warning.column) == (2, "round 2 (columns 102-109)")
    assert warning.expected == (
        "an unfinished event: 2 game records without result in round 2; read as it stood after "
        "round 1"
    )


def test_a_game_without_result_in_round_one_leaves_no_standings() -> None:
    with pytest.raises(InputError) as raised:
        read(two_players("     2 w", "     1 b"))
    assert "1 problem found" in str(raised.value)
    assert "an unfinished event without one complete round has no standings" in str(raised.value)


def test_a_game_without_result_on_one_side_only_is_refused() -> None:
    with pytest.raises(InputError) as raised:
        read(paired_round_two("     2 b", block(1, "w", "1")))
    assert (
        "line 2, column 'round 2 (columns 102-109)': value '     2 b': a result code (1 = 0 W D "
        "L + -) for the game against 2; the block ends early or the result is blank, and the "
        "opponent's record does not show the same game without result"
    ) in str(raised.value)


@pytest.mark.parametrize("code", ["=", "H"])
@pytest.mark.parametrize("tail", ["", " ", "   "])
def test_half_point_bye_at_line_end(code: str, tail: str) -> None:
    """``icu-valid.trf`` writes half-point byes ``0000 - =``; lines may end right after the code."""
    lines = [
        player_line(1, "Alpha, A", block(2, "w", "1") + block("0000", "-", code) + tail, "1.5"),
        player_line(2, "Beta, B", block(1, "b", "0") + block(3, "w", "1"), "1.0"),
        player_line(3, "Gamma, C", block("0000", "-", "U") + block(2, "b", "0"), "1.0"),
    ]
    crosstable = read("\n".join(lines).encode())
    cell = crosstable.players[0].cells[1]
    assert (cell.kind, cell.outcome) == (CellKind.REQUESTED_BYE, Outcome.DRAW)
    assert crosstable.warnings == ()


def icu_lines(points: str) -> bytes:
    """Rounds without opponent as the ICU's Swiss-Manager exports write them: a bare ``-``."""
    return "\n".join(
        [
            player_line(
                1, "Alpha, A", block(2, "w", "1") + "       -  " + block(3, "w", "="), points
            ),
            player_line(
                2, "Beta, B", block(1, "b", "0") + block(3, "b", "0") + "       -  ", "0.5"
            ),
            player_line(
                3, "Gamma, C", "       -  " + block(2, "w", "1") + block(1, "b", "="), "2.0"
            ),
        ]
    ).encode()


def test_unexplained_half_points_are_half_point_byes() -> None:
    crosstable = read(icu_lines("2.0"))
    assert [p.points for p in crosstable.players] == [Fraction(2), Fraction(1, 2), Fraction(2)]
    byes = [
        (p.number, c.round)
        for p in crosstable.players
        for c in p.cells
        if c.kind is CellKind.REQUESTED_BYE
    ]
    assert byes == [(1, 2), (2, 3), (3, 1)]
    assert [(w.line, w.column) for w in crosstable.warnings] == [
        (1, "round 2 (columns 102-109)"),
        (2, "round 3 (columns 112-119)"),
        (3, "round 1 (columns 92-99)"),
    ]
    assert crosstable.warnings[0].expected.startswith("a half-point bye: the printed points")


def test_points_byes_cannot_explain_are_refused() -> None:
    with pytest.raises(
        InputError,
        match=r"line 1, column 'points \(columns 81-84\)': value '3.0': "
        r"the sum of the round results, 1.5",
    ):
        read(icu_lines("3.0"))


def test_a_whole_point_more_than_half_byes_explain_is_a_full_point_bye() -> None:
    """``icu-irish-junior-champs-2011.trf``: ``0000 -`` credited a whole point."""
    crosstable = read(icu_lines("2.5"))
    cell = crosstable.players[0].cells[1]
    assert (cell.kind, cell.outcome) == (CellKind.BYE, Outcome.WIN)
    assert "a full-point bye" in crosstable.warnings[0].expected


def test_pre_entered_bye_in_a_round_nobody_played_is_kept() -> None:
    lines = [
        player_line(1, "Alpha, A", block(2, "w", "1"), "1.0"),
        player_line(2, "Beta, B", block(1, "b", "0") + block("0000", "-", "H"), "0.5"),
    ]
    crosstable = read("\n".join(lines).encode())
    assert crosstable.rounds == 2
    assert crosstable.players[1].points == Fraction(1, 2)
    assert crosstable.players[0].cells[1].kind is CellKind.ABSENT
    assert crosstable.warnings == ()


def test_bye_entered_ahead_of_the_next_round_is_left_out() -> None:
    """``dechamps-half-point-bye-in-round-2.trf``: the bye for round 2 is not in the points yet."""
    lines = [
        player_line(1, "Alpha, A", block(2, "w", "1"), "1.0"),
        player_line(2, "Beta, B", block(1, "b", "0") + block("0000", "-", "H"), "0.0"),
    ]
    crosstable = read("\n".join(lines).encode())
    assert crosstable.rounds == 1
    assert [(w.line, w.column) for w in crosstable.warnings] == [(2, "round 2 (columns 102-109)")]


def test_abnormal_points_record_explains_the_total() -> None:
    """``sharly-indiv-299-bonus.trf``: record 299 gives player 2 two bonus points."""
    lines = [
        "299           2.0    1    2",
        player_line(1, "Alpha, A", block(2, "w", "1"), "1.0"),
        player_line(2, "Beta, B", block(1, "b", "0"), "2.0"),
    ]
    crosstable = read("\n".join(lines).encode())
    assert crosstable.players[1].printed["points"] == 2
    assert [(w.line, w.column) for w in crosstable.warnings] == [(3, "points (columns 81-84)")]
    lines[2] = player_line(2, "Beta, B", block(1, "b", "0"), "3.0")
    with pytest.raises(
        InputError, match=r"the sum of the round results, 0.0, plus 2.0 abnormal points"
    ):
        read("\n".join(lines).encode())


def test_scoring_record_other_than_the_default_skips_the_points_check() -> None:
    lines = [
        "162  W 3.0    D 1.0    L 0.0",
        player_line(1, "Alpha, A", block(2, "w", "1"), "3.0"),
        player_line(2, "Beta, B", block(1, "b", "0"), "0.0"),
    ]
    assert read("\n".join(lines).encode()).players[0].printed["points"] == 3


@pytest.mark.parametrize(
    ("end", "rule"),
    [
        ("2026/03/01", MissedRounds.FIDE_2026),
        ("2025/06/01", MissedRounds.FIDE_2023),
        ("2023/07/01", MissedRounds.FIDE_2023),
        ("2015/06/01", MissedRounds.FIDE_2009),
        ("2005/06/01", MissedRounds.OWN_MMS),
    ],
)
def test_policy_from_the_year_of_the_event(end: str, rule: MissedRounds) -> None:
    crosstable = read(f"052 {end}\n".encode() + two_players(block(2, "w", "1"), block(1, "b", "0")))
    assert policy_for(crosstable).missed_rounds is rule


def test_policy_without_a_date_is_the_plain_sums() -> None:
    assert policy_for(read(two_players(block(2, "w", "1"), block(1, "b", "0")))) == Policy()


def test_every_problem_is_listed() -> None:
    lines = [
        "062 5",
        player_line(1, "Alpha, A", block(2, "w", "X")),
        player_line(2, "", block(9, "b", "0")),
        "this is not a record",
    ]
    with pytest.raises(InputError) as raised:
        read("\n".join(lines).encode())
    found = [(p.line, p.column) for p in raised.value.problems]
    assert found == [
        (1, "5-8"),
        (2, "round 1 (columns 92-99)"),
        (3, "name (columns 15-47)"),
        (3, "round 1 (columns 92-99)"),
        (4, "1-3"),
    ]


# --- fuzzing -----------------------------------------------------------------------------------


def _samples() -> list[bytes]:
    files = [CLUB] + ([C5, CR] if SAMPLES.is_dir() else [])
    return [path.read_bytes() for path in files]


def assert_consistent(crosstable: Crosstable) -> None:
    """What the reader promises: a cell per round, and every pairing seen from both sides."""
    for index, player in enumerate(crosstable.players):
        assert [c.round for c in player.cells] == list(range(1, crosstable.rounds + 1))
        for cell in player.cells:
            if cell.opponent is not None:
                answer = crosstable.players[cell.opponent].cells[cell.round - 1]
                assert answer.opponent == index
                assert answer.kind is cell.kind


def _read_or_reject(data: bytes) -> None:
    outcome: Crosstable | InputError
    try:
        outcome = read(data, "fuzz.trf")
    except InputError as error:
        outcome = error
    if isinstance(outcome, InputError):
        assert outcome.problems
        assert all(p.file == "fuzz.trf" for p in outcome.problems)
    else:
        assert_consistent(outcome)


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=600))
def test_random_bytes_give_a_crosstable_or_an_input_error(data: bytes) -> None:
    _read_or_reject(data)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_samples_give_a_crosstable_or_an_input_error(data: st.DataObject) -> None:
    sample = bytearray(data.draw(st.sampled_from(_samples()), label="sample"))
    for _ in range(data.draw(st.integers(1, 4), label="mutations")):
        at = data.draw(st.integers(0, len(sample)), label="at")
        action = data.draw(st.sampled_from(["replace", "insert", "delete", "cut"]), label="action")
        byte = data.draw(st.sampled_from(b" 0123456789wb-+=HFUZDLW\r\n\x81\xe9"), label="byte")
        if action == "replace" and at < len(sample):
            sample[at] = byte
        elif action == "insert":
            sample.insert(at, byte)
        elif action == "delete" and at < len(sample):
            del sample[at]
        elif action == "cut":
            del sample[at:]
    _read_or_reject(bytes(sample))


def test_bye_records_of_trf_2026_fill_empty_rounds() -> None:
    """TRF-2026 record 240: a half-point bye for start rank 2 in round 2, the 001 round left empty."""
    lines = [
        "240 H 002 0002",
        player_line(1, "Alpha, A", block(2, "w", "1") + block("0000", "-", "U"), "2.0"),
        player_line(2, "Beta, B", block(1, "b", "0"), "0.5"),
    ]
    crosstable = read("\n".join(lines).encode())
    cell = crosstable.players[1].cells[1]
    assert (cell.kind, cell.outcome) == (CellKind.REQUESTED_BYE, Outcome.DRAW)
    lines[0] = "240 Z 001 0002"
    with pytest.raises(InputError, match=r"line 3, .*the bye Z that record 240 on line 1 gives"):
        read("\n".join(lines).encode())


ROUND_DATES = "132" + " " * 88 + "24/11/23  24/11/23  24/11/24"


def three_rounds() -> bytes:
    lines = [
        "012 Club Cup",
        ROUND_DATES,
        player_line(
            1, "Alpha, A", block(2, "w", "1") + block(2, "b", "=") + block(2, "w", "0"), "1.5"
        ),
        player_line(
            2, "Beta, B", block(1, "b", "0") + block(1, "w", "=") + block(1, "b", "1"), "1.5"
        ),
    ]
    return "\n".join(lines).encode()


def test_dates_of_the_rounds_give_the_dates_the_file_lacks() -> None:
    crosstable = read(three_rounds())
    assert (crosstable.start_date, crosstable.end_date) == (date(2024, 11, 23), date(2024, 11, 24))
    assert [str(w) for w in crosstable.warnings] == [
        "test.trf, line 2, column 'date of round 3 (columns 112-119)': value '24/11/24': the file "
        "gives no end date (052): the date of round 3 in record 132, 2024-11-24, is taken as the "
        "end date",
        "test.trf, line 2, column 'date of round 1 (columns 92-99)': value '24/11/23': the file "
        "gives no start date (042): the date of round 1 in record 132, 2024-11-23, is taken as "
        "the start date",
    ]
    assert policy_for(crosstable) == Policy(missed_rounds=MissedRounds.FIDE_2023)


def test_dates_the_file_gives_win_over_the_round_dates() -> None:
    crosstable = read(b"042 2024/11/22\n052 2024/11/25\n" + three_rounds())
    assert (crosstable.start_date, crosstable.end_date) == (date(2024, 11, 22), date(2024, 11, 25))
    assert crosstable.warnings == ()


def test_an_end_date_from_the_rounds_rather_than_the_start_date() -> None:
    crosstable = read(b"042 2024/11/23\n" + three_rounds())
    assert crosstable.end_date == date(2024, 11, 24)
    (warning,) = crosstable.warnings
    assert "the date of round 3 in record 132" in warning.expected


def test_round_dates_that_cannot_be_read_give_no_date() -> None:
    crosstable = read(three_rounds().replace(b"24/11/2", b"xx/yy/z"))
    assert (crosstable.start_date, crosstable.end_date) == (None, None)


def test_team_records_are_skipped_with_one_warning() -> None:
    lines = [
        "012 Team Cup",
        "310 1   Alpha                                                               1",
        "310 2   Bravo                                                               2",
        "330 +-   1   1   2",
        player_line(1, "Alpha, A", block(2, "w", "1"), "1.0"),
        player_line(2, "Beta, B", block(1, "b", "0"), "0.0"),
    ]
    crosstable = read("\n".join(lines).encode())
    (warning,) = crosstable.warnings
    assert (warning.line, warning.column, warning.value) == (2, "1-3", "310")
    assert "the team records are not read" in warning.expected
    assert [p.cells[0].outcome for p in crosstable.players] == [Outcome.WIN, Outcome.LOSS]


def test_a_file_of_registrations_only_is_an_empty_event() -> None:
    # Points filled in before round 1 was paired are not results: the event is empty.
    lines = ["012 Team Cup", player_line(1, "Alpha, A", "", "9.0"), player_line(2, "Beta, B")]
    with pytest.raises(InputError) as raised:
        read("\n".join(lines).encode())
    assert str(raised.value).endswith(
        "1 problem found:\n  test.trf, column 'rounds': games or byes: an empty event (players "
        "registered, no game played)"
    )


def test_the_number_of_players_with_those_who_played_in_brackets() -> None:
    # Swiss-Manager: "062 129 (88)", 129 players of whom 88 played.
    data = two_players(block(2, "w", "1"), block(1, "b", "0"))
    assert len(read(b"062 2 (2)\n" + data).players) == 2
    with pytest.raises(InputError, match=r"line 1, column '5-8': value '3': the number of player"):
        read(b"062 3 (2)\n" + data)


def test_the_tens_ruler_swiss_manager_writes_is_skipped() -> None:
    tens = "".join(f"{n:>10}" for n in range(1, 17))
    assert tens.endswith("        15        16")
    data = f"{tens}\n".encode() + two_players(block(2, "w", "1"), block(1, "b", "0"))
    crosstable = read(data)
    assert len(crosstable.players) == 2
    assert crosstable.warnings == ()


def test_the_dates_of_a_file_whose_crosstable_is_refused() -> None:
    # What an import still learns of a refused file: its dates from its records alone.
    from importers.trf import event_dates

    bad = two_players(block(2, "w", "1"), block(1, "b", "1"))
    assert event_dates(bad, "test.trf") == (None, None)
    assert event_dates(b"042 2024/05/01\n" + bad, "test.trf") == (
        date(2024, 5, 1),
        date(2024, 5, 1),
    )
    assert event_dates(three_rounds(), "test.trf") == (date(2024, 11, 23), date(2024, 11, 24))
