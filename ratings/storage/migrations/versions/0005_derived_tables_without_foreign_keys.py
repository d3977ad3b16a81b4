"""Rating changes and list entries without foreign keys; room for in-place updates of players.

Both are written only by jobs, in bulk, from rows that are checked where they live (results carry
their keys to players and tournaments; a list's entries are copied from players in the same
transaction that creates the list), and players, tournaments and lists are never deleted. A key
checked row by row made each bulk write several times slower (PostgreSQL runs a trigger per row
and key: 103,000 rows/s against 726,000 without, on 500,000 rows).

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-22
"""

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

KEYS = {
    "rating_changes": (
        "fk_rating_changes_player_id_players",
        "fk_rating_changes_tournament_id_tournaments",
    ),
    "list_entries": ("fk_list_entries_list_id_published_lists", "fk_list_entries_player_id_players"),
}


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for table, keys in KEYS.items():
            for key in keys:
                op.drop_constraint(key, table, type_="foreignkey")
        # Every rating run rewrites the rating of the players it rated. With room left on each
        # page PostgreSQL updates in place (a "HOT" update: the rating is in no index) instead
        # of writing a new row version and an entry in each of the table's three indexes.
        op.execute("ALTER TABLE players SET (fillfactor = 80)")
        return
    # SQLite cannot drop a constraint: build each table again without its keys, copy, swap.
    _rebuild(
        "rating_changes",
        [
            sa.Column("seq", sa.BigInteger, nullable=False),
            sa.Column("player_id", sa.Integer, nullable=False),
            sa.Column("tournament_id", sa.Integer, nullable=False),
            sa.Column("games", sa.Integer, nullable=False),
            sa.Column("rating_before", sa.BigInteger, nullable=False),
            sa.Column("rating_after", sa.BigInteger, nullable=False),
            sa.Column("expected", sa.BigInteger, nullable=False),
            sa.PrimaryKeyConstraint("seq", "player_id", name="pk_rating_changes"),
        ],
        order="seq, player_id",
        sqlite_with_rowid=False,
    )
    op.create_index("ix_rating_changes_player_seq", "rating_changes", ["player_id", "seq"])
    _rebuild(
        "list_entries",
        [
            sa.Column("list_id", sa.Integer, nullable=False),
            sa.Column("player_id", sa.Integer, nullable=False),
            sa.Column("federation_id", sa.String(64), nullable=False),
            sa.Column("name", sa.String(200), nullable=False),
            sa.Column("country", sa.String(16)),
            sa.Column("title", sa.String(16)),
            sa.Column("rating", sa.BigInteger, nullable=False),
            sa.Column("games", sa.Integer, nullable=False),
            sa.Column("tournaments", sa.Integer, nullable=False),
            sa.Column("last_played", sa.Date),
            sa.Column("active", sa.Boolean, nullable=False),
            sa.Column("previous_rating", sa.BigInteger),
            sa.PrimaryKeyConstraint("list_id", "player_id", name="pk_list_entries"),
        ],
        order="list_id, player_id",
    )


def _rebuild(table: str, columns: list[Any], *, order: str, **options: Any) -> None:
    names = ", ".join(c.name for c in columns if isinstance(c, sa.Column))
    op.create_table(f"{table}_new", *columns, **options)
    op.execute(f"INSERT INTO {table}_new ({names}) SELECT {names} FROM {table} ORDER BY {order}")
    op.drop_table(table)
    op.rename_table(f"{table}_new", table)


def downgrade() -> None:
    raise NotImplementedError("restore the database from a backup to go back before 0005")
