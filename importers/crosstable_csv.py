"""Reader for a plain crosstable typed into a spreadsheet and saved as CSV.

The file is UTF-8 (with or without a BOM), else Windows-1252 (with a warning), separated by ``,``
or ``;`` (whichever the header line uses more), with a header line and one row per player. Its
columns:

* ``no`` (or ``number``, ``Nr``, ``SNo``): the player's number, which the round cells use
  (required, unique);
* ``name`` (required); ``player_id``, ``country``, ``club``, ``title``, ``rating`` (optional);
* ``points`` (optional): the total the sheet shows, checked against the rounds;
* one column per round, ``r1``, ``r2``, ... or ``1``, ``2``, ... (or ``Rd 1``, ``Round 1``),
  numbered from 1 without gaps; a round column in which nobody was paired (all empty or ``-``)
  is not a round (with a warning).

Any other column is an error, so that a misspelt column is not silently ignored; a column without a
heading is allowed (spreadsheets save trailing empty columns) as long as it stays empty. A heading
is read as :mod:`importers.headers` reads it: case, spaces, hyphens, underscores and dots do not
matter, and Swiss-Manager's ``Fed`` and ``Rtg`` are ``country`` and ``rating``. Line endings
may be LF, CRLF or CR; blank rows are skipped.

A round cell, ignoring case and blanks, is one of::

    cell     = "" | "-"                  not paired (absent), no points
             | "+" | "BYE" | "+BYE"      bye given by the pairing, 1 point
             | "=" | "=BYE"              half-point bye (asked for), ½ point
             | "-BYE"                    zero-point bye (asked for), no points
             | opponent [colour] result [forfeit]
    opponent = digits                    the opponent's number
    colour   = "W" | "B"                 the player's colour
    result   = "+" | "=" | "-"           won, drawn, lost
    forfeit  = "F"                       decided without play (won or lost only)

so ``12+`` is a win against number 12, ``7w=`` a draw with White against 7, ``3-F`` a forfeit loss
against 3. Both sides of a pairing must agree: each names the other in the same round with the
opposite result (a double forfeit, ``-F`` or ``+F`` on both sides, is allowed) and, when both give one, the
other colour; the shared check of every crosstable (:func:`ratings.tiebreaks.validation.validate`)
tells, locating each problem by the line and round column of the cell.
"""

from __future__ import annotations

import csv
import io
import re
import typing
from dataclasses import dataclass
from fractions import Fraction

from importers.headers import canonical, closest, fold
from importers.limits import CROSSTABLE_LIMITS
from importers.problems import ProblemLog
from importers.tabular import check_csv_header
from importers.text_bytes import utf8_text
from ratings.crosstable import Cell, CellKind, Color, Crosstable, CrosstablePlayer, Origin, Outcome

__all__ = ["read_crosstable_csv"]

_OPTIONAL_COLUMNS = ("player_id", "country", "club", "title", "rating", "points")
_COLUMNS = ("no", "name", *_OPTIONAL_COLUMNS)
"""The columns besides the rounds, by the names of ``importers.headers``."""
_ROUND_COLUMN = re.compile(r"(?:r|rd|round)?(\d{1,4})", re.ASCII)
"""A round's column, folded: ``r1``, ``1``, ``Rd. 1``, ``Round 1``."""
_GAME = re.compile(
    r"(?P<opponent>\d{1,6})(?P<color>[wb])?(?P<result>[-+=])(?P<forfeit>f)?", re.ASCII
)
_NUMBER = re.compile(r"\d{1,6}", re.ASCII)
_POINTS = re.compile(r"\d{1,6}(?:\.\d{1,6})?", re.ASCII)
_RESULTS = {"+": Outcome.WIN, "=": Outcome.DRAW, "-": Outcome.LOSS}
_BYES = {
    "": (CellKind.ABSENT, Outcome.LOSS),
    "-": (CellKind.ABSENT, Outcome.LOSS),
    "+": (CellKind.BYE, Outcome.WIN),
    "bye": (CellKind.BYE, Outcome.WIN),
    "+bye": (CellKind.BYE, Outcome.WIN),
    "=": (CellKind.REQUESTED_BYE, Outcome.DRAW),
    "=bye": (CellKind.REQUESTED_BYE, Outcome.DRAW),
    "-bye": (CellKind.REQUESTED_BYE, Outcome.LOSS),
}
_GRAMMAR = (
    "an opponent number, optional colour w/b and a result +, = or - with F for a forfeit "
    "(12+, 7w=, 3-F), a bye (+, =, BYE, -BYE), or empty or - when not paired"
)


def _unpaired(cell: _Round | None) -> bool:
    return cell is not None and cell.kind is CellKind.ABSENT


@dataclass(frozen=True, slots=True)
class _Round:
    """One round cell as written, checked on its own."""

    column: str
    text: str
    kind: CellKind
    outcome: Outcome
    opponent: int | None = None
    color: Color | None = None


@dataclass(frozen=True, slots=True)
class _Row:
    line: int
    number: int
    name: str
    fields: dict[str, str]
    rating: int | None
    points: Fraction | None
    rounds: tuple[_Round | None, ...]
    """One entry per round column; None where the cell was not understood."""


def read_crosstable_csv(stream: typing.BinaryIO, source: str) -> Crosstable:
    """Read a crosstable CSV, or raise one InputError listing every problem found."""
    return _Reader(source).read(stream.read())


class _Reader(ProblemLog):
    def __init__(self, source: str) -> None:
        super().__init__(source)

    def read(self, data: bytes) -> Crosstable:
        separator = check_csv_header(data, self.source, CROSSTABLE_LIMITS)
        text = self.decode(data)
        if not text.strip():
            self.problem(
                None, None, None, "a header line and one row per player; the file is empty"
            )
            self.fail()
        records = self.records(text.replace("\r\n", "\n").replace("\r", "\n"), separator)
        header = [name.strip() for name in records[0][1]]
        columns = self.columns(header)
        for line, fields in records[1:]:
            if len(fields) != len(header) and any(field.strip() for field in fields):
                self.problem(
                    line,
                    None,
                    separator.join(fields),
                    f"{len(header)} fields as in the header, not {len(fields)}",
                )
        if self.problems:
            self.fail()
        rows: list[_Row] = []
        for line, values in records[1:]:
            if not any(value.strip() for value in values):
                continue
            cells = {header[i]: value.strip() for i, value in enumerate(values) if header[i]}
            for i, value in enumerate(values):
                if not header[i] and value.strip():
                    self.problem(
                        line, f"column {i + 1}", value, "a heading for a column that holds values"
                    )
            row = self.row(line, cells, columns)
            if row is not None:
                rows.append(row)
        if not rows and not self.problems:
            self.problem(None, None, None, "at least one player row after the header")
        players, unread, rounds = self.players(rows, columns.rounds)
        crosstable = Crosstable(
            source=self.source,
            format="csv",
            players=players,
            rounds=rounds,
            warnings=tuple(self.warnings),
        )
        return self.finish(crosstable, unread)

    def records(self, text: str, separator: str) -> list[tuple[int, list[str]]]:
        """The CSV records of ``text``, each with the line it starts on (a quoted value may span
        lines), read by the standard library's reader; the first record whose quoting is broken
        (text after a closing quote, a quote that never closes) or that holds a value longer
        than the reader takes stops the reading with its line."""
        reader = csv.reader(io.StringIO(text, newline=""), delimiter=separator, strict=True)
        records: list[tuple[int, list[str]]] = []
        start = 1
        try:
            for fields in reader:
                records.append((start, fields))
                start = reader.line_num + 1
        except csv.Error as error:
            if "field limit" in str(error):
                limit = csv.field_size_limit()
                self.problem(start, None, None, f"values of at most {limit:,} characters")
            else:
                self.problem(
                    start,
                    None,
                    None,
                    'a quoted value ("...") followed by the separator or the end of the row',
                )
            self.fail()
        return records

    def decode(self, data: bytes) -> str:
        """The text of the file: UTF-8, else Windows-1252 with a warning (``utf8_text``)."""
        return utf8_text(data, self.source, self.warnings).decode("utf-8")

    # --- header ------------------------------------------------------------------------------

    def columns(self, header: list[str]) -> _Columns:
        seen: dict[str, str] = {}
        number: str | None = None
        name: str | None = None
        optional: dict[str, str] = {}
        rounds: dict[int, str] = {}
        for written in header:
            if not written:
                # Spreadsheets save trailing empty columns; the rows must leave them empty too.
                continue
            key = canonical(written, _COLUMNS) or fold(written)
            round_match = _ROUND_COLUMN.fullmatch(key)
            column = f"r{int(round_match[1])}" if round_match else key
            if column in seen:
                self.problem(1, written, written, "each column once")
                continue
            seen[column] = written
            if key == "no":
                number = written
            elif key == "name":
                name = written
            elif key in _OPTIONAL_COLUMNS:
                optional[key] = written
            elif round_match and int(round_match[1]) > 0:
                rounds[int(round_match[1])] = written
            else:
                known = ", ".join(_COLUMNS)
                suggestion = closest(written, _COLUMNS)
                hint = f"; did you mean {suggestion!r}?" if suggestion else ""
                self.problem(1, written, written, f"a known column ({known}, r1, r2, ...){hint}")
        if number is None:
            self.problem(1, None, None, "a column 'no' (or 'number') with the players' numbers")
        if name is None:
            self.problem(1, None, None, "a column 'name'")
        count = len(rounds)
        for rnd, written in sorted(rounds.items()):
            if rnd > count:
                missing = ", ".join(f"r{n}" for n in range(1, count + 1) if n not in rounds)
                self.problem(
                    1,
                    written,
                    written,
                    f"round columns numbered from 1 without gaps (missing: {missing})",
                )
        return _Columns(
            number or "",
            name or "",
            optional,
            tuple(rounds[rnd] for rnd in sorted(rounds)),
        )

    # --- rows --------------------------------------------------------------------------------

    def row(self, line: int, cells: dict[str, str], columns: _Columns) -> _Row | None:
        number_text = cells[columns.number]
        number: int | None = None
        if _NUMBER.fullmatch(number_text) and int(number_text) > 0:
            number = int(number_text)
        else:
            self.problem(line, columns.number, number_text, "the player's number, 1 or more")
        name = cells[columns.name]
        if not name:
            self.problem(line, columns.name, name, "the player's name")
        fields = {key: cells[written] for key, written in columns.optional.items()}
        rating: int | None = None
        if text := fields.get("rating", ""):
            if _NUMBER.fullmatch(text):
                rating = int(text)
            else:
                self.problem(line, columns.optional["rating"], text, "a rating as a whole number")
        points: Fraction | None = None
        if text := fields.get("points", ""):
            # A spreadsheet set to a European locale writes 2,5.
            if _POINTS.fullmatch(text.replace(",", ".")):
                points = Fraction(text.replace(",", "."))
            else:
                self.problem(line, columns.optional["points"], text, "points such as 3 or 2.5")
        rounds = tuple(self.cell(line, written, cells[written]) for written in columns.rounds)
        if number is None:
            return None
        return _Row(line, number, name, fields, rating, points, rounds)

    def cell(self, line: int, column: str, text: str) -> _Round | None:
        compact = "".join(text.split()).lower()
        if compact in _BYES:
            kind, outcome = _BYES[compact]
            return _Round(column, text, kind, outcome)
        match = _GAME.fullmatch(compact)
        if match is None:
            self.problem(line, column, text, _GRAMMAR)
            return None
        result = match["result"]
        if match["forfeit"] and result == "=":
            self.problem(line, column, text, "a forfeit won (+F) or lost (-F); there is no =F")
            return None
        opponent = int(match["opponent"])
        if opponent == 0:
            self.problem(line, column, text, "an opponent number of 1 or more")
            return None
        color = {"w": Color.WHITE, "b": Color.BLACK}.get(match["color"] or "")
        kind = CellKind.FORFEIT if match["forfeit"] else CellKind.GAME
        return _Round(column, text, kind, _RESULTS[result], opponent, color)

    # --- the crosstable ------------------------------------------------------------------------

    def players(
        self, rows: list[_Row], columns: tuple[str, ...]
    ) -> tuple[tuple[CrosstablePlayer, ...], set[tuple[int, int]], int]:
        """The players in number order, (player index, round) of every cell that could not be
        read (a placeholder stands in for it; its problem is already reported), and the number
        of rounds: a round column in which nobody was paired (every cell empty or ``-``, e.g. a
        sheet prepared for more rounds than were played) is not a round, or it would count as an
        absence for everybody."""
        by_number: dict[int, _Row] = {}
        for row in rows:
            if row.number in by_number:
                self.problem(
                    row.line,
                    None,
                    str(row.number),
                    f"a player number not already used on line {by_number[row.number].line}",
                )
            else:
                by_number[row.number] = row
        ordered = sorted(by_number.values(), key=lambda r: r.number)
        index = {row.number: i for i, row in enumerate(ordered)}
        unpaired = {
            rnd
            for rnd in range(len(columns))
            if ordered and all(_unpaired(row.rounds[rnd]) for row in ordered)
        }
        for rnd in sorted(unpaired):
            self.warn(
                1, columns[rnd], "", "a round column nobody was paired in: not counted as a round"
            )
        rounds = len(columns) - len(unpaired)
        unread: set[tuple[int, int]] = set()
        players: list[CrosstablePlayer] = []
        for position, row in enumerate(ordered):
            cells: list[Cell] = []
            kept = [c for column, c in enumerate(row.rounds) if column not in unpaired]
            for rnd, cell in enumerate(kept, start=1):
                if cell is not None and cell.opponent is not None and cell.opponent not in index:
                    self.problem(
                        row.line,
                        cell.column,
                        cell.text,
                        f"the number of a player in the file; there is no player {cell.opponent}",
                    )
                    cell = None
                if cell is None:
                    unread.add((position, rnd))
                    cells.append(Cell(rnd, CellKind.ABSENT, Outcome.LOSS))
                    continue
                opponent = index[cell.opponent] if cell.opponent is not None else None
                origin = Origin(row.line, cell.column, cell.text)
                cells.append(
                    Cell(rnd, cell.kind, cell.outcome, opponent, cell.color, origin=origin)
                )
            printed: dict[str, Fraction] = {}
            if row.points is not None:
                printed["points"] = row.points
                total = sum((c.outcome.points for c in cells), Fraction(0))
                complete = all((position, rnd) not in unread for rnd in range(1, rounds + 1))
                if complete and total != row.points:
                    self.problem(
                        row.line,
                        "points",
                        row.fields["points"],
                        f"the sum of the rounds, {float(total):g}",
                    )
            players.append(
                CrosstablePlayer(
                    number=row.number,
                    name=row.name,
                    cells=tuple(cells),
                    line=row.line,
                    player_id=row.fields.get("player_id") or None,
                    country=row.fields.get("country") or None,
                    club=row.fields.get("club") or None,
                    rating=row.rating,
                    title=row.fields.get("title") or None,
                    printed=printed,
                )
            )
        return tuple(players), unread, rounds


@dataclass(frozen=True, slots=True)
class _Columns:
    number: str
    name: str
    optional: dict[str, str]
    rounds: tuple[str, ...]
