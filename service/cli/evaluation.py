"""``ratings evaluate``: how well the list predicted the results it rated, with a k sweep and the
MELO document's claims measured on the federation's own history. It only reads."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import click

from ratings.wording import counted
from service.cli.base import State, cli, date_option, output_options, output_stream, pass_state

EVALUATION_FORMATS = ("text", "json", "csv", "html")


@cli.command("evaluate")
@click.option(
    "--from",
    "date_from",
    callback=date_option,
    help="Judge results of events ending on or after DATE.",
)
@click.option(
    "--to",
    "date_to",
    callback=date_option,
    help="Judge results of events ending on or before DATE.",
)
@click.option(
    "--pair-games",
    type=click.IntRange(min=1),
    default=20,
    show_default=True,
    help="Games against each other that make a pair of the 1000 games problem.",
)
@output_options(EVALUATION_FORMATS)
@pass_state
def evaluate_command(
    state: State,
    date_from: date | None,
    date_to: date | None,
    pair_games: int,
    fmt: str | None,
    output: Path | None,
) -> None:
    """How good the list is: the walk-forward error of every rated result (E from the ratings
    before its event, as stored), calibration, the error per tier, the per-game Brier score of
    crosstable events, a k sweep per tier (the history re-rated in memory; nothing is changed)
    and the MELO document's claims (pool mean at 1000, 190 and 382 points, the 1000 games
    problem)."""
    from exporters.evaluation import write_evaluation
    from jobs.evaluation import evaluation

    if date_from is not None and date_to is not None and date_to < date_from:
        raise click.BadParameter(f"{date_to} is before --from {date_from}", param_hint="--to")
    with state.reader.connect() as connection:
        report = evaluation(
            connection, state.config.rating, date_from=date_from, date_to=date_to,
            pair_games=pair_games,
        )  # fmt: skip
    found = report.evaluation
    what = f"the evaluation of {counted(found.figures['results'], 'rated result')}"
    with output_stream(output, fmt, EVALUATION_FORMATS, what=what) as (kind, stream):
        write_evaluation(found.figures, found.change, found.change_by_games, kind, stream)
