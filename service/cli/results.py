"""Commands that bring results in and rate them: import, standings, run."""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import replace
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

import click

from importers.formats import IMPORT_FORMATS
from ratings.errors import Problem, ReviewError
from ratings.tiebreaks import McMahonScale, MissedRounds
from ratings.tiers import Tier
from ratings.wording import counted
from service.cli.base import (
    ProgressBar,
    State,
    all_option,
    cli,
    date_option,
    echo_listed,
    output_options,
    output_stream,
    pass_state,
)

if TYPE_CHECKING:
    from jobs.options import MatchOptions

STANDINGS_FORMATS = ("csv", "json", "html", "text")


@cli.command("import")
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--replace", is_flag=True, help="Correct tournaments already imported (re-rates what follows)."
)
@click.option(
    "--dry-run",
    is_flag=True,
    help="Check the files and report, with every player it would create or match by name "
    "alone; write nothing.",
)
@click.option(
    "--map",
    "answers_file",
    type=click.Path(path_type=Path, exists=True, dir_okay=False),
    help="Answers to the review: a CSV of name,player_id lines (player_id or 'new').",
)
@click.option(
    "--format", "fmt",
    type=click.Choice(list(IMPORT_FORMATS)),
    help="Force the kind of file (default: from the extension and the content).",
)  # fmt: skip
@click.option("--name", help="Crosstables: the tournament's name, when the file has none.")
@click.option(
    "--key", help="Crosstables: the federation's tournament key (default: name and end date)."
)
@click.option(
    "--start-date", callback=date_option, help="Crosstables: start date, when the file has none."
)
@click.option(
    "--end-date", callback=date_option, help="Crosstables: end date, when the file has none."
)
@click.option(
    "--tier",
    type=click.Choice([tier.value for tier in Tier]),
    default="regular",
    show_default=True,
    help="Crosstables: the event's tier.",
)
@click.option(
    "--missed-rounds",
    "--policy",
    "missed_rounds",
    type=click.Choice([m.value for m in MissedRounds]),
    help="Crosstables: missed-round policy for the Buchholz (default: the file's own or, for "
    "TRF, its year's FIDE rule; else none).",
)
@click.option(
    "--rounds",
    type=click.IntRange(min=1),
    help="Crosstables: read only rounds 1 to N (how an unfinished event can be rated).",
)
@all_option
@pass_state
def import_command(
    state: State,
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
    answers_file: Path | None,
    rounds: int | None,
) -> None:
    """Import tournament results: results tables in the long format (CSV, XLSX, JSON, Parquet)
    and crosstables (EGD h9, FIDE TRF, OpenGotha XML, MacMahon result lists, crosstable CSV).

    All files are imported together or not at all: any problem in any file imports nothing and
    lists every problem with its file, line, column and value. A name that may be a known player
    (a close name, a letter lost to a wrong encoding, an external id held by another name) is
    never created silently: the import stops and lists the candidates; answer with --map, or at
    the prompt on a terminal. Answers are remembered for the next files.
    """
    from importers.answers import read_answers
    from importers.from_crosstable import EventOptions
    from importers.tabular import read_file_bytes
    from jobs.reading import read_files

    event = EventOptions(
        name=name,
        key=key,
        start_date=start_date,
        end_date=end_date,
        tier=tier,
        missed_rounds=MissedRounds(missed_rounds) if missed_rounds else None,
        rounds=rounds,
    )
    answers: dict[str, str] = {}
    if answers_file is not None:
        answers = read_answers(read_file_bytes(answers_file), answers_file.name)
    # Read and checked once, however many times the officer answers a review, while the
    # database is opened.
    state.open_ahead("jobs.importing")
    checked = read_files(list(files), fmt, event, state.config.input_limit)
    from jobs.importing import import_read

    while True:
        try:
            with nullcontext() if dry_run else state.lock():
                report = import_read(
                    state.engine,
                    checked,
                    replace=replace,
                    dry_run=dry_run,
                    imported_by=state.config.imported_by,
                    now=state.clock(),
                    matching=replace_answers(state.config.matching, answers),
                )
        except ReviewError as review:
            if not (sys.stdin.isatty() and sys.stdout.isatty()):
                raise
            answers.update(ask(review))
            continue
        break
    _show_warnings(report.warnings)
    verb = "would import" if dry_run else "imported"
    # The noun agrees with the count nearest to it: "1 new and 0 corrected tournaments".
    one = (report.tournaments_new, report.tournaments_replaced) == (0, 1)
    tournaments = "tournament" if one else "tournaments"
    click.echo(
        f"{verb} {report.tournaments_new} new and {report.tournaments_replaced} corrected "
        f"{tournaments}, {counted(report.results, 'result')}, "
        f"{counted(report.players_new, 'new player')} from {counted(report.files, 'file')}"
    )
    echo_listed(
        [f"matched by name alone: {match}" for match in report.by_name],
        more="more matched by name alone",
    )
    if dry_run:
        new = [
            "\n".join(
                [
                    f"new player {p.federation_id}: {p.name} ({p.country or '-'})",
                    *(f"      close: {candidate}" for candidate in p.closest),
                ]
            )
            for p in report.new_players
        ]
        echo_listed(new, more="more new players")
        to_review = [f"needs review: {uncertain}" for uncertain in report.uncertain]
        echo_listed(to_review, more="more names to review")
    if not dry_run:
        click.echo("run `ratings run` to rate them")


def _show_warnings(warnings: Sequence[Problem]) -> None:
    """Each guess a reader made, on stderr: standard output stays the report or the standings."""
    echo_listed([f"warning: {w}" for w in warnings], err=True, more="more warnings")


def replace_answers(options: MatchOptions, answers: dict[str, str]) -> MatchOptions:
    return dataclasses.replace(options, answers=dict(answers))


def ask(review: ReviewError) -> dict[str, str]:
    """The officer's answer for each uncertain name, at the terminal."""
    answers: dict[str, str] = {}
    for uncertain in review.uncertain:
        click.echo(str(uncertain))
        choices = {str(i): c.federation_id for i, c in enumerate(uncertain.candidates, 1)}
        while True:
            answer = click.prompt(
                "  which player? (a number above, a player id, 'new', or 'stop')",
                default="stop",
            ).strip()
            if answer == "stop":
                raise review
            if answer:
                answers[uncertain.name] = choices.get(answer, answer)
                break
    return answers


@cli.command("standings")
@click.argument("file", type=click.Path(path_type=Path), required=False)
@click.option(
    "--event",
    "event_key",
    metavar="KEY",
    help="The standings of an imported event (by its key) instead of a file, computed from its "
    "stored crosstable as the site's /events/KEY.csv gives them.",
)
@output_options(STANDINGS_FORMATS)
@click.option(
    "--input-format",
    type=click.Choice([name for name, fmt in IMPORT_FORMATS.items() if fmt]),
    help="Force the crosstable format.",
)
@click.option(
    "--policy",
    "missed_rounds",
    type=click.Choice([m.value for m in MissedRounds]),
    help="Missed-round policy; fide_2009/fide_2023/fide_2026 are FIDE's rules of those years "
    "(default: the file's own or its year's, else plain sums).",
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
@click.option(
    "--rounds",
    type=click.IntRange(min=1),
    help="The standings after round N (default: the last round with every result known).",
)
@all_option
@pass_state
def standings_command(
    state: State,
    file: Path | None,
    event_key: str | None,
    fmt: str | None,
    output: Path | None,
    input_format: str | None,
    missed_rounds: str | None,
    handicap: bool | None,
    bar: str | None,
    floor: str | None,
    zero: str,
    round_down: bool | None,
    rounds: int | None,
) -> None:
    """The standings of a crosstable with every tie-break (SOS, SOS-1, Median, SODOS, SOSOS,
    CuSS, MDOS, Sonneborn-Berger, wins), without importing anything; or, with --event, of an
    imported event."""
    from exporters.standings import standings_rows
    from exporters.writers import write
    from importers.crosstables import read_crosstable
    from importers.from_crosstable import EventOptions, event_policy, through_rounds

    if (file is None) == (event_key is None):
        raise click.UsageError("give a crosstable FILE or --event KEY (one of them)")
    if event_key is not None:
        given = {
            "--input-format": input_format, "--policy": missed_rounds, "--handicap": handicap,
            "--bar": bar, "--floor": floor, "--round-down": round_down, "--rounds": rounds,
        }  # fmt: skip
        named = [name for name, value in given.items() if value is not None]
        if named:
            raise click.UsageError(
                f"{named[0]} applies to a file: an imported event's standings are computed as "
                "it was imported"
            )
        from jobs.standings import standings_file

        with state.reader.connect() as connection:
            found = standings_file(connection, event_key)
        standings = f"the standings of {event_key} ({counted(found.height, 'player')})"
        with output_stream(output, fmt, STANDINGS_FORMATS, what=standings) as (kind, stream):
            if kind == "html":
                from exporters.html import write_standings_html

                write_standings_html(found, stream, title=event_key)
            else:
                write(found, kind, stream)
        return
    assert file is not None
    crosstable = read_crosstable(file, IMPORT_FORMATS[input_format] if input_format else None)
    _show_warnings(crosstable.warnings)
    crosstable = through_rounds(crosstable, rounds)
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
    standings = f"the standings of {counted(rows.height, 'player')}"
    with output_stream(output, fmt, STANDINGS_FORMATS, what=standings) as (kind, stream):
        if kind == "html":
            from exporters.html import write_standings_html
            from exporters.standings import crosstable_grid

            write_standings_html(
                rows, stream, title=crosstable.name or file.name, grid=crosstable_grid(crosstable)
            )
        else:
            write(rows, kind, stream)


@cli.command("run")
@click.option("--full", is_flag=True, help="Re-rate the whole history from scratch.")
@pass_state
def run_command(state: State, full: bool) -> None:
    """Rate pending tournaments in chronological order (re-rating after late or corrected ones)."""
    from jobs.rating import run_ratings
    from jobs.runs import recorded

    with (
        state.lock(),
        recorded(state.engine, "run --full" if full else "run", state.clock) as record,
        ProgressBar("rating") as progress,
    ):
        report = run_ratings(
            state.engine, state.config.rating, now=state.clock(), full=full, progress=progress
        )
        record.count(tournaments_rated=report.tournaments, results_rated=report.results)
    if report.start is None:
        click.echo("nothing to rate")
    else:
        click.echo(
            f"rated {counted(report.tournaments, 'tournament')}, "
            f"{counted(report.results, 'result')}, {counted(report.players, 'player')}"
        )
