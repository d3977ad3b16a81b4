"""Opening the database: every way it can fail is one error saying what to do."""

from __future__ import annotations

import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from ratings.errors import (
    DatabaseLoginError,
    DatabaseUnreachableError,
    DatabaseUrlError,
    MissingDatabaseError,
)
from ratings.storage import database
from ratings.storage.database import open_engine
from ratings.storage.write_ahead import checkpoint, large_transaction


def test_a_postgres_url_names_the_one_to_use() -> None:
    with pytest.raises(
        DatabaseUrlError,
        match=(
            r"^database_url postgres://ann:\*\*\*@db\.example/ratings: use a postgresql\+psycopg:// "
            r"URL, postgresql\+psycopg://ann:\*\*\*@db\.example/ratings$"
        ),
    ):
        open_engine("postgres://ann:secret@db.example/ratings")


def test_a_url_that_is_no_url() -> None:
    with pytest.raises(
        DatabaseUrlError,
        match=(
            r"^database_url must be a URL such as sqlite:///ratings\.sqlite or "
            r"postgresql\+psycopg://user@host/name, not 'ratings\.sqlite'$"
        ),
    ):
        open_engine("ratings.sqlite")


def test_a_url_for_a_database_without_a_driver() -> None:
    with pytest.raises(
        DatabaseUrlError,
        match=r"^database_url nosuchdb://x/y: no installed driver opens 'nosuchdb' databases ",
    ):
        open_engine("nosuchdb://x/y")


def test_a_closed_port_is_connection_refused() -> None:
    with pytest.raises(
        DatabaseUnreachableError,
        match=(
            r"^cannot connect to the database server at 127\.0\.0\.1:5433: connection refused "
            r"\(is the server running, and is this its port\?\)$"
        ),
    ):
        open_engine("postgresql+psycopg://postgres@127.0.0.1:5433/ratings")


@pytest.mark.postgres
def test_a_database_that_does_not_exist_says_how_to_create_it(postgres_url: str) -> None:
    url = make_url(postgres_url).set(database="no_such_ratings_db")
    server = f"{url.host}:{url.port or 5432}"
    port = f" -p {url.port}" if url.port else ""
    with pytest.raises(
        MissingDatabaseError,
        match=re.escape(
            f"the database 'no_such_ratings_db' does not exist on the server at {server}: "
            f"create it with `createdb -h {url.host}{port} -U {url.username} no_such_ratings_db`, "
            "then run `ratings db upgrade`"
        ),
    ):
        open_engine(url.render_as_string(hide_password=False))


@pytest.mark.postgres
def test_an_unknown_user_is_a_login_error(postgres_url: str) -> None:
    url = make_url(postgres_url).set(username="no_such_officer", password="x")
    with pytest.raises(
        DatabaseLoginError,
        match=(
            r"^the database server at .* refuses user 'no_such_officer': "
            r"(role \"no_such_officer\" does not exist|password authentication failed .*)$"
        ),
    ):
        open_engine(url.render_as_string(hide_password=False))


def test_a_file_that_is_no_sqlite_database(tmp_path: Path) -> None:
    path = tmp_path / "notes.sqlite"
    path.write_text("not a database, " * 100)
    with pytest.raises(
        DatabaseUnreachableError,
        match=rf"^cannot open the database {re.escape(str(path))}: file is not a database$",
    ):
        open_engine(f"sqlite:///{path}")


def test_a_missing_sqlite_file_is_created_only_when_asked(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "ratings.sqlite"
    with pytest.raises(
        MissingDatabaseError,
        match=(
            rf"^the database {re.escape(str(path))} does not exist: create it with "
            r"`ratings db upgrade` \(or set database_url to the right file\)$"
        ),
    ):
        open_engine(f"sqlite:///{path}", create=False)
    assert not path.exists()
    open_engine(f"sqlite:///{path}").dispose()
    assert path.is_file()
    open_engine(f"sqlite:///{path}", create=False).dispose()


def test_every_sqlite_connection_enforces_foreign_keys_and_writes_ahead(tmp_path: Path) -> None:
    # The first connection opened checks the file and then stays in the pool: it must carry
    # the same settings as every later one.
    engine = open_engine(f"sqlite:///{tmp_path / 'ratings.sqlite'}")
    try:
        with engine.connect() as first, engine.connect() as second:
            for connection in (first, second):
                assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
                assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
    finally:
        engine.dispose()


def rows_in_the_file_alone(path: Path, table: str) -> int | None:
    """What the database file holds without its write-ahead log: rows of ``table`` (None when
    the table is not there)."""
    alone = path.with_name("alone-" + path.name)
    for stale in (
        alone,
        alone.with_name(alone.name + "-wal"),
        alone.with_name(alone.name + "-shm"),
    ):
        stale.unlink(missing_ok=True)
    shutil.copyfile(path, alone)
    connection = sqlite3.connect(alone)
    try:
        found = connection.execute(
            "SELECT count(*) FROM sqlite_master WHERE name = ?", (table,)
        ).fetchone()[0]
        return connection.execute(f"SELECT count(*) FROM {table}").fetchone()[0] if found else None
    finally:
        connection.close()


def test_a_large_transaction_is_on_disk_in_the_log_and_a_checkpoint_copies_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    limit = 1024 * 1024
    monkeypatch.setattr(database, "WAL_SIZE_LIMIT", limit)
    path = tmp_path / "ratings.sqlite"
    engine = open_engine(f"sqlite:///{path}")
    try:
        with engine.begin() as connection:
            connection.exec_driver_sql("CREATE TABLE scratch (value TEXT)")
        checkpoint(engine)
        with large_transaction(engine) as connection:
            raw = connection.connection.driver_connection
            assert raw is not None
            # The commit syncs the log and copies nothing into the file.
            assert raw.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 0
            assert raw.execute("PRAGMA synchronous").fetchone()[0] == 2
            # Five megabytes, past the thousand pages at which a commit would copy them itself.
            connection.exec_driver_sql(
                "INSERT INTO scratch SELECT printf('%.1000c', 'x') FROM"
                " (WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000)"
                " SELECT i FROM n)"
            )
        # The connection goes back to the pool as every other one is.
        assert raw.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 1000
        assert raw.execute("PRAGMA synchronous").fetchone()[0] == 1
        assert rows_in_the_file_alone(path, "scratch") == 0
        with engine.connect() as connection:
            assert connection.exec_driver_sql("SELECT count(*) FROM scratch").scalar() == 5000
        busy, logged, copied = checkpoint(engine) or (1, 0, 0)
        assert busy == 0
        assert logged == copied > 1000
        assert rows_in_the_file_alone(path, "scratch") == 5000
        wal = path.with_name(path.name + "-wal")
        assert wal.stat().st_size > 4 * limit
        # The next write starts the log again, cut back to its limit.
        with engine.begin() as connection:
            connection.exec_driver_sql("INSERT INTO scratch VALUES ('y')")
        assert wal.stat().st_size <= limit
    finally:
        engine.dispose()


def test_a_large_transaction_that_fails_leaves_nothing_and_the_settings_as_they_were(
    tmp_path: Path,
) -> None:
    path = tmp_path / "ratings.sqlite"
    engine = open_engine(f"sqlite:///{path}")
    try:
        with engine.begin() as connection:
            connection.exec_driver_sql("CREATE TABLE scratch (value TEXT)")
        used = []

        def fail() -> None:
            with large_transaction(engine) as connection:
                used.append(connection.connection.driver_connection)
                connection.exec_driver_sql("INSERT INTO scratch VALUES ('x')")
                raise ZeroDivisionError

        with pytest.raises(ZeroDivisionError):
            fail()
        (raw,) = used
        assert raw.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 1000
        assert raw.execute("PRAGMA synchronous").fetchone()[0] == 1
        with engine.connect() as connection:
            assert connection.exec_driver_sql("SELECT count(*) FROM scratch").scalar() == 0
    finally:
        engine.dispose()


def test_a_checkpoint_of_another_database_is_nothing(postgres_url: str) -> None:
    engine = open_engine(postgres_url)
    try:
        assert checkpoint(engine) is None
        with large_transaction(engine) as connection:
            assert connection.exec_driver_sql("SELECT 1").scalar() == 1
    finally:
        engine.dispose()


OPEN_AND_MIGRATE = """
import sys
from ratings.storage.database import is_current, open_engine
engine = open_engine("sqlite:///" + sys.argv[1])
print(is_current(engine))
engine.dispose()
"""


def test_processes_creating_one_sqlite_database_at_once_all_get_it(tmp_path: Path) -> None:
    # Each switched the new file to WAL and migrated it in a transaction that read before it
    # wrote; SQLite refused the loser at once ("database is locked") instead of letting it wait.
    for attempt in range(3):
        path = tmp_path / f"new-{attempt}.sqlite"
        processes = [
            subprocess.Popen(
                [sys.executable, "-c", OPEN_AND_MIGRATE, str(path)],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(3)
        ]
        outcomes = [(*p.communicate(timeout=120), p.returncode) for p in processes]
        assert outcomes == [("True\n", "", 0)] * 3
