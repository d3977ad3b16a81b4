"""Player identities: external ids, remembered spellings, names and countries in one form.

Adds ``player_identifiers`` (FIDE id, EGD PIN, national ids; unique per scheme and value) and
``player_aliases`` (the officer's answers to the import's review). Stored name keys are folded
again with the new folding (word order, particles and every script now count as one spelling),
and countries are stored as ISO alpha-3 (``GER`` and ``DE`` become ``DEU``), so existing players
match the files that write them the new way.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-23
"""

import sqlalchemy as sa
from alembic import op

from ratings.countries import country_code
from ratings.names import name_key

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

BATCH = 10_000


def upgrade() -> None:
    op.create_table(
        "player_identifiers",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("player_id", sa.Integer, nullable=False),
        sa.Column("scheme", sa.String(16), nullable=False),
        sa.Column("value", sa.String(64), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name="fk_player_identifiers_player_id_players"
        ),
        sa.PrimaryKeyConstraint("id", name="pk_player_identifiers"),
        sa.UniqueConstraint("scheme", "value", name="uq_player_identifiers_scheme_value"),
    )
    op.create_index("ix_player_identifiers_player_id", "player_identifiers", ["player_id"])
    op.create_table(
        "player_aliases",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("scheme", sa.String(16), nullable=False),
        sa.Column("spelling", sa.String(200), nullable=False),
        sa.Column("player_id", sa.Integer, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("created_by", sa.String(100), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name="fk_player_aliases_player_id_players"
        ),
        sa.PrimaryKeyConstraint("id", name="pk_player_aliases"),
        sa.UniqueConstraint("scheme", "spelling", name="uq_player_aliases_scheme_spelling"),
    )
    _refold()


def _refold() -> None:
    """Fold every stored name and country again, a batch of players at a time."""
    bind = op.get_bind()
    players = sa.table(
        "players",
        sa.column("id", sa.Integer),
        sa.column("name", sa.String),
        sa.column("name_key", sa.String),
        sa.column("country", sa.String),
    )
    last = 0
    while True:
        rows = bind.execute(
            sa.select(players.c.id, players.c.name, players.c.name_key, players.c.country)
            .where(players.c.id > last)
            .order_by(players.c.id)
            .limit(BATCH)
        ).all()
        if not rows:
            return
        changed = [
            {"pid": pid, "key": name_key(name), "code": country_code(country)}
            for pid, name, key, country in rows
            if (name_key(name), country_code(country)) != (key, country)
        ]
        if changed:
            bind.execute(
                players.update()
                .where(players.c.id == sa.bindparam("pid"))
                .values(name_key=sa.bindparam("key"), country=sa.bindparam("code")),
                changed,
            )
        last = rows[-1][0]


def downgrade() -> None:
    op.drop_table("player_aliases")
    op.drop_index("ix_player_identifiers_player_id", "player_identifiers")
    op.drop_table("player_identifiers")
