"""Two copies of one event: an event with the dates and mostly the rows of another, stored or in
the same import, is imported with a warning naming both; a near miss is not warned of."""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import Engine

from jobs import import_checks as checks
from jobs.importing import import_files
from ratings.errors import Problem
from ratings.storage import players as stored_players
from ratings.storage.bulk import indexes
from tests.support.db import counts

NOW = datetime(2026, 11, 1, tzinfo=UTC)
HEADER = "tournament,end_date,player_id,name,wins,draws,losses,buchholz\n"
PLAYERS = [
    ("B01", "Anna Meier"), ("B02", "Beat Keller"), ("B03", "Carla Frei"), ("B04", "Dario Rossi"),
    ("B05", "Eva Graf"), ("B06", "Felix Huber"), ("B07", "Gina Roth"), ("B08", "Hans Vogt"),
    ("B09", "Ida Brunner"), ("B10", "Jon Baumann"),
]  # fmt: skip
OTHERS = [("B11", "Kurt Zaugg"), ("B12", "Lea Moser"), ("B13", "Mia Wyss")]


def event(name: str, day: str, players: list[tuple[str, str]]) -> str:
    """Ten rows of a blitz event; each player one win, one draw and one loss."""
    return "".join(f"{name},{day},{pid},{who},1,1,1,0\n" for pid, who in players)


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(HEADER + text, encoding="utf-8")
    return path


def warned(report_warnings: tuple[object, ...]) -> list[str]:
    return [str(w) for w in report_warnings if "may be a copy of" in str(w)]


WINTER_COPIES_STORED_AUTUMN = (
    "winter.csv, line 2, column 'tournament': value 'Winterblitz Bern 2025-10-18': "
    "'Winterblitz Bern' may be a copy of 'Herbstblitz Bern' (Herbstblitz Bern 2025-10-18, "
    "already imported): the same dates (2025-10-18) and 9 of 10 rows equal (player and "
    "result); imported all the same (delete one if they are one event)"
)
"""The warning of the winter event, nine of whose ten rows the stored autumn event has."""


def stored_events(engine: Engine) -> int:
    return counts(engine, "tournaments")["tournaments"]


def test_a_copy_in_the_same_import(engine: Engine, tmp_path: Path) -> None:
    autumn = event("Herbstblitz Bern", "2025-10-18", PLAYERS)
    winter = event("Winterblitz Bern", "2025-10-18", PLAYERS[:9] + OTHERS[:1])
    report = import_files(
        engine, [write(tmp_path, "bern.csv", autumn + winter)], imported_by="t", now=NOW
    )
    assert warned(report.warnings) == [
        "bern.csv, line 12, column 'tournament': value 'Winterblitz Bern 2025-10-18': "
        "'Winterblitz Bern' may be a copy of 'Herbstblitz Bern' (Herbstblitz Bern 2025-10-18, "
        "in bern.csv, line 2): the same dates (2025-10-18) and 9 of 10 rows equal (player and "
        "result); imported all the same (delete one if they are one event)"
    ]
    assert stored_events(engine) == 2


def test_a_copy_of_a_stored_event(engine: Engine, tmp_path: Path) -> None:
    autumn = write(tmp_path, "herbst.csv", event("Herbstblitz Bern", "2025-10-18", PLAYERS))
    assert warned(import_files(engine, [autumn], imported_by="t", now=NOW).warnings) == []
    winter = write(
        tmp_path,
        "winter.csv",
        event("Winterblitz Bern", "2025-10-18", PLAYERS[1:] + OTHERS[:1]),
    )
    for dry_run in (True, False):
        report = import_files(engine, [winter], imported_by="t", now=NOW, dry_run=dry_run)
        assert warned(report.warnings) == [WINTER_COPIES_STORED_AUTUMN]
    # Correcting an event with --replace compares it with the others, not with itself.
    report = import_files(engine, [winter], imported_by="t", now=NOW, replace=True)
    assert len(warned(report.warnings)) == 1


def test_near_misses_are_not_warned_of(engine: Engine, tmp_path: Path) -> None:
    autumn = write(tmp_path, "herbst.csv", event("Herbstblitz Bern", "2025-10-18", PLAYERS))
    import_files(engine, [autumn], imported_by="t", now=NOW)
    # Seven of ten rows equal (under 80 %), and all ten equal a day later.
    seven = event("Winterblitz Bern", "2025-10-18", PLAYERS[:7] + OTHERS)
    later = event("Jugendblitz Bern", "2025-10-19", PLAYERS)
    report = import_files(
        engine, [write(tmp_path, "more.csv", seven + later)], imported_by="t", now=NOW
    )
    assert warned(report.warnings) == []


@pytest.mark.parametrize("large", [False, True], ids=["small", "large"])
def test_the_rows_are_compared_while_the_import_writes(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, large: bool
) -> None:
    """The database is read for stored copies before the import writes. On PostgreSQL, where
    the writes are waits on the server, the rows are compared by a thread of their own: here
    the comparison waits until the import has written its players, which it could not if the
    writes waited for it. On SQLite, whose writes work in this process beside a large import's
    own thread, they are compared on the job's thread before the players are written. A large
    import (indexes rebuilt around its results) finds the stored copy too, and not itself."""
    autumn = write(tmp_path, "herbst.csv", event("Herbstblitz Bern", "2025-10-18", PLAYERS))
    import_files(engine, [autumn], imported_by="t", now=NOW)
    if large:
        monkeypatch.setattr(indexes, "REBUILD_INDEXES_FROM", 0)
    beside = engine.dialect.name == "postgresql"
    written = threading.Event()
    compared_on: list[threading.Thread] = []
    insert_players = stored_players.insert_players

    def insert_and_tell(*args: Any, **kwargs: Any) -> None:
        insert_players(*args, **kwargs)
        written.set()

    compare = checks.copies_among

    def compare_and_tell(*args: Any) -> list[Problem]:
        compared_on.append(threading.current_thread())
        if beside:
            assert written.wait(timeout=20), "the import waited for the comparison to write"
        else:
            assert not written.is_set()
        return compare(*args)

    monkeypatch.setattr(stored_players, "insert_players", insert_and_tell)
    monkeypatch.setattr(checks, "copies_among", compare_and_tell)
    winter = write(
        tmp_path,
        "winter.csv",
        event("Winterblitz Bern", "2025-10-18", PLAYERS[1:] + OTHERS[:1]),
    )
    report = import_files(engine, [winter], imported_by="t", now=NOW)
    assert warned(report.warnings) == [WINTER_COPIES_STORED_AUTUMN]
    assert stored_events(engine) == 2
    assert len(compared_on) == 1
    assert (compared_on[0] is threading.current_thread()) is not beside


def test_an_error_of_the_comparison_imports_nothing(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What goes wrong in the thread comparing the rows reaches the import, whose transaction
    is rolled back: nothing of the file is stored."""

    def broken(*args: Any) -> list[Problem]:
        raise RuntimeError("comparison failed")

    monkeypatch.setattr(checks, "copies_among", broken)
    herbst = write(tmp_path, "herbst.csv", event("Herbstblitz Bern", "2025-10-18", PLAYERS))
    with pytest.raises(RuntimeError, match="comparison failed"):
        import_files(engine, [herbst], imported_by="t", now=NOW)
    assert stored_events(engine) == 0
