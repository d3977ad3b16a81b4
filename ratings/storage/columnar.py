"""The whole-table reads and writes of a full re-rating, through Arrow and binary COPY.

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
- **Writes** (:func:`replace_all`): the table is emptied with ``TRUNCATE`` on PostgreSQL (part of
  the transaction there) and with a ``DELETE`` without condition on SQLite, which SQLite carries
  out by dropping the table's pages instead of deleting row by row; a large write then drops the
  secondary indexes and builds them again afterwards (:func:`.bulk.indexes_rebuilt`). The rows of
  an all-integer table go on PostgreSQL as binary ``COPY ... FREEZE`` built by numpy, with the
  primary key added back after them; on SQLite through a database file that ADBC writes and the
  job's connection attaches and copies from (:func:`rows_file`), with ``secure_delete``
  off while the old pages are freed. Rows go in key order. The table is only ever written by the
  job's connection, inside its one transaction.
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import tempfile
import threading
import uuid
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl
from sqlalchemy import (
    BigInteger,
    Integer,
    Select,
    SmallInteger,
    Table,
    delete,
    event,
    text,
)
from sqlalchemy.engine import Connection
from sqlalchemy.schema import AddConstraint, DropConstraint

from ratings.storage import arrow_child, bulk
from ratings.storage.frames import read_frame

if TYPE_CHECKING:
    import numpy as np

log = logging.getLogger(__name__)

FAST_READ_FROM = 200_000
"""Results in the database from which a rating run reads through a second connection: below it
the second connection's start (a process of its own on SQLite, about 0.4 s) costs more than the
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


# --- writing a whole table -----------------------------------------------------------------------

_BINARY = {BigInteger: ">i8", Integer: ">i4", SmallInteger: ">i2"}
"""PostgreSQL's binary COPY of an integer column: its width, big-endian."""
_PGCOPY_HEADER = b"PGCOPY\n\xff\r\n\x00" + bytes(8)
_PGCOPY_TRAILER = b"\xff\xff"


def replace_all(connection: Connection, table: Table, frame: pl.DataFrame) -> None:
    """Every row of ``table`` replaced by those of ``frame`` (columns named as the table's), in
    the caller's transaction."""
    frame = _in_key_order(table, frame)
    if connection.dialect.name == "postgresql":
        connection.exec_driver_sql(f"TRUNCATE {table.name}")
        if (
            frame.height >= bulk.REBUILD_INDEXES_FROM
            and (layout := _binary_layout(table, frame)) is not None
        ):
            with (
                bulk.indexes_rebuilt(connection, table, frame.height),
                _primary_key_rebuilt(connection, table),
            ):
                _copy_binary(connection, table, frame, layout)
            return
        bulk.insert_frame(connection, table, frame)
        return
    with _freed_pages_left(connection):
        written = connection.info.get(STAGED, {}).pop(table.name, None)
        if written is not None and written.holds(frame):
            connection.execute(delete(table))
            _copy_staged(connection, table, written.path)
            return
        # Without a condition SQLite empties the table by dropping its pages, not row by row.
        connection.execute(delete(table))
        if frame.height >= bulk.REBUILD_INDEXES_FROM and _attachable(frame.dtypes):
            with bulk.indexes_rebuilt(connection, table, frame.height):
                _insert_attached(connection, table, frame)
            return
    bulk.insert_frame(connection, table, frame)


@contextmanager
def _freed_pages_left(connection: Connection) -> Iterator[None]:
    """SQLite's ``secure_delete`` off while a table is emptied and its indexes dropped: Debian's
    SQLite has it on by default, and then every page freed is overwritten with zeros, which for
    ten million rating changes wrote 325 MB to the log (and cost a second of CPU) only for the
    same pages to be written again with the new rows. What is deleted here is derived data,
    written again in the same transaction; the setting goes back as it was afterwards."""
    before = connection.exec_driver_sql("PRAGMA secure_delete").scalar()
    connection.exec_driver_sql("PRAGMA secure_delete = OFF")
    try:
        yield
    finally:
        connection.exec_driver_sql(f"PRAGMA secure_delete = {int(before or 0)}")


def _in_key_order(table: Table, frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` in the order of a one-column primary key, so that both databases append to the
    key's B-tree instead of inserting at random (the totals come out of a group-by in no order:
    881,060 of them took 2.2 s of CPU shuffled and 0.9 s sorted, on either database). A key of
    several columns is left to the caller (the rating changes come in position order)."""
    key = [column.name for column in table.primary_key.columns]
    if len(key) != 1 or key[0] not in frame.columns or frame[key[0]].is_sorted():
        return frame
    return frame.sort(key[0])


@contextmanager
def updating_most(connection: Connection, table: Table, rows: int) -> Iterator[None]:
    """Around an update of ``rows`` rows that is most of ``table`` (a full re-rating stamps every
    tournament): on PostgreSQL the secondary
    indexes and the unique constraints no foreign key relies on are dropped and built again
    afterwards. Every updated row there is a new row version with an entry in every index, most
    of the statement's time: stamping 396,503 tournaments took 18.0 s with its four indexes, 9.4 s
    without the two secondary ones (and 1.9 s to build them again). Like any ``ALTER TABLE`` this
    locks the table until the job commits. SQLite updates only the indexes whose columns
    change."""
    if connection.dialect.name != "postgresql" or not bulk.writes_most(connection, table, rows):
        yield
        return
    indexes: AbstractContextManager[None] = (
        bulk.rebuilding(connection, table) if table.indexes else nullcontext()
    )
    with indexes, _unique_rebuilt(connection, table):
        yield


@contextmanager
def _unique_rebuilt(connection: Connection, table: Table) -> Iterator[None]:
    """PostgreSQL: the table's unique constraints, as the database holds them, dropped and added
    back (which checks every row again), except those a foreign key refers to."""
    found = connection.execute(
        text(
            "SELECT c.conname, pg_get_constraintdef(c.oid) FROM pg_constraint c "
            "WHERE c.conrelid = CAST(:table AS regclass) AND c.contype = 'u' AND NOT EXISTS "
            "(SELECT 1 FROM pg_constraint f WHERE f.contype = 'f' AND f.conindid = c.conindid) "
            "ORDER BY c.conname"
        ),
        {"table": table.fullname},
    ).all()
    for name, _definition in found:
        connection.exec_driver_sql(f'ALTER TABLE {table.fullname} DROP CONSTRAINT "{name}"')
    yield
    for name, definition in found:
        connection.exec_driver_sql(
            f'ALTER TABLE {table.fullname} ADD CONSTRAINT "{name}" {definition}'
        )


def _attachable(dtypes: Iterable[pl.DataType]) -> bool:
    """Whether SQLite's large write may take columns of ``dtypes`` through ADBC: numbers, text
    and dates (written as the ISO text Python's driver writes for a date), with ADBC's driver at
    hand."""
    try:
        import adbc_driver_sqlite  # noqa: F401 - only whether it is there
    except ImportError:
        return False
    return all(t.is_integer() or t in (pl.String, pl.Date) for t in dtypes)


ATTACHED = "_written_"
"""The name of a database a write attached to the job's SQLite connection begins so."""


def _insert_attached(connection: Connection, table: Table, frame: pl.DataFrame) -> None:
    """SQLite's large write of one frame: through a rows file (:func:`rows_file`)."""
    with rows_file(connection, table) as write:
        write(frame)


STAGED = "ratings.columnar.staged"
"""Where :func:`staged` leaves its rows files for :func:`replace_all`, in the connection's
``info``: by table name."""


class _RowsFile:
    """A database file holding ``table`` as the job's database declares it (its own ``CREATE``
    statements, indexes included) filled with ``frame``: written by ADBC in a thread of its own,
    which leaves Python's lock while SQLite works."""

    def __init__(self, path: Path, statements: list[str], table: str, frame: pl.DataFrame):
        self.path = path
        self._frame = frame
        self._error: Exception | None = None
        self._thread = threading.Thread(
            target=self._write, args=(statements, table), name="rows file", daemon=True
        )
        self._thread.start()

    def _write(self, statements: list[str], table: str) -> None:
        import adbc_driver_sqlite.dbapi as adbc

        try:
            with adbc.connect(str(self.path), autocommit=True) as written, written.cursor() as cur:
                # A scratch file: nothing to recover after a crash, so no journal and no sync;
                # the cache as large as the job's, for the index builds.
                for pragma in ("journal_mode = OFF", "synchronous = OFF", "cache_size = -262144"):
                    cur.execute(f"PRAGMA {pragma}")
                cur.execute("BEGIN")
                cur.execute(statements[0])
                cur.adbc_ingest(table, _as_text_dates(self._frame).to_arrow(), mode="append")
                for statement in statements[1:]:
                    cur.execute(statement)
                cur.execute("COMMIT")
        except Exception as error:  # the driver's own errors: reported to the job by holds()
            self._error = error

    def wait(self) -> None:
        self._thread.join()

    def holds(self, frame: pl.DataFrame) -> bool:
        """Whether the file was written without error and holds exactly ``frame``."""
        self.wait()
        if self._error is not None:
            log.warning("the rows file was not written (%s); writing as usual", self._error)
            return False
        return frame.columns == self._frame.columns and frame.equals(self._frame)


@contextmanager
def staged(connection: Connection, table: Table, frame: pl.DataFrame) -> Iterator[None]:
    """Begin SQLite's large write of ``frame`` into ``table`` now, to be finished by a
    :func:`replace_all` of the same rows inside the block: the rows file is written, and the
    table's indexes built in it, by another thread while the job does other work; the job's
    connection then empties the table and copies both in, without sorting anything. Other
    databases, small frames and tables with foreign keys (which SQLite would check row by row)
    are written by :func:`replace_all` as usual."""
    frame = _in_key_order(table, frame)
    database = connection.engine.url.database
    if (
        connection.dialect.name != "sqlite"
        or frame.height < bulk.REBUILD_INDEXES_FROM
        or table.foreign_key_constraints
        or not database
        or database == ":memory:"
        or not _attachable(frame.dtypes)
    ):
        yield
        return
    statements = [
        str(row[0])
        for row in connection.exec_driver_sql(
            "SELECT sql FROM main.sqlite_master WHERE tbl_name = ? AND sql IS NOT NULL "
            "ORDER BY type = 'index', name",
            (table.name,),
        )
    ]
    with tempfile.TemporaryDirectory(prefix="ratings-write-", ignore_cleanup_errors=True) as tmp:
        written = _RowsFile(Path(tmp) / "rows.sqlite", statements, table.name, frame)
        waiting = connection.info.setdefault(STAGED, {})
        waiting[table.name] = written
        try:
            yield
        finally:
            waiting.pop(table.name, None)
            written.wait()


def _copy_staged(connection: Connection, table: Table, path: Path) -> None:
    """Copy a rows file written by :func:`staged` into the emptied ``table``. Its table and
    indexes are declared as the job's, so SQLite copies each B-tree's records as they are
    (``INSERT INTO ... SELECT *`` from an identical table into an empty one), without decoding a
    row or sorting an index."""
    _listen_for_checkin(connection)
    alias = f"{ATTACHED}{uuid.uuid4().hex[:12]}"
    connection.exec_driver_sql(f"ATTACH DATABASE ? AS {alias}", (str(path),))
    connection.exec_driver_sql(f"INSERT INTO main.{table.name} SELECT * FROM {alias}.{table.name}")
    bulk.analyze(connection, table.name)


def _listen_for_checkin(connection: Connection) -> None:
    engine = connection.engine
    if not event.contains(engine, "checkin", _detach_written):
        event.listen(engine, "checkin", _detach_written)


def _as_text_dates(frame: pl.DataFrame) -> pl.DataFrame:
    """Dates as the ISO text Python's driver writes for a date."""
    dates = [pl.col(n).cast(pl.String) for n, t in frame.schema.items() if t == pl.Date]
    return frame.with_columns(dates) if dates else frame


def _detach_written(dbapi_connection: Any, _record: Any) -> None:
    """Detach what :func:`rows_file` and :func:`_copy_staged` attached, once the connection's
    transaction ended."""
    if dbapi_connection is None:
        return
    attached = [
        row[1]
        for row in dbapi_connection.execute("PRAGMA database_list").fetchall()
        if str(row[1]).startswith(ATTACHED)
    ]
    for name in attached:
        dbapi_connection.execute(f"DETACH DATABASE {name}")


@contextmanager
def _primary_key_rebuilt(connection: Connection, table: Table) -> Iterator[None]:
    """The emptied table's primary key dropped for the write and added back after it: one
    sorted build that checks every key instead of a B-tree insertion per row (a quarter of a
    million-row COPY's time)."""
    key = table.primary_key
    if not key.columns or key.name is None:
        yield
        return
    connection.execute(DropConstraint(key))
    yield
    connection.execute(AddConstraint(key))


def _binary_layout(table: Table, frame: pl.DataFrame) -> np.dtype[Any] | None:
    """The row layout of a binary COPY of ``frame``, or None when a column is not an integer
    column without nulls whose values fit it (those go as CSV, checked by the server)."""
    import numpy as np  # a reader of lists never writes: numpy loads with a write

    fields: list[tuple[str, str]] = [("count", ">i2")]
    for name in frame.columns:
        kind = next((w for t, w in _BINARY.items() if isinstance(table.c[name].type, t)), None)
        series = frame[name]
        if kind is None or not series.dtype.is_integer() or series.null_count():
            return None
        limit = np.iinfo(np.dtype(kind))
        if frame.height and not (limit.min <= series.min() and series.max() <= limit.max):  # type: ignore[operator]
            return None
        fields += [(f"{name}.length", ">i4"), (name, kind)]
    return np.dtype(fields)


def _copy_binary(
    connection: Connection, table: Table, frame: pl.DataFrame, layout: np.dtype[Any]
) -> None:
    import numpy as np

    raw = connection.connection.driver_connection
    names = ", ".join(frame.columns)
    # FREEZE: the table was emptied in this transaction (:func:`replace_all`), so its rows may
    # be written frozen and visible to all; otherwise the first reads after the commit would
    # rewrite every page to mark its rows committed, and a vacuum later to freeze them.
    sql = f"COPY {table.name} ({names}) FROM STDIN WITH (FORMAT binary, FREEZE)"
    with raw.cursor() as cursor, cursor.copy(sql) as copy:  # type: ignore[union-attr]
        copy.write(_PGCOPY_HEADER)
        for start in range(0, frame.height, bulk.COPY_CHUNK):
            chunk = frame.slice(start, bulk.COPY_CHUNK)
            rows = np.empty(chunk.height, dtype=layout)
            rows["count"] = len(frame.columns)
            for name in frame.columns:
                rows[f"{name}.length"] = layout[name].itemsize
                rows[name] = chunk[name].to_numpy()
            copy.write(rows.tobytes())
        copy.write(_PGCOPY_TRAILER)


@contextmanager
def rows_file(connection: Connection, table: Table) -> Iterator[Callable[[pl.DataFrame], None]]:
    """SQLite's large write, given in slices (frames of the same columns, named as ``table``'s):
    ADBC writes each slice as it comes into a database file of its own (its bulk ingest moves
    Arrow columns without a Python object per value; a slice given as Python rows through the
    driver cost about twice the processor time), and when the block ends the job's connection
    attaches the file and copies every row into ``table`` with one ``INSERT ... SELECT`` in the
    order given, inside the job's transaction. SQLite cannot detach a database inside a
    transaction that read it: it is detached when the connection goes back to the pool
    (:func:`_detach_written`), and its file is removed at once (the attached copy stays
    readable while it is open)."""
    import adbc_driver_sqlite.dbapi as adbc

    _listen_for_checkin(connection)
    alias = f"{ATTACHED}{uuid.uuid4().hex[:12]}"
    columns: list[str] = []
    with tempfile.TemporaryDirectory(prefix="ratings-write-", ignore_cleanup_errors=True) as tmp:
        path = str(Path(tmp) / "rows.sqlite")
        with adbc.connect(path, autocommit=True) as written, written.cursor() as cursor:
            # A scratch file: nothing to recover after a crash, so no journal and no sync.
            cursor.execute("PRAGMA journal_mode = OFF")
            cursor.execute("PRAGMA synchronous = OFF")
            cursor.execute("BEGIN")

            def write(frame: pl.DataFrame) -> None:
                if frame.height == 0:
                    return
                rows = _as_text_dates(frame).to_arrow()
                cursor.adbc_ingest("rows", rows, mode="append" if columns else "create")
                columns[:] = frame.columns

            yield write
            cursor.execute("COMMIT")
        if columns:
            names = ", ".join(columns)
            connection.exec_driver_sql(f"ATTACH DATABASE ? AS {alias}", (path,))
            connection.exec_driver_sql(
                f"INSERT INTO main.{table.name} ({names}) "
                f"SELECT {names} FROM {alias}.rows ORDER BY rowid"
            )


def rows_file_usable(connection: Connection, dtypes: list[pl.DataType]) -> bool:
    """Whether :func:`rows_file` can take a write of columns of these types on this database."""
    return connection.dialect.name == "sqlite" and _attachable(dtypes)
