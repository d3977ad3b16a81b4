"""Seed lists for an event's first round, from the live ratings or a published list (SPEC 7)."""

from __future__ import annotations

import re
from collections.abc import Mapping

import polars as pl
from sqlalchemy.engine import Connection

from exporters.seeding import SeedingOptions, match_participants
from exporters.seeding_documents import SeedDocument
from exporters.seeding_mcmahon import mcmahon_pairings, mcmahon_seed_list
from exporters.seeding_swiss import swiss_pairings, swiss_seed_list
from importers.names import name_key_expr
from importers.participants import read_participants
from jobs.options import ListOptions
from jobs.publishing import find_list
from ratings.errors import OptionValueError, SwissOnlyOptionError
from ratings.storage import lists, players
from ratings.wording import counted

SYSTEMS = ("swiss", "mcmahon")


def seeding_options(
    lists: ListOptions,
    *,
    first_board: str,
    mms_from: str,
    bar: str | None,
    floor: str | None,
    handicap: int = 0,
    handicap_correction: int = 1,
    handicap_threshold: str | None = None,
    handicap_from: str = "mms",
    review_score: float = 85.0,
    unrated: str = "initial",
) -> SeedingOptions:
    """The options of a seed list as a TD gives them (command line or web form), with the
    federation's settings; raises a SeedingOptionError for options that cannot work.
    ``handicap`` is the most handicap a McMahon game gets (0: an even event); ``review_score``
    how close a name must be to a player's to be asked about (the import's setting); ``unrated``
    where a Swiss list puts participants without a rating (``initial`` or ``last``)."""
    return SeedingOptions(
        newcomer_rating=lists.initial_rating,
        rounding=lists.rounding,
        first_board_white=first_board == "white",
        mms_from=mms_from,
        bar=_bar_or_floor(bar),
        floor=_bar_or_floor(floor),
        handicap_ceiling=handicap,
        handicap_correction=handicap_correction,
        handicap_threshold=(handicap_threshold or "").strip() or None,
        handicap_from=handicap_from,
        review_score=review_score,
        unrated=unrated,
    )


def _bar_or_floor(value: str | None) -> str | int | None:
    """A McMahon bar or floor as typed: a Go rank (``4d``), a score (``12``), or nothing."""
    value = (value or "").strip()
    if not value:
        return None
    return int(value) if re.fullmatch(r"-?\d{1,6}", value) else value


def rating_list(connection: Connection, period: str | None) -> tuple[pl.DataFrame, str]:
    """The players to seed from: a published list, or the live ratings; and its description.
    The federation's id is ``player_id`` there, as a participant file and the seed list name it."""
    if period is None:
        known, what = players.seeding_players(connection), "live ratings"
    else:
        info = find_list(connection, period)
        known = lists.list_entries_of(connection, info.id).select(
            "federation_id", "name", name_key_expr("name").alias("name_key"), "country",
            "title", "rating",
        )  # fmt: skip
        what = f"list {info.period} (version {info.version})"
    return known.rename({"federation_id": "player_id"}), what


def seed(
    connection: Connection,
    data: bytes,
    source: str,
    fmt: str,
    *,
    system: str,
    pairings: bool,
    period: str | None,
    options: SeedingOptions,
    answers: Mapping[int, str] | None = None,
) -> SeedDocument:
    """The seed list (or, with ``pairings``, the round-1 pairing) of a participant file;
    ``answers`` are the director's word on participants the list does not settle (line → a
    player_id, or ``new``).

    Raises InputError for problems in the file, UnclearParticipantsError for participants who
    may be one of several players, and SeedingOptionError for impossible options.
    """
    if system not in SYSTEMS:
        raise OptionValueError("the system", system, " or ".join(SYSTEMS))
    if system == "mcmahon" and options.unrated != "initial":
        raise SwissOnlyOptionError("unrated", options.unrated)
    participants = read_participants(data, source, fmt).answered(answers or {})
    known, described = rating_list(connection, period)
    matched = match_participants(participants, known, options)
    if system == "swiss":
        seed_list = swiss_seed_list(matched, options)
        rows = swiss_pairings(seed_list, options) if pairings else seed_list
    else:
        seed_list = mcmahon_seed_list(matched, options)
        rows = mcmahon_pairings(seed_list, options) if pairings else seed_list
    what = "Round 1 pairing" if pairings else "Seed list"
    title = f"{what} ({'Swiss' if system == 'swiss' else 'McMahon'}): {source}"
    subtitle = f"{counted(participants.rows.height, 'participant')}, rated from the {described}"
    return SeedDocument(rows, title, subtitle, pairings, participants.warnings)
