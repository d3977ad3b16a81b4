"""The whole-table reads of a full re-rating, through Arrow columns.

A full re-rating reads every result and writes a rating change for each, ten million rows at
federation scale. Through the job's own connection each value becomes a Python object on the way
in and on the way out, which costs several times what the database itself needs (see
``python -m benchmarks.floors``). Here:

- **Reads** (:func:`reader`): a second connection that sees exactly what the job's transaction
  sees and hands the rows over as Arrow columns. On PostgreSQL it is an ADBC connection that
  imports the job's snapshot (``pg_export_snapshot()``, then ``SET TRANSACTION SNAPSHOT`` in a
  repeatable-read transaction): the same rows, whatever commits meanwhile, as long as the job has
  not written yet (checked: the job's transaction has no id). On SQLite it is ADBC's SQLite
  driver in a process of its own (:mod:`.arrow_child`), reading the committed database; that is
  the job's view only while the job has written nothing it reads, which the caller vouches for
  (a rating run that began its own transaction). Anything else reads through the job's own
  connection, as does every read when ADBC is missing or the second connection fails.
- **Writes**: a table written whole is :mod:`.whole_table`'s.
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import polars as pl
from sqlalchemy import Select, text
from sqlalchemy.engine import Connection

from ratings.storage.bulk import arrow_child
from ratings.storage.frames import read_frame

log = logging.getLogger(__name__)

FAST_READ_FROM = 200_000
"""Results in the database from which a rating run reads through a second connection: below it
the second connection's start (a process of its own on SQLite) costs more than the
driver's Python objects."""

JOB_CONNECTION = "job connection"

POSTGRESQL_SNAPSHOT = "PostgreSQL snapshot through ADBC"

SQLITE_PROCESS = "SQLite through ADBC in a reading process"


class Reader:
    """Reads through the job's own connection; the faster readers below fall back to this."""

    path = JOB_CONNECTION

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self.fallbacks = 0
        """Reads that went through the job's connection after the second one failed."""

    def read(self, query: Select[Any], schema: dict[str, Any]) -> pl.DataFrame:
        """The rows of ``query`` as a frame with these column names and types."""
        return self.read_later(query, schema)()

    def read_later(self, query: Select[Any], schema: dict[str, Any]) -> Callable[[], pl.DataFrame]:
        """Begin reading ``query``; the call returned gives its rows (as :meth:`read`). A reader
        with a connection of its own reads meanwhile, so the job's connection is free for other
        reads until then; through the job's connection the rows are read at that call. One read
        at a time: take its rows before the next."""
        return lambda: read_frame(self.connection, query, schema)

    def _sql(self, query: Select[Any]) -> str:
        compiled = query.compile(
            dialect=self.connection.dialect, compile_kwargs={"literal_binds": True}
        )
        return str(compiled)

    def _fallen_back(self, query: Select[Any], schema: dict[str, Any]) -> pl.DataFrame:
        self.fallbacks += 1
        return read_frame(self.connection, query, schema)


class _PostgresSnapshot(Reader):
    path = POSTGRESQL_SNAPSHOT

    def __init__(self, connection: Connection, cursor: Any) -> None:
        super().__init__(connection)
        self._cursor = cursor
        self._reading: threading.Thread | None = None

    def wait(self) -> None:
        """Wait for a read begun by :meth:`read_later` (one read at a time on the cursor)."""
        if self._reading is not None:
            self._reading.join()
            self._reading = None

    def read_later(self, query: Select[Any], schema: dict[str, Any]) -> Callable[[], pl.DataFrame]:
        sql = self._sql(query)
        found: list[Any] = []

        def fetch() -> None:
            try:
                self._cursor.execute(sql)
                found.append(self._cursor.fetch_arrow_table())
            except Exception as error:  # the driver's own errors: reported by rows()
                found.append(error)

        # The driver leaves Python's lock while it reads: the job's thread goes on meanwhile.
        self.wait()
        thread = threading.Thread(target=fetch, name="snapshot read", daemon=True)
        thread.start()
        self._reading = thread

        def rows() -> pl.DataFrame:
            thread.join()
            if isinstance(found[0], Exception):
                # The job's connection reads the same rows, only slower.
                log.warning("the snapshot's connection failed (%s); reading through the job's",
                            found[0])  # fmt: skip
                return self._fallen_back(query, schema)
            frame = pl.from_arrow(found[0])
            assert isinstance(frame, pl.DataFrame)
            return _typed(frame, schema)

        return rows


class _SqliteProcess(Reader):
    path = SQLITE_PROCESS

    def __init__(self, connection: Connection, process: subprocess.Popen[str], folder: Path):
        super().__init__(connection)
        self._process = process
        self._folder = folder
        self._reads = 0

    def read_later(self, query: Select[Any], schema: dict[str, Any]) -> Callable[[], pl.DataFrame]:
        assert self._process.stdin is not None
        assert self._process.stdout is not None
        stdout = self._process.stdout
        self._reads += 1
        out = self._folder / f"{self._reads}.arrow"
        failed = ""
        try:
            self._process.stdin.write(json.dumps({"sql": self._sql(query), "out": str(out)}) + "\n")
            self._process.stdin.flush()
        except OSError as error:
            failed = f"error {error}"

        def rows() -> pl.DataFrame:
            answer = failed
            if not answer:
                try:
                    answer = stdout.readline().strip()
                except OSError as error:
                    answer = f"error {error}"
            if answer != "ok":
                # Reading through the job's connection gives the same rows, only slower.
                log.warning("the reading process failed (%s); reading through the job's connection",
                            answer or "it ended")  # fmt: skip
                return self._fallen_back(query, schema)
            # The file goes with the reader's folder: the frame may map it.
            return _typed(pl.read_ipc(out), schema)

        return rows


@contextmanager
def reader(connection: Connection, *, fast: bool) -> Iterator[Reader]:
    """A reader of what the job's transaction sees: through a second connection when ``fast``
    and the database offers one, else through the job's connection.

    Open it before the job writes anything it will read through it; on SQLite ``fast`` must only
    be asked for by a job whose transaction is its own (nothing written before it began).
    """
    if fast and connection.dialect.name == "postgresql":
        with _postgres_reader(connection) as found:
            yield found
    elif fast and connection.dialect.name == "sqlite":
        with _sqlite_reader(connection) as found:
            yield found
    else:
        yield Reader(connection)


@contextmanager
def _postgres_reader(connection: Connection) -> Iterator[Reader]:
    try:
        import adbc_driver_postgresql.dbapi as adbc  # type: ignore[import-untyped]
    except ImportError:
        yield Reader(connection)
        return
    version = connection.dialect.server_version_info or (0,)
    # A transaction that wrote has an id; its writes are not in the snapshot others import.
    written = version < (13,) or (
        connection.execute(text("SELECT pg_current_xact_id_if_assigned()")).scalar() is not None
    )
    if written:
        yield Reader(connection)
        return
    snapshot = connection.execute(text("SELECT pg_export_snapshot()")).scalar_one()
    url = connection.engine.url.set(drivername="postgresql")
    second = None
    try:
        second = adbc.connect(url.render_as_string(hide_password=False))
        cursor = second.cursor()
        # The driver has opened a transaction (autocommit is off): both must come first in it.
        cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        cursor.execute(f"SET TRANSACTION SNAPSHOT '{snapshot}'")
    except Exception as error:  # no second connection: the job's own reads the same rows
        log.warning("no second connection to PostgreSQL (%s); reading through the job's", error)
        if second is not None:
            second.close()
        yield Reader(connection)
        return
    snapshot_reader = _PostgresSnapshot(connection, cursor)
    try:
        yield snapshot_reader
    finally:
        snapshot_reader.wait()
        cursor.close()
        second.rollback()
        second.close()


@contextmanager
def _sqlite_reader(connection: Connection) -> Iterator[Reader]:
    database = connection.engine.url.database
    try:
        import adbc_driver_sqlite  # noqa: F401 - only whether the child can use it
    except ImportError:
        database = None
    if not database or database == ":memory:" or database.startswith("file:"):
        yield Reader(connection)
        return
    with tempfile.TemporaryDirectory(prefix="ratings-read-", ignore_cleanup_errors=True) as folder:
        process = subprocess.Popen(
            [sys.executable, arrow_child.__file__, str(Path(database).resolve())],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            yield _SqliteProcess(connection, process, Path(folder))
        finally:
            assert process.stdin is not None
            process.stdin.close()
            process.wait()


def _typed(frame: pl.DataFrame, schema: dict[str, Any]) -> pl.DataFrame:
    """Arrow's columns named and typed as ``schema`` says (SQLite's dates come as ISO text)."""
    columns = []
    for column, (name, dtype) in zip(frame.get_columns(), schema.items(), strict=True):
        series = column.alias(name)
        if dtype == pl.Date and series.dtype == pl.String:
            series = series.str.to_date("%Y-%m-%d")
        columns.append(series.cast(dtype))
    return pl.DataFrame(columns) if columns else pl.DataFrame(schema=schema)
