"""Consistency of a crosstable: every game must read the same from both sides (SPEC 4.4).

This is the one place where the pairings of a crosstable are checked, for every format: each
reader ends by calling :func:`validate` and reports what it finds with its own problems
(:meth:`importers.problems.ProblemLog.finish`); the tie-break engine refuses a crosstable that
fails it. Problems are located where the reader found the cell (:class:`~ratings.crosstable.Origin`:
the file's line and column, the cell as written), else by the player's line and the round.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Protocol

from ratings.crosstable import Cell, CellKind, Color, Crosstable, CrosstablePlayer, Outcome
from ratings.errors import Problem
from ratings.wording import counted

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


def validate(crosstable: Crosstable, unread: Collection[tuple[int, int]] = ()) -> list[Problem]:
    """Every inconsistency of ``crosstable``, each naming the file, the line and the round.

    Finds: cells out of round order or a wrong number of rounds; a player more than once in a
    round, either way a file can say it (two games or byes in his own row, or named as opponent by
    several players); an opponent index that does not exist, a player paired against himself, and
    a game whose two sides disagree (one-sided game, result, kind, colour or handicap).

    ``unread`` holds (player index, round) of cells the reader could not read and stood in for:
    the reader has reported them, so they are left out here, on either side of a game.
    """
    problems: list[Problem] = []
    skipped = frozenset(unread)

    def problem(
        player: CrosstablePlayer, round_: int | None, value: str, expected: str, cell: Cell | None
    ) -> None:
        column = cell.origin.column if cell is not None and cell.origin is not None else None
        where = column or (f"round {round_}" if round_ is not None else "rounds")
        line = _line(player, cell)
        problems.append(
            Problem(crosstable.source, line, where, value, f"{player.name}: {expected}")
        )

    rounds_of = [_by_round(player) for player in crosstable.players]
    for index, rounds in enumerate(rounds_of):
        _check_rows(crosstable, index, rounds, skipped, problem)
    for round_ in range(1, crosstable.rounds + 1):
        _check_round(crosstable, round_, rounds_of, skipped, problem)
    return problems


def _check_rows(
    crosstable: Crosstable,
    index: int,
    rounds: dict[int, list[Cell]],
    skipped: frozenset[tuple[int, int]],
    problem: _Reporter,
) -> None:
    """One player's own row: a cell per round in round order, an opponent exactly where paired."""
    player = crosstable.players[index]
    doubled = False
    for round_, cells in rounds.items():
        for cell in cells[1:]:
            doubled = True
            line = _line(player, cells[0])
            problem(
                player,
                round_,
                _written(cell, _cell_text(crosstable, cell)),
                f"one game or bye per player and round; round {round_} already has one"
                + (f" on line {line}" if line is not None else "")
                + ": player twice in a round",
                cell,
            )
    if not doubled:
        _check_round_order(crosstable, player, problem)
    for cell in player.cells:
        if (index, cell.round) in skipped:
            continue
        if cell.kind in _PAIRED and cell.opponent is None:
            text = _written(cell, _cell_text(crosstable, cell))
            problem(player, cell.round, text, "an opponent for a paired round", cell)
        if cell.kind not in _PAIRED and cell.opponent is not None:
            text = _written(cell, _cell_text(crosstable, cell))
            problem(player, cell.round, text, "no opponent in a round without game", cell)


def _check_round_order(
    crosstable: Crosstable, player: CrosstablePlayer, problem: _Reporter
) -> None:
    if len(player.cells) != crosstable.rounds:
        problem(
            player,
            None,
            str(len(player.cells)),
            f"one cell per round, {counted(crosstable.rounds, 'round')}",
            None,
        )
    for position, cell in enumerate(player.cells, start=1):
        if cell.round != position:
            problem(player, position, str(cell.round), f"round {position} in this position", None)


def _check_round(
    crosstable: Crosstable,
    round_: int,
    rounds_of: list[dict[int, list[Cell]]],
    skipped: frozenset[tuple[int, int]],
    problem: _Reporter,
) -> None:
    """One round across the field: opponents that exist, are not oneself, agree, and are unique."""
    players = crosstable.players
    claims: dict[int, list[tuple[int, Cell]]] = {}
    for index, player in enumerate(players):
        for cell in rounds_of[index].get(round_, ()):
            if cell.kind not in _PAIRED or cell.opponent is None or (index, round_) in skipped:
                continue
            if not 0 <= cell.opponent < len(players):
                problem(
                    player,
                    round_,
                    str(cell.opponent + 1),
                    f"an opponent number between 1 and {len(players)}",
                    cell,
                )
                continue
            if cell.opponent == index:
                problem(
                    player,
                    round_,
                    str(_number(crosstable, cell.opponent)),
                    "an opponent other than himself",
                    cell,
                )
                continue
            claims.setdefault(cell.opponent, []).append((index, cell))
            mirrors = rounds_of[cell.opponent].get(round_, [])
            if (cell.opponent, round_) not in skipped:
                _check_pair(crosstable, index, cell, mirrors, problem)
    for opponent, found in sorted(claims.items()):
        if len(found) < 2:
            continue
        numbers = ", ".join(str(players[i].number) for i, _ in found)
        lines = [_line(players[i], cell) for i, cell in found]
        shown = (
            f" (lines {', '.join(str(line) for line in lines)})"
            if all(line is not None for line in lines)
            else ""
        )
        own = rounds_of[opponent].get(round_, [None])[0]
        problem(
            players[opponent],
            round_,
            numbers,
            f"one opponent per round, but {len(found)} players ({numbers}) say they played "
            f"him{shown}: player paired twice in a round",
            own,
        )


def _by_round(player: CrosstablePlayer) -> dict[int, list[Cell]]:
    found: dict[int, list[Cell]] = {}
    for cell in player.cells:
        found.setdefault(cell.round, []).append(cell)
    return found


def _written(cell: Cell, otherwise: str) -> str:
    """The cell as the file wrote it, when the reader kept it; else ``otherwise``."""
    if cell.origin is not None and cell.origin.text is not None:
        return cell.origin.text
    return otherwise


def _line(player: CrosstablePlayer, cell: Cell | None) -> int | None:
    if cell is not None and cell.origin is not None and cell.origin.line is not None:
        return cell.origin.line
    return player.line


def _cell_text(crosstable: Crosstable, cell: Cell) -> str:
    if cell.opponent is None:
        return f"{cell.kind.value} {cell.outcome.value}"
    colour = cell.color.value if cell.color else "?"
    number = _number(crosstable, cell.opponent)
    return f"{cell.kind.value} {cell.outcome.value} against #{number} ({colour})"


def _number(crosstable: Crosstable, index: int) -> int:
    """The number the file gives the player at ``index`` (index + 1 when there is none)."""
    if 0 <= index < len(crosstable.players):
        return crosstable.players[index].number
    return index + 1


def _described(crosstable: Crosstable, player: CrosstablePlayer, cell: Cell) -> str:
    """A cell for a message about another one: as written and where, else in words."""
    if cell.origin is not None and cell.origin.text is not None:
        return f"{cell.origin.text!r} on line {_line(player, cell)}"
    return _cell_text(crosstable, cell)


def _check_pair(
    crosstable: Crosstable,
    index: int,
    cell: Cell,
    mirrors: list[Cell],
    problem: _Reporter,
) -> None:
    """Compare one paired cell with its mirror in the opponent's row."""
    assert cell.opponent is not None
    player = crosstable.players[index]
    other = crosstable.players[cell.opponent]
    number = other.number
    mirror = next((m for m in mirrors if m.opponent == index), mirrors[0] if mirrors else None)
    text = _written(cell, _cell_text(crosstable, cell))
    if mirror is None or mirror.opponent != index or mirror.kind not in _PAIRED:
        found = _described(crosstable, other, mirror) if mirror is not None else "no cell"
        problem(
            player,
            cell.round,
            text,
            f"the same game in the row of #{number} {other.name}, which has {found}: "
            "one-sided game",
            cell,
        )
        return
    if index > cell.opponent:
        return  # each pair is compared once, from its first row
    mirrored = _described(crosstable, other, mirror)
    if mirror.kind is not cell.kind:
        problem(
            player,
            cell.round,
            text,
            f"the same kind of result as #{number} {other.name} ({mirrored})",
            cell,
        )
    allowed = _GAME_RESULTS if cell.kind is CellKind.GAME else _FORFEIT_RESULTS
    if (cell.outcome, mirror.outcome) not in allowed:
        problem(
            player,
            cell.round,
            text,
            f"a result matching #{number} {other.name} ({mirrored}): "
            "the two sides disagree on the result",
            cell,
        )
    if cell.color is not None and mirror.color is not None and cell.color is mirror.color:
        colour = "White" if cell.color is Color.WHITE else "Black"
        problem(
            player,
            cell.round,
            text,
            f"opposite colours, but #{number} {other.name} also had {colour} ({mirrored})",
            cell,
        )
    if cell.handicap != mirror.handicap:
        problem(
            player,
            cell.round,
            _written(cell, str(cell.handicap)),
            f"the handicap #{number} {other.name} has ({mirror.handicap})",
            cell,
        )


class _Reporter(Protocol):
    """Signature of the local ``problem`` callback."""

    def __call__(
        self,
        player: CrosstablePlayer,
        round_: int | None,
        value: str,
        expected: str,
        cell: Cell | None,
    ) -> None: ...
