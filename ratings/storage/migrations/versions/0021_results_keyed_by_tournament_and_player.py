"""A result keyed by its tournament and player, without an id of its own.

Nothing refers to a result by its id: the pair (tournament, player) was its key already, as a
unique index beside the id's. On PostgreSQL the id, its sequence and that index go, and the pair
becomes the primary key: a large import builds one key after its rows instead of two (on the
807,856 results of a medium history, 957 ms of the server's work after the rows became 725).
On SQLite the table is built again without rowid, its rows stored in key order with the player's
index beside them, and copied in: one B-tree less to build and copy for a large import.

Revision ID: 0021
Revises: 0020
Create Date: 2026-11-29
"""

import sqlalchemy as sa
from alembic import op

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None

KEY = ["tournament_id", "player_id"]
INDEX = "ix_results_tournament_id_player_id"
COLUMNS = "tournament_id, player_id, line, wins, draws, losses, buchholz, title"


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.drop_constraint("pk_results", "results", type_="primary")
        op.drop_index(INDEX, "results")
        op.drop_column("results", "id")
        op.create_primary_key("pk_results", "results", KEY)
        return
    _rebuild(keyed=True)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.drop_constraint("pk_results", "results", type_="primary")
        # Every row gets an id from a new sequence, which goes on after them.
        op.execute("ALTER TABLE results ADD COLUMN id SERIAL")
        op.create_primary_key("pk_results", "results", ["id"])
        op.create_index(INDEX, "results", KEY, unique=True)
        return
    _rebuild(keyed=False)


def _rebuild(*, keyed: bool) -> None:
    """SQLite: the table built again, keyed by (tournament, player) without rowid, or (going
    down) by an id again with the pair's unique index, its rows copied in key order."""
    key = (
        [sa.PrimaryKeyConstraint(*KEY, name="pk_results")]
        if keyed
        else [sa.PrimaryKeyConstraint("id", name="pk_results")]
    )
    op.create_table(
        "results_new",
        *([] if keyed else [sa.Column("id", sa.Integer, nullable=False)]),
        sa.Column(
            "tournament_id",
            sa.Integer,
            sa.ForeignKey(
                "tournaments.id", ondelete="CASCADE", name="fk_results_tournament_id_tournaments"
            ),
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
        *key,
        **({"sqlite_with_rowid": False} if keyed else {}),
    )
    op.execute(
        f"INSERT INTO results_new ({COLUMNS}) SELECT {COLUMNS} FROM results "
        "ORDER BY tournament_id, player_id"
    )
    op.drop_table("results")
    op.rename_table("results_new", "results")
    op.create_index("ix_results_player_id", "results", ["player_id"])
    if not keyed:
        op.create_index(INDEX, "results", KEY, unique=True)
