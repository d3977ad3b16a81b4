"""SQLite's large write through a rows file: a database file of its own that ADBC fills from
Arrow columns (in a thread of its own, :class:`RowsAhead`), which the job's connection attaches
and copies from inside its transaction (:func:`copy_attached`)."""

from __future__ import annotations

import tempfile
import threading
import uuid
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

import polars as pl
from sqlalchemy import Table, event
from sqlalchemy.engine import Connection

ATTACHED = "_written_"
"""The name of a database a write attached to the job's SQLite connection begins so."""


def insert_attached(connection: Connection, table: Table, frame: pl.DataFrame) -> None:
    """SQLite's large write of ``frame`` (columns named as ``table``'s) through a rows file: ADBC
    writes it into a database file of its own (its bulk ingest moves Arrow columns without a
    Python object per value; the same rows given as Python rows through the driver cost about
    twice the processor time), and the job's connection copies every row into ``table`` with one
    ``INSERT ... SELECT`` in the frame's order, inside the job's transaction
    (:func:`copy_attached`). The file is removed at once: the attached copy stays readable
    while it is open."""
    if frame.height == 0:
        return
    with tempfile.TemporaryDirectory(prefix="ratings-write-", ignore_cleanup_errors=True) as tmp:
        path = Path(tmp) / "rows.sqlite"
        # No statement of its own: the table is made from the frame's columns.
        error = RowsAhead(path, [], table.name, (frame,)).wait()
        if error is not None:
            raise error
        copy_attached(connection, table, path, frame.columns)


class RowsAhead:
    """A rows file filled by a thread of its own while the job does other work: ADBC creates
    ``table`` in the file at ``path`` with ``statements[0]`` (the job's own ``CREATE`` of it;
    without statements, from the first frame's columns), appends each frame of ``frames`` as the
    thread takes it (``frames`` may be a generator, whose frames the thread then makes too), and
    runs the rest of ``statements`` after the rows (the table's indexes, built there). SQLite's
    work and ADBC's bulk ingest leave Python's lock, so the job's thread goes on meanwhile;
    :meth:`wait` joins the thread and gives its error."""

    def __init__(
        self, path: Path, statements: list[str], table: str, frames: Iterable[pl.DataFrame]
    ):
        self.path = path
        self._error: Exception | None = None
        self._thread = threading.Thread(
            target=self._write, args=(statements, table, frames), name="rows file", daemon=True
        )
        self._thread.start()

    def _write(self, statements: list[str], table: str, frames: Iterable[pl.DataFrame]) -> None:
        import adbc_driver_sqlite.dbapi as adbc

        try:
            with adbc.connect(str(self.path), autocommit=True) as written, written.cursor() as cur:
                # A scratch file: nothing to recover after a crash, so no journal and no sync;
                # the cache as large as the job's, for the index builds.
                for pragma in ("journal_mode = OFF", "synchronous = OFF", "cache_size = -262144"):
                    cur.execute(f"PRAGMA {pragma}")
                cur.execute("BEGIN")
                for statement in statements[:1]:
                    cur.execute(statement)
                mode: Literal["append", "create_append"] = (
                    "append" if statements else "create_append"
                )
                for frame in frames:
                    if frame.height:
                        cur.adbc_ingest(table, as_text_dates(frame).to_arrow(), mode=mode)
                for statement in statements[1:]:
                    cur.execute(statement)
                cur.execute("COMMIT")
        except Exception as error:  # the driver's own errors, given to the job by wait()
            self._error = error

    def wait(self) -> Exception | None:
        """Join the thread; the error that stopped it, if one did."""
        self._thread.join()
        return self._error


def table_statements(connection: Connection, table: Table, *, indexes: bool) -> list[str]:
    """The job's database's own ``CREATE`` statement of ``table``, then those of its indexes
    when ``indexes``: what a rows file declares to hold rows exactly as the table does."""
    kinds = "('table', 'index')" if indexes else "('table')"
    return [
        str(row[0])
        for row in connection.exec_driver_sql(
            "SELECT sql FROM main.sqlite_master WHERE tbl_name = ? AND sql IS NOT NULL "
            f"AND type IN {kinds} ORDER BY type = 'index', name",
            (table.name,),
        )
    ]


def copy_attached(
    connection: Connection, table: Table, path: Path, columns: list[str] | None = None
) -> None:
    """Copy the rows of ``table`` in the rows file at ``path`` into the job's ``table``, inside
    its transaction: the ``columns`` given, in the file's order; without ``columns`` every
    column, which SQLite carries out into an empty table declared as the file's (its indexes
    too) with its foreign keys unchecked by copying each B-tree's records as they are, without
    decoding a row or sorting an index."""
    listen_for_checkin(connection)
    alias = f"{ATTACHED}{uuid.uuid4().hex[:12]}"
    connection.exec_driver_sql(f"ATTACH DATABASE ? AS {alias}", (str(path),))
    if columns is None:
        connection.exec_driver_sql(
            f"INSERT INTO main.{table.name} SELECT * FROM {alias}.{table.name}"
        )
        return
    names = ", ".join(columns)
    # In the order the rows were written; a table without rowid is read in its key's order.
    order = "" if table.dialect_options["sqlite"]["with_rowid"] is False else " ORDER BY rowid"
    connection.exec_driver_sql(
        f"INSERT INTO main.{table.name} ({names}) SELECT {names} FROM {alias}.{table.name}{order}"
    )


def rows_file_usable(connection: Connection, dtypes: list[pl.DataType]) -> bool:
    """Whether a rows file (:class:`RowsAhead`) can take a write of columns of these types on this database."""
    return connection.dialect.name == "sqlite" and attachable(dtypes)


def attachable(dtypes: Iterable[pl.DataType]) -> bool:
    """Whether SQLite's large write may take columns of ``dtypes`` through ADBC: numbers, text
    and dates (written as the ISO text Python's driver writes for a date), with ADBC's driver at
    hand."""
    try:
        import adbc_driver_sqlite  # noqa: F401 - only whether it is there
    except ImportError:
        return False
    return all(t.is_integer() or t in (pl.String, pl.Date) for t in dtypes)


def listen_for_checkin(connection: Connection) -> None:
    engine = connection.engine
    if not event.contains(engine, "checkin", _detach_written):
        event.listen(engine, "checkin", _detach_written)


def as_text_dates(frame: pl.DataFrame) -> pl.DataFrame:
    """Dates as the ISO text Python's driver writes for a date."""
    dates = [pl.col(n).cast(pl.String) for n, t in frame.schema.items() if t == pl.Date]
    return frame.with_columns(dates) if dates else frame


def _detach_written(dbapi_connection: Any, _record: Any) -> None:
    """Detach what :func:`copy_attached` attached, once the connection's transaction ended."""
    if dbapi_connection is None:
        return
    attached = [
        row[1]
        for row in dbapi_connection.execute("PRAGMA database_list").fetchall()
        if str(row[1]).startswith(ATTACHED)
    ]
    for name in attached:
        dbapi_connection.execute(f"DETACH DATABASE {name}")
