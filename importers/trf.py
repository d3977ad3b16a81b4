"""Reader for FIDE Tournament Report Files, TRF16.

The layout is the one of the FIDE "Data Exchange Format" for tournament reports as revised in 2016
(TRF16). A file is a list of records, one per line; the first three characters name the record. This
reader uses:

* ``001`` player records, in fixed columns (1-based, inclusive)::

      1-3   001            58-68  FIDE id
      5-8   start rank     70-79  birth date
      10    sex            81-84  points
      11-13 title          86-89  rank
      15-47 name
      49-52 FIDE rating
      54-56 federation

  followed by one 10-character block per round, round ``r`` at columns ``92 + 10 (r - 1)`` onwards:
  opponent start rank in 4 columns (``0000`` or blank for none), colour one column later (``w``,
  ``b``, ``-`` or blank), result two columns later.
* ``012`` name, ``022`` city, ``032`` federation, ``042`` start date, ``052`` end date, ``062``
  number of players, ``092`` type, ``102`` chief arbiter, ``122`` time control, and the ``XXR``
  (number of rounds) and ``XXS`` (scoring system) extensions that pairing programs read and write.
  Other records (teams, arbiters, round dates, pairing-program settings) are skipped.

How result codes map onto the crosstable model (letters in either case):

* with an opponent: ``1``, ``=``, ``0`` and ``W``, ``D``, ``L`` are games won, drawn, lost;
  ``+`` and ``-`` are forfeits won and lost. Bye codes with an opponent are an error.
* without an opponent (``0000`` or blank): ``U`` (pairing-allocated bye) and ``F`` (full-point bye)
  are BYE with 1 point; ``H`` is a REQUESTED_BYE with ½ point, ``Z`` one with 0 points; a blank
  result is ABSENT. ``+`` and ``-`` are read as BYE and ABSENT, the way programs wrote byes and
  absences before TRF16 added ``U`` and ``Z``. Game results without an opponent are an error.

``W D L`` mark games played over the board that FIDE does not rate (because of the time control, for
example). FIDE's rated status is not ours, so they are games for tie-breaks and for our rating. A
full-point bye ``F`` is read like the pairing-allocated ``U``: a full point without play is not a
voluntarily unplayed round in the FIDE 2023 tie-break rules, which is what REQUESTED_BYE stands for.
The points and rank columns are kept in ``printed`` (``"points"``, ``"rank"``); the points must
equal the sum of the rounds unless an ``XXS`` record changes the scoring.

Rounds: the crosstable has as many rounds as the last round in which anybody was paired. Blocks
after that round can only hold byes announced for a round not yet paired (pairing programs read them
that way) and are left out; the ``XXR`` number, when given, is kept as
``parameters["rounds_planned"]``.

Encoding: TRF16 does not name one. The file is read as UTF-8 (a BOM is ignored); if it is not valid
UTF-8 it is read as Windows-1252, the code page of the programs that write most TRF files. Bytes
that neither can read, and control characters, are reported. Columns count characters, not bytes.

Both sides of every pairing must agree: same round, each naming the other, complementary results
(a game won against one lost, a draw against a draw, a forfeit won or lost against its opposite, or a
double forfeit) and different colours. The shared check of every crosstable
(:func:`ratings.tiebreaks.validation.validate`) tells, locating each problem by the line and round
columns of the block.
"""

from __future__ import annotations

import re
import typing
from dataclasses import dataclass
from datetime import date
from fractions import Fraction

from importers.problems import ProblemLog
from ratings.crosstable import (
    Cell,
    CellKind,
    Color,
    Crosstable,
    CrosstablePlayer,
    Origin,
    Outcome,
)

__all__ = ["read_trf"]

_FIRST_ROUND_COLUMN = 92
"""1-based column where round 1's opponent field starts; each round takes 10 columns."""
_ROUND_WIDTH = 10

_GAME_CODES = {
    "1": Outcome.WIN,
    "=": Outcome.DRAW,
    "0": Outcome.LOSS,
    "W": Outcome.WIN,
    "D": Outcome.DRAW,
    "L": Outcome.LOSS,
}
_FORFEIT_CODES = {"+": Outcome.WIN, "-": Outcome.LOSS}
_UNPAIRED_CODES = {
    "U": (CellKind.BYE, Outcome.WIN),
    "F": (CellKind.BYE, Outcome.WIN),
    "+": (CellKind.BYE, Outcome.WIN),
    "H": (CellKind.REQUESTED_BYE, Outcome.DRAW),
    "Z": (CellKind.REQUESTED_BYE, Outcome.LOSS),
    " ": (CellKind.ABSENT, Outcome.LOSS),
    "-": (CellKind.ABSENT, Outcome.LOSS),
}
_HEADER_KEYS = {
    "012": "name",
    "022": "city",
    "032": "federation",
    "092": "type",
    "102": "chief_arbiter",
    "122": "time_control",
}
_RECORD = re.compile(r"[0-9A-Za-z]{3}(?: |$)")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_DATE_YEAR_FIRST = re.compile(r"(\d{4})[/.-](\d{1,2})[/.-](\d{1,2})", re.ASCII)
_DATE_DAY_FIRST = re.compile(r"(\d{1,2})\.(\d{1,2})\.(\d{4})", re.ASCII)
_POINTS = re.compile(r"\d{1,4}(?:\.\d{1,4})?", re.ASCII)


@dataclass(frozen=True, slots=True)
class _Block:
    """One round of a 001 record, checked on its own."""

    round: int
    opponent: int | None
    color: Color | None
    code: str
    """Result code in upper case; a blank result is ``" "``."""
    text: str

    @property
    def kind(self) -> CellKind:
        if self.opponent is None:
            return _UNPAIRED_CODES[self.code][0]
        return CellKind.FORFEIT if self.code in _FORFEIT_CODES else CellKind.GAME

    @property
    def outcome(self) -> Outcome:
        if self.opponent is None:
            return _UNPAIRED_CODES[self.code][1]
        if self.code in _FORFEIT_CODES:
            return _FORFEIT_CODES[self.code]
        return _GAME_CODES[self.code]


@dataclass(frozen=True, slots=True)
class _Entry:
    """A 001 record with its fields checked; ``blocks`` holds None where a round block was bad."""

    line: int
    rank: int
    name: str
    title: str | None
    rating: int | None
    federation: str | None
    fide_id: str | None
    points: Fraction | None
    points_text: str
    place: int | None
    blocks: tuple[_Block | None, ...]


def read_trf(stream: typing.BinaryIO, source: str) -> Crosstable:
    """Read a TRF16 file into a crosstable, or raise one InputError listing every problem found."""
    reader = _Reader(source)
    return reader.read(stream.read())


def _columns(first: int, last: int) -> str:
    return f"{first}-{last}" if first != last else str(first)


def _round_columns(rnd: int) -> str:
    first = _FIRST_ROUND_COLUMN + _ROUND_WIDTH * (rnd - 1)
    return f"round {rnd} (columns {first}-{first + 7})"


def _field(line: str, first: int, last: int) -> str:
    """Characters ``first`` to ``last`` of ``line``, 1-based and inclusive as TRF16 counts."""
    return line[first - 1 : last]


class _Reader(ProblemLog):
    def __init__(self, source: str) -> None:
        super().__init__(source)

    # --- text --------------------------------------------------------------------------------

    def decode(self, data: bytes) -> str | None:
        if data.startswith(b"\xef\xbb\xbf"):
            data = data[3:]
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            pass
        try:
            return data.decode("cp1252")
        except UnicodeDecodeError as error:
            # Only five byte values have no meaning in Windows-1252; name the first one found.
            before = data[: error.start]
            line = before.count(b"\n") + 1 if b"\n" in before else before.count(b"\r") + 1
            start = max(before.rfind(b"\n"), before.rfind(b"\r")) + 1
            self.problem(
                line,
                f"character {error.start - start + 1}",
                data[error.start : error.end].hex(),
                "text in UTF-8 or Windows-1252",
            )
            return None

    # --- records -----------------------------------------------------------------------------

    def read(self, data: bytes) -> Crosstable:
        text = self.decode(data)
        if text is None:
            self.fail()
        if not text.strip():
            self.problem(
                None, None, None, "a TRF file with player records (001); the file is empty"
            )
            self.fail()

        entries: list[_Entry] = []
        headers: dict[str, str] = {}
        dates: dict[str, tuple[int, date, str]] = {}
        players_line: tuple[int, int] | None = None
        rounds_line: tuple[int, int] | None = None
        scoring_given = False
        for number, line in enumerate(_LINE_BREAK.split(text), start=1):
            if not line.strip():
                continue
            control = _CONTROL.search(line)
            if control:
                self.problem(
                    number,
                    f"character {control.start() + 1}",
                    repr(control.group())[1:-1],
                    "printable text (a TRF file is a text file)",
                )
                continue
            if not _RECORD.match(line):
                self.problem(
                    number,
                    "1-3",
                    line[:20],
                    "a record code (three letters or digits such as 001 or 012) and a space",
                )
                continue
            code = line[:3].upper()
            value = line[4:].strip()
            if code == "001":
                entry = self.player(number, line)
                if entry is not None:
                    entries.append(entry)
            elif code in _HEADER_KEYS:
                if value:
                    headers[_HEADER_KEYS[code]] = value
            elif code in ("042", "052"):
                when = self.date(number, value)
                if when is not None:
                    dates[code] = (number, when, value)
            elif code == "062":
                count = self.integer(number, "5-8", value, "the number of players")
                if count is not None:
                    players_line = (number, count)
            elif code == "XXR":
                count = self.integer(number, "5-8", value, "the number of rounds")
                if count is not None:
                    rounds_line = (number, count)
            elif code == "XXS":
                scoring_given = True

        if not entries and not self.problems:
            self.problem(None, None, None, "at least one player record (001)")
        if "042" in dates and "052" in dates and dates["052"][1] < dates["042"][1]:
            line, _, written = dates["052"]
            self.problem(line, "5-14", written, f"an end date on or after {dates['042'][1]}")
        if players_line is not None and entries and players_line[1] != len(entries):
            self.problem(
                players_line[0],
                "5-8",
                str(players_line[1]),
                f"the number of player records (001) in the file, {len(entries)}",
            )
        rounds = self.played_rounds(entries)
        if rounds_line is not None:
            headers["rounds_planned"] = str(rounds_line[1])
            if rounds > rounds_line[1]:
                self.problem(
                    rounds_line[0],
                    "5-8",
                    str(rounds_line[1]),
                    f"at least the {rounds} rounds that the player records show",
                )
        players, unread = self.players(entries, rounds, check_points=not scoring_given)
        crosstable = Crosstable(
            source=self.source,
            format="trf",
            players=players,
            rounds=rounds,
            name=headers.pop("name", None),
            start_date=dates["042"][1] if "042" in dates else None,
            end_date=dates["052"][1] if "052" in dates else None,
            parameters=headers,
        )
        return self.finish(crosstable, unread)

    def integer(self, line: int, column: str, value: str, what: str) -> int | None:
        if value.isascii() and value.isdigit() and len(value) <= 6:
            return int(value)
        self.problem(line, column, value, f"{what} as a whole number")
        return None

    def date(self, line: int, value: str) -> date | None:
        if not value:
            return None
        parts: tuple[str, str, str] | None = None
        if match := _DATE_YEAR_FIRST.fullmatch(value):
            parts = (match[1], match[2], match[3])
        elif match := _DATE_DAY_FIRST.fullmatch(value):
            parts = (match[3], match[2], match[1])
        if parts is not None:
            try:
                return date(int(parts[0]), int(parts[1]), int(parts[2]))
            except ValueError:
                pass
        self.problem(line, "5-14", value, "a date as YYYY/MM/DD (TRF16)")
        return None

    # --- 001 records ---------------------------------------------------------------------------

    def player(self, number: int, line: str) -> _Entry | None:
        if "\t" in line:
            self.problem(
                number,
                f"character {line.index(chr(9)) + 1}",
                "\\t",
                "spaces, not tabs (player records are in fixed columns)",
            )
            return None
        rank_text = _field(line, 5, 8).strip()
        rank = self.number(number, "start rank", 5, 8, rank_text, required=True)
        name = _field(line, 15, 47).strip()
        if not name:
            self.problem(number, "name (columns 15-47)", "", "the player's name")
        rating = self.number(number, "rating", 49, 52, _field(line, 49, 52).strip())
        fide_id = _field(line, 58, 68).strip()
        if fide_id and not (fide_id.isascii() and fide_id.isdigit()):
            self.problem(number, "FIDE id (columns 58-68)", fide_id, "digits or blank")
        place = self.number(number, "rank", 86, 89, _field(line, 86, 89).strip())
        points_text = _field(line, 81, 84).strip()
        points: Fraction | None = None
        if _POINTS.fullmatch(points_text):
            points = Fraction(points_text)
        elif points_text:
            self.problem(
                number, "points (columns 81-84)", points_text, "points such as 2.0 or 10.5"
            )
        gap = _field(line, 90, 91)
        if gap.strip():
            self.problem(
                number, "columns 90-91", gap, "blank columns before round 1 (a shifted line?)"
            )
        blocks = self.blocks(number, line)
        if rank is None:
            return None
        title = _field(line, 11, 13).strip() or None
        federation = _field(line, 54, 56).strip() or None
        return _Entry(
            line=number,
            rank=rank,
            name=name,
            title=title,
            rating=rating or None,
            federation=federation,
            fide_id=fide_id if fide_id.strip("0") else None,
            points=points,
            points_text=points_text,
            place=place,
            blocks=blocks,
        )

    def number(
        self, line: int, what: str, first: int, last: int, text: str, *, required: bool = False
    ) -> int | None:
        if not text and not required:
            return None
        if text.isascii() and text.isdigit() and (int(text) > 0 or not required):
            return int(text)
        self.problem(
            line, f"{what} (columns {_columns(first, last)})", text, f"the {what} as a number"
        )
        return None

    def blocks(self, number: int, line: str) -> tuple[_Block | None, ...]:
        blocks: list[_Block | None] = []
        rnd = 0
        while True:
            rnd += 1
            first = _FIRST_ROUND_COLUMN + _ROUND_WIDTH * (rnd - 1)
            if len(line) < first - 2:
                break
            text = _field(line, first - 2, first + 7)
            blocks.append(self.block(number, rnd, text))
        while blocks and blocks[-1] is not None and blocks[-1].text.strip() == "":
            blocks.pop()
        return tuple(blocks)

    def block(self, number: int, rnd: int, text: str) -> _Block | None:
        """Check one round block: ``  OOOO C R`` (two blanks, opponent, colour, result)."""
        padded = text.ljust(_ROUND_WIDTH)
        where = _round_columns(rnd)
        if padded[0:2].strip() or padded[6].strip() or padded[8].strip():
            self.problem(
                number,
                where,
                text,
                "a round block '  OOOO C R': opponent in 4 columns, colour and result each after "
                "one blank (a shifted line?)",
            )
            return None
        opponent_text = padded[2:6].strip()
        color_text = padded[7].lower()
        code = padded[9].upper()
        if opponent_text and not (opponent_text.isascii() and opponent_text.isdigit()):
            self.problem(number, where, text, "an opponent start rank (digits, 0000 for none)")
            return None
        opponent = int(opponent_text) if opponent_text else 0
        if color_text not in "wb- ":
            self.problem(number, where, text, "a colour w, b or - (or blank)")
            return None
        color = {"w": Color.WHITE, "b": Color.BLACK}.get(color_text)
        if opponent == 0:
            if code not in _UNPAIRED_CODES:
                allowed = "U, F, H, Z, + , - or blank"
                if code in _GAME_CODES:
                    expected = f"an opponent for a game result, or a bye code ({allowed})"
                else:
                    expected = f"a result code for a round without opponent: {allowed}"
                self.problem(number, where, text, expected)
                return None
            return _Block(rnd, None, None, code, text)
        if code not in _GAME_CODES and code not in _FORFEIT_CODES:
            if code == " ":
                expected = f"a result code (1 = 0 W D L + -) for the game against {opponent}"
                expected += "; the block ends early or the result is blank"
            elif code in _UNPAIRED_CODES:
                expected = f"a game result (1 = 0 W D L + -), not {code}, "
                expected += f"since an opponent ({opponent}) is given"
            else:
                expected = "a result code 1 = 0 W D L + - (with an opponent)"
            self.problem(number, where, text, expected)
            return None
        if code in _GAME_CODES and color is None:
            self.problem(number, where, text, "the colour (w or b) of a game played")
            return None
        return _Block(rnd, opponent, color, code, text)

    # --- the crosstable ------------------------------------------------------------------------

    @staticmethod
    def played_rounds(entries: list[_Entry]) -> int:
        rounds = 0
        for entry in entries:
            for block in entry.blocks:
                if block is not None and (block.opponent is not None or block.code == "U"):
                    rounds = max(rounds, block.round)
        return rounds

    def players(
        self, entries: list[_Entry], rounds: int, *, check_points: bool
    ) -> tuple[tuple[CrosstablePlayer, ...], set[tuple[int, int]]]:
        """The players in start-rank order, and (player index, round) of every block that could
        not be read (a placeholder stands in for it; its problem is already reported)."""
        by_rank: dict[int, _Entry] = {}
        for entry in entries:
            if entry.rank in by_rank:
                self.problem(
                    entry.line,
                    "start rank (columns 5-8)",
                    str(entry.rank),
                    f"a start rank not already used on line {by_rank[entry.rank].line}",
                )
            else:
                by_rank[entry.rank] = entry
        ordered = sorted(by_rank.values(), key=lambda e: e.rank)
        index = {entry.rank: i for i, entry in enumerate(ordered)}
        unread: set[tuple[int, int]] = set()
        result: list[CrosstablePlayer] = []
        for position, entry in enumerate(ordered):
            cells: list[Cell] = []
            for rnd in range(1, rounds + 1):
                block = (
                    entry.blocks[rnd - 1]
                    if rnd <= len(entry.blocks)
                    else _Block(rnd, None, None, " ", "")
                )
                where = _round_columns(rnd)
                if block is not None and block.opponent is not None and block.opponent not in index:
                    self.problem(
                        entry.line,
                        where,
                        block.text,
                        f"an opponent start rank that has a player record (001); "
                        f"{block.opponent} has none",
                    )
                    block = None
                if block is None:
                    unread.add((position, rnd))
                    cells.append(Cell(rnd, CellKind.ABSENT, Outcome.LOSS))
                    continue
                opponent = index[block.opponent] if block.opponent is not None else None
                origin = Origin(entry.line, where, block.text)
                cells.append(
                    Cell(rnd, block.kind, block.outcome, opponent, block.color, origin=origin)
                )
            printed: dict[str, Fraction] = {}
            if entry.points is not None:
                printed["points"] = entry.points
                total = sum((c.outcome.points for c in cells), Fraction(0))
                complete = all((position, rnd) not in unread for rnd in range(1, rounds + 1))
                if check_points and complete and total != entry.points:
                    self.problem(
                        entry.line,
                        "points (columns 81-84)",
                        entry.points_text,
                        f"the sum of the round results, {_decimal(total)}",
                    )
            if entry.place is not None:
                printed["rank"] = Fraction(entry.place)
            result.append(
                CrosstablePlayer(
                    number=entry.rank,
                    name=entry.name,
                    cells=tuple(cells),
                    line=entry.line,
                    player_id=entry.fide_id,
                    country=entry.federation,
                    rating=entry.rating,
                    title=entry.title,
                    printed=printed,
                )
            )
        return tuple(result), unread


def _decimal(value: Fraction) -> str:
    return f"{float(value):.1f}" if value.denominator <= 2 else str(value)
