"""The service's log: one JSON object per line, and nothing of Alembic's at every start."""

from __future__ import annotations

import io
import json
import logging
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ratings.storage.database import head, open_engine
from service.logs import configure
from service.settings import open_database


class ServiceLog:
    """What ``ratings serve`` writes to standard error, configured as it configures it."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.monkeypatch = monkeypatch
        self.stream = io.StringIO()
        self.seen = 0

    def configure(self, level: int = logging.INFO) -> None:
        # Here, not in a fixture: pytest sets its own standard error for each phase of a test.
        self.monkeypatch.setattr(sys, "stderr", self.stream)
        configure(level)

    def records(self) -> list[dict[str, Any]]:
        """The records written since the last look."""
        text = self.stream.getvalue()
        new, self.seen = text[self.seen :], len(text)
        return [json.loads(line) for line in new.splitlines()]


@pytest.fixture
def service_log(monkeypatch: pytest.MonkeyPatch) -> Iterator[ServiceLog]:
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        yield ServiceLog(monkeypatch)
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)


@pytest.mark.real_migrations
def test_alembic_says_nothing_unless_a_migration_runs(
    database_url: str, service_log: ServiceLog, tmp_path: Path
) -> None:
    open_engine(database_url, upgrade_schema=False).dispose()  # a database without its schema
    service_log.configure()
    open_database(database_url).dispose()
    migrated = service_log.records()
    assert [(r["logger"], r["message"]) for r in migrated] == [
        ("ratings.storage.database", "database schema migrated")
    ]
    assert (migrated[0]["from_revision"], migrated[0]["to_revision"]) == (None, head())
    # Opened again, as at every start and scheduled run: not a line.
    open_database(database_url).dispose()
    assert service_log.records() == []
    # A database at the newest revision is not even handed to Alembic (its version row is
    # read and compared), so its lines come only with a migration: at debug level, as debug
    # lines.
    service_log.configure(logging.DEBUG)
    open_database(database_url).dispose()
    assert not [r for r in service_log.records() if r["logger"].startswith("alembic")]
    fresh = f"sqlite:///{tmp_path / 'fresh.sqlite'}"
    open_engine(fresh, upgrade_schema=False).dispose()
    open_database(fresh).dispose()
    alembic = [r for r in service_log.records() if r["logger"].startswith("alembic")]
    assert alembic
    assert {r["level"] for r in alembic} == {"DEBUG"}
    assert any(r["message"].startswith("Context impl") for r in alembic)
