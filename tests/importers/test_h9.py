"""EGD h9 reader: the golden OpenGotha exports and every kind of bad input.

``go_opengotha/*.h9`` are unchanged OpenGotha exports (see ``tests/data/SOURCES.md``).
"""

from __future__ import annotations

import io
from datetime import date
from fractions import Fraction

import pytest

from importers.h9 import read_h9
from ratings.crosstable import CellKind, Color, Crosstable, Outcome, System
from ratings.errors import InputError
from ratings.tiebreaks.policy import MissedRounds, Policy
from tests.support.data import DATA, GOLDEN

GO = GOLDEN / "go_opengotha"

SMALL = """\
; CL[B]
; EV[Spring Cup]
; DT[2024-05-01,2024-05-02]
; Pl Name                            Rk Co Club  MMS  SOS
   1 Alpha Anna                      3D FR Club   32   60 0 0    2+/w0    3+!b1
     Beta Bob                        2D XX xxxx   31   61 0 0    1-/b0    0=
   3 Gamma Carl                      1D FR Club 30?  62? 0 0    0+       1-!w1
"""


def read(text: str | bytes, name: str = "event.h9") -> Crosstable:
    data = text.encode("iso8859_15") if isinstance(text, str) else text
    return read_h9(io.BytesIO(data), name)


def golden(name: str) -> str:
    return (GO / name).read_bytes().decode("iso8859_15")


def test_small_file() -> None:
    table = read(SMALL)
    assert (table.name, table.start_date, table.end_date) == (
        "Spring Cup",
        date(2024, 5, 1),
        date(2024, 5, 2),
    )
    assert table.system is System.MCMAHON
    assert table.parameters["CL"] == "B"
    assert table.parameters["criteria"] == "MMS,SOS"
    alpha, beta, gamma = table.players
    assert alpha.printed == {"Pl": 1, "MMS": 32, "SOS": 60}
    assert "Pl" not in beta.printed  # shares the place above
    assert gamma.printed["MMS"] == Fraction(61, 2)
    assert (beta.country, beta.club, alpha.rank, alpha.line) == (None, None, "3d", 5)
    assert (alpha.cells[1].opponent, alpha.cells[1].handicap) == (2, 1)
    assert alpha.cells[1].color is Color.BLACK
    assert gamma.cells[1].kind is alpha.cells[1].kind is CellKind.FORFEIT
    assert (gamma.cells[0].kind, gamma.cells[0].outcome) == (CellKind.BYE, Outcome.WIN)
    assert (beta.cells[1].kind, beta.cells[1].outcome) == (CellKind.ABSENT, Outcome.DRAW)


def test_utf8_with_half_sign() -> None:
    table = read(SMALL.replace("30?  62?", "30½  62½").encode("utf-8"))
    assert table.players[2].printed["SOS"] == Fraction(125, 2)


def test_golden_files_read() -> None:
    juvisy = read(golden("juvisy2019.h9"), "juvisy2019.h9")
    assert (len(juvisy.players), juvisy.rounds) == (19, 4)
    assert juvisy.players[3].name == "Li Boyuan"
    egc = read(golden("egc2013.h9"), "egc2013.h9")
    assert (len(egc.players), egc.rounds) == (594, 10)
    forfeits = sum(1 for p in egc.players for c in p.cells if c.kind is CellKind.FORFEIT)
    assert forfeits == 2 * 33  # the XML's 33 results by default
    ioct = read(golden("ioct_20_02.h9"), "ioct_20_02.h9")
    assert ioct.system is System.SWISS
    assert [p.printed["NBW"] for p in ioct.players] == [3, 2, 1, 0]


def test_truncated_line() -> None:
    text = golden("juvisy2019.h9").replace("    3-/w0   15+/w4    1-/b0    9+/w1", "    3-/w0")
    with pytest.raises(
        InputError, match=r"line 15, column 'round 2'.*4 round cells as on the other"
    ):
        read(text)


def test_truncated_values() -> None:
    text = SMALL.replace("   31   61 0 0    1-/b0    0=", "   31")
    with pytest.raises(InputError, match=r"line 6, column 'SOS'.*a value for each of MMS, SOS"):
        read(text)


def test_line_without_rank() -> None:
    with pytest.raises(InputError, match=r"line 5, column 'Rk'.*rank \(such as 3d or 10k\)"):
        read(SMALL.replace("Alpha Anna                      3D FR", "Alpha Anna FR"))


def test_unknown_result_code() -> None:
    with pytest.raises(
        InputError, match=r"line 5, column 'round 1': value '2x/w0'.*result \+ - or =.*not 'x'"
    ):
        read(SMALL.replace("2+/w0", "2x/w0"))


def test_bad_cell_tail() -> None:
    with pytest.raises(InputError, match=r"value '2\+/z0'.*colour w or b"):
        read(SMALL.replace("2+/w0", "2+/z0"))


def test_opponent_out_of_range() -> None:
    with pytest.raises(InputError, match=r"line 5, column 'round 1': value '9'.*between 1 and 3"):
        read(SMALL.replace("    2+/w0", "    9+/w0"))


def test_one_sided_game() -> None:
    # Alpha says she beat Beta in round 1; Beta's row has no game in round 1.
    with pytest.raises(InputError, match=r"line 5, column 'round 1'.*one-sided game"):
        read(SMALL.replace("    1-/b0    0=", "    0-       0="))


def test_player_twice_in_a_round() -> None:
    # Beta now also claims a round-2 game against Alpha, who played Gamma in that round.
    text = SMALL.replace("    1-/b0    0=", "    1-/b0    1-/w0")
    with pytest.raises(InputError, match=r"2 players \(2, 3\) say they played him"):
        read(text)


def test_results_disagree() -> None:
    with pytest.raises(InputError, match=r"the two sides disagree on the result"):
        read(SMALL.replace("1-/b0", "1+/b0"))


def test_bad_encoding() -> None:
    data = SMALL.encode("utf-16")
    with pytest.raises(
        InputError, match=r"event.h9, line 1: value '\\x00': text in UTF-8 or ISO-8859-15"
    ):
        read(data)


def test_bad_date_and_reversed_dates() -> None:
    # Both name the tag's line.
    line = next(i for i, text in enumerate(SMALL.splitlines(), 1) if "DT[" in text)
    with pytest.raises(
        InputError, match=rf"line {line}, column 'DT': value '2024-13-01'.*YYYY-MM-DD"
    ):
        read(SMALL.replace("2024-05-01,2024-05-02", "2024-13-01"))
    # Reversed dates are read as written, with a warning: standings need no dates, and the
    # import refuses them (tests/service/cli/test_h9_files.py).
    table = read(SMALL.replace("2024-05-01,2024-05-02", "2024-05-03,2024-05-02"))
    assert (table.start_date, table.end_date) == (date(2024, 5, 3), date(2024, 5, 2))
    assert [(w.line, w.column, w.value) for w in table.warnings] == [
        (line, "DT", "2024-05-03,2024-05-02")
    ]
    assert "an end date before the start date" in table.warnings[0].expected


def test_every_problem_reported() -> None:
    text = SMALL.replace("2+/w0", "2x/w0").replace("0+       1-!w1", "0+")
    with pytest.raises(InputError) as raised:
        read(text)
    assert len(raised.value.problems) >= 2


@pytest.mark.parametrize("text", ["", "   \n", "; EV[Nothing]\n"])
def test_empty(text: str) -> None:
    with pytest.raises(InputError, match=r"event\.h9: a non-empty file|at least one player line"):
        read(text)


# Pairgoth's export: EGD PINs after '|', handicap 0 left out ('2+/b'), '0=' for rounds without
# a game, criteria names padded to 7 columns.
PAIRGOTH = """\
; CL[B]
; EV[Autumn Cup]
; DT[2024-10-05,2024-10-05]
; CM[Generated by Pairgoth 0.20]
; Pl Name                            Rk Co Club      MMS    SOS
   1 Alpha Anna                      3d FR Club       32     60    2+/b    3+/w1   |12345678
   2 Beta Bob                        2d FR Club       31     61    1-/w    0=      |
   3 Gamma Carl                      1d FR Club       30     62    0=      1-/b1   |87654321
"""


def test_pairgoth_cells_and_egd_pins() -> None:
    table = read(PAIRGOTH)
    alpha, beta, gamma = table.players
    assert (alpha.egd_pin, beta.egd_pin, gamma.egd_pin) == ("12345678", None, "87654321")
    assert alpha.player_id == "12345678"
    first = alpha.cells[0]
    assert (first.kind, first.opponent, first.color, first.handicap) == (
        CellKind.GAME,
        1,
        Color.BLACK,
        0,
    )
    assert alpha.cells[1].handicap == 1
    assert beta.cells[1].kind is CellKind.ABSENT


def test_initial_mms_comes_from_the_printed_mms() -> None:
    # Alpha's 32 after two wins: 30, a hand-set group above what the 3d rank gives.
    # Beta's ½ for the round without a game does not show in his 31: rounded down, and said so.
    table = read(PAIRGOTH)
    assert [p.initial_mms for p in table.players] == [30, 31, 30]
    assert table.parameters["genRoundDownNBWMMS"] == "true"
    (warning,) = table.warnings
    assert "round down" in warning.expected


def test_mms_not_rounded_down() -> None:
    text = PAIRGOTH.replace("Club       31", "Club     31.5")
    table = read(text.replace("Club       30", "Club     30.5"))
    assert [p.initial_mms for p in table.players] == [30, 31, 30]
    assert table.parameters["genRoundDownNBWMMS"] == "false"
    assert table.warnings == ()


# Columns named one by one, rounds included, a category column with '?' and criteria after the
# rounds, as EGD tools write them.
NAMED = """\
; EV[Club Cup]
; DT[2024-03-02,2024-03-02]
; Pl Name Rk Co Cl U20 R1 R2 NBW Place Pin
1 Alpha Anna 3d FR Club ? 2+/w0 3+/b0 2 1 |11111111
2 Beta Bob 2k FR Club 1 1-/b0 0= 0 3 |22222222
3 Gamma Carl 1d DE Bonn ? 0+ 1-/w0 0 2 |
"""


def test_named_columns_with_criteria_after_the_rounds() -> None:
    table = read(NAMED)
    assert table.rounds == 2
    alpha, beta, gamma = table.players
    assert alpha.printed == {"Pl": 1, "NBW": 2, "Place": 1}
    assert beta.printed == {"Pl": 2, "U20": 1, "NBW": 0, "Place": 3}
    assert gamma.cells[0].kind is CellKind.BYE
    assert (alpha.egd_pin, gamma.egd_pin) == ("11111111", None)


def test_unknown_results_stop_the_event_after_the_last_complete_round() -> None:
    text = NAMED.replace("3+/b0", "3?/b0").replace("1-/w0", "1?/w0")
    table = read(text)
    assert table.unfinished
    assert table.rounds == 1
    (warning,) = table.warnings
    assert (warning.line, warning.column, warning.value) == (4, "round 2", "?")
    with pytest.raises(InputError, match=r"line 4, column 'round 1': value '\?'.*no standings"):
        read(text.replace("2+/w0", "2?/w0").replace("1-/b0", "1?/b0"))


def test_opengotha_h9_files_take_opengotha_policy() -> None:
    from importers.from_crosstable import EventOptions, event_policy

    table = read(golden("juvisy2019.h9"))
    assert table.parameters["GENERATOR"].startswith("OpenGotha 3.49")
    policy = event_policy(table, EventOptions())
    assert policy.handicap_in_sos
    assert policy.round_down_missed
    assert event_policy(read(NAMED), EventOptions()).handicap_in_sos is False


def test_a_game_both_players_won_is_a_referee_decision() -> None:
    # OpenGotha writes RESULT_BOTHWIN as a win on both lines (Tournoi chinois, rows 9 and 10).
    text = NAMED.replace("1-/b0 0=", "1+/b0 0=")
    with pytest.raises(InputError, match=r"the two sides disagree on the result"):
        read(text)  # from an unknown program: a real disagreement
    table = read("; Generated by OpenGotha 3.49.06\n" + text)
    alpha, beta, _ = table.players
    assert alpha.cells[0].kind is beta.cells[0].kind is CellKind.FORFEIT
    assert alpha.cells[0].outcome is beta.cells[0].outcome is Outcome.WIN
    (warning,) = table.warnings
    assert (warning.line, warning.column, warning.value) == (5, "round 1", "2+")
    assert "RESULT_BOTHWIN" in warning.expected


def test_pairgoth_h9_files_take_the_rules_of_pairgoths_defaults() -> None:
    from importers.from_crosstable import EventOptions, event_policy

    table = read(PAIRGOTH)
    assert table.parameters["GENERATOR"] == "Pairgoth 0.20"
    assert "CM" not in table.parameters
    policy = event_policy(table, EventOptions())
    assert (policy.handicap_in_sos, policy.round_down_missed) == (True, True)
    assert policy.missed_rounds is MissedRounds.OWN_MMS
    other = read(PAIRGOTH.replace("Generated by Pairgoth 0.20", "Standard byo-yomi"))
    assert event_policy(other, EventOptions()).handicap_in_sos is False


def test_a_club_or_country_pairgoth_left_out_is_none_with_a_warning() -> None:
    no_club = PAIRGOTH.replace("3d FR Club       32", "3d FR           32")
    table = read(no_club)
    assert (table.players[0].country, table.players[0].club) == ("FR", None)
    assert table.players[0].printed["MMS"] == 32
    assert (table.warnings[0].line, table.warnings[0].column, table.warnings[0].value) == (
        6,
        "Club",
        "FR",
    )
    no_country = PAIRGOTH.replace("3d FR Club       32", "3d  Club       32")
    table = read(no_country)
    assert (table.players[0].country, table.players[0].club) == (None, "Club")
    assert (table.warnings[0].line, table.warnings[0].column, table.warnings[0].value) == (
        6,
        "Co",
        "Club",
    )


def test_a_line_short_of_more_than_one_place_is_still_refused() -> None:
    with pytest.raises(InputError, match=r"line 6, column 'MMS'.*truncated line"):
        read(PAIRGOTH.replace("3d FR Club       32", "3d              32"))


# Ranks written as bare numbers, as some files in the EGD archive have them: kyu or dan unknown.
BARE_SWISS = """\
; EV[Club Cup]
; DT[2024-03-02,2024-03-02]
; Pl Name                Rk Co Club  NBW  SOS
   1 Alpha Anna          12 FR Club    2    1    2+/w0    3+/b0   |11111111
   2 Beta Bob             3 FR Club    1    2    1-/b0    0+      |22222222
   3 Gamma 2 Li           5 DE Bonn    0    2    0=       1-/w0   |
"""


def test_a_bare_number_rank_is_no_rank_with_a_warning() -> None:
    from exporters.standings import standings_rows

    table = read(BARE_SWISS)
    assert table.system is System.SWISS
    alpha, beta, gamma = table.players
    assert (alpha.rank, beta.rank, gamma.rank) == (None, None, None)
    assert (gamma.name, gamma.country, gamma.club) == ("Gamma 2 Li", "DE", "Bonn")
    assert (alpha.printed["NBW"], alpha.egd_pin, beta.cells[1].kind) == (
        2,
        "11111111",
        CellKind.BYE,
    )
    assert [(w.line, w.column, w.value, w.expected) for w in table.warnings] == [
        (4, "Rk", "12", "rank 12 has no k/d: the rank is not used"),
        (5, "Rk", "3", "rank 3 has no k/d: the rank is not used"),
        (6, "Rk", "5", "rank 5 has no k/d: the rank is not used"),
    ]
    rows = standings_rows(table, Policy())
    assert rows["name"].to_list() == ["Alpha Anna", "Beta Bob", "Gamma 2 Li"]


BARE_PAIRGOTH = (
    PAIRGOTH.replace("3d FR", " 3 FR").replace("2d FR", " 2 FR").replace("1d FR", " 1 FR")
)


def test_a_mcmahon_event_with_printed_mms_needs_no_rank() -> None:
    from exporters.standings import standings_rows
    from importers.from_crosstable import EventOptions, event_policy

    table = read(BARE_PAIRGOTH)
    assert table.system is System.MCMAHON
    assert [p.rank for p in table.players] == [None, None, None]
    assert [p.initial_mms for p in table.players] == [30, 31, 30]
    assert [w.value for w in table.warnings if w.column == "Rk"] == ["3", "2", "1"]
    rows = standings_rows(table, event_policy(table, EventOptions()))
    assert rows.row(0, named=True)["name"] == "Alpha Anna"
    assert rows.row(0, named=True)["mms"] == "32"


def test_a_mcmahon_event_without_printed_mms_refuses_a_rank_without_k_or_d() -> None:
    from exporters.standings import standings_rows
    from importers.from_crosstable import EventOptions, event_policy

    # Saved before round 2 ended: the printed MMS are not the scores after round 1, so the
    # initial McMahon scores would have to come from the ranks.
    table = read(BARE_PAIRGOTH.replace("3+/w1", "3?/w1").replace("1-/b1", "1?/b1"))
    assert (table.unfinished, table.rounds) == (True, 1)
    assert all(p.initial_mms is None for p in table.players)
    with pytest.raises(InputError) as caught:
        standings_rows(table, event_policy(table, EventOptions()))
    assert [str(p) for p in caught.value.problems] == [
        f"event.h9, line {line}, column 'Rk': value '{rank}': {name}: rank {rank} has no k/d, "
        "and the file gives no initial McMahon score to use instead: the rank is needed, and "
        f"kyu or dan is not guessed (write it as {rank}k or {rank}d)"
        for line, rank, name in (
            (6, "3", "Alpha Anna"),
            (7, "2", "Beta Bob"),
            (8, "1", "Gamma Carl"),
        )
    ]


@pytest.mark.parametrize(
    "line",
    [
        "   3 Gamma Carl                         0=       1-/w0   |",  # nothing but cells
        "   3 Gamma Carl        55 DE Bonn    0    2    0=       1-/w0   |",  # no grade
        "   3 Gamma Carl         5 12 Bonn    0    2    0=       1-/w0   |",  # no country
        "   3 Gamma Carl         5 DE 0=       1-/w0   |",  # cells where the club is
    ],
)
def test_a_line_with_no_rank_in_its_place_is_still_refused(line: str) -> None:
    text = BARE_SWISS.replace(
        "   3 Gamma 2 Li           5 DE Bonn    0    2    0=       1-/w0   |", line
    )
    with pytest.raises(InputError, match=r"line 6, column 'Rk'.*rank \(such as 3d or 10k\)"):
        read(text)


ARCHIVED = """\
; TC[T240501A]
; CL[A]
; EV[Spring Cup]
; DT[2024-05-01,2024-05-02]
;.
 1 Alpha Anna               3d FR  Par   22   2    43   43   3+/b0   2+/w0    |10000001
 2 Beta Bob                 2d FR  Lyo   21   1    44   21   4+/b0   1-/b0    |10000002
 3 Gamma Carl               4k FR  Par   18   1    41   18   1-/w0   4+/w0    |10000003
 4 Delta Dora               5k FR  Lyo   16   0    39    0   2-/w0   3-/b0    |10000004
"""
"""An event as the EGD's archive keeps it: the tags, ``;.``, and no column line."""


def test_an_archived_file_without_column_line_reads_its_first_value_as_mms() -> None:
    table = read(ARCHIVED)
    assert table.system is System.MCMAHON
    assert [p.printed["MMS"] for p in table.players] == [22, 21, 18, 16]
    assert [p.initial_mms for p in table.players] == [20, 20, 17, 16]
    assert [p.egd_pin for p in table.players] == [f"1000000{n}" for n in range(1, 5)]
    (warning,) = table.warnings
    assert (warning.line, warning.column, warning.value) == (6, "value 1", "22")
    assert "is read as the McMahon score (MMS)" in warning.expected


def test_a_first_value_equal_to_the_points_is_no_mcmahon_score() -> None:
    swiss = ARCHIVED
    for mms, points in (
        ("Par   22", "Par    2"),
        ("Lyo   21", "Lyo    1"),
        ("Par   18", "Par    1"),
    ):
        swiss = swiss.replace(mms, points)
    table = read(swiss.replace("Lyo   16", "Lyo    0"))
    assert table.system is System.SWISS
    assert table.warnings == ()


def test_a_first_value_that_does_not_order_the_lines_is_not_read() -> None:
    table = read(ARCHIVED.replace("Par   18", "Par   23"))
    assert table.system is System.SWISS
    assert table.warnings == ()


def test_the_egds_export_a_lowercase_column_line_and_a_bare_dash() -> None:
    # As the EGD exports an event: ';pl' without a space, no rank column named, and a bare '-'
    # for a round a player was not in (he joined in round 2).
    text = """\
; EV[Congress]
;.
;pl Name Country Club MMS Wins SOS R1 R2
  1 Alpha Anna                  3d FR  Par   22   2    21   3+/w     2+/w      |10000001
  2 Beta Bob                    2d FR  Lyo   20   1    22   -        1-/b      |10000002
  3 Gamma Carl                  4k FR  Par   17   0    22   1-/b     -         |10000003
"""
    table = read(text)
    assert table.system is System.MCMAHON
    assert table.parameters["criteria"] == "MMS,Wins,SOS"
    beta = table.players[1]
    assert (beta.cells[0].kind, beta.cells[0].outcome) == (CellKind.ABSENT, Outcome.LOSS)
    assert [p.printed["SOS"] for p in table.players] == [21, 22, 22]
    assert table.warnings == ()


JOINED = DATA / "made" / "opengotha-joined-names.h9"


def test_names_run_together_off_the_grid_are_split_where_the_values_need_it() -> None:
    # OpenGotha writes SOS and SOSOS with nothing between; columns added after them break its
    # five-character grid, and only the seven values on each line tell six words are seven names.
    table = read(JOINED.read_bytes(), JOINED.name)
    assert table.parameters["criteria"] == "NBW,SOS,SOSOS,DC,U20,U16,U12"
    alice, bob, _ = table.players
    assert alice.printed == {"Pl": 1, "NBW": 2, "SOS": 2, "SOSOS": 4, "DC": 0, "U20": 1}
    assert bob.printed["U16"] == 1
    assert "U20" not in bob.printed
    assert [(w.line, w.column, w.value) for w in table.warnings] == [(10, "criteria", "SOSSOSOS")]
    assert "read as SOS and SOSOS (the player lines hold 7 values)" in table.warnings[0].expected


def test_a_joined_word_is_kept_whole_when_the_values_do_not_need_it() -> None:
    # As many values as words: nothing to split, no warning (the word names one column).
    text = SMALL.replace("MMS  SOS", "MMS SOSSOSOS").replace("   32   60 0 0", "   32   60")
    text = text.replace("   31   61 0 0", "   31   61").replace("30?  62? 0 0", "30?  62?")
    table = read(text)
    assert table.parameters["criteria"] == "MMS,SOSSOSOS"
    assert table.players[0].printed["SOSSOSOS"] == 60
    assert table.warnings == ()


def test_a_split_the_values_cannot_hold_is_not_made() -> None:
    # Three words and four values on each line, but MMSSOSSOSOS split is three names, five in
    # all: more names than values, so the words stay as written, without a warning.
    header = "; Pl Name                            Rk Co Club MMSSOSSOSOS  DC U20"
    table = read(SMALL.replace("; Pl Name                            Rk Co Club  MMS  SOS", header))
    assert table.parameters["criteria"] == "MMSSOSSOSOS,DC,U20"
    assert table.players[0].printed["MMSSOSSOSOS"] == 32
    assert table.warnings == ()
