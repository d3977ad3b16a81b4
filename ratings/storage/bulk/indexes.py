"""Indexes and keys around a large write, and the planner's statistics after one.

A large write drops the table's secondary indexes first and builds them again afterwards, still
inside the caller's transaction: one sorted build is far cheaper than millions of random B-tree
insertions (the profile of a 1-million-result import showed most of its time there).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, nullcontext

from sqlalchemy import Table, func, select, text
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError
from sqlalchemy.schema import AddConstraint, DropConstraint

from ratings.storage import statistics

REBUILD_INDEXES_FROM = 200_000
"""Rows in one write from which dropping and rebuilding the secondary indexes pays: below it (a
monthly update, a correction) rebuilding indexes over a large table would cost more than it saves."""

REBUILD_EMPTY_FROM = 10_000
"""Rows from which a write into an empty table drops its secondary indexes and builds them after
the rows (a history's first import writes its players and tournaments so): on PostgreSQL, the
46,688 players of the medium history took 0.83-1.17 s to copy into their table with its
indexes, 0.62-0.70 s without its folded names' index and 0.06-0.07 s to build it afterwards;
the 44,610 tournaments 0.86 s with their three secondary indexes, 0.45-0.60 s without them and
0.09-0.18 s to build them."""

INDEX_BUILD_MEMORY = "512MB"

SQLITE_ANALYSIS_ROWS = 1000


@contextmanager
def indexes_rebuilt(
    connection: Connection, table: Table, rows: int, *, key: bool = False
) -> Iterator[bool]:
    """Drop ``table``'s secondary indexes (and, on PostgreSQL, its foreign keys) for a write of
    ``rows`` rows when it is large, and create them again afterwards, which checks every row and
    analyses the table; unique constraints stay, and the primary key unless ``key`` asks for it
    too (:func:`primary_key_rebuilt`). It gives whether it does.

    Only a write at least as large as what the table already holds pays for rebuilding: re-rating
    the last year of a long history inserts into the indexes faster than it could rebuild them.
    Into an empty table a smaller write pays already (:data:`REBUILD_EMPTY_FROM`).
    """
    if not table.indexes or not (
        writes_most(connection, table, rows) or _fills_empty(connection, table, rows)
    ):
        yield False
        return
    with rebuilding(connection, table, key=key):
        yield True


def writes_most(connection: Connection, table: Table, rows: int) -> bool:
    """Whether a write of ``rows`` rows is large and at least as large as what ``table`` holds:
    the writes that pay for dropping indexes and building them again."""
    if rows < REBUILD_INDEXES_FROM:
        return False
    held = connection.execute(select(func.count()).select_from(table)).scalar_one()
    return rows >= held


def _fills_empty(connection: Connection, table: Table, rows: int) -> bool:
    return (
        REBUILD_EMPTY_FROM <= rows < REBUILD_INDEXES_FROM
        and connection.execute(select(1).select_from(table).limit(1)).first() is None
    )


@contextmanager
def rebuilding(connection: Connection, table: Table, *, key: bool = False) -> Iterator[None]:
    """``table``'s secondary indexes (and, on PostgreSQL, its foreign keys, and its primary key
    when ``key`` asks for it) dropped around the block and created again after it
    (:func:`indexes_rebuilt`, once it decided to)."""
    # PostgreSQL checks a foreign key with one query per inserted row, which was most of the time
    # of a million-row COPY; adding the constraint back checks every row in one join instead.
    # SQLite's checks are cheap lookups, and it cannot drop a constraint anyway.
    foreigns = (
        list(table.foreign_key_constraints) if connection.dialect.name == "postgresql" else []
    )
    for foreign in foreigns:
        connection.execute(DropConstraint(foreign))
    for index in table.indexes:
        index.drop(connection)
    if connection.dialect.name == "postgresql":
        # The default (64 MB) sorts a ten-million-entry index on disk; this transaction only (a
        # write itself takes none of it).
        connection.exec_driver_sql(f"SET LOCAL maintenance_work_mem = '{INDEX_BUILD_MEMORY}'")
    with primary_key_rebuilt(connection, table) if key else nullcontext():
        yield
    for index in sorted(table.indexes, key=lambda i: str(i.name)):
        index.create(connection)
    if foreigns:
        # Adding a key back joins every row to its parent table: with the default 4 MB the
        # join of ten million results to a million players went to disk in batches.
        connection.exec_driver_sql(f"SET LOCAL work_mem = '{INDEX_BUILD_MEMORY}'")
    for foreign in foreigns:
        connection.execute(AddConstraint(foreign))
    if foreigns:
        connection.exec_driver_sql("SET LOCAL work_mem TO DEFAULT")
    analyze(connection, table.name)


@contextmanager
def primary_key_rebuilt(connection: Connection, table: Table) -> Iterator[None]:
    """PostgreSQL: ``table``'s primary key dropped for a large write into it and added back
    after it, one sorted build that checks every key, where no foreign key refers to the table.
    Kept, every row of a COPY went into the key's B-tree as it was stored: 807,856 results took
    2.25 s to copy with their key and 1.07 s without it, and adding the key afterwards 0.42 s.
    SQLite's rowid is its table and stays."""
    primary = table.primary_key
    if (
        connection.dialect.name != "postgresql"
        or not primary.columns
        or primary.name is None
        or any(
            foreign.referred_table is table
            for other in table.metadata.tables.values()
            for foreign in other.foreign_key_constraints
        )
    ):
        yield
        return
    connection.execute(DropConstraint(primary))
    yield
    connection.execute(AddConstraint(primary))


@contextmanager
def keys_checked_once(
    connection: Connection, large: bool, tables: Sequence[Table]
) -> Iterator[Callable[[], None]]:
    """Around a transaction (on a connection outside one) that inserts ``large`` amounts into
    ``tables`` and deletes nothing: on SQLite the foreign keys are not checked row by row while
    it writes, and the check it is given, called before the commit, checks every key of
    ``tables`` with one query per key instead. SQLite looked up both parents of every result
    as it was inserted: most of the processor time of copying ten million results into their
    table. PostgreSQL drops its keys and adds them back instead (:func:`indexes_rebuilt`);
    a small write, or another database, is checked as it is written, and its check does nothing.
    SQLite changes the setting only outside a transaction; it is set back when the block ends."""
    raw = connection.connection.driver_connection
    if not large or connection.dialect.name != "sqlite" or raw is None:
        yield lambda: None
        return
    raw.execute("PRAGMA foreign_keys = OFF")
    try:
        yield lambda: _check_keys(connection, tables)
    finally:
        if not connection.invalidated:
            raw.execute("PRAGMA foreign_keys = ON")


def _check_keys(connection: Connection, tables: Sequence[Table]) -> None:
    """Every foreign key of ``tables`` names a row that exists, or an IntegrityError as SQLite
    raises for a row that breaks one. Each distinct value is looked up once, read in order
    from the index that starts with the key's column where there is one."""
    for table in tables:
        for key in table.foreign_key_constraints:
            for element in key.elements:
                column, parent = element.parent.name, element.column
                query = (
                    f"SELECT 1 FROM (SELECT DISTINCT {column} AS value FROM {table.name} "
                    f"WHERE {column} IS NOT NULL) AS used WHERE NOT EXISTS (SELECT 1 FROM "
                    f"{parent.table.name} WHERE {parent.table.name}.{parent.name} = used.value) "
                    "LIMIT 1"
                )
                if connection.exec_driver_sql(query).first() is not None:
                    raise IntegrityError(
                        query, None, sqlite3.IntegrityError("FOREIGN KEY constraint failed")
                    )


ANALYZE_FROM = 10_000
"""Rows written at once from which a write that adds a tenth or more of what the planner believes
a table holds has the table analysed at once (:func:`analyze_if_grown`). Below it the table is
small or hardly changed, and a director's event or a correction does not pay for an analysis."""


def analyze_if_grown(connection: Connection, table: Table, rows: int) -> bool:
    """Analyse ``table`` after a write of ``rows`` rows when they are at least ``ANALYZE_FROM``
    and at least a tenth of the rows its statistics tell the planner of (none, before its first
    analysis): PostgreSQL's autovacuum does the same, but a while after the commit and not at
    all where it is off, and SQLite never. Without it the monthly job that follows a history's
    import planned the list of its 47,000 players from tables it took for empty (nested loops
    and a sort on disk, 0.4 s on PostgreSQL). It gives whether it did."""
    if rows >= ANALYZE_FROM and rows * 10 >= planned_rows(connection, table):
        analyze(connection, table.name)
        return True
    return False


def planned_rows(connection: Connection, table: Table) -> float:
    """How many rows the planner's statistics say ``table`` holds: 0 without statistics."""
    if connection.dialect.name == "postgresql":
        held = connection.execute(
            text("SELECT reltuples FROM pg_class WHERE oid = to_regclass(:name)"),
            {"name": table.fullname},
        ).scalar()
        return max(float(held or 0), 0.0)
    if (
        connection.exec_driver_sql(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sqlite_stat1'"
        ).first()
        is None
    ):
        return 0.0
    stat = connection.exec_driver_sql(
        "SELECT stat FROM sqlite_stat1 WHERE tbl = ? LIMIT 1", (table.name,)
    ).scalar()
    return float(str(stat).split()[0]) if stat else 0.0


def analyze(connection: Connection, table: str, rows: int | None = None) -> None:
    """Refresh the planner's statistics of ``table`` after a bulk write. Without them PostgreSQL
    planned the next month's small range reads and deletes on a freshly loaded ten-million-row
    table as whole-table scans; SQLite samples (``analysis_limit``) so this stays cheap. Inside
    a command's large write on PostgreSQL it is left to a process of its own after the commit
    (``storage.statistics``), unless ``rows``, what the table holds when the caller knows it,
    are few."""
    if statistics.deferred(connection, table, rows):
        return
    if connection.dialect.name == "sqlite":
        connection.exec_driver_sql(f"PRAGMA analysis_limit = {SQLITE_ANALYSIS_ROWS}")
    connection.exec_driver_sql(f"ANALYZE {table}")
