"""On PostgreSQL, each list is a table of its own and its indexes no longer start with the list;
the texts a page is ordered by compare by code point.

Every partition of ``list_entries`` holds one list (revision 0014 made the lists published
before it one partition of all of them: they are split here, one table per list). The list in
each key of a partition's index only made every key longer and every comparison of an index
build one column longer: the seven indexes of a million-entry list took 7.7 processor seconds to
build with it, 5.2 without it and with code-point order. Each index carries the list without
comparing it (``INCLUDE``), so that a query naming its list is answered from the index alone.

The country, title and alphabetical name of an entry compare by code point (collation ``C``), as
SQLite compares them: under a language's collation PostgreSQL ordered names by other rules than
SQLite (spaces and punctuation left out at first), so a page by name differed between them.

SQLite keeps every list in one table: nothing changes there.

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-24
"""

from alembic import op
from sqlalchemy import text

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None

PARTS = "list_parts"
ORDERS = {
    "country": ("country, rank_all, rank", ""),
    "games": ("games, player_id, rank", ""),
    "name": ("name_key, player_id, rank", ""),
    "name_id": ("name_id, rank, rank_all, player_id", ""),
    "rank": ("rank", ""),
    "rank_all": ("rank_all", ""),
    "title": ("title", " WHERE title IS NOT NULL"),
}
"""Each order's index: its columns after the list (before this revision the list came first)
and which entries it holds."""
TEXTS = {"country": 16, "title": 16, "name_key": 200}
"""The texts a page is ordered by, and their lengths."""


def _drop_indexes() -> None:
    for name in ORDERS:
        op.execute(f"DROP INDEX ix_list_entries_{name}")


def _collate(collation: str) -> None:
    for column, length in TEXTS.items():
        op.execute(
            f"ALTER TABLE list_entries ALTER COLUMN {column}"
            f' TYPE VARCHAR({length}) COLLATE "{collation}"'
        )


def _partitions() -> list[str]:
    rows = op.get_bind().execute(
        text(
            "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid"
            " WHERE i.inhparent = 'list_entries'::regclass ORDER BY 1"
        )
    )
    return [str(name) for name in rows.scalars()]


def _split(part: str) -> None:
    """Give each list of the partition ``part`` a table of its own, in its order."""
    ids = (
        op.get_bind()
        .execute(text(f"SELECT DISTINCT list_id FROM {PARTS}.{part} ORDER BY 1"))
        .scalars()
        .all()
    )
    if len(ids) < 2:
        return
    op.execute(f"ALTER TABLE list_entries DETACH PARTITION {PARTS}.{part}")
    for list_id in (int(i) for i in ids):
        table = f"{PARTS}.entries_{list_id}"
        op.execute(f"CREATE TABLE {table} (LIKE list_entries INCLUDING DEFAULTS)")
        op.execute(
            f"INSERT INTO {table} SELECT * FROM {PARTS}.{part} WHERE list_id = {list_id}"
            " ORDER BY rank_all, player_id"
        )
        op.execute(
            f"ALTER TABLE {table} ADD CONSTRAINT entries_{list_id}_key"
            " PRIMARY KEY (list_id, player_id)"
        )
        op.execute(f"ALTER TABLE list_entries ATTACH PARTITION {table} FOR VALUES IN ({list_id})")
    op.execute(f"DROP TABLE {PARTS}.{part}")


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    _drop_indexes()
    _collate("C")
    for part in _partitions():
        _split(part)
    parts = _partitions()
    # Each partition's index first, named after it as publishing names them; the parent's index
    # then takes them instead of building its own.
    for part in parts:
        for name, (columns, where) in ORDERS.items():
            op.execute(
                f"CREATE INDEX {part}_{name} ON {PARTS}.{part} ({columns}) INCLUDE (list_id){where}"
            )
    for name, (columns, where) in ORDERS.items():
        op.execute(
            f"CREATE INDEX ix_list_entries_{name} ON list_entries ({columns}) INCLUDE (list_id)"
            f"{where}"
        )
    for part in parts:
        op.execute(f"ANALYZE {PARTS}.{part}")


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    _drop_indexes()
    _collate("default")
    # The lists stay one table each: revision 0014 reads any partitions alike.
    for name, (columns, where) in ORDERS.items():
        op.execute(
            f"CREATE INDEX ix_list_entries_{name} ON list_entries (list_id, {columns}){where}"
        )
