"""The shapes of the JSON the web service returns, for its OpenAPI schema.

The JSON itself is written by the exporters (the same bytes as ``ratings ranking --format json``);
these models only describe it, so a client and the schema-driven tests know what to expect.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from pydantic import BaseModel


class LastRun(BaseModel):
    """The newest batch run: what it was, when, and how it ended."""

    kind: str
    started_at: str
    finished_at: str | None
    outcome: str
    error: str | None


class Inbox(BaseModel):
    """Files the officer may need to look at."""

    waiting: int
    corrections: int
    rejected: int


class Health(BaseModel):
    """``ok``, ``attention`` (the last run or the newest backup failed, or rejected files wait)
    or ``unavailable``."""

    status: str
    database: str
    last_run: LastRun | None = None
    inbox: Inbox | None = None
    last_backup: LastRun | None = None
    """The newest scheduled backup (kind ``backup``): when it ran and how it ended."""


class PublishedList(BaseModel):
    """One published list; ``list`` (``YYYY-MM@N``) is the name its files are served under."""

    list: str
    cutoff: date
    published: str
    players: int
    active: int
    mean_rating: str
    drift: str


class RankingRow(BaseModel):
    rank: int
    player_id: str
    name: str
    country: str | None
    rating: int
    rating_exact: str
    games: int
    tournaments: int
    last_played: date | None
    change: int | None
    active: bool | None = None
    """Only with ``all=true``: whether the player counts as active."""


class HistoryRow(BaseModel):
    date: date
    tournament: str
    tier: str
    k: int
    games: int
    wins: int
    draws: int
    losses: int
    buchholz: float
    points: float
    expected: str
    m_avg: str
    b_avg: str
    rating_before: str
    rating_after: str
    change: str


class StandingsRow(BaseModel):
    """One player of an event's standings, as ``ratings standings --format json`` writes it:
    values as decimals in text (``12.5``), a shared place as ``3=``."""

    place: str
    name: str
    points: str
    mms: str | None
    """The McMahon score; null in a Swiss event."""
    sos: str
    sos_1: str
    median: str
    sodos: str
    sosos: str
    cuss: str
    mdos: str
    sb: str
    wins: int


def array_of(model: type[BaseModel]) -> dict[str, Any]:
    """An OpenAPI media type: a JSON array of ``model`` objects (inline, as FastAPI only lists
    the models its routes return directly)."""
    return {"schema": {"type": "array", "items": model.model_json_schema()}}


TEXT: dict[str, Any] = {"schema": {"type": "string"}}
BINARY: dict[str, Any] = {"schema": {"type": "string", "format": "binary"}}
