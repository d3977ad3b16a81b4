"""The rating state remembers why a re-rating is pending and the parameters of the last rating.

A merge, a title change or a correction marks the history to be rated again from a position; the
reason is kept beside it so that ``ratings publish`` can say why it refuses. The parameters (k
values, initial rating, the 400) the current ratings were computed with are kept too: when the
settings change, every rating is stale until a full re-rating.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-23
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("rating_state") as batch:
        batch.add_column(sa.Column("rerate_reason", sa.Text()))
        batch.add_column(sa.Column("parameters", sa.Text()))


def downgrade() -> None:
    with op.batch_alter_table("rating_state") as batch:
        batch.drop_column("parameters")
        batch.drop_column("rerate_reason")
