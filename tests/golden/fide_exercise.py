"""Reader for the FIDE 2023 tie-break exercise, ``chess_fide_exercise/fide-exercise-2023.csv``.

The exercise was published by FIDE's technical commission on 2024-03-18; the CSV is the transcription
in marceljuenemann/tiebreak (``src/__tests__/testcases/``, commit ab3986e1). One row per player: the
player's number, then one token per round:

* ``+W9``: result (``+`` ``=`` ``-``), colour (``W`` ``B``), opponent number: a game;
* ``-F11``: ``F`` instead of a colour: a forfeit against 11 (``+F9`` won, ``-F11`` lost);
* ``+BYE`` the pairing-allocated bye (a full point), ``=BYE`` a half-point bye the player asked for;
* ``--`` absent, no points.

``expected_values.json`` next to it holds the values after round 5 under the 2023 rules (BH, BH_C1,
SB), transcribed from the same repository's tests.
"""

from __future__ import annotations

import csv
import io
import json
import re
from fractions import Fraction
from pathlib import Path

from ratings.crosstable import Cell, CellKind, Color, Crosstable, CrosstablePlayer, Outcome
from tests.golden import DATA

FOLDER = DATA / "chess_fide_exercise"
CROSSTABLE = FOLDER / "fide-exercise-2023.csv"
EXPECTED = FOLDER / "expected_values.json"

_OUTCOMES = {"+": Outcome.WIN, "=": Outcome.DRAW, "-": Outcome.LOSS}
_TOKEN = re.compile(r"(?P<result>[-+=])(?P<how>[WBF])(?P<opponent>\d+)")


def read_exercise(path: Path = CROSSTABLE) -> Crosstable:
    """The exercise as a crosstable; players in the file's order, numbered as the file numbers them."""
    rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))
    header, body = rows[0], [row for row in rows[1:] if row]
    rounds = len(header) - 1
    numbers = [int(row[0]) for row in body]
    index = {number: i for i, number in enumerate(numbers)}
    players = []
    for line, row in enumerate(body, start=2):
        cells = tuple(_cell(rnd, token.strip(), index) for rnd, token in enumerate(row[1:], 1))
        if len(cells) != rounds:
            raise ValueError(f"{path.name} line {line}: {len(cells)} rounds, not {rounds}")
        players.append(CrosstablePlayer(number=int(row[0]), name=row[0], cells=cells, line=line))
    return Crosstable(
        source=path.name, format="fide-exercise", players=tuple(players), rounds=rounds
    )


def _cell(rnd: int, token: str, index: dict[int, int]) -> Cell:
    if token == "--":
        return Cell(rnd, CellKind.ABSENT, Outcome.LOSS)
    if token == "+BYE":
        return Cell(rnd, CellKind.BYE, Outcome.WIN)
    if token == "=BYE":
        return Cell(rnd, CellKind.REQUESTED_BYE, Outcome.DRAW)
    match = _TOKEN.fullmatch(token)
    if match is None:
        raise ValueError(f"round {rnd}: unknown token {token!r}")
    outcome = _OUTCOMES[match["result"]]
    opponent = index[int(match["opponent"])]
    if match["how"] == "F":
        return Cell(rnd, CellKind.FORFEIT, outcome, opponent)
    color = Color.WHITE if match["how"] == "W" else Color.BLACK
    return Cell(rnd, CellKind.GAME, outcome, opponent, color)


def expected_values(path: Path = EXPECTED) -> dict[str, dict[int, Fraction]]:
    """``{"BH": {player number: value}, "BH_C1": ..., "SB": ...}`` as the JSON file gives them."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    return {
        key: {int(number): Fraction(str(value)) for number, value in raw[key].items()}
        for key in ("BH", "BH_C1", "SB")
    }
