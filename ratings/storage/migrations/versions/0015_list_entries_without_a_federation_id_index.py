"""A list's entries lose their index of federation ids.

A search by federation id finds the player through the registry's unique index and then the
entry through the list's key: an entry's federation id is its player's, which never changes. The
list's own index of federation ids was one more copy of every list, built with each one (1.3 s of
a million-entry list's publishing on SQLite, 1.9 s on PostgreSQL).

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-24
"""

from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.drop_index("ix_list_entries_federation_id", "list_entries")


def downgrade() -> None:
    op.create_index("ix_list_entries_federation_id", "list_entries", ["list_id", "federation_id"])
