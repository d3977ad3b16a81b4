"""The ``ratings`` command. Thin: each command parses its options, calls one job, prints the outcome.

Errors of the service (:class:`~ratings.errors.RatingsError`) become one message on standard
error and exit code 1, in one place (:class:`_Group`).
"""

from jobs.cli import lists, results, service
from jobs.cli.base import cli

__all__ = ["cli", "main"]
_COMMANDS = (lists, results, service)  # importing them registers their commands


def main() -> None:
    cli(prog_name="ratings")
