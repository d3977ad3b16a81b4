"""The job lock covers everything that writes: migrations, imports, registry imports, merges and
unmerges, deletions of tournaments, rating runs and publications by hand take the lock the
monthly job holds."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from jobs.locking import job_lock
from ratings.storage.database import open_engine
from tests.support import histories
from tests.support.settings import empty_settings_file

LOCKED = "error: another job is running on this database; try again when it has finished\n"


def test_writing_commands_stop_while_a_job_runs(run, database_url: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    events = histories.history(events=6)
    path = histories.write_csv(events, tmp_path / "results.csv")
    assert run("import", str(path))[0] == 0
    registry = tmp_path / "players.csv"
    registry.write_text("player_id,name\nA1,Ann One\nA2,Ann Two\nA3,Ann Three\n")
    assert run("players", "import", str(registry))[0] == 0
    assert run("players", "merge", "A2", "A3", "--yes")[0] == 0
    engine = open_engine(database_url)
    try:
        with job_lock(engine):
            for command in (
                ["import", str(path), "--replace"],
                ["players", "import", str(registry)],
                ["run"],
                ["publish", "2022-03"],
            ):
                assert run(*command) == (1, "", LOCKED), command
            # These show what they would change first (standard output), then stop.
            for command in (
                ["players", "merge", "A1", "A2", "--yes"],
                ["players", "unmerge", "A3", "--yes"],
                ["tournaments", "delete", events[0][0].tournament_id, "--yes"],
            ):
                code, _, err = run(*command)
                assert (code, err) == (1, LOCKED), command
            # Reading and checking are not writing: they go on.
            assert run("import", str(path), "--dry-run", "--replace")[0] == 0
            assert run("ranking")[0] == 0
        assert run("run")[0] == 0
        assert run("publish", "2022-03")[0] == 0
    finally:
        engine.dispose()


def environment(database_url: str, tmp_path: Path) -> dict[str, str]:
    """What the monthly job runs with, results waiting in its inbox: a list of nobody is
    never published."""
    (tmp_path / "inbox").mkdir(exist_ok=True)
    histories.write_csv(histories.history(events=4), tmp_path / "inbox" / "results.csv")
    return {
        **os.environ,
        "RATINGS_DATABASE_URL": database_url,
        "RATINGS_CONFIG": empty_settings_file(tmp_path),
        "RATINGS_INBOX_DIR": str(tmp_path / "inbox"),
        "RATINGS_PUBLISH_DIR": str(tmp_path / "publish"),
    }


@pytest.mark.parametrize(
    ("command", "said"),
    [
        (["monthly", "--period", "2026-01"], "published 2026-01 version 1"),
        (["db", "upgrade"], "schema at revision"),
    ],
)
def test_a_new_database_is_migrated_under_the_lock(
    database_url: str, tmp_path: Path, command: list[str], said: str
) -> None:
    """A job holding the lock on a new database: a second process waits with a message before
    migrating, instead of migrating beside it; it goes on when the lock is free."""
    engine = open_engine(database_url, upgrade_schema=False)
    try:
        with job_lock(engine):
            process = subprocess.Popen(
                [sys.executable, "-m", "service.cli", *command],
                env=environment(database_url, tmp_path),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            assert process.stderr is not None
            first = process.stderr.readline()
            assert first == "waiting for another job to finish before migrating the database ...\n"
            time.sleep(0.5)
            assert process.poll() is None
        out, err = process.communicate(timeout=120)
    finally:
        engine.dispose()
    assert (process.returncode, err) == (0, "")
    assert said in out


def test_two_monthly_jobs_on_a_new_database(database_url: str, tmp_path: Path) -> None:
    """Started together, one job runs and the other runs after it or stops with one line. The
    database exists (as `ratings db upgrade` or `createdb` leaves it), its schema not yet."""
    open_engine(database_url, upgrade_schema=False).dispose()
    command = [sys.executable, "-m", "service.cli", "monthly", "--period", "2026-01"]
    env = environment(database_url, tmp_path)
    processes = [
        subprocess.Popen(
            command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    outcomes = [(*p.communicate(timeout=180), p.returncode) for p in processes]
    for _out, err, code in outcomes:
        assert "Traceback" not in err
        assert code in (0, 1), err
        if code == 1:
            assert err.endswith(LOCKED)
    assert [code for _, _, code in outcomes].count(0) >= 1
    assert sum("published 2026-01 version 1" in out for out, _, _ in outcomes) == 1


def test_the_lock_is_portable() -> None:
    source = (Path(__file__).parents[3] / "jobs" / "locking.py").read_text()
    assert "fcntl" not in source


@pytest.mark.parametrize("variable", ["USER", "LOGNAME", "LNAME", "USERNAME"])
def test_the_importer_is_the_current_user_without_user(
    variable: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from service.settings import Settings

    for name in ("USER", "LOGNAME", "LNAME", "USERNAME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(variable, "anna")
    assert Settings(_env_file=None).imported_by == "anna"  # type: ignore[call-arg]
