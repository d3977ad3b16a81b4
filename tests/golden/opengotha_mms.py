"""Initial McMahon scores of two OpenGotha events: what the files say and what OpenGotha implies.

``go_opengotha/juvisy2019.xml`` and ``egc2013.xml`` are OpenGotha's own saves of the events (see
``tests/data/SOURCES.md``). Each ``Player`` element gives ``rank`` (``18K``, ``3D``), ``rating``
(EGF scale), ``country``, ``egfPin`` and ``smmsCorrection``; the ``GeneralParameterSet`` gives the
McMahon bar ``genMMBar``, floor ``genMMFloor`` and origin ``genMMZero`` (the rank whose score is 0),
and ``genRoundDownNBWMMS``.

The ``.h9`` exports of the same events print each player's *final* McMahon score. A final score is
the initial one plus the points of every round: 1 per win, ½ per jigo, and for a round without a game
what the ``.h9`` cell says (``0+`` a bye, 1; ``0=`` an absence, ½; ``0-`` nothing). When the event
rounds scores down (``genRoundDownNBWMMS="true"``, Juvisy), the points are rounded down to a whole
number. So the initial score OpenGotha used is the printed score less those points.

The ``.h9`` name column is cut to 30 characters, so a player is found in the XML by the full name or,
failing that, by the one XML name the cut name begins.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from fractions import Fraction

from importers.h9 import read_h9
from tests.golden import DATA

FOLDER = DATA / "go_opengotha"
EVENTS = ("juvisy2019", "egc2013")


@dataclass(frozen=True, slots=True)
class GothaPlayer:
    name: str
    """Surname and first name, as the ``.h9`` file writes them."""
    country: str | None
    pin: str | None
    rank: str
    rating: int
    correction: int
    """``smmsCorrection``: OpenGotha's McMahon-group correction set by hand (+1 super-group)."""
    implied_mms: Fraction
    """Initial McMahon score implied by the ``.h9`` file's final score."""


@dataclass(frozen=True, slots=True)
class GothaEvent:
    bar: str
    floor: str
    zero: str
    round_down: bool
    players: tuple[GothaPlayer, ...]
    """In the XML file's order."""


def read_event(event: str) -> GothaEvent:
    root = ElementTree.parse(FOLDER / f"{event}.xml").getroot()
    general = root.find(".//GeneralParameterSet")
    assert general is not None
    round_down = general.get("genRoundDownNBWMMS", "true").lower() == "true"
    implied = _implied_scores(event, round_down)
    players = []
    for element in root.iter("Player"):
        attributes = element.attrib
        name = f"{attributes['name']} {attributes['firstName']}"
        players.append(
            GothaPlayer(
                name=name,
                country=attributes.get("country") or None,
                pin=attributes.get("egfPin") or None,
                rank=attributes["rank"],
                rating=int(attributes["rating"]),
                correction=int(attributes.get("smmsCorrection", "0")),
                implied_mms=_lookup(implied, name),
            )
        )
    return GothaEvent(
        bar=general.get("genMMBar", "9D"),
        floor=general.get("genMMFloor", "30K"),
        zero=general.get("genMMZero", "30K"),
        round_down=round_down,
        players=tuple(players),
    )


def _implied_scores(event: str, round_down: bool) -> dict[str, Fraction]:
    with (FOLDER / f"{event}.h9").open("rb") as stream:
        crosstable = read_h9(stream, f"{event}.h9")
    scores = {}
    for player in crosstable.players:
        points = player.points
        earned = Fraction(math.floor(points)) if round_down else points
        scores[player.name.lower()] = player.printed["MMS"] - earned
    return scores


def _lookup(implied: dict[str, Fraction], name: str) -> Fraction:
    key = name.lower()
    if key in implied:
        return implied[key]
    cut = [score for printed, score in implied.items() if key.startswith(printed)]
    assert len(cut) == 1, f"{name} is not in the .h9 file once"
    return cut[0]
