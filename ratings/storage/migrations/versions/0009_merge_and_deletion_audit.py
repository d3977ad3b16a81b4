"""Merges that can be undone, and the audit of deleted tournaments.

``player_merges`` learns when and by whom a merge was undone, and whether it recorded the
tournaments it moved; ``player_merge_results`` records them, so an unmerge moves exactly those
results back. Merges made before this revision moved results without recording which
(``results_recorded`` stays null): the service refuses to undo them rather than guess.
``tournament_deletions`` keeps what a deleted tournament was and who deleted it when.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-23
"""

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("player_merges") as table:
        table.add_column(sa.Column("results_recorded", sa.Boolean))
        table.add_column(sa.Column("undone_at", sa.DateTime(timezone=True)))
        table.add_column(sa.Column("undone_by", sa.String(100)))
    op.create_table(
        "player_merge_results",
        sa.Column("merge_id", sa.Integer, nullable=False),
        sa.Column("tournament_id", sa.Integer, nullable=False),
        sa.ForeignKeyConstraint(
            ["merge_id"],
            ["player_merges.id"],
            name="fk_player_merge_results_merge_id_player_merges",
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name="fk_player_merge_results_tournament_id_tournaments",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("merge_id", "tournament_id", name="pk_player_merge_results"),
    )
    op.create_table(
        "tournament_deletions",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("key", sa.String(200), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("start_date", sa.Date, nullable=False),
        sa.Column("end_date", sa.Date, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("results", sa.Integer, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("source_name", sa.String(500), nullable=False),
        sa.Column("source_hash", sa.String(64), nullable=False),
        sa.Column("imported_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("imported_by", sa.String(100), nullable=False),
        sa.Column("deleted_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("deleted_by", sa.String(100), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_tournament_deletions"),
    )
    op.create_index("ix_tournament_deletions_key", "tournament_deletions", ["key"])


def downgrade() -> None:
    op.drop_index("ix_tournament_deletions_key", "tournament_deletions")
    op.drop_table("tournament_deletions")
    op.drop_table("player_merge_results")
    with op.batch_alter_table("player_merges") as table:
        for column in ("undone_by", "undone_at", "results_recorded"):
            table.drop_column(column)
