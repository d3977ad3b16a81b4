"""Bulk writes through each database's fastest path.

SQLite gets one prepared ``INSERT`` run by the driver's ``executemany``; PostgreSQL gets ``COPY``,
fed a CSV buffer that polars writes in native code when the rows come as a frame. Both run inside
the caller's transaction; a large write drops and rebuilds the table's secondary indexes around
it (:mod:`.indexes`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import Any

import polars as pl
from sqlalchemy import Column, MetaData, Table, func, select
from sqlalchemy.engine import Connection

from ratings.storage.bulk import indexes
from ratings.storage.bulk.rows_file import insert_attached, rows_file_usable

BATCH = 100_000

ROWS_FILE_FROM = 30_000
"""Rows from which a write into one of SQLite's own tables (``insert_frame(..., main=True)``:
players, tournaments) goes through a rows file (:func:`.rows_file.insert_attached`) rather
than the driver's ``executemany``. Python's rows cost the job's thread its interpreter lock,
which a large import's own thread making the results' rows file needs too: the medium history's
46,688 players took 0.32 s that way and 0.19 s through a rows file, its 44,610 tournaments 0.28
and 0.18 s, and its whole import 0.970 of its time (eight pairs). In a process that has not yet
loaded ADBC's driver and pyarrow (0.1 s), tournaments' rows through the driver took 0.15 s for
20,000 and 0.36 s for 44,000, through a rows file 0.17 and 0.23 s."""

COPY_CHUNK = 100_000
"""Rows per CSV buffer handed to PostgreSQL's COPY, to bound the buffer's memory (and to let
the server store one while the next is made)."""


def insert_frame(
    connection: Connection,
    table: Table,
    frame: pl.DataFrame,
    *,
    rebuild: bool = True,
    main: bool = False,
) -> None:
    """Insert every row of ``frame`` into ``table`` (columns named as the table's), and analyse
    the table when the write grew it much (``indexes.analyze_if_grown``); with
    ``rebuild=False`` the indexes and statistics are left as they are (a caller writing slices
    of one large write drops and rebuilds them around all of it). ``main``: ``table`` is one of the
    database's own tables (not a temporary one), which a large write on SQLite may reach
    through a rows file (:func:`.rows_file.insert_attached`)."""
    if frame.height == 0:
        return
    frame = _as_text_times(frame)
    around: AbstractContextManager[bool] = (
        indexes.indexes_rebuilt(connection, table, frame.height) if rebuild else nullcontext(True)
    )
    with around as rebuilt:
        _insert(connection, table, frame, main=main)
    if not rebuilt:
        # Rebuilt indexes come with fresh statistics; a caller writing slices analyses after all.
        indexes.analyze_if_grown(connection, table, frame.height)


def _insert(connection: Connection, table: Table, frame: pl.DataFrame, *, main: bool) -> None:
    if connection.dialect.name != "postgresql":
        if (
            main
            and frame.height >= ROWS_FILE_FROM
            and rows_file_usable(connection, list(frame.schema.dtypes()))
        ):
            # Python rows through the driver cost far more than Arrow columns through
            # ADBC and one INSERT ... SELECT, from some tens of thousands (ROWS_FILE_FROM).
            insert_attached(connection, table, frame)
            return
        insert_rows(connection, table, frame.columns, frame.iter_rows())
        return
    with copy_writer(connection, table, frame.columns) as write:
        write(frame)


@contextmanager
def copy_writer(
    connection: Connection, table: Table, columns: Sequence[str]
) -> Iterator[Callable[[pl.DataFrame], None]]:
    """PostgreSQL's ``COPY`` into ``columns`` of ``table``, open for the length of the block:
    each frame given (columns in that order) is written as CSV in native code, a chunk at a
    time, and sent to the server by a thread of its own, so that the server stores one chunk
    while the next is made (and, for a write given in slices, while the next slice is made)."""
    from psycopg.copy import QueuedLibpqWriter

    raw = connection.connection.driver_connection
    names = ", ".join(columns)
    # In PostgreSQL's CSV format an unquoted empty field is NULL and a quoted one an empty
    # string: exactly how polars writes a null and an empty string.
    sql = f"COPY {table.fullname} ({names}) FROM STDIN WITH (FORMAT csv)"
    with (
        raw.cursor() as cursor,  # type: ignore[union-attr]
        cursor.copy(sql, writer=QueuedLibpqWriter(cursor)) as copy,
    ):

        def write(frame: pl.DataFrame) -> None:
            for start in range(0, frame.height, COPY_CHUNK):
                chunk = frame.slice(start, COPY_CHUNK)
                copy.write(chunk.write_csv(include_header=False, null_value=""))

        yield write


def insert_rows(
    connection: Connection, table: Table, columns: Sequence[str], rows: Iterable[Sequence[Any]]
) -> None:
    """Insert ``rows`` (tuples in the order of ``columns``) into ``table``."""
    dialect = connection.dialect.name
    if dialect == "postgresql":
        _copy(connection, table, columns, rows)
        return
    raw = connection.connection.driver_connection
    if dialect == "sqlite" and raw is not None:
        names = ", ".join(columns)
        marks = ", ".join("?" for _ in columns)
        sql = f"INSERT INTO {table.name} ({names}) VALUES ({marks})"
        cursor = raw.cursor()
        try:
            batch: list[Sequence[Any]] = []
            for row in rows:
                batch.append(row)
                if len(batch) >= BATCH:
                    cursor.executemany(sql, batch)
                    batch = []
            if batch:
                cursor.executemany(sql, batch)
        finally:
            cursor.close()
        return
    statement = table.insert()
    batch_dicts: list[dict[str, Any]] = []
    for row in rows:
        batch_dicts.append(dict(zip(columns, row, strict=True)))
        if len(batch_dicts) >= BATCH:
            connection.execute(statement, batch_dicts)
            batch_dicts = []
    if batch_dicts:
        connection.execute(statement, batch_dicts)


def _copy(
    connection: Connection, table: Table, columns: Sequence[str], rows: Iterable[Sequence[Any]]
) -> None:
    raw = connection.connection.driver_connection
    names = ", ".join(columns)
    with raw.cursor() as cursor, cursor.copy(f"COPY {table.name} ({names}) FROM STDIN") as copy:  # type: ignore[union-attr]
        for row in rows:
            copy.write_row(row)


def update_from_frame(
    connection: Connection,
    table: Table,
    frame: pl.DataFrame,
    *,
    where: str | None = None,
    analyse: bool = True,
) -> bool:
    """Set columns of ``table`` from ``frame`` (an ``id`` column and one column per value), in one
    ``UPDATE ... FROM`` a temporary table: one statement instead of one per row, which matters
    when a million players get a new rating. ``where`` may restrict it further (SQL in which the
    new values are ``src.<column>``). It gives whether the table was analysed after it
    (``indexes.analyze_if_grown``, unless the caller analyses it: ``analyse=False``)."""
    if frame.height == 0:
        return False
    columns = [c for c in frame.columns if c != "id"]
    temp = f"_src_{table.name}"
    types = ", ".join(f"{c} {table.c[c].type.compile(dialect=connection.dialect)}" for c in columns)
    connection.exec_driver_sql(f"CREATE TEMPORARY TABLE {temp} (id integer PRIMARY KEY, {types})")
    source = Table(temp, MetaData(), *(Column(c, table.c[c].type) for c in frame.columns))
    insert_frame(connection, source, frame.select("id", *columns), rebuild=False)
    if connection.dialect.name == "postgresql":
        # A temporary table has no statistics until analysed; PostgreSQL then guessed its size
        # and joined it to a million players by scanning them all.
        connection.exec_driver_sql(f"ANALYZE {temp}")
    sets = ", ".join(f"{c} = src.{c}" for c in columns)
    # Rows whose values stay as they are are not written again (on PostgreSQL every update
    # writes a new row version and its index entries).
    differs = "IS DISTINCT FROM" if connection.dialect.name == "postgresql" else "IS NOT"
    changed = " OR ".join(f"{table.name}.{c} {differs} src.{c}" for c in columns)
    condition = f" AND ({changed})" + (f" AND ({where})" if where else "")
    if connection.dialect.name == "sqlite":
        # The rows to change named by their ids: given only the join, SQLite read the whole
        # table and looked each row up in the temporary one, which it has no statistics of
        # (every one of a million players to set the ratings of the seventy thousand a month
        # rated).
        condition += f" AND {table.name}.id IN (SELECT id FROM {temp})"
    connection.exec_driver_sql(
        f"UPDATE {table.name} SET {sets} FROM {temp} AS src "
        f"WHERE {table.name}.id = src.id{condition}"
    )
    connection.exec_driver_sql(f"DROP TABLE {temp}")
    # Marking 400,000 tournaments rated left statistics that still called them pending, and
    # the next month's window ("pending or from position S") was planned as a scan of every
    # result.
    return analyse and indexes.analyze_if_grown(connection, table, frame.height)


def _as_text_times(frame: pl.DataFrame) -> pl.DataFrame:
    """Dates and times as the ISO text the drivers themselves write for Python values (sqlite3's
    adapters store ``date.isoformat()`` and ``datetime.isoformat(" ")``), so a row written from a
    frame is stored exactly as the same row written from Python objects, without a Python call
    per value: times are converted once per distinct value (a job stamps one time on all rows)."""
    changes = []
    for name, dtype in frame.schema.items():
        if dtype == pl.Date:
            changes.append(pl.col(name).cast(pl.String))
        elif isinstance(dtype, pl.Datetime):
            distinct = frame[name].drop_nulls().unique().to_list()
            text = {value: value.isoformat(" ") for value in distinct}
            changes.append(pl.col(name).replace_strict(text, default=None, return_dtype=pl.String))
    return frame.with_columns(changes) if changes else frame


def update_by_id(
    connection: Connection,
    table: Table,
    columns: Sequence[str],
    rows: Sequence[Sequence[Any]],
) -> None:
    """Set ``columns`` of many rows at once; each row is ``(id, value, value, ...)``."""
    if not rows:
        return
    frame = pl.DataFrame(
        [list(row) for row in rows], schema=["id", *columns], orient="row", infer_schema_length=None
    )
    update_from_frame(connection, table, frame)


RUN_FROM = 10_000
"""Ids from which :func:`reserve_ids` takes them on PostgreSQL as one run (:func:`_run`), which
holds the sequence until the transaction ends, rather than by a ``nextval`` each (0.04-0.07 s
each for a history's 46,688 players and 44,610 tournaments): only a job writes that many."""


def reserve_ids(connection: Connection, table: Table, count: int) -> pl.Series:
    """``count`` fresh values of ``table``'s ``id`` for rows the caller inserts with their ids
    given, so that a large write need not read its rows back to learn them: on PostgreSQL taken
    from the column's sequence (other writers never get them), on SQLite the ids after the
    largest (what SQLite would give; the job holds the database's only write lock)."""
    if count == 0:
        return pl.Series("id", [], dtype=pl.Int64)
    if connection.dialect.name == "postgresql":
        sequence = _serial_sequence(connection, table)
        first = _run(connection, sequence, count) if count >= RUN_FROM else None
        if first is not None:
            return pl.int_range(first, first + count, dtype=pl.Int64, eager=True).alias("id")
        # The server hands back each run of consecutive ids (one, unless another writer took
        # ids meanwhile) rather than every id: a million ids read back are slow.
        runs = connection.exec_driver_sql(
            "SELECT min(id), max(id) FROM (SELECT id, id - row_number() OVER (ORDER BY id) AS run"
            " FROM (SELECT nextval(%(sequence)s) AS id FROM generate_series(1, %(count)s)) AS taken"
            ") AS numbered GROUP BY run ORDER BY 1",
            {"sequence": sequence, "count": count},
        ).all()
        return pl.concat(
            [pl.int_range(low, high + 1, dtype=pl.Int64, eager=True) for low, high in runs]
        ).alias("id")
    largest = connection.execute(select(func.max(table.c.id))).scalar_one()
    start = int(largest or 0) + 1
    return pl.int_range(start, start + count, dtype=pl.Int64, eager=True).alias("id")


def _serial_sequence(connection: Connection, table: Table) -> str:
    """PostgreSQL: the sequence behind ``table``'s ``id``."""
    return str(
        connection.execute(select(func.pg_get_serial_sequence(table.name, "id"))).scalar_one()
    )


def _run(connection: Connection, sequence: str, count: int) -> int | None:
    """PostgreSQL: the first of ``count`` consecutive fresh values of ``sequence``, taken in one
    step (None where the sequence does not count by one). ``ALTER SEQUENCE`` holds the sequence
    against every other writer's ``nextval`` until the transaction ends, and makes its changes
    part of the transaction: a rollback gives back the step and the ids taken."""
    step = connection.exec_driver_sql(
        "SELECT seqincrement FROM pg_sequence WHERE seqrelid = CAST(%(sequence)s AS regclass)",
        {"sequence": sequence},
    ).scalar_one()
    if step != 1:
        return None
    connection.exec_driver_sql(f"ALTER SEQUENCE {sequence} INCREMENT BY {int(count)}")
    last, called = connection.exec_driver_sql(f"SELECT last_value, is_called FROM {sequence}").one()
    if called:
        taken = connection.exec_driver_sql(
            "SELECT nextval(%(sequence)s)", {"sequence": sequence}
        ).scalar_one()
        first = int(taken) - (count - 1)
    else:
        # A sequence never used gives its first value next: the run starts there.
        first = int(last)
        connection.exec_driver_sql(
            "SELECT setval(%(sequence)s, %(last)s, true)",
            {"sequence": sequence, "last": first + count - 1},
        )
    connection.exec_driver_sql(f"ALTER SEQUENCE {sequence} INCREMENT BY 1")
    return first
