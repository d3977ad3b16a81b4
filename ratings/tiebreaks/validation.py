"""Consistency of a crosstable: every game must read the same from both sides (SPEC 4.4).

Readers call :func:`validate` after building a crosstable and add what it finds to their own
problems; the tie-break engine refuses a crosstable that fails it.
"""

from __future__ import annotations

from collections import Counter
from typing import Protocol

from ratings.crosstable import Cell, CellKind, Color, Crosstable, CrosstablePlayer, Outcome
from ratings.errors import Problem

_PAIRED = (CellKind.GAME, CellKind.FORFEIT)

# A game over the board gives its two players complementary results.
_GAME_RESULTS = {
    (Outcome.WIN, Outcome.LOSS),
    (Outcome.LOSS, Outcome.WIN),
    (Outcome.DRAW, Outcome.DRAW),
}
# A referee may also score a default as lost (or won) for both (OpenGotha's BOTHLOSE_BYDEF,
# TRF's double forfeit).
_FORFEIT_RESULTS = _GAME_RESULTS | {(Outcome.LOSS, Outcome.LOSS), (Outcome.WIN, Outcome.WIN)}


def _cell_text(cell: Cell) -> str:
    if cell.opponent is None:
        return f"{cell.kind.value} {cell.outcome.value}"
    colour = cell.color.value if cell.color else "?"
    return f"{cell.kind.value} {cell.outcome.value} against #{cell.opponent + 1} ({colour})"


def validate(crosstable: Crosstable) -> list[Problem]:
    """Every inconsistency of ``crosstable``, each naming the file, the player's line and round.

    Finds: cells out of round order or a wrong number of rounds, an opponent index that does not
    exist, a player paired against himself or paired twice in one round, and a game whose two sides
    disagree (one-sided game, result, kind, colour or handicap).
    """
    problems: list[Problem] = []
    players = crosstable.players

    def problem(player: CrosstablePlayer, round_: int | None, value: str, expected: str) -> None:
        where = f"round {round_}" if round_ is not None else "rounds"
        problems.append(
            Problem(crosstable.source, player.line, where, value, f"{player.name}: {expected}")
        )

    for player in players:
        if len(player.cells) != crosstable.rounds:
            problem(
                player,
                None,
                str(len(player.cells)),
                f"one cell per round, {crosstable.rounds} rounds",
            )
        for position, cell in enumerate(player.cells, start=1):
            if cell.round != position:
                problem(player, position, str(cell.round), f"round {position} in this position")
            if cell.kind in _PAIRED and cell.opponent is None:
                problem(player, cell.round, _cell_text(cell), "an opponent for a paired round")
            if cell.kind not in _PAIRED and cell.opponent is not None:
                problem(player, cell.round, _cell_text(cell), "no opponent in a round without game")

    for round_ in range(1, crosstable.rounds + 1):
        paired: Counter[int] = Counter()
        for index, player in enumerate(players):
            paired_cell = _cell(player, round_)
            if paired_cell is None or paired_cell.kind not in _PAIRED:
                continue
            cell = paired_cell
            if cell.opponent is None:
                continue
            if not 0 <= cell.opponent < len(players):
                problem(
                    player,
                    round_,
                    str(cell.opponent + 1),
                    f"an opponent number between 1 and {len(players)}",
                )
                continue
            if cell.opponent == index:
                problem(player, round_, str(cell.opponent + 1), "an opponent other than himself")
                continue
            paired[cell.opponent] += 1
            _check_pair(crosstable, index, cell, problem)
        for opponent, count in sorted(paired.items()):
            if count > 1:
                claimants = [
                    str(i + 1)
                    for i, p in enumerate(players)
                    if (c := _cell(p, round_)) is not None and c.opponent == opponent
                ]
                problem(
                    players[opponent],
                    round_,
                    ", ".join(claimants),
                    f"one opponent per round, but {count} players ({', '.join(claimants)}) "
                    "say they played him: player paired twice in a round",
                )
    return problems


def _cell(player: CrosstablePlayer, round_: int) -> Cell | None:
    if round_ - 1 < len(player.cells):
        return player.cells[round_ - 1]
    return None


def _check_pair(crosstable: Crosstable, index: int, cell: Cell, problem: _Reporter) -> None:
    """Compare one paired cell with its mirror in the opponent's row."""
    assert cell.opponent is not None
    player = crosstable.players[index]
    other = crosstable.players[cell.opponent]
    mirror = _cell(other, cell.round)
    if mirror is None or mirror.opponent != index or mirror.kind not in _PAIRED:
        found = _cell_text(mirror) if mirror is not None else "no cell"
        problem(
            player,
            cell.round,
            _cell_text(cell),
            f"the same game in the row of #{cell.opponent + 1} {other.name}, which has {found}: "
            "one-sided game",
        )
        return
    if index > cell.opponent:
        return  # each pair is compared once, from its first row
    if mirror.kind is not cell.kind:
        problem(
            player,
            cell.round,
            _cell_text(cell),
            f"the same kind of result as #{cell.opponent + 1} {other.name} ({_cell_text(mirror)})",
        )
    allowed = _GAME_RESULTS if cell.kind is CellKind.GAME else _FORFEIT_RESULTS
    if (cell.outcome, mirror.outcome) not in allowed:
        problem(
            player,
            cell.round,
            _cell_text(cell),
            f"a result matching #{cell.opponent + 1} {other.name} ({_cell_text(mirror)}): "
            "the two sides disagree on the result",
        )
    if cell.color is not None and mirror.color is not None and cell.color is mirror.color:
        colour = "White" if cell.color is Color.WHITE else "Black"
        problem(
            player,
            cell.round,
            _cell_text(cell),
            f"opposite colours, but #{cell.opponent + 1} {other.name} also had {colour}",
        )
    if cell.handicap != mirror.handicap:
        problem(
            player,
            cell.round,
            str(cell.handicap),
            f"the handicap #{cell.opponent + 1} {other.name} has ({mirror.handicap})",
        )


class _Reporter(Protocol):
    """Signature of the local ``problem`` callback."""

    def __call__(
        self, player: CrosstablePlayer, round_: int | None, value: str, expected: str
    ) -> None: ...
