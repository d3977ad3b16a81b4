"""The ``ratings`` command. Thin: each command parses its options, calls one job, prints the outcome.

Errors of the service (:class:`~ratings.errors.RatingsError`) become one message on standard
error and exit code 1, in one place (:class:`_Group`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from datetime import UTC, date, datetime
from pathlib import Path
from typing import IO, Any

import click
from sqlalchemy.engine import Engine

from ratings.errors import RatingsError

EXIT_ERROR = 1


class _Group(click.Group):
    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except RatingsError as error:
            click.echo(f"error: {error}", err=True)
            ctx.exit(EXIT_ERROR)


class _State:
    """Settings and the database engine, made on first use so ``--help`` needs neither."""

    def __init__(self) -> None:
        self._engine: Engine | None = None

    @property
    def settings(self) -> Any:
        from ratings.settings import Settings

        return Settings()

    @property
    def engine(self) -> Engine:
        if self._engine is None:
            from ratings.storage.database import open_engine

            self._engine = open_engine(self.settings.database_url)
        return self._engine


pass_state = click.make_pass_decorator(_State, ensure=True)


def _now() -> datetime:
    return datetime.now(UTC)


def _date(_ctx: click.Context, _param: click.Parameter, value: str | None) -> date | None:
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


@cli.command("import")
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--replace", is_flag=True, help="Correct tournaments already imported (re-rates what follows)."
)
@click.option("--dry-run", is_flag=True, help="Check the files and report; write nothing.")
@pass_state
def import_command(state: _State, files: tuple[Path, ...], replace: bool, dry_run: bool) -> None:
    """Import tournament results (CSV, XLSX, JSON, Parquet in the long format).

    All files are imported together or not at all: any problem in any file imports nothing and
    lists every problem with its file, line, column and value.
    """
    from jobs.importing import import_files

    report = import_files(
        state.engine,
        list(files),
        replace=replace,
        dry_run=dry_run,
        imported_by=state.settings.imported_by,
        now=_now(),
    )
    verb = "would import" if dry_run else "imported"
    click.echo(
        f"{verb} {report.tournaments_new} new and {report.tournaments_replaced} corrected "
        f"tournaments, {report.results} results, {report.players_new} new players "
        f"from {report.files} file(s)"
    )
    if not dry_run:
        click.echo("run `ratings run` to rate them")


@cli.group()
def players() -> None:
    """The player registry: import players and titles, merge duplicates."""


@players.command("import")
@click.argument("file", type=click.Path(path_type=Path))
@pass_state
def players_import(state: _State, file: Path) -> None:
    """Import or update players (player_id, name, country, club, title, title_date)."""
    from jobs.players import import_registry

    report = import_registry(state.engine, file, now=_now())
    click.echo(
        f"{report.created} players created, {report.updated} updated, "
        f"{report.titles_changed} with a changed title"
    )
    if report.titles_changed:
        click.echo("titles changed: run `ratings run` to re-rate the tournaments concerned")


@players.command("merge")
@click.argument("keep")
@click.argument("duplicate")
@pass_state
def players_merge(state: _State, keep: str, duplicate: str) -> None:
    """Merge player DUPLICATE into KEEP (both federation ids); the history is re-rated."""
    from jobs.players import merge_players

    merge_players(state.engine, keep, duplicate, by=state.settings.imported_by, now=_now())
    click.echo(f"merged {duplicate} into {keep}: run `ratings run` to re-rate")


@cli.command("run")
@click.option("--full", is_flag=True, help="Re-rate the whole history from scratch.")
@pass_state
def run_command(state: _State, full: bool) -> None:
    """Rate pending tournaments in chronological order (re-rating after late or corrected ones)."""
    from jobs.rating import run_ratings
    from jobs.runs import recorded

    with (
        recorded(state.engine, "run --full" if full else "run", _now) as record,
        _Progress("rating") as progress,
    ):
        report = run_ratings(
            state.engine, state.settings.melo_params(), now=_now(), full=full, progress=progress
        )
        record.count(tournaments_rated=report.tournaments, results_rated=report.results)
    if report.start is None:
        click.echo("nothing to rate")
    else:
        click.echo(
            f"rated {report.tournaments} tournaments, {report.results} results, "
            f"{report.players} players"
        )


class _Progress:
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


def _output(path: Path | None, fmt: str | None) -> tuple[str, Callable[[], IO[bytes]]]:
    if fmt is None:
        fmt = path.suffix.lstrip(".").lower() if path is not None else "text"
        if fmt not in ("csv", "json", "text"):
            raise click.BadParameter(f"cannot tell the format from {path}: give --format")
    if path is None:
        return fmt, lambda: sys.stdout.buffer
    path.parent.mkdir(parents=True, exist_ok=True)
    return fmt, lambda: path.open("wb")


@cli.command("ranking")
@click.option("--all", "everyone", is_flag=True, help="Everyone, with an `active` column.")
@click.option("--as-of", callback=_date, help="Ratings after tournaments ending on or before DATE.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["csv", "json", "text"]),
    help="Default: from -o, else text.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path),
    help="Write to FILE instead of standard output.",
)
@click.option("--top", type=click.IntRange(min=1), help="Only the first N rows.")
@pass_state
def ranking_command(
    state: _State,
    everyone: bool,
    as_of: date | None,
    fmt: str | None,
    output: Path | None,
    top: int | None,
) -> None:
    """The world ranking from the current ratings, best first."""
    from exporters.ranking import ranking_rows
    from exporters.writers import write
    from ratings.storage import repository as repo

    settings = state.settings
    with state.engine.connect() as connection:
        ratings = repo.ranking(connection, as_of)
        pending = repo.pending_count(connection)
    rows = ranking_rows(
        ratings,
        as_of=as_of or date.today(),
        active_months=settings.active_months,
        rounding=settings.rounding,
        everyone=everyone,
    )
    if top is not None:
        rows = rows.head(top)
    kind, opener = _output(output, fmt)
    stream = opener()
    try:
        write(rows, kind, stream)
    finally:
        if output is not None:
            stream.close()
    if output is not None:
        click.echo(f"wrote {rows.height} players to {output}", err=True)
    if pending:
        click.echo(
            f"note: {pending} tournaments are imported but not rated yet (`ratings run`)", err=True
        )


@cli.command("player")
@click.argument("player_id")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["csv", "json", "text"]),
    help="Default: from -o, else text.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path),
    help="Write to FILE instead of standard output.",
)
@pass_state
def player_command(state: _State, player_id: str, fmt: str | None, output: Path | None) -> None:
    """One player's history: every tournament with rating before and after, E, P and k."""
    from exporters.history import history_rows
    from exporters.writers import write
    from ratings.errors import UnknownPlayerError
    from ratings.formula import format_exact
    from ratings.storage import repository as repo

    with state.engine.connect() as connection:
        player = repo.player_by_federation_id(connection, player_id)
        if player is None:
            raise UnknownPlayerError(f"no player has the id {player_id}")
        if player.merged_into is not None:
            raise UnknownPlayerError(f"player {player_id} was merged into another player")
        rows = history_rows(repo.history(connection, player.id))
    kind, opener = _output(output, fmt)
    stream = opener()
    try:
        if kind == "text":
            rating = "unrated" if player.rating is None else format_exact(player.rating)
            title = f" {player.title}" if player.title else ""
            stream.write(
                f"{player.federation_id} {player.name}{title} ({player.country or '-'}), "
                f"rating {rating}\n".encode()
            )
        write(rows, kind, stream)
    finally:
        if output is not None:
            stream.close()


@cli.group()
def db() -> None:
    """The database schema: create it or migrate it to the newest version."""


@db.command("upgrade")
@pass_state
def db_upgrade(state: _State) -> None:
    """Create the schema or migrate it to the newest version."""
    from ratings.storage.database import current, head, open_engine, upgrade

    engine = open_engine(state.settings.database_url, upgrade_schema=False)
    upgrade(engine)
    click.echo(f"schema at revision {current(engine)} (newest {head()})")


def main() -> None:
    cli(prog_name="ratings")


if __name__ == "__main__":
    main()
