"""Commands for the player registry: import players and titles, merge duplicates."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ratings.wording import counted
from service.cli.base import (
    State,
    all_option,
    cli,
    confirmed,
    declined,
    echo_listed,
    pass_state,
    yes_option,
)

if TYPE_CHECKING:
    from jobs.inventory import PlayerSide


@cli.group()
def players() -> None:
    """The player registry: import players and titles, search, show and rename them, merge
    duplicates and undo a merge."""


@players.command("import")
@click.argument("file", type=click.Path(path_type=Path))
@click.option(
    "--clear-empty",
    is_flag=True,
    help="An empty cell clears the stored value (without it an empty cell leaves it as it is).",
)
@click.option("--dry-run", is_flag=True, help="Show every field that would change; write nothing.")
@all_option
@pass_state
def players_import(state: State, file: Path, clear_empty: bool, dry_run: bool) -> None:
    """Import or update players (player_id, name, and any of country, club, title, title_date,
    fide_id, egd_pin). Only the columns the file has are updated; an empty cell leaves the
    stored value unless --clear-empty."""
    from jobs.players import import_registry

    with state.lock():
        report = import_registry(
            state.engine,
            file,
            now=state.clock(),
            limit=state.config.input_limit,
            clear_empty=clear_empty,
            dry_run=dry_run,
        )
    echo_listed([f"warning: {w}" for w in report.warnings], err=True, more="more warnings")
    if dry_run:
        new = [f"new player: {player_id} {name}" for player_id, name in report.new_players]
        echo_listed(new, more="more new players")
        echo_listed([f"change: {change}" for change in report.changes], more="more changes")
    created = "would be created" if dry_run else "created"
    click.echo(
        ("dry run, nothing written: " if dry_run else "")
        + f"{counted(report.created, 'player')} {created}, {report.updated} updated, "
        f"{report.unchanged} unchanged, {report.titles_changed} with a changed title"
    )
    if report.titles_changed and not dry_run:
        click.echo("titles changed: run `ratings run` to re-rate the tournaments concerned")


@players.command("merge")
@click.argument("keep")
@click.argument("duplicate")
@yes_option
@all_option
@pass_state
def players_merge(state: State, keep: str, duplicate: str, yes: bool) -> None:
    """Merge player DUPLICATE into KEEP (both federation ids): one person, one history, re-rated
    by the next run. Shows both players side by side and asks on a terminal; --yes for scripts.
    Undo it with `ratings players unmerge DUPLICATE`."""
    from jobs.inventory import merge_preview
    from jobs.players import merge_players

    with state.reader.connect() as connection:
        sides = merge_preview(connection, keep, duplicate)
    for line in side_by_side(sides):
        click.echo(line)
    if not confirmed(
        f"merge {duplicate} into {keep}?", f"merging {duplicate} into {keep}", yes=yes
    ):
        declined()
        return
    with state.lock():
        merge_players(state.engine, keep, duplicate, by=state.config.imported_by, now=state.clock())
    click.echo(f"merged {duplicate} into {keep}: run `ratings run` to re-rate")


def side_by_side(sides: Sequence[PlayerSide]) -> list[str]:
    """The players of a merge in two columns, one line per thing to compare."""
    from ratings.parameters import format_exact

    def cells(side: PlayerSide) -> list[str]:
        p = side.player
        title = f"{p.title} since {p.title_date}" if p.title and p.title_date else p.title
        return [
            p.federation_id,
            p.name,
            p.country or "-",
            p.club or "-",
            title or "-",
            ", ".join(f"{scheme} {value}" for scheme, value in side.identifiers) or "-",
            "unrated" if p.rating is None else format_exact(p.rating),
            f"{side.games} in {counted(side.tournaments, 'tournament')}",
            side.last_event or "-",
        ]

    labels = ["", "id", "name", "country", "club", "title", "external ids", "rating", "games",
              "last event"]  # fmt: skip
    left, right = (["keep", *cells(sides[0])], ["duplicate", *cells(sides[1])])
    label_width = max(map(len, labels)) + 2
    width = max(map(len, left)) + 2
    return [
        f"{label:<{label_width}}{a:<{width}}{b}".rstrip()
        for label, a, b in zip(labels, left, right, strict=True)
    ]


@players.command("unmerge")
@click.argument("players_", metavar="[KEEP] DUPLICATE", nargs=-1, required=True)
@yes_option
@pass_state
def players_unmerge(state: State, players_: tuple[str, ...], yes: bool) -> None:
    """Undo the merge of DUPLICATE (the federation id that was merged away; KEEP, if given, must
    be whom it was merged into): it is a player again with the results, games, external ids and
    spellings it had, and the history is re-rated from its first tournament by the next run.
    Asks on a terminal; --yes for scripts."""
    from jobs.inventory import unmerge_preview
    from jobs.players import unmerge_player

    if len(players_) > 2:
        raise click.UsageError("give DUPLICATE, or KEEP DUPLICATE as for the merge")
    *named, duplicate = players_
    kept = named[0] if named else None
    with state.reader.connect() as connection:
        merge = unmerge_preview(connection, duplicate, kept)
    back = counted(merge.tournaments, "tournament goes", "tournaments go")
    click.echo(
        f"{merge.duplicate} was merged into {merge.kept} on {merge.merged_at:%Y-%m-%d %H:%M} "
        f"by {merge.merged_by}; {back} back to {duplicate}"
    )
    if not confirmed(
        f"undo the merge of {duplicate}?", f"undoing the merge of {duplicate}", yes=yes
    ):
        declined()
        return
    with state.lock():
        report = unmerge_player(
            state.engine, duplicate, kept=kept, by=state.config.imported_by, now=state.clock()
        )
    click.echo(
        f"separated {report.duplicate} from {report.kept}: "
        f"{counted(report.tournaments, 'tournament')} went back to {report.duplicate}"
        + (": run `ratings run` to re-rate" if report.rerate else "")
    )


@players.command("rename")
@click.argument("player_id")
@click.argument("name")
@pass_state
def players_rename(state: State, player_id: str, name: str) -> None:
    """Give player PLAYER_ID the name NAME, as lists and pages show it from the next list on.
    The old name stays a spelling of the player, so files that still write it match him."""
    from jobs.players import rename_player

    with state.lock():
        renamed = rename_player(
            state.engine, player_id, name, by=state.config.imported_by, now=state.clock()
        )
    if renamed.old == renamed.new:
        click.echo(f"{renamed.federation_id} is already named {renamed.new!r}")
        return
    kept = "; the old name is kept as a spelling of the player" if renamed.alias else ""
    click.echo(f"renamed {renamed.federation_id}: {renamed.old!r} -> {renamed.new!r}{kept}")


@players.command("search")
@click.argument("text")
@click.option("--country", help="Only players of this country (any of its codes: DEU, GER, DE).")
@click.option("--limit", type=int, default=20, show_default=True)
@pass_state
def players_search(state: State, text: str, country: str | None, limit: int) -> None:
    """Find players by id, FIDE id or EGD PIN, or by name (folded and fuzzy, best first)."""
    from jobs.queries import search_players

    with state.reader.connect() as connection:
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
    from ratings.parameters import format_exact

    with state.reader.connect() as connection:
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
        click.echo(f"alias: {spelling!r} in {scheme or 'all'} files")
    for duplicate, when, by in card.record.merged:
        click.echo(f"merged: {duplicate} on {when:%Y-%m-%d} by {by}")
