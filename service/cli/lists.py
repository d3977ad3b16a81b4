"""Commands that publish and show lists: ranking, player, publish, diff, lists."""

from __future__ import annotations

import sys
from dataclasses import replace
from datetime import date
from pathlib import Path

import click

from exporters.formats import HISTORY_FORMATS, RANKING_FORMATS
from ratings.wording import counted
from service.cli.base import (
    State,
    cli,
    date_option,
    output_options,
    output_stream,
    pass_state,
)

DIFF_FORMATS = ("csv", "json", "xlsx", "text")


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
    from exporters.documents import write_ranking
    from jobs.queries import live_ranking, published_ranking, stale_ratings

    lists = state.config.lists
    with state.reader.connect() as connection:
        stale = stale_ratings(connection, state.config.rating)
        if period is not None:
            if as_of is not None:
                raise click.BadParameter("--as-of is for live ratings; a list has its own cut-off")
            document = published_ranking(
                connection, period, everyone=everyone, rounding=lists.rounding
            )
            pending = 0
        else:
            document, pending = live_ranking(
                connection, as_of=as_of or state.today(), everyone=everyone, options=lists
            )
    if top is not None:
        document = replace(document, rows=document.rows.head(top))
    players = counted(document.rows.height, "player")
    with output_stream(output, fmt, RANKING_FORMATS, what=players) as (kind, stream):
        write_ranking(document, kind, stream)
    if pending:
        click.echo(
            f"note: {counted(pending, 'tournament is', 'tournaments are')} imported but not "
            "rated yet (`ratings run`)",
            err=True,
        )
    if stale is not None:
        click.echo(f"note: {stale}", err=True)


@cli.command("player")
@click.argument("player_id")
@output_options(HISTORY_FORMATS)
@pass_state
def player_command(state: State, player_id: str, fmt: str | None, output: Path | None) -> None:
    """One player's history: every tournament with rating before and after, E, P and k, and a
    chart of the rating over time (html, svg, png)."""
    from exporters.documents import write_history
    from jobs.queries import player_history

    with state.reader.connect() as connection:
        document = player_history(connection, player_id, rounding=state.config.lists.rounding)
    history = f"the history of {document.title} ({counted(document.rows.height, 'tournament')})"
    with output_stream(output, fmt, HISTORY_FORMATS, what=history) as (kind, stream):
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
    from jobs.folder import publish_with_files
    from ratings.parameters import format_exact

    config = state.config
    with state.lock():
        done = publish_with_files(
            state.engine,
            period,
            config.lists,
            publish_dir=config.monthly.publish_dir,
            params=config.rating,
            cutoff=cutoff,
            republish=republish,
            by=config.imported_by,
            now=state.clock(),
        )
    info = done.info
    click.echo(
        f"published {info.period} version {info.version} (cut-off {info.cutoff}): "
        f"{counted(info.players, 'player')}, {info.active_players} active, mean rating "
        f"{format_exact(info.mean_rating)} (drift {drift(info.mean_rating, info.initial_rating)})"
    )
    if done.replaced is not None:
        click.echo(
            f"version {done.replaced.version} is kept; `ratings diff {period}@{done.replaced.version} {period}@{info.version}` shows what changed"
        )
    click.echo(f"wrote the list's files to {config.monthly.publish_dir / info.period}")


@cli.command("diff")
@click.argument("old")
@click.argument("new")
@click.option(
    "--exact",
    is_flag=True,
    help="Exact ratings and changes (10 decimals); by default whole points, as the lists show them.",
)
@output_options(DIFF_FORMATS)
@pass_state
def diff_command(
    state: State, old: str, new: str, exact: bool, fmt: str | None, output: Path | None
) -> None:
    """What changed between two published lists (YYYY-MM or YYYY-MM@VERSION), player by player:
    rating change, rank change, entered, left. In whole points unless --exact."""
    from exporters.writers import write
    from exporters.xlsx import write_xlsx
    from jobs.queries import list_diff

    with state.reader.connect() as connection:
        rows = list_diff(connection, old, new, rounding=state.config.lists.rounding, exact=exact)
    changes = f"{counted(rows.height, 'change')} from {old} to {new}"
    with output_stream(output, fmt, DIFF_FORMATS, what=changes) as (kind, stream):
        if kind == "xlsx":
            write_xlsx(rows, stream, sheet="diff")
        else:
            write(rows, kind, stream)


@cli.command("lists")
@pass_state
def lists_command(state: State) -> None:
    """Every published list: period, version, cut-off, players, mean rating and its drift."""
    from exporters.writers import write
    from jobs.queries import published_lists

    with state.reader.connect() as connection:
        write(published_lists(connection), "text", sys.stdout.buffer)
