"""The ``ratings`` command. Thin: each command parses its options, calls one job, prints the outcome.

Errors of the service (:class:`~ratings.errors.RatingsError`) become one message on standard
error and exit code 1, in one place (``base._Group``); click's usage errors are reported as click
does (exit code 2); anything else is a bug: logged with its traceback, one line saying so, exit
code 2.
"""

import atexit
import logging
import os
import sys

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

__all__ = ["cli", "entry", "main"]
# One module per group of commands; importing them registers their commands.
_COMMANDS = (results, players, tournaments, lists, seeding, service, db, config, evaluation, users)


def main() -> None:
    configure_command_line()
    cli(prog_name="ratings")


def entry() -> None:
    """The ``ratings`` command as a process of its own (the installed script, ``python -m
    service.cli``): :func:`main`, then the process ends as soon as everything it set up has
    been closed.

    Python's own ending takes every module apart and frees every object one by one: 0.15 s for
    SQLAlchemy's modules alone and 0.5 s after the monthly job at medium scale, on two cores,
    after the command's work is done. Here the handlers registered during the command run as
    usual (the database's engine is disposed, temporary folders removed, the libraries' own
    handlers), and so do the waits for the command's threads, which come first; then the logs
    and the standard streams are flushed and the process ends with the command's exit code,
    without that teardown. An exit that is not a number (a message), an error escaping
    :func:`main` or a stream that cannot be flushed leaves the ending to Python."""
    ending = _Ending()
    # Registered before the command registers its own: the handlers run last first, so this
    # one runs after all of them.
    atexit.register(ending.now)
    try:
        main()
    except SystemExit as done:
        if done.code is None or isinstance(done.code, int):
            ending.code = done.code or 0
        raise


class _Ending:
    code: int | None = None
    """The command's exit code, once it has ended with one."""

    def now(self) -> None:
        if self.code is None:
            return
        logging.shutdown()
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except (OSError, ValueError):
            return  # a closed or broken stream: Python's own ending reports it
        os._exit(self.code)
