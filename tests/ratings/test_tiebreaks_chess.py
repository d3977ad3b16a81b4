"""Golden tests: chess tie-breaks under the FIDE 2023 rules against values published by others.

* ``chess_fide_exercise/``: the tie-break exercise FIDE's technical commission published on
  2024-03-18, as transcribed in marceljuenemann/tiebreak @ ab3986e1 (``fide-exercise-2023.csv``),
  and the Buchholz, Buchholz Cut-1 and Sonneborn-Berger values after round 5 that the same
  repository's tests expect (``expected_values.json``).
* ``chess_vega/``: three Swiss events of 2025 published with the Vega pairing program
  (samuraitruong/vegashare): the crosstable pages give the rounds, the standings pages the BH,
  BH Cut-1 and SB values Vega printed (the "Best in the West" page prints BH only).

Every expected value is read from those files; see ``tests/data/SOURCES.md``.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from ratings import tiebreaks
from ratings.crosstable import Crosstable
from tests.golden import fide_exercise, vega

FIELDS = {"BH": "sos", "BH_C1": "sos_cut1", "SB": "sb", "BH-C1": "sos_cut1"}
"""Names the files use, to the ``Standing`` fields that hold the same value."""


def computed(crosstable: Crosstable, name: str) -> dict[int, Fraction]:
    """The engine's value of tie-break ``name`` for every player, by the player's number."""
    policy = tiebreaks.Policy(missed_rounds=tiebreaks.MissedRounds.FIDE_2023)
    standings = tiebreaks.compute(crosstable, policy)
    return {crosstable.players[s.index].number: getattr(s, FIELDS[name]) for s in standings}


def mismatches(
    expected: dict[int, Fraction], actual: dict[int, Fraction]
) -> dict[int, tuple[str, str]]:
    """``{player: (expected, computed)}`` for every player whose values differ."""
    return {
        number: (str(value), str(actual[number]))
        for number, value in sorted(expected.items())
        if actual[number] != value
    }


@pytest.mark.parametrize("name", ["BH", "BH_C1", "SB"])
def test_fide_2023_exercise(name: str) -> None:
    """``chess_fide_exercise/expected_values.json`` (marceljuenemann/tiebreak @ ab3986e1)."""
    crosstable = fide_exercise.read_exercise()
    expected = fide_exercise.expected_values()[name]
    assert expected, "the exercise lists values for this tie-break"
    assert mismatches(expected, computed(crosstable, name)) == {}


def test_fide_2023_exercise_scores() -> None:
    """Points after round 5 as the crosstable gives them, before any tie-break rule applies."""
    crosstable = fide_exercise.read_exercise()
    standings = tiebreaks.compute(
        crosstable, tiebreaks.Policy(missed_rounds=tiebreaks.MissedRounds.FIDE_2023)
    )
    assert [s.points for s in standings] == [p.points for p in crosstable.players]


VEGA_VALUES = [
    (event, name)
    for event, names in (
        ("aprilrapid2025", ("BH", "BH-C1", "SB")),
        ("bestinthewest2025", ("BH",)),
        ("koshnitskycup2025", ("BH", "BH-C1", "SB")),
    )
    for name in names
]


def as_printed(value: Fraction, text: str) -> str:
    """``value`` written with as many decimals as ``text`` has, as Vega's printf rounds it.

    The Koshnitsky Cup page prints SB with one decimal: 9.25 shows as 9.2 and 13.75 as 13.8
    (round half to even, exact for quarters in binary).
    """
    decimals = len(text.partition(".")[2])
    return f"{float(value):.{decimals}f}"


@pytest.mark.parametrize(("event", "name"), VEGA_VALUES)
def test_vega_standings(event: str, name: str) -> None:
    """``chess_vega/{event}_standings.html`` against ``{event}_crosstable.html`` (vegashare)."""
    crosstable, standings = vega.read_event(event)
    values = computed(crosstable, name)
    wrong = {
        number: (printed[name], as_printed(values[number], printed[name]))
        for number, printed in sorted(standings.values.items())
        if as_printed(values[number], printed[name]) != printed[name]
    }
    assert len(standings.values) == len(crosstable.players)
    assert wrong == {}


def test_vega_pages_cover_every_player() -> None:
    """190 players in all (106 + 35 + 49), each with the values the standings page prints."""
    events = {event: vega.read_event(event) for event in vega.EVENTS}
    counts = {event: len(crosstable.players) for event, (crosstable, _) in events.items()}
    assert counts == {"aprilrapid2025": 49, "bestinthewest2025": 106, "koshnitskycup2025": 35}
    for event, name in VEGA_VALUES:
        assert all(name in values for values in events[event][1].values.values())
