"""Per-player totals kept by the rating job: what a list shows without reading every change.

Publishing a list and exporting it aggregated all rating changes (ten million at federation scale)
to find each player's games, tournaments, last tournament played and rating. The rating job now
keeps these per player as it writes changes; this revision creates the table and fills it from the
changes already stored.

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-23
"""

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

FILL = """
INSERT INTO player_totals (player_id, changes, games, tournaments, last_played, rating)
SELECT a.player_id, a.changes, a.games, a.tournaments, t.end_date, c.rating_after
FROM (
    SELECT player_id, count(*) AS changes, sum(games) AS games,
        sum(CASE WHEN games > 0 THEN 1 ELSE 0 END) AS tournaments,
        max(seq) AS last_seq, max(CASE WHEN games > 0 THEN seq END) AS played_seq
    FROM rating_changes GROUP BY player_id
) AS a
JOIN rating_changes AS c ON c.seq = a.last_seq AND c.player_id = a.player_id
LEFT JOIN tournaments AS t ON t.seq = a.played_seq
"""


def upgrade() -> None:
    op.create_table(
        "player_totals",
        sa.Column("player_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("changes", sa.Integer(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("tournaments", sa.Integer(), nullable=False),
        sa.Column("last_played", sa.Date()),
        sa.Column("rating", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("player_id", name="pk_player_totals"),
    )
    op.execute(FILL)


def downgrade() -> None:
    op.drop_table("player_totals")
