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


@players.command("search")
@click.argument("text")
@click.option("--country", help="Only players of this country (any of its codes: DEU, GER, DE).")
@click.option("--limit", type=int, default=20, show_default=True)
@pass_state
def players_search(state: State, text: str, country: str | None, limit: int) -> None:
    """Find players by id, FIDE id or EGD PIN, or by name (folded and fuzzy, best first)."""
    from jobs.queries import search_players

    with state.engine.connect() as connection:
        found = search_players(connection, text, country=country, limit=limit)
    if not found:
        click.echo("no player found")
    for candidate in found:
        click.echo(str(candidate))


@players.command("show")
@click.argument("player_id")
@pass_state
def players_show(state: State, player_id: str) -> None:
    """Everything stored about a player: ids, spellings, title, rating, rank, last event, merges."""
    from jobs.queries import player_card
    from ratings.formula import format_exact

    with state.engine.connect() as connection:
        card = player_card(connection, player_id)
    player = card.player
    rating = "unrated" if player.rating is None else format_exact(player.rating)
    click.echo(f"{player.federation_id}  {player.name}")
    click.echo(f"country: {player.country or '-'}  club: {player.club or '-'}")
    title = f"{player.title} since {player.title_date}" if player.title_date else player.title
    click.echo(f"title: {title or '-'}")
    click.echo(f"rating: {rating}" + (f"  rank: {card.rank}" if card.rank else ""))
    click.echo(f"last event: {card.last_event or '-'}")
    for scheme, value in card.record.identifiers:
        click.echo(f"id: {scheme} {value}")
    for scheme, spelling in card.record.aliases:
        click.echo(f"alias: {spelling!r} in {scheme} files")
    for duplicate, when, by in card.record.merged:
        click.echo(f"merged: {duplicate} on {when:%Y-%m-%d} by {by}")
