"""The ``ratings`` command. Thin: each command parses its options, calls one job, prints the outcome.

Errors of the service (:class:`~ratings.errors.RatingsError`) become one message on standard
error and exit code 1, in one place (:class:`_Group`).
"""

from service.cli import db, lists, players, results, seeding, service
from service.cli.base import cli

__all__ = ["cli", "main"]
# One module per group of commands; importing them registers their commands.
_COMMANDS = (results, players, lists, seeding, service, db)


def main() -> None:
    cli(prog_name="ratings")
