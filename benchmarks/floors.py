"""What the database drivers can move at best: ``python -m benchmarks.floors [--rows N]``.

The rating job's persistence and the import store one row per result, and its window read
fetches one row per result; whatever the schema and the job do, they cannot beat the driver moving
bare rows of integers. This prints those ceilings on this machine, in one transaction each, with
no index, key or constraint on the table:

- SQLite through Python's ``sqlite3`` (the driver SQLAlchemy uses): ``executemany`` of tuples
  (rows built from a polars frame, as the bulk path does) and a ``fetchmany`` read into polars;
- PostgreSQL through psycopg: ``COPY FROM STDIN`` fed by polars' CSV writer (the bulk path of
  ``ratings.storage.bulk``) and as binary rows built by numpy (a full re-rating's path,
  ``ratings.storage.bulk.whole_table``), and ``COPY TO STDOUT`` parsed by polars' CSV reader;
  an ADBC read into Arrow (the full re-rating's window read);
- SQLite through ADBC's bulk ingest and Arrow read (the read is the full re-rating's, in a
  process of its own; the ingest is not used: see benchmarks/RESULTS.md).
"""

from __future__ import annotations

import argparse
import io
import os
import sqlite3
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from benchmarks.run import ADMIN_URL

COLUMNS = (
    "seq",
    "player_id",
    "tournament_id",
    "games",
    "rating_before",
    "rating_after",
    "expected",
)
"""The shape of a rating change: seven 64-bit integers."""


def frame(rows: int) -> pl.DataFrame:
    rng = np.random.default_rng(0)
    return pl.DataFrame({c: rng.integers(0, 10**13, rows, dtype=np.int64) for c in COLUMNS})


def _timed(action: Callable[[], object]) -> float:
    began = time.perf_counter()
    action()
    return time.perf_counter() - began


def sqlite_floor(data: pl.DataFrame, directory: Path) -> dict[str, float]:
    path = directory / "floor.sqlite"
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA journal_mode = WAL")
    connection.execute("PRAGMA synchronous = NORMAL")
    connection.execute(f"CREATE TABLE t ({', '.join(f'{c} INTEGER' for c in COLUMNS)})")
    marks = ", ".join("?" for _ in COLUMNS)

    def write() -> None:
        connection.execute("BEGIN")
        for start in range(0, data.height, 100_000):
            connection.executemany(
                f"INSERT INTO t VALUES ({marks})", data.slice(start, 100_000).iter_rows()
            )
        connection.execute("COMMIT")

    def read() -> None:
        cursor = connection.execute(f"SELECT {', '.join(COLUMNS)} FROM t")
        parts = []
        while rows := cursor.fetchmany(200_000):
            parts.append(pl.DataFrame(rows, schema=list(COLUMNS), orient="row"))
        pl.concat(parts)

    figures = {"sqlite3 executemany": _timed(write), "sqlite3 fetchmany": _timed(read)}
    connection.close()
    return figures


def adbc_floor(data: pl.DataFrame, directory: Path) -> dict[str, float]:
    try:
        import adbc_driver_sqlite.dbapi as adbc
    except ImportError:
        return {}
    path = str(directory / "adbc.sqlite")
    with adbc.connect(path) as connection, connection.cursor() as cursor:
        write = _timed(lambda: cursor.adbc_ingest("t", data.to_arrow(), mode="create"))
        connection.commit()

        def read() -> None:
            cursor.execute(f"SELECT {', '.join(COLUMNS)} FROM t")
            pl.from_arrow(cursor.fetch_arrow_table())

        return {"ADBC SQLite ingest": write, "ADBC SQLite read": _timed(read)}


def postgres_floor(data: pl.DataFrame) -> dict[str, float]:
    import psycopg
    from sqlalchemy.engine import make_url

    url = make_url(ADMIN_URL).set(drivername="postgresql").render_as_string(hide_password=False)
    # Ordinary tables, logged as the service's are, which a second connection (ADBC) can read.
    csv_table, binary_table = (f"floor_{uuid.uuid4().hex[:8]}" for _ in range(2))
    with psycopg.connect(url, autocommit=True) as connection:
        for table in (csv_table, binary_table):
            connection.execute(
                f"CREATE TABLE {table} ({', '.join(f'{c} bigint' for c in COLUMNS)})"
            )
        try:
            return _postgres_paths(connection, url, data, csv_table, binary_table)
        finally:
            for table in (csv_table, binary_table):
                connection.execute(f"DROP TABLE IF EXISTS {table}")


def _postgres_paths(
    connection: Any, url: str, data: pl.DataFrame, csv_table: str, binary_table: str
) -> dict[str, float]:
    def write() -> None:
        with (
            connection.transaction(),
            connection.cursor() as cursor,
            cursor.copy(f"COPY {csv_table} FROM STDIN WITH (FORMAT csv)") as copy,
        ):
            for start in range(0, data.height, 500_000):
                copy.write(data.slice(start, 500_000).write_csv(include_header=False))

    def write_binary() -> None:
        # PostgreSQL's binary COPY: per row a field count, then each field's length and its
        # big-endian value; fixed-width integers make it one numpy array per chunk.
        fields = [("count", ">i2")] + [f for c in COLUMNS for f in ((f"{c}.n", ">i4"), (c, ">i8"))]
        layout = np.dtype(fields)
        with (
            connection.transaction(),
            connection.cursor() as cursor,
            cursor.copy(f"COPY {binary_table} FROM STDIN WITH (FORMAT binary)") as copy,
        ):
            copy.write(b"PGCOPY\n\xff\r\n\x00" + bytes(8))
            for start in range(0, data.height, 500_000):
                chunk = data.slice(start, 500_000)
                rows = np.empty(chunk.height, dtype=layout)
                rows["count"] = len(COLUMNS)
                for c in COLUMNS:
                    rows[f"{c}.n"] = 8
                    rows[c] = chunk[c].to_numpy()
                copy.write(rows.tobytes())
            copy.write(b"\xff\xff")

    def read() -> None:
        buffer = io.BytesIO()
        with (
            connection.cursor() as cursor,
            cursor.copy(f"COPY {csv_table} TO STDOUT WITH (FORMAT csv)") as copy,
        ):
            for block in copy:
                buffer.write(block)
        pl.read_csv(buffer.getvalue(), has_header=False)

    figures = {
        "PostgreSQL COPY in (CSV)": _timed(write),
        "PostgreSQL COPY in (binary, numpy)": _timed(write_binary),
        "PostgreSQL COPY out (CSV)": _timed(read),
    }
    try:
        import adbc_driver_postgresql.dbapi as adbc  # type: ignore[import-untyped]
    except ImportError:
        return figures

    def read_adbc() -> None:
        with adbc.connect(url) as second, second.cursor() as cursor:
            cursor.execute(f"SELECT {', '.join(COLUMNS)} FROM {csv_table}")
            pl.from_arrow(cursor.fetch_arrow_table())

    return figures | {"PostgreSQL ADBC read": _timed(read_adbc)}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.floors", description=__doc__)
    parser.add_argument(
        "--rows", type=int, default=2_000_000, help="rows moved (default 2,000,000)"
    )
    parser.add_argument("--skip-postgresql", action="store_true")
    args = parser.parse_args(argv)
    data = frame(args.rows)
    figures: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="ratings-floor-", dir=os.environ.get("TMPDIR")) as tmp:
        figures |= sqlite_floor(data, Path(tmp))
        figures |= adbc_floor(data, Path(tmp))
    if not args.skip_postgresql:
        figures |= postgres_floor(data)
    print(f"{args.rows:,} rows of {len(COLUMNS)} integer columns, one transaction, no index\n")
    print("| path | seconds | rows/s | 10 million rows at that rate (s) |")
    print("|---|---:|---:|---:|")
    for name, seconds in figures.items():
        rate = args.rows / seconds
        print(f"| {name} | {seconds:.2f} | {rate:,.0f} | {10_000_000 / rate:.1f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
