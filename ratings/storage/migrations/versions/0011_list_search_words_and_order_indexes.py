"""The site's search by the start of each word of a name, and an index for each order a page offers.

A search for part of a name (``LIKE '%holler%'``) read every entry of a million-player list, and
ordering a page by name or games sorted all of them. Each entry's words
(``ratings.names.search_words``) go into ``list_words`` with the entry's ranks, whose key makes
a search for the start of a word a range, answered in rank order from the words alone; the orders get indexes, partial ones for the active players. Lists published
before this revision get their words (and the folded names 0008 left empty) here.

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-23
"""

import sqlalchemy as sa
from alembic import op

from ratings.names import alphabetical_expr, search_words_expr

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

ACTIVE = sa.text("rank IS NOT NULL")
WORD = sa.String(200).with_variant(sa.String(200, collation="C"), "postgresql")
ORDERS = {
    "name": ["list_id", "name_key", "player_id"],
    "games": ["list_id", "games", "player_id"],
}
"""Each order's index over everyone, and a partial one over the active players."""
CHUNK = 50_000


def _fill_words(connection: sa.Connection) -> None:
    import polars as pl

    entries = sa.table(
        "list_entries",
        sa.column("list_id", sa.Integer),
        sa.column("player_id", sa.Integer),
        sa.column("name", sa.String),
        sa.column("name_key", sa.String),
        sa.column("rank", sa.Integer),
        sa.column("rank_all", sa.Integer),
    )
    words = sa.table(
        "list_words",
        sa.column("list_id", sa.Integer),
        sa.column("word", sa.String),
        sa.column("player_id", sa.Integer),
        sa.column("rank", sa.Integer),
        sa.column("rank_all", sa.Integer),
    )
    list_ids = connection.execute(sa.select(entries.c.list_id).distinct()).scalars().all()
    for list_id in list_ids:
        last = -1
        while True:
            rows = connection.execute(
                sa.select(
                    entries.c.player_id,
                    entries.c.name,
                    entries.c.name_key,
                    entries.c.rank,
                    entries.c.rank_all,
                )
                .where(entries.c.list_id == list_id, entries.c.player_id > last)
                .order_by(entries.c.player_id)
                .limit(CHUNK)
            ).all()
            if not rows:
                break
            last = rows[-1][0]
            frame = pl.DataFrame(
                rows,
                schema={
                    "player_id": pl.Int64,
                    "name": pl.String,
                    "name_key": pl.String,
                    "rank": pl.Int64,
                    "rank_all": pl.Int64,
                },
                orient="row",
            )
            found = (
                frame.select(
                    "player_id",
                    search_words_expr("name").str.split(" ").alias("word"),
                    "rank",
                    "rank_all",
                )
                .explode("word")
                .drop_nulls("word")
                .unique()
                .sort("word", "player_id")
            )
            connection.execute(
                words.insert(),
                [{"list_id": list_id, **row} for row in found.to_dicts()],
            )
            unfolded = frame.filter(pl.col("name_key").is_null()).select(
                "player_id", alphabetical_expr("name").alias("key")
            )
            if unfolded.height:
                connection.execute(
                    entries.update()
                    .where(
                        entries.c.list_id == list_id,
                        entries.c.player_id == sa.bindparam("id"),
                    )
                    .values(name_key=sa.bindparam("key")),
                    [{"id": r["player_id"], "key": r["key"]} for r in unfolded.to_dicts()],
                )


def upgrade() -> None:
    op.create_table(
        "list_words",
        sa.Column("list_id", sa.Integer, nullable=False),
        sa.Column("word", WORD, nullable=False),
        sa.Column("player_id", sa.Integer, nullable=False),
        sa.Column("rank", sa.Integer),
        sa.Column("rank_all", sa.Integer),
        sa.PrimaryKeyConstraint("list_id", "word", "player_id", name="pk_list_words"),
        sqlite_with_rowid=False,
    )
    _fill_words(op.get_bind())
    op.drop_index("ix_list_entries_name_key", "list_entries")
    op.create_index("ix_list_entries_federation_id", "list_entries", ["list_id", "federation_id"])
    op.create_index(
        "ix_list_entries_country_active",
        "list_entries",
        ["list_id", "country", "rank"],
        postgresql_where=ACTIVE,
        sqlite_where=ACTIVE,
    )
    for order, columns in ORDERS.items():
        op.create_index(f"ix_list_entries_{order}", "list_entries", columns)
        op.create_index(
            f"ix_list_entries_{order}_active",
            "list_entries",
            columns,
            postgresql_where=ACTIVE,
            sqlite_where=ACTIVE,
        )


def downgrade() -> None:
    for order in ORDERS:
        op.drop_index(f"ix_list_entries_{order}_active", "list_entries")
        op.drop_index(f"ix_list_entries_{order}", "list_entries")
    op.drop_index("ix_list_entries_country_active", "list_entries")
    op.drop_index("ix_list_entries_federation_id", "list_entries")
    op.create_index("ix_list_entries_name_key", "list_entries", ["list_id", "name_key"])
    op.drop_table("list_words")
