"""Every read and write the jobs make, as functions of an open connection.

Callers own the transaction (``engine.begin()``): a job is one transaction, so a failure or a kill
leaves the database as it was before the job.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

import numpy as np
import polars as pl
from sqlalchemy import (
    Select,
    and_,
    delete,
    func,
    insert,
    or_,
    select,
    true,
    tuple_,
    update,
)
from sqlalchemy.engine import Connection

from ratings.storage import frames
from ratings.storage.bulk import insert_frame, insert_rows, update_by_id, update_from_frame
from ratings.storage.frames import (
    ENTRY_SCHEMA,
    HISTORY_SCHEMA,
    JOB_SCHEMA,
    KNOWN_SCHEMA,
    PLAYER_RATINGS,
    RANKING_SCHEMA,
    SEEDING_SCHEMA,
    STORED_BUCHHOLZ,
    WINDOW_RESULTS,
    WINDOW_TOURNAMENTS,
    chunks,
    read_frame,
)
from ratings.storage.schema import (
    games,
    job_runs,
    list_entries,
    player_merges,
    players,
    published_lists,
    rating_changes,
    rating_state,
    results,
    tournaments,
)

# --- players -------------------------------------------------------------------------------


def known_players(connection: Connection) -> pl.DataFrame:
    query = select(
        players.c.id, players.c.federation_id, players.c.name_key, players.c.country,
        players.c.merged_into,
    )  # fmt: skip
    return read_frame(connection, query, KNOWN_SCHEMA)


def insert_players(connection: Connection, frame: pl.DataFrame, now: datetime) -> None:
    """Create players from a frame with federation_id, name, name_key, country, club columns."""
    if frame.height == 0:
        return
    rows = frame.select(
        "federation_id", "name", "name_key", "country", "club", pl.lit(now).alias("created_at")
    )
    insert_frame(connection, players, rows)


def player_ids(connection: Connection, federation_ids: Sequence[str]) -> dict[str, int]:
    """Database ids of the given federation ids (merged players resolve to whom they merged into)."""
    found: dict[str, int] = {}
    if len(federation_ids) > frames.WHOLE_TABLE_FROM:
        everyone = read_frame(
            connection,
            select(players.c.federation_id, func.coalesce(players.c.merged_into, players.c.id)),
            {"federation_id": pl.String, "id": pl.Int64},
        ).filter(
            pl.col("federation_id").is_in(
                pl.Series(list(federation_ids), dtype=pl.String).implode()
            )
        )
        return dict(zip(everyone["federation_id"], everyone["id"], strict=True))
    for chunk in chunks(list(federation_ids), 5000):
        query = select(
            players.c.federation_id, func.coalesce(players.c.merged_into, players.c.id)
        ).where(players.c.federation_id.in_(chunk))
        found.update(dict(connection.execute(query).all()))
    return found


@dataclass(frozen=True, slots=True)
class PlayerRow:
    id: int
    federation_id: str
    name: str
    country: str | None
    club: str | None
    title: str | None
    title_date: date | None
    merged_into: int | None
    rating: int | None


def player_by_federation_id(connection: Connection, federation_id: str) -> PlayerRow | None:
    row = connection.execute(
        select(
            players.c.id, players.c.federation_id, players.c.name, players.c.country,
            players.c.club, players.c.title, players.c.title_date, players.c.merged_into,
            players.c.rating,
        ).where(players.c.federation_id == federation_id)
    ).first()  # fmt: skip
    return PlayerRow(*row) if row is not None else None


def update_players(
    connection: Connection, rows: Sequence[Sequence[Any]], columns: Sequence[str]
) -> None:
    update_by_id(connection, players, columns, rows)


def player_titles(
    connection: Connection, ids: Sequence[int]
) -> dict[int, tuple[str | None, date | None]]:
    query = select(players.c.id, players.c.title, players.c.title_date).where(
        players.c.id.in_(list(ids))
    )
    return {pid: (title, since) for pid, title, since in connection.execute(query)}


def set_first_seen(connection: Connection, first_seen: pl.DataFrame) -> None:
    """Lower ``first_seen`` to the given dates (frame: player, first_seen) where earlier."""
    update_from_frame(
        connection,
        players,
        first_seen.select(pl.col("player").alias("id"), "first_seen"),
        where="players.first_seen IS NULL OR src.first_seen < players.first_seen",
    )


def record_merge(connection: Connection, kept: int, duplicate: int, by: str, now: datetime) -> None:
    connection.execute(
        insert(player_merges).values(
            kept_id=kept, duplicate_id=duplicate, merged_at=now, merged_by=by
        )
    )


def shared_tournaments(connection: Connection, first: int, second: int) -> list[str]:
    """Keys of tournaments in which both players have a result."""
    a = results.alias("a")
    b = results.alias("b")
    query = (
        select(tournaments.c.key)
        .join(a, a.c.tournament_id == tournaments.c.id)
        .join(b, b.c.tournament_id == tournaments.c.id)
        .where(a.c.player_id == first, b.c.player_id == second)
        .order_by(tournaments.c.end_date)
    )
    return list(connection.execute(query).scalars())


def reassign_player(connection: Connection, kept: int, duplicate: int) -> None:
    """Move every result and rating change of ``duplicate`` to ``kept``; mark the duplicate merged."""
    connection.execute(
        update(results).where(results.c.player_id == duplicate).values(player_id=kept)
    )
    connection.execute(
        update(rating_changes).where(rating_changes.c.player_id == duplicate).values(player_id=kept)
    )
    connection.execute(
        update(players).where(players.c.merged_into == duplicate).values(merged_into=kept)
    )
    connection.execute(
        update(players).where(players.c.id == duplicate).values(merged_into=kept, rating=None)
    )


def earliest_seq(connection: Connection, player_ids_: Iterable[int]) -> int | None:
    """The earliest rated position at which any of the players appears."""
    value = connection.execute(
        select(func.min(rating_changes.c.seq)).where(
            rating_changes.c.player_id.in_(list(player_ids_))
        )
    ).scalar()
    return int(value) if value is not None else None


# --- tournaments ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StoredTournament:
    id: int
    key: str
    seq: int | None
    status: str


def tournaments_by_key(connection: Connection, keys: Sequence[str]) -> dict[str, StoredTournament]:
    found: dict[str, StoredTournament] = {}
    if len(keys) > frames.WHOLE_TABLE_FROM:
        every = read_frame(
            connection,
            select(tournaments.c.id, tournaments.c.key, tournaments.c.seq, tournaments.c.status),
            {"id": pl.Int64, "key": pl.String, "seq": pl.Int64, "status": pl.String},
        ).filter(pl.col("key").is_in(pl.Series(list(keys), dtype=pl.String).implode()))
        return {row[1]: StoredTournament(*row) for row in every.iter_rows()}
    for chunk in chunks(list(keys), 5000):
        query = select(
            tournaments.c.id, tournaments.c.key, tournaments.c.seq, tournaments.c.status
        ).where(tournaments.c.key.in_(chunk))
        found.update({row.key: StoredTournament(*row) for row in connection.execute(query)})
    return found


def insert_tournaments(connection: Connection, frame: pl.DataFrame) -> None:
    """Frame columns: key, name, start_date, end_date, tier, source_name, source_hash,
    source_format, imported_at, imported_by."""
    columns = [
        "key", "name", "start_date", "end_date", "tier", "source_name", "source_hash",
        "source_format", "imported_at", "imported_by",
    ]  # fmt: skip
    insert_frame(connection, tournaments, frame.select(*columns, pl.lit("pending").alias("status")))


def replace_tournament(
    connection: Connection, stored: StoredTournament, values: dict[str, Any]
) -> None:
    """A correction: new details and results, pending again; its old place must be re-rated."""
    connection.execute(delete(results).where(results.c.tournament_id == stored.id))
    connection.execute(delete(games).where(games.c.tournament_id == stored.id))
    connection.execute(
        update(tournaments)
        .where(tournaments.c.id == stored.id)
        .values(**values, status="pending", seq=None, k=None, rated_at=None)
    )
    if stored.seq is not None:
        mark_rerate(connection, stored.seq)


def tournament_ids(connection: Connection, keys: Sequence[str]) -> dict[str, int]:
    return {key: t.id for key, t in tournaments_by_key(connection, keys).items()}


def insert_results(connection: Connection, frame: pl.DataFrame) -> None:
    """Frame columns: tournament, player, line, wins, draws, losses, buchholz, title."""
    rows = frame.select(
        pl.col("tournament").alias("tournament_id"), pl.col("player").alias("player_id"),
        "line", "wins", "draws", "losses", "buchholz", "title",
    )  # fmt: skip
    insert_frame(connection, results, rows)


def insert_games(connection: Connection, frame: pl.DataFrame) -> None:
    """Frame columns: tournament, round, player, opponent, kind, outcome, color, handicap."""
    columns = [
        "tournament_id",
        "round",
        "player_id",
        "opponent_id",
        "kind",
        "outcome",
        "color",
        "handicap",
    ]
    rows = frame.select(
        "tournament", "round", "player", "opponent", "kind", "outcome", "color", "handicap"
    ).iter_rows()
    insert_rows(connection, games, columns, rows)


def tournaments_with_games(connection: Connection, keys: Sequence[str]) -> set[str]:
    """Keys, among ``keys``, of tournaments imported from a crosstable."""
    query = (
        select(tournaments.c.key)
        .where(tournaments.c.key.in_(list(keys)))
        .where(select(games.c.round).where(games.c.tournament_id == tournaments.c.id).exists())
    )
    return set(connection.execute(query).scalars())


def stored_buchholz(connection: Connection, keys: Sequence[str]) -> pl.DataFrame:
    query = (
        select(tournaments.c.key, players.c.federation_id, results.c.buchholz)
        .join(results, results.c.tournament_id == tournaments.c.id)
        .join(players, players.c.id == results.c.player_id)
        .where(tournaments.c.key.in_(list(keys)))
    )
    return read_frame(connection, query, STORED_BUCHHOLZ)


# --- the re-rating window ------------------------------------------------------------------


def mark_rerate(connection: Connection, seq: int) -> None:
    """Remember that everything rated at position ``seq`` or later must be rated again."""
    current = connection.execute(
        select(rating_state.c.rerate_from_seq).where(rating_state.c.id == 1)
    ).first()
    if current is None:
        connection.execute(insert(rating_state).values(id=1, rerate_from_seq=seq))
    elif current[0] is None or seq < current[0]:
        connection.execute(
            update(rating_state).where(rating_state.c.id == 1).values(rerate_from_seq=seq)
        )


def clear_rerate(connection: Connection) -> None:
    connection.execute(update(rating_state).values(rerate_from_seq=None))


def window_start(connection: Connection) -> int | None:
    """The first position to rate again, or None when nothing is pending or marked.

    It is the earliest of: the position marked by a correction or a merge, and the position of the
    first rated tournament that comes after the earliest pending one in (end, start, key) order.
    """
    marked = connection.execute(
        select(rating_state.c.rerate_from_seq).where(rating_state.c.id == 1)
    ).scalar()
    first_pending = connection.execute(
        select(tournaments.c.end_date, tournaments.c.start_date, tournaments.c.key)
        .where(tournaments.c.status == "pending")
        .order_by(tournaments.c.end_date, tournaments.c.start_date, tournaments.c.key)
        .limit(1)
    ).first()
    candidates: list[int] = [] if marked is None else [int(marked)]
    if first_pending is not None:
        order = tuple_(tournaments.c.end_date, tournaments.c.start_date, tournaments.c.key)
        after = connection.execute(
            select(func.min(tournaments.c.seq)).where(
                tournaments.c.status == "rated", order > tuple_(*first_pending)
            )
        ).scalar()
        if after is None:
            last = connection.execute(select(func.max(tournaments.c.seq))).scalar()
            after = 0 if last is None else int(last) + 1
        candidates.append(int(after))
    return min(candidates) if candidates else None


def _in_window(start: int) -> Any:
    return or_(tournaments.c.status == "pending", tournaments.c.seq >= start)


def _result_in_window(start: int) -> Any:
    """A result belongs to the window: its tournament is found first, then its results through
    the (tournament, player) index; joining on the window's condition made the database read
    every result ever imported to rate one month on top of a long history. A window from the
    first position is everything, and one pass over the table beats a look-up per tournament."""
    if start == 0:
        return true()
    return results.c.tournament_id.in_(select(tournaments.c.id).where(_in_window(start)))


def window_tournaments(connection: Connection, start: int) -> pl.DataFrame:
    """Tournaments to rate, in chronological order (end date, start date, key)."""
    query = (
        select(
            tournaments.c.id,
            tournaments.c.key,
            tournaments.c.name,
            tournaments.c.start_date,
            tournaments.c.end_date,
            tournaments.c.tier,
        )
        .where(_in_window(start))
        .order_by(tournaments.c.end_date, tournaments.c.start_date, tournaments.c.key)
    )
    return read_frame(connection, query, WINDOW_TOURNAMENTS)


def window_results(connection: Connection, start: int, events: pl.DataFrame) -> pl.DataFrame:
    """Results of the window whose tournaments are ``events`` (from :func:`window_tournaments`),
    with whether the player held the GM title on the end date."""
    pair = {"tournament_id": pl.Int64, "player_id": pl.Int64}
    counts = {name: t for name, t in WINDOW_RESULTS.items() if name != "grandmaster"}
    in_window = _result_in_window(start)
    query = select(*(results.c[name] for name in counts)).where(in_window)
    rows = read_frame(connection, query, counts)
    # Grandmasters are few, so who held the title is worked out from small reads rather than
    # from the title and end date of every result, which made the window's read twice as slow.
    marked = read_frame(
        connection,
        select(results.c.tournament_id, results.c.player_id).where(
            in_window, results.c.title == "GM"
        ),
        pair,
    )
    masters = read_frame(
        connection,
        select(players.c.id, players.c.title_date).where(players.c.title == "GM"),
        {"player_id": pl.Int64, "title_date": pl.Date},
    )
    ends = events.select(pl.col("id").alias("tournament_id"), "end_date")
    registered = (
        rows.select(*pair)
        .join(masters, on="player_id")
        .join(ends, on="tournament_id")
        .filter(pl.col("title_date").is_null() | (pl.col("title_date") <= pl.col("end_date")))
        .select(*pair)
    )
    holders = pl.concat([marked, registered]).unique().with_columns(grandmaster=pl.lit(True))
    return rows.join(holders, on=list(pair), how="left", maintain_order="left").with_columns(
        pl.col("grandmaster").fill_null(False)
    )


def state_at(connection: Connection, start: int) -> pl.DataFrame:
    """Each player's rating just before position ``start``, for players rated there or later.

    That is the rating before their earliest rating change at or after ``start``: nothing of theirs
    was rated between ``start`` and that change, and everything before ``start`` stays as it is.
    The changes from ``start`` on are read in key order (a range of the primary key) and the first
    of each player is picked here: asked to number each player's changes, SQLite walked the
    (player, position) index over the whole history instead.
    """
    changes = read_frame(
        connection,
        select(rating_changes.c.player_id, rating_changes.c.seq, rating_changes.c.rating_before)
        .where(rating_changes.c.seq >= start)
        .order_by(rating_changes.c.seq, rating_changes.c.player_id),
        {"player_id": pl.Int64, "seq": pl.Int64, "rating": pl.Int64},
    )
    return changes.unique("player_id", keep="first", maintain_order=True).select(*PLAYER_RATINGS)


def rated_players(connection: Connection) -> pl.DataFrame:
    """Every player with a rating change (``rating`` null): who a full re-rating must reset."""
    return read_frame(
        connection,
        select(rating_changes.c.player_id).distinct(),
        {"player_id": pl.Int64},
    ).with_columns(pl.lit(None, dtype=pl.Int64).alias("rating"))


def window_ratings(connection: Connection, start: int) -> pl.DataFrame:
    """The current rating (null if never rated) of every player with a result in the window."""
    who = select(results.c.player_id).where(_result_in_window(start))
    return read_frame(
        connection,
        select(players.c.id, players.c.rating).where(players.c.id.in_(who)),
        PLAYER_RATINGS,
    )


def replace_rating_changes(
    connection: Connection, start: int, columns: dict[str, np.ndarray[Any, Any]]
) -> None:
    """Drop every rating change at or after ``start`` and write the new ones."""
    connection.execute(delete(rating_changes).where(rating_changes.c.seq >= start))
    insert_frame(connection, rating_changes, pl.DataFrame(columns))


def mark_rated(connection: Connection, rated: pl.DataFrame, now: datetime) -> None:
    """Record each tournament's position and what its rating used: a frame of ``id``, ``seq``,
    ``k``, ``m_avg`` and ``b_avg``."""
    frame = rated.select("id", "seq", "k", "m_avg", "b_avg").with_columns(
        pl.lit("rated").alias("status"), pl.lit(now).alias("rated_at")
    )
    update_from_frame(connection, tournaments, frame)


def set_ratings(
    connection: Connection, ids: np.ndarray[Any, Any], ratings: np.ndarray[Any, Any]
) -> None:
    """Every given player's current exact rating (1e-10 points)."""
    update_from_frame(connection, players, pl.DataFrame({"id": ids, "rating": ratings}))


# --- lists and histories -------------------------------------------------------------------


def ranking(connection: Connection, as_of: date | None = None) -> pl.DataFrame:
    """Every rated player's exact rating, games, tournaments and last date played, counting the
    tournaments rated so far that ended on or before ``as_of`` (all of them when None)."""
    # The rating changes are read in one pass over the table's key and aggregated by polars: left
    # to group ten million changes by player, SQLite walked the (player, position) index and
    # looked every row up, which took a minute at federation scale.
    rated = tournaments.c.seq.is_not(None)
    ends = read_frame(
        connection,
        select(tournaments.c.seq, tournaments.c.end_date).where(
            rated if as_of is None else and_(rated, tournaments.c.end_date <= as_of)
        ),
        {"seq": pl.Int64, "end_date": pl.Date},
    )
    changes = select(
        rating_changes.c.player_id,
        rating_changes.c.seq,
        rating_changes.c.games,
        rating_changes.c.rating_after,
    )
    if as_of is not None:
        # Positions follow the end dates, so the list's changes are a range of the key.
        last = ends.select(pl.col("seq").max().fill_null(-1)).item()
        changes = changes.where(rating_changes.c.seq <= int(last))
    played = pl.col("games") > 0
    per_player = (
        read_frame(
            connection,
            changes,
            {"player_id": pl.Int64, "seq": pl.Int64, "games": pl.Int64, "rating": pl.Int64},
        )
        .join(ends, on="seq", how="inner")
        .group_by("player_id")
        .agg(
            pl.col("rating").get(pl.col("seq").arg_max()),
            pl.col("games").sum(),
            played.sum().cast(pl.Int64).alias("tournaments"),
            pl.col("end_date").filter(played).max().alias("last_played"),
        )
        .rename({"player_id": "id"})
    )
    people = read_frame(
        connection,
        select(
            players.c.id,
            players.c.federation_id,
            players.c.name,
            players.c.country,
            players.c.title,
        ).where(players.c.merged_into.is_(None)),
        {
            "id": pl.Int64,
            "player_id": pl.String,
            "name": pl.String,
            "country": pl.String,
            "title": pl.String,
        },
    )
    return (
        people.join(per_player, on="id", how="inner")
        .rename({"id": "player"})
        .select(*RANKING_SCHEMA)
    )


def history(connection: Connection, player: int) -> pl.DataFrame:
    """Every rated tournament of a player, in rating order."""
    query = (
        select(
            tournaments.c.name,
            tournaments.c.key,
            tournaments.c.start_date,
            tournaments.c.end_date,
            tournaments.c.tier,
            tournaments.c.k,
            rating_changes.c.games,
            (2 * results.c.wins + results.c.draws).label("points_x2"),
            rating_changes.c.expected,
            rating_changes.c.rating_before,
            rating_changes.c.rating_after,
            tournaments.c.m_avg,
            tournaments.c.b_avg,
            results.c.wins,
            results.c.draws,
            results.c.losses,
            results.c.buchholz,
        )
        .join(tournaments, tournaments.c.id == rating_changes.c.tournament_id)
        .join(
            results,
            and_(
                results.c.tournament_id == rating_changes.c.tournament_id,
                results.c.player_id == rating_changes.c.player_id,
            ),
        )
        .where(rating_changes.c.player_id == player)
        .order_by(rating_changes.c.seq)
    )
    return read_frame(connection, query, HISTORY_SCHEMA)


def pending_count(connection: Connection) -> int:
    return int(
        connection.execute(
            select(func.count()).select_from(tournaments).where(tournaments.c.status == "pending")
        ).scalar_one()
    )


# --- job runs ------------------------------------------------------------------------------


def start_job(connection: Connection, kind: str, now: datetime) -> int:
    return int(
        connection.execute(
            insert(job_runs)
            .values(
                kind=kind,
                started_at=now,
                outcome="running",
                tournaments_rated=0,
                results_rated=0,
                files_accepted=0,
                files_rejected=0,
            )
            .returning(job_runs.c.id)
        ).scalar_one()
    )


def finish_job(
    connection: Connection, job: int, now: datetime, outcome: str, **counts: Any
) -> None:
    connection.execute(
        update(job_runs)
        .where(job_runs.c.id == job)
        .values(finished_at=now, outcome=outcome, **counts)
    )


def recent_jobs(connection: Connection, limit: int = 20) -> pl.DataFrame:
    query = (
        select(*(job_runs.c[name] for name in JOB_SCHEMA))
        .order_by(job_runs.c.id.desc())
        .limit(limit)
    )
    return read_frame(connection, query, JOB_SCHEMA)


# --- published lists -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ListInfo:
    id: int
    period: str
    version: int
    cutoff: date
    created_at: datetime
    created_by: str
    players: int
    active_players: int
    mean_rating: int
    initial_rating: int
    active_months: int
    previous_id: int | None
    replaces_id: int | None


def _list_query() -> Select[Any]:
    return select(*(published_lists.c[f] for f in ListInfo.__dataclass_fields__))


def latest_list(connection: Connection, period: str | None = None) -> ListInfo | None:
    """The newest version of ``period``'s list, or of the newest period when None."""
    query = _list_query().order_by(
        published_lists.c.period.desc(), published_lists.c.version.desc()
    )
    if period is not None:
        query = query.where(published_lists.c.period == period)
    row = connection.execute(query.limit(1)).first()
    return ListInfo(*row) if row is not None else None


def list_version(connection: Connection, period: str, version: int) -> ListInfo | None:
    row = connection.execute(
        _list_query().where(
            published_lists.c.period == period, published_lists.c.version == version
        )
    ).first()
    return ListInfo(*row) if row is not None else None


def list_by_id(connection: Connection, list_id: int) -> ListInfo:
    row = connection.execute(_list_query().where(published_lists.c.id == list_id)).one()
    return ListInfo(*row)


def previous_period_list(connection: Connection, period: str) -> ListInfo | None:
    """The newest version of the newest period before ``period``."""
    row = connection.execute(
        _list_query()
        .where(published_lists.c.period < period)
        .order_by(published_lists.c.period.desc(), published_lists.c.version.desc())
        .limit(1)
    ).first()
    return ListInfo(*row) if row is not None else None


def all_lists(connection: Connection) -> list[ListInfo]:
    rows = connection.execute(
        _list_query().order_by(published_lists.c.period, published_lists.c.version)
    ).all()
    return [ListInfo(*row) for row in rows]


def list_entries_of(connection: Connection, list_id: int) -> pl.DataFrame:
    query = select(
        list_entries.c.player_id, list_entries.c.federation_id, list_entries.c.name,
        list_entries.c.country, list_entries.c.title, list_entries.c.rating, list_entries.c.games,
        list_entries.c.tournaments, list_entries.c.last_played, list_entries.c.active,
        list_entries.c.previous_rating,
    ).where(list_entries.c.list_id == list_id)  # fmt: skip
    return read_frame(connection, query, ENTRY_SCHEMA)


def insert_list(connection: Connection, info: dict[str, Any], entries: pl.DataFrame) -> int:
    list_id = int(
        connection.execute(
            insert(published_lists).values(**info).returning(published_lists.c.id)
        ).scalar_one()
    )
    rows = entries.select(
        pl.lit(list_id, dtype=pl.Int64).alias("list_id"), pl.col("player").alias("player_id"),
        pl.col("player_id").alias("federation_id"), "name", "country", "title", "rating",
        "games", "tournaments", "last_played", "active", "previous_rating",
    )  # fmt: skip
    insert_frame(connection, list_entries, rows)
    return list_id


def pending_until(connection: Connection, cutoff: date) -> list[str]:
    """Keys of tournaments ending on or before ``cutoff`` that are not rated yet."""
    query = (
        select(tournaments.c.key)
        .where(tournaments.c.status == "pending", tournaments.c.end_date <= cutoff)
        .order_by(tournaments.c.end_date, tournaments.c.key)
    )
    return list(connection.execute(query).scalars())


def seeding_players(connection: Connection) -> pl.DataFrame:
    """Every player with the current exact rating (null for a player never rated)."""
    query = select(
        players.c.federation_id, players.c.name, players.c.name_key, players.c.country,
        players.c.title, players.c.rating,
    ).where(players.c.merged_into.is_(None))  # fmt: skip
    return read_frame(connection, query, SEEDING_SCHEMA)


def source_imported(connection: Connection, sha256: str) -> bool:
    """Whether a file with this content has been imported (its tournaments carry its hash)."""
    query = select(tournaments.c.id).where(tournaments.c.source_hash == sha256).limit(1)
    return connection.execute(query).first() is not None
