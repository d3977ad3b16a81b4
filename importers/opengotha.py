"""Reader for OpenGotha tournament files (``.xml``, the program's own save format).

What is read (attributes of the elements, as OpenGotha's ``Tournament.importXMLFile`` reads them):

* ``Player``: ``name``, ``firstName``, ``rank`` (such as ``3D``, ``18K``), ``country``, ``club``,
  ``egfPin``, ``rating``, ``smmsCorrection`` (the super-group bonus) and ``participating``, one
  ``0``/``1`` per round (``0`` = announced absent). A player's key, which games use, is surname and
  first name without blanks, upper case (``MOSCARDOLÉO``).
* ``Game``: ``roundNumber`` (1-based), ``whitePlayer``, ``blackPlayer``, ``handicap``,
  ``knownColor`` and ``result``: ``RESULT_WHITEWINS``, ``RESULT_BLACKWINS``, ``RESULT_EQUAL``,
  ``RESULT_BOTHWIN``, ``RESULT_BOTHLOSE``, each optionally ``_BYDEF`` (decided by default: a
  FORFEIT cell). Both-win and both-lose are referee decisions, not games: FORFEIT cells too.
  ``RESULT_UNKNOWN`` (result not entered yet: the file was saved during a round, or with the next
  round already paired) makes the event unfinished: the crosstable stops at the last round before
  the first one holding such a game, ``Crosstable.unfinished`` is set and a warning says so.
* ``ByePlayer``: the pairing bye of a round. OpenGotha 3.52 wraps them in a ``ByePlayer`` element
  without attributes; that wrapper is skipped. Player keys of games and byes are compared upper
  case, as OpenGotha does (3.52 writes bye keys in the case of the names: ``GuneyMete``); OpenGotha
  upper-cases with the computer's locale, so a file written in Turkey has ``İ`` where the names
  have ``i``: the dotted and the plain capital I are one letter here.
* ``GeneralParameterSet``: name, dates (an end date before the start date, which OpenGotha never
  checks, is a stale one: the start date is taken, with a warning), ``genMMBar``, ``genMMFloor``, ``genMMZero`` (default 30K),
  the points of an absent round and of a bye (``genMMS2Value…``/``genNBW2Value…``, in half points),
  ``genRoundDownNBWMMS``; ``HandicapParameterSet``; the tournament's ``PlacementCriterion`` list.
  All of these are kept in ``Crosstable.parameters`` as written.

Rounds: OpenGotha 3.49 and later export an event to h9 with one cell per *declared* round
(``numberOfRounds``) even when fewer were played, and compute its tie-breaks over them (a round
nobody was paired in is "not assigned" for everyone: no points, the player's own initial McMahon
score in SOS). Files written by those versions are read the same way, with a warning, so that the
XML and OpenGotha's own h9 export give the same values. Files Pairgoth exported (they give
``fullVersionNumber`` without OpenGotha's ``externalIPAddress``) have the rounds played, as
Pairgoth counts missed rounds in SOS only over the rounds played so far. Older files (EGC 2013's, written by 3.45,
declares 20 rounds; its h9 export has the 10 played) have as many rounds as the last round with a
game or a bye. A round without a game or bye is ABSENT: worth what the file gives an
absent round when the player was announced absent, nothing when he was present but not paired
(OpenGotha's "not assigned"). The event is McMahon when its first placement criterion is MMS; then
round values are the McMahon ones (``genMMS2Value…``), else the Swiss ones (``genNBW2Value…``).
Initial McMahon score, as OpenGotha's ``Player.smms``: the rank between floor and bar, counted from
``genMMZero``, plus ``smmsCorrection``. A placeholder rank outside the Go scale (``99K``, which
some registration imports write for "unknown") is read as an unknown rank: the floor, with a
warning.

Blank space before the XML declaration (uploaded files begin with a blank line) is skipped with a
warning; line numbers still count its lines. Pairgoth's export (a BOM, ``fullVersionNumber="3.52.03"``
without OpenGotha's ``externalIPAddress``) spells both-lose ``RESULT_BOTHLOOSE``, read as
``RESULT_BOTHLOSE``, and may end an ``egfPin`` with a line break, which is dropped. The file is parsed with ``defusedxml``'s SAX parser: no entity declarations, no entity expansion,
no external reference resolved. The ``<!DOCTYPE Tournament SYSTEM "tournament.dtd">`` line that
OpenGotha writes is accepted; the DTD it names is never fetched nor read.

Other XML files: MacMahon 3.9's ``TournamentData`` files are refused with a message naming them;
an event without players, or without any game or bye, is refused as an empty event.
"""

from __future__ import annotations

import io
import re
import typing
import xml.sax
import xml.sax.handler
import xml.sax.xmlreader
from dataclasses import dataclass
from datetime import date
from fractions import Fraction

import defusedxml
from defusedxml.expatreader import DefusedExpatParser

from importers.plaintext import read_bytes
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
from ratings.errors import InputError, Problem
from ratings.go import McMahonScale, rank_value
from ratings.tiebreaks.policy import Policy
from ratings.wording import counted

__all__ = ["policy_for", "read_opengotha"]

# Outcome of White and of Black for each OpenGotha result (the _BYDEF suffix is handled apart).
_RESULTS = {
    "RESULT_WHITEWINS": (Outcome.WIN, Outcome.LOSS),
    "RESULT_BLACKWINS": (Outcome.LOSS, Outcome.WIN),
    "RESULT_EQUAL": (Outcome.DRAW, Outcome.DRAW),
    "RESULT_BOTHWIN": (Outcome.WIN, Outcome.WIN),
    "RESULT_BOTHLOSE": (Outcome.LOSS, Outcome.LOSS),
    # Pairgoth's spelling, in the files it exports and the ones it reads.
    "RESULT_BOTHLOOSE": (Outcome.LOSS, Outcome.LOSS),
}
_HALF_POINTS = {"0": Outcome.LOSS, "1": Outcome.DRAW, "2": Outcome.WIN}
_UNKNOWN = "RESULT_UNKNOWN"
_DECLARED_ROUNDS_FROM = 349
"""First OpenGotha version (``gothaVersion``) whose h9 export has one cell per declared round:
3.49's export of Tournoi chinois has 5 cells for 1 round played, 3.45's of EGC 2013 has the 10
played of 20 declared."""


@dataclass(frozen=True, slots=True)
class _Element:
    line: int
    attributes: dict[str, str]


@dataclass(frozen=True, slots=True)
class _Held:
    """A game or bye of one player in one round, and the attribute that names him there."""

    element: _Element
    attribute: str
    role: str
    """``w`` or ``b`` (his colour in a game), or ``bye``."""


class _Collector(xml.sax.handler.ContentHandler):
    """Keeps the few elements the reader needs, with their line numbers."""

    def __init__(self) -> None:
        super().__init__()
        self.locator: xml.sax.xmlreader.Locator | None = None
        self.players: list[_Element] = []
        self.games: list[_Element] = []
        self.byes: list[_Element] = []
        self.general: _Element | None = None
        self.handicap: _Element | None = None
        self.criteria: list[str] = []
        self.path: list[str] = []
        self.root: str | None = None
        self.root_attributes: dict[str, str] = {}
        self.offset = 0
        """Lines left out before the XML declaration."""
        self.leading: str | None = None

    def setDocumentLocator(self, locator: xml.sax.xmlreader.Locator) -> None:
        self.locator = locator

    def startElement(self, name: str, attrs: xml.sax.xmlreader.AttributesImpl) -> None:
        line = ((self.locator.getLineNumber() if self.locator else None) or 0) + self.offset
        element = _Element(line, dict(attrs.items()))
        if self.root is None:
            self.root = name
            self.root_attributes = element.attributes
        parent = self.path[-1] if self.path else None
        self.path.append(name)
        if name == "Player" and parent == "Players":
            self.players.append(element)
        elif name == "Game" and parent == "Games":
            self.games.append(element)
        elif name == "ByePlayer" and element.attributes:
            # OpenGotha 3.52 wraps the byes in a ByePlayer element without attributes.
            self.byes.append(element)
        elif name == "GeneralParameterSet" and self.general is None:
            self.general = element
        elif name == "HandicapParameterSet" and self.handicap is None:
            self.handicap = element
        elif name == "PlacementCriterion" and "PlacementParameterSet" in self.path:
            # The individual criteria; the team ones sit outside TournamentParameterSet.
            self.criteria.append(element.attributes.get("name", "NULL"))

    def endElement(self, name: str) -> None:
        self.path.pop()


def read_opengotha(stream: typing.BinaryIO, source: str) -> Crosstable:
    """Read an OpenGotha tournament file; raise :class:`InputError` listing every problem found."""
    data, problems = read_bytes(stream, source)
    if problems:
        raise InputError(problems)
    collector = _Collector()
    if data[:1].isspace() and data.lstrip().startswith(b"<?xml"):
        # Blank space before the XML declaration (uploaded files begin with a blank line, files
        # cut from a template with spaces): XML wants the declaration first; the space is left
        # out and every line number still counts the lines it held.
        stripped = data.lstrip()
        skipped = data[: len(data) - len(stripped)]
        collector.offset = skipped.count(b"\n") or skipped.count(b"\r")
        collector.leading = skipped.decode("ascii", "replace")
        data = stripped
    parser = DefusedExpatParser(forbid_dtd=False, forbid_entities=True, forbid_external=False)
    # The DOCTYPE line names tournament.dtd; expat leaves external entities and the external
    # DTD unread (feature_external_ges/pes off), and the resolver refuses any other attempt.
    parser.setFeature(xml.sax.handler.feature_external_ges, False)
    parser.setFeature(xml.sax.handler.feature_external_pes, False)
    parser.setEntityResolver(_NoFetching())
    parser.setContentHandler(collector)
    try:
        parser.parse(io.BytesIO(data))
    except xml.sax.SAXParseException as error:
        raise InputError(
            [
                Problem(
                    source,
                    (error.getLineNumber() or 0) + collector.offset,
                    f"character {error.getColumnNumber()}",
                    None,
                    f"well-formed XML ({error.getMessage()})",
                )
            ]
        ) from None
    except (xml.sax.SAXException, defusedxml.DefusedXmlException, ValueError) as error:
        raise InputError([Problem(source, None, None, None, f"plain XML ({error})")]) from None
    except LookupError:
        # expat asks Python's codecs for an encoding it does not know itself, and the lookup's
        # error comes through as it is ("unknown encoding: aTF-8").
        declared = _DECLARED_ENCODING.match(data)
        raise InputError(
            [
                Problem(
                    source,
                    1 + collector.offset,
                    "encoding",
                    declared.group(1).decode("ascii", "replace") if declared else None,
                    "an encoding XML files are written in, such as UTF-8 or ISO-8859-1",
                )
            ]
        ) from None
    return _Builder(source, collector).build()


_DECLARED_ENCODING = re.compile(rb"""<\?xml[^>]*?\bencoding\s*=\s*["']([^"']*)["']""")


class _NoFetching(xml.sax.handler.EntityResolver):
    def resolveEntity(self, publicId: str | None, systemId: str) -> typing.NoReturn:
        raise xml.sax.SAXException(f"an external reference, not fetched ({systemId})")


def policy_for(crosstable: Crosstable) -> Policy:
    """The policy that reproduces what OpenGotha printed for this event: EGF missed rounds,
    handicap in SOS, and the file's "round down NBW and MMS" choice."""
    round_down = crosstable.parameters.get("genRoundDownNBWMMS", "true").lower() == "true"
    return Policy.opengotha(round_down_missed=round_down)


class _Builder(ProblemLog):
    def __init__(self, source: str, collector: _Collector) -> None:
        super().__init__(source)
        self.found = collector
        general = collector.general.attributes if collector.general else {}
        self.general = general
        self.mcmahon = bool(collector.criteria) and collector.criteria[0] == "MMS"
        self.keys: dict[str, int] = {}
        self.unknown_line: int | None = None
        if collector.leading is not None:
            self.warn(
                1,
                "character 1",
                collector.leading,
                "blank space before the XML declaration; left out",
            )

    def build(self) -> Crosstable:
        if self.found.root == "TournamentData":
            self.problem(
                1,
                None,
                self.found.root,
                "an OpenGotha or Pairgoth file, not this MacMahon 3.9 tournament file (root "
                "element TournamentData), which is not read: export the event from MacMahon as "
                "an EGD h9 file",
            )
            raise InputError(self.problems)
        if self.found.root != "Tournament":
            self.problem(1, None, self.found.root, "an OpenGotha file (root element Tournament)")
            raise InputError(self.problems)
        if not self.found.players:
            self.problem(
                None, "Players", None, "players and games: an empty event (no Player element)"
            )
            raise InputError(self.problems)
        keys = self.keys = self.player_keys()
        complete = self.complete_rounds()
        slots = self.rounds(keys, complete)
        played = max((r for _, r in slots), default=0)
        if complete == 0:
            self.problem(
                self.unknown_line,
                "result",
                _UNKNOWN,
                "a result in round 1: an unfinished event without one complete round has no "
                "standings",
            )
            raise InputError(self.problems)
        if played == 0:
            self.problem(
                None,
                "Games",
                None,
                "games or byes: an empty event (players registered, no game played)",
            )
            raise InputError(self.problems)
        rounds = self.declared_rounds(played, complete)
        players = tuple(self.player(i, e, slots, rounds) for i, e in enumerate(self.found.players))
        start, end = self.dates()
        crosstable = Crosstable(
            source=self.source,
            format="opengotha",
            players=players,
            rounds=rounds,
            system=System.MCMAHON if self.mcmahon else System.SWISS,
            name=self.general.get("name") or None,
            start_date=start,
            end_date=end,
            parameters={
                **self.general,
                **(self.found.handicap.attributes if self.found.handicap else {}),
                "placementCriteria": ",".join(c for c in self.found.criteria if c != "NULL"),
            },
            warnings=tuple(self.warnings),
            unfinished=complete is not None,
        )
        if self.problems:
            # Games that could not be placed would show up again as one-sided: check the games
            # only of a file read without problems.
            raise InputError(self.problems)
        return self.finish(crosstable)

    def player_keys(self) -> dict[str, int]:
        keys: dict[str, int] = {}
        for index, element in enumerate(self.found.players):
            attributes = element.attributes
            key = _key(attributes.get("name", ""), attributes.get("firstName", ""))
            if not key:
                self.problem(element.line, "name", "", "a player name")
            elif key in keys:
                self.problem(element.line, "name", key, "each player once (same name twice)")
            else:
                keys[key] = index
        return keys

    def complete_rounds(self) -> int | None:
        """None when every game has a result; else the last round before the first one holding a
        game without result (the standings OpenGotha would show "after round" that one)."""
        unknown = [g for g in self.found.games if g.attributes.get("result") == _UNKNOWN]
        self.unknown_line = min((g.line for g in unknown), default=None)
        rounds = [_round_number(g.attributes.get("roundNumber", "")) for g in unknown]
        known = [r for r in rounds if r is not None]
        if not known:
            return None
        first = min(known)
        self.warn(
            self.unknown_line,
            "result",
            _UNKNOWN,
            f"an unfinished event: {counted(len(unknown), 'game')} without result from round {first} on; "
            f"read as it stood after round {first - 1}",
        )
        return first - 1

    def declared_rounds(self, played: int, complete: int | None) -> int:
        """The rounds OpenGotha's own export counts (see the module's documentation)."""
        declared = _int(self.general.get("numberOfRounds"))
        version = _version(self.found.root_attributes)
        if (
            complete is not None
            or declared is None
            or declared <= played
            or version is None
            or version < _DECLARED_ROUNDS_FROM
            or _by_pairgoth(self.found.root_attributes)
        ):
            return played
        self.warn(
            self.found.general.line if self.found.general else None,
            "numberOfRounds",
            str(declared),
            f"{played} of {declared} declared rounds played: rounds {played + 1} to {declared} "
            "count as not paired for everyone, as OpenGotha's own h9 export of the file does",
        )
        return declared

    def rounds(
        self, keys: dict[str, int], complete: int | None
    ) -> dict[tuple[int, int], list[_Held]]:
        """What each (player, round) holds: games (with the player's colour) and byes, each with
        the element and attribute that name the player. A player the file names twice in a round
        keeps both, for the shared check of the games to report. Rounds after the last complete
        one (``complete``, None when all are) are left out."""
        slots: dict[tuple[int, int], list[_Held]] = {}

        def take(element: _Element, attribute: str, role: str) -> None:
            # OpenGotha finds players by key upper case; 3.52 writes bye keys in mixed case.
            key = _fold(element.attributes.get(attribute, ""))
            round_ = _round_number(element.attributes.get("roundNumber", ""))
            if round_ is not None and complete is not None and round_ > complete:
                return
            if round_ is None:
                self.problem(
                    element.line,
                    "roundNumber",
                    element.attributes.get("roundNumber"),
                    "a round ≥ 1",
                )
                return
            if key not in keys:
                self.problem(element.line, attribute, key, "the key of a Player of the file")
                return
            slots.setdefault((keys[key], round_), []).append(_Held(element, attribute, role))

        for game in self.found.games:
            if game.attributes.get("whitePlayer") == game.attributes.get("blackPlayer"):
                self.problem(
                    game.line,
                    "blackPlayer",
                    game.attributes.get("blackPlayer"),
                    "two different players",
                )
                continue
            take(game, "whitePlayer", "w")
            take(game, "blackPlayer", "b")
        for bye in self.found.byes:
            take(bye, "player", "bye")
        return slots

    def player(
        self,
        index: int,
        element: _Element,
        slots: dict[tuple[int, int], list[_Held]],
        rounds: int,
    ) -> CrosstablePlayer:
        attributes = element.attributes
        participating = attributes.get("participating", "")
        if participating.strip("01"):
            self.problem(element.line, "participating", participating, "a string of 0 and 1")
        cells = []
        for round_ in range(1, rounds + 1):
            held = slots.get((index, round_), [])
            if not held:
                absent = round_ <= len(participating) and participating[round_ - 1] == "0"
                value = self.value("Absent") if absent else Outcome.LOSS
                cells.append(Cell(round_, CellKind.ABSENT, value))
            for what in held:
                origin = Origin(
                    what.element.line, what.attribute, what.element.attributes.get(what.attribute)
                )
                if what.role == "bye":
                    cells.append(Cell(round_, CellKind.BYE, self.value("Bye"), origin=origin))
                else:
                    cells.append(self.game_cell(round_, what.element, what.role, origin))
        rank = attributes.get("rank", "")
        if rank_value(rank) is None:
            rank = ""  # a placeholder such as 99K: no rank (warned about in initial_mms)
        return CrosstablePlayer(
            number=index + 1,
            name=" ".join(p for p in (attributes.get("name"), attributes.get("firstName")) if p),
            cells=tuple(cells),
            line=element.line,
            # Pairgoth's export can end a PIN with a line break (a blank once parsed).
            player_id=attributes.get("egfPin", "").strip() or None,
            egd_pin=attributes.get("egfPin", "").strip() or None,
            country=attributes.get("country") or None,
            club=attributes.get("club") or None,
            rank=rank.lower() or None,
            rating=_int(attributes.get("rating")),
            initial_mms=self.initial_mms(element) if self.mcmahon else None,
        )

    def game_cell(self, round_: int, game: _Element, colour: str, origin: Origin) -> Cell:
        attributes = game.attributes
        result = attributes.get("result", "")
        by_default = result.endswith("_BYDEF")
        outcomes = _RESULTS.get(result.removesuffix("_BYDEF"))
        if outcomes is None:
            self.problem(
                game.line,
                "result",
                result,
                "a result: RESULT_WHITEWINS, RESULT_BLACKWINS, RESULT_EQUAL, RESULT_BOTHWIN or "
                "RESULT_BOTHLOSE, optionally _BYDEF (a game without result cannot be rated)",
            )
            outcomes = (Outcome.LOSS, Outcome.LOSS)
        handicap = _int(attributes.get("handicap", "0"))
        if handicap is None or not 0 <= handicap <= 9:
            self.problem(game.line, "handicap", attributes.get("handicap"), "a handicap 0 to 9")
            handicap = 0
        opponent_attribute = "blackPlayer" if colour == "w" else "whitePlayer"
        opponent_key = _fold(attributes.get(opponent_attribute, ""))
        known_colour = attributes.get("knownColor", "true").lower() != "false"
        both_same = outcomes[0] is outcomes[1] and outcomes[0] is not Outcome.DRAW
        return Cell(
            round_,
            CellKind.FORFEIT if by_default or both_same else CellKind.GAME,
            outcomes[0] if colour == "w" else outcomes[1],
            opponent=self.keys.get(opponent_key),
            color=(Color.WHITE if colour == "w" else Color.BLACK) if known_colour else None,
            handicap=handicap,
            origin=origin,
        )

    def value(self, what: str) -> Outcome:
        """Points of an absent round or a bye in the event's main score, from half points."""
        attribute = f"gen{'MMS' if self.mcmahon else 'NBW'}2Value{what}"
        text = self.general.get(attribute, "0")
        outcome = _HALF_POINTS.get(text)
        if outcome is None:
            self.problem(
                self.found.general.line if self.found.general else None,
                attribute,
                text,
                "0, 1 or 2 half points",
            )
            return Outcome.LOSS
        return outcome

    def initial_mms(self, element: _Element) -> Fraction:
        """OpenGotha's ``Player.smms``: rank clamped to floor and bar, from zero, plus correction."""
        attributes = element.attributes
        scale = McMahonScale(
            bar=self.general.get("genMMBar", "9D"),
            floor=self.general.get("genMMFloor", "30K"),
            zero=self.general.get("genMMZero", "30K"),
        )
        by_hand = _int(attributes.get("smmsByHand", "-1"))
        if by_hand is not None and by_hand >= 0:
            return Fraction(by_hand)
        rank = attributes.get("rank", "")
        if rank_value(rank) is None and re.fullmatch(r"\d+[kK]", rank):
            # A kyu rank beyond 30k is a registration placeholder ("99K" = unknown): the floor.
            self.warn(element.line, "rank", rank, "an unknown rank: the McMahon floor")
            rank = scale.floor
        initial = scale.initial(rank)
        if initial is None:
            bad = [r for r in (attributes.get("rank", ""),) if rank_value(r) is None]
            column, value = ("rank", bad[0]) if bad else ("genMMBar", scale.bar)
            self.problem(element.line, column, value, "a Go rank such as 18K or 3D")
            return Fraction(0)
        correction = _int(attributes.get("smmsCorrection", "0"))
        if correction is None:
            self.problem(
                element.line, "smmsCorrection", attributes.get("smmsCorrection"), "a whole number"
            )
            correction = 0
        return Fraction(initial + correction)

    def dates(self) -> tuple[date | None, date | None]:
        found: list[date | None] = []
        for attribute in ("beginDate", "endDate"):
            text = self.general.get(attribute)
            try:
                found.append(date.fromisoformat(text) if text else None)
            except ValueError:
                line = self.found.general.line if self.found.general else None
                self.problem(line, attribute, text, "a date as YYYY-MM-DD")
                found.append(None)
        start, end = found
        if start and end and end < start:
            # OpenGotha fills both dates when the event is created and never checks them: a
            # director who moves the start date and forgets the end date leaves it earlier.
            line = self.found.general.line if self.found.general else None
            self.warn(
                line,
                "endDate",
                end.isoformat(),
                f"an end date before the start date, {start.isoformat()}: the start date is "
                "taken as the end date (give --end-date to import with another)",
            )
            end = start
        return start, end


def _key(name: str, first_name: str) -> str:
    return _fold((name + first_name).replace(" ", ""))


def _fold(key: str) -> str:
    """A player key as OpenGotha compares it: upper case. OpenGotha upper-cases with the locale of
    the computer it runs on, and under a Turkish locale ``i`` becomes the dotted ``İ`` (files
    written in Turkey hold game keys such as ``ARİKANUGUR``); both capitals are one letter here."""
    return key.upper().replace("\u0130", "I")


def _int(text: str | None) -> int | None:
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None


def _round_number(text: str) -> int | None:
    number = _int(text)
    return number if number is not None and 1 <= number <= 1000 else None


def _by_pairgoth(root: dict[str, str]) -> bool:
    """Whether Pairgoth wrote the file: its export names the OpenGotha version it imitates but not
    the ``externalIPAddress`` every OpenGotha that writes ``fullVersionNumber`` (3.49 on) adds.
    Pairgoth counts the rounds played, not the declared ones, for missed rounds in SOS."""
    return "fullVersionNumber" in root and "externalIPAddress" not in root


def _version(root: dict[str, str]) -> int | None:
    """The writing OpenGotha's version as ``gothaVersion`` numbers it (3.49.05 → 349)."""
    full = re.match(r"(\d+)\.(\d{2})", root.get("fullVersionNumber", ""))
    if full:
        return int(full.group(1)) * 100 + int(full.group(2))
    return _int(root.get("gothaVersion"))
