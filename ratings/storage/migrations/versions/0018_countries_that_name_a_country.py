"""A player's country is a code that names a country, or unknown.

Before, a code no table knew was stored as written, so ``???``, ``ST.``, ``C.C`` and clubs'
codes were kept as countries and offered on the site's country list. A stored code that names a
country in a form other than the one now stored (a historic federation code such as ``URS``,
kept as written then) becomes that form (``SUN``); any other becomes unknown (NULL). What a
code was cannot be told afterwards, so going down changes nothing.

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-28
"""

import sqlalchemy as sa
from alembic import op

from ratings.countries import country_code, stored_forms

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    connection = op.get_bind()
    written = connection.execute(
        sa.text("SELECT DISTINCT country FROM players WHERE country IS NOT NULL")
    ).scalars()
    forms = stored_forms()
    for code in [c for c in written if c not in forms]:
        connection.execute(
            sa.text("UPDATE players SET country = :stored WHERE country = :code"),
            {"stored": country_code(code), "code": code},
        )


def downgrade() -> None:
    pass
