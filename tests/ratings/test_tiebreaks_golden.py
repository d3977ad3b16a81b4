"""Golden tests: the tie-breaks real software printed, reproduced exactly.

Files (unchanged copies, see ``tests/data/SOURCES.md``):

* ``go_opengotha/juvisy2019.h9`` (lucvannier/opengotha ``exportfiles/Tournoi de Juvisy.h9`` @ 51fabb28)
  and ``juvisy2019.xml`` (``distribution/tournamentfiles/Tournoi de Juvisy.xml`` @ 8023f374):
  MMS, SOS, SOSOS of 19 players as OpenGotha printed them in the h9 file; bar 4D, floor 20K,
  absent round ½ rounded down, handicap games.
* ``go_opengotha/egc2013.h9`` and ``egc2013.xml`` (``distribution/...`` @ d2f4d3db): European Go
  Congress 2013, 594 players, 10 rounds, byes, absences, results by default, a super-group;
  MMS and SOS printed by OpenGotha.
* ``go_opengotha/ioct_20_02.h9`` (``exportfiles/ioct_20_02.h9`` @ b698ce83): NBW.
* ``chess_fide_exercise/`` (marceljuenemann/tiebreak @ ab3986e1, FIDE exercise of 2024-03-18):
  Buchholz, Buchholz Cut-1 and Sonneborn-Berger under the FIDE 2023 rules.

Every expected value is parsed from the files; none is written here.
"""

from __future__ import annotations

import dataclasses
import json
from fractions import Fraction

import pytest

from importers.h9 import read_h9
from importers.opengotha import policy_for, read_opengotha
from ratings.crosstable import Crosstable
from ratings.tiebreaks import McMahonScale, MissedRounds, Policy, compute, ordered
from tests.ratings.builder import build
from tests.support.data import GOLDEN

DATA = GOLDEN
GO = DATA / "go_opengotha"
# juvisy2019.xml and egc2013.xml: genMMBar="4D" genMMFloor="20K" genMMZero="30K".
SCALE = McMahonScale(bar="4d", floor="20k", zero="30k")


def _read(name: str) -> Crosstable:
    reader = read_h9 if name.endswith(".h9") else read_opengotha
    with (GO / name).open("rb") as stream:
        return reader(stream, name)


def _key(name: str) -> str:
    # h9 names are OpenGotha's "name firstName" cut to 30 characters.
    return name[:30].replace(" ", "").replace("_", "").upper()


def _mismatches(printed: Crosstable, computed: Crosstable, policy: Policy) -> dict[str, list[str]]:
    standings = {_key(s.name): s for s in compute(computed, policy)}
    wrong: dict[str, list[str]] = {"MMS": [], "SOS": [], "SOSOS": []}
    for player in printed.players:
        standing = standings[_key(player.name)]
        for column, value in (
            ("MMS", standing.mms),
            ("SOS", standing.sos),
            ("SOSOS", standing.sosos),
        ):
            if column in player.printed and player.printed[column] != value:
                wrong[column].append(
                    f"{player.name}: printed {player.printed[column]}, got {value}"
                )
    return wrong


@pytest.fixture(scope="module")
def egc_xml() -> Crosstable:
    return _read("egc2013.xml")


def test_juvisy_h9_mms_sos_sosos() -> None:
    h9 = _read("juvisy2019.h9")
    assert len(h9.players) == 19
    assert {"MMS", "SOS", "SOSOS"} <= set(h9.players[18].printed)
    policy = Policy.opengotha(round_down_missed=True, mcmahon=SCALE)
    assert _mismatches(h9, h9, policy) == {"MMS": [], "SOS": [], "SOSOS": []}


def test_juvisy_xml_against_h9() -> None:
    xml = _read("juvisy2019.xml")
    assert xml.parameters["genRoundDownNBWMMS"] == "true"
    mismatches = _mismatches(_read("juvisy2019.h9"), xml, policy_for(xml))
    assert mismatches == {"MMS": [], "SOS": [], "SOSOS": []}


def test_juvisy_places_from_ordered() -> None:
    h9 = _read("juvisy2019.h9")
    policy = Policy.opengotha(round_down_missed=True, mcmahon=SCALE)
    places = {
        p.standing.index: p.place for p in ordered(compute(h9, policy), ("mms", "sos", "sosos"))
    }
    last = 0
    for index, player in enumerate(h9.players):
        last = int(player.printed.get("Pl", last))  # blank = the place of the line above
        assert places[index] == last, player.name


def test_egc2013_xml_against_h9(egc_xml: Crosstable) -> None:
    h9 = _read("egc2013.h9")
    assert len(egc_xml.players) == len(h9.players) == 594
    assert egc_xml.rounds == h9.rounds == 10
    assert egc_xml.parameters["numberOfRounds"] == "20"
    mismatches = _mismatches(h9, egc_xml, policy_for(egc_xml))
    assert mismatches == {"MMS": [], "SOS": [], "SOSOS": []}


def test_egc2013_places_from_ordered(egc_xml: Crosstable) -> None:
    h9 = _read("egc2013.h9")
    standings = compute(egc_xml, policy_for(egc_xml))
    places = {_key(p.standing.name): p.place for p in ordered(standings, ("mms", "sos"))}
    last = 0
    for player in h9.players:
        last = int(player.printed.get("Pl", last))  # blank = the place of the line above
        assert places[_key(player.name)] == last, player.name


def test_egc2013_h9_with_super_group_from_xml(egc_xml: Crosstable) -> None:
    # The h9 file lacks the super-group bonus (smmsCorrection): take initial MMS from the XML.
    h9 = _read("egc2013.h9")
    initial = {_key(p.name): p.initial_mms for p in egc_xml.players}
    assert sum(1 for p in egc_xml.players if p.initial_mms != SCALE.initial(p.rank or "")) == 32
    with_initial = dataclasses.replace(
        h9,
        players=tuple(
            dataclasses.replace(p, initial_mms=initial[_key(p.name)]) for p in h9.players
        ),
    )
    policy = Policy.opengotha(round_down_missed=False)
    assert _mismatches(h9, with_initial, policy) == {"MMS": [], "SOS": [], "SOSOS": []}


def test_ioct_nbw() -> None:
    h9 = _read("ioct_20_02.h9")
    standings = compute(h9, Policy())
    assert [s.wins for s in standings] == [int(p.printed["NBW"]) for p in h9.players]


def _fide_exercise() -> Crosstable:
    text = (DATA / "chess_fide_exercise" / "fide-exercise-2023.csv").read_text()
    rows = []
    for line in text.splitlines()[1:]:
        number, *cells = line.split(",")
        tokens = []
        for cell in cells:
            if cell == "--":
                tokens.append("ABS")
            elif cell.endswith("BYE"):
                tokens.append("BYE" if cell[0] == "+" else "HBYE")
            elif cell[1] == "F":
                tokens.append(f"F{cell[0]}{cell[2:]}")
            else:
                tokens.append(f"{cell[0]}{cell[2:]}{cell[1].lower()}")
        rows.append((number, " ".join(tokens)))
    return build(rows, source="fide-exercise-2023.csv")


@pytest.mark.parametrize(("column", "field"), [("BH", "sos"), ("BH_C1", "sos_cut1"), ("SB", "sb")])
def test_fide_2023_exercise(column: str, field: str) -> None:
    expected = json.loads((DATA / "chess_fide_exercise" / "expected_values.json").read_text())
    standings = compute(_fide_exercise(), Policy(missed_rounds=MissedRounds.FIDE_2023))
    got = {number: getattr(standings[int(number) - 1], field) for number in expected[column]}
    assert got == {k: Fraction(str(v)) for k, v in expected[column].items()}


def test_fide_exercise_without_adjustment_differs() -> None:
    # The exercise's note: player 11's Buchholz without the 2023 adjustment (forfeit win vs 9).
    expected = json.loads((DATA / "chess_fide_exercise" / "expected_values.json").read_text())
    standings = compute(_fide_exercise(), Policy(missed_rounds=MissedRounds.OWN_MMS))
    assert standings[10].sos == Fraction(str(expected["note_BH_without_adjustment"]["11"]))


def _expected(name: str) -> dict[str, dict[str, Fraction]]:
    raw = json.loads((DATA / "chess_fide_exercise" / name).read_text())
    return {
        key: {number: Fraction(str(value)) for number, value in values.items()}
        for key, values in raw.items()
        if key in FIELDS
    }


FIELDS = {"BH": "sos", "BH_C1": "sos_cut1", "SB": "sb"}


def test_fide_2026_exercise_caps_the_dummy() -> None:
    """Players 4, 6 and 11 change under the 2026 caps; everybody else keeps the 2023 values."""
    changed = _expected("expected_values_2026.json")
    before = _expected("expected_values.json")
    standings = compute(_fide_exercise(), Policy(missed_rounds=MissedRounds.FIDE_2026))
    for column, field in FIELDS.items():
        expected = {**before[column], **changed[column]}
        got = {number: getattr(standings[int(number) - 1], field) for number in expected}
        assert got == expected, column


def test_fide_2009_exercise_virtual_opponent() -> None:
    expected = _expected("expected_values_2009.json")
    standings = compute(_fide_exercise(), Policy(missed_rounds=MissedRounds.FIDE_2009))
    for column, values in expected.items():
        got = {number: getattr(standings[int(number) - 1], FIELDS[column]) for number in values}
        assert got == values, column
