"""The ``ratings`` command. Thin: each command parses its options, calls one job, prints the outcome.

Errors of the service (:class:`~ratings.errors.RatingsError`) become one message on standard
error and exit code 1, in one place (:class:`_Group`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, date, datetime
from pathlib import Path
from typing import IO, Any

import click
from sqlalchemy.engine import Engine

from exporters.documents import HISTORY_FORMATS, RANKING_FORMATS, write_history, write_ranking
from exporters.writers import write
from exporters.xlsx import write_xlsx
from ratings.errors import RatingsError
from ratings.tiebreaks import McMahonScale, MissedRounds

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
@click.option(
    "--format", "fmt",
    type=click.Choice(["results", "h9", "trf", "opengotha", "macmahon", "crosstable"]),
    help="Force the kind of file (default: from the extension and the content).",
)  # fmt: skip
@click.option("--name", help="Crosstables: the tournament's name, when the file has none.")
@click.option(
    "--key", help="Crosstables: the federation's tournament key (default: name and end date)."
)
@click.option(
    "--start-date", callback=_date, help="Crosstables: start date, when the file has none."
)
@click.option("--end-date", callback=_date, help="Crosstables: end date, when the file has none.")
@click.option(
    "--tier",
    type=click.Choice(["regular", "national", "international"]),
    default="regular",
    show_default=True,
    help="Crosstables: the event's tier.",
)
@click.option(
    "--missed-rounds",
    type=click.Choice([m.value for m in MissedRounds]),
    help="Crosstables: missed-round policy for the Buchholz (default: the file's own, else none).",
)
@pass_state
def import_command(
    state: _State,
    files: tuple[Path, ...],
    replace: bool,
    dry_run: bool,
    fmt: str | None,
    name: str | None,
    key: str | None,
    start_date: date | None,
    end_date: date | None,
    tier: str,
    missed_rounds: str | None,
) -> None:
    """Import tournament results: results tables in the long format (CSV, XLSX, JSON, Parquet)
    and crosstables (EGD h9, FIDE TRF, OpenGotha XML, MacMahon result lists, crosstable CSV).

    All files are imported together or not at all: any problem in any file imports nothing and
    lists every problem with its file, line, column and value.
    """
    from importers.from_crosstable import EventOptions
    from jobs.importing import import_files

    event = EventOptions(
        name=name,
        key=key,
        start_date=start_date,
        end_date=end_date,
        tier=tier,
        missed_rounds=MissedRounds(missed_rounds) if missed_rounds else None,
    )
    report = import_files(
        state.engine,
        list(files),
        replace=replace,
        dry_run=dry_run,
        fmt=fmt,
        event=event,
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


@cli.command("standings")
@click.argument("file", type=click.Path(path_type=Path))
@click.option(
    "--format", "fmt", type=click.Choice(["csv", "json", "html", "text"]),
    help="Default: from -o, else text.",
)  # fmt: skip
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path),
    help="Write to FILE instead of standard output.",
)
@click.option(
    "--input-format",
    type=click.Choice(["h9", "trf", "opengotha", "macmahon", "crosstable"]),
    help="Force the crosstable format.",
)
@click.option(
    "--policy",
    "missed_rounds",
    type=click.Choice([m.value for m in MissedRounds]),
    help="Missed-round policy (default: the file's own, else plain sums).",
)
@click.option(
    "--handicap/--no-handicap",
    default=None,
    help="Add the handicap to SOS (Go; default: as the file's program does).",
)
@click.option(
    "--bar",
    help="McMahon bar as a Go rank (e.g. 4d), for files that give ranks but no initial scores.",
)
@click.option("--floor", help="McMahon floor as a Go rank (e.g. 20k).")
@click.option(
    "--zero", default="30k", show_default=True, help="The Go rank whose initial McMahon score is 0."
)
@click.option(
    "--round-down/--no-round-down",
    default=None,
    help="Round missed-round credit down to whole points (OpenGotha's option).",
)
def standings_command(
    file: Path,
    fmt: str | None,
    output: Path | None,
    input_format: str | None,
    missed_rounds: str | None,
    handicap: bool | None,
    bar: str | None,
    floor: str | None,
    zero: str,
    round_down: bool | None,
) -> None:
    """The standings of a crosstable with every tie-break (SOS, SOS-1, Median, SODOS, SOSOS,
    CuSS, MDOS, Sonneborn-Berger, wins), without importing anything."""
    from exporters.standings import standings_rows
    from importers.crosstables import read_crosstable
    from importers.from_crosstable import EventOptions, event_policy
    from jobs.importing import CROSSTABLE_FORMATS

    crosstable = read_crosstable(file, CROSSTABLE_FORMATS[input_format] if input_format else None)
    policy = event_policy(
        crosstable,
        EventOptions(missed_rounds=MissedRounds(missed_rounds) if missed_rounds else None),
    )
    if handicap is not None:
        policy = replace(policy, handicap_in_sos=handicap)
    if round_down is not None:
        policy = replace(policy, round_down_missed=round_down)
    if bar is not None or floor is not None:
        policy = replace(
            policy, mcmahon=McMahonScale(bar=bar or "9d", floor=floor or "30k", zero=zero)
        )
    rows = standings_rows(crosstable, policy)
    with _output(output, fmt, ("csv", "json", "html", "text")) as (kind, stream):
        if kind == "html":
            from exporters.html import write_standings_html

            write_standings_html(rows, stream, title=crosstable.name or file.name)
        else:
            write(rows, kind, stream)


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


@contextmanager
def _output(
    path: Path | None, fmt: str | None, formats: tuple[str, ...]
) -> Iterator[tuple[str, IO[bytes]]]:
    """The format (from --format, else the file's extension, else text) and a stream; a file is
    written under a temporary name and renamed when complete, so nobody reads half a file."""
    if fmt is None:
        fmt = path.suffix.lstrip(".").lower() if path is not None else "text"
        if fmt not in formats:
            raise click.BadParameter(f"cannot tell the format from {path}: give --format")
    if path is None:
        if fmt in ("xlsx", "png"):
            raise click.BadParameter(f"{fmt} output needs a file: give -o FILE")
        yield fmt, sys.stdout.buffer
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.partial")
    try:
        with temporary.open("wb") as stream:
            yield fmt, stream
        temporary.replace(path)
    finally:
        temporary.unlink(missing_ok=True)


@cli.command("ranking")
@click.option(
    "--list",
    "period",
    help="A published list (YYYY-MM or YYYY-MM@VERSION) instead of the live ratings.",
)
@click.option("--all", "everyone", is_flag=True, help="Everyone, with an `active` column.")
@click.option(
    "--as-of", callback=_date, help="Live ratings after tournaments ending on or before DATE."
)
@click.option(
    "--format", "fmt", type=click.Choice(RANKING_FORMATS), help="Default: from -o, else text."
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
    period: str | None,
    everyone: bool,
    as_of: date | None,
    fmt: str | None,
    output: Path | None,
    top: int | None,
) -> None:
    """The world ranking, best first: the live ratings, or a published list with --list."""
    from jobs.documents import live_ranking, published_ranking

    settings = state.settings
    with state.engine.connect() as connection:
        if period is not None:
            if as_of is not None:
                raise click.BadParameter("--as-of is for live ratings; a list has its own cut-off")
            document = published_ranking(
                connection, period, everyone=everyone, rounding=settings.rounding
            )
            pending = 0
        else:
            document, pending = live_ranking(
                connection, as_of=as_of or date.today(), everyone=everyone, settings=settings
            )
    if top is not None:
        document = replace(document, rows=document.rows.head(top))
    with _output(output, fmt, RANKING_FORMATS) as (kind, stream):
        write_ranking(document, kind, stream)
    if output is not None:
        click.echo(f"wrote {document.rows.height} players to {output}", err=True)
    if pending:
        click.echo(
            f"note: {pending} tournaments are imported but not rated yet (`ratings run`)", err=True
        )


@cli.command("player")
@click.argument("player_id")
@click.option(
    "--format", "fmt", type=click.Choice(HISTORY_FORMATS), help="Default: from -o, else text."
)
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path),
    help="Write to FILE instead of standard output.",
)
@pass_state
def player_command(state: _State, player_id: str, fmt: str | None, output: Path | None) -> None:
    """One player's history: every tournament with rating before and after, E, P and k, and a
    chart of the rating over time (html, svg, png)."""
    from jobs.documents import player_history

    with state.engine.connect() as connection:
        document = player_history(connection, player_id)
    with _output(output, fmt, HISTORY_FORMATS) as (kind, stream):
        write_history(document, kind, stream)


@cli.command("publish")
@click.argument("period")
@click.option(
    "--cutoff",
    callback=_date,
    help="Include tournaments ending on or before DATE (default: the last day of the month before PERIOD).",
)
@click.option(
    "--republish",
    is_flag=True,
    help="Publish a new version of a period already published (the old one is kept).",
)
@pass_state
def publish_command(state: _State, period: str, cutoff: date | None, republish: bool) -> None:
    """Freeze the list of PERIOD (YYYY-MM): everyone rated by the cut-off. A published list never changes."""
    from exporters.lists import drift
    from jobs.publishing import publish_list
    from ratings.formula import format_exact

    settings = state.settings
    params = settings.melo_params()
    done = publish_list(
        state.engine,
        period,
        cutoff=cutoff,
        republish=republish,
        active_months=settings.active_months,
        initial_rating=params.initial_rating,
        by=settings.imported_by,
        now=_now(),
    )
    info = done.info
    click.echo(
        f"published {info.period} version {info.version} (cut-off {info.cutoff}): "
        f"{info.players} players, {info.active_players} active, mean rating "
        f"{format_exact(info.mean_rating)} (drift {drift(info.mean_rating, info.initial_rating)})"
    )
    if done.replaced is not None:
        click.echo(
            f"version {done.replaced.version} is kept; `ratings diff {period}@{done.replaced.version} {period}@{info.version}` shows what changed"
        )


@cli.command("diff")
@click.argument("old")
@click.argument("new")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["csv", "json", "xlsx", "text"]),
    help="Default: from -o, else text.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path),
    help="Write to FILE instead of standard output.",
)
@pass_state
def diff_command(state: _State, old: str, new: str, fmt: str | None, output: Path | None) -> None:
    """What changed between two published lists (YYYY-MM or YYYY-MM@VERSION), player by player:
    rating change, rank change, entered, left."""
    from jobs.documents import list_diff

    with state.engine.connect() as connection:
        rows = list_diff(connection, old, new, rounding=state.settings.rounding)
    with _output(output, fmt, ("csv", "json", "xlsx", "text")) as (kind, stream):
        if kind == "xlsx":
            write_xlsx(rows, stream, sheet="diff")
        else:
            write(rows, kind, stream)


@cli.command("lists")
@pass_state
def lists_command(state: _State) -> None:
    """Every published list: period, version, cut-off, players, mean rating and its drift."""
    from jobs.documents import published_lists

    with state.engine.connect() as connection:
        write(published_lists(connection), "text", sys.stdout.buffer)


@cli.command("seed")
@click.argument("participants", type=click.Path(path_type=Path))
@click.option(
    "--system",
    type=click.Choice(["swiss", "mcmahon"]),
    required=True,
    help="The pairing system of the event.",
)
@click.option("--pairings", is_flag=True, help="The round-1 pairing instead of the seed list.")
@click.option(
    "--list", "period", help="Seed from a published list (YYYY-MM) instead of the live ratings."
)
@click.option("--bar", help="McMahon bar: a Go rank (4d) or an initial score.")
@click.option("--floor", help="McMahon floor: a Go rank (20k) or an initial score.")
@click.option(
    "--mms-from",
    type=click.Choice(["rank", "rating"]),
    default="rank",
    show_default=True,
    help="McMahon: initial scores from the file's Go ranks, or from ratings.",
)
@click.option(
    "--first-board",
    type=click.Choice(["white", "black"]),
    default="white",
    show_default=True,
    help="Colour of the higher seed on board 1.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["csv", "json", "xlsx", "html", "text"]),
    help="Default: from -o, else text.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path),
    help="Write to FILE instead of standard output.",
)
@pass_state
def seed_command(
    state: _State,
    participants: Path,
    system: str,
    pairings: bool,
    period: str | None,
    bar: str | None,
    floor: str | None,
    mms_from: str,
    first_board: str,
    fmt: str | None,
    output: Path | None,
) -> None:
    """The seed list of an event's participants (CSV/XLSX: player_id or name [+ country], optional
    rank, rating, bye), for a Swiss or McMahon first round; --pairings gives the round-1 pairing."""
    from exporters.seeding import SeedingOptions
    from exporters.seeding_documents import write_seed
    from importers.tabular import detect_format
    from jobs.seeding import seed

    settings = state.settings
    try:
        data = participants.read_bytes()
    except OSError as error:
        raise click.BadParameter(f"cannot read {participants}: {error.strerror}") from None
    try:
        options = SeedingOptions(
            newcomer_rating=settings.melo_params().initial_rating,
            rounding=settings.rounding,
            first_board_white=first_board == "white",
            mms_from=mms_from,
            bar=_limit(bar),
            floor=_limit(floor),
        )
        with state.engine.connect() as connection:
            document = seed(
                connection, data, participants.name, detect_format(participants),
                system=system, pairings=pairings, period=period, options=options,
            )  # fmt: skip
    except ValueError as error:
        raise click.UsageError(str(error)) from None
    with _output(output, fmt, ("csv", "json", "xlsx", "html", "text")) as (kind, stream):
        write_seed(document, kind, stream)
    if output is not None:
        click.echo(f"wrote {document.rows.height} rows to {output}", err=True)


def _limit(value: str | None) -> str | int | None:
    """A bar or floor given as a rank (``4d``) or as a score (``12``)."""
    if value is None:
        return None
    return int(value) if value.lstrip("-").isdigit() else value


@cli.command("monthly")
@click.option("--period", help="The list to publish, YYYY-MM (default: the current month).")
@click.option(
    "--wait",
    type=click.FloatRange(min=0),
    default=0,
    show_default=True,
    help="Seconds to wait for another running job before giving up.",
)
@pass_state
def monthly_command(state: _State, period: str | None, wait: float) -> None:
    """The monthly job, once: import the inbox, rate, publish the period's list, write the exports."""
    from jobs.monthly import run_monthly

    report = run_monthly(
        state.engine, state.settings, today=date.today(), clock=_now, period=period, wait=wait
    )
    click.echo(f"{len(report.accepted)} files imported, {len(report.rejected)} rejected")
    for name in report.rejected:
        click.echo(
            f"  rejected: {name} (see {state.settings.inbox_dir / 'rejected' / name}.errors.txt)"
        )
    click.echo(f"rated {report.tournaments_rated} tournaments, {report.results_rated} results")
    if report.published_version is None:
        click.echo(f"the {report.period} list was already published")
    else:
        click.echo(f"published {report.period} version {report.published_version}")
    click.echo(f"wrote {len(report.exports)} files to {state.settings.publish_dir / report.period}")


@cli.command("jobs")
@click.option(
    "--limit",
    type=click.IntRange(min=1),
    default=20,
    show_default=True,
    help="How many runs to show.",
)
@pass_state
def jobs_command(state: _State, limit: int) -> None:
    """The recent batch runs: start, end, outcome, counts and the error of a failed run."""
    from ratings.storage import repository as repo

    with state.engine.connect() as connection:
        runs = repo.recent_jobs(connection, limit)
    write(runs, "text", sys.stdout.buffer)


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
