"""Commands for the officer's inventory of tournaments: list, show, and delete one imported by
mistake."""

from __future__ import annotations

import sys
from datetime import date

import click

from ratings.wording import counted
from service.cli.base import State, cli, confirmed, date_option, declined, pass_state, yes_option

LIST_FORMATS = ("text", "csv", "json")


@cli.group()
def tournaments() -> None:
    """The imported tournaments: list them, show one with its results and source, delete one
    imported by mistake, and list the deleted ones."""


@tournaments.command("list")
@click.option(
    "--from", "ends_from", callback=date_option, help="Only tournaments ending on or after."
)
@click.option("--to", "ends_to", callback=date_option, help="Only tournaments ending on or before.")
@click.option("--player", help="Only tournaments in which this player (federation id) played.")
@click.option(
    "--status",
    type=click.Choice(["pending", "rated"]),
    help="Only tournaments waiting for a run (pending) or rated.",
)
@click.option("--format", "fmt", type=click.Choice(LIST_FORMATS), default="text", show_default=True)
@pass_state
def tournaments_list(
    state: State,
    ends_from: date | None,
    ends_to: date | None,
    player: str | None,
    status: str | None,
    fmt: str,
) -> None:
    """The imported tournaments in rating order (end date, start date, key): key, name, dates,
    tier, status, number of results, file format, who imported it and when."""
    import polars as pl

    from exporters.writers import write
    from jobs.inventory import tournament_list

    with state.reader.connect() as connection:
        found = tournament_list(
            connection, ends_from=ends_from, ends_to=ends_to, player=player, status=status
        )
    if found.height == 0 and fmt == "text":
        click.echo("no tournament found")
        return
    shown = found.with_columns(pl.col("imported_at").dt.strftime("%Y-%m-%d %H:%M"))
    write(shown, fmt, sys.stdout.buffer)


@tournaments.command("deleted")
@click.option("--format", "fmt", type=click.Choice(LIST_FORMATS), default="text", show_default=True)
@pass_state
def tournaments_deleted(state: State, fmt: str) -> None:
    """The audit of deleted tournaments, newest first: what each was (key, name, dates, status,
    results and games, source file and hash, who imported it when) and who deleted it when."""
    import polars as pl

    from exporters.writers import write
    from jobs.inventory import deleted_tournaments

    with state.reader.connect() as connection:
        found = deleted_tournaments(connection)
    if found.height == 0 and fmt == "text":
        click.echo("no tournament was deleted")
        return
    if fmt == "text":
        found = found.select(
            "key", "name", "end_date", "status", "results", "source_name",
            pl.col("deleted_at").dt.strftime("%Y-%m-%d %H:%M"), "deleted_by",
        )  # fmt: skip
    else:
        found = found.with_columns(
            pl.col("imported_at", "deleted_at").dt.strftime("%Y-%m-%d %H:%M:%S")
        )
    write(found, fmt, sys.stdout.buffer)


@tournaments.command("show")
@click.argument("key")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(LIST_FORMATS),
    default="text",
    show_default=True,
    help="text: the whole card; csv and json: the results with MELO's and the per-game expectation.",
)
@pass_state
def tournaments_show(state: State, key: str, fmt: str) -> None:
    """One tournament: its dates, tier and status, the file it came from (name, format, SHA-256)
    and who imported it when, its results (with the rating changes once rated, and beside MELO's
    expected score and change the per-game ones when the games are known), and its games round
    by round when it came as a crosstable. In CSV and JSON the results alone: player_id, name,
    wins, draws, losses, score, rating_before, expected, expected_by_games, rating_after,
    change, change_by_games (ratings, E and the change exact to 10 decimals)."""
    import polars as pl

    from exporters.writers import write
    from jobs.evaluation import tournament_expectations
    from jobs.inventory import tournament_card
    from ratings.parameters import format_exact

    def exact(column: str) -> pl.Expr:
        return pl.col(column).map_elements(format_exact, return_dtype=pl.String)

    with state.reader.connect() as connection:
        card = tournament_card(connection, key)
        _, expectations = tournament_expectations(connection, key)
    # What it prints names the federation's id player_id, as every file of the service does.
    expectations = expectations.rename({"federation_id": "player_id"})
    exact_columns = ("rating_before", "expected", "rating_after", "change")
    if fmt != "text":
        write(expectations.with_columns(exact(c) for c in exact_columns), fmt, sys.stdout.buffer)
        return
    event, source = card.event, card.source
    click.echo(f"{event.key}  {event.name}")
    click.echo(f"dates: {event.start_date} to {event.end_date}  tier: {event.tier}")
    rated = f" (k {event.k}, {source.rated_at:%Y-%m-%d %H:%M})" if source.rated_at else ""
    click.echo(f"status: {event.status}{rated}")
    click.echo(f"source: {source.source_name} ({source.source_format})")
    click.echo(f"sha256: {source.source_hash}")
    click.echo(f"imported: {source.imported_at:%Y-%m-%d %H:%M} by {source.imported_by}")

    results = card.results.select(
        pl.col("federation_id").alias("player_id"), "name", "country", "wins", "draws",
        "losses",
        (pl.col("buchholz") / 10_000).alias("buchholz"),
        exact("rating_before").alias("before"), exact("rating_after").alias("after"),
    )  # fmt: skip
    click.echo(f"\n{counted(results.height, 'result')}:")
    sys.stdout.flush()
    write(results, "text", sys.stdout.buffer)
    if event.seq is not None:
        two = ("expected", "expected_by_games", "change", "change_by_games")
        shown = expectations.select(
            "player_id", "name", "score",
            *(pl.col(c) / 10**10 for c in ("expected", "change")),
            "expected_by_games", "change_by_games",
        ).with_columns(
            pl.col(c).map_elements(lambda v: f"{v:.2f}", return_dtype=pl.String) for c in two
        ).select("player_id", "name", "score", *two)  # fmt: skip
        if shown["expected_by_games"].null_count() < shown.height:
            click.echo(
                "\nMELO's expected score and change beside the per-game ones (two decimals):"
            )
            sys.stdout.flush()
            write(shown, "text", sys.stdout.buffer)
    if card.games.height:
        rounds = card.games["round"].n_unique()
        click.echo(f"\n{counted(card.games.height, 'game')} in {counted(rounds, 'round')}:")
        sys.stdout.flush()
        games = card.games.select(
            "round", pl.col("federation_id").alias("player_id"),
            pl.col("opponent_federation_id").fill_null("-").alias("opponent_id"), "outcome",
            pl.col("color").fill_null("-"), "handicap",
        )  # fmt: skip
        write(games, "text", sys.stdout.buffer)
    else:
        click.echo("no games: it came as a results table")


@tournaments.command("delete")
@click.argument("key")
@yes_option
@pass_state
def tournaments_delete(state: State, key: str, yes: bool) -> None:
    """Delete a wrongly imported tournament with its results and games. Everything rated after
    it is re-rated by the next run (publishing waits for it); who deleted it and when is kept in
    the audit. Asks on a terminal; --yes for scripts."""
    from jobs.inventory import tournament_card
    from jobs.tournaments import delete_tournament

    with state.reader.connect() as connection:
        card = tournament_card(connection, key)
    event = card.event
    click.echo(
        f"{event.key}  {event.name}, {event.start_date} to {event.end_date}, {event.status}, "
        f"{counted(card.results.height, 'result')}, from {card.source.source_name}"
    )
    if not confirmed(f"delete {key}?", f"deleting {key}", yes=yes):
        declined()
        return
    with state.lock():
        report = delete_tournament(
            state.engine, key, by=state.config.imported_by, now=state.clock()
        )
    click.echo(
        f"deleted {report.key} and its {counted(report.results, 'result')}"
        + (": run `ratings run` to re-rate what followed it" if report.rerate else "")
    )
