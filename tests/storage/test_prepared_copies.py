"""The suite's prepared databases (:mod:`tests.support.prepared`): each test gets the database as
it was built, whatever an earlier test did to its own copy, on every backend."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import func, select, text

from ratings.storage.database import open_engine
from ratings.storage.schema import players
from tests.conftest import _postgres_admin
from tests.support.prepared import PreparedDatabases


def _two_players(url: str) -> str:
    engine = open_engine(url)
    with engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO players (federation_id, name, name_key, created_at) VALUES "
                "('1', 'Ann', 'ann', '2024-01-01 00:00:00'), ('2', 'Bob', 'bob', '2024-01-01 00:00:00')"
            )
        )
    engine.dispose()
    return "built"


def _count(url: str) -> int:
    engine = open_engine(url)
    with engine.connect() as connection:
        found = connection.execute(select(func.count()).select_from(players)).scalar_one()
    engine.dispose()
    return int(found)


def test_each_copy_is_the_database_as_built(database_url: str, tmp_path: Path) -> None:
    prepared = PreparedDatabases(tmp_path, _postgres_admin)
    calls: list[str] = []

    def build(url: str) -> str:
        calls.append(url)
        return _two_players(url)

    try:
        assert prepared.fill(database_url, "two-players", build) == "built"
        engine = open_engine(database_url)
        with engine.begin() as connection:
            connection.execute(text("DELETE FROM players WHERE federation_id = '1'"))
        engine.dispose()
        assert _count(database_url) == 1
        next_test = _next_database(database_url, tmp_path)
        assert prepared.fill(next_test, "two-players", build) == "built"
        assert _count(next_test) == 2
        assert len(calls) == 1
    finally:
        prepared.close()


def _next_database(url: str, tmp_path: Path) -> str:
    """The empty database the next test would get: a new file, or the session's database again."""
    if url.startswith("sqlite"):
        return f"sqlite:///{tmp_path / 'next.sqlite'}"
    return url
