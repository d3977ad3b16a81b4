"""The records of a TRF file (``importers.trf``), each read by the reader of its code into one
:class:`Records`: the 001 player records with their round blocks, checked field by field, and the
event's records (name, dates, counts, scoring, byes, abnormal points, round dates). What they
mean together (rounds, byes, points, the crosstable) is ``importers.trf``'s."""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from fractions import Fraction

from importers.problems import ProblemLog
from importers.trf_dates import read_date
from ratings.crosstable import CellKind, Color, Outcome

_FIRST_ROUND_COLUMN = 92
"""1-based column where round 1's opponent field starts; each round takes 10 columns."""
_ROUND_WIDTH = 10
_ZERO = Fraction(0)
_HALF = Fraction(1, 2)

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
    "=": (CellKind.REQUESTED_BYE, Outcome.DRAW),
    " ": (CellKind.ABSENT, Outcome.LOSS),
    "-": (CellKind.ABSENT, Outcome.LOSS),
    "*": (CellKind.ABSENT, Outcome.LOSS),
}
_PENDING_CODES = (" ", "*")
"""Result codes of a game paired whose result is not known yet (with an opponent)."""
NOT_ENTERED = (" ", "-", "*")
"""Codes without opponent that enter nothing: a round holding only these was not played."""
_KNOWN_RECORDS = {
    "001", "012", "013", "022", "032", "042", "052", "062", "072", "082", "092", "102", "112",
    "122", "132", "142", "152", "162", "172", "182", "192", "202", "212", "222", "240", "250",
    "260", "299", "300", "310", "320", "330", "352", "362", "801", "802",
}  # fmt: skip
"""TRF16 and TRF-2026 record codes; ``XX?`` (JaVaFo) and ``BB?`` (bbpPairings) are known too."""
_TEAM_RECORDS = {
    "013": "team composition, record 013",
    "310": "teams, record 310",
    "320": "team results, record 320",
    "330": "team forfeits, record 330",
}
"""Records of team events (TRF16's 013, TRF-2026's 310/320/330): a team's score and its forfeits
are the sum of, and are written again in, its players' 001 records."""
_DEFAULT_SCORING = {
    "W": Fraction(1),
    "D": Fraction(1, 2),
    "L": Fraction(0),
    "A": Fraction(0),
    "P": Fraction(1),
    "X": Fraction(1, 2),
}
"""TRF-2026 record 162's codes and the points TRF16 gives them when 162 is absent."""
_HEADER_KEYS = {
    "012": "name",
    "022": "city",
    "032": "federation",
    "092": "type",
    "102": "chief_arbiter",
    "122": "time_control",
}
_RECORD = re.compile(r"[0-9A-Za-z]{3}(?: |$)")
_RULER = re.compile(
    r"\s*(?:0123456789|1234567890)[0-9 ]*|\s+[0-9]{1,2}(?:\s+[0-9]{1,2})+\s*"
    r"|([A-Z])\1\1 +([A-Za-z])\2*(?: +[A-Za-z0-9/]+)* *",
    re.ASCII,
)
"""Column rulers exporters write above the records (``0123456789...``, the tens above it,
``         1         2 ...``, up to column 160 and beyond), and the column guides of FIDE's
TRF-2026 samples written without ``###``: the record's code as three equal letters, then one
run of letters per field (``DDD SSSS sTTT ...``, ``CCC SSS NNN...``, ``AAA MMMM GGGG ...``)."""
_NATIONAL = re.compile(r"[A-Z]{3}", re.ASCII)
"""A national record's code: a federation's three capital letters (TRF-2026)."""
_PLAYER_COUNT = re.compile(r"(\d{1,6})\s*\(\s*\d{1,6}\s*\)", re.ASCII)
_SCORING_ITEM = re.compile(r"([A-Za-z])\s*(\d{1,2}(?:\.\d{1,2})?)", re.ASCII)
LINE_BREAK = re.compile(r"\r\n|\r|\n")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_POINTS = re.compile(r"\d{1,4}(?:\.\d{1,4})?", re.ASCII)


@dataclass(frozen=True, slots=True)
class Block:
    """One round of a 001 record, checked on its own."""

    round: int
    opponent: int | None
    color: Color | None
    code: str
    """Result code in upper case; a blank result is ``" "``."""
    text: str
    pending: bool = False
    """A game paired whose result is not written yet (blank or ``*``)."""

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
class Entry:
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
    blocks: tuple[Block | None, ...]


def _columns(first: int, last: int) -> str:
    return f"{first}-{last}" if first != last else str(first)


def round_columns(rnd: int) -> str:
    first = _FIRST_ROUND_COLUMN + _ROUND_WIDTH * (rnd - 1)
    return f"round {rnd} (columns {first}-{first + 7})"


def _field(line: str, first: int, last: int) -> str:
    """Characters ``first`` to ``last`` of ``line``, 1-based and inclusive as TRF16 counts."""
    return line[first - 1 : last]


def read_player(report: ProblemLog, number: int, line: str) -> Entry | None:
    if "\t" in line:
        report.problem(
            number,
            f"character {line.index(chr(9)) + 1}",
            "\\t",
            "spaces, not tabs (player records are in fixed columns)",
        )
        return None
    rank_text = _field(line, 5, 8).strip()
    rank = _number(report, number, "start rank", 5, 8, rank_text, required=True)
    name = _field(line, 15, 47).strip()
    if not name:
        report.problem(number, "name (columns 15-47)", "", "the player's name")
    rating = _number(report, number, "rating", 49, 52, _field(line, 49, 52).strip())
    fide_id = _field(line, 58, 68).strip()
    if fide_id and not (fide_id.isascii() and fide_id.isdigit()):
        report.problem(number, "FIDE id (columns 58-68)", fide_id, "digits or blank")
    place = _number(report, number, "rank", 86, 89, _field(line, 86, 89).strip())
    points_text = _field(line, 81, 84).strip()
    points: Fraction | None = None
    if _POINTS.fullmatch(points_text):
        points = Fraction(points_text)
    elif points_text:
        report.problem(number, "points (columns 81-84)", points_text, "points such as 2.0 or 10.5")
    gap = _field(line, 90, 91)
    if gap.strip():
        report.problem(
            number, "columns 90-91", gap, "blank columns before round 1 (a shifted line?)"
        )
    blocks = _blocks(report, number, line)
    if rank is None:
        return None
    title = _field(line, 11, 13).strip() or None
    federation = _field(line, 54, 56).strip() or None
    return Entry(
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


def _number(
    report: ProblemLog,
    line: int,
    what: str,
    first: int,
    last: int,
    text: str,
    *,
    required: bool = False,
) -> int | None:
    if not text and not required:
        return None
    if text.isascii() and text.isdigit() and (int(text) > 0 or not required):
        return int(text)
    report.problem(
        line, f"{what} (columns {_columns(first, last)})", text, f"the {what} as a number"
    )
    return None


def _blocks(report: ProblemLog, number: int, line: str) -> tuple[Block | None, ...]:
    blocks: list[Block | None] = []
    rnd = 0
    while True:
        rnd += 1
        first = _FIRST_ROUND_COLUMN + _ROUND_WIDTH * (rnd - 1)
        if len(line) < first - 2:
            break
        text = _field(line, first - 2, first + 7)
        blocks.append(_block(report, number, rnd, text))
    while blocks and blocks[-1] is not None and blocks[-1].text.strip() == "":
        blocks.pop()
    return tuple(blocks)


def _block(report: ProblemLog, number: int, rnd: int, text: str) -> Block | None:
    """Check one round block: ``  OOOO C R`` (two blanks, opponent, colour, result)."""
    padded = text.ljust(_ROUND_WIDTH)
    where = round_columns(rnd)
    if padded[0:2].strip() or padded[6].strip() or padded[8].strip():
        report.problem(
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
        report.problem(number, where, text, "an opponent start rank (digits, 0000 for none)")
        return None
    opponent = int(opponent_text) if opponent_text else 0
    if color_text not in "wb- ":
        report.problem(number, where, text, "a colour w, b or - (or blank)")
        return None
    color = {"w": Color.WHITE, "b": Color.BLACK}.get(color_text)
    if opponent == 0:
        if code not in _UNPAIRED_CODES:
            allowed = "U, F, H, Z, + , - or blank"
            if code in _GAME_CODES:
                expected = f"an opponent for a game result, or a bye code ({allowed})"
            else:
                expected = f"a result code for a round without opponent: {allowed}"
            report.problem(number, where, text, expected)
            return None
        return Block(rnd, None, None, code, text)
    if code in _PENDING_CODES and (color is not None or opponent_text):
        # A game paired and not yet played or entered: what pairing programs write when a
        # file is saved after pairing a round (Sharly Chess writes a game without result as
        # opponent, colour and a blank result). The reader stops before its round.
        return Block(rnd, opponent, color, code, text, pending=True)
    if code not in _GAME_CODES and code not in _FORFEIT_CODES:
        if code == " ":
            expected = f"a result code (1 = 0 W D L + -) for the game against {opponent}"
            expected += "; the block ends early or the result is blank"
        elif code in _UNPAIRED_CODES:
            expected = f"a game result (1 = 0 W D L + -), not {code}, "
            expected += f"since an opponent ({opponent}) is given"
        else:
            expected = "a result code 1 = 0 W D L + - (with an opponent)"
        report.problem(number, where, text, expected)
        return None
    if code in _GAME_CODES and color is None:
        report.problem(number, where, text, "the colour (w or b) of a game played")
        return None
    return Block(rnd, opponent, color, code, text)


def _integer(report: ProblemLog, line: int, column: str, value: str, what: str) -> int | None:
    if value.isascii() and value.isdigit() and len(value) <= 6:
        return int(value)
    report.problem(line, column, value, f"{what} as a whole number")
    return None


def _date(report: ProblemLog, line: int, value: str, which: str) -> date | None:
    """A 042/052 date in any form seen in real files; a guess is warned, an unreadable date is
    left out with a warning (``standings`` needs none; ``import`` takes ``--start-date`` and
    ``--end-date`` instead)."""
    if not value:
        return None
    when, guess = read_date(value)
    if when is None:
        report.warn(
            line, "5-14", value, f"not a date that can be read; give --{which}-date to import"
        )
    elif guess is not None:
        report.warn(line, "5-14", value, f"{when.isoformat()} ({guess})")
    return when


def round_dates(
    report: ProblemLog, line: int, text: str
) -> list[tuple[int, int, datetime.date, str]]:
    """Record ``132``: the date of each round, in the columns of the round's block
    (``YY/MM/DD`` from column 92, every 10 columns); (line, round, date, text) of each date
    that can be read. TRF prescribes the form, so a two-digit year is no guess here."""
    found: list[tuple[int, int, datetime.date, str]] = []
    rnd = 0
    while True:
        rnd += 1
        first = _FIRST_ROUND_COLUMN + _ROUND_WIDTH * (rnd - 1)
        if len(text) < first:
            return found
        written = _field(text, first - 2, first + 7).strip()
        when = read_date(written)[0] if written else None
        if when is not None:
            found.append((line, rnd, when, written))


def _scoring(report: ProblemLog, line: int, text: str) -> bool:
    """Whether a TRF-2026 ``162`` record gives points other than TRF16's defaults."""
    for code, points in _SCORING_ITEM.findall(text[4:]):
        if _DEFAULT_SCORING.get(code.upper()) != Fraction(points):
            return True
    return False


def _byes(
    report: ProblemLog, line: int, text: str, byes: dict[tuple[int, int], tuple[int, str]]
) -> None:
    """TRF-2026 ``240``: byes that bring points, type (``F``, ``H`` or ``Z``) at column 5,
    round at 7-9, the players' start ranks from column 11, every 5 columns."""
    kind = _field(text, 5, 5).upper()
    round_text = _field(text, 7, 9).strip()
    if kind not in ("F", "H", "Z") or not (round_text.isascii() and round_text.isdigit()):
        report.problem(line, "5-9", text[4:9], "a bye type F, H or Z and a round number")
        return
    column = 11
    while column <= len(text):
        rank_text = _field(text, column, column + 3).strip()
        if rank_text.isascii() and rank_text.isdigit() and int(rank_text):
            byes[(int(rank_text), int(round_text))] = (line, kind)
        column += 5


def _abnormal_points(report: ProblemLog, line: int, text: str) -> list[tuple[int, int, Fraction]]:
    """TRF-2026 ``299`` abnormal points (bonus or penalty, type blank): (line, start rank,
    points) for each player named; other types change a round's result and are not read."""
    kind = _field(text, 5, 5).strip()
    points_text = _field(text, 14, 17).strip()
    try:
        points = Fraction(points_text)
    except (ValueError, ZeroDivisionError):
        report.warn(line, "14-17", points_text, "abnormal points that cannot be read; skipped")
        return []
    if kind:
        report.warn(line, "5", kind, "an abnormal result (record 299) not read; skipped")
        return []
    found: list[tuple[int, int, Fraction]] = []
    column = 24
    while column <= len(text):
        rank_text = _field(text, column, column + 3).strip()
        if rank_text.isascii() and rank_text.isdigit() and int(rank_text):
            found.append((line, int(rank_text), points))
        column += 5
    return found


@dataclass(slots=True)
class Records:
    """What the records of a file give, as they are read, before anything is made of them."""

    entries: list[Entry] = field(default_factory=list)
    """The 001 records that could be read."""
    headers: dict[str, str] = field(default_factory=dict)
    """The event's name, city, federation, type, chief arbiter and time control."""
    dates: dict[str, tuple[int, date, str]] = field(default_factory=dict)
    """``042`` and ``052``: the line, the date and its text."""
    players_line: tuple[int, int] | None = None
    """``062``: the line and the number of players."""
    rounds_line: tuple[int, int] | None = None
    """``XXR`` or ``142``: the line and the number of rounds."""
    scoring_given: bool = False
    """Whether ``XXS`` or ``162`` gives points other than the default ones."""
    bonuses: list[tuple[int, int, Fraction]] = field(default_factory=list)
    """``299``: line, start rank and abnormal points."""
    round_dates: list[tuple[int, int, date, str]] = field(default_factory=list)
    """``132``: line, round, date and its text."""
    byes: dict[tuple[int, int], tuple[int, str]] = field(default_factory=dict)
    """``240``: (start rank, round) → (line, bye type)."""
    teams: bool = False
    """Whether the file has team records."""
    national: set[str] = field(default_factory=set)
    """The federations whose national records were skipped (one warning each)."""


RecordReader = Callable[[ProblemLog, Records, int, str, str], None]
"""A record's reader: the report, the records so far, the line's number, the line, its code."""


def _player_record(report: ProblemLog, records: Records, number: int, line: str, code: str) -> None:
    entry = read_player(report, number, line)
    if entry is not None:
        records.entries.append(entry)


def _header_record(report: ProblemLog, records: Records, number: int, line: str, code: str) -> None:
    value = line[4:].strip()
    if value:
        records.headers[_HEADER_KEYS[code]] = value


def _date_record(report: ProblemLog, records: Records, number: int, line: str, code: str) -> None:
    value = line[4:].strip()
    when = _date(report, number, value, "start" if code == "042" else "end")
    if when is not None:
        records.dates[code] = (number, when, value)


def _players_record(
    report: ProblemLog, records: Records, number: int, line: str, code: str
) -> None:
    value = line[4:].strip()
    # Swiss-Manager adds the players who played in brackets: "062 129 (88)".
    counted = _PLAYER_COUNT.fullmatch(value)
    count = _integer(
        report, number, "5-8", counted.group(1) if counted else value, "the number of players"
    )
    if count is not None:
        records.players_line = (number, count)


def _rounds_record(report: ProblemLog, records: Records, number: int, line: str, code: str) -> None:
    count = _integer(report, number, "5-8", line[4:].strip(), "the number of rounds")
    if count is not None:
        records.rounds_line = (number, count)


def _scoring_given(report: ProblemLog, records: Records, number: int, line: str, code: str) -> None:
    records.scoring_given = True


def _scoring_record(
    report: ProblemLog, records: Records, number: int, line: str, code: str
) -> None:
    records.scoring_given = records.scoring_given or _scoring(report, number, line)


def _abnormal_record(
    report: ProblemLog, records: Records, number: int, line: str, code: str
) -> None:
    records.bonuses.extend(_abnormal_points(report, number, line))


def _round_dates_record(
    report: ProblemLog, records: Records, number: int, line: str, code: str
) -> None:
    records.round_dates.extend(round_dates(report, number, line))


def _bye_record(report: ProblemLog, records: Records, number: int, line: str, code: str) -> None:
    _byes(report, number, line, records.byes)


def _team_record(report: ProblemLog, records: Records, number: int, line: str, code: str) -> None:
    if not records.teams:
        report.warn(
            number,
            "1-3",
            code,
            f"a team event ({_TEAM_RECORDS[code]}): the team records are not read; "
            "each player's results are read from his own record (001)",
        )
    records.teams = True


def _other_record(report: ProblemLog, records: Records, number: int, line: str, code: str) -> None:
    if code in _KNOWN_RECORDS or code[:2] in ("XX", "BB"):
        return
    if not _NATIONAL.fullmatch(line[:3]):
        report.warn(number, "1-3", code, "an unknown record; skipped")
        return
    # TRF-2026 national records: a federation's own data on the players (national id, rating,
    # club), the record named by the federation's code ("FRA" as Sharly Chess writes them).
    # Nothing of the results; one warning for each federation.
    if code not in records.national:
        records.national.add(code)
        report.warn(
            number,
            "1-3",
            code,
            "national records (a federation's own player data, record named by its "
            "code); skipped, the players' results are in their 001 records",
        )


RECORD_READERS: dict[str, RecordReader] = {
    "001": _player_record,
    **dict.fromkeys(_HEADER_KEYS, _header_record),
    "042": _date_record,
    "052": _date_record,
    "062": _players_record,
    "XXR": _rounds_record,
    "142": _rounds_record,
    "XXS": _scoring_given,
    "162": _scoring_record,
    "299": _abnormal_record,
    "132": _round_dates_record,
    "240": _bye_record,
    **dict.fromkeys(_TEAM_RECORDS, _team_record),
}
"""The reader of each record code that bears on the crosstable; any other code is skipped, with
a warning when it is not a known one."""


def read_records(report: ProblemLog, text: str) -> Records:
    """Every record of ``text``, each by the reader of its code; lines that are no record are
    problems, comments and column rulers are skipped."""
    records = Records()
    for number, line in enumerate(LINE_BREAK.split(text), start=1):
        if not line.strip() or not _is_record(report, number, line):
            continue
        code = line[:3].upper()
        RECORD_READERS.get(code, _other_record)(report, records, number, line, code)
    return records


def _is_record(report: ProblemLog, number: int, line: str) -> bool:
    """Whether ``line`` (not blank) is a record: not a comment, a ruler, nor a line with control
    characters or without a record code (each of these a problem)."""
    control = _CONTROL.search(line)
    if control:
        report.problem(
            number,
            f"character {control.start() + 1}",
            repr(control.group())[1:-1],
            "printable text (a TRF file is a text file)",
        )
        return False
    if line.startswith("###") or _RULER.fullmatch(line):
        # TRF-2026 comments, and the column rulers exporters write for the reader's eye.
        return False
    if not _RECORD.match(line):
        report.problem(
            number,
            "1-3",
            line[:20],
            "a record code (three letters or digits such as 001 or 012) and a space",
        )
        return False
    return True
