"""``validate``: games must read the same from both sides."""

from __future__ import annotations

import dataclasses

from ratings.crosstable import Cell, CellKind, Outcome
from ratings.tiebreaks import validate
from tests.ratings.builder import build


def messages(rows: list[tuple[str, str]]) -> list[str]:
    return [str(p) for p in validate(build(rows, source="event.h9"))]


def test_consistent_crosstable() -> None:
    assert messages([("A", "+2w =3"), ("B", "-1b BYE"), ("C", "ABS =1")]) == []


def test_one_sided_game() -> None:
    found = messages([("A", "+2"), ("B", "ABS")])
    assert found == [
        "event.h9, line 1, column 'round 1': value 'game + against #2 (?)': A: the same game in "
        "the row of #2 B, which has absent -: one-sided game"
    ]


def test_results_disagree() -> None:
    assert "the two sides disagree on the result" in messages([("A", "+2"), ("B", "=1")])[0]


def test_double_forfeit_is_allowed_but_not_a_double_loss_over_the_board() -> None:
    assert messages([("A", "F-2"), ("B", "F-1")]) == []
    assert "disagree" in messages([("A", "-2"), ("B", "-1")])[0]


def test_kind_colour_and_handicap() -> None:
    assert "same kind of result" in messages([("A", "F+2"), ("B", "-1")])[0]
    assert "opposite colours" in messages([("A", "+2w"), ("B", "-1w")])[0]
    assert "the handicap #2 B has (0)" in messages([("A", "+2w3"), ("B", "-1b")])[0]


def test_opponent_out_of_range_and_himself() -> None:
    found = messages([("A", "+3"), ("B", "+2")])
    assert "line 1, column 'round 1': value '3': A: an opponent number between 1 and 2" in found[0]
    assert "B: an opponent other than himself" in found[1]


def test_player_paired_twice_in_a_round() -> None:
    found = messages([("A", "+3"), ("B", "+3"), ("C", "-1")])
    assert any("C: one opponent per round, but 2 players (1, 2)" in m for m in found)
    assert any("B: the same game in the row of #3 C" in m for m in found)


def test_round_numbers_and_cell_count() -> None:
    table = build([("A", "+2 ABS"), ("B", "-1 ABS")])
    first = table.players[0]
    shuffled = dataclasses.replace(
        first, cells=(first.cells[0], Cell(5, CellKind.ABSENT, Outcome.LOSS))
    )
    short = dataclasses.replace(table.players[1], cells=table.players[1].cells[:1])
    found = [str(p) for p in validate(dataclasses.replace(table, players=(shuffled, short)))]
    assert "column 'round 2': value '5': A: round 2 in this position" in found[0]
    assert "column 'rounds': value '1': B: one cell per round, 2 rounds" in found[1]


def test_cells_with_and_without_opponents() -> None:
    table = build([("A", "ABS")])
    bad = dataclasses.replace(
        table.players[0],
        cells=(Cell(1, CellKind.ABSENT, Outcome.LOSS, opponent=0),),
    )
    assert "no opponent in a round without game" in str(
        validate(dataclasses.replace(table, players=(bad,)))[0]
    )
    game = dataclasses.replace(bad, cells=(Cell(1, CellKind.GAME, Outcome.WIN),))
    assert "an opponent for a paired round" in str(
        validate(dataclasses.replace(table, players=(game,)))[0]
    )
