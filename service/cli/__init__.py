"""The ``ratings`` command. Thin: each command parses its options, calls one job, prints the outcome.

Errors of the service (:class:`~ratings.errors.RatingsError`) become one message on standard
error and exit code 1, in one place (``base._Group``); click's usage errors are reported as click
does (exit code 2); anything else is a bug: logged with its traceback, one line saying so, exit
code 2.
"""

from service.cli import (
    config,
    db,
    evaluation,
    lists,
    players,
    results,
    seeding,
    service,
    tournaments,
    users,
)
from service.cli.base import cli
from service.logs import configure_command_line

__all__ = ["cli", "main"]
# One module per group of commands; importing them registers their commands.
_COMMANDS = (results, players, tournaments, lists, seeding, service, db, config, evaluation, users)


def main() -> None:
    configure_command_line()
    cli(prog_name="ratings")
