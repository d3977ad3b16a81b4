"""A result's (tournament, player) key as a unique index rather than a constraint; files found
by their content through an index.

A constraint stays through a bulk write: every row of a ten-million-result import was checked
against it one at a time (on SQLite about 0.9 of the 3.1 processor seconds a million rows cost).
A unique index checks the same, and a large write drops it with the other indexes and builds it
once afterwards (``ratings.storage.bulk.indexes_rebuilt``), which checks every key again.

The monthly job asks, for each file of its inbox, whether a tournament came from a file of the
same content: ``tournaments.source_hash`` gets an index (the question read every tournament,
a quarter of a second at four hundred thousand).

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-24
"""

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None

CONSTRAINT = "uq_results_tournament_id_player_id"
INDEX = "ix_results_tournament_id_player_id"
KEY = ["tournament_id", "player_id"]


def upgrade() -> None:
    op.create_index("ix_tournaments_source_hash", "tournaments", ["source_hash"])
    if op.get_bind().dialect.name == "postgresql":
        op.create_index(INDEX, "results", KEY, unique=True)
        op.drop_constraint(CONSTRAINT, "results", type_="unique")
        return
    # SQLite cannot drop a constraint: the table is built again without it, its rows copied.
    _rebuild(with_constraint=False)
    op.create_index(INDEX, "results", KEY, unique=True)


def downgrade() -> None:
    op.drop_index("ix_tournaments_source_hash", "tournaments")
    if op.get_bind().dialect.name == "postgresql":
        op.create_unique_constraint(CONSTRAINT, "results", KEY)
        op.drop_index(INDEX, "results")
        return
    _rebuild(with_constraint=True)


def _rebuild(*, with_constraint: bool) -> None:
    key = [sa.UniqueConstraint(*KEY, name=CONSTRAINT)] if with_constraint else []
    op.create_table(
        "results_new",
        sa.Column("id", sa.Integer, nullable=False),
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
        sa.PrimaryKeyConstraint("id", name="pk_results"),
        *key,
    )
    names = "id, tournament_id, player_id, line, wins, draws, losses, buchholz, title"
    op.execute(f"INSERT INTO results_new ({names}) SELECT {names} FROM results ORDER BY id")
    op.drop_table("results")
    op.rename_table("results_new", "results")
    op.create_index("ix_results_player_id", "results", ["player_id"])
