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
  number of players, ``092`` type, ``102`` chief arbiter, ``122`` time control, the number of
  rounds (``XXR``, TRF-2026 ``142``), the scoring system (``XXS``; TRF-2026 ``162`` when it differs
  from the default points), and the TRF-2026 records that bear on results: ``240`` byes (written
  into rounds the 001 record leaves empty; not in team events, where its ids are teams) and ``299``
  bonus or penalty points (counted in the points check). Other known records (teams, arbiters,
  pairing-program settings) are skipped; team records (``013``, ``310``, ``320``, ``330``) are skipped
  with one warning, the players' own records holding their results; TRF-2026 national records
  (named by a federation's code, ``FRA``: the federation's own data on the players) with one
  warning per federation; unknown records are skipped with a warning;
  ``###`` comment lines (TRF-2026), column rulers (``0123456789...``) and column guides
  (``DDD SSSS ...``, ``CCC SSS ...``: the code as three equal letters) are skipped. Dates are read in every common form (:mod:`importers.trf_dates`); a guessed reading is
  warned, an unreadable date left out with a warning. A file without a start or end date (042,
  052) but with round dates (``132``) starts on its first round's date and ends on its last
  round's, each taken with a warning; else a file with a start date only ends on it.

How result codes map onto the crosstable model (letters in either case):

* with an opponent: ``1``, ``=``, ``0`` and ``W``, ``D``, ``L`` are games won, drawn, lost;
  ``+`` and ``-`` are forfeits won and lost. Bye codes with an opponent are an error. A blank
  result (or ``*``) is a game paired whose result is not entered yet, as a pairing program saves
  a round just paired (Sharly Chess writes opponent, colour and a blank result): the event is
  unfinished, the crosstable stops at the last round before the first such game, with a warning
  (``Crosstable.unfinished``; ``import`` then needs ``--rounds``). Both sides must show the game
  without result; on one side only it is a line cut short, and refused.
* without an opponent (``0000`` or blank): ``U`` (pairing-allocated bye) and ``F`` (full-point bye)
  are BYE with 1 point; ``H`` (and ``=``, the older form) is a REQUESTED_BYE with ½ point, ``Z``
  one with 0 points; a blank result is ABSENT, and so is ``*`` (not yet known), with a warning. ``+`` and ``-`` are read as BYE and ABSENT, the way programs wrote byes and
  absences before TRF16 added ``U`` and ``Z``. Game results without an opponent are an error.

``W D L`` mark games played over the board that FIDE does not rate (because of the time control, for
example). FIDE's rated status is not ours, so they are games for tie-breaks and for our rating. A
full-point bye ``F`` is read like the pairing-allocated ``U``: a full point without play is not a
voluntarily unplayed round in the FIDE 2023 tie-break rules, which is what REQUESTED_BYE stands for.
The points and rank columns are kept in ``printed`` (``"points"``, ``"rank"``); the points must
equal the sum of the rounds unless an ``XXS`` record changes the scoring.

Rounds: the crosstable has as many rounds as the last round in which anybody was paired or has a
bye entered. A bye entered for a later round is kept when the printed points count it, and the round
left out (with a warning) when they do not: pairing programs enter byes ahead of the next round. The
``XXR``/``142`` number, when given, is kept as ``parameters["rounds_planned"]``. A file in which
nobody was paired nor has a bye (registrations only) is an empty event and refused as one.

Points: printed points beyond the sum of the rounds are read as byes on rounds without an opponent,
with a warning each (see :meth:`_Reader.check_points`); a total that byes cannot explain is refused.

Tie-break rules: :func:`policy_for` picks FIDE's rule in force at the file's date.

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

import dataclasses
import datetime
import re
import typing
from dataclasses import dataclass
from datetime import date
from fractions import Fraction

from importers.problems import ProblemLog
from importers.trf_dates import read_date
from ratings.crosstable import (
    Cell,
    CellKind,
    Color,
    Crosstable,
    CrosstablePlayer,
    Origin,
    Outcome,
)
from ratings.tiebreaks.policy import MissedRounds, Policy
from ratings.wording import counted

__all__ = ["event_dates", "policy_for", "read_trf"]

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
_NOT_ENTERED = (" ", "-", "*")
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
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
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


FIDE_RULES_SINCE = (
    (date(2026, 3, 1), MissedRounds.FIDE_2026),
    (date(2023, 7, 1), MissedRounds.FIDE_2023),
    (date(2009, 10, 1), MissedRounds.FIDE_2009),
)
"""When each FIDE rule for unplayed rounds came into force: the 2009 Congress rule (October 2009),
the first C.07 tie-break regulations (applied from 1 July 2023; binding for every FIDE-rated event
from 1 April 2024) and the C.07 revision with the dummy caps (1 March 2026)."""


def policy_for(crosstable: Crosstable) -> Policy:
    """The tie-break rules in force when the event was played, from the file's end date (else its
    start date): programs print the tie-breaks of the rules in force at the time. A file without a
    readable date says nothing about its rules and gets the plain sums (``Policy()``); the
    command-line ``--policy`` overrides this choice."""
    played = crosstable.end_date or crosstable.start_date
    if played is not None:
        for since, rule in FIDE_RULES_SINCE:
            if played >= since:
                return Policy(missed_rounds=rule)
    return Policy()


def event_dates(data: bytes, source: str) -> tuple[date | None, date | None] | None:
    """The start and end dates a TRF file gives (``042``/``052``, else its ``132`` round dates,
    else the start date as the end), read from its records alone: what an import can still tell
    about a file whose crosstable has problems. None for a file that cannot be decoded."""
    reader = _Reader(source)
    text = reader.decode(data)
    if text is None:
        return None
    found: dict[str, date] = {}
    rounds: list[date] = []
    for number, line in enumerate(_LINE_BREAK.split(text), start=1):
        code = line[:3]
        if code in ("042", "052") and code not in found:
            when = read_date(line[4:].strip())[0] if line[4:].strip() else None
            if when is not None:
                found[code] = when
        elif code == "132":
            rounds.extend(when for _, _, when, _ in reader.round_dates(number, line))
    start = found.get("042") or (min(rounds) if rounds else None)
    end = found.get("052") or (max(rounds) if rounds else None) or start
    return start, end


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
    country_column = "54-56"

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
        bonuses: list[tuple[int, int, Fraction]] = []
        round_dates: list[tuple[int, int, date, str]] = []
        byes: dict[tuple[int, int], tuple[int, str]] = {}
        teams = False
        national: set[str] = set()
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
            if line.startswith("###") or _RULER.fullmatch(line):
                # TRF-2026 comments, and the column rulers exporters write for the reader's eye.
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
                when = self.date(number, value, "start" if code == "042" else "end")
                if when is not None:
                    dates[code] = (number, when, value)
            elif code == "062":
                # Swiss-Manager adds the players who played in brackets: "062 129 (88)".
                counted = _PLAYER_COUNT.fullmatch(value)
                count = self.integer(
                    number, "5-8", counted.group(1) if counted else value, "the number of players"
                )
                if count is not None:
                    players_line = (number, count)
            elif code in ("XXR", "142"):
                count = self.integer(number, "5-8", value, "the number of rounds")
                if count is not None:
                    rounds_line = (number, count)
            elif code == "XXS":
                scoring_given = True
            elif code == "162":
                scoring_given = scoring_given or self.scoring(number, line)
            elif code == "299":
                bonuses.extend(self.abnormal_points(number, line))
            elif code == "132":
                round_dates.extend(self.round_dates(number, line))
            elif code == "240":
                self.bye_record(number, line, byes)
            elif code in _TEAM_RECORDS:
                if not teams:
                    self.warn(
                        number,
                        "1-3",
                        code,
                        f"a team event ({_TEAM_RECORDS[code]}): the team records are not read; "
                        "each player's results are read from his own record (001)",
                    )
                teams = True
            elif code in _KNOWN_RECORDS or code[:2] in ("XX", "BB"):
                pass
            elif _NATIONAL.fullmatch(line[:3]):
                # TRF-2026 national records: a federation's own data on the players (national
                # id, rating, club), the record named by the federation's code ("FRA" as Sharly
                # Chess writes them). Nothing of the results; one warning for each federation.
                if code not in national:
                    national.add(code)
                    self.warn(
                        number,
                        "1-3",
                        code,
                        "national records (a federation's own player data, record named by its "
                        "code); skipped, the players' results are in their 001 records",
                    )
            else:
                self.warn(number, "1-3", code, "an unknown record; skipped")

        self.dates_from_rounds(dates, round_dates)
        if "042" in dates and "052" not in dates:
            line, when, written = dates["042"]
            self.warn(
                line,
                "5-14",
                written,
                "the file gives no end date (052): the start date is taken as the end date",
            )
            dates["052"] = dates["042"]
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
        if not teams:
            # In a team event the ids of a 240 record are teams, not players.
            entries = [self.with_byes(entry, byes) for entry in entries]
        entries, complete = self.complete_rounds(entries)
        rounds = self.pre_entered_rounds(entries, self.played_rounds(entries), bonuses)
        if complete is not None:
            rounds = min(rounds, complete)
        if rounds == 0 and complete == 0:
            self.fail()
        if rounds == 0 and entries and not self.problems:
            # Registration only (a file saved before round 1 was paired): nothing to stand on,
            # and the points column, which some programs fill in advance, is not a result.
            self.problem(
                None,
                "rounds",
                None,
                "games or byes: an empty event (players registered, no game played)",
            )
            self.fail()
        if rounds_line is not None:
            headers["rounds_planned"] = str(rounds_line[1])
            if rounds > rounds_line[1]:
                self.problem(
                    rounds_line[0],
                    "5-8",
                    str(rounds_line[1]),
                    f"at least the {rounds} rounds that the player records show",
                )
        players, unread = self.players(
            entries, rounds, check_points=not scoring_given, bonuses=bonuses
        )
        crosstable = Crosstable(
            source=self.source,
            format="trf",
            players=players,
            rounds=rounds,
            name=headers.pop("name", None),
            start_date=dates["042"][1] if "042" in dates else None,
            end_date=dates["052"][1] if "052" in dates else None,
            parameters=headers,
            warnings=tuple(sorted(self.warnings, key=lambda w: w.line or 0)),
            unfinished=complete is not None,
        )
        return self.finish(crosstable, unread)

    @staticmethod
    def agreed_pending(entry: _Entry, block: _Block, by_rank: dict[int, _Entry]) -> bool:
        """Whether the opponent's record shows the same game, without result too: a game
        written without result on one side only is a line cut short, not a round in progress."""
        other = by_rank.get(block.opponent or 0)
        if other is None or other is entry or block.round > len(other.blocks):
            return False
        mirror = other.blocks[block.round - 1]
        return mirror is not None and mirror.pending and mirror.opponent == entry.rank

    def complete_rounds(self, entries: list[_Entry]) -> tuple[list[_Entry], int | None]:
        """The records, and None when every game paired has a result; else the rounds before the
        first one holding a game without result (``standings`` shows the event as it stood then,
        ``import`` rates it only when told to stop there). A game without result in round 1
        leaves no standings. A game without result on one side only is a problem, its block
        unread."""
        by_rank = {entry.rank: entry for entry in entries}
        pending: list[tuple[int, int, str]] = []
        checked: list[_Entry] = []
        for entry in entries:
            blocks = list(entry.blocks)
            for i, block in enumerate(entry.blocks):
                if block is None or not block.pending:
                    continue
                if self.agreed_pending(entry, block, by_rank):
                    pending.append((block.round, entry.line, block.text))
                else:
                    blocks[i] = None
                    self.problem(
                        entry.line,
                        _round_columns(block.round),
                        block.text,
                        f"a result code (1 = 0 W D L + -) for the game against {block.opponent}; "
                        "the block ends early or the result is blank, and the opponent's record "
                        "does not show the same game without result",
                    )
            checked.append(dataclasses.replace(entry, blocks=tuple(blocks)))
        if not pending:
            return checked, None
        first, line, text = min(pending)
        count = sum(1 for rnd, _, _ in pending if rnd == first)
        where = _round_columns(first)
        if first == 1:
            self.problem(
                line,
                where,
                text,
                "a result in round 1: an unfinished event without one complete round has no "
                "standings",
            )
            return checked, 0
        self.warn(
            line,
            where,
            text,
            f"an unfinished event: {counted(count, 'game record')} without result in round {first}; "
            f"read as it stood after round {first - 1}",
        )
        return checked, first - 1

    def integer(self, line: int, column: str, value: str, what: str) -> int | None:
        if value.isascii() and value.isdigit() and len(value) <= 6:
            return int(value)
        self.problem(line, column, value, f"{what} as a whole number")
        return None

    def date(self, line: int, value: str, which: str) -> date | None:
        """A 042/052 date in any form seen in real files; a guess is warned, an unreadable date is
        left out with a warning (``standings`` needs none; ``import`` takes ``--start-date`` and
        ``--end-date`` instead)."""
        if not value:
            return None
        when, guess = read_date(value)
        if when is None:
            self.warn(
                line, "5-14", value, f"not a date that can be read; give --{which}-date to import"
            )
        elif guess is not None:
            self.warn(line, "5-14", value, f"{when.isoformat()} ({guess})")
        return when

    def round_dates(self, line: int, text: str) -> list[tuple[int, int, datetime.date, str]]:
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

    def dates_from_rounds(
        self,
        dates: dict[str, tuple[int, datetime.date, str]],
        round_dates: list[tuple[int, int, datetime.date, str]],
    ) -> None:
        """A start or end date the file does not give (042, 052) taken from the round dates of
        record 132, when it has them: the first round's date starts the event, the last one's ends
        it. Each is warned, naming the round and the record."""
        if not round_dates:
            return
        taken = (
            ("052", "end", max(round_dates, key=lambda d: (d[2], d[1]))),
            ("042", "start", min(round_dates, key=lambda d: (d[2], d[1]))),
        )
        for code, which, (line, rnd, when, written) in taken:
            if code in dates:
                continue
            self.warn(
                line,
                _round_columns(rnd).replace("round", "date of round", 1),
                written,
                f"the file gives no {which} date ({code}): the date of round {rnd} in record "
                f"132, {when.isoformat()}, is taken as the {which} date",
            )
            dates[code] = (line, when, written)

    def scoring(self, line: int, text: str) -> bool:
        """Whether a TRF-2026 ``162`` record gives points other than TRF16's defaults."""
        for code, points in _SCORING_ITEM.findall(text[4:]):
            if _DEFAULT_SCORING.get(code.upper()) != Fraction(points):
                return True
        return False

    def bye_record(
        self, line: int, text: str, byes: dict[tuple[int, int], tuple[int, str]]
    ) -> None:
        """TRF-2026 ``240``: byes that bring points, type (``F``, ``H`` or ``Z``) at column 5,
        round at 7-9, the players' start ranks from column 11, every 5 columns."""
        kind = _field(text, 5, 5).upper()
        round_text = _field(text, 7, 9).strip()
        if kind not in ("F", "H", "Z") or not (round_text.isascii() and round_text.isdigit()):
            self.problem(line, "5-9", text[4:9], "a bye type F, H or Z and a round number")
            return
        column = 11
        while column <= len(text):
            rank_text = _field(text, column, column + 3).strip()
            if rank_text.isascii() and rank_text.isdigit() and int(rank_text):
                byes[(int(rank_text), int(round_text))] = (line, kind)
            column += 5

    def with_byes(self, entry: _Entry, byes: dict[tuple[int, int], tuple[int, str]]) -> _Entry:
        """The player's rounds with the byes of ``240`` records written into the rounds the 001
        record leaves empty; a 001 round that holds another result is a problem."""
        mine = {rnd: bye for (rank, rnd), bye in byes.items() if rank == entry.rank}
        if not mine:
            return entry
        blocks = list(entry.blocks)
        for rnd, (line, kind) in sorted(mine.items()):
            while len(blocks) < rnd:
                blocks.append(_Block(len(blocks) + 1, None, None, " ", ""))
            block = blocks[rnd - 1]
            if block is None:
                continue
            if block.opponent is None and block.code in _NOT_ENTERED:
                blocks[rnd - 1] = _Block(rnd, None, None, kind, block.text)
            elif block.opponent is not None or block.code != kind:
                self.problem(
                    entry.line,
                    _round_columns(rnd),
                    block.text,
                    f"the bye {kind} that record 240 on line {line} gives start rank "
                    f"{entry.rank} in round {rnd}",
                )
        return dataclasses.replace(entry, blocks=tuple(blocks))

    def abnormal_points(self, line: int, text: str) -> list[tuple[int, int, Fraction]]:
        """TRF-2026 ``299`` abnormal points (bonus or penalty, type blank): (line, start rank,
        points) for each player named; other types change a round's result and are not read."""
        kind = _field(text, 5, 5).strip()
        points_text = _field(text, 14, 17).strip()
        try:
            points = Fraction(points_text)
        except (ValueError, ZeroDivisionError):
            self.warn(line, "14-17", points_text, "abnormal points that cannot be read; skipped")
            return []
        if kind:
            self.warn(line, "5", kind, "an abnormal result (record 299) not read; skipped")
            return []
        found: list[tuple[int, int, Fraction]] = []
        column = 24
        while column <= len(text):
            rank_text = _field(text, column, column + 3).strip()
            if rank_text.isascii() and rank_text.isdigit() and int(rank_text):
                found.append((line, int(rank_text), points))
            column += 5
        return found

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
        if code in _PENDING_CODES and (color is not None or opponent_text):
            # A game paired and not yet played or entered: what pairing programs write when a
            # file is saved after pairing a round (Sharly Chess writes a game without result as
            # opponent, colour and a blank result). The reader stops before its round.
            return _Block(rnd, opponent, color, code, text, pending=True)
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

    def pre_entered_rounds(
        self, entries: list[_Entry], played: int, bonuses: list[tuple[int, int, Fraction]]
    ) -> int:
        """The rounds to read: up to the last round anybody was paired in or has a bye entered.

        A bye entered for a round nobody was paired in is kept when the printed points count it
        (the round is part of the event). When the printed points of every player with such a bye
        leave it out (or it gives no points, a ``Z``), it was entered ahead of a round not yet
        paired, as pairing programs do: the round is left out, with a warning. Without printed
        points the bye is kept.
        """
        last = played
        for entry in entries:
            for block in entry.blocks:
                if block is not None and block.code not in _NOT_ENTERED:
                    last = max(last, block.round)
        if last == played:
            return played
        extra = {rank: points for _, rank, points in bonuses}
        full = short = True
        ahead: list[tuple[_Entry, _Block]] = []
        for entry in entries:
            later = [
                b for b in entry.blocks[played:last] if b is not None and b.code not in _NOT_ENTERED
            ]
            if not later:
                continue
            ahead.extend((entry, b) for b in later)
            if entry.points is None:
                full = short = False
                continue
            base = extra.get(entry.rank, _ZERO)
            for b in entry.blocks[:played]:
                base += b.outcome.points if b is not None else _ZERO
            added = sum((b.outcome.points for b in later), _ZERO)
            full = full and entry.points == base + added
            short = short and entry.points == base
        if short:
            for entry, block in ahead:
                self.warn(
                    entry.line,
                    _round_columns(block.round),
                    block.text,
                    f"a bye entered for round {block.round}, which nobody was paired in and the "
                    "printed points do not count; the round is left out",
                )
            return played
        return last

    def players(
        self,
        entries: list[_Entry],
        rounds: int,
        *,
        check_points: bool,
        bonuses: list[tuple[int, int, Fraction]],
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
                if block.code == "*":
                    self.warn(
                        entry.line,
                        where,
                        block.text,
                        "a round not played (result '*', not yet known): read as absent",
                    )
                cells.append(
                    Cell(rnd, block.kind, block.outcome, opponent, block.color, origin=origin)
                )
            printed: dict[str, Fraction] = {}
            if entry.points is not None:
                printed["points"] = entry.points
                complete = all((position, rnd) not in unread for rnd in range(1, rounds + 1))
                if check_points and complete:
                    cells = self.check_points(entry, cells, bonuses)
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

    def check_points(
        self, entry: _Entry, cells: list[Cell], bonuses: list[tuple[int, int, Fraction]]
    ) -> list[Cell]:
        """Check the printed points against the rounds; explain a difference where the file does.

        * ``299`` bonus or penalty points of the player are part of the printed total.
        * Points printed beyond the rounds' sum, in halves, no more than a point for each round
          the player has without opponent and without points: the ICU's tools credit such a
          round ½ (sometimes 1) and write it as a bare ``-`` or ``0000 -``. The earliest such
          rounds are read as half-point byes, as many as explain the points, and as full-point
          byes only where half points on every such round cannot; each with a warning.
        Anything else is a problem.
        """
        assert entry.points is not None
        total = sum((c.outcome.points for c in cells), _ZERO)
        extra = [(line, points) for line, rank, points in bonuses if rank == entry.rank]
        bonus = sum((points for _, points in extra), _ZERO)
        if total + bonus == entry.points:
            for line, points in extra:
                self.warn(
                    entry.line,
                    "points (columns 81-84)",
                    entry.points_text,
                    f"includes {_decimal(points)} abnormal points (record 299, line {line}); "
                    "tie-breaks count the round results only",
                )
            return cells
        missing = entry.points - total - bonus
        absent = [i for i, c in enumerate(cells) if c.kind is CellKind.ABSENT]
        halves = missing / _HALF
        if missing > 0 and halves.denominator == 1 and halves <= 2 * len(absent):
            # As many half-point byes as can explain the points; full-point byes only for what
            # half points on every such round cannot.
            full = max(0, int(halves) - len(absent))
            half = int(halves) - 2 * full
            changed = list(cells)
            for n, i in enumerate(absent[: full + half]):
                cell = cells[i]
                bye = n < full
                changed[i] = Cell(
                    cell.round,
                    CellKind.BYE if bye else CellKind.REQUESTED_BYE,
                    Outcome.WIN if bye else Outcome.DRAW,
                    origin=cell.origin,
                )
                block = entry.blocks[i] if i < len(entry.blocks) else None
                self.warn(
                    entry.line,
                    _round_columns(cell.round),
                    block.text if block is not None else "",
                    f"{'a full-point' if bye else 'a half-point'} bye: the printed points, "
                    f"{entry.points_text}, count {_decimal(missing)} more than the rounds, "
                    "and this round has no opponent",
                )
            return changed
        expected = f"the sum of the round results, {_decimal(total)}"
        if bonus:
            expected += f", plus {_decimal(bonus)} abnormal points (record 299)"
        self.problem(entry.line, "points (columns 81-84)", entry.points_text, expected)
        return cells


def _decimal(value: Fraction) -> str:
    return f"{float(value):.1f}" if value.denominator <= 2 else str(value)
