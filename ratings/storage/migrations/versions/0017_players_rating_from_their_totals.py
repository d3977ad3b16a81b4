"""A player's current rating is read from their totals: ``players.rating`` goes.

The rating after a player's last change was stored twice, in ``players.rating`` and in
``player_totals.rating``, and every rating run wrote both. Giving every player a new rating
through ``players`` cost 6 to 10 s of a first rating of a million players on PostgreSQL (each
update a new row version), and the two copies could only ever agree. The totals are kept by the
one function that writes rating changes; ``players`` is now only what the registry knows.

With the rating gone nothing updates ``players`` run after run, so on PostgreSQL its pages are
filled again (migration 0005 left a fifth of each empty for in-place rating updates).

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-24
"""

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # SQLite (3.35 and later) drops a column that no index or key names in place.
    op.execute("ALTER TABLE players DROP COLUMN rating")
    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER TABLE players RESET (fillfactor)")


def downgrade() -> None:
    op.add_column("players", sa.Column("rating", sa.BigInteger()))
    op.execute(
        "UPDATE players SET rating ="
        " (SELECT t.rating FROM player_totals t WHERE t.player_id = players.id)"
    )
    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER TABLE players SET (fillfactor = 80)")
