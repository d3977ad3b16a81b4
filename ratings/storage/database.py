"""Opening the database and keeping its schema at the newest migration."""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import create_engine, event
from sqlalchemy.engine import URL, Connection, Engine, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError

from ratings.errors import (
    DatabaseLoginError,
    DatabaseUnreachableError,
    DatabaseUrlError,
    MissingDatabaseError,
)

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS = Path(__file__).parent / "migrations"
MIGRATION_FILE = re.compile(r"(\d{4})_\w+\.py")
"""A migration's file name: its revision, four digits, then what it does."""
log = logging.getLogger(__name__)
WAL_SIZE_LIMIT = 64 * 1024 * 1024
"""Bytes a SQLite write-ahead log is cut back to when it starts again after a checkpoint."""


def open_engine(url: str, *, upgrade_schema: bool = True, create: bool = True) -> Engine:
    """An engine for ``url``; the schema is migrated to the newest version unless told not to.

    The one place where the database is opened and first connected to, so a wrong URL, a server
    that does not answer, a refused login or a missing database is one
    :class:`~ratings.errors.DatabaseError` saying what to do, never a driver's traceback. A SQLite
    file that does not exist is created only when ``create`` is true (a command that writes):
    a command that only reads must not leave an empty database behind and show an empty list."""
    parsed = parse_url(url)
    new_file = _new_sqlite_file(parsed) if create else None
    if new_file is None:
        return _open(parsed, upgrade_schema=upgrade_schema, create=create)
    _make_folder(new_file)
    from filelock import FileLock, Timeout  # only for a database still to be created

    # Two processes creating one SQLite file each switch it to WAL, and SQLite refuses one of
    # them at once ("database is locked") instead of letting it wait: the first to come creates
    # it and migrates it while the other waits here.
    try:
        with FileLock(new_file.with_name(new_file.name + ".create-lock"), timeout=60):
            return _open(parsed, upgrade_schema=upgrade_schema, create=create)
    except Timeout:
        raise DatabaseUnreachableError(
            f"cannot open the database {new_file}: another process has been creating it for a"
            " minute"
        ) from None


def sqlite_file(url: URL) -> Path | None:
    """The file of a SQLite database named by a path (not in memory, not a ``file:`` URI), or
    None."""
    database = url.database
    if url.get_backend_name() != "sqlite" or not database or database == ":memory:":
        return None
    return None if database.startswith("file:") else Path(database)


def _new_sqlite_file(url: URL) -> Path | None:
    """The path of a SQLite database that is still to be created (missing or empty)."""
    path = sqlite_file(url)
    if path is None:
        return None
    try:
        return path if not path.exists() or path.stat().st_size == 0 else None
    except OSError:
        return None


def _make_folder(path: Path) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise DatabaseUnreachableError(
            f"cannot create the folder of the database {path}: {error.strerror}"
        ) from None


def _open(parsed: URL, *, upgrade_schema: bool, create: bool) -> Engine:
    kwargs: dict[str, Any] = {}
    if parsed.get_backend_name() == "sqlite":
        path = sqlite_file(parsed)
        if path is not None:
            if not create and not path.exists():
                # Absolute: a relative default read in the wrong folder (a cron line without
                # `cd`) names the folder it was looked for in.
                raise MissingDatabaseError(
                    f"the database {path.absolute()} does not exist: create it with"
                    " `ratings db upgrade`"
                    " (or set database_url to the right file)"
                )
            _make_folder(path)
        kwargs["connect_args"] = {"timeout": 60}
    try:
        engine = create_engine(parsed, **kwargs)
    except (NoSuchModuleError, ImportError) as error:
        hint = ""
        if parsed.get_backend_name() == "postgresql":
            # The bare ``postgresql://`` picks psycopg2; psycopg (3) is the driver installed.
            better = parsed.set(drivername="postgresql+psycopg")
            hint = f": use a postgresql+psycopg:// URL, {_shown(better)}"
        raise DatabaseUrlError(
            f"database_url {_shown(parsed)}: no installed driver opens"
            f" {parsed.drivername!r} databases ({error}){hint}"
        ) from None
    if parsed.get_backend_name() == "sqlite":
        # Before the first connection: the pool keeps that one, and it must carry the pragmas
        # (foreign keys, WAL) like every later one.
        event.listen(engine, "connect", _sqlite_pragmas)
        # pysqlite's own transaction handling would defer BEGIN until the first write; the
        # service wants every job to be one real transaction, reads included.
        event.listen(engine, "begin", _sqlite_begin)
    try:
        with engine.connect() as connection:
            if parsed.get_backend_name() == "sqlite":
                # SQLite opens any file; the first read is what finds one that is no database.
                connection.exec_driver_sql("SELECT count(*) FROM sqlite_master")
    except DBAPIError as error:
        engine.dispose()
        raise _connection_error(parsed, error) from None
    if upgrade_schema and not is_current(engine):
        upgrade(engine)
    return engine


def parse_url(url: str) -> URL:
    """``url`` as SQLAlchemy reads it, or a :class:`DatabaseUrlError` saying what is wrong."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise DatabaseUrlError(
            f"database_url must be a URL such as sqlite:///ratings.sqlite or"
            f" postgresql+psycopg://user@host/name, not {url!r}"
        ) from None
    if parsed.drivername == "postgres":
        # Heroku-style ``postgres://`` has no SQLAlchemy dialect.
        raise DatabaseUrlError(
            f"database_url {_shown(parsed)}: use a postgresql+psycopg:// URL,"
            f" {_shown(parsed.set(drivername='postgresql+psycopg'))}"
        )
    return parsed


def _shown(url: URL) -> str:
    return url.render_as_string(hide_password=True)


def _connection_error(url: URL, error: DBAPIError) -> Exception:
    """The first connection failed: say why in one line, and what to do about it."""
    text = str(error.orig)
    if url.get_backend_name() == "sqlite":
        return DatabaseUnreachableError(f"cannot open the database {url.database}: {text}")
    host = url.host or "localhost"
    server = f"{host}:{url.port}" if url.port else host
    # libpq reports these at connection time without an SQLSTATE, so the server's own words
    # (the line after ``FATAL:``) are what tells them apart.
    reason = text.rsplit("FATAL:", 1)[-1].strip().splitlines()[0] if text else ""
    if "FATAL:" in text and "does not exist" in reason and reason.startswith("database"):
        user = f" -U {url.username}" if url.username else ""
        port = f" -p {url.port}" if url.port else ""
        return MissingDatabaseError(
            f"the database {url.database!r} does not exist on the server at {server}:"
            f" create it with `createdb -h {host}{port}{user} {url.database}`,"
            " then run `ratings db upgrade`"
        )
    if "FATAL:" in text and (
        "authentication" in reason or reason.startswith("role") or "pg_hba.conf" in reason
    ):
        return DatabaseLoginError(
            f"the database server at {server} refuses user {url.username!r}: {reason}"
        )
    if "Connection refused" in text:
        reason = "connection refused (is the server running, and is this its port?)"
    else:
        reason = reason.removeprefix("connection failed: ")
    return DatabaseUnreachableError(f"cannot connect to the database server at {server}: {reason}")


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys = ON")
    cursor.execute("PRAGMA journal_mode = WAL")
    cursor.execute("PRAGMA synchronous = NORMAL")
    # The default page cache (2 MiB) makes every index insertion of a million-row write a page
    # read; 256 MiB keeps the hot index pages of a federation's tables in memory. SQLite only
    # takes the pages it uses, so a small database stays small.
    cursor.execute("PRAGMA cache_size = -262144")
    # The log keeps the size of the largest transaction it held (a monthly job's, hundreds of
    # megabytes at federation scale) unless told otherwise: once checkpointed, the next write
    # cuts it back to this.
    cursor.execute(f"PRAGMA journal_size_limit = {WAL_SIZE_LIMIT}")
    cursor.close()


IMMEDIATE = "sqlite_immediate"
"""Execution option: on SQLite, begin the transaction holding the write lock (``BEGIN
IMMEDIATE``), waiting for it as long as the busy timeout allows. A transaction that reads first
and writes later cannot wait: when another connection wrote in between, SQLite refuses its first
write at once ("database is locked"), as two processes migrating a new database found."""


def _sqlite_begin(connection: Connection) -> None:
    immediate = connection.get_execution_options().get(IMMEDIATE, False)
    connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


def _config() -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


@functools.cache
def head() -> str | None:
    """Alembic's newest revision, found once per process: the migrations a release ships do not
    change while it runs, and finding the head loads every one of them."""
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(_config()).get_current_head()


def newest_known() -> str | None:
    """The newest revision, from the migrations' file names alone (each is named after its
    revision, and each revision follows the one before; a test checks that this is alembic's
    :func:`head`): every command checks the schema before it starts, and alembic finds its head
    by loading every migration, which took longer than the rest of a command that only reads."""
    numbers = [
        found.group(1)
        for path in (MIGRATIONS / "versions").iterdir()
        if (found := MIGRATION_FILE.fullmatch(path.name))
    ]
    return max(numbers, default=None)


def current(engine: Engine) -> str | None:
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def is_current(engine: Engine) -> bool:
    """Whether the schema is at the newest revision. The database's version row read directly
    answers the usual case, a schema already current; anything else (no version table, another
    revision, a schema newer than this software) is alembic's to judge."""
    if _stored_revisions(engine) == [newest_known()]:
        return True
    return current(engine) == head()


def _stored_revisions(engine: Engine) -> list[str] | None:
    try:
        with engine.connect() as connection:
            rows = connection.exec_driver_sql("SELECT version_num FROM alembic_version")
            return [str(row[0]) for row in rows]
    except DBAPIError:
        return None


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Migrate the schema to ``revision`` (the newest by default) in one transaction; a
    migration that ran is logged (``schema_migrated``, from and to which revision)."""
    from alembic import command
    from alembic.runtime.migration import MigrationContext

    config = _config()
    # The revision is read once the write lock is held: a process that waited for another's
    # migration finds the schema current and does nothing.
    with engine.connect().execution_options(**{IMMEDIATE: True}) as connection, connection.begin():
        before = MigrationContext.configure(connection).get_current_revision()
        config.attributes["connection"] = connection
        command.upgrade(config, revision)
        after = MigrationContext.configure(connection).get_current_revision()
    if after != before:
        log.info(
            "database schema migrated",
            extra={"event": "schema_migrated", "from_revision": before, "to_revision": after},
        )


def known_revision(revision: str) -> bool:
    """Whether this version's migrations know ``revision``."""
    from alembic.script import ScriptDirectory

    try:
        return ScriptDirectory.from_config(_config()).get_revision(revision) is not None
    except Exception:  # alembic raises its own errors for an unknown or malformed id
        return False


def revision_of(connection: Connection) -> str | None:
    """The revision the database is at, read through ``connection`` (inside its transaction)."""
    from alembic.runtime.migration import MigrationContext

    return MigrationContext.configure(connection).get_current_revision()


def migrate_on(connection: Connection, revision: str) -> None:
    """Migrate the schema to ``revision`` inside the caller's transaction on ``connection``."""
    from alembic import command

    config = _config()
    config.attributes["connection"] = connection
    command.upgrade(config, revision)


@contextmanager
def read_snapshot(engine: Engine) -> Iterator[Connection]:
    """A read-only transaction that sees one state of the database throughout, whatever commits
    meanwhile: ``REPEATABLE READ`` on PostgreSQL; on SQLite (in WAL mode) a transaction, whose
    first read fixes what it sees."""
    with engine.connect() as connection:
        if engine.dialect.name == "postgresql":
            connection = connection.execution_options(
                isolation_level="REPEATABLE READ", postgresql_readonly=True
            )
        with connection.begin():
            yield connection
