"""The named frame schemas stay in step with the tables and with what the reads return.

A schema's column that comes straight from a table column must exist there with a matching type;
every read returns exactly its schema (names, order and types), on an empty database and on a
small filled one, on every backend.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

import numpy as np
import polars as pl
import pytest
from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Date,
    DateTime,
    Integer,
    MetaData,
    String,
    Table,
    select,
)
from sqlalchemy.engine import Connection, Engine

from jobs.publishing import with_page_columns
from ratings.storage import (
    audit,
    frames,
    imports,
    list_pages,
    lists,
    players,
    runs,
    totals,
    tournaments,
    window,
)
from ratings.storage import changes as stored_changes
from ratings.storage.frames import (
    ALIAS_SCHEMA,
    AUDIT_CHANGES,
    AUDIT_GAMES,
    AUDIT_TOURNAMENTS,
    DATED_TOURNAMENTS,
    DELETION_SCHEMA,
    ENTRY_SCHEMA,
    EVENT_GAMES_SCHEMA,
    EVENT_RESULTS_SCHEMA,
    HELD_STAMPS,
    HISTORY_SCHEMA,
    IDENTIFIER_SCHEMA,
    JOB_SCHEMA,
    KNOWN_SCHEMA,
    LIST_NAMES_SCHEMA,
    LIST_PAGE_SCHEMA,
    LIST_RATINGS_SCHEMA,
    OUTCOMES_SCHEMA,
    PLAYER_GAME_RATINGS,
    PLAYER_GAMES_SCHEMA,
    PLAYER_LISTS_SCHEMA,
    PLAYER_RATINGS,
    RANKING_SCHEMA,
    REGISTRY_SCHEMA,
    SEEDING_SCHEMA,
    STORED_BUCHHOLZ,
    TOTALS_SCHEMA,
    TOURNAMENT_LIST_SCHEMA,
    WINDOW_PLAYERS,
    WINDOW_RESULTS,
    WINDOW_TOURNAMENTS,
)
from ratings.storage.schema import (
    games,
    job_runs,
    list_entries,
    list_names,
    player_aliases,
    player_identifiers,
    player_totals,
    rating_changes,
    results,
    tournament_deletions,
)
from ratings.storage.schema import players as players_table
from ratings.storage.schema import tournaments as tournaments_table

NOW = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)

P = players_table.c
T = tournaments_table.c
R = results.c
C = rating_changes.c
E = list_entries.c


def _stored(name: str) -> str:
    """The table's column behind a frame's column: a frame's ``player`` and ``opponent`` are the
    tables' ``player_id`` and ``opponent_id``."""
    return {"player": "player_id", "opponent": "opponent_id"}.get(name, name)


SOURCES: dict[str, tuple[dict[str, Any], dict[str, Column[Any] | None]]] = {
    "LIST_RATINGS_SCHEMA": (LIST_RATINGS_SCHEMA, {"player": E.player_id, "rating": E.rating}),
    "LIST_NAMES_SCHEMA": (
        LIST_NAMES_SCHEMA,
        {"name": list_names.c.name, "name_id": list_names.c.id, "name_key": list_names.c.name_key},
    ),
    "KNOWN_SCHEMA": (
        KNOWN_SCHEMA,
        {
            "id": P.id, "federation_id": P.federation_id, "name": P.name,
            "name_key": P.name_key, "country": P.country, "merged_into": P.merged_into,
        },
    ),
    "DATED_TOURNAMENTS": (
        DATED_TOURNAMENTS,
        {
            "id": T.id, "key": T.key, "name": T.name, "start_date": T.start_date,
            "end_date": T.end_date,
        },
    ),
    "OUTCOMES_SCHEMA": (
        OUTCOMES_SCHEMA,
        {
            "tournament_id": R.tournament_id, "player": R.player_id, "wins": R.wins,
            "draws": R.draws, "losses": R.losses,
        },
    ),
    "REGISTRY_SCHEMA": (
        REGISTRY_SCHEMA,
        {
            "id": P.id, "name": P.name, "country": P.country, "club": P.club,
            "title": P.title, "title_date": P.title_date,
        },
    ),
    "IDENTIFIER_SCHEMA": (
        IDENTIFIER_SCHEMA,
        {
            "player": player_identifiers.c.player_id, "scheme": player_identifiers.c.scheme,
            "value": player_identifiers.c.value,
        },
    ),
    "ALIAS_SCHEMA": (
        ALIAS_SCHEMA,
        {
            "scheme": player_aliases.c.scheme, "spelling": player_aliases.c.spelling,
            "player": player_aliases.c.player_id,
        },
    ),
    "SEEDING_SCHEMA": (
        SEEDING_SCHEMA,
        {
            "federation_id": P.federation_id, "name": P.name, "name_key": P.name_key,
            "country": P.country, "title": P.title, "rating": player_totals.c.rating,
        },
    ),
    "STORED_BUCHHOLZ": (
        STORED_BUCHHOLZ,
        {"key": T.key, "federation_id": P.federation_id, "buchholz": R.buchholz},
    ),
    "WINDOW_TOURNAMENTS": (
        WINDOW_TOURNAMENTS,
        {
            "id": T.id, "key": T.key, "name": T.name, "start_date": T.start_date,
            "end_date": T.end_date, "tier": T.tier,
        },
    ),
    "WINDOW_RESULTS": (
        WINDOW_RESULTS,
        {
            "tournament_id": R.tournament_id, "player": R.player_id, "wins": R.wins,
            "draws": R.draws, "losses": R.losses, "buchholz": R.buchholz, "grandmaster": None,
        },
    ),
    "PLAYER_RATINGS": (PLAYER_RATINGS, {"player": P.id, "rating": C.rating_before}),
    "HELD_STAMPS": (
        HELD_STAMPS,
        {
            "id": T.id, "seq": T.seq, "k": T.k, "m_avg": T.m_avg, "b_avg": T.b_avg,
            "status": T.status,
        },
    ),
    "WINDOW_PLAYERS": (
        WINDOW_PLAYERS,
        {
            "player": P.id, "rating": player_totals.c.rating, "grandmaster": None,
            "title_date": P.title_date,
        },
    ),
    "RANKING_SCHEMA": (
        RANKING_SCHEMA,
        {
            "player": P.id, "federation_id": P.federation_id, "name": P.name, "country": P.country,
            "title": P.title, "rating": C.rating_after, "games": None, "tournaments": None,
            "last_played": None,
        },
    ),
    "ENTRY_SCHEMA": (
        ENTRY_SCHEMA,
        {
            "player": E.player_id, "federation_id": E.federation_id, "name": E.name,
            "country": E.country, "title": E.title, "rating": E.rating, "games": E.games,
            "tournaments": E.tournaments, "last_played": E.last_played, "active": E.active,
            "previous_rating": E.previous_rating,
        },
    ),
    "LIST_PAGE_SCHEMA": (
        LIST_PAGE_SCHEMA,
        {
            "rank": E.rank, "federation_id": E.federation_id, "name": E.name, "country": E.country,
            "title": E.title, "rating": E.rating, "games": E.games, "tournaments": E.tournaments,
            "last_played": E.last_played, "active": E.active,
            "previous_rating": E.previous_rating,
        },
    ),
    "PLAYER_LISTS_SCHEMA": (
        PLAYER_LISTS_SCHEMA,
        {
            "list_id": E.list_id, "rank": E.rank, "rank_all": E.rank_all, "rating": E.rating,
            "country": E.country, "rank_country": None,
        },
    ),
    "EVENT_RESULTS_SCHEMA": (
        EVENT_RESULTS_SCHEMA,
        {
            "federation_id": P.federation_id, "name": P.name, "country": P.country,
            "wins": R.wins,
            "draws": R.draws, "losses": R.losses, "buchholz": R.buchholz, "games": C.games,
            "expected": C.expected, "rating_before": C.rating_before,
            "rating_after": C.rating_after,
        },
    ),
    "EVENT_GAMES_SCHEMA": (
        EVENT_GAMES_SCHEMA,
        {
            "round": games.c.round, "federation_id": P.federation_id,
            "opponent_federation_id": P.federation_id,
            "outcome": games.c.outcome, "color": games.c.color, "handicap": games.c.handicap,
            "kind": games.c.kind, "opponent_name": P.name,
        },
    ),
    "PLAYER_GAMES_SCHEMA": (
        PLAYER_GAMES_SCHEMA,
        {
            "key": T.key, "round": games.c.round, "kind": games.c.kind,
            "opponent_federation_id": P.federation_id, "opponent_name": P.name,
            "color": games.c.color, "outcome": games.c.outcome,
        },
    ),
    "PLAYER_GAME_RATINGS": (
        PLAYER_GAME_RATINGS,
        {"key": T.key, "rating": C.rating_before, "opponent_rating": C.rating_before},
    ),
    "HISTORY_SCHEMA": (
        HISTORY_SCHEMA,
        {
            "tournament": T.name, "key": T.key, "start_date": T.start_date,
            "end_date": T.end_date, "tier": T.tier, "k": T.k, "games": C.games,
            "points_x2": None, "expected": C.expected, "rating_before": C.rating_before,
            "rating_after": C.rating_after, "m_avg": T.m_avg, "b_avg": T.b_avg, "wins": R.wins,
            "draws": R.draws, "losses": R.losses, "buchholz": R.buchholz,
        },
    ),
    "JOB_SCHEMA": (JOB_SCHEMA, {name: job_runs.c[name] for name in JOB_SCHEMA}),
    "AUDIT_TOURNAMENTS": (AUDIT_TOURNAMENTS, {name: T[name] for name in AUDIT_TOURNAMENTS}),
    "AUDIT_CHANGES": (AUDIT_CHANGES, {name: C[_stored(name)] for name in AUDIT_CHANGES}),
    "AUDIT_GAMES": (AUDIT_GAMES, {name: games.c[_stored(name)] for name in AUDIT_GAMES}),
    "TOTALS_SCHEMA": (
        TOTALS_SCHEMA, {name: player_totals.c[_stored(name)] for name in TOTALS_SCHEMA}
    ),
    "DELETION_SCHEMA": (
        DELETION_SCHEMA, {name: tournament_deletions.c[name] for name in DELETION_SCHEMA}
    ),
    "TOURNAMENT_LIST_SCHEMA": (
        TOURNAMENT_LIST_SCHEMA,
        {
            "key": T.key, "name": T.name, "start_date": T.start_date, "end_date": T.end_date,
            "tier": T.tier, "status": T.status, "results": None,
            "source_format": T.source_format, "imported_at": T.imported_at,
            "imported_by": T.imported_by,
        },
    ),
}  # fmt: skip
"""Each schema, and for each of its columns the table column it is read from (None: computed by
the query, not a stored column)."""


def matching_types(column: Column[Any]) -> list[Any]:
    """The polars types a frame column read from ``column`` may have."""
    kind = column.type
    if isinstance(kind, Boolean):
        return [pl.Boolean]
    if isinstance(kind, DateTime):
        return [pl.Datetime(time_zone="UTC") if kind.timezone else pl.Datetime()]
    if isinstance(kind, Date):
        return [pl.Date]
    if isinstance(kind, BigInteger):
        return [pl.Int64]
    if isinstance(kind, Integer):
        return [pl.Int64, pl.Int32]
    if isinstance(kind, String):
        return [pl.String]
    raise AssertionError(f"no polars type for {column.table.name}.{column.name} ({kind!r})")


# A column name keeps one meaning in every frame: ``player`` (and ``opponent``) is the database's
# integer id, ``federation_id`` (and ``opponent_federation_id``) the federation's text id.
ONE_MEANING = {
    "player": pl.Int64, "opponent": pl.Int64,
    "federation_id": pl.String, "opponent_federation_id": pl.String,
}  # fmt: skip


def test_a_column_name_means_one_thing_in_every_frame() -> None:
    schemas = {
        name: value for name, value in vars(frames).items()
        if name.isupper() and isinstance(value, dict)
    }  # fmt: skip
    assert len(schemas) >= 20
    wrong = {
        (name, column, str(dtype))
        for name, schema in schemas.items()
        for column, dtype in schema.items()
        if column in ONE_MEANING and dtype != ONE_MEANING[column]
    }
    ambiguous = {
        (name, column)
        for name, schema in schemas.items()
        for column in schema
        if column in ("player_id", "opponent_id")
    }
    assert (wrong, ambiguous) == (set(), set())


def test_every_named_schema_has_its_sources() -> None:
    named = {
        name for name, value in vars(frames).items() if name.isupper() and isinstance(value, dict)
    }
    assert named == set(SOURCES)


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_a_schema_matches_the_table_columns_it_is_read_from(name: str) -> None:
    schema, sources = SOURCES[name]
    assert list(sources) == list(schema)
    wrong = {
        column: (f"{source.table.name}.{source.name}", schema[column])
        for column, source in sources.items()
        if source is not None and schema[column] not in matching_types(source)
    }
    assert wrong == {}


@pytest.mark.parametrize(
    ("name", "table", "left_out"),
    [
        ("JOB_SCHEMA", job_runs, set()),
        # The folded name, the name's id and the ranks serve the site's paged list, not the files.
        ("ENTRY_SCHEMA", list_entries, {"list_id", "name_key", "rank", "rank_all", "name_id"}),
    ],
)
def test_a_whole_row_read_has_every_column_of_its_table(
    name: str, table: Table, left_out: set[str]
) -> None:
    """Recent job runs and a published list's entries give back everything stored of a row."""
    read = {source.name for source in SOURCES[name][1].values() if source is not None}
    assert read == {column.name for column in table.columns} - left_out


def _changes(connection: Connection) -> pl.DataFrame:
    """The stored rating changes with their tournaments' end dates, as the rating job hands its
    new changes to the totals."""
    query = select(C.player_id, C.seq, C.games, C.rating_after, T.end_date).join(
        tournaments_table, T.seq == C.seq
    )
    return pl.DataFrame(
        [tuple(row) for row in connection.execute(query)],
        schema={"player": pl.Int64, "seq": pl.Int64, "games": pl.Int64,
                "rating_after": pl.Int64, "end_date": pl.Date},
        orient="row",
    )  # fmt: skip


def _event(connection: Connection) -> tournaments.EventRow:
    """The filled database's rated event, or a stand-in when the database is empty."""
    found = tournaments.event_by_key(connection, "T1")
    return found or tournaments.EventRow(0, "T1", "-", date.min, date.min, "regular", "new", 0, 0)


@dataclass(frozen=True)
class Stored:
    """What the reads ask for: a player, tournament keys and a published list."""

    player: int
    keys: list[str]
    list_id: int


READS: dict[str, tuple[Callable[[Connection, Stored], pl.DataFrame], dict[str, Any]]] = {
    "known_players": (lambda c, s: players.known_players(c), KNOWN_SCHEMA),
    "seeding_players": (lambda c, s: players.seeding_players(c), SEEDING_SCHEMA),
    "registry_fields": (lambda c, s: players.registry_fields(c, [1, 2, 3]), REGISTRY_SCHEMA),
    "identifiers": (lambda c, s: players.identifiers(c), IDENTIFIER_SCHEMA),
    "aliases": (lambda c, s: players.aliases(c), ALIAS_SCHEMA),
    "stored_buchholz": (lambda c, s: tournaments.stored_buchholz(c, s.keys), STORED_BUCHHOLZ),
    "tournaments_ending_on": (
        lambda c, s: tournaments.tournaments_ending_on(c, [date(2025, 1, 2), date(2025, 3, 1)]),
        DATED_TOURNAMENTS,
    ),
    "outcomes": (lambda c, s: tournaments.outcomes(c, [1, 2, 3]), OUTCOMES_SCHEMA),
    "window_tournaments": (lambda c, s: window.window_tournaments(c, 0), WINDOW_TOURNAMENTS),
    "window_results": (
        lambda c, s: window.window_results(c, 0, window.window_tournaments(c, 0)),
        WINDOW_RESULTS,
    ),
    "state_at": (lambda c, s: window.state_at(c, 0), PLAYER_RATINGS),
    "rated_players": (lambda c, s: window.rated_players(c), PLAYER_RATINGS),
    "held_stamps": (lambda c, s: stored_changes.held_stamps(c), HELD_STAMPS),
    "window_players": (lambda c, s: window.window_players(c, 0), WINDOW_PLAYERS),
    "history": (lambda c, s: window.history(c, s.player), HISTORY_SCHEMA),
    "ranking": (lambda c, s: lists.ranking(c), RANKING_SCHEMA),
    "ranking as of": (lambda c, s: lists.ranking(c, date(2025, 1, 31)), RANKING_SCHEMA),
    "list_entries_of": (lambda c, s: lists.list_entries_of(c, s.list_id), ENTRY_SCHEMA),
    "list_ratings": (lambda c, s: lists.list_ratings(c, s.list_id), LIST_RATINGS_SCHEMA),
    "stored_names": (
        lambda c, s: lists.stored_names(c, lists.list_entries_of(c, s.list_id)["name"]),
        LIST_NAMES_SCHEMA,
    ),
    "list_page": (
        lambda c, s: list_pages.list_page(c, s.list_id, list_pages.ListQuery()),
        LIST_PAGE_SCHEMA,
    ),
    "list_page everyone": (
        lambda c, s: list_pages.list_page(
            c, s.list_id, list_pages.ListQuery(everyone=True, sort="name")
        ),
        LIST_PAGE_SCHEMA,
    ),
    "player_on_lists": (
        lambda c, s: list_pages.player_on_lists(c, s.player, [s.list_id]),
        PLAYER_LISTS_SCHEMA,
    ),
    "event_results": (lambda c, s: tournaments.event_results(c, _event(c)), EVENT_RESULTS_SCHEMA),
    "event_games": (lambda c, s: tournaments.event_games(c, _event(c)), EVENT_GAMES_SCHEMA),
    "player_games": (lambda c, s: tournaments.player_games(c, s.player), PLAYER_GAMES_SCHEMA),
    "player_game_ratings": (
        lambda c, s: tournaments.player_game_ratings(c, s.player),
        PLAYER_GAME_RATINGS,
    ),
    "recent_jobs": (lambda c, s: runs.recent_jobs(c), JOB_SCHEMA),
    "last_job": (lambda c, s: runs.last_job(c, other_than="backup"), JOB_SCHEMA),
    "read_totals": (lambda c, s: totals.read_totals(c), TOTALS_SCHEMA),
    "from_changes": (lambda c, s: totals.from_changes(c), TOTALS_SCHEMA),
    "totals_at": (lambda c, s: totals.totals_at(c, date(2025, 1, 31)), TOTALS_SCHEMA),
    "aggregate": (lambda c, s: totals.aggregate(_changes(c)), TOTALS_SCHEMA),
    "list_tournaments": (lambda c, s: tournaments.list_tournaments(c), TOURNAMENT_LIST_SCHEMA),
    "rated_tournaments": (lambda c, s: audit.rated_tournaments(c), AUDIT_TOURNAMENTS),
    "rated_changes": (lambda c, s: audit.rated_changes(c), AUDIT_CHANGES),
    "played_games": (lambda c, s: audit.played_games(c), AUDIT_GAMES),
    "deletions": (lambda c, s: tournaments.deletions(c), DELETION_SCHEMA),
    "list_tournaments of a player": (
        lambda c, s: tournaments.list_tournaments(
            c,
            ends_from=date(2025, 1, 1),
            ends_to=date(2025, 12, 31),
            player=s.player,
            status="rated",
        ),
        TOURNAMENT_LIST_SCHEMA,
    ),
}
"""Every read that returns a frame, and the schema it returns."""


def test_every_read_of_a_frame_is_checked() -> None:
    returning_frames = {
        name
        for module in (
            players,
            tournaments,
            window,
            stored_changes,
            lists,
            list_pages,
            runs,
            totals,
            audit,
        )
        for name, function in inspect.getmembers(module, inspect.isfunction)
        if function.__module__ == module.__name__
        and not name.startswith("_")
        and function.__annotations__.get("return") == "pl.DataFrame"
    }
    assert returning_frames == {name.split()[0] for name in READS}


def fill(connection: Connection) -> Stored:
    """Three players (a grandmaster, one never rated, one without a country), a rated and a
    pending tournament, their rating changes, a published list, a finished job run and a deleted
    tournament."""
    players.insert_players(
        connection,
        pl.DataFrame(
            {
                "federation_id": ["1", "2", "3"],
                "name": ["Ann", "Bob", "Cid"],
                "name_key": ["ann", "bob", "cid"],
                "country": ["GER", None, "AUT"],
                "club": [None, "Club", None],
            }
        ),
        NOW,
    )
    ids = players.player_ids(connection, ["1", "2", "3"])
    players.insert_identifiers(
        connection, pl.DataFrame({"player": [ids["1"]], "scheme": ["fide"], "value": ["4600001"]})
    )
    players.insert_aliases(
        connection,
        pl.DataFrame({"scheme": ["trf"], "spelling": ["Bob, B."], "player": [ids["2"]]}),
        "officer",
        NOW,
    )
    players.update_players(
        connection, [(ids["1"], "GM", date(2020, 1, 1))], ["title", "title_date"]
    )
    tournaments.insert_tournaments(
        connection,
        pl.DataFrame(
            {
                "key": ["T1", "T2"],
                "name": ["January Open", "February Open"],
                "start_date": [date(2025, 1, 1), date(2025, 2, 1)],
                "end_date": [date(2025, 1, 2), date(2025, 2, 2)],
                "tier": ["regular", "regular"],
                "source_name": ["results.csv", "results.csv"],
                "source_hash": ["ab" * 32, "ab" * 32],
                "source_format": ["csv", "csv"],
                "imported_at": [NOW, NOW],
                "imported_by": ["officer", "officer"],
            }
        ),
    )
    keys = tournaments.tournament_ids(connection, ["T1", "T2"])
    imports.insert_results(
        connection,
        pl.DataFrame(
            {
                "tournament": [keys["T1"], keys["T1"], keys["T2"], keys["T2"]],
                "player": [ids["1"], ids["2"], ids["1"], ids["3"]],
                "line": [1, 2, 1, 2],
                "wins": [1, 0, 0, 1],
                "draws": [0, 0, 0, 0],
                "losses": [0, 1, 1, 0],
                "buchholz": [0, 10_000, 10_000, 0],
                "title": ["GM", None, "GM", None],
            }
        ),
    )
    tournaments.insert_games(
        connection,
        pl.DataFrame(
            {
                "tournament": [keys["T1"], keys["T1"]], "round": [1, 1],
                "player": [ids["1"], ids["2"]], "opponent": [ids["2"], ids["1"]],
                "kind": ["game", "game"], "outcome": ["W", "L"], "color": ["W", "B"],
                "handicap": [0, 0],
            }
        ),
    )  # fmt: skip
    rated = [ids["1"], ids["2"]]
    after = np.array([10_050_000_000_000, 9_950_000_000_000], dtype=np.int64)
    stored_changes.replace_rating_changes(
        connection,
        0,
        {
            "seq": np.zeros(2, dtype=np.int64),
            "player_id": np.array(rated, dtype=np.int64),
            "tournament_id": np.full(2, keys["T1"], dtype=np.int64),
            "games": np.ones(2, dtype=np.int64),
            "rating_before": np.full(2, 10_000_000_000_000, dtype=np.int64),
            "rating_after": after,
            "expected": np.full(2, 5_000_000_000, dtype=np.int64),
        },
        pl.DataFrame({"seq": [0], "end_date": [date(2025, 1, 2)]}),
    )
    stored_changes.mark_rated(
        connection,
        pl.DataFrame(
            {"id": [keys["T1"]], "seq": [0], "k": [20], "m_avg": [10**13], "b_avg": [10**10]}
        ),
        NOW,
    )
    entries = with_page_columns(
        lists.ranking(connection).with_columns(
            active=pl.lit(True), previous_rating=pl.lit(None, dtype=pl.Int64)
        )
    )
    list_id = lists.insert_list(
        connection,
        {
            "period": "2025-02", "version": 1, "cutoff": date(2025, 1, 31), "created_at": NOW,
            "created_by": "officer", "players": 2, "active_players": 2, "mean_rating": 10**13,
            "initial_rating": 10**13, "active_months": 24, "previous_id": None,
            "replaces_id": None,
        },
        entries,
    )  # fmt: skip
    job = runs.start_job(connection, "monthly", NOW)
    runs.finish_job(connection, job, NOW, "succeeded", tournaments_rated=1, list_period="2025-02")
    connection.execute(
        tournament_deletions.insert().values(
            key="T0", name="Wrong", start_date=date(2025, 1, 1), end_date=date(2025, 1, 2),
            status="pending", results=2, games=0, source_name="wrong.csv", source_hash="ab",
            imported_at=NOW, imported_by="td", deleted_at=NOW, deleted_by="officer",
        )
    )  # fmt: skip
    return Stored(ids["1"], ["T1", "T2"], list_id)


@pytest.mark.parametrize("filled", [False, True], ids=["empty", "filled"])
def test_every_read_returns_exactly_its_schema(engine: Engine, filled: bool) -> None:
    with engine.begin() as connection:
        stored = fill(connection) if filled else Stored(1, ["T1"], 1)
    returned = {}
    with engine.connect() as connection:
        for name, (read, _schema) in READS.items():
            frame = read(connection, stored)
            returned[name] = (list(frame.schema.items()), frame.height > 0)
    expected = {name: (list(schema.items()), filled) for name, (_read, schema) in READS.items()}
    assert returned == expected


def test_tournaments_ending_on_days_are_found_alike_in_the_index_and_the_whole_table(
    engine: Engine,
) -> None:
    """Fewer days than the table may hold rows are looked up through its index, more in the
    whole table read once: the same tournaments either way."""
    ends = [date(2025, 1, 2 + n % 3) for n in range(6)]
    with engine.begin() as connection:
        tournaments.insert_tournaments(
            connection,
            pl.DataFrame(
                {
                    "key": [f"T{n}" for n in range(6)],
                    "name": [f"Open {n}" for n in range(6)],
                    "start_date": ends,
                    "end_date": ends,
                    "tier": ["regular"] * 6,
                    "source_name": ["results.csv"] * 6,
                    "source_hash": ["ab" * 32] * 6,
                    "source_format": ["csv"] * 6,
                    "imported_at": [NOW] * 6,
                    "imported_by": ["officer"] * 6,
                }
            ),
        )
    asked = [date(2025, 1, 2), date(2025, 1, 4)]
    others = [date(2024, 1, day) for day in range(1, 11)]
    with engine.connect() as connection:
        by_index = tournaments.tournaments_ending_on(connection, asked).sort("id")
        whole = tournaments.tournaments_ending_on(connection, asked + others).sort("id")
    assert by_index.height == 4
    assert by_index.to_dicts() == whole.to_dicts()


TEXTS = ["", None, "a,b", 'say "hi"', "two\nlines", " lead", "trail ", "\\.", "Ölçü Œuvre", "NULL"]
"""Texts a CSV could mistake: empty against null, the separator, quotes, a line break, spaces at
either end, PostgreSQL's end-of-data mark, letters beyond ASCII, the word NULL."""


def test_texts_and_flags_read_back_exactly(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every text and flag comes back as stored, on PostgreSQL through ``COPY ... TO STDOUT``,
    whose CSV polars parses (the server writes a null unquoted and an empty text quoted)."""
    from ratings.storage import frames

    copied: list[str] = []
    real = frames._copy_out

    def spied(connection: Connection, sql: str, schema: dict[str, Any]) -> pl.DataFrame:
        copied.append(sql)
        return real(connection, sql, schema)

    monkeypatch.setattr(frames, "_copy_out", spied)
    table = Table(
        "texts_read_back",
        MetaData(),
        Column("id", Integer, primary_key=True),
        Column("text", String(50)),
        Column("flag", Boolean),
    )
    flags = [True, False, None] * 4
    schema = {"id": pl.Int64, "text": pl.String, "flag": pl.Boolean}
    with engine.begin() as connection:
        table.create(connection)
        try:
            connection.execute(
                table.insert(),
                [{"id": i, "text": t, "flag": flags[i]} for i, t in enumerate(TEXTS)],
            )
            frame = frames.read_frame(connection, select(table).order_by(table.c.id), schema)
        finally:
            table.drop(connection)
    assert frame["text"].to_list() == TEXTS
    assert frame["flag"].to_list() == flags[: len(TEXTS)]
    assert frame.schema == pl.Schema(schema)
    assert len(copied) == (1 if engine.dialect.name == "postgresql" else 0)
