"""Small crosstables for tests, written one token per round.

Tokens: ``+3``/``-3``/``=3`` a game won/lost/drawn against player 3 (1-based), optionally followed
by the colour and handicap (``+3w2``: won with White giving 2 stones); ``F+3``/``F-3`` a forfeit
won/lost; ``BYE`` a pairing bye worth 1 (``BYE=`` worth ½); ``HBYE`` a requested half-point bye,
``ZBYE`` a requested zero-point bye; ``ABS`` an absence worth 0 (``ABS=`` worth ½).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from fractions import Fraction

from ratings.crosstable import Cell, CellKind, Color, Crosstable, CrosstablePlayer, Outcome, System

_GAME = re.compile(r"^(F?)([+=-])(\d+)([wb])?(\d)?$")
_OUTCOMES = {"+": Outcome.WIN, "=": Outcome.DRAW, "-": Outcome.LOSS}
_NO_GAME = {
    "BYE": (CellKind.BYE, Outcome.WIN),
    "BYE=": (CellKind.BYE, Outcome.DRAW),
    "HBYE": (CellKind.REQUESTED_BYE, Outcome.DRAW),
    "ZBYE": (CellKind.REQUESTED_BYE, Outcome.LOSS),
    "ABS": (CellKind.ABSENT, Outcome.LOSS),
    "ABS=": (CellKind.ABSENT, Outcome.DRAW),
}


def cell(round_: int, token: str) -> Cell:
    if token in _NO_GAME:
        kind, outcome = _NO_GAME[token]
        return Cell(round_, kind, outcome)
    match = _GAME.match(token)
    assert match, token
    forfeit, result, opponent, colour, handicap = match.groups()
    return Cell(
        round_,
        CellKind.FORFEIT if forfeit else CellKind.GAME,
        _OUTCOMES[result],
        opponent=int(opponent) - 1,
        color={"w": Color.WHITE, "b": Color.BLACK}.get(colour or ""),
        handicap=int(handicap or 0),
    )


def build(
    rows: Sequence[tuple[str, str]],
    initial: Sequence[int | Fraction] | None = None,
    source: str = "test",
) -> Crosstable:
    """``rows``: (name, space-separated tokens); ``initial``: initial MMS (a McMahon event)."""
    players = tuple(
        CrosstablePlayer(
            number=i + 1,
            name=name,
            cells=tuple(cell(r, t) for r, t in enumerate(tokens.split(), start=1)),
            line=i + 1,
            initial_mms=None if initial is None else Fraction(initial[i]),
        )
        for i, (name, tokens) in enumerate(rows)
    )
    return Crosstable(
        source=source,
        format="test",
        players=players,
        rounds=max(len(p.cells) for p in players),
        system=System.SWISS if initial is None else System.MCMAHON,
    )
