"""Loading an archive's tables into the empty tables of a database, and checking them.

Every table's bytes and rows are checked against the archive's checksums as they are read, and
its rows counted where they went. On PostgreSQL each table goes in by one CSV ``COPY`` on the
restore's own connection (a list's entries into a partition of their own, as publishing writes
them). On SQLite every table is first written by ADBC's bulk ingest into a scratch database file
of its own (:func:`sqlite_staged`); the restore's connection then attaches that file and copies
each table with one ``INSERT ... SELECT`` inside its transaction, its count checked there
(:func:`load_staged`). A large table's secondary indexes are dropped for its rows and built
after them, in one sorted pass each.

A restore asked to read back reads every table again from where it went instead of hashing
the archive's rows on the way: on PostgreSQL by ``COPY ... TO STDOUT`` inside the restore's
transaction, parsed into Arrow columns (:func:`content_digest`); on SQLite from the scratch
file through the same driver.
"""

from __future__ import annotations

import hashlib
import io
import itertools
import tempfile
import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv
from sqlalchemy import MetaData, Table, event, func, select
from sqlalchemy.engine import Connection

from ratings.errors import ArchiveError
from ratings.storage import list_partitions
from ratings.storage.archive.form import Archive, Progress, TableEntry, arrow_type, rows_digest
from ratings.storage.archive.reading import (
    _key,
    _storage,
    count_rows,
    database_tables,
    from_sqlite,
    read_batches,
    sqlite_select,
)
from ratings.storage.bulk import INDEX_BUILD_MEMORY, REBUILD_INDEXES_FROM
from ratings.storage.schema import LIST_PARTITIONS

REBUILD_FROM = REBUILD_INDEXES_FROM
"""Rows of a table from which its indexes are built after its rows rather than kept during."""
STAGED = "_restored_"
"""The prefix of the name the scratch file of a restore into SQLite is attached under."""
BATCH_ROWS = 50_000


def check_columns(archive: Archive, entry: TableEntry, table: Table) -> None:
    """Refuse an archive's table whose columns are not those of the database's table."""
    have = [c.name for c in table.columns]
    want = [n for n, _ in entry.columns]
    if sorted(have) != sorted(want):
        raise ArchiveError(
            archive.path,
            f"table {entry.name}: its columns ({', '.join(want)}) are not those of the schema"
            f" at revision {archive.manifest.revision} ({', '.join(have)})",
        )


def load_table(
    connection: Connection,
    archive: Archive,
    entry: TableEntry,
    table: Table,
    read_back: bool,
    progress: Progress | None = None,
) -> None:
    """Copy an archive's table into PostgreSQL's empty table of that name, batch by batch, and
    check its count there; its rows' checksum is checked on the way in, or left to the caller's
    read back (``read_back``)."""
    check_columns(archive, entry, table)
    partitioned = entry.name == "list_entries" and _partitioned(connection)
    rebuilt = [] if partitioned or entry.rows < REBUILD_FROM else _drop_indexes(connection, table)
    open_parts: set[int] = set()
    batches = archive.batches(entry, rows_checked=not read_back)
    if not partitioned:
        _copy(connection, f'"{entry.name}"', [n for n, _ in entry.columns], batches, progress)
    else:
        for batch in batches:
            ids = batch.column("list_id")
            for list_id in sorted(set(ids.to_pylist())):
                if list_id not in open_parts:
                    list_partitions.new_partition(connection, int(list_id))
                    open_parts.add(int(list_id))
                mask = pc.equal(ids, pa.scalar(list_id, pa.int64()))
                part = batch.filter(mask)
                _copy(
                    connection,
                    list_partitions.partition_table(int(list_id)),
                    part.schema.names,
                    [part],
                )
            if progress is not None:
                progress(batch.num_rows)
    for list_id in sorted(open_parts):
        list_partitions.finish_partition(connection, list_id)
    _rebuild(connection, rebuilt)
    _check_count(connection, archive, entry, table)


def _rebuild(connection: Connection, statements: list[str]) -> None:
    if statements and connection.dialect.name == "postgresql":
        connection.exec_driver_sql(f"SET LOCAL maintenance_work_mem = '{INDEX_BUILD_MEMORY}'")
    for statement in statements:
        connection.exec_driver_sql(statement)


def _drop_indexes(connection: Connection, table: Table) -> list[str]:
    """Drop the table's indexes other than its key and unique constraints; the statements that
    build them again (one sorted pass each after the rows, instead of an insertion per row)."""
    if connection.dialect.name == "postgresql":
        found = connection.exec_driver_sql(
            "SELECT i.relname, pg_get_indexdef(i.oid) FROM pg_index x"
            " JOIN pg_class i ON i.oid = x.indexrelid"
            " WHERE x.indrelid = %(table)s::regclass"
            " AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid)",
            {"table": f'"{table.name}"'},
        ).all()
    else:
        found = connection.exec_driver_sql(
            "SELECT name, sql FROM sqlite_master"
            " WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL",
            (table.name,),
        ).all()
    for name, _sql in found:
        connection.exec_driver_sql(f'DROP INDEX "{name}"')
    return [str(sql) for _name, sql in found]


def _partitioned(connection: Connection) -> bool:
    return bool(
        connection.exec_driver_sql(
            "SELECT count(*) FROM pg_partitioned_table WHERE partrelid = 'list_entries'::regclass"
        ).scalar_one()
    )


def _copy(
    connection: Connection,
    table: str,
    names: list[str],
    batches: Iterable[pa.RecordBatch],
    progress: Progress | None = None,
) -> None:
    """The batches in one CSV ``COPY``, handed to the server by a thread of psycopg's while the
    next batch is read and written as CSV (the server parses one while the restore makes the
    next)."""
    from psycopg.copy import QueuedLibpqWriter

    raw = connection.connection.driver_connection
    assert raw is not None
    columns = ", ".join(f'"{n}"' for n in names)
    with (
        raw.cursor() as cursor,
        cursor.copy(
            f"COPY {table} ({columns}) FROM STDIN WITH (FORMAT csv)",
            writer=QueuedLibpqWriter(cursor),
        ) as copy,
    ):
        for batch in batches:
            if batch.num_rows:
                buffer = io.BytesIO()
                # Every text is quoted and a null is an empty field: an empty text stays one.
                pa_csv.write_csv(batch, buffer, pa_csv.WriteOptions(include_header=False))
                copy.write(buffer.getvalue())
            if progress is not None:
                progress(batch.num_rows)


def holds_data(connection: Connection) -> str | None:
    """The first table of the database that holds a row, or None."""
    for table in database_tables(connection):
        if connection.execute(select(func.count()).select_from(table)).scalar_one():
            return table.name
    return None


def drop_everything(connection: Connection) -> None:
    """Remove every table of the database (and on PostgreSQL the lists' partitions), so that the
    schema can be created at another revision."""
    found = MetaData()
    found.reflect(bind=connection, views=False)
    if connection.dialect.name == "postgresql":
        connection.exec_driver_sql(f"DROP SCHEMA IF EXISTS {LIST_PARTITIONS} CASCADE")
        for table in reversed(found.sorted_tables):
            connection.exec_driver_sql(f'DROP TABLE IF EXISTS "{table.name}" CASCADE')
        return
    for table in reversed(found.sorted_tables):
        connection.exec_driver_sql(f'DROP TABLE IF EXISTS "{table.name}"')


def foreign_keys_set_aside(connection: Connection) -> list[tuple[str, str, str]]:
    """On PostgreSQL, drop every foreign key (restored after the rows by
    :func:`foreign_keys_restored`, which checks each in one pass); on SQLite defer their checks
    to the commit. Rows that refer to rows further on (a player merged into a later one) load."""
    if connection.dialect.name != "postgresql":
        connection.exec_driver_sql("PRAGMA defer_foreign_keys = ON")
        return []
    keys = [
        (str(r[0]), str(r[1]), str(r[2]))
        for r in connection.exec_driver_sql(
            "SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid)"
            " FROM pg_constraint WHERE contype = 'f'"
            " AND connamespace = current_schema()::regnamespace"
        )
    ]
    for table, name, _definition in keys:
        connection.exec_driver_sql(f'ALTER TABLE {table} DROP CONSTRAINT "{name}"')
    return keys


def foreign_keys_restored(connection: Connection, keys: list[tuple[str, str, str]]) -> None:
    for table, name, definition in keys:
        connection.exec_driver_sql(f'ALTER TABLE {table} ADD CONSTRAINT "{name}" {definition}')


def sequences_past_ids(connection: Connection, tables: list[Table]) -> None:
    """On PostgreSQL, set each table's id sequence past the highest restored id."""
    if connection.dialect.name != "postgresql":
        return
    for table in tables:
        key = list(table.primary_key.columns)
        if len(key) != 1:
            continue
        sequence = connection.exec_driver_sql(
            "SELECT pg_get_serial_sequence(%(table)s, %(column)s)",
            {"table": table.name, "column": key[0].name},
        ).scalar_one()
        if sequence is None:
            continue
        connection.exec_driver_sql(
            f'SELECT setval(%(sequence)s, COALESCE(MAX("{key[0].name}"), 0) + 1, false)'
            f' FROM "{table.name}"',
            {"sequence": sequence},
        )


# SQLite: through a scratch file written by ADBC ----------------------------------------------


def _for_sqlite(batch: pa.RecordBatch) -> pa.RecordBatch:
    """Values as SQLAlchemy stores them in SQLite: dates as ISO text, times as its
    ``YYYY-MM-DD HH:MM:SS.ffffff`` text in UTC, decimals as text, booleans as integers."""
    columns = []
    for column in batch.columns:
        kind = column.type
        if pa.types.is_timestamp(kind):
            column = column.cast(pa.timestamp("us")).cast(pa.string())
        elif pa.types.is_date(kind) or pa.types.is_decimal(kind) or pa.types.is_large_string(kind):
            column = column.cast(pa.string())
        elif pa.types.is_boolean(kind):
            column = column.cast(pa.int64())
        elif pa.types.is_large_binary(kind):
            column = column.cast(pa.binary())
        columns.append(column)
    return pa.RecordBatch.from_arrays(columns, names=batch.schema.names)


@contextmanager
def sqlite_staged(
    archive: Archive,
    tables: dict[str, Table],
    read_back: bool,
    progress: Progress | None = None,
) -> Iterator[Path]:
    """Every table of the archive written by ADBC's bulk ingest into a scratch SQLite file, in
    the archive's order, each column of the storage class SQLAlchemy gives it; with
    ``read_back`` each then read back from the file through the same driver and checked against
    the archive's counts and checksums (:class:`ArchiveError` where one differs). The file's
    path, removed after."""
    import adbc_driver_sqlite.dbapi as adbc

    with tempfile.TemporaryDirectory(prefix="ratings-restore-", ignore_cleanup_errors=True) as tmp:
        path = Path(tmp) / "staged.sqlite"
        with adbc.connect(str(path), autocommit=True) as staged, staged.cursor() as cursor:
            # A scratch file: nothing to recover after a crash, so no journal and no sync.
            cursor.execute("PRAGMA journal_mode = OFF")
            cursor.execute("PRAGMA synchronous = OFF")
            for entry in archive.manifest.tables:
                table = tables[entry.name]
                check_columns(archive, entry, table)
                _stage(cursor, archive, entry, table, read_back, progress)
                if read_back:
                    _check_staged(cursor, archive, entry, table, progress)
        yield path


def _stage(
    cursor: Any,
    archive: Archive,
    entry: TableEntry,
    table: Table,
    read_back: bool,
    progress: Progress | None,
) -> None:
    names = [n for n, _ in entry.columns]
    declared = ", ".join(f'"{n}" {_storage(arrow_type(table.c[n].type))[0]}' for n in names)
    cursor.execute(f'CREATE TABLE "{entry.name}" ({declared})')
    cursor.execute("BEGIN")
    for batch in archive.batches(entry, rows_checked=not read_back):
        if batch.num_rows:
            cursor.adbc_ingest(entry.name, _for_sqlite(batch), mode="append")
        if progress is not None:
            progress(batch.num_rows)
    cursor.execute("COMMIT")


def _check_staged(
    cursor: Any, archive: Archive, entry: TableEntry, table: Table, progress: Progress | None
) -> None:
    schema = pa.schema([(c.name, arrow_type(c.type)) for c in table.columns])
    cursor.adbc_statement.set_options(**{"adbc.sqlite.query.batch_rows": str(BATCH_ROWS)})
    cursor.execute(sqlite_select(table, f'"{entry.name}"', "rowid"))
    rows = 0
    content = hashlib.sha256()
    for batch in cursor.fetch_record_batch():
        rows_digest(from_sqlite(batch, schema), content)
        rows += batch.num_rows
        if progress is not None:
            progress(batch.num_rows)
    check_read_back(archive, entry, rows, content.hexdigest())


def check_read_back(archive: Archive, entry: TableEntry, rows: int, digest: str) -> None:
    """Compare a table's rows read back with the manifest's count and rows checksum; where they
    differ, the archive's own rows are checked first (a damaged archive is named as such)."""
    if (rows, digest) == (entry.rows, entry.rows_sha256):
        return
    for _batch in archive.batches(entry):
        pass
    raise ArchiveError(
        archive.path,
        f"table {entry.name} read back from the database differs from the"
        f" archive ({rows} rows of {entry.rows}); nothing was restored",
    )


def _check_count(connection: Connection, archive: Archive, entry: TableEntry, table: Table) -> None:
    """The table's rows counted where they went, against the archive's count."""
    rows = count_rows(connection, table)
    if rows != entry.rows:
        check_read_back(archive, entry, rows, "")


def load_staged(
    connection: Connection, archive: Archive, staged: Path, entry: TableEntry, table: Table
) -> None:
    """Copy a table from the scratch file of :func:`sqlite_staged` into SQLite's empty table of
    that name, inside the connection's transaction, and check its count there. The file is
    attached once (SQLite cannot detach it inside the transaction that read it: it is detached
    when the connection goes back to the pool)."""
    alias = _attached(connection, staged)
    rebuilt = [] if entry.rows < REBUILD_FROM else _drop_indexes(connection, table)
    names = ", ".join(f'"{n}"' for n, _ in entry.columns)
    connection.exec_driver_sql(
        f'INSERT INTO main."{entry.name}" ({names}) '
        f'SELECT {names} FROM {alias}."{entry.name}" ORDER BY rowid'
    )
    _rebuild(connection, rebuilt)
    _check_count(connection, archive, entry, table)


def _attached(connection: Connection, staged: Path) -> str:
    for row in connection.exec_driver_sql("PRAGMA database_list"):
        if str(row[1]).startswith(STAGED) and row[2] == str(staged):
            return str(row[1])
    engine = connection.engine
    if not event.contains(engine, "checkin", _detach_staged):
        event.listen(engine, "checkin", _detach_staged)
    alias = f"{STAGED}{uuid.uuid4().hex[:12]}"
    connection.exec_driver_sql(f"ATTACH DATABASE ? AS {alias}", (str(staged),))
    return alias


def _detach_staged(dbapi_connection: Any, _record: Any) -> None:
    if dbapi_connection is None:
        return
    for row in dbapi_connection.execute("PRAGMA database_list").fetchall():
        if str(row[1]).startswith(STAGED):
            dbapi_connection.execute(f"DETACH DATABASE {row[1]}")


# PostgreSQL: read back by COPY on the restore's connection ------------------------------------


def content_digest(connection: Connection, table: Table) -> tuple[int, str]:
    """The table's row count and rows checksum as the archive computes them, read through
    ``connection`` (so inside its transaction): on PostgreSQL by ``COPY ... TO STDOUT`` parsed
    into Arrow columns, elsewhere (or for a table of bytes) through its rows."""
    rows = 0
    content = hashlib.sha256()
    schema = pa.schema([(c.name, arrow_type(c.type)) for c in table.columns])
    binary = any(pa.types.is_large_binary(f.type) for f in schema)
    if connection.dialect.name != "postgresql" or binary:
        batches: Iterator[pa.RecordBatch] = read_batches(connection, table)
    else:
        batches = _copied_out(connection, table, schema)
    for batch in batches:
        rows += batch.num_rows
        rows_digest(batch, content)
    return rows, content.hexdigest()


class _Chunks(io.RawIOBase):
    """A readable stream of the byte chunks of an iterator (``COPY`` hands over a row at a
    time): each read is filled with as many chunks as it holds."""

    def __init__(self, chunks: Iterator[Any]) -> None:
        self.chunks = chunks
        self.left = bytearray()

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        size = len(buffer)
        while len(self.left) < size:
            chunk = next(self.chunks, None)
            if chunk is None:
                break
            self.left += chunk
        size = min(size, len(self.left))
        buffer[:size] = self.left[:size]
        del self.left[:size]
        return size


def _copied_out(
    connection: Connection, table: Table, schema: pa.Schema
) -> Iterator[pa.RecordBatch]:
    columns = []
    types = {}
    for field in schema:
        if pa.types.is_timestamp(field.type):
            columns.append(
                f"""to_char("{field.name}" AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US')"""
            )
            types[field.name] = pa.timestamp("us")
        else:
            columns.append(f'"{field.name}"')
            types[field.name] = field.type
    order = ", ".join(f'"{c.name}"' for c in _key(table))
    sql = (
        f'COPY (SELECT {", ".join(columns)} FROM "{table.name}" ORDER BY {order})'
        " TO STDOUT WITH (FORMAT csv)"
    )
    raw = connection.connection.driver_connection
    assert raw is not None
    with raw.cursor() as cursor, cursor.copy(sql) as copy:
        chunks = iter(copy)
        first = next(chunks, None)
        if first is None:  # no rows: Arrow's reader takes no empty input
            return
        reader = pa_csv.open_csv(
            pa.PythonFile(_Chunks(itertools.chain([first], chunks)), mode="r"),
            read_options=pa_csv.ReadOptions(
                column_names=schema.names, use_threads=False, block_size=1 << 22
            ),
            parse_options=pa_csv.ParseOptions(newlines_in_values=True),
            convert_options=pa_csv.ConvertOptions(
                column_types=types,
                null_values=[""],
                strings_can_be_null=True,
                quoted_strings_can_be_null=False,
                true_values=["t"],
                false_values=["f"],
            ),
        )
        for batch in reader:
            arrays = [c.cast(f.type) for c, f in zip(batch.columns, schema, strict=True)]
            yield pa.RecordBatch.from_arrays(arrays, schema=schema)
