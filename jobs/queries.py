"""Every read the command line and the web service make: rankings, lists, histories, job runs,
and whether the database answers. Each assembles what the exporters write from the database and
the pure builders, so that neither the command line nor the web service reads storage itself.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date, datetime
from pathlib import Path

import polars as pl
from rapidfuzz import fuzz, process
from sqlalchemy import text
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import SQLAlchemyError

from exporters.documents import HistoryDocument, RankingDocument
from exporters.history import history_rows
from exporters.lists import diff_rows, drift, list_rows
from exporters.ranking import exact_text, ranking_rows
from jobs.options import ListOptions
from jobs.publishing import find_list
from jobs.publishing import stale_ratings as _stale
from ratings.countries import country_code
from ratings.errors import Candidate, UnknownPlayerError
from ratings.formula import RATING_SCALE, MeloParams, format_exact
from ratings.names import name_key
from ratings.storage import lists as rating_lists
from ratings.storage import players, runs, tournaments, window


def live_ranking(
    connection: Connection, *, as_of: date, everyone: bool, options: ListOptions
) -> tuple[RankingDocument, int]:
    """The ranking from the current ratings, and how many tournaments wait to be rated."""
    ratings = rating_lists.ranking(connection, as_of)
    rows = ranking_rows(
        ratings,
        as_of=as_of,
        active_months=options.active_months,
        rounding=options.rounding,
        everyone=everyone,
    )
    count = ratings.height
    mean = (2 * int(ratings["rating"].sum()) + count) // (2 * count) if count else 0
    stats = [
        ("players", str(count)),
        ("shown", str(rows.height)),
        ("mean rating", format_exact(mean)),
    ]
    title = "World ranking"
    subtitle = f"Live ratings after tournaments ending on or before {as_of}"
    return RankingDocument(rows, title, subtitle, stats), tournaments.pending_count(connection)


def stale_ratings(connection: Connection, params: MeloParams) -> str | None:
    """Why the current ratings wait for a re-rating (a merge, a title change, a correction,
    changed parameters) with the command to run, or None when they are up to date."""
    stale = _stale(connection, params)
    return None if stale is None else str(stale)


def pending_note(connection: Connection, params: MeloParams) -> str | None:
    """What the website tells visitors while ratings wait for a run: results not rated yet, or
    a re-rating after a merge, a title change, a correction or changed parameters."""
    waiting = tournaments.pending_count(connection)
    if waiting:
        return f"{waiting} tournaments are imported but not rated yet; the next list includes them"
    if stale_ratings(connection, params) is not None:
        return "ratings are being recalculated; the next list includes the changes"
    return None


def published_ranking(
    connection: Connection, name: str, *, everyone: bool, rounding: str
) -> RankingDocument:
    info = find_list(connection, name)
    rows = list_rows(
        rating_lists.list_entries_of(connection, info.id), rounding=rounding, everyone=everyone
    )
    stats = [
        ("players", str(info.players)),
        ("active players", str(info.active_players)),
        ("mean rating", format_exact(info.mean_rating)),
        ("drift from initial", drift(info.mean_rating, info.initial_rating)),
        ("cut-off", str(info.cutoff)),
    ]
    subtitle = (
        f"List {info.period} (version {info.version}): tournaments ending on or before "
        f"{info.cutoff}; published {info.created_at:%Y-%m-%d %H:%M} UTC by {info.created_by}"
    )
    return RankingDocument(rows, f"World ranking {info.period}", subtitle, stats)


def player_history(connection: Connection, federation_id: str) -> HistoryDocument:
    player = players.player_by_federation_id(connection, federation_id)
    if player is None:
        raise UnknownPlayerError(federation_id)
    if player.merged_into is not None:
        raise UnknownPlayerError(federation_id, merged=True)
    history = window.history(connection, player.id)
    rows = history_rows(history)
    rating = "unrated" if player.rating is None else format_exact(player.rating)
    title = f"{player.federation_id} {player.name}" + (f" {player.title}" if player.title else "")
    subtitle = f"{player.country or '-'}, {player.club or 'no club'}; rating {rating}"
    # The line starts at the rating the player brought to the first tournament.
    days = history["start_date"].head(1).to_list() + history["end_date"].to_list()
    points = (
        pl.concat([history["rating_before"].head(1), history["rating_after"]]) / RATING_SCALE
    ).to_list()
    return HistoryDocument(rows, title, subtitle, days, points)


def list_diff(connection: Connection, old: str, new: str, *, rounding: str) -> pl.DataFrame:
    first = find_list(connection, old)
    second = find_list(connection, new)
    return diff_rows(
        rating_lists.list_entries_of(connection, first.id),
        rating_lists.list_entries_of(connection, second.id),
        rounding=rounding,
    )


def published_lists(connection: Connection) -> pl.DataFrame:
    lists = rating_lists.all_lists(connection)
    return pl.DataFrame(
        {
            "list": [f"{i.period}@{i.version}" for i in lists],
            "cutoff": [i.cutoff for i in lists],
            "published": [i.created_at.strftime("%Y-%m-%d %H:%M") for i in lists],
            "players": [i.players for i in lists],
            "active": [i.active_players for i in lists],
            "mean_rating": [i.mean_rating for i in lists],
            "drift": [drift(i.mean_rating, i.initial_rating) for i in lists],
        },
        schema_overrides={"mean_rating": pl.Int64, "cutoff": pl.Date},
    ).with_columns(exact_text(pl.col("mean_rating")).alias("mean_rating"))


def newest_list(connection: Connection) -> str | None:
    """The name (``YYYY-MM@N``) of the list published last, or None before the first."""
    latest = rating_lists.latest_list(connection)
    return None if latest is None else f"{latest.period}@{latest.version}"


def recent_jobs(connection: Connection, limit: int) -> pl.DataFrame:
    """The last ``limit`` batch runs, newest first."""
    return runs.recent_jobs(connection, limit)


@dataclass(frozen=True, slots=True)
class LastRun:
    kind: str
    started_at: datetime
    finished_at: datetime | None
    outcome: str
    """running, succeeded or failed."""
    error: str | None
    files_rejected: int


@dataclass(frozen=True, slots=True)
class InboxState:
    waiting: int
    """Files waiting in the inbox for the next monthly run."""
    corrections: int
    """Corrected files waiting in the inbox's ``corrections/`` folder."""
    rejected: int
    """Files in ``rejected/`` that the officer has not dealt with (moved or deleted) yet."""


def last_run(connection: Connection) -> LastRun | None:
    """The newest batch run, or None before the first."""
    runs_ = runs.recent_jobs(connection, 1)
    if runs_.height == 0:
        return None
    row = runs_.row(0, named=True)
    return LastRun(
        kind=row["kind"],
        started_at=row["started_at"],
        finished_at=row["finished_at"],
        outcome=row["outcome"],
        error=row["error"],
        files_rejected=row["files_rejected"],
    )


def inbox_state(inbox: Path) -> InboxState:
    """How many files wait in the inbox, wait as corrections, and lie rejected."""

    def files(folder: Path, skip: str = "") -> int:
        if not folder.is_dir():
            return 0
        return sum(
            1
            for p in folder.iterdir()
            if p.is_file() and not p.name.startswith(".") and not (skip and p.name.endswith(skip))
        )

    return InboxState(
        waiting=files(inbox),
        corrections=files(inbox / "corrections"),
        rejected=files(inbox / "rejected", skip=".errors.txt"),
    )


def database_answers(engine: Engine) -> bool:
    """Whether the database takes a connection and answers a query."""
    try:
        with engine.connect() as connection:
            connection.execute(text("SELECT 1"))
    except SQLAlchemyError:
        return False
    return True


def search_players(
    connection: Connection, text: str, *, country: str | None = None, limit: int = 20
) -> list[Candidate]:
    """Players by federation id or external id (exactly), else by name, folded and fuzzy, best
    first; ``country`` in any of its codes narrows the search."""
    known = players.known_players(connection).filter(pl.col("merged_into").is_null())
    if country is not None:
        known = known.filter(pl.col("country") == country_code(country))
    wanted = text.strip()
    held = players.identifiers(connection).filter(pl.col("value") == wanted)["player"]
    exact = known.filter((pl.col("federation_id") == wanted) | pl.col("id").is_in(held.implode()))
    found = [
        Candidate(100.0, pid, fid, name, code)
        for pid, fid, name, code in exact.select("id", "federation_id", "name", "country").rows()
    ]
    keys = known["name_key"].to_list()
    for _key, score, index in process.extract(
        name_key(wanted), keys, scorer=fuzz.WRatio, limit=limit, score_cutoff=60
    ):
        pid, fid, name, code = known.select("id", "federation_id", "name", "country").row(index)
        if all(c.player != pid for c in found):
            found.append(Candidate(round(float(score), 1), pid, fid, name, code))
    last = players.last_events(connection, [c.player for c in found])
    return [
        replace(c, last_event=last[c.player][0] if c.player in last else None)
        for c in found[:limit]
    ]


@dataclass(frozen=True, slots=True)
class PlayerCard:
    player: players.PlayerRow
    record: players.PlayerRecord
    last_event: str | None
    rank: int | None
    """Place in the live ranking of active and inactive rated players (None: unrated)."""


def player_card(connection: Connection, federation_id: str) -> PlayerCard:
    """Everything stored about one player, for ``ratings players show``."""
    player = players.player_by_federation_id(connection, federation_id)
    if player is None:
        raise UnknownPlayerError(federation_id)
    if player.merged_into is not None:
        raise UnknownPlayerError(federation_id, merged=True)
    last = players.last_events(connection, [player.id]).get(player.id)
    rank = None
    if player.rating is not None:
        ranking = rating_lists.ranking(connection)
        rank = int((ranking["rating"] > player.rating).sum()) + 1
    return PlayerCard(
        player, players.player_record(connection, player.id), last[0] if last else None, rank
    )
