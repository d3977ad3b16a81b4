"""A published list's own table on PostgreSQL: each list's entries are written into a table of
their own (in the schema ``LIST_PARTITIONS``), given their key and every index after the rows,
and attached under ``list_entries`` as its partition."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Column, MetaData, Select, Table, insert
from sqlalchemy.engine import Connection

from ratings.storage.bulk import INDEX_BUILD_MEMORY, analyze
from ratings.storage.schema import LIST_PARTITIONS, declared_on, list_entries

_STATEMENT_MEMORY = "256MB"
"""What the statement building a list may sort and hash in on PostgreSQL (this transaction only):
with the default 4 MB its sorts of a million entries went to disk."""


def new_partition(connection: Connection, list_id: int) -> Table:
    """Create the empty table of a list's entries on PostgreSQL, shaped as ``list_entries``, for
    its rows to be written into before :func:`finish_partition`."""
    connection.exec_driver_sql(
        f"CREATE TABLE {partition_table(list_id)} (LIKE list_entries INCLUDING DEFAULTS)"
    )
    return Table(
        f"entries_{int(list_id)}",
        MetaData(),
        *(Column(c.name, c.type) for c in list_entries.columns),
        schema=LIST_PARTITIONS,
    )


def partition_table(list_id: int) -> str:
    """The qualified name of list ``list_id``'s own table."""
    return f"{LIST_PARTITIONS}.entries_{int(list_id)}"


def finish_partition(connection: Connection, list_id: int, entries: int | None = None) -> None:
    """Build a filled partition's key and indexes and attach it under ``list_entries``;
    ``entries``, when known, are how many it holds."""
    index_partition(connection, list_id)
    attach(connection, list_id, entries)


def filled_partition(
    connection: Connection, list_id: int, columns: list[str], rows: Select[Any]
) -> int:
    """On PostgreSQL: write a list's entries (``rows``, into ``columns``) into a table of its
    own, to be given its key and indexes after the rows (one sorted pass each) and attached
    under ``list_entries`` by :func:`finish_partition`. Inserting a million entries into the nine
    indexes over the lists before was a random B-tree write for each entry and index, through a
    buffer pool smaller than those indexes; attaching takes no lock that stops the site reading
    the lists published before. It gives how many entries it wrote."""
    part = new_partition(connection, list_id)
    connection.exec_driver_sql(f"SET LOCAL work_mem = '{_STATEMENT_MEMORY}'")
    # A one-off statement: compiling it to machine code cost more than it saved.
    connection.exec_driver_sql("SET LOCAL jit = off")
    written = connection.execute(insert(part).from_select(columns, rows)).rowcount
    connection.exec_driver_sql("SET LOCAL work_mem = DEFAULT")
    connection.exec_driver_sql("SET LOCAL jit = DEFAULT")
    return int(written)


def index_partition(connection: Connection, list_id: int) -> None:
    """Build the key and every index of ``list_entries`` on a list's partition, named after it;
    attaching finds them equal to the parent's and takes them instead of building its own."""
    name = partition_table(list_id)
    short = f"entries_{int(list_id)}"
    connection.exec_driver_sql(f"SET LOCAL maintenance_work_mem = '{INDEX_BUILD_MEMORY}'")
    key = ", ".join(c.name for c in list_entries.primary_key.columns)
    connection.exec_driver_sql(f"ALTER TABLE {name} ADD CONSTRAINT {short}_key PRIMARY KEY ({key})")
    for statement in order_indexes(name, short, "postgresql"):
        connection.exec_driver_sql(statement)
    connection.exec_driver_sql("SET LOCAL maintenance_work_mem = DEFAULT")


def order_indexes(table: str, prefix: str, dialect: str) -> list[str]:
    """The statements building, on ``table`` (a table shaped as ``list_entries``), each index of
    ``list_entries`` declared on ``dialect``, named ``<prefix>_<order>``."""
    statements = []
    declared = (i for i in list_entries.indexes if declared_on(i, dialect))
    for index in sorted(declared, key=lambda i: str(i.name)):
        suffix = str(index.name).removeprefix("ix_list_entries_")
        options = index.dialect_options[dialect]
        sql = (
            f"CREATE INDEX {prefix}_{suffix} ON {table}"
            f" ({', '.join(c.name for c in index.columns)})"
        )
        if options.get("include"):
            sql += f" INCLUDE ({', '.join(options['include'])})"
        if options.get("where") is not None:
            sql += f" WHERE {options['where']}"
        statements.append(sql)
    return statements


def attach(connection: Connection, list_id: int, entries: int | None = None) -> None:
    connection.exec_driver_sql(
        f"ALTER TABLE list_entries ATTACH PARTITION {partition_table(list_id)}"
        f" FOR VALUES IN ({int(list_id)})"
    )
    # The site's pages are planned from the partition's statistics (a command's large list has
    # them taken after its commit: ``storage.statistics``).
    analyze(connection, partition_table(list_id), entries)
