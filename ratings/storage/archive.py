"""The portable archive of a whole database: one zip file holding each table as an Arrow IPC
stream (``tables/NAME.arrows``, compressed with zstd) and ``manifest.json`` naming the schema's
revision and, for each table, its columns, its row count and two checksums (SHA-256): of the
member's bytes, and of its rows in key order written as CSV (the same on every backend, so a
restored database is checked against the archive by reading it back).

Nothing in it depends on the backend: a SQLite database's archive restores into PostgreSQL and
the other way round. Tables are read and written in batches of :data:`BATCH_ROWS`, never whole.

Which tables: every table the database has at its revision (at the newest revision those of
``schema.metadata``, so a table added to the schema is archived without a change here), in the
order of their foreign keys. A column's type in the archive is the schema's where the schema
declares it, else what the database reports (an older revision's column).
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import time
import zipfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import IO, Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv
import pyarrow.ipc as ipc
from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Date,
    DateTime,
    Float,
    Integer,
    LargeBinary,
    MetaData,
    Numeric,
    Table,
    func,
    select,
)
from sqlalchemy.engine import Connection
from sqlalchemy.types import TypeEngine

from ratings.errors import ArchiveError
from ratings.storage import lists
from ratings.storage.bulk import INDEX_BUILD_MEMORY, REBUILD_INDEXES_FROM
from ratings.storage.schema import LIST_PARTITIONS, metadata

log = logging.getLogger(__name__)
FORMAT = "ratings-archive"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
BATCH_ROWS = 50_000
"""Rows read, written and checked at a time: a batch of the widest table is a few megabytes."""
REBUILD_FROM = REBUILD_INDEXES_FROM
"""Rows of a table from which its indexes are built after its rows rather than kept during."""
SKIPPED = frozenset({"alembic_version"})
"""Tables of the database that are not the federation's data (Alembic's revision is in the
manifest instead)."""

Progress = Callable[[int], None]
"""Told how many more rows were copied."""
TableReader = Callable[[Connection, Table], Iterator[pa.RecordBatch]]
"""Reads a table's rows in key order as batches of the archive's types (:func:`read_batches`,
or :func:`postgres_columns`' reader)."""


@dataclass(frozen=True, slots=True)
class TableEntry:
    """One table of an archive, as its manifest describes it."""

    name: str
    file: str
    columns: tuple[tuple[str, str], ...]
    """Each column's name and Arrow type (as ``str(pyarrow type)``)."""
    rows: int
    rows_sha256: str
    file_sha256: str

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "file": self.file,
            "columns": [{"name": n, "type": t} for n, t in self.columns],
            "rows": self.rows,
            "rows_sha256": self.rows_sha256,
            "file_sha256": self.file_sha256,
        }


@dataclass(frozen=True, slots=True)
class Manifest:
    revision: str
    created_at: str
    source: str
    """The backend the archive was taken from (``sqlite``, ``postgresql``): for information."""
    tables: tuple[TableEntry, ...]

    @property
    def rows(self) -> int:
        return sum(t.rows for t in self.tables)

    def as_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "revision": self.revision,
            "created_at": self.created_at,
            "source": self.source,
            "tables": [t.as_json() for t in self.tables],
        }


# Reading the database ------------------------------------------------------------------------


def arrow_type(sql_type: TypeEngine[Any]) -> pa.DataType:
    """The Arrow type a column is archived as: exact for every type the schema uses (integers
    as 64 bits, times in microseconds in UTC, decimals with their scale)."""
    if isinstance(sql_type, Boolean):
        return pa.bool_()
    if isinstance(sql_type, Integer | BigInteger):
        return pa.int64()
    if isinstance(sql_type, Float):
        return pa.float64()
    if isinstance(sql_type, Numeric):
        precision = sql_type.precision or 38
        return pa.decimal128(precision, sql_type.scale or 0)
    if isinstance(sql_type, DateTime):
        return pa.timestamp("us", tz="UTC")
    if isinstance(sql_type, Date):
        return pa.date32()
    if isinstance(sql_type, LargeBinary):
        return pa.large_binary()
    return pa.large_string()


def arrow_schema(table: Table) -> pa.Schema:
    """The Arrow schema a table is archived with."""
    return pa.schema([(c.name, arrow_type(c.type)) for c in table.columns])


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
            columns.append(Column(column.name, kind, primary_key=column.name in key))
        tables.append(Table(reflected.name, MetaData(), *columns))
    return tables


def _key(table: Table) -> list[Column[Any]]:
    key = list(table.primary_key.columns)
    return key or list(table.columns)


def read_batches(connection: Connection, table: Table) -> Iterator[pa.RecordBatch]:
    """The table's rows in key order, in batches. The driver's rows go into Arrow column by
    column (on PostgreSQL through a server-side cursor; SQLite's texts of dates and times are
    parsed by Arrow), which is several times faster than SQLAlchemy's row objects; a batch whose
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
def postgres_columns(connection: Connection) -> Iterator[TableReader | None]:
    """On PostgreSQL, a reader of tables as Arrow columns straight from the server (ADBC's
    driver, binary ``COPY``) through a second connection that sees the snapshot of
    ``connection``'s transaction, many times faster than rows through Python; None where it
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

        def read(_connection: Connection, table: Table) -> Iterator[pa.RecordBatch]:
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


def rows_digest(batch: pa.RecordBatch, digest: Any) -> None:
    """Add the batch's rows to ``digest`` as CSV (no header): the same for the same rows
    however they are cut into batches."""
    buffer = io.BytesIO()
    pa_csv.write_csv(batch, buffer, pa_csv.WriteOptions(include_header=False))
    digest.update(buffer.getvalue())


def count_rows(connection: Connection, table: Table) -> int:
    return int(connection.execute(select(func.count()).select_from(table)).scalar_one())


# Writing an archive ---------------------------------------------------------------------------


class _Hashing(io.RawIOBase):
    """A stream that hashes what passes through it to or from ``inner``."""

    def __init__(self, inner: IO[bytes]) -> None:
        self.inner = inner
        self.digest = hashlib.sha256()

    def writable(self) -> bool:
        return True

    def readable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        view = memoryview(data).cast("B")
        self.digest.update(view)
        self.inner.write(view)
        return len(view)

    def readinto(self, buffer: Any) -> int:
        data = self.inner.read(len(buffer))
        view = memoryview(buffer).cast("B")
        view[: len(data)] = data
        self.digest.update(data)
        return len(data)

    def drain(self) -> None:
        while self.inner.read(1 << 20):
            pass


def write_archive(
    connection: Connection,
    target: IO[bytes],
    *,
    revision: str,
    created_at: datetime,
    progress: Progress | None = None,
    tables: list[Table] | None = None,
    written: Callable[[str], None] | None = None,
    reader: TableReader | None = None,
) -> Manifest:
    """Write every table read through ``connection`` (one read transaction, opened by the
    caller) into ``target`` as an archive; its manifest."""
    entries = []
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as archive:
        for table in tables if tables is not None else database_tables(connection):
            batches = (reader or read_batches)(connection, table)
            entries.append(_write_table(archive, table, batches, progress))
            if written is not None:
                written(table.name)
        manifest = Manifest(
            revision=revision,
            created_at=created_at.isoformat(),
            source=connection.dialect.name,
            tables=tuple(entries),
        )
        archive.writestr(MANIFEST, json.dumps(manifest.as_json(), indent=1))
    return manifest


def _write_table(
    archive: zipfile.ZipFile,
    table: Table,
    batches: Iterator[pa.RecordBatch],
    progress: Progress | None,
) -> TableEntry:
    name = f"tables/{table.name}.arrows"
    schema = pa.schema([(c.name, arrow_type(c.type)) for c in table.columns])
    rows = 0
    content = hashlib.sha256()
    # Stamped with the time it was written (zip's default is 1980).
    info = zipfile.ZipInfo(name, date_time=time.localtime()[:6])
    with archive.open(info, "w", force_zip64=True) as member:
        hashing = _Hashing(member)
        sink = pa.PythonFile(hashing, mode="w")
        options = ipc.IpcWriteOptions(compression="zstd")
        with ipc.new_stream(sink, schema, options=options) as writer:
            for batch in batches:
                writer.write_batch(batch)
                rows_digest(batch, content)
                rows += batch.num_rows
                if progress is not None:
                    progress(batch.num_rows)
    return TableEntry(
        name=table.name,
        file=name,
        columns=tuple((f.name, str(f.type)) for f in schema),
        rows=rows,
        rows_sha256=content.hexdigest(),
        file_sha256=hashing.digest.hexdigest(),
    )


# Reading an archive ---------------------------------------------------------------------------


class Archive:
    """An archive opened for reading: its manifest checked for form, its tables read in
    batches with every checksum checked on the way (:class:`ArchiveError` naming what is
    wrong)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self.zip = zipfile.ZipFile(path)
        except FileNotFoundError:
            raise ArchiveError(path, "no such file") from None
        except (zipfile.BadZipFile, OSError) as error:
            raise ArchiveError(path, f"not a readable zip file ({error}); truncated?") from None
        self.manifest = self._manifest()

    def close(self) -> None:
        self.zip.close()

    def __enter__(self) -> Archive:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _manifest(self) -> Manifest:
        try:
            raw = self.zip.read(MANIFEST)
        except KeyError:
            raise ArchiveError(
                self.path, f"it holds no {MANIFEST}: not a ratings archive"
            ) from None
        except (zipfile.BadZipFile, OSError, EOFError) as error:
            raise ArchiveError(self.path, f"{MANIFEST} cannot be read ({error})") from None
        try:
            data = json.loads(raw)
            if data.get("format") != FORMAT:
                raise ValueError(f"format is {data.get('format')!r}, not {FORMAT!r}")
            if data.get("format_version") != FORMAT_VERSION:
                raise ValueError(
                    f"format version {data.get('format_version')!r} is not {FORMAT_VERSION}"
                )
            tables = tuple(
                TableEntry(
                    name=str(t["name"]),
                    file=str(t["file"]),
                    columns=tuple((str(c["name"]), str(c["type"])) for c in t["columns"]),
                    rows=int(t["rows"]),
                    rows_sha256=str(t["rows_sha256"]),
                    file_sha256=str(t["file_sha256"]),
                )
                for t in data["tables"]
            )
            manifest = Manifest(
                revision=str(data["revision"]),
                created_at=str(data["created_at"]),
                source=str(data.get("source", "")),
                tables=tables,
            )
        except (ValueError, KeyError, TypeError) as error:
            reason = f"missing field {error}" if isinstance(error, KeyError) else str(error)
            raise ArchiveError(self.path, f"{MANIFEST} is not a valid manifest: {reason}") from None
        members = set(self.zip.namelist())
        for table in manifest.tables:
            if table.file not in members:
                raise ArchiveError(
                    self.path, f"table {table.name}: its file {table.file} is missing"
                )
        return manifest

    def batches(self, table: TableEntry) -> Iterator[pa.RecordBatch]:
        """The table's batches; after the last, its row count and both checksums are checked
        against the manifest (a batch already handed out is the caller's to roll back)."""
        rows = 0
        content = hashlib.sha256()
        try:
            with self.zip.open(table.file) as member:
                hashing = _Hashing(member)
                reader = ipc.open_stream(pa.PythonFile(hashing, mode="r"))
                got = tuple((f.name, str(f.type)) for f in reader.schema)
                if got != table.columns:
                    raise ArchiveError(
                        self.path,
                        f"table {table.name}: its columns {_names(got)} are not the manifest's"
                        f" {_names(table.columns)}",
                    )
                for batch in reader:
                    rows_digest(batch, content)
                    rows += batch.num_rows
                    yield batch
                hashing.drain()
        except (zipfile.BadZipFile, OSError, EOFError, pa.ArrowInvalid) as error:
            first = (str(error).splitlines() or [type(error).__name__])[0]
            raise ArchiveError(self.path, f"table {table.name} cannot be read: {first}") from None
        if hashing.digest.hexdigest() != table.file_sha256:
            raise ArchiveError(
                self.path, f"table {table.name}: the checksum of {table.file} is wrong"
            )
        if rows != table.rows:
            raise ArchiveError(
                self.path, f"table {table.name}: {rows} rows, the manifest says {table.rows}"
            )
        if content.hexdigest() != table.rows_sha256:
            raise ArchiveError(self.path, f"table {table.name}: the checksum of its rows is wrong")

    def verify(self, progress: Progress | None = None) -> Manifest:
        """Read every table through, checking everything."""
        for table in self.manifest.tables:
            for batch in self.batches(table):
                if progress is not None:
                    progress(batch.num_rows)
        return self.manifest


def _names(columns: tuple[tuple[str, str], ...]) -> str:
    return ", ".join(f"{n} {t}" for n, t in columns)


# Loading into a database ----------------------------------------------------------------------


def load_table(
    connection: Connection,
    archive: Archive,
    entry: TableEntry,
    table: Table,
    progress: Progress | None = None,
) -> None:
    """Copy an archive's table into the database's empty table of that name, batch by batch:
    binary-free CSV ``COPY`` on PostgreSQL (a list's entries into a partition of their own, as
    publishing writes them), ``executemany`` on SQLite."""
    have = [c.name for c in table.columns]
    want = [n for n, _ in entry.columns]
    if sorted(have) != sorted(want):
        raise ArchiveError(
            archive.path,
            f"table {entry.name}: its columns ({', '.join(want)}) are not those of the schema"
            f" at revision {archive.manifest.revision} ({', '.join(have)})",
        )
    postgresql = connection.dialect.name == "postgresql"
    partitioned = postgresql and entry.name == "list_entries" and _partitioned(connection)
    rebuilt = [] if partitioned or entry.rows < REBUILD_FROM else _drop_indexes(connection, table)
    open_parts: set[int] = set()
    for batch in archive.batches(entry):
        if postgresql and partitioned:
            ids = batch.column("list_id")
            for list_id in sorted(set(ids.to_pylist())):
                if list_id not in open_parts:
                    lists.new_partition(connection, int(list_id))
                    open_parts.add(int(list_id))
                mask = pc.equal(ids, pa.scalar(list_id, pa.int64()))
                _copy(connection, lists.partition_table(int(list_id)), batch.filter(mask))
        elif postgresql:
            _copy(connection, f'"{entry.name}"', batch)
        else:
            _sqlite_insert(connection, entry.name, batch)
        if progress is not None:
            progress(batch.num_rows)
    for list_id in sorted(open_parts):
        lists.finish_partition(connection, list_id)
    if postgresql and rebuilt:
        connection.exec_driver_sql(f"SET LOCAL maintenance_work_mem = '{INDEX_BUILD_MEMORY}'")
    for statement in rebuilt:
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


def _copy(connection: Connection, table: str, batch: pa.RecordBatch) -> None:
    if batch.num_rows == 0:
        return
    buffer = io.BytesIO()
    # Every text is quoted and a null is an empty field, so an empty text stays one.
    pa_csv.write_csv(batch, buffer, pa_csv.WriteOptions(include_header=False))
    raw = connection.connection.driver_connection
    assert raw is not None
    names = ", ".join(f'"{n}"' for n in batch.schema.names)
    with (
        raw.cursor() as cursor,
        cursor.copy(f"COPY {table} ({names}) FROM STDIN WITH (FORMAT csv)") as copy,
    ):
        copy.write(buffer.getvalue())


def _sqlite_insert(connection: Connection, table: str, batch: pa.RecordBatch) -> None:
    """Rows as SQLAlchemy stores them in SQLite: dates as ISO text, times as its
    ``YYYY-MM-DD HH:MM:SS.ffffff`` text in UTC, decimals as text."""
    if batch.num_rows == 0:
        return
    columns = []
    for column in batch.columns:
        kind = column.type
        if pa.types.is_timestamp(kind):
            column = column.cast(pa.timestamp("us")).cast(pa.string())
        elif pa.types.is_date(kind) or pa.types.is_decimal(kind):
            column = column.cast(pa.string())
        columns.append(column.to_pylist())
    names = ", ".join(f'"{n}"' for n in batch.schema.names)
    marks = ", ".join("?" for _ in batch.schema.names)
    raw = connection.connection.driver_connection
    assert raw is not None
    raw.executemany(
        f'INSERT INTO "{table}" ({names}) VALUES ({marks})', list(zip(*columns, strict=True))
    )


def content_digest(connection: Connection, table: Table) -> tuple[int, str]:
    """The table's row count and rows checksum as the archive computes them."""
    rows = 0
    content = hashlib.sha256()
    for batch in read_batches(connection, table):
        rows += batch.num_rows
        rows_digest(batch, content)
    return rows, content.hexdigest()


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
