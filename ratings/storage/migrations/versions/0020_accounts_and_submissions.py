"""The site's accounts and the directors' submissions.

Officers and tournament directors log in to the site: ``accounts`` (a password only as its argon2
hash), ``account_tokens`` (API tokens, only their SHA-256), ``web_sessions`` (server-side sessions,
the id only as its SHA-256), ``account_events`` (logins, failed or not, and every change of an
account). ``submissions`` holds a director's file (its bytes and hash) until the officer accepts
or rejects it; ``service_keys`` the signing key the site generates on first use.

Revision ID: 0020
Revises: 0019
Create Date: 2026-11-28
"""

import sqlalchemy as sa
from alembic import op

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("email", sa.String(254)),
        sa.Column("password_hash", sa.String(200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("created_by", sa.String(100), nullable=False),
        sa.Column("removed_at", sa.DateTime(timezone=True)),
        sa.PrimaryKeyConstraint("id", name="pk_accounts"),
        sa.UniqueConstraint("name", name="uq_accounts_name"),
    )
    op.create_table(
        "account_tokens",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_used_at", sa.DateTime(timezone=True)),
        sa.Column("revoked_at", sa.DateTime(timezone=True)),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name="fk_account_tokens_account_id_accounts"
        ),
        sa.PrimaryKeyConstraint("id", name="pk_account_tokens"),
        sa.UniqueConstraint("token_hash", name="uq_account_tokens_token_hash"),
    )
    op.create_index("ix_account_tokens_account_id", "account_tokens", ["account_id"])
    op.create_table(
        "web_sessions",
        sa.Column("id_hash", sa.String(64), nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name="fk_web_sessions_account_id_accounts"
        ),
        sa.PrimaryKeyConstraint("id_hash", name="pk_web_sessions"),
    )
    op.create_index("ix_web_sessions_account_id", "web_sessions", ["account_id"])
    op.create_table(
        "account_events",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("account", sa.String(100), nullable=False),
        sa.Column("event", sa.String(32), nullable=False),
        sa.Column("address", sa.String(64)),
        sa.Column("by", sa.String(100), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_account_events"),
    )
    op.create_index("ix_account_events_account_at", "account_events", ["account", "at"])
    op.create_table(
        "submissions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("submitter_id", sa.Integer(), nullable=False),
        sa.Column("file_name", sa.String(255), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.Column("sha256", sa.String(64), nullable=False),
        sa.Column("tier", sa.String(16), nullable=False),
        sa.Column("notes", sa.Text()),
        sa.Column("submitted_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("report", sa.Text(), nullable=False),
        sa.Column("reason", sa.Text()),
        sa.Column("decided_at", sa.DateTime(timezone=True)),
        sa.Column("decided_by", sa.String(100)),
        sa.Column("tournament_keys", sa.Text()),
        sa.ForeignKeyConstraint(
            ["submitter_id"], ["accounts.id"], name="fk_submissions_submitter_id_accounts"
        ),
        sa.PrimaryKeyConstraint("id", name="pk_submissions"),
    )
    op.create_index("ix_submissions_submitter_id", "submissions", ["submitter_id"])
    op.create_index(
        "ix_submissions_status_submitted_at", "submissions", ["status", "submitted_at"]
    )
    op.create_table(
        "service_keys",
        sa.Column("name", sa.String(32), nullable=False),
        sa.Column("value", sa.String(200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("name", name="pk_service_keys"),
    )


def downgrade() -> None:
    op.drop_table("service_keys")
    op.drop_index("ix_submissions_status_submitted_at", "submissions")
    op.drop_index("ix_submissions_submitter_id", "submissions")
    op.drop_table("submissions")
    op.drop_index("ix_account_events_account_at", "account_events")
    op.drop_table("account_events")
    op.drop_index("ix_web_sessions_account_id", "web_sessions")
    op.drop_table("web_sessions")
    op.drop_index("ix_account_tokens_account_id", "account_tokens")
    op.drop_table("account_tokens")
    op.drop_table("accounts")
