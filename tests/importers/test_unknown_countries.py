"""A code that names no country (``???``, ``ST.``, ``C.C``, a club's code) is stored as unknown
by every reader, each with a warning naming the file, line and value."""

from __future__ import annotations

from importers.crosstables import parse_crosstable
from importers.participants import read_participants
from importers.registry import KEPT, read_registry
from importers.results import read_results
from ratings.countries import UNKNOWN
from ratings.errors import Problem
from tests.importers.test_h9 import SMALL
from tests.support.data import GOLDEN

FIXTURES = GOLDEN.parent.parent / "importers" / "fixtures"


def test_a_results_table() -> None:
    text = (
        "tournament,end_date,name,country,wins,draws,losses,buchholz\n"
        "Open,2024-01-05,Ann Berg,GER,1,0,0,0\n"
        "Open,2024-01-05,Bob Li,???,0,0,1,1\n"
        "Open,2024-01-05,Cy Ode,C.C,0,0,0,0\n"
    )
    file = read_results(text.encode(), "open.csv", "csv")
    assert file.warnings == (
        Problem("open.csv", 3, "country", "???", UNKNOWN),
        Problem("open.csv", 4, "country", "C.C", UNKNOWN),
    )
    assert file.results["country"].to_list() == ["DEU", None, None]


def test_a_registry() -> None:
    text = "player_id,name,country\n1,Ann Berg,GER\n2,Bob Li,ST.\n3,Cy Ode,URS\n"
    registry = read_registry(text.encode(), "players.csv", "csv")
    # An update keeps the stored country rather than dropping it for a code that names none.
    assert registry.warnings == (Problem("players.csv", 3, "country", "ST.", KEPT),)
    assert registry.players["country"].to_list() == ["DEU", None, "SUN"]


def test_a_participant_list() -> None:
    text = "name,country,rating\nAnn Berg,GER,1500\nBob Li,SKB,1400\n"
    participants = read_participants(text.encode(), "entries.csv", "csv")
    assert participants.warnings == (Problem("entries.csv", 3, "country", "SKB", UNKNOWN),)
    assert participants.rows["country"].to_list() == ["DEU", None]


def test_a_trf_file() -> None:
    data = (
        (FIXTURES / "club_championship.trf")
        .read_bytes()
        .replace(b" POL     1100001", b" C.C     1100001")
    )
    crosstable = parse_crosstable(data, "club.trf")
    assert Problem("club.trf", 10, "54-56", "C.C", UNKNOWN) in crosstable.warnings
    assert [p.country for p in crosstable.players][:2] == [None, "GER"]


def test_a_crosstable_csv() -> None:
    data = (FIXTURES / "club_championship.csv").read_bytes().replace(b",GER,", b",???,")
    crosstable = parse_crosstable(data, "club.csv")
    assert Problem("club.csv", 3, "country", "???", UNKNOWN) in crosstable.warnings
    assert [p.country for p in crosstable.players][:2] == ["POL", None]


def test_an_h9_file() -> None:
    data = SMALL.replace(
        "Alpha Anna                      3D FR", "Alpha Anna                      3D ST."
    )
    crosstable = parse_crosstable(data.encode("iso8859_15"), "event.h9")
    assert Problem("event.h9", 5, "Co", "ST.", UNKNOWN) in crosstable.warnings
    assert [p.country for p in crosstable.players] == [None, None, "FR"]


def test_an_opengotha_file() -> None:
    data = (GOLDEN / "go_opengotha" / "egc2013.xml").read_bytes()
    crosstable = parse_crosstable(data.replace(b'country="JP"', b'country="C.C"', 1), "egc.xml")
    assert [w for w in crosstable.warnings if w.expected == UNKNOWN] == [
        Problem("egc.xml", 5, "country", "C.C", UNKNOWN)
    ]
    assert [p.country for p in crosstable.players if p.line == 5] == [None]
