"""OpenGotha XML reader: the golden tournament files and every kind of bad input.

``go_opengotha/juvisy2019.xml`` and ``egc2013.xml`` are unchanged OpenGotha files (see
``tests/data/SOURCES.md``); the values they lead to are checked in
``tests/ratings/test_tiebreaks_golden.py``.
"""

from __future__ import annotations

import io
from datetime import date
from fractions import Fraction

import pytest

from importers.opengotha import policy_for, read_opengotha
from ratings.crosstable import CellKind, Color, Crosstable, Outcome, System
from ratings.errors import InputError
from tests.support.data import GOLDEN

GO = GOLDEN / "go_opengotha"

SMALL = """\
<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<Tournament dataVersion="201">
<Players>
<Player club="Ams" country="NL" firstName="Anna" name="Alpha" participating="111" rank="2D" rating="2200" smmsCorrection="0"/>
<Player club="Ams" country="NL" firstName="Bob" name="Beta" participating="101" rank="5K" rating="1600" smmsCorrection="1"/>
<Player club="Ber" country="DE" firstName="Carl" name="Gamma Delta" participating="111" rank="25K" rating="100" smmsCorrection="0"/>
</Players>
<Games>
<Game blackPlayer="BETABOB" handicap="0" knownColor="true" result="RESULT_WHITEWINS" roundNumber="1" tableNumber="1" whitePlayer="ALPHAANNA"/>
<Game blackPlayer="GAMMADELTACARL" handicap="3" knownColor="true" result="RESULT_EQUAL_BYDEF" roundNumber="2" tableNumber="1" whitePlayer="ALPHAANNA"/>
<Game blackPlayer="GAMMADELTACARL" handicap="0" knownColor="false" result="RESULT_BLACKWINS" roundNumber="3" tableNumber="1" whitePlayer="BETABOB"/>
</Games>
<ByePlayers>
<ByePlayer player="GAMMADELTACARL" roundNumber="1"/>
</ByePlayers>
<TournamentParameterSet>
<GeneralParameterSet beginDate="2024-05-01" endDate="2024-05-02" genMMBar="1D" genMMFloor="20K" genMMS2ValueAbsent="1" genMMS2ValueBye="2" genMMZero="30K" genNBW2ValueAbsent="0" genNBW2ValueBye="2" genRoundDownNBWMMS="false" name="Spring Cup" numberOfRounds="5"/>
<HandicapParameterSet hdBasedOnMMS="true" hdCeiling="9" hdCorrection="1" hdNoHdRankThreshold="1D"/>
<PlacementParameterSet>
<PlacementCriteria>
<PlacementCriterion name="MMS" number="1"/>
<PlacementCriterion name="SOSM" number="2"/>
<PlacementCriterion name="NULL" number="3"/>
</PlacementCriteria>
</PlacementParameterSet>
</TournamentParameterSet>
</Tournament>
"""


def read(text: str | bytes, name: str = "event.xml") -> Crosstable:
    data = text.encode("utf-8") if isinstance(text, str) else text
    return read_opengotha(io.BytesIO(data), name)


def test_small_file() -> None:
    table = read(SMALL)
    assert (table.name, table.start_date, table.end_date) == (
        "Spring Cup",
        date(2024, 5, 1),
        date(2024, 5, 2),
    )
    assert (table.system, table.rounds) == (System.MCMAHON, 3)
    assert table.parameters["placementCriteria"] == "MMS,SOSM"
    assert table.parameters["hdCorrection"] == "1"
    alpha, beta, gamma = table.players
    # Initial MMS: 2D capped at the 1D bar = 30; 5K + super-group 1 = 26; 25K at the 20K floor = 10.
    assert [p.initial_mms for p in table.players] == [30, 26, 10]
    assert (alpha.name, gamma.name, alpha.line) == ("Alpha Anna", "Gamma Delta Carl", 4)
    assert (alpha.cells[0].color, beta.cells[0].color) == (Color.WHITE, Color.BLACK)
    assert (alpha.cells[1].kind, alpha.cells[1].outcome, alpha.cells[1].handicap) == (
        CellKind.FORFEIT,
        Outcome.DRAW,
        3,
    )
    assert (gamma.cells[0].kind, gamma.cells[0].outcome) == (CellKind.BYE, Outcome.WIN)
    # Beta is announced absent in round 2: ½ (genMMS2ValueAbsent="1").
    assert (beta.cells[1].kind, beta.cells[1].outcome) == (CellKind.ABSENT, Outcome.DRAW)
    assert beta.cells[2].color is None  # knownColor="false"
    # Alpha is present in round 3 but not paired: OpenGotha gives nothing.
    assert (alpha.cells[2].kind, alpha.cells[2].outcome) == (CellKind.ABSENT, Outcome.LOSS)
    assert policy_for(table).round_down_missed is False


def test_swiss_event_uses_the_swiss_values() -> None:
    table = read(SMALL.replace('name="MMS" number="1"', 'name="NBW" number="1"'))
    assert table.system is System.SWISS
    assert table.players[1].cells[1].outcome is Outcome.LOSS  # genNBW2ValueAbsent="0"
    assert all(p.initial_mms is None for p in table.players)


def test_golden_files_read() -> None:
    with (GO / "egc2013.xml").open("rb") as stream:
        egc = read_opengotha(stream, "egc2013.xml")
    assert (len(egc.players), egc.rounds) == (594, 10)
    by_default = sum(1 for p in egc.players for c in p.cells if c.kind is CellKind.FORFEIT)
    byes = sum(1 for p in egc.players for c in p.cells if c.kind is CellKind.BYE)
    assert (by_default, byes) == (2 * 33, 2)
    assert sum(1 for p in egc.players if p.initial_mms == Fraction(30 + 3 + 1)) > 0


def test_truncated_file() -> None:
    with pytest.raises(
        InputError, match=r"event.xml, line 11, column 'character \d+'.*well-formed XML"
    ):
        read(SMALL[: SMALL.index('<Game blackPlayer="GAMMADELTACARL" handicap="0"') + 30])


def test_unknown_result_code() -> None:
    with pytest.raises(
        InputError, match=r"line 11, column 'result': value 'RESULT_WHATEVER'.*RESULT_WHITEWINS"
    ):
        read(SMALL.replace("RESULT_BLACKWINS", "RESULT_WHATEVER"))


def test_game_without_result_stops_the_event_after_the_last_complete_round() -> None:
    table = read(SMALL.replace("RESULT_BLACKWINS", "RESULT_UNKNOWN"))
    assert table.unfinished
    assert table.rounds == 2
    assert [len(p.cells) for p in table.players] == [2, 2, 2]
    (warning,) = table.warnings
    assert (warning.line, warning.value) == (11, "RESULT_UNKNOWN")
    assert "read as it stood after round 2" in warning.expected


def test_no_complete_round_is_refused() -> None:
    text = SMALL.replace("RESULT_WHITEWINS", "RESULT_UNKNOWN")
    with pytest.raises(InputError, match=r"line 9, .*unfinished event without one complete round"):
        read(text)


DOCTYPE = '<!DOCTYPE Tournament SYSTEM "tournament.dtd">\n'


def test_the_doctype_opengotha_writes_is_read_without_fetching_the_dtd() -> None:
    # OpenGotha 3.3x/3.4x files (EGC 2011's) start with this line; no tournament.dtd is at hand.
    head, rest = SMALL.split("\n", 1)
    table = read(f"{head}\n{DOCTYPE}{rest}")
    assert len(table.players) == 3


def test_entity_declarations_are_still_refused() -> None:
    head, rest = SMALL.split("\n", 1)
    evil = (
        '<!DOCTYPE Tournament SYSTEM "tournament.dtd" [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n'
    )
    with pytest.raises(InputError, match=r"plain XML \(EntitiesForbidden"):
        read(head + "\n" + evil + rest.replace('name="Spring Cup"', 'name="&x;"'))


def test_bye_wrapper_and_bye_key_in_mixed_case() -> None:
    # OpenGotha 3.52: <ByePlayer> holds the byes, whose keys keep the names' case.
    text = SMALL.replace(
        '<ByePlayers>\n<ByePlayer player="GAMMADELTACARL" roundNumber="1"/>\n</ByePlayers>',
        '<ByePlayer>\n<ByePlayer player="GammaDeltaCarl" roundNumber="1"/>\n</ByePlayer>',
    )
    table = read(text)
    assert table.players[2].cells[0].kind is CellKind.BYE
    assert table.warnings == ()


def test_placeholder_rank_is_the_floor_with_a_warning() -> None:
    table = read(SMALL.replace('rank="25K"', 'rank="99K"'))
    (warning,) = table.warnings
    assert (warning.line, warning.column, warning.value) == (6, "rank", "99K")
    assert table.players[2].rank is None
    assert table.players[2].initial_mms == 10  # the floor, 20K, from 30K


def test_declared_rounds_count_for_files_of_opengotha_3_49_on() -> None:
    newer = SMALL.replace(
        'dataVersion="201"',
        'dataVersion="201" externalIPAddress="127.0.0.1" fullVersionNumber="3.51.02"',
    )
    table = read(newer)
    assert table.rounds == 5
    assert all(c.kind is CellKind.ABSENT for p in table.players for c in p.cells[3:])
    (warning,) = table.warnings
    assert "3 of 5 declared rounds played" in warning.expected
    assert read(SMALL).rounds == 3  # no version: the rounds played


def test_empty_events_and_macmahon_files_get_one_clear_message() -> None:
    start, end = SMALL.index("<Games>"), SMALL.index("</ByePlayers>") + len("</ByePlayers>")
    with pytest.raises(InputError, match=r"an empty event \(players registered, no game"):
        read(SMALL[:start] + SMALL[end:])
    start, end = SMALL.index("<Players>"), SMALL.index("</Players>") + len("</Players>")
    with pytest.raises(InputError, match=r"an empty event \(no Player element\)"):
        read(SMALL[:start] + "<Players/>" + SMALL[end:])
    with pytest.raises(InputError, match=r"not this MacMahon 3.9 tournament file"):
        read(
            '<?xml version="1.0"?>\n<TournamentData typeversion="3.9"><Tournament/></TournamentData>'
        )


def test_unknown_player() -> None:
    with pytest.raises(
        InputError, match=r"line 9, column 'blackPlayer': value 'NOBODY'.*key of a Player"
    ):
        read(SMALL.replace('blackPlayer="BETABOB"', 'blackPlayer="NOBODY"'))


def test_player_twice_in_a_round() -> None:
    # The bye of round 1 goes to Alpha, who also played Beta in round 1.
    with pytest.raises(
        InputError, match=r"line 14, column 'player': value 'ALPHAANNA'.*already has one on line 9"
    ):
        read(SMALL.replace('<ByePlayer player="GAMMADELTACARL"', '<ByePlayer player="ALPHAANNA"'))


def test_game_against_himself() -> None:
    text = SMALL.replace(
        'blackPlayer="BETABOB" handicap="0" knownColor="true" result="RESULT_WHITEWINS"',
        'blackPlayer="ALPHAANNA" handicap="0" knownColor="true" result="RESULT_WHITEWINS"',
    )
    with pytest.raises(InputError, match=r"line 9, column 'blackPlayer'.*two different players"):
        read(text)


def test_bad_rank_handicap_and_round() -> None:
    text = (
        SMALL.replace('rank="25K"', 'rank="strong"')
        .replace('handicap="3"', 'handicap="x"')
        .replace('roundNumber="3"', 'roundNumber="0"')
    )
    with pytest.raises(InputError) as raised:
        read(text)
    found = str(raised.value)
    assert "line 6, column 'rank': value 'strong': a Go rank such as 18K or 3D" in found
    assert "line 10, column 'handicap': value 'x': a handicap 0 to 9" in found
    assert "line 11, column 'roundNumber': value '0': a round ≥ 1" in found


def test_entities_are_refused() -> None:
    bomb = SMALL.replace(
        '<Tournament dataVersion="201">',
        '<!DOCTYPE t [<!ENTITY a "aaaaaaaa"><!ENTITY b "&a;&a;&a;">]><Tournament dataVersion="&b;">',
    )
    with pytest.raises(InputError, match=r"event\.xml: plain XML"):
        read(bomb)


def test_bad_encoding() -> None:
    with pytest.raises(InputError, match=r"well-formed XML"):
        read(SMALL.encode("utf-8").replace(b"Anna", b"An\xff\xfe"))


def test_not_an_opengotha_file() -> None:
    with pytest.raises(InputError, match=r"value 'html': an OpenGotha file"):
        read("<html><body/></html>")


@pytest.mark.parametrize("text", ["", "  \n"])
def test_empty(text: str) -> None:
    with pytest.raises(InputError, match=r"event\.xml: a non-empty file"):
        read(text)


def test_keys_written_under_a_turkish_locale() -> None:
    # OpenGotha upper-cases keys with the computer's locale: in Turkey "i" becomes "İ".
    text = SMALL.replace('firstName="Anna" name="Alpha"', 'firstName="Işil" name="Arikan"')
    text = text.replace('whitePlayer="ALPHAANNA"', 'whitePlayer="ARİKANIŞIL"')
    table = read(text)
    assert table.players[0].cells[0].opponent == 1
    assert table.players[0].cells[1].opponent == 2
    assert table.warnings == ()


def test_keys_that_differ_by_more_than_the_dotted_capital_are_still_refused() -> None:
    with pytest.raises(InputError, match=r"value 'ALPHAANNE'.*key of a Player"):
        read(SMALL.replace('whitePlayer="ALPHAANNA"/>', 'whitePlayer="ALPHAANNE"/>', 1))


def test_an_end_date_before_the_start_date_is_the_start_date_with_a_warning() -> None:
    table = read(SMALL.replace('endDate="2024-05-02"', 'endDate="2024-01-03"'))
    assert (table.start_date, table.end_date) == (date(2024, 5, 1), date(2024, 5, 1))
    (warning,) = table.warnings
    assert (warning.line, warning.column, warning.value) == (17, "endDate", "2024-01-03")
    assert "an end date before the start date, 2024-05-01" in warning.expected


def test_blank_lines_before_the_declaration_are_left_out_and_still_counted() -> None:
    table = read("\r\n" + SMALL.replace("\n", "\r\n"))
    (warning,) = table.warnings
    assert (warning.line, warning.value) == (1, "\r\n")
    assert table.players[0].line == 5  # one line further down than in SMALL
    with pytest.raises(InputError, match=r"line 10, column 'blackPlayer': value 'NOBODY'"):
        read("\n" + SMALL.replace('blackPlayer="BETABOB"', 'blackPlayer="NOBODY"'))


# What Pairgoth's export writes (its OpenGotha template; see pg-bosp2024.xml): a BOM, the lines
# after the declaration indented, the version of the OpenGotha it imitates, "RESULT_BOTHLOOSE",
# byes under <ByePlayer> in the names' case, a PIN ending with a line break.
PAIRGOTH_EXPORT = """\ufeff<?xml version="1.0" encoding="UTF-8" standalone="no"?>
            <Tournament fullVersionNumber="3.52.03" runningMode="SAL" saveDT="20250301120000" dataVersion="201">
            <Players>
            <Player club="Ams" country="NL" egfPin="12345678
" firstName="Anna" name="Alpha" participating="11111111111111111111" rank="2D" rating="2200" smmsCorrection="0"/>
<Player club="Ams" country="NL" firstName="Bob" name="Beta" participating="11111111111111111111" rank="5K" rating="1600" smmsCorrection="0"/>
<Player club="Ber" country="DE" firstName="Carl" name="Gamma" participating="11111111111111111111" rank="10K" rating="900" smmsCorrection="0"/>
            </Players>
            <Games>
            <Game blackPlayer="BETABOB" handicap="0" knownColor="true" result="RESULT_BOTHLOOSE" roundNumber="1" tableNumber="1" whitePlayer="ALPHAANNA"/>
<Game blackPlayer="GAMMACARL" handicap="0" knownColor="true" result="RESULT_WHITEWINS" roundNumber="2" tableNumber="1" whitePlayer="BETABOB"/>
            </Games>
            <ByePlayer>
            <ByePlayer player="GammaCarl" roundNumber="1"/>
<ByePlayer player="AlphaAnna" roundNumber="2"/>
            </ByePlayer>
            <TournamentParameterSet>
            <GeneralParameterSet beginDate="2025-03-01" endDate="2025-03-01" genMMBar="1D" genMMFloor="20K" genMMS2ValueAbsent="1" genMMS2ValueBye="2" genMMZero="30K" genNBW2ValueAbsent="0" genNBW2ValueBye="2" genRoundDownNBWMMS="true" name="Spring Cup" numberOfRounds="2"/>
            <PlacementParameterSet>
            <PlacementCriteria>
            [<PlacementCriterion name="NBW" number="1"/>, <PlacementCriterion name="SOSW" number="2"/>]
            </PlacementCriteria>
            </PlacementParameterSet>
            </TournamentParameterSet>
            </Tournament>
"""


def test_what_pairgoth_exports_is_read() -> None:
    table = read(PAIRGOTH_EXPORT)
    alpha, beta, gamma = table.players
    assert (table.rounds, table.system) == (2, System.SWISS)
    assert (alpha.cells[0].kind, alpha.cells[0].outcome) == (CellKind.FORFEIT, Outcome.LOSS)
    assert (beta.cells[0].kind, beta.cells[0].outcome) == (CellKind.FORFEIT, Outcome.LOSS)
    assert (gamma.cells[0].kind, alpha.cells[1].kind) == (CellKind.BYE, CellKind.BYE)
    assert (alpha.line, alpha.egd_pin, alpha.player_id) == (4, "12345678", "12345678")
    assert table.warnings == ()


def test_spaces_before_the_declaration_are_left_out_with_a_warning() -> None:
    table = read("  " + SMALL)
    (warning,) = table.warnings
    assert (warning.line, warning.value) == (1, "  ")
    assert warning.expected == "blank space before the XML declaration; left out"
    assert table.players[0].line == 4


def test_declared_rounds_do_not_count_in_what_pairgoth_exported() -> None:
    table = read(PAIRGOTH_EXPORT.replace('numberOfRounds="2"', 'numberOfRounds="5"'))
    assert table.rounds == 2
    assert table.warnings == ()
    opengotha = PAIRGOTH_EXPORT.replace(
        'runningMode="SAL"', 'externalIPAddress="127.0.0.1" runningMode="SAL"'
    ).replace('numberOfRounds="2"', 'numberOfRounds="5"')
    assert read(opengotha).rounds == 5


@pytest.mark.parametrize("declared", ["aTF-8", "latin-99", "no-such-codec"])
def test_an_encoding_nobody_knows_is_named(declared: str) -> None:
    """expat hands an encoding it does not know to Python's codecs; one they do not know either
    is the file's problem, told at its declaration, not a lookup error."""
    text = SMALL.replace('encoding="UTF-8"', f'encoding="{declared}"')
    with pytest.raises(InputError) as raised:
        read("\n\n" + text)
    assert str(raised.value.problems[0]) == (
        f"event.xml, line 3, column 'encoding': value {declared!r}: an encoding XML files are "
        "written in, such as UTF-8 or ISO-8859-1"
    )
