"""What every command shares: the group, its one place for errors, the configuration and the
database made once on first use, the clock, date options, output files written atomically, the
progress bar."""

from __future__ import annotations

import concurrent.futures
import errno
import importlib
import logging
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import date, datetime
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, TypeVar

import click

from ratings.aside import aside
from ratings.errors import MAX_SHOWN, ConfirmationError, OutputError, RatingsError, shortened

if TYPE_CHECKING:
    # Each loads in the command that needs it: `ratings --help` reads neither the settings nor a
    # database, and a command's own imports are its own (see service/cli/__init__.py).
    from sqlalchemy.engine import Engine

    from service.settings import Configuration

Command = TypeVar("Command", bound=Callable[..., Any])

EXIT_ERROR = 1
"""The user's error: bad input, an unknown player or list, a bad setting (a RatingsError)."""
EXIT_BUG = 2
"""Anything else is a bug, or the system failing (the database gone): click's usage errors
share the code, as both mean the command did not do what was asked for a reason to look into."""

LINE_SHOWN = 400
"""Most characters of a line the command line quotes from a driver or the system."""

log = logging.getLogger("ratings.cli")


class _Group(click.Group):
    """The one place where errors become messages and exit codes."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except RatingsError as error:
            click.echo(f"error: {listed(error)}", err=True)
            ctx.exit(EXIT_ERROR)
        except (click.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except BrokenPipeError:
            # The reader of the output went away (`ratings tournaments list | head`): not an
            # error of the command; what is still buffered goes nowhere rather than raise again.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            ctx.exit(EXIT_ERROR)
        except Exception as error:
            if _disk_full(error):
                # A full disk is the system's, not a bug: one line. The database's transaction
                # was rolled back and outputs are written under a temporary name, so nothing
                # is left half done.
                click.echo(f"error: the disk is full: {error_line(error)}", err=True)
                ctx.exit(EXIT_BUG)
            log.exception("internal error in `ratings %s`", ctx.invoked_subcommand)
            message = f"internal error: {type(error).__name__}"
            first_line = shortened((str(error).splitlines() or [""])[0], LINE_SHOWN)
            click.echo(f"{message}: {first_line}" if first_line else message, err=True)
            ctx.exit(EXIT_BUG)


SHOW_ALL = "ratings.show_all"
"""Where ``--all`` leaves its value in the context's ``meta``, which every nested context
shares: True, False, or absent for a command without the option."""


def all_option(command: Command) -> Command:
    """``--all``: every item of a long list (problems, warnings, names to review, a merge's
    tournaments) rather than the first ``MAX_SHOWN`` and a count."""

    def remember(ctx: click.Context, _param: click.Parameter, value: bool) -> bool:
        ctx.meta[SHOW_ALL] = value
        return value

    return click.option(
        "--all",
        "show_all",
        is_flag=True,
        expose_value=False,
        callback=remember,
        help=f"List every problem, warning or name, not the first {MAX_SHOWN} and a count.",
    )(command)


def showing_all() -> bool:
    context = click.get_current_context(silent=True)
    return bool(context is not None and context.meta.get(SHOW_ALL))


def _all_hint() -> str:
    context = click.get_current_context(silent=True)
    return " (--all lists every one)" if context is not None and SHOW_ALL in context.meta else ""


def listed(error: RatingsError) -> str:
    """An error's message as the command line shows it: its whole list with ``--all``, else the
    first ``MAX_SHOWN`` items, saying how to see the rest when some were left out."""
    if showing_all():
        return error.listed(None)
    text = str(error)
    if _all_hint() and text != error.listed(None):
        text += "\n--all lists every one"
    return text


def echo_listed(lines: Sequence[str], *, err: bool = False, more: str = "more") -> None:
    """Echo each of ``lines``, the first ``MAX_SHOWN`` of them unless ``--all``: the last line
    counts the rest (a file's warnings, a dry run's new players)."""
    shown = None if showing_all() else MAX_SHOWN
    for line in lines[:shown]:
        click.echo(line, err=err)
    if shown is not None and len(lines) > shown:
        click.echo(f"... and {len(lines) - shown:,} {more}{_all_hint()}", err=err)


def _disk_full(error: BaseException) -> bool:
    if isinstance(error, OSError) and error.errno == errno.ENOSPC:
        return True
    text = str(error)
    return _driver_error(error) is not None and (
        "database or disk is full" in text or "No space left on device" in text
    )


def _driver_error(error: BaseException) -> BaseException | None:
    """What the database driver said, for an error SQLAlchemy raised: None for any other (and
    for every error of a command that never loaded SQLAlchemy)."""
    if "sqlalchemy" not in sys.modules:
        return None
    from sqlalchemy.exc import DBAPIError

    if not isinstance(error, DBAPIError):
        return None
    return error.orig if error.orig is not None else error


def error_line(error: BaseException) -> str:
    """The first line of what the driver or the system said."""
    error = _driver_error(error) or error
    return shortened((str(error).splitlines() or [type(error).__name__])[0], LINE_SHOWN)


class State:
    """The configuration and the database engine, each made once on first use, so ``--help``
    needs neither; and the clock the commands read the time from (a test sets its own)."""

    def __init__(self, clock: Callable[[], datetime] | None = None) -> None:
        self.clock = clock or _utc_now
        self._config: Configuration | None = None
        self._engine: Engine | None = None
        self._opening: concurrent.futures.Future[Engine] | None = None

    @property
    def config(self) -> Configuration:
        if self._config is None:
            from service.settings import load

            self._config = load()
        return self._config

    @property
    def engine(self) -> Engine:
        """The database for a command that writes. One that does not exist is an error, as
        for :attr:`reader`: only ``ratings db upgrade`` creates a database."""
        return self.reader

    @property
    def reader(self) -> Engine:
        """The database for a command that only reads: one that does not exist is an error,
        never a new empty database whose empty list looks like an answer."""
        if self._engine is None:
            if self._opening is not None:
                # Opened by :meth:`open_ahead`; its error, if any, is raised here.
                self._engine = self._opening.result()
                return self._engine
            self._engine = _opened(self.config.database_url)
            # Its connections closed when the command ends, before the process does.
            context = click.get_current_context(silent=True)
            if context is not None:
                context.find_root().call_on_close(self._engine.dispose)
        return self._engine

    def open_ahead(self, *modules: str) -> None:
        """Begin opening the database (as :attr:`reader` does) in a thread of its own, with
        ``modules`` imported first, while the command goes on with work that needs no database
        (reading its files): :attr:`reader` then waits for it and raises what opening it raised.
        The import of a history of 807,856 results spent 0.3 s importing SQLAlchemy, the driver
        and its writing modules and connecting after its 1.6 s of reading, with a processor
        left idle.

        ``modules`` are the command's own database-side modules, which its other work does not
        import: two threads importing one module wait for each other, and two importing each
        other's could lock."""
        if self._engine is not None or self._opening is not None:
            return
        url = self.config.database_url

        def open_database() -> Engine:
            for module in modules:
                importlib.import_module(module)
            return _opened(url)

        self._opening = aside("open-database", open_database)
        context = click.get_current_context(silent=True)
        if context is not None:
            context.find_root().call_on_close(self._close_ahead)

    def _close_ahead(self) -> None:
        """Close the database opened ahead, once it is open (a command that failed before it
        needed it does not leave it connected)."""
        assert self._opening is not None
        try:
            engine = self._opening.result()
        except Exception:  # an error nobody asked for: the command's own is shown
            return
        engine.dispose()

    @contextmanager
    def lock(self) -> Iterator[None]:
        """Hold the job lock for a command that writes: a running job (the monthly one, or
        another officer's command) makes it stop with a message rather than interleave."""
        from jobs.locking import job_lock

        with job_lock(self.engine):
            yield

    def today(self) -> date:
        """Today in the federation's time zone, as the scheduler sees it."""
        return self.config.today(self.clock())


def _opened(url: str) -> Engine:
    from service.settings import open_database

    return open_database(url, waiting=say_waiting, command=True)


def _utc_now() -> datetime:
    from service.settings import utc_now

    return utc_now()


def say_waiting() -> None:
    click.echo("waiting for another job to finish before migrating the database ...", err=True)


pass_state = click.make_pass_decorator(State, ensure=True)


def attached_terminal() -> bool:
    """Whether an officer sits at the command: both its input and output are a terminal."""
    return sys.stdin.isatty() and sys.stdout.isatty()


def confirmed(question: str, action: str, *, yes: bool) -> bool:
    """Whether to go on with a change of stored history: ``--yes`` says so; on a terminal the
    officer is asked (False: declined, and the caller says nothing changed); anywhere else, a
    script without ``--yes``, the command stops with one line saying how to go on."""
    if yes:
        return True
    if not attached_terminal():
        raise ConfirmationError(action)
    return click.confirm(question, default=False)


def declined() -> None:
    """The officer said no: nothing was changed, and the exit code says the command did not."""
    click.echo("nothing changed", err=True)
    click.get_current_context().exit(EXIT_ERROR)


def yes_option(command: Command) -> Command:
    return click.option("--yes", "-y", is_flag=True, help="Do it without asking (for scripts).")(
        command
    )


def date_option(_ctx: click.Context, _param: click.Parameter, value: str | None) -> date | None:
    if value is None:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise click.BadParameter(f"expected a date as YYYY-MM-DD, not {value!r}") from None


@click.group(cls=_Group)
@click.version_option(package_name="ratings")
def cli() -> None:
    """Rating lists for games federations: import results, rate them with MELO, publish lists."""


class ProgressBar:
    """A progress bar on a terminal for long runs; silent otherwise."""

    MIN_TOURNAMENTS = 2000

    def __init__(self, label: str) -> None:
        self.label = label
        self.bar: Any = None
        self.done = 0

    def __enter__(self) -> Callable[[int, int], None]:
        return self

    def __call__(self, done: int, total: int) -> None:
        if self.bar is None:
            if not sys.stderr.isatty() or total < self.MIN_TOURNAMENTS:
                return
            self.bar = click.progressbar(length=total, label=self.label, file=sys.stderr)
            self.bar.__enter__()
        self.bar.update(done - self.done)
        self.done = done

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)


def output_options(formats: Sequence[str]) -> Callable[[Command], Command]:
    """The ``--format`` and ``-o/--output`` pair of every command that writes a document."""

    def decorate(command: Command) -> Command:
        command = click.option(
            "-o",
            "--output",
            type=click.Path(path_type=Path),
            help="Write to FILE instead of standard output.",
        )(command)
        return click.option(
            "--format",
            "fmt",
            type=click.Choice(list(formats)),
            help="Default: from -o, else text.",
        )(command)

    return decorate


@contextmanager
def output_stream(
    path: Path | None, fmt: str | None, formats: tuple[str, ...], *, what: str
) -> Iterator[tuple[str, IO[bytes]]]:
    """The format (from --format, else the file's extension, else text) and a stream; a file is
    written under a temporary name and renamed when complete, so nobody reads half a file, and
    then one line on standard error says what was written where (``wrote WHAT to PATH``): a
    command writing a file would otherwise say nothing on success."""
    if fmt is None:
        fmt = path.suffix.lstrip(".").lower() if path is not None else "text"
        if fmt not in formats:
            raise click.BadParameter(f"cannot tell the format from {path}: give --format")
    if path is None:
        if fmt in ("xlsx", "png"):
            raise click.BadParameter(f"{fmt} output needs a file: give -o FILE")
        yield fmt, sys.stdout.buffer
        return
    _check_target(path)
    temporary = path.with_name(f".{path.name}.partial")
    try:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with temporary.open("wb") as stream:
                yield fmt, stream
        except OSError as error:
            raise OutputError(f"cannot write {path}: {error.strerror or error}") from None
        from jobs.folder import replace_file  # its imports are for commands that write

        replace_file(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
    click.echo(f"wrote {what} to {path}", err=True)


def _check_target(path: Path) -> None:
    """Only a regular file is replaced by an output, or a new one made: ``-o`` pointed at a
    symlink, a device or a folder by mistake must not write through it or over it."""
    if path.is_symlink():
        raise OutputError(f"cannot write {path}: it is a symbolic link (give the real path)")
    if path.exists() and not path.is_file():
        kind = "a folder" if path.is_dir() else "not a regular file"
        raise OutputError(f"cannot write {path}: it is {kind}")
