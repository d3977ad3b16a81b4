"""Databases prepared once per test session and copied into each test that starts from them.

Many tests start from the same filled database (the samples imported and rated, a generated
history rated): building it again for each test took seconds of the suite's time per test on a
busy machine. :class:`PreparedDatabases` builds each one once per session (each pytest-xdist
worker) and backend, keeps a copy, and from then on gives a test's empty database that copy:

- SQLite: the built file, copied with SQLite's online backup into the test's new file;
- PostgreSQL: a database made from the built one as its template, from which the session's
  scratch database is made again (``CREATE DATABASE ... TEMPLATE``) for each test.

What the build returned (tokens, ids) is kept with the copy and returned to every test. A
build must leave no connection open: PostgreSQL copies only a database nobody is connected to.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import text
from sqlalchemy.engine import Engine, make_url


class PreparedDatabases:
    def __init__(self, folder: Path, postgres_admin: Callable[[], Engine | None]) -> None:
        self.folder = folder
        self.postgres_admin = postgres_admin
        self._built: dict[tuple[str, str], Any] = {}
        self._templates: list[str] = []

    def fill(self, url: str, key: str, build: Callable[[str], Any]) -> Any:
        """Give the empty database at ``url`` what ``build(url)`` puts in it, building it only the
        first time ``key`` is asked for on this backend; what the build returned."""
        parsed = make_url(url)
        backend = parsed.get_backend_name()
        if (backend, key) not in self._built:
            found = build(url)
            self._keep(parsed.database or "", backend, key)
            self._built[(backend, key)] = found
            return found
        self._copy(parsed.database or "", backend, key)
        return self._built[(backend, key)]

    def _keep(self, database: str, backend: str, key: str) -> None:
        if backend == "sqlite":
            _sqlite_copy(Path(database), self.folder / f"{key}.sqlite")
            return
        template = f"{database}_{key}"
        self._admin(
            # A connection an earlier test left open (a background job's, say) would make the
            # copy fail: they go, as the copies' DROP ... WITH (FORCE) makes them go.
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            f" WHERE datname = '{database}' AND pid <> pg_backend_pid()",
            f'DROP DATABASE IF EXISTS "{template}"',
            f'CREATE DATABASE "{template}" TEMPLATE "{database}"',
        )
        self._templates.append(template)

    def _copy(self, database: str, backend: str, key: str) -> None:
        if backend == "sqlite":
            _sqlite_copy(self.folder / f"{key}.sqlite", Path(database))
            return
        self._admin(
            f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)',
            f'CREATE DATABASE "{database}" TEMPLATE "{database}_{key}"',
        )

    def _admin(self, *statements: str) -> None:
        admin = self.postgres_admin()
        if admin is None:
            raise RuntimeError("a prepared PostgreSQL database without a server")
        try:
            with admin.connect() as connection:
                for statement in statements:
                    connection.execute(text(statement))
        finally:
            admin.dispose()

    def close(self) -> None:
        if self._templates:
            self._admin(*(f'DROP DATABASE IF EXISTS "{t}" WITH (FORCE)' for t in self._templates))


def _sqlite_copy(source: Path, target: Path) -> None:
    """A consistent copy of a SQLite file (its WAL included), whatever its journal mode."""
    with sqlite3.connect(source) as reading, sqlite3.connect(target) as writing:
        reading.backup(writing)
    reading.close()
    writing.close()
