"""What follows a large SQLite transaction: the copy of its write-ahead log into the database file,
in the process that wrote it or, at the end of a command, in one that outlives the command."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from sqlalchemy import func, select
from sqlalchemy.engine import Engine

from ratings.storage import write_ahead
from ratings.storage.database import open_engine
from ratings.storage.schema import job_runs, results
from ratings.storage.write_ahead import (
    checkpoint,
    copy_log,
    ends_with_process,
    large_transaction,
)
from tests.jobs.test_monthly import published_entries
from tests.storage.test_database import rows_in_the_file_alone
from tests.support import histories
from tests.support.settings import empty_settings_file

ROWS = 5000
"""Rows of a thousand bytes each: five megabytes of log, past a thousand pages."""


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    engine = open_engine(f"sqlite:///{tmp_path / 'ratings.sqlite'}")
    with engine.begin() as connection:
        connection.exec_driver_sql("CREATE TABLE scratch (value TEXT)")
    checkpoint(engine)
    yield engine
    engine.dispose()


@pytest.fixture
def started() -> Iterator[list[subprocess.Popen[bytes]]]:
    """The copying processes a test starts; each is let go (as this process's end would) and
    waited for afterwards, whatever the test found."""
    before = len(write_ahead._aside)
    new: list[subprocess.Popen[bytes]] = []
    yield new
    new.extend(write_ahead._aside[before:])
    del write_ahead._aside[before:]
    for child in new:
        release(child)


def release(child: subprocess.Popen[bytes]) -> int:
    """What this process's end does to a copying process it started: closes the pipe it waits
    on. Returns its exit status."""
    if child.stdin is not None and not child.stdin.closed:
        child.stdin.close()
    return child.wait(timeout=60)


def write_much(engine: Engine) -> None:
    with large_transaction(engine) as connection:
        connection.exec_driver_sql(
            "INSERT INTO scratch SELECT printf('%.1000c', 'x') FROM"
            f" (WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {ROWS})"
            " SELECT i FROM n)"
        )


def log_of(path: Path) -> Path:
    return path.with_name(path.name + "-wal")


def copied(path: Path, table: str, rows: int) -> Callable[[], bool]:
    """Whether the file alone holds ``rows`` of ``table``; a copy of the file taken while the
    copier writes it may be torn, which is not yet."""

    def found() -> bool:
        try:
            return rows_in_the_file_alone(path, table) == rows
        except sqlite3.DatabaseError:
            return False

    return found


def eventually(found: Callable[[], bool], seconds: float = 60.0) -> bool:
    ends = time.monotonic() + seconds
    while time.monotonic() < ends:
        if found():
            return True
        time.sleep(0.05)
    return found()


def copier_started(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> subprocess.Popen[bytes]:
    """A command's large transaction written on ``engine``, and the copier :func:`copy_log`
    started for it."""
    monkeypatch.setattr(write_ahead, "CHECKPOINT_ASIDE_FROM", 1024 * 1024)
    write_much(ends_with_process(engine))
    before = len(write_ahead._aside)
    copy_log(engine)
    assert len(write_ahead._aside) == before + 1
    return write_ahead._aside[-1]


def test_a_commands_large_log_is_copied_by_a_process_that_holds_the_database_until_it_ends(
    engine: Engine,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    started: list[subprocess.Popen[bytes]],
) -> None:
    path = tmp_path / "ratings.sqlite"
    child = copier_started(engine, monkeypatch)
    # It holds the database until this process ends: closing every connection here copies
    # nothing and leaves the log in place, since these are not the last.
    assert child.poll() is None
    engine.dispose()
    assert log_of(path).exists()
    assert eventually(copied(path, "scratch", ROWS))
    assert child.poll() is None
    # This process ending: the copier closes, the last connection, and removes the log.
    assert release(child) == 0
    assert not log_of(path).exists()
    assert rows_in_the_file_alone(path, "scratch") == ROWS


def test_writes_after_the_copy_started_reach_the_file_when_the_copier_closes(
    engine: Engine,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    started: list[subprocess.Popen[bytes]],
) -> None:
    path = tmp_path / "ratings.sqlite"
    child = copier_started(engine, monkeypatch)
    with engine.begin() as connection:
        connection.exec_driver_sql("INSERT INTO scratch VALUES ('after')")
    engine.dispose()
    assert release(child) == 0
    assert not log_of(path).exists()
    assert rows_in_the_file_alone(path, "scratch") == ROWS + 1


def test_the_services_log_and_a_small_one_are_copied_in_the_process_that_wrote_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, started: list[subprocess.Popen[bytes]]
) -> None:
    # The service goes on after its job: nothing is to outlive it. A command's small log takes
    # less to copy than a process takes to start.
    for name, command, aside_from in (
        ("service.sqlite", False, 1024 * 1024),
        ("command.sqlite", True, 16 * 1024 * 1024),
    ):
        monkeypatch.setattr(write_ahead, "CHECKPOINT_ASIDE_FROM", aside_from)
        path = tmp_path / name
        engine = open_engine(f"sqlite:///{path}")
        try:
            if command:
                ends_with_process(engine)
            with engine.begin() as connection:
                connection.exec_driver_sql("CREATE TABLE scratch (value TEXT)")
            checkpoint(engine)
            write_much(engine)
            assert rows_in_the_file_alone(path, "scratch") == 0
            before = len(write_ahead._aside)
            copy_log(engine)
            assert len(write_ahead._aside) == before, name
            assert rows_in_the_file_alone(path, "scratch") == ROWS, name
        finally:
            engine.dispose()


def test_a_copier_that_never_holds_the_database_is_logged_and_this_process_copies_the_log(
    engine: Engine,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    started: list[subprocess.Popen[bytes]],
) -> None:
    monkeypatch.setattr(write_ahead, "CHECKPOINT_ASIDE_FROM", 1024 * 1024)
    monkeypatch.setattr(write_ahead, "_CHECKPOINT_ASIDE", "import sys; sys.exit(3)")
    path = tmp_path / "ratings.sqlite"
    write_much(ends_with_process(engine))
    copy_log(engine)
    assert "did not open the database" in caplog.text
    assert release(write_ahead._aside[-1]) == 3
    # The last connection to close is this process's, which copies the log on its way out.
    engine.dispose()
    assert rows_in_the_file_alone(path, "scratch") == ROWS
    assert not log_of(path).exists()


def test_a_commands_monthly_job_leaves_its_log_and_its_last_writes_to_the_copier(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, started: list[subprocess.Popen[bytes]]
) -> None:
    monkeypatch.setattr(write_ahead, "CHECKPOINT_ASIDE_FROM", 0)
    path = tmp_path / "ratings.sqlite"
    engine = ends_with_process(open_engine(f"sqlite:///{path}"))
    before = len(write_ahead._aside)
    try:
        entries = published_entries(engine, tmp_path)
        with engine.connect() as connection:
            runs = connection.execute(select(func.count()).select_from(job_runs)).scalar()
    finally:
        engine.dispose()
    assert entries
    assert runs
    (child,) = write_ahead._aside[before:]
    assert release(child) == 0
    # The list, and the run's record written after the copy began, are in the file alone.
    assert rows_in_the_file_alone(path, "list_entries") == entries
    assert rows_in_the_file_alone(path, "job_runs") == runs
    assert not log_of(path).exists()


IMPORT_LEAVING_THE_COPY = """
import sys
from ratings.storage import imports, write_ahead
write_ahead.CHECKPOINT_ASIDE_FROM = 0
imports.is_large = lambda rows: True
sys.argv = ["ratings", *sys.argv[1:]]
from service.cli import main
main()
"""
"""``ratings import`` as its entry point runs it, every import taken as large and every log
left to a copier."""


def test_the_import_command_ends_before_its_log_is_copied_and_the_copy_completes(
    tmp_path: Path,
) -> None:
    path = tmp_path / "ratings.sqlite"
    csv = histories.write_csv(histories.history(events=12), tmp_path / "results.csv")
    environment = {
        **os.environ,
        "RATINGS_DATABASE_URL": f"sqlite:///{path}",
        "RATINGS_CONFIG": empty_settings_file(tmp_path),
    }
    upgrade = [sys.executable, "-m", "service.cli", "db", "upgrade"]
    subprocess.run(upgrade, env=environment, check=True, capture_output=True, timeout=120)
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_LEAVING_THE_COPY, "import", str(csv)],
        env=environment, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    # Its output is read to its end: the copier writes to none of it.
    assert done.returncode == 0, done.stderr
    engine = open_engine(f"sqlite:///{path}")
    try:
        with engine.connect() as connection:
            stored = connection.execute(select(func.count()).select_from(results)).scalar()
    finally:
        engine.dispose()
    assert stored
    # The copier ends once the command has: the log goes, its rows in the file.
    assert eventually(lambda: not log_of(path).exists())
    assert rows_in_the_file_alone(path, "results") == stored
