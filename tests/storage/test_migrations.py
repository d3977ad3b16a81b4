"""The migrations build exactly the schema the code declares, on every backend."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy.engine import Engine

from ratings.storage.database import current, head, open_engine
from ratings.storage.schema import metadata


def test_migrations_match_the_declared_schema(engine: Engine) -> None:
    assert current(engine) == head()
    with engine.connect() as connection:
        differences = compare_metadata(MigrationContext.configure(connection), metadata)
    assert differences == []


def test_opening_an_empty_database_creates_the_schema(database_url: str) -> None:
    engine = open_engine(database_url, upgrade_schema=False)
    assert current(engine) is None
    engine.dispose()
    engine = open_engine(database_url)
    assert current(engine) == head()
    engine.dispose()
