"""What an import accepts fits the database and is plausible, on every backend: a value too long,
too large or full of control characters is a problem with its file, line, column and value (or,
for a name, cleaned with a warning), and nothing accepted can make a later rating run fail."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.engine import Engine

from jobs.importing import import_files
from jobs.rating import run_ratings
from jobs.reading import read_file
from ratings.errors import InputError
from ratings.formula import MeloParams
from ratings.storage.schema import players, tournaments
from tests.support.db import snapshot

NOW = datetime(2026, 11, 1, tzinfo=UTC)
HEADER = "tournament,end_date,player_id,name,wins,draws,losses,buchholz\n"
BOB = "Open,2024-01-05,P2,Bob,0,0,1,1\n"


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "r.csv"
    path.write_text(text, encoding="utf-8")
    return path


def refused(engine: Engine, path: Path) -> str:
    before = snapshot(engine)
    with pytest.raises(InputError) as caught:
        import_files(engine, [path], imported_by="test", now=NOW)
    assert snapshot(engine) == before
    return str(caught.value)


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        (
            "Open,2024-01-05,P1,Ann,1,0,0,99999999999999999\n",
            "r.csv, line 2, column 'buchholz': value '99999999999999999': larger than possible: "
            "more than 1000 games × 1001 points",
        ),
        (
            "Open,2024-01-05,P1,Ann,1000000000,0,0,0\n",
            "r.csv, line 2, column 'wins': value '1000000000': more than 1000 games in one event",
        ),
        (
            "Open,2024-01-05,P1,Ann,1,0,99999999999999999999999,0\n",
            "r.csv, line 2, column 'losses': value '99999999999999999999999': "
            "more than 1000 games in one event",
        ),
        (
            "Open,2024-01-05,P1,Ann,601,600,0,0\nOpen,2024-01-05,P3,Cy,0,600,600,0\n",
            "r.csv, line 2, column 'wins': value '1201': "
            "more than 1000 games in one event (wins + draws + losses)",
        ),
        (
            f"Open,2024-01-05,{'9' * 65},Ann,1,0,0,0\n",
            f"r.csv, line 2, column 'player_id': value '{'9' * 65}': longer than 64 characters",
        ),
        (
            f"Open,2024-01-05,P1,{'A' * 201},1,0,0,0\n",
            f"r.csv, line 2, column 'name': value '{'A' * 60}… (201 characters)': "
            "longer than 200 characters",
        ),
        (
            "Open,2024-01-05,P\x001,Ann,1,0,0,0\n",
            "r.csv, line 2, column 'player_id': value 'P\\x001': "
            "must not contain control characters",
        ),
    ],
)
def test_a_value_that_does_not_fit_is_a_problem(
    engine: Engine, tmp_path: Path, row: str, expected: str
) -> None:
    message = refused(engine, write(tmp_path, HEADER + row + BOB))
    assert expected in message.splitlines()[1:] or f"  {expected}" in message.splitlines()


def test_a_tournament_name_longer_than_its_column(engine: Engine, tmp_path: Path) -> None:
    name = "Open" * 60
    message = refused(
        engine,
        write(
            tmp_path,
            HEADER + f"{name},2024-01-05,P1,Ann,1,0,0,0\n{name},2024-01-05,P2,Bob,0,0,1,1\n",
        ),
    )
    assert re.search(
        r"r\.csv, line 2, column 'tournament': value 'OpenOpen.*… \(240 characters\)': "
        r"longer than 200 characters",
        message,
    )


def test_names_are_cleaned_of_escape_sequences_with_a_warning(
    engine: Engine, tmp_path: Path
) -> None:
    path = write(
        tmp_path,
        HEADER + "Open\x07,2024-01-05,P1,\x1b[31mAnn\x1b[0m\x00,1,0,0,0\n" + BOB,
    )
    checked = read_file(path)
    assert [str(w) for w in checked.file.warnings] == [
        "r.csv, line 2, column 'tournament': value 'Open\\x07': "
        "control characters removed: read as 'Open'",
        "r.csv, line 2, column 'name': value '\\x1b[31mAnn\\x1b[0m\\x00': "
        "control characters removed: read as 'Ann'",
    ]
    import_files(engine, [path], imported_by="test", now=NOW)
    with engine.connect() as connection:
        names = connection.execute(select(players.c.name).order_by(players.c.name)).scalars()
        assert list(names) == ["Ann", "Bob"]
        assert connection.execute(select(tournaments.c.name)).scalar_one() == "Open"


def test_the_largest_accepted_values_rate(engine: Engine, tmp_path: Path) -> None:
    """What the bounds let in, a later run takes: the largest Buchholz the file may give."""
    path = write(
        tmp_path,
        HEADER + "Open,2024-01-05,P1,Ann,1000,0,0,999999\nOpen,2024-01-05,P2,Bob,0,0,1000,0\n",
    )
    import_files(engine, [path], imported_by="test", now=NOW)
    report = run_ratings(engine, MeloParams(), now=NOW)
    assert report.tournaments == 1
