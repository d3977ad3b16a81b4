"""Tests of the plain crosstable CSV reader.

``fixtures/club_championship.csv`` is the made-up event of ``fixtures/club_championship.trf`` typed
as a spreadsheet would hold it, so both readers must give the same rounds. ``semicolon_bom.csv`` is
a three-player sheet saved by a spreadsheet set to a European locale: UTF-8 with a BOM, ``;``
separators, CRLF line endings, ``Number`` and bare round numbers as headings.
"""

from __future__ import annotations

import io
import re
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from importers.crosstable_csv import read_crosstable_csv
from importers.trf import read_trf
from ratings.crosstable import CellKind, Color, Crosstable, Outcome
from ratings.errors import InputError

FIXTURES = Path(__file__).parent / "fixtures"
CLUB = FIXTURES / "club_championship.csv"
EUROPEAN = FIXTURES / "semicolon_bom.csv"


def read(data: bytes | str, source: str = "test.csv") -> Crosstable:
    raw = data.encode() if isinstance(data, str) else data
    return read_crosstable_csv(io.BytesIO(raw), source)


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


def test_club_championship_reads_like_its_trf() -> None:
    crosstable = read_crosstable_csv(CLUB.open("rb"), CLUB.name)
    trf = read_trf((FIXTURES / "club_championship.trf").open("rb"), "club_championship.trf")
    assert crosstable.format == "csv"
    assert crosstable.rounds == 4
    assert outline(crosstable) == outline(trf)
    assert [
        (p.number, p.name, p.player_id, p.country, p.rating, p.title) for p in crosstable.players
    ] == [(p.number, p.name, p.player_id, p.country, p.rating, p.title) for p in trf.players]
    assert [(p.wins, p.draws, p.losses) for p in crosstable.players] == [
        (p.wins, p.draws, p.losses) for p in trf.players
    ]
    first = crosstable.players[0]
    assert first.club == "KS Hetman"
    assert first.printed == {"points": Fraction(3)}
    assert first.line == 2


def test_semicolons_bom_crlf_and_bare_round_numbers() -> None:
    crosstable = read_crosstable_csv(EUROPEAN.open("rb"), EUROPEAN.name)
    assert [p.name for p in crosstable.players] == ["Müller, Jürgen", "Łukasz, Ewa", "García; Luis"]
    assert crosstable.rounds == 3
    assert outline(crosstable) == [
        [("game", "+", 2, "b"), ("game", "=", 3, "w"), ("bye", "+", None, None)],
        [("game", "-", 1, "w"), ("bye", "+", None, None), ("game", "+", 3, "b")],
        [("requested_bye", "=", None, None), ("game", "=", 1, "b"), ("game", "-", 2, "w")],
    ]
    assert [p.points for p in crosstable.players] == [Fraction(5, 2), 2, 1]


@pytest.mark.parametrize(
    ("cell", "kind", "outcome"),
    [
        ("", CellKind.ABSENT, Outcome.LOSS),
        ("-", CellKind.ABSENT, Outcome.LOSS),
        ("+", CellKind.BYE, Outcome.WIN),
        ("BYE", CellKind.BYE, Outcome.WIN),
        ("+bye", CellKind.BYE, Outcome.WIN),
        ("=", CellKind.REQUESTED_BYE, Outcome.DRAW),
        ("=BYE", CellKind.REQUESTED_BYE, Outcome.DRAW),
        ("-BYE", CellKind.REQUESTED_BYE, Outcome.LOSS),
    ],
)
def test_cells_without_opponent(cell: str, kind: CellKind, outcome: Outcome) -> None:
    crosstable = read(f"no,name,r1,r2\n1,A,{cell},2+\n2,B,+,1-\n")
    assert (crosstable.players[0].cells[0].kind, crosstable.players[0].cells[0].outcome) == (
        kind,
        outcome,
    )


@pytest.mark.parametrize(
    ("mine", "theirs", "kind", "outcome", "color"),
    [
        ("2+", "1-", CellKind.GAME, Outcome.WIN, None),
        ("2 W =", "1b=", CellKind.GAME, Outcome.DRAW, Color.WHITE),
        ("2b-", "1w+", CellKind.GAME, Outcome.LOSS, Color.BLACK),
        ("2+F", "1-f", CellKind.FORFEIT, Outcome.WIN, None),
        ("2w-F", "1b-F", CellKind.FORFEIT, Outcome.LOSS, Color.WHITE),
    ],
)
def test_cells_with_opponent(
    mine: str, theirs: str, kind: CellKind, outcome: Outcome, color: Color | None
) -> None:
    cell = read(f"no,name,r1\n1,A,{mine}\n2,B,{theirs}\n").players[0].cells[0]
    assert (cell.kind, cell.outcome, cell.opponent, cell.color) == (kind, outcome, 1, color)


def test_players_are_ordered_by_number_and_opponents_point_at_them() -> None:
    crosstable = read("no,name,r1\n10,Ten,3+\n3,Three,10-\n")
    assert [p.number for p in crosstable.players] == [3, 10]
    assert crosstable.players[1].cells[0].opponent == 0


def test_round_column_nobody_was_paired_in_is_not_a_round() -> None:
    """A sheet prepared for three rounds after two: r3 would be an absence for everybody."""
    crosstable = read("no,name,points,r1,r2,r3\n1,A,1.5,2+,3=,\n2,B,1,1-,+,-\n3,C,1.5,+BYE,1=,\n")
    assert crosstable.rounds == 2
    assert [len(p.cells) for p in crosstable.players] == [2, 2, 2]
    assert [(w.column, w.expected) for w in crosstable.warnings] == [
        ("r3", "a round column nobody was paired in: not counted as a round")
    ]
    # A round with only a bye entered is a round.
    assert read("no,name,r1,r2\n1,A,2+,\n2,B,1-,=\n").rounds == 2


def test_blank_rows_are_skipped() -> None:
    crosstable = read("no,name,r1\n1,A,2+\n\n,,\n2,B,1-\n\n")
    assert len(crosstable.players) == 2
    assert crosstable.players[1].line == 5


def test_quoted_value_across_lines_keeps_line_numbers() -> None:
    with pytest.raises(InputError, match=r"test\.csv, line 5, column 'r1': value '9\+'"):
        read('no,name,r1\n1,"A\nstill A",2+\n2,B,1-\n3,C,9+\n')


# --- bad input ---------------------------------------------------------------------------------


def test_empty_file() -> None:
    with pytest.raises(
        InputError, match=r"empty\.csv: a header line and one row per player; the file is empty"
    ):
        read(b"", "empty.csv")


def test_header_only() -> None:
    with pytest.raises(InputError, match=r"test\.csv: at least one player row after the header"):
        read("no,name,r1\n")


def test_truncated_row() -> None:
    with pytest.raises(
        InputError, match=r"test\.csv, line 3: value '2,B': 3 fields as in the header, not 2"
    ):
        read("no,name,r1\n1,A,2+\n2,B\n")


def test_unknown_result() -> None:
    with pytest.raises(
        InputError,
        match=r"test\.csv, line 2, column 'r1': value '2x': an opponent number, optional colour w/b "
        r"and a result \+, = or -",
    ):
        read("no,name,r1\n1,A,2x\n2,B,1-\n")


def test_forfeit_draw() -> None:
    with pytest.raises(
        InputError, match=r"line 2, column 'r1': value '2=F': a forfeit won \(\+F\) or lost \(-F\)"
    ):
        read("no,name,r1\n1,A,2=F\n2,B,1=F\n")


def test_windows_1252_is_read_with_a_warning() -> None:
    """A sheet saved as CSV by a German or French spreadsheet: Windows-1252, ``;``, CRLF."""
    data = "Nr;Name;Land;R1;R2\r\n1;Jürgen Groß;GER;2+;3-\r\n2;Hélène Dubois;FRA;1-;=\r\n3;Zoë Bäcker;BEL;=;1+\r\n"
    crosstable = read(data.replace("Nr;", "no;").encode("cp1252"), "Ergebnisse.csv")
    assert [p.name for p in crosstable.players] == ["Jürgen Groß", "Hélène Dubois", "Zoë Bäcker"]
    assert [str(w) for w in crosstable.warnings] == [
        "Ergebnisse.csv: not UTF-8 text: read as Windows-1252, the encoding of a spreadsheet "
        "saved as CSV in Western Europe (save it as 'CSV UTF-8' to be sure of its letters)"
    ]


def test_neither_utf8_nor_windows_1252() -> None:
    with pytest.raises(
        InputError,
        match=r"test\.csv, line 3, column 'name': value 'M\\\\x81ller': the file is neither UTF-8 "
        r"nor Windows-1252 text \(save it as UTF-8\)",
    ):
        read(b"no,name,r1\n1,A,2+\n2,M\x81ller,1-\n")


def test_opponent_out_of_range() -> None:
    with pytest.raises(
        InputError,
        match=r"line 2, column 'r1': value '5\+': the number of a player in the file; there is no player 5",
    ):
        read("no,name,r1\n1,A,5+\n2,B,\n")


def test_one_sided_game() -> None:
    with pytest.raises(
        InputError,
        match=r"test\.csv, line 2, column 'r2': value '2\+': A: the same game in the row of #2 B, "
        r"which has '' on line 3: one-sided game",
    ):
        read("no,name,r1,r2\n1,A,2+,2+\n2,B,1-,\n")


def test_results_that_disagree() -> None:
    with pytest.raises(
        InputError,
        match=r"line 2, column 'r1': value '2\+': A: a result matching #2 B \('1=' on line 3\): "
        r"the two sides disagree on the result",
    ):
        read("no,name,r1\n1,A,2+\n2,B,1=\n")


def test_game_against_forfeit() -> None:
    with pytest.raises(
        InputError,
        match=r"line 2, column 'r1': value '2\+F': A: the same kind of result as #2 B \('1-' on line 3\)",
    ):
        read("no,name,r1\n1,A,2+F\n2,B,1-\n")


def test_same_colour_on_both_sides() -> None:
    with pytest.raises(
        InputError,
        match=r"line 2, column 'r1': value '2w\+': A: opposite colours, but #2 B also had White "
        r"\('1w-' on line 3\)",
    ):
        read("no,name,r1\n1,A,2w+\n2,B,1w-\n")


def test_player_twice_in_a_round() -> None:
    with pytest.raises(InputError) as raised:
        read("no,name,r1\n1,A,3+\n2,B,3+\n3,C,1-\n")
    message = str(raised.value)
    # Reported once, on the player named twice, with the lines of both players who name him.
    assert re.search(
        r"line 4, column 'r1': value '1, 2': C: one opponent per round, but 2 players \(1, 2\) say "
        r"they played him \(lines 2, 3\): player paired twice in a round",
        message,
    )
    assert message.count("paired twice") == 1


def test_playing_oneself() -> None:
    with pytest.raises(
        InputError, match=r"line 2, column 'r1': value '1': A: an opponent other than himself"
    ):
        read("no,name,r1\n1,A,1+\n")


def test_number_used_twice() -> None:
    with pytest.raises(
        InputError, match=r"line 3: value '1': a player number not already used on line 2"
    ):
        read("no,name,r1\n1,A,\n1,B,\n")


def test_bad_number_and_rating() -> None:
    with pytest.raises(InputError) as raised:
        read("no,name,rating,r1\nx,A,,\n2,,20o0,\n")
    assert [str(p) for p in raised.value.problems] == [
        "test.csv, line 2, column 'no': value 'x': the player's number, 1 or more",
        "test.csv, line 3, column 'name': value '': the player's name",
        "test.csv, line 3, column 'rating': value '20o0': a rating as a whole number",
    ]


def test_points_that_do_not_add_up() -> None:
    with pytest.raises(
        InputError, match=r"line 2, column 'points': value '1,5': the sum of the rounds, 1"
    ):
        read("no;name;points;r1\n1;A;1,5;2+\n2;B;0;1-\n")


def test_unknown_missing_and_repeated_columns() -> None:
    with pytest.raises(InputError) as raised:
        read("name,r1,R1,r3,ratng\nA,,,,\n")
    assert [str(p) for p in raised.value.problems] == [
        "test.csv, line 1, column 'R1': value 'R1': each column once",
        "test.csv, line 1, column 'ratng': value 'ratng': a known column (no, name, player_id, "
        "country, club, title, rating, points, r1, r2, ...); did you mean 'rating'?",
        "test.csv, line 1: a column 'no' (or 'number') with the players' numbers",
        "test.csv, line 1, column 'r3': value 'r3': round columns numbered from 1 without gaps "
        "(missing: r2)",
    ]


def test_empty_trailing_columns_are_ignored_unless_they_hold_values() -> None:
    assert read("no,name,r1,,\n1,A,+,,\n").rounds == 1
    with pytest.raises(
        InputError,
        match=r"line 2, column 'column 4': value 'x': a heading for a column that holds values",
    ):
        read("no,name,r1,,\n1,A,,x,\n")


def test_broken_quotes() -> None:
    with pytest.raises(InputError, match=r"line 2: a quoted value"):
        read('no,name,r1\n1,"A" x,\n')
    with pytest.raises(InputError, match=r"line 2: a quoted value"):
        read('no,name,r1\n1,"A,\n2,B,\n')


# --- fuzzing -----------------------------------------------------------------------------------


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
        outcome = read(data, "fuzz.csv")
    except InputError as error:
        outcome = error
    if isinstance(outcome, InputError):
        assert all(p.file == "fuzz.csv" for p in outcome.problems)
    else:
        assert_consistent(outcome)


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=400))
def test_random_bytes_give_a_crosstable_or_an_input_error(data: bytes) -> None:
    _read_or_reject(data)


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_mutated_samples_give_a_crosstable_or_an_input_error(data: st.DataObject) -> None:
    sample = bytearray(data.draw(st.sampled_from([CLUB.read_bytes(), EUROPEAN.read_bytes()])))
    for _ in range(data.draw(st.integers(1, 4), label="mutations")):
        at = data.draw(st.integers(0, len(sample)), label="at")
        action = data.draw(st.sampled_from(["replace", "insert", "delete", "cut"]), label="action")
        byte = data.draw(st.sampled_from(b' 0123456789wbWB-+=F,;"\r\nBYE\x81\xc3'), label="byte")
        if action == "replace" and at < len(sample):
            sample[at] = byte
        elif action == "insert":
            sample.insert(at, byte)
        elif action == "delete" and at < len(sample):
            del sample[at]
        elif action == "cut":
            del sample[at:]
    _read_or_reject(bytes(sample))
