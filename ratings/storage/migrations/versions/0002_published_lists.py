"""Published lists: frozen monthly snapshots and their entries.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "published_lists",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("period", sa.String(7), nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("cutoff", sa.Date, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("created_by", sa.String(100), nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("active_players", sa.Integer, nullable=False),
        sa.Column("mean_rating", sa.BigInteger, nullable=False),
        sa.Column("initial_rating", sa.BigInteger, nullable=False),
        sa.Column("active_months", sa.Integer, nullable=False),
        sa.Column(
            "previous_id",
            sa.Integer,
            sa.ForeignKey("published_lists.id", name="fk_published_lists_previous_id_published_lists"),
        ),
        sa.Column(
            "replaces_id",
            sa.Integer,
            sa.ForeignKey("published_lists.id", name="fk_published_lists_replaces_id_published_lists"),
        ),
        sa.PrimaryKeyConstraint("id", name="pk_published_lists"),
        sa.UniqueConstraint("period", "version", name="uq_published_lists_period_version"),
    )
    op.create_table(
        "list_entries",
        sa.Column(
            "list_id",
            sa.Integer,
            sa.ForeignKey(
                "published_lists.id", ondelete="CASCADE", name="fk_list_entries_list_id_published_lists"
            ),
            nullable=False,
        ),
        sa.Column(
            "player_id",
            sa.Integer,
            sa.ForeignKey("players.id", name="fk_list_entries_player_id_players"),
            nullable=False,
        ),
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
    )


def downgrade() -> None:
    op.drop_table("list_entries")
    op.drop_table("published_lists")
