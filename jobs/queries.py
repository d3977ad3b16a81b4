"""Every read the command line and the web service make: rankings, lists, histories, job runs,
and whether the database answers. Each assembles what the exporters write from the database and
the pure builders, so that neither the command line nor the web service reads storage itself.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date, datetime
from pathlib import Path

import polars as pl
from sqlalchemy import text
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import SQLAlchemyError

from exporters.documents import HistoryDocument, RankingDocument
from exporters.history import history_rows
from exporters.lists import diff_rows, drift, in_rank_order, list_rows
from exporters.ranking import exact_text, ranking_rows
from exporters.standings import crosstable_cell
from importers.matching import DISPLAY_SCORE, close_players
from jobs.options import ListOptions
from jobs.publishing import find_list
from jobs.publishing import stale_ratings as _stale
from ratings.countries import country_code
from ratings.crosstable import System
from ratings.errors import Candidate, UnknownEventError, UnknownPlayerError
from ratings.list_rules import mean_rating
from ratings.names import name_key
from ratings.parameters import RATING_SCALE, MeloParams, format_exact, format_hundredths
from ratings.rounding import Rounding, published, published_expr
from ratings.storage import list_files, list_pages, players, runs, tournaments, window
from ratings.storage import lists as rating_lists
from ratings.wording import counted


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
    mean = mean_rating(ratings["rating"])
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
        return (
            f"{counted(waiting, 'tournament is', 'tournaments are')} imported but not rated yet; "
            f"the next list includes {'it' if waiting == 1 else 'them'}"
        )
    if stale_ratings(connection, params) is not None:
        return "ratings are being recalculated; the next list includes the changes"
    return None


def published_ranking(
    connection: Connection, name: str, *, everyone: bool, rounding: str
) -> RankingDocument:
    """A published list's ranking (of the active players, or of ``everyone``) as its files
    show it; a list of a federation's size is read as Arrow columns, as the publish folder
    reads it (:func:`.list_files.shown_entries`)."""
    info = find_list(connection, name)
    entries = list_files.shown_entries(connection, info.id, size=info.players)
    return _published(info, entries, everyone, rounding)


def published_rankings(
    connection: Connection, name: str, *, rounding: str, entries: pl.DataFrame | None = None
) -> dict[bool, RankingDocument]:
    """A published list's ranking of the active players (``False``) and of everyone (``True``),
    from one read of its entries: the publish folder holds both, and at a million players each
    read of the list costs seconds. ``entries`` are the list's entries when the caller holds
    them as publishing stored them (``Publication.entries``); then nothing of them is read."""
    info = find_list(connection, name)
    if entries is None:
        entries = rating_lists.list_entries_of(connection, info.id)
    return list_rankings(info, entries, rounding)


def list_rankings(
    info: rating_lists.ListInfo, entries: pl.DataFrame, rounding: str
) -> dict[bool, RankingDocument]:
    """The two rankings of :func:`published_rankings` from the list and its entries."""
    ordered = in_rank_order(entries)
    return {
        everyone: _published(info, ordered, everyone, rounding, ordered=True)
        for everyone in (False, True)
    }


def _published(
    info: rating_lists.ListInfo,
    entries: pl.DataFrame,
    everyone: bool,
    rounding: str,
    *,
    ordered: bool = False,
) -> RankingDocument:
    rows = list_rows(entries, rounding=rounding, everyone=everyone, ordered=ordered)
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


def player_history(
    connection: Connection, federation_id: str, *, rounding: str = Rounding.HALF_UP
) -> HistoryDocument:
    player = players.player_by_federation_id(connection, federation_id)
    if player is None:
        raise UnknownPlayerError(federation_id)
    if player.merged_into is not None:
        raise UnknownPlayerError(federation_id, merged=True)
    history = window.history(connection, player.id)
    rows = history_rows(history)
    rating = (
        "unrated"
        if player.rating is None
        else f"{published(player.rating, rounding)} (exact {format_hundredths(player.rating)})"
    )
    title = f"{player.federation_id} {player.name}" + (f" {player.title}" if player.title else "")
    subtitle = f"{player.country or '-'}, {player.club or 'no club'}; rating {rating}"
    # The line starts at the rating the player brought to the first tournament.
    days = history["start_date"].head(1).to_list() + history["end_date"].to_list()
    points = (
        pl.concat([history["rating_before"].head(1), history["rating_after"]]) / RATING_SCALE
    ).to_list()
    return HistoryDocument(rows, title, subtitle, days, points, rounding)


def list_diff(
    connection: Connection, old: str, new: str, *, rounding: str, exact: bool = False
) -> pl.DataFrame:
    """:func:`~exporters.lists.diff_rows` of two published lists: whole points unless ``exact``."""
    first = find_list(connection, old)
    second = find_list(connection, new)
    return diff_rows(
        rating_lists.list_entries_of(connection, first.id),
        rating_lists.list_entries_of(connection, second.id),
        rounding=rounding,
        exact=exact,
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


BACKUP_KIND = "backup"
"""The job runs recording the service's scheduled backups (``jobs.backup``)."""


def last_run(connection: Connection) -> LastRun | None:
    """The newest batch run other than a backup, or None before the first."""
    return _last(runs.last_job(connection, other_than=BACKUP_KIND))


def last_backup(connection: Connection) -> LastRun | None:
    """The newest scheduled backup's run, or None before the first."""
    return _last(runs.last_job(connection, kind=BACKUP_KIND))


def _last(runs_: pl.DataFrame) -> LastRun | None:
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


# --- the site's pages ----------------------------------------------------------------------------

SEARCH_SCORE = DISPLAY_SCORE
"""Names are found from this score up: the dry run's closest players are shown from it too."""


def search_players(
    connection: Connection, text: str, *, country: str | None = None, limit: int = 20
) -> list[Candidate]:
    """Players by federation id or external id (exactly), else by name, folded and fuzzy, best
    first; ``country`` in any of its codes narrows the search. The names are found and scored
    as the import's review finds and scores them (``importers.matching.close_players``), so a
    name the search finds at a score is the review's candidate at the same score."""
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
    key = name_key(wanted)
    close = close_players(
        pl.DataFrame({"name_key": [key]}, schema={"name_key": pl.String}),
        known.select("id", "name_key"),
        # A word alone (a surname) finds every player holding it, however long the rest of
        # their names: scored as the review scores them, they are shown at any score.
        min_score=SEARCH_SCORE if " " in key else 0.0,
        limit=limit,
    ).join(
        known.select(pl.col("id").alias("candidate"), "federation_id", "name", "country"),
        on="candidate",
        maintain_order="left",
    )
    for pid, score, fid, name, code in close.select(
        "candidate", "score", "federation_id", "name", "country"
    ).rows():
        if all(c.player != pid for c in found):
            found.append(Candidate(round(float(score), 1), pid, fid, name, code))
    last = players.last_events(connection, [c.player for c in found])
    return [
        replace(c, last_event=str(last[c.player]) if c.player in last else None)
        for c in found[:limit]
    ]


@dataclass(frozen=True, slots=True)
class ListFooter:
    """What every page of the site says of the list it stands on."""

    name: str
    cutoff: date
    published: str


def newest_footer(connection: Connection) -> ListFooter | None:
    latest = rating_lists.latest_list(connection)
    if latest is None:
        return None
    return ListFooter(
        f"{latest.period}@{latest.version}", latest.cutoff, f"{latest.created_at:%Y-%m-%d}"
    )


@dataclass(frozen=True, slots=True)
class PlayerPage:
    player_id: str
    name: str
    title: str | None
    country: str | None
    club: str | None
    rating: str
    """The current exact rating in two decimals, or ``unrated``."""
    ranks: list[tuple[str, int | None, int, int | None, int]]
    """Per published list, newest first: name, active rank, rank among everyone, rank in the
    country, whole rating."""
    rows: pl.DataFrame
    """The history as a reader wants it: two decimals, newest first."""
    games: pl.DataFrame
    """The rounds of the events that came as crosstables: key, round, kind (game, forfeit, bye,
    requested_bye, absent), opponent (id and name), colour (w, b), result (+, =, -)."""
    history: HistoryDocument


def player_page(connection: Connection, federation_id: str, *, rounding: str) -> PlayerPage:
    document = player_history(connection, federation_id, rounding=rounding)
    player = players.player_by_federation_id(connection, federation_id)
    assert player is not None  # player_history has refused an unknown id
    history = window.history(connection, player.id)
    lists = list(reversed(rating_lists.all_lists(connection)))
    places = list_pages.player_on_lists(connection, player.id, [i.id for i in lists])
    by_list = {row["list_id"]: row for row in places.iter_rows(named=True)}
    ranks = []
    for info in lists:
        place = by_list.get(info.id)
        if place is None:
            continue
        in_country = place["rank_country"]
        whole = pl.select(published_expr(pl.lit(place["rating"]), rounding)).item()
        ranks.append(
            (f"{info.period}@{info.version}", place["rank"], place["rank_all"], in_country, whole)
        )
    two = RATING_SCALE
    rows = history.select(
        pl.col("end_date").alias("date"), pl.col("tournament").alias("event"), "key", "tier",
        "games", "wins", "draws", "losses",
        (pl.col("buchholz") / 10_000).round(2).alias("buchholz"),
        (pl.col("points_x2") / 2).alias("score"),
        (pl.col("expected") / two).round(2).alias("expected"),
        ((pl.col("rating_after") - pl.col("rating_before")) / two).round(2).alias("change"),
        (pl.col("rating_after") / two).round(2).alias("rating_after"),
    ).reverse()  # fmt: skip
    games = tournaments.player_games(connection, player.id)
    per_game = _player_by_games(connection, player.id, history, games["key"])
    rows = rows.join(per_game, on="key", how="left", maintain_order="left")
    rating = "unrated" if player.rating is None else f"{player.rating / RATING_SCALE:.2f}"
    return PlayerPage(
        player.federation_id, player.name, player.title, player.country, player.club, rating,
        ranks, rows, games, document,
    )  # fmt: skip


def _player_by_games(
    connection: Connection, player: int, history: pl.DataFrame, crosstables: pl.Series
) -> pl.DataFrame:
    """Per rated event that came as a crosstable, the per-game expectation and change beside
    MELO's (two decimals), as :func:`jobs.evaluation.event_expectations` gives them for this
    player: the sum over the games played over the board of ``1 / (1 + 10 ** ((R_opp - R) /
    400))``, and ``k (P - that sum)``; ``crosstables``: the keys of the player's events that
    came as crosstables (their rounds' keys). One query whatever the number of events."""
    from ratings.evaluation import game_expectation  # numpy: only for a page that shows it

    pairs = tournaments.player_game_ratings(connection, player)
    sums = (
        pairs.select(
            "key",
            pl.Series(
                "e",
                game_expectation(pairs["rating"].to_numpy(), pairs["opponent_rating"].to_numpy()),
            ),
        )
        .group_by("key")
        .agg(pl.col("e").sum().alias("expected_by_games"))
    )
    return (
        history.filter(pl.col("key").is_in(crosstables.unique().implode()))
        .join(sums, on="key", how="left")
        .with_columns(pl.col("expected_by_games").fill_null(0.0))
        .select(
            "key",
            pl.col("expected_by_games").round(2),
            (pl.col("k") * ((2 * pl.col("wins") + pl.col("draws")) / 2
                            - pl.col("expected_by_games"))).round(2).alias("change_by_games"),
        )
    )  # fmt: skip


@dataclass(frozen=True, slots=True)
class EventPage:
    key: str
    name: str
    start_date: date
    end_date: date
    tier: str
    status: str
    k: int | None
    standings: pl.DataFrame | None
    """The tournament's standings as ``ratings standings`` computes them from the stored
    crosstable (:func:`jobs.standings.event_standings`), with each player's ``federation_id``; None
    for an event imported as a results table, or when they cannot be computed (``problem``)."""
    problem: str | None
    mcmahon: bool
    results: pl.DataFrame
    """The rating's view: federation_id, name, country, wins, draws, losses (games rated), score
    (their points), buchholz, expected, rating_before, rating_after, change, and beside E and
    the change the per-game ones, expected_by_games and change_by_games (two decimals; ratings
    null before the event is rated, the per-game ones without games); in standing order when there are standings, else
    by score, then Buchholz."""
    crosstable: list[tuple[str, str, str, list[str]]]
    """Per player in standing order (id, name, place), one cell per round as
    :func:`crosstable_cell` writes it, the opponent named by their row in this table."""
    rounds: int


def event_page(connection: Connection, key: str) -> EventPage:
    event = tournaments.event_by_key(connection, key)
    if event is None:
        raise UnknownEventError(f"no event has the key {key}")
    from jobs.evaluation import event_expectations  # numpy: only for a page that shows it

    two = RATING_SCALE
    stored = tournaments.event_results(connection, event)
    by_games = event_expectations(
        stored,
        tournaments.event_games(connection, event),
        event.k if event.seq is not None else None,
    ).select("federation_id", "expected_by_games", "change_by_games")
    results = (
        stored.join(by_games, on="federation_id", how="left", maintain_order="left")
        .with_columns(
            ((2 * pl.col("wins") + pl.col("draws")) / 2).alias("score"),
            (pl.col("buchholz") / 10_000).round(2).alias("buchholz"),
            (pl.col("expected") / two).round(2).alias("expected"),
            (pl.col("rating_before") / two).round(2).alias("rating_before"),
            (pl.col("rating_after") / two).round(2).alias("rating_after"),
            ((pl.col("rating_after") - pl.col("rating_before")) / two).round(2).alias("change"),
        )
        .select(
            "federation_id",
            "name",
            "country",
            "wins",
            "draws",
            "losses",
            "score",
            "buchholz",
            "expected",
            "rating_before",
            "rating_after",
            "change",
            pl.col("expected_by_games").round(2),
            pl.col("change_by_games").round(2),
        )
    )
    from jobs.standings import event_standings  # its readers are for an event's page only

    found = event_standings(connection, event)
    standings = found.rows
    if standings is not None:
        place = {pid: n for n, pid in enumerate(standings["federation_id"].to_list())}
        results = results.sort(
            pl.col("federation_id").replace_strict(
                place, default=len(place), return_dtype=pl.Int64
            ),
            maintain_order=True,
        )
    else:
        results = results.sort(["score", "buchholz"], descending=True, maintain_order=True)
    grid: list[tuple[str, str, str, list[str]]] = []
    rounds = 0
    if found.crosstable is not None:
        players = found.crosstable.players
        rounds = found.crosstable.rounds
        order = (
            [int(i) for i in standings["federation_id"].replace_strict(
                {p.player_id: n for n, p in enumerate(players)}, return_dtype=pl.Int64
            )]
            if standings is not None
            else list(range(len(players)))
        )  # fmt: skip
        places = standings["place"].to_list() if standings is not None else [""] * len(order)
        row_of = {n: row for row, n in enumerate(order, start=1)}
        names = dict(zip(results["federation_id"], results["name"], strict=True))
        for n, place in zip(order, places, strict=True):
            player = players[n]
            cells = [
                crosstable_cell(
                    cell.kind.value,
                    None if cell.opponent is None else row_of[cell.opponent],
                    cell.color.value if cell.color else None,
                    cell.outcome.value,
                )
                for cell in player.cells
            ]
            pid = player.player_id or ""
            grid.append((pid, names.get(pid, player.name), place, cells))
    if standings is not None:
        # The page names players as the registry does, beside links to their pages; the files
        # keep the names as the event's file wrote them, as ``ratings standings`` prints them.
        registry = dict(zip(results["federation_id"], results["name"], strict=True))
        standings = standings.with_columns(
            pl.col("federation_id")
            .replace_strict(registry, default=pl.col("name"))
            .alias("registry_name")
        )
    mcmahon = found.crosstable is not None and found.crosstable.system is System.MCMAHON
    return EventPage(
        event.key, event.name, event.start_date, event.end_date, event.tier, event.status,
        event.k, standings, found.problem, mcmahon, results, grid, rounds,
    )  # fmt: skip


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
        player, players.player_record(connection, player.id), str(last) if last else None, rank
    )
