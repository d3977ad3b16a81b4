"""A table written whole by a full re-rating, and an update of most of a table.

The table is emptied with ``TRUNCATE`` on PostgreSQL (part of the transaction there) and with a
``DELETE`` without condition on SQLite, which SQLite carries out by dropping the table's pages
instead of deleting row by row; a large write then drops the secondary indexes and builds them
again afterwards (:func:`.indexes.indexes_rebuilt`). The rows of an all-integer table go on
PostgreSQL as binary ``COPY ... FREEZE`` built by numpy, with the primary key added back after
them; on SQLite through a database file that ADBC writes and the job's connection attaches and
copies from (:func:`.rows_file.insert_attached`), with ``secure_delete`` off while the old pages are
freed. Rows go in key order. The table is only ever written by the job's connection, inside its
one transaction.
"""

from __future__ import annotations

import logging
import tempfile
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl
from sqlalchemy import BigInteger, Integer, SmallInteger, Table, delete, text
from sqlalchemy.engine import Connection

from ratings.storage.bulk import indexes, writes
from ratings.storage.bulk.rows_file import (
    RowsAhead,
    attachable,
    copy_attached,
    insert_attached,
    table_statements,
)

if TYPE_CHECKING:
    import numpy as np

log = logging.getLogger(__name__)

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
            frame.height >= indexes.REBUILD_INDEXES_FROM
            and (layout := _binary_layout(table, frame)) is not None
        ):
            with (
                indexes.indexes_rebuilt(connection, table, frame.height),
                indexes.primary_key_rebuilt(connection, table),
            ):
                _copy_binary(connection, table, frame, layout)
            return
        writes.insert_frame(connection, table, frame)
        return
    with _freed_pages_left(connection):
        written = connection.info.get(STAGED, {}).pop(table.name, None)
        if written is not None and written.holds(frame):
            connection.execute(delete(table))
            _copy_staged(connection, table, written.path)
            return
        # Without a condition SQLite empties the table by dropping its pages, not row by row.
        connection.execute(delete(table))
        if frame.height >= indexes.REBUILD_INDEXES_FROM and attachable(frame.dtypes):
            with indexes.indexes_rebuilt(connection, table, frame.height):
                insert_attached(connection, table, frame)
            return
    writes.insert_frame(connection, table, frame)


@contextmanager
def _freed_pages_left(connection: Connection) -> Iterator[None]:
    """SQLite's ``secure_delete`` off while a table is emptied and its indexes dropped: Debian's
    SQLite has it on by default, and then every page freed is overwritten with zeros, which for
    ten million rating changes wrote every freed page to the log (and cost processor time) only
    for the same pages to be written again with the new rows. What is deleted here is derived
    data, written again in the same transaction; the setting goes back as it was afterwards."""
    before = connection.exec_driver_sql("PRAGMA secure_delete").scalar()
    connection.exec_driver_sql("PRAGMA secure_delete = OFF")
    try:
        yield
    finally:
        connection.exec_driver_sql(f"PRAGMA secure_delete = {int(before or 0)}")


def _in_key_order(table: Table, frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` in the order of a one-column primary key, so that both databases append to the
    key's B-tree instead of inserting at random (the totals come out of a group-by in no order,
    and are written with much less work sorted, on either database). A key of
    several columns is left to the caller (the rating changes come in position order)."""
    key = [column.name for column in table.primary_key.columns]
    if len(key) != 1 or key[0] not in frame.columns or frame[key[0]].is_sorted():
        return frame
    return frame.sort(key[0])


@contextmanager
def updating_most(connection: Connection, table: Table, rows: int) -> Iterator[bool]:
    """Around an update of ``rows`` rows that is most of ``table`` (a full re-rating stamps every
    tournament): on PostgreSQL the secondary
    indexes and the unique constraints no foreign key relies on are dropped and built again
    afterwards. Every updated row there is a new row version with an entry in every index, most
    of the statement's time: the tournaments stamped without their two secondary indexes, and
    the indexes built again, cost less than the stamping with them. Like any ``ALTER TABLE`` this
    locks the table until the job commits. SQLite updates only the indexes whose columns
    change. It gives whether the table is analysed when the block ends (after its indexes are
    built again), so that the update need not analyse it too."""
    if connection.dialect.name != "postgresql" or not indexes.writes_most(connection, table, rows):
        yield False
        return
    secondary: AbstractContextManager[None] = (
        indexes.rebuilding(connection, table) if table.indexes else nullcontext()
    )
    with secondary, _unique_rebuilt(connection, table):
        yield bool(table.indexes)


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


STAGED = "ratings.columnar.staged"
"""Where :func:`staged` leaves its rows files for :func:`replace_all`, in the connection's
``info``: by table name."""


class _RowsFile(RowsAhead):
    """A rows file holding ``table`` as the job's database declares it (its own ``CREATE``
    statements, indexes included) filled with ``frame`` by a thread of its own."""

    def __init__(self, path: Path, statements: list[str], table: str, frame: pl.DataFrame):
        super().__init__(path, statements, table, (frame,))
        self._frame = frame

    def holds(self, frame: pl.DataFrame) -> bool:
        """Whether the file was written without error and holds exactly ``frame``."""
        error = self.wait()
        if error is not None:
            log.warning("the rows file was not written (%s); writing as usual", error)
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
        or frame.height < indexes.REBUILD_INDEXES_FROM
        or table.foreign_key_constraints
        or not database
        or database == ":memory:"
        or not attachable(frame.dtypes)
    ):
        yield
        return
    statements = table_statements(connection, table, indexes=True)
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
    """Copy a rows file written by :func:`staged` into the emptied ``table``, B-tree for B-tree
    (:func:`.rows_file.copy_attached`)."""
    copy_attached(connection, table, path)
    indexes.analyze(connection, table.name)


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
        for start in range(0, frame.height, writes.COPY_CHUNK):
            chunk = frame.slice(start, writes.COPY_CHUNK)
            rows = np.empty(chunk.height, dtype=layout)
            rows["count"] = len(frame.columns)
            for name in frame.columns:
                rows[f"{name}.length"] = layout[name].itemsize
                rows[name] = chunk[name].to_numpy()
            copy.write(rows.tobytes())
        copy.write(_PGCOPY_TRAILER)
