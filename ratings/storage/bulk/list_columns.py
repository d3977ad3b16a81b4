"""A published list's entries as its files show them, read as Arrow columns.

The publish folder reads a list once, a million entries at federation scale: through the job's
driver every value becomes a Python object, a large share of the folder's processor time at
that size. From :data:`COLUMNAR_FROM` entries the read goes through a second connection that
hands the rows over as Arrow columns (:func:`.columnar.reader`: ADBC on PostgreSQL, ADBC's SQLite
driver in a process of its own on SQLite). A published list's entries never change, so any
connection reading them after the list was committed reads the same rows; the caller reads a
list its own transaction has not written, or one already committed.

ADBC's SQLite driver types each column from its first rows and refuses a text where it has seen
none, so on SQLite a column that may hold nulls between its texts comes as its text with empty
text for null, beside whether it is null, and is put back together here.
"""

from __future__ import annotations

from typing import Any

import polars as pl
from sqlalchemy import ColumnElement, func, select
from sqlalchemy.engine import Connection

from ratings.storage.bulk import columnar
from ratings.storage.frames import read_frame
from ratings.storage.schema import list_entries

COLUMNAR_FROM = 100_000
"""Entries from which a list is read through a second connection: below it the driver's Python
objects cost less than starting the second connection (a process of its own on SQLite)."""

SHOWN_SCHEMA = {
    "federation_id": pl.String, "name": pl.String, "country": pl.String, "rating": pl.Int64,
    "games": pl.Int64, "tournaments": pl.Int64, "last_played": pl.Date, "active": pl.Boolean,
    "previous_rating": pl.Int64,
}  # fmt: skip
"""The columns of a list's entries its files show (``frames.ENTRY_SCHEMA`` but the player's
database id and title), in that schema's names and types."""

_SPLIT = ("country", "last_played")
"""The columns SQLite's columnar read takes as text and whether it is null."""


def shown_entries(connection: Connection, list_id: int, *, size: int) -> pl.DataFrame:
    """The entries of list ``list_id`` (``size`` of them, as the list records) in
    :data:`SHOWN_SCHEMA`; the same frame whichever way they are read."""
    e = list_entries.c
    columns: list[ColumnElement[Any]] = [
        e.federation_id, e.name, e.country, e.rating, e.games, e.tournaments,
        e.last_played, e.active, e.previous_rating,
    ]  # fmt: skip
    if size < COLUMNAR_FROM:
        return read_frame(connection, select(*columns).where(e.list_id == list_id), SHOWN_SCHEMA)
    sqlite = connection.dialect.name == "sqlite"
    wire: dict[str, Any] = {}
    selected: list[ColumnElement[Any]] = []
    for column in columns:
        if sqlite and column.name in _SPLIT:
            selected += [
                func.coalesce(column, "").label(column.name),
                column.is_(None).label(f"{column.name}_null"),
            ]
            wire |= {column.name: pl.String, f"{column.name}_null": pl.Boolean}
        else:
            selected.append(column)
            wire[column.name] = SHOWN_SCHEMA[column.name]
    query = select(*selected).where(e.list_id == list_id)
    with columnar.reader(connection, fast=True) as reader:
        frame = reader.read(query, wire)
    return _joined(frame) if sqlite else frame


def _joined(frame: pl.DataFrame) -> pl.DataFrame:
    """SQLite's split columns put back: null where the read said so, dates from their text."""
    restored = []
    for name in _SPLIT:
        value: pl.Expr = pl.when(~pl.col(f"{name}_null")).then(pl.col(name))
        if SHOWN_SCHEMA[name] == pl.Date:
            value = value.str.to_date("%Y-%m-%d")
        restored.append(value.alias(name))
    return frame.with_columns(restored).select(
        pl.col(name).cast(dtype) for name, dtype in SHOWN_SCHEMA.items()
    )
