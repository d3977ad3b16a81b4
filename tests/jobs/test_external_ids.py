"""External ids in the registry and in the long-format results table (``fide_id``,
``egd_pin``): stored as identifiers, matched on first, what is missing filled in, and an id that
disagrees with the stored ones a warning to review, never a silent overwrite. Both databases."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from sqlalchemy import func, select
from sqlalchemy.engine import Engine

from jobs.importing import import_files
from jobs.monthly import run_monthly
from jobs.options import MonthlyOptions
from jobs.players import import_registry
from ratings.errors import InputError, ReviewError
from ratings.storage.schema import player_identifiers, players, results, tournaments

NOW = datetime(2025, 4, 1, 12, 0, tzinfo=UTC)

REGISTRY = """\
player_id,name,country,fide_id,egd_pin
P1,Anna Schmidt,DEU,4600001,
P2,Anna Schmidt,DEU,4600002,
P3,Dirk de Vries,NLD,,12345678
P4,Marco Rossi,ITA,,
"""

HEADER = "tournament,end_date,player_id,name,country,fide_id,egd_pin,wins,draws,losses,buchholz\n"


@pytest.fixture
def registered(engine: Engine, tmp_path: Path) -> Engine:
    path = tmp_path / "players.csv"
    path.write_text(REGISTRY, encoding="utf-8")
    assert import_registry(engine, path, now=NOW).warnings == ()
    return engine


def ids_of(engine: Engine) -> set[tuple[str, str, str]]:
    """(federation id, scheme, value) of every stored external id."""
    with engine.connect() as connection:
        rows = connection.execute(
            select(
                players.c.federation_id, player_identifiers.c.scheme, player_identifiers.c.value
            ).join(players, players.c.id == player_identifiers.c.player_id)
        ).all()
    return {(a, b, c) for a, b, c in rows}


def player_of(engine: Engine, event: str) -> dict[str, int]:
    """Each federation id with a result in the event (by name), with its wins."""
    with engine.connect() as connection:
        rows = connection.execute(
            select(players.c.federation_id, results.c.wins)
            .join(results, results.c.player_id == players.c.id)
            .join(tournaments, tournaments.c.id == results.c.tournament_id)
            .where(tournaments.c.name == event)
        ).all()
    return dict(rows)


def count_players(engine: Engine) -> int:
    with engine.connect() as connection:
        return int(connection.execute(select(func.count()).select_from(players)).scalar_one())


def write(tmp_path: Path, name: str, rows: str) -> Path:
    path = tmp_path / name
    path.write_text(HEADER + rows, encoding="utf-8")
    return path


def test_a_results_row_is_matched_by_its_fide_id_before_its_name(
    registered: Engine, tmp_path: Path
) -> None:
    # By name alone the two Anna Schmidts are ambiguous; the FIDE ids say which is which, and a
    # spreadsheet's "4600002.0" is the id 4600002.
    path = write(tmp_path, "cup.csv", (
        "Cup,2025-03-01,,SCHMIDT Anna,GER,4600002.0,,1,0,0,0\n"
        "Cup,2025-03-01,,Marco Rossi,ITA,,,0,0,1,1\n"
    ))  # fmt: skip
    report = import_files(registered, [path], imported_by="t", now=NOW)
    assert (report.players_new, report.warnings) == (0, ())
    assert player_of(registered, "Cup") == {"P2": 1, "P4": 0}


def test_an_egd_pin_is_stored_for_a_new_player_and_matches_him_next_time(
    registered: Engine, tmp_path: Path
) -> None:
    first = write(tmp_path, "go1.csv", (
        "Go Cup,2025-03-01,,Zoltan Nagy,HU,,87654321,1,0,0,0\n"
        "Go Cup,2025-03-01,,Dirk de Vries,NL,,12345678,0,0,1,1\n"
    ))  # fmt: skip
    assert import_files(registered, [first], imported_by="t", now=NOW).players_new == 1
    new = next(fid for fid, scheme, value in ids_of(registered) if value == "87654321")
    # Next month the club writes the name its own way: the PIN says who he is.
    second = write(tmp_path, "go2.csv", (
        "Go Club,2025-03-20,,NAGY Zoltán,HU,,87654321,0,0,1,1\n"
        "Go Club,2025-03-20,,de_Vries Dirk,NL,,12345678,1,0,0,0\n"
    ))  # fmt: skip
    report = import_files(registered, [second], imported_by="t", now=NOW)
    assert report.players_new == 0
    assert count_players(registered) == 5
    assert (new, "egd", "87654321") in ids_of(registered)


def test_a_registry_fills_missing_ids_and_warns_about_different_ones(
    registered: Engine, tmp_path: Path
) -> None:
    path = tmp_path / "update.csv"
    path.write_text(
        "player_id,name,fide_id,egd_pin\n"
        "P4,Marco Rossi,2800004,\n"  # missing: filled in
        "P1,Anna Schmidt,4600009,\n"  # P1 has 4600001: not a second FIDE id
        "P3,Dirk de Vries,,12345678\n",  # the same: nothing to say
        encoding="utf-8",
    )
    report = import_registry(registered, path, now=NOW)
    assert [str(w) for w in report.warnings] == [
        "update.csv, line 3, column 'fide_id': value '4600009': player P1 has the FIDE id "
        "4600001: this one is not stored (review)"
    ]
    held = ids_of(registered)
    assert ("P4", "fide", "2800004") in held
    assert ("P1", "fide", "4600009") not in held
    assert ("P1", "fide", "4600001") in held


def test_a_results_id_that_disagrees_is_a_warning_and_not_stored(
    registered: Engine, tmp_path: Path
) -> None:
    before = ids_of(registered)
    path = write(tmp_path, "open.csv", (
        # P4's row names P1's FIDE id: P4 plays, the id stays P1's.
        "Open,2025-03-01,P4,Marco Rossi,ITA,4600001,,1,0,0,0\n"
        # P2 already has another FIDE id.
        "Open,2025-03-01,P2,Anna Schmidt,DEU,4600077,,0,0,1,1\n"
    ))  # fmt: skip
    report = import_files(registered, [path], imported_by="t", now=NOW)
    assert [str(w) for w in report.warnings] == [
        "open.csv, line 2, column 'fide_id': value '4600001': this FIDE id belongs to Anna "
        "Schmidt (P1), not to player P4: not stored (review, and merge if they are one person)",
        "open.csv, line 3, column 'fide_id': value '4600077': player P2 has the FIDE id 4600002: "
        "this one is not stored (review)",
    ]
    assert ids_of(registered) == before
    assert player_of(registered, "Open") == {"P4": 1, "P2": 0}


def test_one_id_given_to_two_players_of_a_file_is_stored_for_neither(
    registered: Engine, tmp_path: Path
) -> None:
    path = write(tmp_path, "two.csv", (
        "Two,2025-03-01,P4,Marco Rossi,ITA,3900001,,1,0,0,0\n"
        "Two,2025-03-01,P9,Luca Bianchi,ITA,3900001,,0,0,1,1\n"
    ))  # fmt: skip
    report = import_files(registered, [path], imported_by="t", now=NOW)
    assert [str(w) for w in report.warnings] == [
        "two.csv, line 2, column 'fide_id': value '3900001': this FIDE id is given to 2 players "
        "in the files: not stored (review the files)"
    ]
    assert not any(value == "3900001" for _fid, _scheme, value in ids_of(registered))


def test_a_name_whose_id_belongs_to_another_name_is_held_for_review(
    registered: Engine, tmp_path: Path
) -> None:
    path = write(tmp_path, "far.csv", (
        "Far,2025-03-01,,Wolfgang Weber,DEU,4600001,,1,0,0,0\n"
        "Far,2025-03-01,,Marco Rossi,ITA,,,0,0,1,1\n"
    ))  # fmt: skip
    with pytest.raises(ReviewError, match="its FIDE id 4600001 belongs to Anna Schmidt"):
        import_files(registered, [path], imported_by="t", now=NOW)
    assert count_players(registered) == 4


@pytest.mark.parametrize(
    ("cells", "said"),
    [
        (
            "46A0001,",
            "far.csv, line 2, column 'fide_id': value '46A0001': expected the id's digits",
        ),
        (",PIN1", "far.csv, line 2, column 'egd_pin': value 'PIN1': expected the id's digits"),
        (
            "4600001,12345678",
            "far.csv, line 2, column 'egd_pin': value '12345678': a row gives one external id: "
            "a FIDE id (chess) or an EGD PIN (Go), not both",
        ),
    ],
)
def test_a_bad_external_id_is_one_problem_and_nothing_is_written(
    registered: Engine, tmp_path: Path, cells: str, said: str
) -> None:
    path = write(tmp_path, "far.csv", (
        f"Far,2025-03-01,,Anna Schmidt,DEU,{cells},1,0,0,0\n"
        "Far,2025-03-01,,Marco Rossi,ITA,,,0,0,1,1\n"
    ))  # fmt: skip
    with pytest.raises(InputError) as raised:
        import_files(registered, [path], imported_by="t", now=NOW)
    assert [str(p) for p in raised.value.problems] == [said]
    assert count_players(registered) == 4
    with registered.connect() as connection:
        assert connection.execute(select(func.count()).select_from(results)).scalar_one() == 0


def test_the_monthly_job_reports_an_id_that_disagrees_with_the_file(
    registered: Engine, tmp_path: Path
) -> None:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    write(inbox, "open.csv", "Open,2025-03-01,P4,Marco Rossi,ITA,4600001,,1,0,0,0\n"
                             "Open,2025-03-01,P3,Dirk de Vries,NLD,,,0,0,1,1\n")  # fmt: skip
    options = MonthlyOptions(
        inbox_dir=inbox, publish_dir=tmp_path / "publish", imported_by="officer"
    )
    report = run_monthly(registered, options, today=date(2025, 4, 2), clock=lambda: NOW)
    said = (
        "open.csv, line 2, column 'fide_id': value '4600001': this FIDE id belongs to Anna "
        "Schmidt (P1), not to player P4: not stored (review, and merge if they are one person)"
    )
    assert report.accepted == ["open.csv"]
    assert report.warnings == {"open.csv": [said]}
    archived = inbox / "archive" / "2025-04" / "open.csv.warnings.txt"
    assert said in archived.read_text(encoding="utf-8")


def test_a_namesake_with_another_fide_id_is_imported_as_a_new_player(
    registered: Engine, tmp_path: Path
) -> None:
    """Anna Schmidt with a FIDE id nobody holds is neither P1 nor P2 (who hold others), and Dirk
    de Vries with another EGD PIN is not P3: each is a new player with the id, no review."""
    path = write(tmp_path, "namesakes.csv", (
        "Namesakes,2025-03-01,,Anna Schmidt,DEU,4600099,,1,0,0,0\n"
        "Namesakes,2025-03-01,,Dirk de Vries,NLD,,87654321,0,0,1,1\n"
    ))  # fmt: skip
    report = import_files(registered, [path], imported_by="t", now=NOW)
    assert report.warnings == ()
    stored = ids_of(registered)
    new = {value: fid for fid, _, value in stored if value in {"4600099", "87654321"}}
    assert set(new) == {"4600099", "87654321"}
    assert not set(new.values()) & {"P1", "P2", "P3", "P4"}
    assert player_of(registered, "Namesakes") == {new["4600099"]: 1, new["87654321"]: 0}
