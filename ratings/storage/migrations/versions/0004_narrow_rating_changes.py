"""Rating changes keyed by position, with only what differs per result.

k, M_avg and B_avg are the same for every result of a tournament and move to ``tournaments``;
the points are on the result already. ``rating_changes`` is keyed by (seq, player_id), which on
SQLite becomes a table without rowid, so a rating run writes it in key order.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-22
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

KEPT = "seq, player_id, tournament_id, games, rating_before, rating_after, expected"


def upgrade() -> None:
    with op.batch_alter_table("tournaments") as batch:
        batch.add_column(sa.Column("m_avg", sa.BigInteger))
        batch.add_column(sa.Column("b_avg", sa.BigInteger))
    op.execute(
        "UPDATE tournaments SET "
        "m_avg = (SELECT max(c.m_avg) FROM rating_changes c WHERE c.tournament_id = tournaments.id), "
        "b_avg = (SELECT max(c.b_avg) FROM rating_changes c WHERE c.tournament_id = tournaments.id)"
    )
    if op.get_bind().dialect.name == "postgresql":
        op.drop_index("ix_rating_changes_seq", table_name="rating_changes")
        op.drop_constraint("pk_rating_changes", "rating_changes", type_="primary")
        for column in ("points_x2", "k", "m_avg", "b_avg"):
            op.drop_column("rating_changes", column)
        op.create_primary_key("pk_rating_changes", "rating_changes", ["seq", "player_id"])
        return
    # SQLite cannot change a table's key: build the new table, copy, swap.
    op.create_table(
        "rating_changes_new",
        sa.Column("seq", sa.BigInteger, nullable=False),
        sa.Column(
            "player_id",
            sa.Integer,
            sa.ForeignKey("players.id", name="fk_rating_changes_player_id_players"),
            nullable=False,
        ),
        sa.Column(
            "tournament_id",
            sa.Integer,
            sa.ForeignKey("tournaments.id", name="fk_rating_changes_tournament_id_tournaments"),
            nullable=False,
        ),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("rating_before", sa.BigInteger, nullable=False),
        sa.Column("rating_after", sa.BigInteger, nullable=False),
        sa.Column("expected", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("seq", "player_id", name="pk_rating_changes"),
        sqlite_with_rowid=False,
    )
    op.execute(
        f"INSERT INTO rating_changes_new ({KEPT}) SELECT {KEPT} FROM rating_changes ORDER BY seq"
    )
    op.drop_table("rating_changes")
    op.rename_table("rating_changes_new", "rating_changes")
    op.create_index("ix_rating_changes_player_seq", "rating_changes", ["player_id", "seq"])


def downgrade() -> None:
    raise NotImplementedError("restore the database from a backup to go back before 0004")
