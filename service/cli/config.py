"""The ``config`` command: every setting, its value and where the value came from."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import click

from service.cli.base import cli


@cli.command("config")
def config_command() -> None:
    """Every setting with its value and where it came from (default, a settings file, or the
    environment), as TOML a settings file could hold."""
    from service.settings import read_settings, user_config_file

    settings, origins = read_settings()
    click.echo(f"# user settings file: {user_config_file()}")
    for name in type(settings).model_fields:
        click.echo(f"{name} = {_toml(shown(name, getattr(settings, name)))}  # {origins[name]}")


def shown(name: str, value: object) -> object:
    """``value`` as it may be printed: a secret as ``***``, and a database URL with its password
    as ``***`` (the rest of it says which database is meant, which the officer needs to see)."""
    from pydantic import SecretStr

    if isinstance(value, SecretStr):
        return "***" if value.get_secret_value() else ""
    if name == "database_url" and isinstance(value, str):
        from sqlalchemy.engine import make_url
        from sqlalchemy.exc import ArgumentError

        try:
            return make_url(value).render_as_string(hide_password=True)
        except ArgumentError:
            return value  # not a URL: no password can be told apart (its error shows it too)
    return value


def _toml(value: object) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal):
        return json.dumps(str(value) if isinstance(value, Path) else value)
    return str(value)
