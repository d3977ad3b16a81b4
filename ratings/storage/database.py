"""Opening the database and keeping its schema at the newest migration."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, event
from sqlalchemy.engine import Engine, make_url

MIGRATIONS = Path(__file__).parent / "migrations"


def open_engine(url: str, *, upgrade_schema: bool = True) -> Engine:
    """An engine for ``url``; the schema is migrated to the newest version unless told not to."""
    parsed = make_url(url)
    kwargs: dict[str, Any] = {}
    if parsed.get_backend_name() == "sqlite":
        database = parsed.database
        if database and database != ":memory:":
            Path(database).parent.mkdir(parents=True, exist_ok=True)
        kwargs["connect_args"] = {"timeout": 60}
    engine = create_engine(parsed, **kwargs)
    if parsed.get_backend_name() == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
        # pysqlite's own transaction handling would defer BEGIN until the first write; the
        # service wants every job to be one real transaction, reads included.
        event.listen(engine, "begin", lambda conn: conn.exec_driver_sql("BEGIN"))
    if upgrade_schema and not is_current(engine):
        upgrade(engine)
    return engine


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
    cursor.close()


def _config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


def head() -> str | None:
    return ScriptDirectory.from_config(_config()).get_current_head()


def current(engine: Engine) -> str | None:
    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def is_current(engine: Engine) -> bool:
    return current(engine) == head()


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Migrate the schema to ``revision`` (the newest by default) in one transaction."""
    config = _config()
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, revision)
