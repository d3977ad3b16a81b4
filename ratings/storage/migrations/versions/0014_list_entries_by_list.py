"""On PostgreSQL, ``list_entries`` is partitioned by list: one table per list under it.

A new list of a million entries went into the nine indexes of the table that already held the
lists before it: millions of random B-tree insertions over indexes larger than the buffer pool.
Each list now gets a table of its own (in the schema ``list_parts``, so that the public schema
holds the tables the code declares), written whole, its key and indexes built after the rows in
one sorted pass each, then attached under ``list_entries``; queries read ``list_entries`` and
PostgreSQL reads only the partition of the list asked for. The lists published before this
revision stay in their table, attached as one partition holding all of their ids.

SQLite has no partitions: nothing changes there.

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-24
"""

from alembic import op
from sqlalchemy import text

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None

PARTS = "list_parts"
INDEXES = {
    "ix_list_entries_country": "(list_id, country, rank_all, rank)",
    "ix_list_entries_federation_id": "(list_id, federation_id)",
    "ix_list_entries_games": "(list_id, games, player_id, rank)",
    "ix_list_entries_name": "(list_id, name_key, player_id, rank)",
    "ix_list_entries_name_id": "(list_id, name_id, rank, rank_all, player_id)",
    "ix_list_entries_rank": "(list_id, rank)",
    "ix_list_entries_rank_all": "(list_id, rank_all)",
    "ix_list_entries_title": "(list_id, title) WHERE title IS NOT NULL",
}
"""The indexes of ``list_entries`` as revision 0012 left them."""


def _create_indexes() -> None:
    for name, columns in INDEXES.items():
        op.execute(f"CREATE INDEX {name} ON list_entries {columns}")


def upgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name != "postgresql":
        return
    ids = bind.execute(text("SELECT DISTINCT list_id FROM list_entries ORDER BY 1")).scalars().all()
    op.execute(f"CREATE SCHEMA IF NOT EXISTS {PARTS}")
    # The table with its rows and indexes moves aside whole (its index names go with it into the
    # other schema) and becomes the first partition: no row is copied.
    op.execute(f"ALTER TABLE list_entries SET SCHEMA {PARTS}")
    op.execute(f"ALTER TABLE {PARTS}.list_entries RENAME TO entries_before")
    op.execute(
        f"CREATE TABLE list_entries (LIKE {PARTS}.entries_before INCLUDING DEFAULTS,"
        " CONSTRAINT pk_list_entries PRIMARY KEY (list_id, player_id))"
        " PARTITION BY LIST (list_id)"
    )
    _create_indexes()
    if ids:
        # Its indexes match the new table's, so they are attached, not built again.
        values = ", ".join(str(int(i)) for i in ids)
        op.execute(
            f"ALTER TABLE list_entries ATTACH PARTITION {PARTS}.entries_before"
            f" FOR VALUES IN ({values})"
        )
        op.execute("ANALYZE list_entries")
    else:
        op.execute(f"DROP TABLE {PARTS}.entries_before")


def downgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name != "postgresql":
        return
    op.execute("CREATE TABLE list_entries_whole (LIKE list_entries INCLUDING DEFAULTS)")
    op.execute("INSERT INTO list_entries_whole SELECT * FROM list_entries")
    op.execute("DROP TABLE list_entries")
    op.execute("ALTER TABLE list_entries_whole RENAME TO list_entries")
    op.execute(
        "ALTER TABLE list_entries ADD CONSTRAINT pk_list_entries PRIMARY KEY (list_id, player_id)"
    )
    _create_indexes()
    op.execute(f"DROP SCHEMA IF EXISTS {PARTS} CASCADE")
