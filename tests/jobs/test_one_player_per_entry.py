"""Two entries of one tournament are two people: the import never stores them as one player.

EGC 2011's OpenGotha file (``tests/data/corpus/go/rgf-egc2011.xml``) has two placeholder players,
``Parity Three`` (3D, line 297) and ``Three Parity`` (2D, line 616), whose names fold alike: both
were once matched to one new player, and the second result of that player in the tournament
stopped the import with the database's unique key. Two new entries whose written names differ
become two players, with a warning; any other two rows of one tournament matched to one player
(one player id, one external id, one known player found by name) refuse the file, naming both
rows, before anything is written.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.engine import Engine

from jobs.importing import import_files
from jobs.players import import_registry
from ratings.errors import InputError
from ratings.storage.schema import player_identifiers, players, results
from tests.support.db import snapshot

NOW = datetime(2025, 4, 1, 12, 0, tzinfo=UTC)

PARITY = """\
<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<Tournament dataVersion="201">
<Players>
<Player club="" country="" firstName="Three" name="Parity" participating="10" rank="3D" rating="2250" smmsCorrection="0"/>
<Player club="Lill" country="fr" firstName="Jean" name="Rey" participating="11" rank="2D" rating="2013" smmsCorrection="0"/>
<Player club="" country="" firstName="Parity" name="Three" participating="01" rank="2D" rating="2150" smmsCorrection="0"/>
<Player club="An" country="fr" firstName="Quangtran" name="Dao" participating="11" rank="2K" rating="1900" smmsCorrection="0"/>
</Players>
<Games>
<Game blackPlayer="REYJEAN" handicap="0" knownColor="true" result="RESULT_BLACKWINS" roundNumber="1" tableNumber="1" whitePlayer="PARITYTHREE"/>
<Game blackPlayer="THREEPARITY" handicap="0" knownColor="true" result="RESULT_WHITEWINS" roundNumber="2" tableNumber="1" whitePlayer="REYJEAN"/>
</Games>
<TournamentParameterSet>
<GeneralParameterSet beginDate="2011-07-24" endDate="2011-08-06" genMMBar="4D" genMMFloor="20K" genMMS2ValueAbsent="1" genMMS2ValueBye="1" genMMZero="30K" genNBW2ValueAbsent="0" genNBW2ValueBye="1" genRoundDownNBWMMS="true" name="EGC Main" numberOfRounds="2"/>
</TournamentParameterSet>
</Tournament>
"""

REGISTRY = """\
player_id,name,country,fide_id,egd_pin
P0000001,Klaus Klein,DEU,4600001,
P0000002,Marco Rossi,ITA,,
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def registered(engine: Engine, tmp_path: Path) -> Engine:
    import_registry(engine, write(tmp_path, "players.csv", REGISTRY), now=NOW)
    return engine


def stored_results(engine: Engine) -> list[tuple[str, int, int]]:
    with engine.connect() as connection:
        rows = connection.execute(
            select(players.c.name, results.c.wins, results.c.losses).join(
                results, results.c.player_id == players.c.id
            )
        ).all()
    return sorted((name, wins, losses) for name, wins, losses in rows)


def test_two_new_entries_whose_names_fold_alike_are_two_players(
    engine: Engine, tmp_path: Path
) -> None:
    report = import_files(engine, [write(tmp_path, "egc.xml", PARITY)], imported_by="t", now=NOW)
    assert (report.results, report.players_new) == (4, 4)
    assert [str(w) for w in report.warnings] == [
        "egc.xml, line 6, column 'name': value 'Three Parity': folds to the name of another "
        "player of tournament 'EGC Main 2011-08-06' ('Parity Three', line 4): a new player of "
        "its own (merge the two if they are one person)"
    ]
    assert stored_results(engine) == [
        ("Dao Quangtran", 0, 0), ("Parity Three", 0, 1), ("Rey Jean", 2, 0),
        ("Three Parity", 0, 1),
    ]  # fmt: skip


def test_a_dry_run_counts_them_as_two_new_players(engine: Engine, tmp_path: Path) -> None:
    path = write(tmp_path, "egc.xml", PARITY)
    report = import_files(engine, [path], dry_run=True, imported_by="t", now=NOW)
    assert sorted(p.name for p in report.new_players) == [
        "Dao Quangtran", "Parity Three", "Rey Jean", "Three Parity",
    ]  # fmt: skip
    assert len({p.federation_id for p in report.new_players}) == 4


def test_two_entries_found_as_one_known_player_are_refused(
    registered: Engine, tmp_path: Path
) -> None:
    # Klaus Klein was renamed: the old name is remembered as his spelling in files of every
    # format, so a table that writes both his old and his new name finds him twice.
    from jobs.players import rename_player

    rename_player(registered, "P0000001", "Klaus Klein-Berger", by="t", now=NOW)
    table = write(
        tmp_path,
        "club.csv",
        "tournament,end_date,name,country,wins,draws,losses,buchholz\n"
        "Club Night,2025-03-20,Klaus Klein-Berger,DEU,1,0,0,0\n"
        "Club Night,2025-03-20,Klaus Klein,DEU,0,0,1,1\n",
    )
    before = snapshot(registered)
    with pytest.raises(InputError) as refused:
        import_files(registered, [table], imported_by="t", now=NOW)
    assert [str(p) for p in refused.value.problems] == [
        "club.csv, line 3, column 'name': value 'Klaus Klein': this entry and the one on line 2 "
        "('Klaus Klein-Berger') of tournament 'Club Night 2025-03-20' would both be player "
        "P0000001 ('Klaus Klein-Berger'): two entries of one tournament are two people; give "
        "each its own player id, or correct the name"
    ]
    assert snapshot(registered) == before


def test_a_player_id_and_a_name_of_one_player_in_one_tournament_are_refused(
    registered: Engine, tmp_path: Path
) -> None:
    table = write(
        tmp_path,
        "club.csv",
        "tournament,end_date,player_id,name,country,wins,draws,losses,buchholz\n"
        "Club Night,2025-03-20,,Marco Rossi,ITA,1,0,0,0\n"
        "Club Night,2025-03-20,P0000002,,,0,0,1,1\n",
    )
    before = snapshot(registered)
    with pytest.raises(InputError) as refused:
        import_files(registered, [table], imported_by="t", now=NOW)
    (problem,) = refused.value.problems
    assert (problem.line, problem.column, problem.value) == (3, "player_id", "P0000002")
    assert "the one on line 2 ('Marco Rossi')" in problem.expected
    assert snapshot(registered) == before


def with_pins(first: str, second: str) -> str:
    return PARITY.replace(
        'firstName="Three" name="Parity"', f'egfPin="{first}" firstName="Three" name="Parity"'
    ).replace(
        'firstName="Parity" name="Three"', f'egfPin="{second}" firstName="Parity" name="Three"'
    )


def test_two_entries_folding_alike_keep_each_its_own_egd_pin(
    engine: Engine, tmp_path: Path
) -> None:
    path = write(tmp_path, "egc.xml", with_pins("11111111", "22222222"))
    report = import_files(engine, [path], imported_by="t", now=NOW)
    assert report.players_new == 4
    with engine.connect() as connection:
        held = connection.execute(
            select(players.c.name, player_identifiers.c.value).join(
                player_identifiers, player_identifiers.c.player_id == players.c.id
            )
        ).all()
    assert sorted(tuple(row) for row in held) == [
        ("Parity Three", "11111111"), ("Three Parity", "22222222"),
    ]  # fmt: skip


def test_one_egd_pin_on_two_entries_folding_alike_is_refused(
    engine: Engine, tmp_path: Path
) -> None:
    path = write(tmp_path, "egc.xml", with_pins("11111111", "11111111"))
    before = snapshot(engine)
    with pytest.raises(InputError) as refused:
        import_files(engine, [path], imported_by="t", now=NOW)
    (problem,) = refused.value.problems
    assert (problem.file, problem.line, problem.column, problem.value) == (
        "egc.xml", 6, "name", "Three Parity",
    )  # fmt: skip
    assert "would both be the new player 3 ('Parity Three')" in problem.expected
    assert snapshot(engine) == before


def test_one_fide_id_on_two_entries_of_a_known_player_is_refused(
    registered: Engine, tmp_path: Path
) -> None:
    # Both names agree with the holder of the FIDE id (the second by its initial).
    trf = (
        "012 Spring Open\n"
        "042 2025/03/01\n"
        "052 2025/03/02\n"
        "001    1 m    Klein, Klaus                      2100 GER     4600001             1.0    1     2 w 1\n"
        "001    2 m    Klein, K.                         2000 GER     4600001             0.0    2     1 b 0\n"
    )
    before = snapshot(registered)
    with pytest.raises(InputError) as refused:
        import_files(registered, [write(tmp_path, "spring.trf", trf)], imported_by="t", now=NOW)
    (problem,) = refused.value.problems
    assert (problem.line, problem.value) == (5, "Klein, K.")
    assert "would both be player P0000001 ('Klaus Klein')" in problem.expected
    assert snapshot(registered) == before


def test_the_two_players_are_found_again_by_their_spelling(engine: Engine, tmp_path: Path) -> None:
    # Both names fold to one key: each row is the player stored exactly as it is written, so the
    # corrected file replaces its event without asking for ids an OpenGotha file cannot give.
    path = write(tmp_path, "egc.xml", PARITY)
    import_files(engine, [path], imported_by="t", now=NOW)
    first = stored_results(engine)
    report = import_files(engine, [path], replace=True, imported_by="t", now=NOW)
    assert (report.tournaments_replaced, report.players_new, report.warnings) == (1, 0, ())
    assert stored_results(engine) == first
