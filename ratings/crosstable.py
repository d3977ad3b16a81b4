"""A tournament as a crosstable: every player's games, round by round.

This is what every crosstable reader (EGD h9, FIDE TRF, OpenGotha XML, MacMahon result list, plain
crosstable CSV) produces, and what the tie-break engine consumes. It holds no computed values: the
numbers a file printed (its own SOS, MMS, ...) are kept in ``CrosstablePlayer.printed`` only so they
can be checked against what the engine computes.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import date
from fractions import Fraction

from ratings.errors import Problem


class Outcome(enum.Enum):
    """The points a player took from one round: 1, ½ or 0."""

    WIN = "+"
    DRAW = "="
    LOSS = "-"

    @property
    def points(self) -> Fraction:
        return {Outcome.WIN: Fraction(1), Outcome.DRAW: Fraction(1, 2), Outcome.LOSS: Fraction(0)}[
            self
        ]


class CellKind(enum.Enum):
    """What happened to a player in one round."""

    GAME = "game"
    """A game played over the board against ``opponent``."""
    FORFEIT = "forfeit"
    """Paired against ``opponent`` but decided by default (not played): not a game for the rating."""
    BYE = "bye"
    """No opponent, points given by the pairing (pairing-allocated bye, ``0+`` in h9, ``U`` in TRF)."""
    REQUESTED_BYE = "requested_bye"
    """No opponent, a bye the player asked for (half-point bye ``H``, zero-point bye ``Z``)."""
    ABSENT = "absent"
    """Not paired at all in this round (absent, withdrawn, not yet entered)."""


class Color(enum.Enum):
    WHITE = "w"
    BLACK = "b"


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a reader found a cell, so that a problem with it names what a person finds in the
    file. Any part the format cannot give is None (the player's line, ``round N`` stand in)."""

    line: int | None = None
    column: str | None = None
    """The column as the format names it (``r3``, ``round 2 (columns 102-109)``, an attribute)."""
    text: str | None = None
    """The cell as written."""


@dataclass(frozen=True, slots=True)
class Cell:
    """One player's round."""

    round: int
    """1-based round number."""
    kind: CellKind
    outcome: Outcome
    """Points taken in this round; an absence without points is ``LOSS``."""
    opponent: int | None = None
    """0-based index into ``Crosstable.players`` for GAME and FORFEIT, else None."""
    color: Color | None = None
    handicap: int = 0
    """Handicap stones of the game (Go); 0 for an even game."""
    origin: Origin | None = field(default=None, compare=False)
    """Where the cell was read; not part of its value."""

    @property
    def played(self) -> bool:
        """True for a game over the board, the only kind the rating counts."""
        return self.kind is CellKind.GAME


@dataclass(frozen=True, slots=True)
class CrosstablePlayer:
    number: int
    """The number the file uses for this player (line number, start rank); 1-based."""
    name: str
    cells: tuple[Cell, ...]
    """One cell per round, in round order (rounds the player missed are ABSENT cells). A reader
    keeps what the file says even when it breaks this (two games in one round), for
    :func:`~ratings.tiebreaks.validation.validate` to report."""
    line: int | None = None
    """Line of the file the player was read from, for error messages."""
    player_id: str | None = None
    """Federation id (EGD PIN, FIDE id, national id) when the file gives one."""
    egd_pin: str | None = None
    """The player's EGD PIN when the file gives one (h9 ``|PIN`` column, OpenGotha ``egfPin``):
    the identity the European Go Database matches players by."""
    country: str | None = None
    club: str | None = None
    rank: str | None = None
    """Go rank such as ``3k`` or ``2d`` when the file gives one."""
    unread_rank: Origin | None = field(default=None, compare=False)
    """Where the file wrote a rank that says neither kyu nor dan (an h9 ``12``), which is then
    no rank (``rank`` is None): anything that needs the rank names this place instead."""
    rating: int | None = None
    title: str | None = None
    initial_mms: Fraction | None = None
    """Initial McMahon score, when the event is a McMahon event."""
    printed: Mapping[str, Fraction] = field(default_factory=dict)
    """Values the file printed (e.g. ``{"MMS": ..., "SOS": ...}``), kept for checks and tests."""

    @property
    def wins(self) -> int:
        return sum(1 for c in self.cells if c.played and c.outcome is Outcome.WIN)

    @property
    def draws(self) -> int:
        return sum(1 for c in self.cells if c.played and c.outcome is Outcome.DRAW)

    @property
    def losses(self) -> int:
        return sum(1 for c in self.cells if c.played and c.outcome is Outcome.LOSS)

    @property
    def points(self) -> Fraction:
        """Swiss points from every round, played or not."""
        return sum((c.outcome.points for c in self.cells), Fraction(0))


class System(enum.Enum):
    SWISS = "swiss"
    MCMAHON = "mcmahon"


@dataclass(frozen=True, slots=True)
class Crosstable:
    source: str
    """File name, for error messages and the tournament's source record."""
    format: str
    """Reader that produced it: ``h9``, ``trf``, ``opengotha``, ``macmahon``, ``csv``."""
    players: tuple[CrosstablePlayer, ...]
    rounds: int
    system: System = System.SWISS
    name: str | None = None
    start_date: date | None = None
    end_date: date | None = None
    parameters: Mapping[str, str] = field(default_factory=dict)
    """Event parameters the file states (bar, floor, absent-round rule, ...), as written."""
    warnings: tuple[Problem, ...] = ()
    """Where the reader had to guess (each with file, line, column, value and the guess made);
    shown to the user by ``standings``, ``import`` and the monthly job's report."""
    unfinished: bool = False
    """The file holds games without a result (an event saved before its last round ended): the
    crosstable stops at the last round whose results are all known. Standings can be shown;
    the event cannot be rated unless the officer says which round to stop at."""

    def through(self, rounds: int) -> Crosstable:
        """The event as it stood after ``rounds`` rounds (1 ≤ rounds ≤ self.rounds): later cells
        dropped. The rounds kept all have known results, so the result is a finished event."""
        players = tuple(replace(p, cells=p.cells[:rounds]) for p in self.players)
        return replace(self, players=players, rounds=rounds, unfinished=False)
