"""Initial schema: players, tournaments, results, rating changes, merges, job runs.

Revision ID: 0001
Revises:
Create Date: 2026-11-22
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("federation_id", sa.String(64), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("name_key", sa.String(200), nullable=False),
        sa.Column("country", sa.String(16)),
        sa.Column("club", sa.String(200)),
        sa.Column("title", sa.String(16)),
        sa.Column("title_date", sa.Date),
        sa.Column("first_seen", sa.Date),
        sa.Column("merged_into", sa.Integer, sa.ForeignKey("players.id", name="fk_players_merged_into_players")),
        sa.Column("rating", sa.BigInteger),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_players"),
        sa.UniqueConstraint("federation_id", name="uq_players_federation_id"),
    )
    op.create_index("ix_players_name_key", "players", ["name_key"])
    op.create_table(
        "tournaments",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("key", sa.String(200), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("start_date", sa.Date, nullable=False),
        sa.Column("end_date", sa.Date, nullable=False),
        sa.Column("tier", sa.String(16), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("seq", sa.BigInteger),
        sa.Column("k", sa.Integer),
        sa.Column("source_name", sa.String(500), nullable=False),
        sa.Column("source_hash", sa.String(64), nullable=False),
        sa.Column("source_format", sa.String(16), nullable=False),
        sa.Column("imported_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("imported_by", sa.String(100), nullable=False),
        sa.Column("rated_at", sa.DateTime(timezone=True)),
        sa.PrimaryKeyConstraint("id", name="pk_tournaments"),
        sa.UniqueConstraint("key", name="uq_tournaments_key"),
    )
    op.create_index("ix_tournaments_order", "tournaments", ["end_date", "start_date", "key"])
    op.create_index("ix_tournaments_seq", "tournaments", ["seq"])
    op.create_table(
        "results",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column(
            "tournament_id",
            sa.Integer,
            sa.ForeignKey("tournaments.id", ondelete="CASCADE", name="fk_results_tournament_id_tournaments"),
            nullable=False,
        ),
        sa.Column(
            "player_id",
            sa.Integer,
            sa.ForeignKey("players.id", name="fk_results_player_id_players"),
            nullable=False,
        ),
        sa.Column("line", sa.Integer),
        sa.Column("wins", sa.Integer, nullable=False),
        sa.Column("draws", sa.Integer, nullable=False),
        sa.Column("losses", sa.Integer, nullable=False),
        sa.Column("buchholz", sa.BigInteger, nullable=False),
        sa.Column("title", sa.String(16)),
        sa.PrimaryKeyConstraint("id", name="pk_results"),
        sa.UniqueConstraint("tournament_id", "player_id", name="uq_results_tournament_id_player_id"),
    )
    op.create_index("ix_results_player_id", "results", ["player_id"])
    op.create_table(
        "rating_changes",
        sa.Column(
            "tournament_id",
            sa.Integer,
            sa.ForeignKey("tournaments.id", name="fk_rating_changes_tournament_id_tournaments"),
            nullable=False,
        ),
        sa.Column(
            "player_id",
            sa.Integer,
            sa.ForeignKey("players.id", name="fk_rating_changes_player_id_players"),
            nullable=False,
        ),
        sa.Column("seq", sa.BigInteger, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("points_x2", sa.Integer, nullable=False),
        sa.Column("k", sa.Integer, nullable=False),
        sa.Column("rating_before", sa.BigInteger, nullable=False),
        sa.Column("rating_after", sa.BigInteger, nullable=False),
        sa.Column("expected", sa.BigInteger, nullable=False),
        sa.Column("m_avg", sa.BigInteger, nullable=False),
        sa.Column("b_avg", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("tournament_id", "player_id", name="pk_rating_changes"),
    )
    op.create_index("ix_rating_changes_seq", "rating_changes", ["seq"])
    op.create_index("ix_rating_changes_player_seq", "rating_changes", ["player_id", "seq"])
    op.create_table(
        "rating_state",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("rerate_from_seq", sa.BigInteger),
        sa.PrimaryKeyConstraint("id", name="pk_rating_state"),
    )
    op.create_table(
        "player_merges",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column(
            "kept_id",
            sa.Integer,
            sa.ForeignKey("players.id", name="fk_player_merges_kept_id_players"),
            nullable=False,
        ),
        sa.Column(
            "duplicate_id",
            sa.Integer,
            sa.ForeignKey("players.id", name="fk_player_merges_duplicate_id_players"),
            nullable=False,
        ),
        sa.Column("merged_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("merged_by", sa.String(100), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_player_merges"),
    )
    op.create_table(
        "job_runs",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True)),
        sa.Column("outcome", sa.String(16), nullable=False),
        sa.Column("tournaments_rated", sa.Integer, nullable=False),
        sa.Column("results_rated", sa.Integer, nullable=False),
        sa.Column("files_accepted", sa.Integer, nullable=False),
        sa.Column("files_rejected", sa.Integer, nullable=False),
        sa.Column("list_period", sa.String(7)),
        sa.Column("error", sa.Text),
        sa.PrimaryKeyConstraint("id", name="pk_job_runs"),
    )


def downgrade() -> None:
    for table in (
        "job_runs",
        "player_merges",
        "rating_state",
        "rating_changes",
        "results",
        "tournaments",
        "players",
    ):
        op.drop_table(table)
