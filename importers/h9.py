"""Reader for EGD ``.h9`` result files (European Go Database), as OpenGotha and other Go pairing
programs write them.

Layout (OpenGotha's ``ExternalDocument.generateH9File`` is the reference writer)::

    ; CL[A]                                    header tags, "; KEY[value]" (or "; KEY=value")
    ; EV[Tournoi de Juvisy]                    EV (or T) event name, DT (or DATE) "start,end"
    ; DT[2019-10-26,2019-10-28]
    ; Pl Name                  Rk Co Club  MMS  SOSSOSOS     column header: criteria in 5 columns
       1 Minieri Davide        3D FR 75Ju   36  128  503 0    2+/w0    3+/b0 ...

* The place (first column) is blank when the player shares the place of the line above.
* Opponent numbers are LINE numbers (the player's position in the file), not printed places.
* A round cell is ``<opponent><result>[<type><colour><handicap>]``: result ``+ - =``, type ``/``
  for a game or ``!`` for a result by default (a forfeit), colour ``w``/``b`` (``?`` unknown),
  handicap stones. ``0+``, ``0-``, ``0=`` are rounds without opponent, worth what OpenGotha gives
  for them in the event's main score: ``0+`` is read as a BYE with a point, ``0=`` and ``0-`` as an
  absence with ½ or no point.
* The criteria values are kept in ``CrosstablePlayer.printed`` under the header's names (``MMS``,
  ``SOS``, ``SOSOS``, ``NBW``, ...), the place under ``Pl``. OpenGotha pads the list to four values
  with ``0`` and cuts each value to four characters; the padding is ignored.
* OpenGotha writes ISO-8859-15, which has no "½", so ``408?`` is 408.5; valid UTF-8 (with ``½``) is
  read as UTF-8.

An h9 file does not give initial McMahon scores: players keep their rank and the tie-break policy
supplies the event's McMahon scale (:class:`ratings.go.McMahonScale`).
"""

from __future__ import annotations

import re
import typing
from dataclasses import dataclass, field
from datetime import date
from fractions import Fraction

from importers.plaintext import decode, half_number, is_whole_number, read_bytes
from importers.problems import ProblemLog
from ratings.crosstable import (
    Cell,
    CellKind,
    Color,
    Crosstable,
    CrosstablePlayer,
    Origin,
    Outcome,
    System,
)
from ratings.errors import InputError

__all__ = ["read_h9"]

_TAG = re.compile(r"^;\s*([A-Za-z]{1,8})\s*(?:\[(.*)\]|=(.*))\s*$")
_COLUMNS = re.compile(r"^;\s*Pl\b")
_RANK = re.compile(r"^\d{1,2}[kdpKDP]$", re.ASCII)
_CELL = re.compile(r"^(\d+)([+\-=])(?:([/!])([wbWB?])(\d{1,2}))?$", re.ASCII)
_LOOSE_CELL = re.compile(r"^(\d+)(\D)(.*)$", re.ASCII)
_OUTCOMES = {"+": Outcome.WIN, "-": Outcome.LOSS, "=": Outcome.DRAW}
_COLOURS = {"w": Color.WHITE, "b": Color.BLACK}


@dataclass
class _Row:
    line: int
    number: int
    name: str
    rank: str
    country: str | None
    club: str | None
    printed: dict[str, Fraction]
    cells: list[Cell] = field(default_factory=list)


def read_h9(stream: typing.BinaryIO, source: str) -> Crosstable:
    """Read an EGD h9 file; raise :class:`InputError` listing every problem found."""
    data, problems = read_bytes(stream, source)
    if problems:
        raise InputError(problems)
    lines, problems = decode(data, source, "iso8859_15")
    if problems:
        raise InputError(problems)
    return _Reader(source).read(lines)


class _Reader(ProblemLog):
    def __init__(self, source: str) -> None:
        super().__init__(source)
        self.tags: dict[str, str] = {}
        self.criteria: list[str] = []
        self.rows: list[_Row] = []

    def read(self, lines: list[str]) -> Crosstable:
        for number, text in enumerate(lines, start=1):
            if not text.strip():
                continue
            if text.lstrip().startswith(";"):
                self.header(number, text)
            else:
                self.player(number, text)
        if not self.rows:
            self.problem(None, None, None, "at least one player line")
            raise InputError(self.problems)
        rounds = max(len(row.cells) for row in self.rows)
        if rounds == 0:
            self.problem(None, None, None, "round cells after the player columns")
        for row in self.rows:
            if len(row.cells) < rounds:
                self.problem(
                    row.line,
                    f"round {len(row.cells) + 1}",
                    None,
                    f"{rounds} round cells as on the other lines, found {len(row.cells)} "
                    "(truncated line?)",
                )
                # Pad so the checks below see a full row; the truncation is already reported.
                row.cells.extend(
                    Cell(r, CellKind.ABSENT, Outcome.LOSS)
                    for r in range(len(row.cells) + 1, rounds + 1)
                )
        start, end = self.dates()
        crosstable = Crosstable(
            source=self.source,
            format="h9",
            players=tuple(
                CrosstablePlayer(
                    number=row.number,
                    name=row.name,
                    cells=tuple(row.cells),
                    line=row.line,
                    country=row.country,
                    club=row.club,
                    rank=row.rank,
                    printed=row.printed,
                )
                for row in self.rows
            ),
            rounds=rounds,
            system=System.MCMAHON if "MMS" in self.criteria else System.SWISS,
            name=self.tags.get("EV") or self.tags.get("T"),
            start_date=start,
            end_date=end,
            parameters={**self.tags, "criteria": ",".join(self.criteria)},
        )
        return self.finish(crosstable)

    def header(self, number: int, text: str) -> None:
        if _COLUMNS.match(text):
            club = text.find("Club")
            rest = text[club + 4 :].rstrip() if club >= 0 else ""
            # OpenGotha right-aligns each criterion name in 5 columns with no separator.
            chunks = [rest[i : i + 5].strip() for i in range(0, len(rest), 5)]
            if len(rest) % 5 == 0 and all(c and " " not in c for c in chunks):
                self.criteria = chunks
            else:
                self.criteria = rest.split()
            return
        match = _TAG.match(text)
        if match:
            key = match.group(1).upper()
            self.tags[key] = (
                match.group(2) if match.group(2) is not None else match.group(3)
            ).strip()

    def player(self, number: int, text: str) -> None:
        tokens = text.split()
        first = 1 if is_whole_number(tokens[0]) else 0
        place = int(tokens[0]) if first else None
        rank_at = next(
            (i for i in range(first + 1, len(tokens)) if _RANK.match(tokens[i])),
            None,
        )
        if rank_at is None or rank_at + 2 >= len(tokens):
            self.problem(
                number,
                "Rk",
                text.strip()[:40],
                "a player line: place, name, rank (such as 3d or 10k), country, club, values and "
                "round cells (truncated line?)",
            )
            return
        country, club = tokens[rank_at + 1], tokens[rank_at + 2]
        row = _Row(
            line=number,
            number=len(self.rows) + 1,
            name=" ".join(tokens[first:rank_at]),
            rank=tokens[rank_at].lower(),
            country=None if country.upper() == "XX" else country,
            club=None if club.lower() == "xxxx" else club,
            printed={} if place is None else {"Pl": Fraction(place)},
        )
        self.rows.append(row)
        rest = tokens[rank_at + 3 :]
        values: list[Fraction] = []
        while rest and (value := half_number(rest[0])) is not None:
            values.append(value)
            rest.pop(0)
        if len(values) < len(self.criteria):
            self.problem(
                number,
                self.criteria[len(values)],
                None,
                f"a value for each of {', '.join(self.criteria)} (truncated line?)",
            )
        row.printed.update(zip(self.criteria, values, strict=False))
        for token in rest:
            row.cells.append(self.cell(number, len(row.cells) + 1, token))

    def cell(self, line: int, round_: int, token: str) -> Cell:
        column = f"round {round_}"
        origin = Origin(line, None, token)
        match = _CELL.match(token)
        if match is None:
            loose = _LOOSE_CELL.match(token)
            if loose is None:
                expected = "a round cell: opponent line number, result + - or =, then / or !, w or b, handicap"
            elif loose.group(2) not in _OUTCOMES:
                expected = f"a result + - or = after the opponent number, not {loose.group(2)!r}"
            else:
                expected = (
                    "/ (game) or ! (by default), colour w or b, handicap digit after the result"
                )
            self.problem(line, column, token, expected)
            return Cell(round_, CellKind.ABSENT, Outcome.LOSS, origin=origin)
        opponent, result, kind, colour, handicap = match.groups()
        outcome = _OUTCOMES[result]
        if int(opponent) == 0:
            no_game = CellKind.BYE if outcome is Outcome.WIN else CellKind.ABSENT
            return Cell(round_, no_game, outcome, origin=origin)
        return Cell(
            round_,
            CellKind.FORFEIT if kind == "!" else CellKind.GAME,
            outcome,
            opponent=int(opponent) - 1,
            color=_COLOURS.get((colour or "").lower()),
            handicap=int(handicap or 0),
            origin=origin,
        )

    def dates(self) -> tuple[date | None, date | None]:
        key = "DT" if "DT" in self.tags else "DATE" if "DATE" in self.tags else None
        if key is None or not self.tags[key]:
            return None, None
        parts = [p.strip() for p in self.tags[key].split(",")]
        try:
            start = date.fromisoformat(parts[0])
            end = date.fromisoformat(parts[-1])
        except ValueError:
            self.problem(None, key, self.tags[key], "dates as YYYY-MM-DD or YYYY-MM-DD,YYYY-MM-DD")
            return None, None
        if end < start:
            self.problem(None, key, self.tags[key], "an end date on or after the start date")
        return start, end
