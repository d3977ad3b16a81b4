"""Creating the database schema or migrating it to the newest version (``ratings db upgrade``)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.engine import Engine

from ratings.storage.database import current, head, upgrade


@dataclass(frozen=True, slots=True)
class SchemaVersion:
    current: str | None
    """The revision the database is at."""
    newest: str | None
    """The newest revision this version of the software knows."""


def upgrade_schema(engine: Engine) -> SchemaVersion:
    """Migrate the schema to the newest revision, in one transaction."""
    upgrade(engine)
    return SchemaVersion(current(engine), head())
