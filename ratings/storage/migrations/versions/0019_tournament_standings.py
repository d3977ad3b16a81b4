"""A crosstable's standings can be computed again from storage: ``tournaments.standings``.

The games of an event imported as a crosstable are stored round by round, but not what else its
standings are computed from: Swiss or McMahon, the tie-break policy, the initial McMahon scores
and the names as the file wrote them. The site's event page placed players by the points of their
rated games instead, without byes. The column holds that record as JSON
(``ratings.tiebreaks.record``); it stays empty for events imported before, whose standings are
computed from their games with the policy their format and date give.

Revision ID: 0019
Revises: 0018
Create Date: 2026-11-28
"""

import sqlalchemy as sa
from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("tournaments", sa.Column("standings", sa.Text()))


def downgrade() -> None:
    op.drop_column("tournaments", "standings")
