"""The newest schema made once per test session, then copied into every empty test database.

Running every migration on every test's new database took most of the suite's time (seconds a
database on a busy machine, hundreds of databases). Each session (each pytest-xdist worker)
migrates one template database per backend through Alembic, as the service does, records its
schema and rows as SQL statements, and from then on runs those statements instead of the
migrations whenever a test migrates an empty database to the newest revision. Anything else
(a database at an older revision, a migration to an older revision, a test marked
``real_migrations``) goes through Alembic as before.

SQLite: the statements are the template's ``sqlite_master`` entries and rows. PostgreSQL: they
are the template's ``pg_dump``; without ``pg_dump`` PostgreSQL databases are migrated as before.
"""

from __future__ import annotations

import shutil
import subprocess
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from sqlalchemy import text
from sqlalchemy.engine import Connection, Engine, make_url

from ratings.storage.database import head, open_engine

Statement = tuple[str, list[tuple[Any, ...]] | None]
"""SQL, and the rows to run it for (None: run it once, without parameters)."""

_real_upgrade: Callable[..., None] = command.upgrade


class SchemaTemplates:
    """Per backend, the statements that give an empty database the newest schema."""

    def __init__(self, folder: Path, postgres_admin: Callable[[], Engine | None]) -> None:
        self.folder = folder
        self.postgres_admin = postgres_admin
        self.enabled = True
        self._scripts: dict[str, list[Statement] | None] = {}
        self._building = False
        self._head: str | None = None
        self._postgres_template: str | None = None

    # The replacement of alembic.command.upgrade while the session runs.
    def upgrade(
        self, config: Config, revision: str, sql: bool = False, tag: str | None = None
    ) -> None:
        connection: Connection | None = config.attributes.get("connection")
        if (
            not self.enabled
            or self._building
            or sql
            or tag is not None
            or connection is None
            or revision not in ("head", self.newest())
            or not _empty(connection)
        ):
            _real_upgrade(config, revision, sql=sql, tag=tag)
            return
        script = self._script(connection.dialect.name)
        if script is None:
            _real_upgrade(config, revision, sql=sql, tag=tag)
            return
        if connection.dialect.name == "postgresql":
            # psycopg itself: it sends a query without parameters as it is, several statements
            # and every % sign included, in one round trip.
            raw = connection.connection.driver_connection
            assert raw is not None
            for statement, _rows in script:
                raw.execute(statement)
            return
        for statement, rows in script:
            if rows is None:
                connection.exec_driver_sql(statement)
            elif rows:
                connection.exec_driver_sql(statement, rows)  # type: ignore[arg-type]

    def newest(self) -> str | None:
        if self._head is None:
            self._head = head()
        return self._head

    def _script(self, dialect: str) -> list[Statement] | None:
        if dialect not in self._scripts:
            with self._real():
                if dialect == "sqlite":
                    self._scripts[dialect] = self._sqlite()
                elif dialect == "postgresql":
                    self._scripts[dialect] = self._postgresql()
                else:
                    self._scripts[dialect] = None
        return self._scripts[dialect]

    @contextmanager
    def _real(self) -> Iterator[None]:
        self._building = True
        try:
            yield
        finally:
            self._building = False

    def _sqlite(self) -> list[Statement]:
        path = self.folder / "template.sqlite"
        engine = open_engine(f"sqlite:///{path}")
        try:
            with engine.connect() as connection:
                return _sqlite_statements(connection)
        finally:
            engine.dispose()

    def _postgresql(self) -> list[Statement] | None:
        pg_dump = shutil.which("pg_dump")
        admin = self.postgres_admin()
        if pg_dump is None or admin is None:
            return None
        url = make_url(str(admin.url.render_as_string(hide_password=False)))
        name = f"ratings_template_{uuid.uuid4().hex[:12]}"
        with admin.connect() as connection:
            connection.execute(text(f'CREATE DATABASE "{name}"'))
        admin.dispose()
        self._postgres_template = name
        template = url.set(database=name)
        open_engine(template.render_as_string(hide_password=False)).dispose()
        dsn = template.set(drivername="postgresql").render_as_string(hide_password=False)
        dumped = subprocess.run(
            [pg_dump, "--no-owner", "--no-privileges", "--inserts", f"--dbname={dsn}"],
            capture_output=True,
            text=True,
            check=False,
        )
        if dumped.returncode != 0:  # a pg_dump older than the server: migrate as before
            return None
        return _postgresql_statements(dumped.stdout)

    def close(self) -> None:
        if self._postgres_template is None:
            return
        admin = self.postgres_admin()
        if admin is None:
            return
        with admin.connect() as connection:
            connection.execute(
                text(f'DROP DATABASE IF EXISTS "{self._postgres_template}" WITH (FORCE)')
            )
        admin.dispose()


def _empty(connection: Connection) -> bool:
    """Whether the database holds no table at all (nothing migrated it yet)."""
    if MigrationContext.configure(connection).get_current_revision() is not None:
        return False
    if connection.dialect.name == "sqlite":
        found = connection.exec_driver_sql(
            "SELECT count(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'"
        ).scalar()
    else:
        found = connection.exec_driver_sql(
            "SELECT count(*) FROM information_schema.tables WHERE table_schema NOT IN"
            " ('pg_catalog', 'information_schema')"
        ).scalar()
    return found == 0


_SQLITE_ORDER = {"table": 0, "index": 1, "trigger": 2, "view": 3}


def _sqlite_statements(connection: Connection) -> list[Statement]:
    entries = connection.exec_driver_sql(
        "SELECT type, name, sql FROM sqlite_master"
        " WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY rowid"
    ).all()
    entries = sorted(entries, key=lambda entry: _SQLITE_ORDER[entry[0]])  # stable: rowid order
    statements: list[Statement] = [(str(sql), None) for _type, _name, sql in entries]
    # Rows the migrations wrote (the schema's version among them), before the indexes and
    # triggers would matter: inserted after every table exists, foreign keys checked per row.
    tables = [name for kind, name, _sql in entries if kind == "table"]
    rows: list[Statement] = []
    for table in tables:
        found = [tuple(row) for row in connection.exec_driver_sql(f'SELECT * FROM "{table}"')]
        if found:
            marks = ", ".join("?" for _ in found[0])
            rows.append((f'INSERT INTO "{table}" VALUES ({marks})', found))
    for pragma in ("user_version", "application_id"):
        value = connection.exec_driver_sql(f"PRAGMA {pragma}").scalar()
        if value:
            rows.append((f"PRAGMA {pragma} = {int(value)}", None))
    count = sum(1 for kind, _name, _sql in entries if kind == "table")
    return statements[:count] + rows + statements[count:]


def _postgresql_statements(dumped: str) -> list[Statement]:
    """pg_dump's statements, less its session settings (the objects are named with their
    schema) and the public schema itself, which every database has."""
    if "$$" in dumped or "\\." in dumped:
        raise RuntimeError("the template's dump holds a function or COPY data: cannot split it")
    statements: list[Statement] = []
    lines: list[str] = []
    for line in dumped.splitlines():
        if not lines and (not line.strip() or line.startswith(("--", "\\"))):
            continue  # blank, comment, or a psql meta-command (\restrict)
        lines.append(line)
        if line.rstrip().endswith(";"):
            statement = "\n".join(lines)
            lines = []
            if statement.startswith(("SET ", "SELECT pg_catalog.set_config(")):
                continue
            if statement.startswith(("CREATE SCHEMA public", "COMMENT ON SCHEMA public")):
                continue
            if statement.startswith("CREATE SCHEMA "):
                statement = statement.replace("CREATE SCHEMA ", "CREATE SCHEMA IF NOT EXISTS ", 1)
            statements.append((statement, None))
    if lines:
        raise RuntimeError(f"the template's dump ends inside a statement: {lines[:3]}")
    # One round trip for the whole schema (psycopg sends a query without parameters as it is).
    return [("\n".join(statement for statement, _rows in statements), None)]
