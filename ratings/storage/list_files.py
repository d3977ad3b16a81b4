"""What a published list's files read of it: its entries as the files show them, read once per
list; a list of a federation's size as Arrow columns (:mod:`.bulk.list_columns`)."""

from __future__ import annotations

import polars as pl
from sqlalchemy.engine import Connection

from ratings.storage.bulk import list_columns


def shown_entries(connection: Connection, list_id: int, *, size: int) -> pl.DataFrame:
    """The entries of list ``list_id`` (``size`` of them, as the list records) as its files show
    them (:data:`.bulk.list_columns.SHOWN_SCHEMA`), the same frame whichever way they are read."""
    return list_columns.shown_entries(connection, list_id, size=size)
