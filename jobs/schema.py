"""Creating the database schema or migrating it to the newest version (``ratings db upgrade``)."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass

from sqlalchemy.engine import Engine

from ratings.storage.database import current, head, is_current, upgrade


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


def migrate_if_needed(engine: Engine, lock: Callable[[], AbstractContextManager[None]]) -> bool:
    """Migrate the schema to the newest revision when it is behind, holding ``lock`` (the job
    lock) while it is checked again and migrated; whether this call migrated it."""
    if is_current(engine):
        return False
    with lock():
        if is_current(engine):
            return False
        upgrade(engine)
        return True
