"""One person, one player: a month of files in each format's own conventions against a registry.

The registry holds the players with ISO alpha-3 countries, a FIDE id and an EGD PIN. The month
brings a TRF (``Last, First``, FIDE codes such as ``GER``, FIDE ids), an h9 (``Surname First``,
``_`` for spaces, two-letter codes, written in Latin-1 so ``Łuczak`` arrives as ``?uczak``), an
OpenGotha XML (EGD PINs) and a long-format table. Every registered person must be matched, the
one new person created, and each uncertain name held for review rather than created.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from sqlalchemy import func, select
from sqlalchemy.engine import Engine

from importers.from_crosstable import EventOptions
from jobs.importing import import_files
from jobs.monthly import run_monthly
from jobs.options import MatchOptions, MonthlyOptions
from jobs.players import import_registry, merge_players
from ratings.errors import DifferentIdsError, InputError, ReviewError
from ratings.storage import players as stored
from ratings.storage.schema import player_aliases, player_identifiers, players, results

NOW = datetime(2025, 4, 1, 12, 0, tzinfo=UTC)

REGISTRY = """\
player_id,name,country,fide_id,egd_pin
P0000001,Klaus Klein,DEU,4600001,
P0000002,Dirk de Vries,NLD,,12345678
P0000003,Paweł Łuczak,POL,1100001,
P0000004,Anna Berg,DEU,,
P0000005,Jean-Pierre Dupont,FRA,,
P0000006,Ian McDonald,IRL,,
P0000007,Sofia van der Berg,NLD,,23456789
P0000008,Marco Rossi,ITA,,
"""

TRF = """\
012 Spring Open
042 2025/03/01
052 2025/03/02
001    1 m    Klein, Klaus                      2100 GER     4600001             1.0    1     2 w 1
001    2 m    Luczak, Pawel                     2000 POL     1100001             0.0    2     1 b 0
001    3 m    Rossi, Marco                      1900 ITA                         1.0    3     4 w 1
001    4 m    Mc Donald, Ian                    1800 IRL                         0.0    4     3 b 0
"""

H9 = """\
; CL[B]
; EV[Go Cup]
; DT[2025-03-08,2025-03-09]
; Pl Name                            Rk Co Club  MMS  SOS
   1 de_Vries Dirk                   3D NL Ams    1    0 0 0    2+/w0
   2 Klein Klaus                     2D DE Ber    0    1 0 0    1-/b0
   3 van_der_Berg Sofia              1D NL Ams    1    0 0 0    4+/w0
   4 ?uczak Pawe?                    1K PL Krk    0    1 0 0    3-/b0
"""

XML = """\
<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<Tournament dataVersion="201">
<Players>
<Player club="Ams" country="NL" egfPin="12345678" firstName="D." name="de Vries" participating="1" rank="3D" rating="2200" smmsCorrection="0"/>
<Player club="Ams" country="NL" egfPin="23456789" firstName="Sofia" name="VAN DER BERG" participating="1" rank="1D" rating="2000" smmsCorrection="0"/>
<Player club="Bud" country="HU" firstName="Zoltan" name="Nagy" participating="1" rank="2K" rating="1800" smmsCorrection="0"/>
<Player club="Ber" country="DE" firstName="Klaus" name="KLEIN" participating="1" rank="2D" rating="2100" smmsCorrection="0"/>
</Players>
<Games>
<Game blackPlayer="VANDERBERGSOFIA" handicap="0" knownColor="true" result="RESULT_WHITEWINS" roundNumber="1" tableNumber="1" whitePlayer="DEVRIESD."/>
<Game blackPlayer="KLEINKLAUS" handicap="0" knownColor="true" result="RESULT_WHITEWINS" roundNumber="1" tableNumber="2" whitePlayer="NAGYZOLTAN"/>
</Games>
<TournamentParameterSet>
<GeneralParameterSet beginDate="2025-03-15" endDate="2025-03-16" genMMBar="9D" genMMFloor="30K" genMMS2ValueAbsent="1" genMMS2ValueBye="2" genMMZero="30K" genNBW2ValueAbsent="0" genNBW2ValueBye="2" genRoundDownNBWMMS="false" name="Amsterdam Go" numberOfRounds="1"/>
</TournamentParameterSet>
</Tournament>
"""

LONG = """\
tournament,end_date,name,country,wins,draws,losses,buchholz
Club Night,2025-03-20,Dupont Jean Pierre,FR,1,0,0,0
Club Night,2025-03-20,Ann Berg,DE,0,0,1,1
"""


def month(tmp_path: Path) -> list[Path]:
    files = {"spring.trf": TRF, "cup.h9": H9, "amsterdam.xml": XML, "club.csv": LONG}
    written = []
    for name, text in files.items():
        path = tmp_path / name
        path.write_bytes(text.encode("latin-1" if name.endswith(".h9") else "utf-8"))
        written.append(path)
    return written


@pytest.fixture
def registered(engine: Engine, tmp_path: Path) -> Engine:
    registry = tmp_path / "players.csv"
    registry.write_text(REGISTRY, encoding="utf-8")
    import_registry(engine, registry, now=NOW)
    return engine


def count_players(engine: Engine) -> int:
    with engine.connect() as connection:
        return int(connection.execute(select(func.count()).select_from(players)).scalar_one())


def test_the_registry_stores_external_ids_and_iso_countries(registered: Engine) -> None:
    with registered.connect() as connection:
        held = stored.identifiers(connection).sort("value")
        rows = connection.execute(select(players.c.federation_id, players.c.country)).all()
    countries = dict(rows)
    assert held.select("scheme", "value").rows() == [
        ("fide", "1100001"), ("egd", "12345678"), ("egd", "23456789"), ("fide", "4600001"),
    ]  # fmt: skip
    assert countries["P0000001"] == "DEU"


def test_uncertain_names_reach_review_and_nothing_is_written(
    registered: Engine, tmp_path: Path
) -> None:
    before = count_players(registered)
    with pytest.raises(ReviewError) as caught:
        import_files(registered, month(tmp_path), imported_by="t", now=NOW, event=EVENT)
    asked = {(u.source, u.name): u for u in caught.value.uncertain}
    assert sorted(asked) == [("club.csv", "Ann Berg"), ("cup.h9", "?uczak Pawe?")]
    berg = asked["club.csv", "Ann Berg"]
    assert [c.federation_id for c in berg.candidates][:1] == ["P0000004"]
    assert (
        asked["cup.h9", "?uczak Pawe?"].reason == "the name has a letter lost to a wrong encoding"
    )
    assert [c.federation_id for c in asked["cup.h9", "?uczak Pawe?"].candidates] == ["P0000003"]
    assert "answer with --map FILE" in str(caught.value)
    assert count_players(registered) == before


EVENT = EventOptions()


def test_the_month_imports_with_no_duplicate_once_answered(
    registered: Engine, tmp_path: Path
) -> None:
    answers = {"Ann Berg": "P0000004", "?uczak Pawe?": "P0000003"}
    report = import_files(
        registered,
        month(tmp_path),
        imported_by="t",
        now=NOW,
        matching=MatchOptions(answers=answers),
    )
    # Zoltan Nagy is the one person the registry does not know.
    assert report.players_new == 1
    assert count_players(registered) == 9
    with registered.connect() as connection:
        played = dict(
            connection.execute(
                select(players.c.federation_id, func.count())
                .join(results, results.c.player_id == players.c.id)
                .group_by(players.c.federation_id)
            ).all()
        )
        ids = stored.identifiers(connection)
        aliases = connection.execute(
            select(player_aliases.c.scheme, player_aliases.c.spelling).order_by(
                player_aliases.c.spelling
            )
        ).all()
        nagy = connection.execute(
            select(players.c.federation_id, players.c.country).where(
                players.c.name == "Nagy Zoltan"
            )
        ).one()
    assert played == {
        "P0000001": 3, "P0000002": 2, "P0000003": 2, "P0000004": 1, "P0000005": 1,
        "P0000006": 1, "P0000007": 2, "P0000008": 1, nagy[0]: 1,
    }  # fmt: skip
    assert nagy[1] == "HUN"
    assert aliases == [("h9", "?uczak Pawe?"), ("csv", "Ann Berg")]
    assert ids.height == 4  # no id was given to anyone else

    # Next month the same director's spellings match without asking.
    again = tmp_path / "april"
    again.mkdir()
    (again / "club.csv").write_text(LONG.replace("2025-03-20", "2025-04-20"), encoding="utf-8")
    h9 = H9.replace("2025-03-08,2025-03-09", "2025-04-08,2025-04-09")
    (again / "cup.h9").write_bytes(h9.encode("latin-1"))
    report = import_files(registered, sorted(again.iterdir()), imported_by="t", now=NOW)
    assert report.players_new == 0
    assert count_players(registered) == 9


def test_a_dry_run_lists_each_new_player_with_the_closest_known(
    registered: Engine, tmp_path: Path
) -> None:
    report = import_files(registered, month(tmp_path), imported_by="t", now=NOW, dry_run=True)
    assert [(p.name, p.country) for p in report.new_players] == [("Nagy Zoltan", "HUN")]
    assert {u.name for u in report.uncertain} == {"Ann Berg", "?uczak Pawe?"}
    assert count_players(registered) == 8


def test_an_answer_new_creates_the_player_and_is_remembered(
    registered: Engine, tmp_path: Path
) -> None:
    club = tmp_path / "club.csv"
    club.write_text(LONG, encoding="utf-8")
    import_files(
        registered,
        [club],
        imported_by="t",
        now=NOW,
        matching=MatchOptions(answers={"Ann Berg": "new"}),
    )
    assert count_players(registered) == 9
    with registered.connect() as connection:
        alias = connection.execute(select(player_aliases.c.spelling)).scalars().all()
    assert alias == ["Ann Berg"]


def test_an_external_id_of_another_name_is_reviewed_not_taken(
    registered: Engine, tmp_path: Path
) -> None:
    trf = tmp_path / "other.trf"
    # Klaus Klein's FIDE id on somebody else.
    trf.write_text(TRF.replace("Klein, Klaus     ", "Schmidt, Werner  "), encoding="utf-8")
    with pytest.raises(ReviewError) as caught:
        import_files(registered, [trf], imported_by="t", now=NOW)
    (uncertain,) = caught.value.uncertain
    assert uncertain.reason == "its FIDE id 4600001 belongs to Klaus Klein (P0000001)"
    with registered.connect() as connection:
        held = connection.execute(
            select(player_identifiers.c.value).where(player_identifiers.c.scheme == "fide")
        ).scalars()
        assert sorted(held) == ["1100001", "4600001"]


def test_an_answer_naming_no_player_is_refused(registered: Engine, tmp_path: Path) -> None:
    club = tmp_path / "club.csv"
    club.write_text(LONG, encoding="utf-8")
    with pytest.raises(InputError, match="the answer 'P9' is no player id"):
        import_files(
            registered, [club], imported_by="t", now=NOW,
            matching=MatchOptions(answers={"Ann Berg": "P9"}),
        )  # fmt: skip


def test_a_registry_id_held_by_another_player_is_a_warning_not_a_move(
    registered: Engine, tmp_path: Path
) -> None:
    registry = tmp_path / "more.csv"
    registry.write_text("player_id,name,fide_id\nP0000009,Werner Schmidt,4600001\n")
    report = import_registry(registered, registry, now=NOW)
    assert [str(w) for w in report.warnings] == [
        "more.csv, line 2, column 'fide_id': value '4600001': this FIDE id belongs to player "
        "P0000001: not stored (review, and merge if they are one person)"
    ]
    assert count_players(registered) == 9
    with registered.connect() as connection:
        holder = connection.execute(
            select(players.c.federation_id)
            .join(player_identifiers, player_identifiers.c.player_id == players.c.id)
            .where(player_identifiers.c.value == "4600001")
        ).scalar_one()
    assert holder == "P0000001"


def test_the_monthly_job_holds_a_file_for_review_and_imports_it_once_answered(
    registered: Engine, tmp_path: Path
) -> None:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "club.csv").write_text(LONG, encoding="utf-8")
    (inbox / "spring.trf").write_text(TRF, encoding="utf-8")
    options = MonthlyOptions(
        inbox_dir=inbox, publish_dir=tmp_path / "publish", imported_by="monthly"
    )
    clock = lambda: NOW  # noqa: E731
    report = run_monthly(registered, options, today=date(2025, 4, 1), clock=clock)
    assert (report.accepted, report.review, report.rejected) == (["spring.trf"], ["club.csv"], [])
    held = inbox / "review" / "club.csv"
    assert held.is_file()
    text = (inbox / "review" / "club.csv.review.txt").read_text()
    assert "club.csv, line 3: 'Ann Berg' (DEU): known players have a close name" in text
    assert "P0000004  Anna Berg  DEU" in text
    assert count_players(registered) == 8

    (inbox / "review" / "club.csv.map.csv").write_text("name,player_id\nAnn Berg,P0000004\n")
    report = run_monthly(registered, options, today=date(2025, 4, 2), clock=clock)
    assert (report.accepted, report.review) == (["club.csv"], [])
    assert not held.exists()
    assert not (inbox / "review" / "club.csv.review.txt").exists()
    assert (inbox / "archive" / "2025-04" / "club.csv.map.csv").is_file()
    assert count_players(registered) == 8


def test_a_merge_of_players_with_different_ids_of_one_scheme_is_refused(
    registered: Engine, tmp_path: Path
) -> None:
    more = tmp_path / "more.csv"
    more.write_text("player_id,name,fide_id\nP0000009,Klaus Klein,4600002\n", encoding="utf-8")
    import_registry(registered, more, now=NOW)
    with pytest.raises(DifferentIdsError, match=r"different fide ids \(4600001 and 4600002\)"):
        merge_players(registered, "P0000001", "P0000009", by="t", now=NOW)
    merge_players(registered, "P0000004", "P0000009", by="t", now=NOW)


def test_a_remembered_spelling_with_another_fide_id_is_another_person(
    registered: Engine, tmp_path: Path
) -> None:
    """A spring TRF creates "Zed, Zoltan" (FIDE id 7000001) and remembers the spelling; an autumn
    TRF writing the name so with another FIDE id brings another new player, with that id, and
    the spelling stays remembered for the first."""
    spring = (
        "012 Spring Open\n042 2025/03/01\n052 2025/03/02\n"
        "001    1 m    Zed, Zoltan                       2100 HUN     7000001             1.0    1     2 w 1\n"
        "001    2 m    Klein, Klaus                      2000 GER     4600001             0.0    2     1 b 0\n"
    )  # fmt: skip
    first = tmp_path / "spring.trf"
    first.write_text(spring, encoding="utf-8")
    import_files(registered, [first], imported_by="t", now=NOW)
    with registered.connect() as connection:
        before = connection.execute(
            select(player_aliases.c.spelling, player_aliases.c.player_id)
        ).all()
    assert [spelling for spelling, _ in before] == ["Zed, Zoltan"]
    autumn = tmp_path / "autumn.trf"
    autumn.write_text(
        spring.replace("Spring", "Autumn")
        .replace("2025/03/0", "2025/09/0")
        .replace("7000001", "7000002"),
        encoding="utf-8",
    )
    count = count_players(registered)
    report = import_files(registered, [autumn], imported_by="t", now=NOW)
    assert report.warnings == ()
    assert count_players(registered) == count + 1
    with registered.connect() as connection:
        holders = connection.execute(
            select(player_identifiers.c.value, players.c.id, players.c.name)
            .join(players, player_identifiers.c.player_id == players.c.id)
            .where(player_identifiers.c.value.in_(["7000001", "7000002"]))
            .order_by(player_identifiers.c.value)
        ).all()
        after = connection.execute(
            select(player_aliases.c.spelling, player_aliases.c.player_id)
        ).all()
    assert [(value, name) for value, _, name in holders] == [
        ("7000001", "Zoltan Zed"), ("7000002", "Zoltan Zed"),
    ]  # fmt: skip
    assert holders[0][1] != holders[1][1]
    assert after == before == [("Zed, Zoltan", holders[0][1])]
