"""``validate``: games must read the same from both sides."""

from __future__ import annotations

import dataclasses

from ratings.crosstable import Cell, CellKind, Crosstable, Origin, Outcome
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
    table = build([("A", "+2 ABS"), ("B", "-1 ABS")], source="event.h9")
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


def located(table: Crosstable, where: dict[str, tuple[int, str]]) -> Crosstable:
    """``table`` with each named player's cells located as a reader would: (line, column prefix),
    the cell's column ``<prefix><round>`` and its text the builder's token."""
    players = []
    for player in table.players:
        line, prefix = where[player.name]
        cells = tuple(
            dataclasses.replace(c, origin=Origin(line, f"{prefix}{c.round}", f"t{c.round}"))
            for c in player.cells
        )
        players.append(dataclasses.replace(player, cells=cells, line=line))
    return dataclasses.replace(table, players=tuple(players))


def test_a_player_named_twice_in_a_round_is_reported_once_with_the_lines() -> None:
    table = located(
        build([("A", "+3"), ("B", "+3"), ("C", "-1")], source="event.h9"),
        {"A": (11, "r"), "B": (12, "r"), "C": (13, "r")},
    )
    found = [str(p) for p in validate(table)]
    twice = [m for m in found if "paired twice" in m]
    assert twice == [
        "event.h9, line 13, column 'r1': value '1, 2': C: one opponent per round, but 2 players "
        "(1, 2) say they played him (lines 11, 12): player paired twice in a round"
    ]


def test_two_games_in_one_row_and_round_are_reported_once_where_the_second_was_read() -> None:
    table = build([("A", "+2 ABS"), ("B", "-1 ABS")], source="event.h9")
    a = table.players[0]
    game = dataclasses.replace(a.cells[0], origin=Origin(9, "whitePlayer", "A"))
    bye = Cell(1, CellKind.BYE, Outcome.WIN, origin=Origin(14, "player", "A"))
    doubled = dataclasses.replace(a, cells=(game, bye, a.cells[1]))
    found = [
        str(p) for p in validate(dataclasses.replace(table, players=(doubled, table.players[1])))
    ]
    assert found == [
        "event.h9, line 14, column 'player': value 'A': A: one game or bye per player and round; "
        "round 1 already has one on line 9: player twice in a round"
    ]


def test_cells_the_reader_could_not_read_are_left_out() -> None:
    # B's round-1 cell was unreadable; the reader stood in an absence and reported it itself.
    table = build([("A", "+2"), ("B", "ABS")])
    assert validate(table) != []
    assert validate(table, unread={(1, 1)}) == []
