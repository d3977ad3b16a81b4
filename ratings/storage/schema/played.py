"""The games of events imported from their crosstables."""

from __future__ import annotations

from sqlalchemy import (
    Column,
    ForeignKey,
    Integer,
    String,
    Table,
)

from ratings.storage.schema.base import metadata

games = Table(
    "games",
    metadata,
    Column(
        "tournament_id", Integer, ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True
    ),
    Column("round", Integer, primary_key=True),
    Column("player_id", Integer, ForeignKey("players.id"), primary_key=True),
    Column("opponent_id", Integer, ForeignKey("players.id")),
    Column("kind", String(16), nullable=False),
    Column("outcome", String(1), nullable=False),
    Column("color", String(1)),
    Column("handicap", Integer, nullable=False),
)
