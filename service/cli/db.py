"""Commands for the database schema: db upgrade."""

from __future__ import annotations

import click

from service.cli.base import State, cli, pass_state, say_waiting


@cli.group()
def db() -> None:
    """The database schema: create it or migrate it to the newest version."""


@db.command("upgrade")
@pass_state
def db_upgrade(state: State) -> None:
    """Create the database (a SQLite file) and its schema, or migrate the schema to the newest
    version (holding the job lock, so no job runs on a schema that is being changed). The only
    command that creates a database."""
    from jobs.locking import job_lock
    from jobs.schema import upgrade_schema
    from service.settings import MIGRATION_WAIT_SECONDS, open_database

    engine = open_database(state.config.database_url, upgrade_schema=False, create=True)
    with job_lock(engine, wait=MIGRATION_WAIT_SECONDS, waiting=say_waiting):
        version = upgrade_schema(engine)
    click.echo(f"schema at revision {version.current} (newest {version.newest})")
