"""The archive's form: a zip file holding each table as an Arrow IPC stream
(``tables/NAME.arrows``, compressed with zstd) and ``manifest.json`` naming the schema's revision
and, for each table, its columns, its row count and two checksums (SHA-256): of the member's
bytes, and of its rows in key order written as CSV (the same on every backend, so a restored
database is checked against the archive by reading it back). Writing one from batches of rows,
and reading one back with every checksum checked."""

from __future__ import annotations

import hashlib
import io
import json
import time
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import IO, Any

import pyarrow as pa
import pyarrow.csv as pa_csv
import pyarrow.ipc as ipc
from sqlalchemy import (
    BigInteger,
    Boolean,
    Date,
    DateTime,
    Float,
    Integer,
    LargeBinary,
    Numeric,
    Table,
)
from sqlalchemy.types import TypeEngine

from ratings.errors import ArchiveError

FORMAT = "ratings-archive"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
BATCH_ROWS = 50_000
"""Rows read, written and checked at a time: a batch of the widest table is a few megabytes."""
SKIPPED = frozenset({"alembic_version"})
"""Tables of the database that are not the federation's data (Alembic's revision is in the
manifest instead)."""

Progress = Callable[[int], None]
"""Told how many more rows were copied."""
TableBatches = Callable[[Table], Iterator[pa.RecordBatch]]
"""Reads a table's rows in key order as batches of the archive's types."""


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


def rows_digest(batch: pa.RecordBatch, digest: Any) -> None:
    """Add the batch's rows to ``digest`` as CSV (no header): the same for the same rows
    however they are cut into batches."""
    buffer = io.BytesIO()
    pa_csv.write_csv(batch, buffer, pa_csv.WriteOptions(include_header=False))
    digest.update(buffer.getvalue())


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
    target: IO[bytes],
    tables: list[Table],
    read: TableBatches,
    *,
    revision: str,
    created_at: datetime,
    source: str,
    progress: Progress | None = None,
    written: Callable[[str], None] | None = None,
) -> Manifest:
    """Write every table, its rows given by ``read``, into ``target`` as an archive; its
    manifest. ``source`` names the backend the rows come from."""
    entries = []
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as archive:
        for table in tables:
            entries.append(_write_table(archive, table, read(table), progress))
            if written is not None:
                written(table.name)
        manifest = Manifest(
            revision=revision,
            created_at=created_at.isoformat(),
            source=source,
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

    def batches(self, table: TableEntry, rows_checked: bool = True) -> Iterator[pa.RecordBatch]:
        """The table's batches; after the last, its row count and both checksums are checked
        against the manifest (a batch already handed out is the caller's to roll back). Without
        ``rows_checked`` the checksum of the rows is left to the caller, who compares the rows
        read back from where they went with the manifest's (the bytes' checksum still holds)."""
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
                    if rows_checked:
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
        if rows_checked and content.hexdigest() != table.rows_sha256:
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
