"""Commands for the database schema: db upgrade."""

from __future__ import annotations

import click

from service.cli.base import State, cli, pass_state
from service.settings import open_database


@cli.group()
def db() -> None:
    """The database schema: create it or migrate it to the newest version."""


@db.command("upgrade")
@pass_state
def db_upgrade(state: State) -> None:
    """Create the schema or migrate it to the newest version."""
    from jobs.schema import upgrade_schema

    engine = open_database(state.config.database_url, upgrade_schema=False)
    version = upgrade_schema(engine)
    click.echo(f"schema at revision {version.current} (newest {version.newest})")
