"""The command that seeds an event's first round from the ratings: seed."""

from __future__ import annotations

from pathlib import Path

import click

from ratings.wording import counted
from service.cli.base import (
    State,
    all_option,
    cli,
    echo_listed,
    output_options,
    output_stream,
    pass_state,
)

SEED_FORMATS = ("csv", "json", "xlsx", "html", "text")


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
    "--handicap",
    type=click.IntRange(0, 9),
    default=0,
    show_default=True,
    help="McMahon: the most handicap a game gets (0: every game even).",
)
@click.option(
    "--handicap-correction",
    type=click.IntRange(0, 9),
    default=1,
    show_default=True,
    help="McMahon: a game's handicap is the difference of strengths less this.",
)
@click.option(
    "--handicap-threshold", help="McMahon: a Go rank (1d) from which up nobody gets handicap."
)
@click.option(
    "--handicap-from",
    type=click.Choice(["mms", "rank"]),
    default="mms",
    show_default=True,
    help="McMahon: handicap from the initial scores' difference, or the ranks'.",
)
@click.option(
    "--first-board",
    type=click.Choice(["white", "black"]),
    default="white",
    show_default=True,
    help="Colour of the higher seed on board 1.",
)
@click.option(
    "--unrated",
    type=click.Choice(["initial", "last"]),
    default="initial",
    show_default=True,
    help="Swiss: players without a rating at the initial rating among the rated, or seeded "
    "after every rated player (by title, then name).",
)
@output_options(SEED_FORMATS)
@all_option
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
    handicap: int,
    handicap_correction: int,
    handicap_threshold: str | None,
    handicap_from: str,
    first_board: str,
    unrated: str,
    fmt: str | None,
    output: Path | None,
) -> None:
    """The seed list of an event's participants (CSV/XLSX: player_id or name [+ country], optional
    rank, rating, bye), for a Swiss or McMahon first round; --pairings gives the round-1 pairing.

    A name several players may have is not guessed: the players it may be are listed, and the
    file gives the player_id (or new for a newcomer)."""
    from exporters.seeding_documents import write_seed
    from importers.formats import table_format_of
    from importers.tabular import read_file_bytes
    from jobs.seeding import seed, seeding_options
    from ratings.errors import SeedingOptionError

    # A participant file is held to the web upload's limit (and to PARTICIPANTS' rows).
    data = read_file_bytes(participants, state.config.web.upload_limit, "upload_limit_bytes")
    try:
        options = seeding_options(
            state.config.lists, first_board=first_board, mms_from=mms_from, bar=bar, floor=floor,
            handicap=handicap, handicap_correction=handicap_correction,
            handicap_threshold=handicap_threshold, handicap_from=handicap_from,
            review_score=state.config.matching.review_score, unrated=unrated,
        )  # fmt: skip
        with state.reader.connect() as connection:
            document = seed(
                connection, data, participants.name, table_format_of(participants),
                system=system, pairings=pairings, period=period, options=options,
            )  # fmt: skip
    except SeedingOptionError as error:
        raise click.UsageError(str(error)) from None
    echo_listed([f"warning: {w}" for w in document.warnings], err=True, more="more warnings")
    rows = counted(document.rows.height, "row")
    with output_stream(output, fmt, SEED_FORMATS, what=rows) as (kind, stream):
        write_seed(document, kind, stream)
