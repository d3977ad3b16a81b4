"""Commands that publish: ranking, player, publish, diff, lists, seed."""

from __future__ import annotations

import sys
from dataclasses import replace
from datetime import date
from pathlib import Path

import click

from exporters.documents import HISTORY_FORMATS, RANKING_FORMATS, write_history, write_ranking
from exporters.writers import write
from exporters.xlsx import write_xlsx
from jobs.cli.base import (
    State,
    cli,
    date_option,
    output_options,
    output_stream,
    pass_state,
    utc_now,
)

DIFF_FORMATS = ("csv", "json", "xlsx", "text")
SEED_FORMATS = ("csv", "json", "xlsx", "html", "text")


@cli.command("ranking")
@click.option(
    "--list",
    "period",
    help="A published list (YYYY-MM or YYYY-MM@VERSION) instead of the live ratings.",
)
@click.option("--all", "everyone", is_flag=True, help="Everyone, with an `active` column.")
@click.option(
    "--as-of", callback=date_option, help="Live ratings after tournaments ending on or before DATE."
)
@output_options(RANKING_FORMATS)
@click.option("--top", type=click.IntRange(min=1), help="Only the first N rows.")
@pass_state
def ranking_command(
    state: State,
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
    with output_stream(output, fmt, RANKING_FORMATS) as (kind, stream):
        write_ranking(document, kind, stream)
    if output is not None:
        click.echo(f"wrote {document.rows.height} players to {output}", err=True)
    if pending:
        click.echo(
            f"note: {pending} tournaments are imported but not rated yet (`ratings run`)", err=True
        )


@cli.command("player")
@click.argument("player_id")
@output_options(HISTORY_FORMATS)
@pass_state
def player_command(state: State, player_id: str, fmt: str | None, output: Path | None) -> None:
    """One player's history: every tournament with rating before and after, E, P and k, and a
    chart of the rating over time (html, svg, png)."""
    from jobs.documents import player_history

    with state.engine.connect() as connection:
        document = player_history(connection, player_id)
    with output_stream(output, fmt, HISTORY_FORMATS) as (kind, stream):
        write_history(document, kind, stream)


@cli.command("publish")
@click.argument("period")
@click.option(
    "--cutoff",
    callback=date_option,
    help="Include tournaments ending on or before DATE (default: the last day of the month before PERIOD).",
)
@click.option(
    "--republish",
    is_flag=True,
    help="Publish a new version of a period already published (the old one is kept).",
)
@pass_state
def publish_command(state: State, period: str, cutoff: date | None, republish: bool) -> None:
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
        now=utc_now(),
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
@output_options(DIFF_FORMATS)
@pass_state
def diff_command(state: State, old: str, new: str, fmt: str | None, output: Path | None) -> None:
    """What changed between two published lists (YYYY-MM or YYYY-MM@VERSION), player by player:
    rating change, rank change, entered, left."""
    from jobs.documents import list_diff

    with state.engine.connect() as connection:
        rows = list_diff(connection, old, new, rounding=state.settings.rounding)
    with output_stream(output, fmt, DIFF_FORMATS) as (kind, stream):
        if kind == "xlsx":
            write_xlsx(rows, stream, sheet="diff")
        else:
            write(rows, kind, stream)


@cli.command("lists")
@pass_state
def lists_command(state: State) -> None:
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
@output_options(SEED_FORMATS)
@pass_state
def seed_command(
    state: State,
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
    from exporters.seeding_documents import write_seed
    from importers.tabular import detect_format
    from jobs.seeding import seed, seeding_options
    from ratings.errors import SeedingOptionError

    settings = state.settings
    try:
        data = participants.read_bytes()
    except OSError as error:
        raise click.BadParameter(f"cannot read {participants}: {error.strerror}") from None
    try:
        options = seeding_options(
            settings, first_board=first_board, mms_from=mms_from, bar=bar, floor=floor
        )
        with state.engine.connect() as connection:
            document = seed(
                connection, data, participants.name, detect_format(participants),
                system=system, pairings=pairings, period=period, options=options,
            )  # fmt: skip
    except SeedingOptionError as error:
        raise click.UsageError(str(error)) from None
    with output_stream(output, fmt, SEED_FORMATS) as (kind, stream):
        write_seed(document, kind, stream)
    if output is not None:
        click.echo(f"wrote {document.rows.height} rows to {output}", err=True)
