"""The site's accounts, their tokens, sessions and audit, the directors' submissions and the
service's keys."""

from __future__ import annotations

from sqlalchemy import (
    Column,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Table,
    Text,
)

from ratings.storage.schema.base import metadata

# Accounts of the site (migration 0020): officers and tournament directors. A password is kept
# only as its argon2 hash, an API token and a session id only as their SHA-256.
accounts = Table(
    "accounts",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(100), nullable=False, unique=True),
    Column("role", String(16), nullable=False),
    Column("email", String(254)),
    Column("password_hash", String(200), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("created_by", String(100), nullable=False),
    # A removed account keeps its row, so that its submissions still name it.
    Column("removed_at", DateTime(timezone=True)),
)

account_tokens = Table(
    "account_tokens",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("account_id", Integer, ForeignKey("accounts.id"), nullable=False, index=True),
    Column("token_hash", String(64), nullable=False, unique=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("last_used_at", DateTime(timezone=True)),
    Column("revoked_at", DateTime(timezone=True)),
)

web_sessions = Table(
    "web_sessions",
    metadata,
    Column("id_hash", String(64), primary_key=True),
    Column("account_id", Integer, ForeignKey("accounts.id"), nullable=False, index=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("expires_at", DateTime(timezone=True), nullable=False),
)

account_events = Table(
    "account_events",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("at", DateTime(timezone=True), nullable=False),
    # The account's name as given: a failed login may name no account at all.
    Column("account", String(100), nullable=False),
    Column("event", String(32), nullable=False),
    Column("address", String(64)),
    Column("by", String(100), nullable=False),
    Index("ix_account_events_account_at", "account", "at"),
)

submissions = Table(
    "submissions",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("submitter_id", Integer, ForeignKey("accounts.id"), nullable=False, index=True),
    Column("file_name", String(255), nullable=False),
    Column("data", LargeBinary, nullable=False),
    Column("sha256", String(64), nullable=False),
    Column("tier", String(16), nullable=False),
    Column("notes", Text),
    Column("submitted_at", DateTime(timezone=True), nullable=False),
    # submitted, needs answers, accepted, rejected (rated and in a list are read from the
    # tournaments it brought in and the lists published since).
    Column("status", String(16), nullable=False),
    # The dry run's report (warnings, names to answer with their candidates) as JSON.
    Column("report", Text, nullable=False),
    Column("reason", Text),
    Column("decided_at", DateTime(timezone=True)),
    Column("decided_by", String(100)),
    # The keys of the tournaments the accepted file brought in, as JSON.
    Column("tournament_keys", Text),
    Index("ix_submissions_status_submitted_at", "status", "submitted_at"),
)

service_keys = Table(
    "service_keys",
    metadata,
    Column("name", String(32), primary_key=True),
    Column("value", String(200), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
)
