"""Bulk writes through each database's fastest path.

SQLite gets one prepared ``INSERT`` run by the driver's ``executemany``; PostgreSQL gets ``COPY``.
Both run inside the caller's transaction.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import Table, bindparam
from sqlalchemy.engine import Connection

BATCH = 100_000


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


def update_by_id(
    connection: Connection,
    table: Table,
    columns: Sequence[str],
    rows: Sequence[Sequence[Any]],
) -> None:
    """Set ``columns`` of many rows at once; each row is ``(id, value, value, ...)``."""
    if not rows:
        return
    dialect = connection.dialect.name
    assignments = ", ".join(f"{c} = ?" for c in columns)
    if dialect == "postgresql":
        temp = f"_update_{table.name}"
        source_types = ", ".join(
            f"{c} {table.c[c].type.compile(dialect=connection.dialect)}" for c in columns
        )
        connection.exec_driver_sql(
            f"CREATE TEMPORARY TABLE {temp} (id integer PRIMARY KEY, {source_types}) ON COMMIT DROP"
        )
        raw = connection.connection.driver_connection
        names = ", ".join(["id", *columns])
        with raw.cursor() as cursor, cursor.copy(f"COPY {temp} ({names}) FROM STDIN") as copy:  # type: ignore[union-attr]
            for row in rows:
                copy.write_row(row)
        sets = ", ".join(f"{c} = {temp}.{c}" for c in columns)
        connection.exec_driver_sql(
            f"UPDATE {table.name} SET {sets} FROM {temp} WHERE {table.name}.id = {temp}.id"
        )
        connection.exec_driver_sql(f"DROP TABLE {temp}")
        return
    raw = connection.connection.driver_connection
    if dialect == "sqlite" and raw is not None:
        cursor = raw.cursor()
        try:
            cursor.executemany(
                f"UPDATE {table.name} SET {assignments} WHERE id = ?",
                [(*row[1:], row[0]) for row in rows],
            )
        finally:
            cursor.close()
        return
    statement = (
        table.update()
        .where(table.c.id == bindparam("v_id"))
        .values({c: bindparam(f"v_{c}") for c in columns})
    )
    connection.execute(
        statement,
        [
            {"v_id": row[0], **{f"v_{c}": v for c, v in zip(columns, row[1:], strict=True)}}
            for row in rows
        ],
    )
