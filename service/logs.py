"""Logging: one JSON object per line and event for the long-running service, plain text for the
command line."""

from __future__ import annotations

import logging
import sys

from pythonjsonlogger.json import JsonFormatter


def configure_command_line() -> None:
    """Warnings and errors as text on standard error, an error with its traceback."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.WARNING)


def _alembic_at_debug(record: logging.LogRecord) -> bool:
    """Alembic's information lines (its plugins set up, the migration context opened, each
    revision run) are debug lines: the service opens the database at every start and at every
    scheduled run, and logs a migration that runs itself (``schema_migrated``)."""
    if record.levelno == logging.INFO and record.name.startswith("alembic"):
        record.levelno, record.levelname = logging.DEBUG, "DEBUG"
        return logging.getLogger(record.name).isEnabledFor(logging.DEBUG)
    return True


def configure(level: int = logging.INFO) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.addFilter(_alembic_at_debug)
    handler.setFormatter(
        JsonFormatter(
            "{asctime}{levelname}{name}{message}",
            style="{",
            rename_fields={"asctime": "time", "levelname": "level", "name": "logger"},
            timestamp=False,
        )
    )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
