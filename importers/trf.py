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
import typing
from datetime import date
from fractions import Fraction

from importers.problems import ProblemLog
from importers.trf_dates import read_date
from importers.trf_records import (
    LINE_BREAK,
    NOT_ENTERED,
    Block,
    Entry,
    Records,
    read_records,
    round_columns,
    round_dates,
)
from ratings.crosstable import Cell, CellKind, Crosstable, CrosstablePlayer, Origin, Outcome
from ratings.tiebreaks.policy import MissedRounds, Policy
from ratings.wording import counted

__all__ = ["event_dates", "policy_for", "read_trf"]

_ZERO = Fraction(0)
_HALF = Fraction(1, 2)

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
    for number, line in enumerate(LINE_BREAK.split(text), start=1):
        code = line[:3]
        if code in ("042", "052") and code not in found:
            when = read_date(line[4:].strip())[0] if line[4:].strip() else None
            if when is not None:
                found[code] = when
        elif code == "132":
            rounds.extend(when for _, _, when, _ in round_dates(reader, number, line))
    start = found.get("042") or (min(rounds) if rounds else None)
    end = found.get("052") or (max(rounds) if rounds else None) or start
    return start, end


def read_trf(stream: typing.BinaryIO, source: str) -> Crosstable:
    """Read a TRF16 file into a crosstable, or raise one InputError listing every problem found."""
    reader = _Reader(source)
    return reader.read(stream.read())


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

    def read(self, data: bytes) -> Crosstable:
        """The crosstable of a file: its records read (``importers.trf_records``), then what
        they mean together."""
        text = self.decode(data)
        if text is None:
            self.fail()
        if not text.strip():
            self.problem(
                None, None, None, "a TRF file with player records (001); the file is empty"
            )
            self.fail()
        return self.crosstable(read_records(self, text))

    # --- what the records mean together ------------------------------------------------------

    def crosstable(self, records: Records) -> Crosstable:
        """The crosstable of ``records``, or raise every problem found."""
        dates = self.event_dates(records)
        self.check_counts(records, dates)
        entries, rounds, complete = self.rounds(records)
        headers = records.headers
        if records.rounds_line is not None:
            headers["rounds_planned"] = str(records.rounds_line[1])
        players, unread = self.players(
            entries, rounds, check_points=not records.scoring_given, bonuses=records.bonuses
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

    def event_dates(self, records: Records) -> dict[str, tuple[int, date, str]]:
        """The start (042) and end (052) dates: as written, else from the round dates, else the
        start date as the end date (each taken with a warning)."""
        dates = records.dates
        self.dates_from_rounds(dates, records.round_dates)
        if "042" in dates and "052" not in dates:
            line, _, written = dates["042"]
            self.warn(
                line,
                "5-14",
                written,
                "the file gives no end date (052): the start date is taken as the end date",
            )
            dates["052"] = dates["042"]
        return dates

    def check_counts(self, records: Records, dates: dict[str, tuple[int, date, str]]) -> None:
        """Problems of the file as a whole: no player record, an end before the start, another
        number of players than the 062 record gives."""
        entries = records.entries
        if not entries and not self.problems:
            self.problem(None, None, None, "at least one player record (001)")
        if "042" in dates and "052" in dates and dates["052"][1] < dates["042"][1]:
            line, _, written = dates["052"]
            self.problem(line, "5-14", written, f"an end date on or after {dates['042'][1]}")
        players_line = records.players_line
        if players_line is not None and entries and players_line[1] != len(entries):
            self.problem(
                players_line[0],
                "5-8",
                str(players_line[1]),
                f"the number of player records (001) in the file, {len(entries)}",
            )

    def rounds(self, records: Records) -> tuple[list[Entry], int, int | None]:
        """The player records with their 240 byes, the rounds to read, and the rounds complete
        (None: every game paired has a result). Stops reading when no round can be read."""
        entries = records.entries
        if not records.teams:
            # In a team event the ids of a 240 record are teams, not players.
            entries = [self.with_byes(entry, records.byes) for entry in entries]
        entries, complete = self.complete_rounds(entries)
        rounds = self.pre_entered_rounds(entries, self.played_rounds(entries), records.bonuses)
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
        rounds_line = records.rounds_line
        if rounds_line is not None and rounds > rounds_line[1]:
            self.problem(
                rounds_line[0],
                "5-8",
                str(rounds_line[1]),
                f"at least the {rounds} rounds that the player records show",
            )
        return entries, rounds, complete

    @staticmethod
    def agreed_pending(entry: Entry, block: Block, by_rank: dict[int, Entry]) -> bool:
        """Whether the opponent's record shows the same game, without result too: a game
        written without result on one side only is a line cut short, not a round in progress."""
        other = by_rank.get(block.opponent or 0)
        if other is None or other is entry or block.round > len(other.blocks):
            return False
        mirror = other.blocks[block.round - 1]
        return mirror is not None and mirror.pending and mirror.opponent == entry.rank

    def complete_rounds(self, entries: list[Entry]) -> tuple[list[Entry], int | None]:
        """The records, and None when every game paired has a result; else the rounds before the
        first one holding a game without result (``standings`` shows the event as it stood then,
        ``import`` rates it only when told to stop there). A game without result in round 1
        leaves no standings. A game without result on one side only is a problem, its block
        unread."""
        by_rank = {entry.rank: entry for entry in entries}
        pending: list[tuple[int, int, str]] = []
        checked: list[Entry] = []
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
                        round_columns(block.round),
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
        where = round_columns(first)
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
                round_columns(rnd).replace("round", "date of round", 1),
                written,
                f"the file gives no {which} date ({code}): the date of round {rnd} in record "
                f"132, {when.isoformat()}, is taken as the {which} date",
            )
            dates[code] = (line, when, written)

    def with_byes(self, entry: Entry, byes: dict[tuple[int, int], tuple[int, str]]) -> Entry:
        """The player's rounds with the byes of ``240`` records written into the rounds the 001
        record leaves empty; a 001 round that holds another result is a problem."""
        mine = {rnd: bye for (rank, rnd), bye in byes.items() if rank == entry.rank}
        if not mine:
            return entry
        blocks = list(entry.blocks)
        for rnd, (line, kind) in sorted(mine.items()):
            while len(blocks) < rnd:
                blocks.append(Block(len(blocks) + 1, None, None, " ", ""))
            block = blocks[rnd - 1]
            if block is None:
                continue
            if block.opponent is None and block.code in NOT_ENTERED:
                blocks[rnd - 1] = Block(rnd, None, None, kind, block.text)
            elif block.opponent is not None or block.code != kind:
                self.problem(
                    entry.line,
                    round_columns(rnd),
                    block.text,
                    f"the bye {kind} that record 240 on line {line} gives start rank "
                    f"{entry.rank} in round {rnd}",
                )
        return dataclasses.replace(entry, blocks=tuple(blocks))

    @staticmethod
    def played_rounds(entries: list[Entry]) -> int:
        rounds = 0
        for entry in entries:
            for block in entry.blocks:
                if block is not None and (block.opponent is not None or block.code == "U"):
                    rounds = max(rounds, block.round)
        return rounds

    def pre_entered_rounds(
        self, entries: list[Entry], played: int, bonuses: list[tuple[int, int, Fraction]]
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
                if block is not None and block.code not in NOT_ENTERED:
                    last = max(last, block.round)
        if last == played:
            return played
        extra = {rank: points for _, rank, points in bonuses}
        full = short = True
        ahead: list[tuple[Entry, Block]] = []
        for entry in entries:
            later = [
                b for b in entry.blocks[played:last] if b is not None and b.code not in NOT_ENTERED
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
                    round_columns(block.round),
                    block.text,
                    f"a bye entered for round {block.round}, which nobody was paired in and the "
                    "printed points do not count; the round is left out",
                )
            return played
        return last

    def players(
        self,
        entries: list[Entry],
        rounds: int,
        *,
        check_points: bool,
        bonuses: list[tuple[int, int, Fraction]],
    ) -> tuple[tuple[CrosstablePlayer, ...], set[tuple[int, int]]]:
        """The players in start-rank order, and (player index, round) of every block that could
        not be read (a placeholder stands in for it; its problem is already reported)."""
        by_rank: dict[int, Entry] = {}
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
                    else Block(rnd, None, None, " ", "")
                )
                where = round_columns(rnd)
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
        self, entry: Entry, cells: list[Cell], bonuses: list[tuple[int, int, Fraction]]
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
                    round_columns(cell.round),
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
