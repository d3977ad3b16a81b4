"""Reader for the result list printed by the MacMahon program (layout of seed ``000``).

Seed 000 explains a line of the list of the Hannover fair tournament 2006::

    Pl Name                  Str Cl  MMS    1    2    3    4    5  Pt  SOS   SOSOS
     1 Bao Yun               7d Bei  43    8+   3+   5+   2+   4+  5   205   1023½

* ``Pl``: place, and at the same time the player's number in the list; blank when the player
  shares the place above, yet lines are still numbered one by one. Opponent numbers are these line
  numbers.
* ``Name`` (possibly shortened, may contain blanks), ``Str`` strength (``7d``, ``12k``), ``Cl`` the
  first three characters of the club (may be missing), ``MMS`` the McMahon score after the last
  round.
* ``1`` … ``n``: one cell per round, the opponent's number followed by ``+`` won, ``-`` lost or
  ``=`` draw (jigo). The seed shows no round without opponent; such a round is read as in EGD
  files: ``0+`` a bye with a point, ``0=`` / ``0-`` an absence with ½ / no point (seed 000: "wenn
  ein Spieler aussetzt, wird sein MMS um einen halben Punkt erhöht").
* ``Pt`` points from games, then the tie-break columns the header names (``SOS``, ``SOSOS``), kept
  in ``CrosstablePlayer.printed`` with ``MMS`` and ``Pt``. Values may end in ``½``.

Lines before the header are titles (the first one names the event); blank lines are skipped. The
initial McMahon score is the printed MMS minus the points of every round, and ``Pt`` must equal the
points from games. Text is UTF-8, or Windows-1252 when it is not valid UTF-8.
"""

from __future__ import annotations

import re
import typing
from dataclasses import dataclass
from fractions import Fraction

from importers.plaintext import decode, half_number, is_whole_number, read_bytes
from importers.problems import ProblemLog
from ratings.crosstable import Cell, CellKind, Crosstable, CrosstablePlayer, Origin, Outcome, System
from ratings.errors import InputError

__all__ = ["read_macmahon"]

_HEADER = re.compile(r"^\s*Pl\.?\s+Name\b", re.IGNORECASE)
_RANK = re.compile(r"^\d{1,2}[kdpKDP]$", re.ASCII)
_CELL = re.compile(r"^(\d+)([+\-=])$", re.ASCII)
_OUTCOMES = {"+": Outcome.WIN, "-": Outcome.LOSS, "=": Outcome.DRAW}


@dataclass(frozen=True, slots=True)
class _Layout:
    rounds: int
    trailing: tuple[str, ...]
    """Column names after the rounds (``Pt``, ``SOS``, ``SOSOS``)."""
    name_column: int
    """Character position of ``Name`` in the header: a line with nothing before it has no place."""


def read_macmahon(stream: typing.BinaryIO, source: str) -> Crosstable:
    """Read a MacMahon program result list; raise :class:`InputError` with every problem found."""
    data, problems = read_bytes(stream, source)
    if problems:
        raise InputError(problems)
    lines, problems = decode(data, source, "cp1252")
    if problems:
        raise InputError(problems)
    return _Reader(source).read(lines)


class _Reader(ProblemLog):
    def __init__(self, source: str) -> None:
        super().__init__(source)
        self.players: list[CrosstablePlayer] = []

    def read(self, lines: list[str]) -> Crosstable:
        header_at = next((i for i, line in enumerate(lines) if _HEADER.match(line)), None)
        if header_at is None:
            self.problem(None, None, None, "a header line 'Pl Name Str Cl MMS 1 2 … Pt SOS SOSOS'")
            raise InputError(self.problems)
        layout = self.layout(header_at + 1, lines[header_at])
        titles = [line.strip() for line in lines[:header_at] if line.strip()]
        for number, text in enumerate(lines[header_at + 1 :], start=header_at + 2):
            if text.strip():
                self.player(number, text, layout)
        if not self.players:
            self.problem(None, None, None, "at least one player line after the header")
        crosstable = Crosstable(
            source=self.source,
            format="macmahon",
            players=tuple(self.players),
            rounds=layout.rounds,
            system=System.MCMAHON,
            name=titles[0] if titles else None,
        )
        if self.problems:
            # A line that could not be read shifts the numbers the cells name: check the games
            # only of a list read without problems.
            raise InputError(self.problems)
        return self.finish(crosstable)

    def layout(self, number: int, header: str) -> _Layout:
        names = header.replace("Pl.", "Pl").replace("Cl.", "Cl").split()
        rounds = 0
        while str(rounds + 1) in names:
            rounds += 1
        last_round = names.index(str(rounds)) if rounds else names.index("Name")
        trailing = tuple(names[last_round + 1 :])
        if rounds == 0 or "MMS" not in names or not trailing or trailing[0] != "Pt":
            self.problem(
                number,
                None,
                header.strip(),
                "columns Pl Name Str Cl MMS, the rounds 1 2 …, then Pt and the tie-breaks",
            )
            raise InputError(self.problems)
        return _Layout(rounds, trailing, header.find("Name"))

    def player(self, number: int, text: str, layout: _Layout) -> None:
        tokens = text.split()
        if text[: layout.name_column].strip():
            place = tokens.pop(0)
            if not is_whole_number(place):
                self.problem(number, "Pl", place, "a place number or a blank")
        # Left to right: name up to the strength, the club unless the MMS follows at once.
        rank_at = next((i for i in range(1, len(tokens)) if _RANK.match(tokens[i])), None)
        if rank_at is None:
            self.problem(
                number, "Str", text.strip()[:40], "a name then a strength such as 7d or 12k"
            )
            return
        name, rank, rest = " ".join(tokens[:rank_at]), tokens[rank_at], tokens[rank_at + 1 :]
        club = rest.pop(0) if rest and half_number(rest[0]) is None else None
        needed = 1 + layout.rounds + len(layout.trailing)
        if len(rest) != needed:
            self.problem(
                number,
                None,
                text.strip()[:40],
                f"after the club: MMS, {layout.rounds} round cells, {' '.join(layout.trailing)}; "
                f"found {len(rest)} columns instead of {needed}"
                + (" (truncated line?)" if len(rest) < needed else ""),
            )
            return
        printed: dict[str, Fraction] = {}
        values = (rest[0], *rest[1 + layout.rounds :])
        for column, value_text in zip(("MMS", *layout.trailing), values, strict=True):
            value = half_number(value_text)
            if value is None:
                self.problem(number, column, value_text, "a number such as 12 or 12½")
            else:
                printed[column] = value
        cells = [self.cell(number, r, t) for r, t in enumerate(rest[1 : 1 + layout.rounds], 1)]
        points = sum((c.outcome.points for c in cells if c.opponent is not None), Fraction(0))
        if "Pt" in printed and printed["Pt"] != points:
            self.problem(
                number, "Pt", str(printed["Pt"]), f"the points of the round cells ({points})"
            )
        initial = None
        if "MMS" in printed:
            # Seed 000: the MMS grows by the points of every round, a missed round included.
            initial = printed["MMS"] - sum((c.outcome.points for c in cells), Fraction(0))
        self.players.append(
            CrosstablePlayer(
                number=len(self.players) + 1,
                name=name,
                cells=tuple(cells),
                line=number,
                club=club,
                rank=rank.lower(),
                initial_mms=initial,
                printed=printed,
            )
        )

    def cell(self, line: int, round_: int, token: str) -> Cell:
        origin = Origin(line, None, token)
        match = _CELL.match(token)
        if match is None:
            self.problem(
                line,
                str(round_),
                token,
                "a round cell: opponent number followed by + (won), - (lost) or = (jigo)",
            )
            return Cell(round_, CellKind.ABSENT, Outcome.LOSS, origin=origin)
        opponent, result = int(match.group(1)), _OUTCOMES[match.group(2)]
        if opponent == 0:
            kind = CellKind.BYE if result is Outcome.WIN else CellKind.ABSENT
            return Cell(round_, kind, result, origin=origin)
        return Cell(round_, CellKind.GAME, result, opponent=opponent - 1, origin=origin)
