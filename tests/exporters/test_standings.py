"""The standings page's crosstable: each round as a reader of printed crosstables writes it."""

from __future__ import annotations

from exporters.standings import crosstable_grid
from ratings.crosstable import Cell, CellKind, Color, Crosstable, CrosstablePlayer, Outcome

W, D, L = Outcome.WIN, Outcome.DRAW, Outcome.LOSS
GAME, FORFEIT, BYE, ABSENT = CellKind.GAME, CellKind.FORFEIT, CellKind.BYE, CellKind.ABSENT


def player(number: int, name: str, *cells: Cell) -> CrosstablePlayer:
    return CrosstablePlayer(number=number, name=name, cells=cells)


def test_each_round_names_the_opponent_by_the_files_number() -> None:
    # Numbered from 11 in the file, so that a place in the crosstable (0, 1, 2) is not a number.
    crosstable = Crosstable(
        source="cup.trf", format="trf", rounds=3,
        players=(
            player(
                11, "Ann",
                Cell(1, GAME, W, opponent=1, color=Color.WHITE),
                Cell(2, FORFEIT, W, opponent=2, color=Color.BLACK),
                Cell(3, BYE, D),
            ),
            player(
                12, "Bob",
                Cell(1, GAME, L, opponent=0, color=Color.BLACK),
                Cell(2, BYE, W),
                Cell(3, GAME, D, opponent=2, color=Color.WHITE),
            ),
            player(
                13, "Cid",
                Cell(1, ABSENT, L),
                Cell(2, FORFEIT, L, opponent=0, color=Color.WHITE),
                Cell(3, GAME, D, opponent=1, color=Color.BLACK),
            ),
        ),
    )  # fmt: skip
    grid = crosstable_grid(crosstable)
    assert grid.rows() == [
        (11, "Ann", "12w+", "13b+ ff", "bye="),
        (12, "Bob", "11b-", "bye+", "13w="),
        (13, "Cid", "-", "11w- ff", "12b="),
    ]
