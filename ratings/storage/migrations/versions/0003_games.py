"""Games: the round-by-round record of events imported from a crosstable.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "games",
        sa.Column(
            "tournament_id",
            sa.Integer,
            sa.ForeignKey("tournaments.id", ondelete="CASCADE", name="fk_games_tournament_id_tournaments"),
            nullable=False,
        ),
        sa.Column("round", sa.Integer, nullable=False),
        sa.Column(
            "player_id",
            sa.Integer,
            sa.ForeignKey("players.id", name="fk_games_player_id_players"),
            nullable=False,
        ),
        sa.Column(
            "opponent_id", sa.Integer, sa.ForeignKey("players.id", name="fk_games_opponent_id_players")
        ),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("outcome", sa.String(1), nullable=False),
        sa.Column("color", sa.String(1)),
        sa.Column("handicap", sa.Integer, nullable=False),
        sa.PrimaryKeyConstraint("tournament_id", "round", "player_id", name="pk_games"),
    )


def downgrade() -> None:
    op.drop_table("games")
