"""A published name's forms and search words stored once per name, not once per list entry.

``list_words`` held each entry of every list once per word of its name, with its ranks: several
million rows written for each list of a million players, although the words are a function of the
name alone. ``list_names`` holds every name a list has printed (with its alphabetical form) and
``name_words`` its words; an entry points at its name (``list_entries.name_id``), and the site's
search reads the words' range, then the list's entries of those names through a (list, name)
index. The names of the lists published before this revision are stored here.

Each index of ``list_entries`` is a copy of every list, written with each list: the partial
indexes over the active players go (the full ones carry the rank to skip the inactive in the
index), and the title's index holds only the titled players.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-24
"""

import sqlalchemy as sa
from alembic import op

from ratings.names import page_forms

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

WORD = sa.String(200).with_variant(sa.String(200, collation="C"), "postgresql")
NAME_INDEX = ["list_id", "name_id", "rank", "rank_all", "player_id"]
ACTIVE = sa.text("rank IS NOT NULL")
TITLED = sa.text("title IS NOT NULL")
ORDERS = {
    "country": (["list_id", "country", "rank_all"], ["list_id", "country", "rank_all", "rank"]),
    "name": (["list_id", "name_key", "player_id"], ["list_id", "name_key", "player_id", "rank"]),
    "games": (["list_id", "games", "player_id"], ["list_id", "games", "player_id", "rank"]),
}
"""Each order's index before this revision and after it."""
ACTIVE_ORDERS = {
    "name": ["list_id", "name_key", "player_id"],
    "games": ["list_id", "games", "player_id"],
    "country": ["list_id", "country", "rank"],
}
"""The partial indexes over the active players before this revision."""

entries = sa.table(
    "list_entries",
    sa.column("list_id", sa.Integer),
    sa.column("player_id", sa.Integer),
    sa.column("name", sa.String),
    sa.column("name_id", sa.Integer),
    sa.column("rank", sa.Integer),
    sa.column("rank_all", sa.Integer),
)
names = sa.table(
    "list_names",
    sa.column("id", sa.Integer),
    sa.column("name", sa.String),
    sa.column("name_key", sa.String),
)
words = sa.table("name_words", sa.column("word", sa.String), sa.column("name_id", sa.Integer))
list_words = sa.table(
    "list_words",
    sa.column("list_id", sa.Integer),
    sa.column("word", sa.String),
    sa.column("player_id", sa.Integer),
    sa.column("rank", sa.Integer),
    sa.column("rank_all", sa.Integer),
)


def _store_names(connection: sa.Connection) -> None:
    import polars as pl

    printed = connection.execute(sa.select(entries.c.name).distinct()).scalars().all()
    if not printed:
        return
    series = pl.Series("name", printed, dtype=pl.String).sort()
    forms = page_forms(series)
    stored = pl.DataFrame(
        {
            "id": pl.int_range(1, series.len() + 1, dtype=pl.Int64, eager=True),
            "name": series,
            "name_key": forms.get_column("alphabetical"),
        }
    )
    connection.execute(names.insert(), stored.to_dicts())
    found = (
        stored.select(forms.get_column("words").str.split(" ").alias("word"), "id")
        .explode("word")
        .filter(pl.col("word").is_not_null() & (pl.col("word") != ""))
        .unique()
        .sort("word", "id")
    )
    connection.execute(
        words.insert(), [{"word": w, "name_id": i} for w, i in found.iter_rows()]
    )
    connection.execute(
        entries.update().values(
            name_id=sa.select(names.c.id).where(names.c.name == entries.c.name).scalar_subquery()
        )
    )


def upgrade() -> None:
    op.create_table(
        "list_names",
        sa.Column("id", sa.Integer, nullable=False, autoincrement=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("name_key", sa.String(200), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_list_names"),
        sa.UniqueConstraint("name", name="uq_list_names_name"),
    )
    op.create_table(
        "name_words",
        sa.Column("word", WORD, nullable=False),
        sa.Column("name_id", sa.Integer, nullable=False, autoincrement=False),
        sa.PrimaryKeyConstraint("word", "name_id", name="pk_name_words"),
        sqlite_with_rowid=False,
    )
    op.add_column("list_entries", sa.Column("name_id", sa.Integer))
    _store_names(op.get_bind())
    op.create_index("ix_list_entries_name_id", "list_entries", NAME_INDEX)
    op.drop_table("list_words")
    _indexes(active=False)


def _indexes(*, active: bool) -> None:
    """The order indexes as this revision has them (``active`` False) or as before it."""
    for order, columns in ACTIVE_ORDERS.items():
        if active:
            op.create_index(
                f"ix_list_entries_{order}_active",
                "list_entries",
                columns,
                postgresql_where=ACTIVE,
                sqlite_where=ACTIVE,
            )
        else:
            op.drop_index(f"ix_list_entries_{order}_active", "list_entries")
    for order, (before, after) in ORDERS.items():
        op.drop_index(f"ix_list_entries_{order}", "list_entries")
        op.create_index(f"ix_list_entries_{order}", "list_entries", before if active else after)
    op.drop_index("ix_list_entries_title", "list_entries")
    if active:
        op.create_index("ix_list_entries_title", "list_entries", ["list_id", "title"])
    else:
        op.create_index(
            "ix_list_entries_title",
            "list_entries",
            ["list_id", "title"],
            postgresql_where=TITLED,
            sqlite_where=TITLED,
        )


def downgrade() -> None:
    _indexes(active=True)
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
    # Each entry once per word of its name, with its ranks, as 0011 stored them.
    found = (
        sa.select(
            entries.c.list_id, words.c.word, entries.c.player_id, entries.c.rank, entries.c.rank_all
        )
        .select_from(entries.join(words, words.c.name_id == entries.c.name_id))
        .order_by(entries.c.list_id, words.c.word, entries.c.player_id)
    )
    op.execute(
        list_words.insert().from_select(["list_id", "word", "player_id", "rank", "rank_all"], found)
    )
    op.drop_index("ix_list_entries_name_id", "list_entries")
    # SQLite (3.35 and later) and PostgreSQL both drop a column that no index holds in place.
    op.execute("ALTER TABLE list_entries DROP COLUMN name_id")
    op.drop_table("name_words")
    op.drop_table("list_names")
