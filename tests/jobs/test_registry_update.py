"""A registry update changes what the file says and nothing else: a column the file does not
have is never touched, an empty cell leaves the stored value unless --clear-empty, and a dry run
lists every field it would change and writes nothing."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.engine import Engine

from jobs.players import FieldChange, import_registry
from ratings.storage.schema import players
from tests.support.db import snapshot

NOW = datetime(2026, 11, 1, tzinfo=UTC)

REGISTRY = (
    "player_id,name,country,club,title,title_date\n"
    "101,Anna Schmidt,GER,SK Bern,,\n"
    "102,Marco Rossi,ITA,Torre Milano,IM,2015-03-01\n"
    "103,Jan Novak,CZE,ŠK Praha,GM,2010-06-01\n"
)
TITLES = (
    "player_id,name,country,title,title_date\n"
    "101,Anna Schmidt,GER,FM,2024-05-01\n"
    "102,Marco Rossi,ITA,IM,2015-03-01\n"
    "103,Jan Novak,CZE,GM,2010-06-01\n"
)


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def stored(engine: Engine) -> dict[str, tuple[object, ...]]:
    with engine.connect() as connection:
        rows = connection.execute(
            select(
                players.c.federation_id, players.c.name, players.c.country, players.c.club,
                players.c.title, players.c.title_date,
            )
        ).all()  # fmt: skip
    return {row[0]: tuple(row[1:]) for row in rows}


def test_a_file_without_a_club_column_leaves_clubs_alone(engine: Engine, tmp_path: Path) -> None:
    import_registry(engine, write(tmp_path, "players.csv", REGISTRY), now=NOW)
    report = import_registry(engine, write(tmp_path, "titles.csv", TITLES), now=NOW)
    assert stored(engine) == {
        "101": ("Anna Schmidt", "DEU", "SK Bern", "FM", date(2024, 5, 1)),
        "102": ("Marco Rossi", "ITA", "Torre Milano", "IM", date(2015, 3, 1)),
        "103": ("Jan Novak", "CZE", "ŠK Praha", "GM", date(2010, 6, 1)),
    }
    assert (report.created, report.updated, report.unchanged) == (0, 1, 2)
    assert report.changes == (
        FieldChange("101", "Anna Schmidt", "title", None, "FM"),
        FieldChange("101", "Anna Schmidt", "title_date", None, "2024-05-01"),
    )


def test_an_empty_cell_leaves_the_value_and_clear_empty_clears_it(
    engine: Engine, tmp_path: Path
) -> None:
    import_registry(engine, write(tmp_path, "players.csv", REGISTRY), now=NOW)
    update = write(
        tmp_path,
        "update.csv",
        "player_id,name,country,club\n101,Anna Schmidt,SUI,\n102,Marco Rossi,,Scacchi Roma\n",
    )
    report = import_registry(engine, update, now=NOW)
    assert stored(engine)["101"][1:3] == ("CHE", "SK Bern")
    assert stored(engine)["102"][1:3] == ("ITA", "Scacchi Roma")
    assert [str(c) for c in report.changes] == [
        "101 Anna Schmidt: country 'DEU' → 'CHE'",
        "102 Marco Rossi: club 'Torre Milano' → 'Scacchi Roma'",
    ]
    report = import_registry(engine, update, now=NOW, clear_empty=True)
    assert stored(engine)["101"][1:3] == ("CHE", None)
    assert stored(engine)["102"][1:3] == (None, "Scacchi Roma")
    # Columns the file does not have stay as they are even with --clear-empty.
    assert stored(engine)["102"][3:] == ("IM", date(2015, 3, 1))
    assert [str(c) for c in report.changes] == [
        "101 Anna Schmidt: club 'SK Bern' → (empty)",
        "102 Marco Rossi: country 'ITA' → (empty)",
    ]


def test_a_dry_run_lists_the_changes_and_writes_nothing(engine: Engine, tmp_path: Path) -> None:
    import_registry(engine, write(tmp_path, "players.csv", REGISTRY), now=NOW)
    before = snapshot(engine)
    update = write(
        tmp_path,
        "update.csv",
        "player_id,name,club,title\n101,Anna Schmidt,,\n102,Marco Rossi,Scacchi Roma,GM\n"
        "104,Eva Berg,Oslo SK,\n",
    )
    report = import_registry(engine, update, now=NOW, dry_run=True, clear_empty=True)
    assert snapshot(engine) == before
    assert report.dry_run
    assert report.new_players == (("104", "Eva Berg"),)
    assert [str(c) for c in report.changes] == [
        "101 Anna Schmidt: club 'SK Bern' → (empty)",
        "102 Marco Rossi: club 'Torre Milano' → 'Scacchi Roma'",
        "102 Marco Rossi: title 'IM' → 'GM'",
        # The IM's date is not the GM's: a new title without a date has none.
        "102 Marco Rossi: title_date '2015-03-01' → (empty)",
    ]
    assert (report.created, report.updated, report.titles_changed) == (1, 2, 1)
    # The import itself does what the dry run said.
    import_registry(engine, update, now=NOW, clear_empty=True)
    assert stored(engine)["102"] == ("Marco Rossi", "ITA", "Scacchi Roma", "GM", None)
    assert stored(engine)["104"] == ("Eva Berg", None, "Oslo SK", None, None)


def test_a_code_that_names_no_country_keeps_the_stored_one(engine: Engine, tmp_path: Path) -> None:
    import_registry(engine, write(tmp_path, "players.csv", REGISTRY), now=NOW)
    update = write(
        tmp_path, "update.csv", "player_id,name,country\n101,Anna Schmidt,???\n105,Eva Berg,C.C\n"
    )
    for clear_empty in (False, True):
        report = import_registry(engine, update, now=NOW, clear_empty=clear_empty)
        assert [(w.line, w.value) for w in report.warnings] == [(2, "???"), (3, "C.C")]
        assert report.changes == ()
        assert stored(engine)["101"][1] == "DEU"
        assert stored(engine)["105"][1] is None
