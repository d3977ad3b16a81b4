"""The ``config`` command: every setting, its value and where the value came from."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import click
from pydantic import SecretStr

from service.cli.base import cli
from service.settings import read_settings, user_config_file


@cli.command("config")
def config_command() -> None:
    """Every setting with its value and where it came from (default, a settings file, or the
    environment), as TOML a settings file could hold."""
    settings, origins = read_settings()
    click.echo(f"# user settings file: {user_config_file()}")
    for name in type(settings).model_fields:
        click.echo(f"{name} = {_toml(getattr(settings, name))}  # {origins[name]}")


def _toml(value: object) -> str:
    if isinstance(value, SecretStr):
        # A secret is shown as set or not, never itself.
        return json.dumps("***" if value.get_secret_value() else "")
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal):
        return json.dumps(str(value) if isinstance(value, Path) else value)
    return str(value)
