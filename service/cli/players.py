"""Commands for the player registry: import players and titles, merge duplicates."""

from __future__ import annotations

from pathlib import Path

import click

from service.cli.base import State, cli, pass_state


@cli.group()
def players() -> None:
    """The player registry: import players and titles, merge duplicates."""


@players.command("import")
@click.argument("file", type=click.Path(path_type=Path))
@pass_state
def players_import(state: State, file: Path) -> None:
    """Import or update players (player_id, name, country, club, title, title_date)."""
    from jobs.players import import_registry

    with state.lock():
        report = import_registry(
            state.engine, file, now=state.clock(), limit=state.config.input_limit
        )
    for warning in report.warnings:
        click.echo(f"warning: {warning}", err=True)
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
def players_merge(state: State, keep: str, duplicate: str) -> None:
    """Merge player DUPLICATE into KEEP (both federation ids); the history is re-rated."""
    from jobs.players import merge_players

    with state.lock():
        merge_players(state.engine, keep, duplicate, by=state.config.imported_by, now=state.clock())
    click.echo(f"merged {duplicate} into {keep}: run `ratings run` to re-rate")
