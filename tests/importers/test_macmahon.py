"""MacMahon program result list reader.

``fixtures/macmahon_sample.txt`` is a made-up 8-player, 4-round event laid out like the list of
seed 000 (``Pl Name Str Cl MMS 1 2 3 4 Pt SOS SOSOS``, the Hannover 2006 example). Its MMS, Pt,
SOS and SOSOS were worked out by hand: initial MMS on seed 000's scale (20 kyu = 0, bar at 4 dan:
23), SOS = sum of the opponents' final MMS, SOSOS = sum of the opponents' SOS.
"""

from __future__ import annotations

import io
import pathlib
from fractions import Fraction

import pytest

from importers.macmahon import read_macmahon
from ratings.crosstable import CellKind, Crosstable, Outcome, System
from ratings.errors import InputError
from ratings.tiebreaks import compute

FIXTURE = pathlib.Path(__file__).parent / "fixtures" / "macmahon_sample.txt"
TEXT = FIXTURE.read_text(encoding="utf-8")


def read(text: str | bytes, name: str = "list.txt") -> Crosstable:
    data = text.encode("utf-8") if isinstance(text, str) else text
    return read_macmahon(io.BytesIO(data), name)


def test_sample() -> None:
    table = read(TEXT)
    assert (table.name, table.system, table.rounds, len(table.players)) == (
        "Hannover Herbstturnier (Beispiel)",
        System.MCMAHON,
        4,
        8,
    )
    first = table.players[0]
    assert (first.name, first.rank, first.club, first.line) == ("Brandt Mirko", "4d", "Ham", 5)
    assert first.initial_mms == 23
    assert table.players[3].printed["MMS"] == Fraction(47, 2)
    assert (first.cells[0].opponent, first.cells[0].outcome) == (1, Outcome.LOSS)


def test_sample_tie_breaks_match_the_printed_ones() -> None:
    table = read(TEXT)
    for player, standing in zip(table.players, compute(table), strict=True):
        assert standing.mms == player.printed["MMS"], player.name
        assert standing.sos == player.printed["SOS"], player.name
        assert standing.sosos == player.printed["SOSOS"], player.name


def test_seed_lines_with_shared_place_missing_club_and_missed_round() -> None:
    text = """\
Pl Name        Str Cl  MMS  1   2  Pt SOS SOSOS
 1 Bao Yun     7d Bei  39½ 2+  3=  1½ 77½ 152
   Cho Soek    7d      38½ 1-  0=  0  40  80
 3 Zhou Li     5d F    38½ 0-  1=  ½  40  80
"""
    table = read(text)
    assert [p.club for p in table.players] == ["Bei", None, "F"]
    assert "Pl" not in table.players[1].printed
    assert [p.initial_mms for p in table.players] == [38, 38, 38]
    assert table.players[1].cells[1].kind is CellKind.ABSENT


def test_truncated_line() -> None:
    text = TEXT.replace("  92½   369", "")
    with pytest.raises(InputError, match=r"list.txt, line 5: value '1 Brandt.*truncated line"):
        read(text)


def test_unknown_result_code() -> None:
    with pytest.raises(InputError, match=r"line 5, column '1': value '2x'.*\+ \(won\)"):
        read(TEXT.replace("   2-   3+", "   2x   3+"))


def test_opponent_out_of_range() -> None:
    with pytest.raises(InputError, match=r"line 5, column 'round 1': value '9'.*between 1 and 8"):
        read(TEXT.replace("   2-   3+", "   9-   3+"))


def test_one_sided_game() -> None:
    # Brandt says he lost to player 2 in round 1; Albrecht's row says he was absent.
    text = TEXT.replace("   1+   5+   3-   4-   2", "   0-   5+   3-   4-   1")
    with pytest.raises(InputError, match=r"line 5, column 'round 1'.*one-sided game"):
        read(text.replace("  25 ", "  24 "))


def test_player_twice_in_a_round() -> None:
    # Albrecht (2) and Dietz (3) both claim Brandt (1) in round 2.
    with pytest.raises(InputError, match=r"2 players \(2, 3\) say they played him"):
        read(TEXT.replace("   1+   5+   3-", "   1+   1+   3-"))


def test_points_must_match_results() -> None:
    with pytest.raises(InputError, match=r"line 5, column 'Pt': value '4'.*round cells \(3\)"):
        read(TEXT.replace("   6+   3  92½", "   6+   4  92½"))


def test_bad_encoding() -> None:
    data = TEXT.encode("utf-8").replace("Göt".encode(), b"G\x81t\xff")
    with pytest.raises(
        InputError, match=r"line 10: value \"b'\\\\x81'\": text in UTF-8 or Windows-1252"
    ):
        read(data)


def test_latin_text_is_read_as_windows_1252() -> None:
    table = read(TEXT.encode("cp1252"))
    assert table.players[5].club == "Göt"


def test_missing_header() -> None:
    with pytest.raises(InputError, match=r"list\.txt: a header line 'Pl Name Str Cl MMS"):
        read("just some text\n")


def test_header_without_rounds() -> None:
    with pytest.raises(InputError, match=r"line 1: value 'Pl Name Str Cl MMS Pt': columns"):
        read("Pl Name Str Cl MMS Pt\n 1 A B 1d X 20 0\n")
