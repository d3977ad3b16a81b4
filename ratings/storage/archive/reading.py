"""Reading a database's tables as the archive holds them: which tables, and their rows in key
order as Arrow batches of the archive's types.

Which tables: every table the database has at its revision (at the newest revision those of
``schema.metadata``, so a table added to the schema is archived without a change here), in the
order of their foreign keys. A column's type in the archive is the schema's where the schema
declares it, else what the database reports (an older revision's column).

The rows come fastest as columns straight from a driver (:func:`fast_reader`): on PostgreSQL
through ADBC's driver on a second connection that shares the reading transaction's snapshot, on
SQLite through ADBC's SQLite driver in a reading process of its own (:mod:`.sqlite_child`), in
one read transaction. Otherwise (an in-memory database, no driver) through the connection's own
rows (:func:`read_batches`).
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.ipc as ipc
from sqlalchemy import Column, MetaData, Table, func, select
from sqlalchemy.engine import Connection

from ratings.errors import OutputError
from ratings.storage.archive import sqlite_child
from ratings.storage.archive.form import BATCH_ROWS, SKIPPED, TableBatches, arrow_type
from ratings.storage.schema import metadata

log = logging.getLogger(__name__)


def database_tables(connection: Connection) -> list[Table]:
    """The tables of the database at its revision, in the order of their foreign keys, each
    with the schema's column types where the schema declares the column. Columns come in the
    schema's order, then any it does not declare by name, so that a table's rows read the same
    from every backend (SQLite's migrations rebuild a table with its columns in another order)."""
    found = MetaData()
    found.reflect(bind=connection, views=False)
    tables = []
    for reflected in found.sorted_tables:
        if reflected.name in SKIPPED:
            continue
        declared = metadata.tables.get(reflected.name)
        order = list(declared.c.keys()) if declared is not None else []
        key = {c.name for c in reflected.primary_key.columns}
        if declared is not None and {c.name for c in declared.primary_key.columns} <= set(
            reflected.c.keys()
        ):
            key = {c.name for c in declared.primary_key.columns}

        def place(name: str, order: list[str] = order) -> tuple[int, str]:
            return (order.index(name), "") if name in order else (len(order), name)

        columns = []
        for column in sorted(reflected.columns, key=lambda c: place(c.name)):
            kind = column.type
            if declared is not None and column.name in declared.c:
                kind = declared.c[column.name].type
            columns.append(
                Column(
                    column.name,
                    kind,
                    primary_key=column.name in key,
                    nullable=bool(column.nullable) and column.name not in key,
                )
            )
        tables.append(Table(reflected.name, MetaData(), *columns))
    return tables


def _key(table: Table) -> list[Column[Any]]:
    key = list(table.primary_key.columns)
    return key or list(table.columns)


def read_batches(connection: Connection, table: Table) -> Iterator[pa.RecordBatch]:
    """The table's rows in key order, in batches. The driver's rows go into Arrow column by
    column (on PostgreSQL through a server-side cursor; SQLite's texts of dates and times are
    parsed by Arrow), which is much faster than SQLAlchemy's row objects; a batch whose
    values Arrow does not take as they come goes through SQLAlchemy's own conversions instead."""
    schema = pa.schema([(c.name, arrow_type(c.type)) for c in table.columns])
    query = select(table).order_by(*_key(table))
    sql = str(query.compile(dialect=connection.dialect))
    raw = connection.connection.driver_connection
    assert raw is not None
    sqlite = connection.dialect.name == "sqlite"
    processors = [c.type.result_processor(connection.dialect, None) for c in table.columns]
    if sqlite:
        cursor = raw.execute(sql)
    elif connection.dialect.name == "postgresql":
        cursor = raw.cursor(name=f"archive_{table.name}")
        cursor.itersize = BATCH_ROWS
        cursor.execute(sql)
    else:
        cursor = connection.exec_driver_sql(sql).cursor
    try:
        while True:
            rows = cursor.fetchmany(BATCH_ROWS)
            if not rows:
                break
            values = list(zip(*rows, strict=True))
            try:
                arrays = [_column(v, f.type, sqlite) for v, f in zip(values, schema, strict=True)]
            except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, OverflowError):
                arrays = [
                    pa.array(v if p is None else [p(x) for x in v], type=f.type)
                    for v, f, p in zip(values, schema, processors, strict=True)
                ]
            yield pa.RecordBatch.from_arrays(arrays, schema=schema)
    finally:
        cursor.close()


@contextmanager
def postgres_columns(connection: Connection) -> Iterator[TableBatches | None]:
    """On PostgreSQL, a reader of tables as Arrow columns straight from the server (ADBC's
    driver, binary ``COPY``) through a second connection that sees the snapshot of
    ``connection``'s transaction, much faster than rows through Python; None where it
    cannot be had (another backend, no driver, no second connection), and the caller reads
    through :func:`read_batches`."""
    if connection.dialect.name != "postgresql":
        yield None
        return
    try:
        import adbc_driver_postgresql.dbapi as adbc  # type: ignore[import-untyped]

        snapshot = connection.exec_driver_sql("SELECT pg_export_snapshot()").scalar_one()
        url = connection.engine.url.set(drivername="postgresql")
        second = adbc.connect(url.render_as_string(hide_password=False))
    except Exception as error:  # the job's own connection reads the same rows, slower
        log.warning("no second connection for the backup (%s); reading row by row", error)
        yield None
        return
    try:
        with second.cursor() as cursor:
            # The driver has opened a transaction (autocommit is off): both come first in it.
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            cursor.execute(f"SET TRANSACTION SNAPSHOT '{snapshot}'")

        def read(table: Table) -> Iterator[pa.RecordBatch]:
            schema = pa.schema([(c.name, arrow_type(c.type)) for c in table.columns])
            query = select(table).order_by(*_key(table))
            sql = str(query.compile(dialect=connection.dialect))
            with second.cursor() as cursor:
                cursor.execute(sql)
                for batch in cursor.fetch_record_batch():
                    yield batch.rename_columns(schema.names).cast(schema)

        yield read
    finally:
        second.rollback()
        second.close()


_OFFSET = r"(Z|[+-][0-9][0-9](:?[0-9][0-9])?)$"
"""A time's zone at the end of SQLite's text of it, which SQLAlchemy's reading ignores (the
service writes times in UTC)."""


def _column(values: Sequence[Any], kind: pa.DataType, sqlite: bool) -> pa.Array:
    if not sqlite:
        return pa.array(values, type=kind)
    if pa.types.is_timestamp(kind):
        text = pc.replace_substring_regex(pa.array(values, pa.string()), _OFFSET, "")
        return text.cast(pa.timestamp("us")).cast(kind)
    if pa.types.is_date(kind) or pa.types.is_decimal(kind):
        return pa.array(values, pa.string()).cast(kind)
    if pa.types.is_boolean(kind):
        return pa.array(values, pa.int64()).cast(kind)
    return pa.array(values, type=kind)


def count_rows(connection: Connection, table: Table) -> int:
    return int(connection.execute(select(func.count()).select_from(table)).scalar_one())


@contextmanager
def fast_reader(connection: Connection) -> Iterator[TableBatches | None]:
    """A reader of tables as columns straight from the driver, seeing what ``connection``'s
    read transaction sees (:func:`postgres_columns`, :func:`sqlite_columns`); None where there
    is none, and the caller reads through :func:`read_batches`."""
    if connection.dialect.name == "postgresql":
        with postgres_columns(connection) as found:
            yield found
    elif connection.dialect.name == "sqlite":
        with sqlite_columns(connection) as found:
            yield found
    else:
        yield None


# SQLite through ADBC's driver ------------------------------------------------------------------


def _storage(kind: pa.DataType) -> tuple[str, str]:
    """How a column of this archive type is stored by SQLAlchemy in SQLite: the storage class
    its values are cast to and a value of that class standing in for a null."""
    if pa.types.is_integer(kind) or pa.types.is_boolean(kind):
        return "INTEGER", "0"
    if pa.types.is_floating(kind):
        return "REAL", "0.0"
    if pa.types.is_binary(kind) or pa.types.is_large_binary(kind):
        return "BLOB", "X''"
    return "TEXT", "''"


NULL_SUFFIX = "__is_null"


def sqlite_select(table: Table, source: str, order: str) -> str:
    """A query of ``table``'s rows from ``source`` for ADBC's SQLite driver, which types a
    column by its first rows: every value cast to its storage class and a nullable column's
    nulls replaced (with a column telling where), so that each column has one type throughout;
    :func:`from_sqlite` makes the archive's batch of its answer."""
    parts = []
    for column in table.columns:
        storage, stand_in = _storage(arrow_type(column.type))
        value = f'CAST("{column.name}" AS {storage})'
        if column.nullable:
            parts.append(f'"{column.name}" IS NULL AS "{column.name}{NULL_SUFFIX}"')
            value = f"COALESCE({value}, {stand_in})"
        parts.append(f'{value} AS "{column.name}"')
    return f"SELECT {', '.join(parts)} FROM {source} ORDER BY {order}"


def sqlite_order(table: Table) -> str:
    return ", ".join(f'"{c.name}"' for c in _key(table))


def from_sqlite(batch: pa.RecordBatch, schema: pa.Schema) -> pa.RecordBatch:
    """The archive's batch of a batch read by :func:`sqlite_select`'s query: nulls put back,
    SQLite's texts of times, dates and decimals parsed."""
    names = set(batch.schema.names)
    arrays = []
    for field in schema:
        values = batch.column(field.name)
        flag = f"{field.name}{NULL_SUFFIX}"
        if flag in names:
            nulls = batch.column(flag).cast(pa.bool_())
            values = pc.if_else(nulls, pa.scalar(None, values.type), values)
        arrays.append(_sqlite_value(values, field.type))
    return pa.RecordBatch.from_arrays(arrays, schema=schema)


def _sqlite_value(values: pa.Array, kind: pa.DataType) -> pa.Array:
    if pa.types.is_timestamp(kind):
        text = pc.replace_substring_regex(values.cast(pa.string()), _OFFSET, "")
        return text.cast(pa.timestamp("us")).cast(kind)
    if pa.types.is_date(kind) or pa.types.is_decimal(kind):
        return values.cast(pa.string()).cast(kind)
    return values.cast(kind)


@contextmanager
def sqlite_columns(connection: Connection) -> Iterator[TableBatches | None]:
    """On SQLite, a reader of tables as Arrow columns from ADBC's SQLite driver in a process of
    its own (:mod:`.sqlite_child`) that reads every table in one read transaction, begun when
    this opens: a backup taken while a job writes holds the database before or after the job.
    None for a database that is not a file, or without the driver."""
    database = connection.engine.url.database
    try:
        import adbc_driver_sqlite  # noqa: F401 - only whether the child can use it
    except ImportError:
        database = None
    if not database or database == ":memory:" or database.startswith("file:"):
        yield None
        return
    process = subprocess.Popen(
        [sys.executable, sqlite_child.__file__, str(Path(database).resolve()), str(BATCH_ROWS)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert process.stdin is not None
    assert process.stdout is not None
    stdin, stdout = process.stdin, process.stdout
    try:
        theirs = _revision(stdin, stdout)
        ours = connection.exec_driver_sql("SELECT version_num FROM alembic_version").scalars()
        if theirs is None or theirs != list(ours):
            # A migration came between the two transactions: the job's connection reads.
            yield None
            return

        def read(table: Table) -> Iterator[pa.RecordBatch]:
            schema = pa.schema([(c.name, arrow_type(c.type)) for c in table.columns])
            sql = sqlite_select(table, f'"{table.name}"', sqlite_order(table))
            for batch in _stream(stdin, stdout, sql):
                yield from_sqlite(batch, schema)

        yield read
    finally:
        stdin.close()
        stdout.close()  # a stream left part-way: the process stops writing it
        process.wait()


def _revision(stdin: IO[bytes], stdout: IO[bytes]) -> list[Any] | None:
    """The revision the reading process sees (its first read, which begins its transaction)."""
    try:
        batches = list(_stream(stdin, stdout, "SELECT version_num FROM alembic_version"))
    except OutputError as error:
        log.warning("no reading process for the backup (%s); reading row by row", error)
        return None
    return [v for batch in batches for v in batch.column(0).to_pylist()]


def _stream(stdin: IO[bytes], stdout: IO[bytes], sql: str) -> Iterator[pa.RecordBatch]:
    try:
        stdin.write(json.dumps({"sql": sql}).encode() + b"\n")
        stdin.flush()
        reader = ipc.open_stream(stdout)
        if reader.schema.names == [sqlite_child.ERROR]:
            message = reader.read_all().column(0)[0].as_py()
            raise OutputError(f"cannot read the database: {message}")
        yield from reader
    except (OSError, pa.ArrowInvalid) as error:
        first = (str(error).splitlines() or [type(error).__name__])[0]
        raise OutputError(f"the reading of the database ended part-way: {first}") from None
