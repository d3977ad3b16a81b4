"""Alembic environment: migrations run on the connection the service hands over."""

from __future__ import annotations

from alembic import context
from sqlalchemy.engine import Connection

from ratings.storage.schema import compared_on, metadata


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        include_object=compared_on(connection.dialect.name),
    )
    with context.begin_transaction():
        context.run_migrations()


connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError(
        "migrations run through ratings.storage.database.upgrade(), not alembic's CLI"
    )
_run(connection)
