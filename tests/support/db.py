"""Helpers for asserting on database contents."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select
from sqlalchemy.engine import Engine

from ratings.storage.database import open_engine
from ratings.storage.schema import metadata


def created(url: str) -> str:
    """``url``, its database created as ``ratings db upgrade`` creates it: every other command
    refuses a SQLite file that does not exist."""
    open_engine(url).dispose()
    return url


def counts(engine: Engine, *tables: str) -> dict[str, int]:
    """The rows of each of ``tables``, counted: a cheaper check than :func:`snapshot` that
    nothing was written."""
    with engine.connect() as connection:
        return {
            name: connection.execute(
                select(func.count()).select_from(metadata.tables[name])
            ).scalar_one()
            for name in tables
        }


def snapshot(engine: Engine) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table, sorted, for before/after comparisons."""
    tables: dict[str, list[tuple[Any, ...]]] = {}
    with engine.connect() as connection:
        for table in metadata.sorted_tables:
            rows = connection.execute(select(table)).all()
            tables[table.name] = sorted((tuple(r) for r in rows), key=repr)
    return tables
