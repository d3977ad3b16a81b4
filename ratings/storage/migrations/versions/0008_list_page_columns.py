"""What the site's paged list reads: folded names and ranks fixed at publishing, with indexes.

A list of a million players is shown a page at a time; ranking it or folding its names on every
request took seconds. Lists published before this revision get their ranks here (the same rank
the list shows: the lowest place shared by equal exact ratings); their names stay unfolded, and
the site's search folds their case only.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-23
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

RANKS = """
UPDATE list_entries SET rank = ranked.rank, rank_all = ranked.rank_all
FROM (
    SELECT list_id, player_id,
        rank() OVER (PARTITION BY list_id ORDER BY rating DESC) AS rank_all,
        CASE WHEN active THEN rank() OVER (PARTITION BY list_id, active ORDER BY rating DESC)
        END AS rank
    FROM list_entries
) AS ranked
WHERE list_entries.list_id = ranked.list_id AND list_entries.player_id = ranked.player_id
"""


def upgrade() -> None:
    with op.batch_alter_table("list_entries") as table:
        table.add_column(sa.Column("name_key", sa.String(200)))
        table.add_column(sa.Column("rank", sa.Integer))
        table.add_column(sa.Column("rank_all", sa.Integer))
    op.execute(RANKS)
    op.create_index("ix_list_entries_rank", "list_entries", ["list_id", "rank"])
    op.create_index("ix_list_entries_rank_all", "list_entries", ["list_id", "rank_all"])
    op.create_index(
        "ix_list_entries_country", "list_entries", ["list_id", "country", "rank_all"]
    )
    op.create_index("ix_list_entries_name_key", "list_entries", ["list_id", "name_key"])
    op.create_index("ix_list_entries_title", "list_entries", ["list_id", "title"])


def downgrade() -> None:
    for index in ("rank", "rank_all", "country", "name_key", "title"):
        op.drop_index(f"ix_list_entries_{index}", "list_entries")
    with op.batch_alter_table("list_entries") as table:
        for column in ("rank_all", "rank", "name_key"):
            table.drop_column(column)
