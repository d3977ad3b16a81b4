"""Reading query results into polars frames, and the schema of every frame storage returns.

Each schema is a dict of column name to polars type, in the frame's column order;
``tests/storage/test_frames.py`` keeps them in step with the tables of :mod:`.schema`. In a
frame, ``player`` is a player's id in the database and ``federation_id`` the federation's id of
them, whatever the table's column is called.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from typing import Any

import polars as pl
from sqlalchemy import Select
from sqlalchemy.engine import Connection

FETCH = 200_000
"""Rows per fetch of a bulk read: big enough to amortise the calls, small enough that only a
slice of a ten-million-row read is ever held as Python tuples."""

WHOLE_TABLE_FROM = 50_000
"""Look-ups of more keys than this read the whole table once instead of asking in chunks of a
few thousand keys: a ten-million-result import asks for a million players."""

# --- the frames storage returns ----------------------------------------------------------------

# Every player, merged ones included, as player matching needs them.
KNOWN_SCHEMA = {
    "id": pl.Int64,
    "federation_id": pl.String,
    "name": pl.String,
    "name_key": pl.String,
    "country": pl.String,
    "merged_into": pl.Int64,
}

# What the registry holds of some players, as a registry file updates it.
REGISTRY_SCHEMA = {
    "id": pl.Int64, "name": pl.String, "country": pl.String, "club": pl.String,
    "title": pl.String, "title_date": pl.Date,
}  # fmt: skip

# Every external id of every player (FIDE id, EGD PIN, national ids).
IDENTIFIER_SCHEMA = {"player": pl.Int64, "scheme": pl.String, "value": pl.String}

# Every remembered spelling: in files of this scheme, this spelling is this player.
ALIAS_SCHEMA = {"scheme": pl.String, "spelling": pl.String, "player": pl.Int64}

# Every player not merged away, with the current exact rating, to seed an event from.
SEEDING_SCHEMA = {
    "federation_id": pl.String, "name": pl.String, "name_key": pl.String, "country": pl.String,
    "title": pl.String, "rating": pl.Int64,
}  # fmt: skip

# The stored tournaments that end on some dates (an import compares its events with them).
DATED_TOURNAMENTS = {
    "id": pl.Int64, "key": pl.String, "name": pl.String, "start_date": pl.Date,
    "end_date": pl.Date,
}  # fmt: skip

# The results of some tournaments by player and outcome.
OUTCOMES_SCHEMA = {
    "tournament_id": pl.Int64, "player": pl.Int64, "wins": pl.Int64, "draws": pl.Int64,
    "losses": pl.Int64,
}  # fmt: skip

# The Buchholz values stored for the results of some tournaments.
STORED_BUCHHOLZ = {"key": pl.String, "federation_id": pl.String, "buchholz": pl.Int64}

# The tournaments of the rating window, in rating order.
WINDOW_TOURNAMENTS = {
    "id": pl.Int64, "key": pl.String, "name": pl.String, "start_date": pl.Date,
    "end_date": pl.Date, "tier": pl.String,
}  # fmt: skip

# The results of the rating window, with whether the player was a grandmaster then.
WINDOW_RESULTS = {
    "tournament_id": pl.Int64, "player": pl.Int64, "wins": pl.Int64, "draws": pl.Int64,
    "losses": pl.Int64, "buchholz": pl.Int64, "grandmaster": pl.Boolean,
}  # fmt: skip

# Every tournament's stamps as stored: its place in the rating order, k, averages and status.
HELD_STAMPS = {
    "id": pl.Int64, "seq": pl.Int64, "k": pl.Int64, "m_avg": pl.Int64, "b_avg": pl.Int64,
    "status": pl.String,
}  # fmt: skip

# Players by database id with an exact rating (null: none), where a rating run starts from.
PLAYER_RATINGS = {"player": pl.Int64, "rating": pl.Int64}

# The window's players: current rating (null if never rated) and the GM title with its date.
WINDOW_PLAYERS = {
    "player": pl.Int64, "rating": pl.Int64, "grandmaster": pl.Boolean, "title_date": pl.Date,
}  # fmt: skip

# The live ranking: every rated player's exact rating and activity.
RANKING_SCHEMA = {
    "player": pl.Int64, "federation_id": pl.String, "name": pl.String, "country": pl.String,
    "title": pl.String, "rating": pl.Int64, "games": pl.Int64, "tournaments": pl.Int64,
    "last_played": pl.Date,
}  # fmt: skip

# Each player's totals over their rating changes, as a list shows them.
TOTALS_SCHEMA = {
    "player": pl.Int64, "changes": pl.Int64, "games": pl.Int64, "tournaments": pl.Int64,
    "last_played": pl.Date, "rating": pl.Int64,
}  # fmt: skip

# The entries of a published list: the ranking at its cutoff, activity and the previous rating.
ENTRY_SCHEMA = {**RANKING_SCHEMA, "active": pl.Boolean, "previous_rating": pl.Int64}

# Each entry's player and exact rating on a published list (the next list's previous ratings).
LIST_RATINGS_SCHEMA = {"player": pl.Int64, "rating": pl.Int64}

# A name printed on a list, its id and its alphabetical form.
LIST_NAMES_SCHEMA = {"name": pl.String, "name_id": pl.Int64, "name_key": pl.String}

# One page of a published list: the rank shown and the entry.
LIST_PAGE_SCHEMA = {
    "rank": pl.Int64, "federation_id": pl.String, "name": pl.String, "country": pl.String,
    "title": pl.String, "rating": pl.Int64, "games": pl.Int64, "tournaments": pl.Int64,
    "last_played": pl.Date, "active": pl.Boolean, "previous_rating": pl.Int64,
}  # fmt: skip

# A player's place on each of some published lists.
PLAYER_LISTS_SCHEMA = {
    "list_id": pl.Int64, "rank": pl.Int64, "rank_all": pl.Int64, "rating": pl.Int64,
    "country": pl.String, "rank_country": pl.Int64,
}  # fmt: skip

# The results of one tournament with each player's rating change (null before it is rated).
EVENT_RESULTS_SCHEMA = {
    "federation_id": pl.String, "name": pl.String, "country": pl.String, "wins": pl.Int64,
    "draws": pl.Int64, "losses": pl.Int64, "buchholz": pl.Int64, "games": pl.Int64,
    "expected": pl.Int64, "rating_before": pl.Int64, "rating_after": pl.Int64,
}  # fmt: skip

# The games of one tournament that came as a crosstable, one row per player and round.
EVENT_GAMES_SCHEMA = {
    "round": pl.Int64, "federation_id": pl.String, "opponent_federation_id": pl.String,
    "outcome": pl.String, "color": pl.String, "handicap": pl.Int64, "kind": pl.String,
    "opponent_name": pl.String,
}  # fmt: skip

# A player's rounds in the rated events that came as crosstables, in rating order, then by round.
PLAYER_GAMES_SCHEMA = {
    "key": pl.String, "round": pl.Int64, "kind": pl.String, "opponent_federation_id": pl.String,
    "opponent_name": pl.String, "color": pl.String, "outcome": pl.String,
}  # fmt: skip

# Each game a player played over the board in a rated event: both ratings before the event.
PLAYER_GAME_RATINGS = {"key": pl.String, "rating": pl.Int64, "opponent_rating": pl.Int64}

# A player's rated tournaments, in rating order.
HISTORY_SCHEMA = {
    "tournament": pl.String, "key": pl.String, "start_date": pl.Date, "end_date": pl.Date,
    "tier": pl.String, "k": pl.Int64, "games": pl.Int64, "points_x2": pl.Int64,
    "expected": pl.Int64, "rating_before": pl.Int64, "rating_after": pl.Int64,
    "m_avg": pl.Int64, "b_avg": pl.Int64, "wins": pl.Int64, "draws": pl.Int64,
    "losses": pl.Int64, "buchholz": pl.Int64,
}  # fmt: skip

# The officer's inventory of tournaments, in rating order.
TOURNAMENT_LIST_SCHEMA = {
    "key": pl.String, "name": pl.String, "start_date": pl.Date, "end_date": pl.Date,
    "tier": pl.String, "status": pl.String, "results": pl.Int64, "source_format": pl.String,
    "imported_at": pl.Datetime(time_zone="UTC"), "imported_by": pl.String,
}  # fmt: skip

# The audit of deleted tournaments, newest first.
DELETION_SCHEMA = {
    "key": pl.String, "name": pl.String, "start_date": pl.Date, "end_date": pl.Date,
    "status": pl.String, "results": pl.Int64, "games": pl.Int64, "source_name": pl.String,
    "source_hash": pl.String, "imported_at": pl.Datetime(time_zone="UTC"),
    "imported_by": pl.String, "deleted_at": pl.Datetime(time_zone="UTC"),
    "deleted_by": pl.String,
}  # fmt: skip

# Every rated tournament in rating order, for judging the list (ratings.storage.audit).
AUDIT_TOURNAMENTS = {
    "id": pl.Int64, "key": pl.String, "seq": pl.Int64, "tier": pl.String, "k": pl.Int64,
    "end_date": pl.Date,
}  # fmt: skip

# Every rating change in the order it was made.
AUDIT_CHANGES = {
    "seq": pl.Int64, "tournament_id": pl.Int64, "player": pl.Int64, "games": pl.Int64,
    "rating_before": pl.Int64, "rating_after": pl.Int64, "expected": pl.Int64,
}  # fmt: skip

# The games played over the board in rated tournaments, once from each side.
AUDIT_GAMES = {
    "tournament_id": pl.Int64, "round": pl.Int64, "player": pl.Int64, "opponent": pl.Int64,
    "outcome": pl.String,
}  # fmt: skip

# The recorded batch runs, newest first.
JOB_SCHEMA = {
    "id": pl.Int64, "kind": pl.String, "started_at": pl.Datetime(time_zone="UTC"),
    "finished_at": pl.Datetime(time_zone="UTC"), "outcome": pl.String,
    "tournaments_rated": pl.Int64, "results_rated": pl.Int64, "files_accepted": pl.Int64,
    "files_rejected": pl.Int64, "list_period": pl.String, "error": pl.String,
}  # fmt: skip

# --- reading -----------------------------------------------------------------------------------


def read_frame(connection: Connection, query: Select[Any], schema: dict[str, Any]) -> pl.DataFrame:
    """Run ``query`` and return its rows as a frame with the given column types.

    The rows come straight from the driver's cursor, a slice at a time, and go into polars as
    they are: building SQLAlchemy row objects and converting each value in Python was most of the
    time of reading a million results (profile of the rating job). Only the types the driver
    does not return natively (SQLite's dates as text and booleans as integers) are converted, by
    polars, afterwards.
    """
    if any(isinstance(t, pl.Datetime) or t == pl.Datetime for t in schema.values()):
        rows = connection.execute(query).all()
        return pl.DataFrame(rows, schema=schema, orient="row")
    sql = str(query.compile(dialect=connection.dialect, compile_kwargs={"literal_binds": True}))
    if connection.dialect.name == "postgresql" and all(t in COPY_TYPES for t in schema.values()):
        return _copy_out(connection, sql, schema)
    sqlite = connection.dialect.name == "sqlite"
    wire = {
        name: (pl.String if t == pl.Date else pl.Int64 if t == pl.Boolean else t) if sqlite else t
        for name, t in schema.items()
    }
    raw = connection.connection.driver_connection
    cursor = raw.cursor()  # type: ignore[union-attr]
    try:
        cursor.execute(sql)
        parts = []
        while rows := cursor.fetchmany(FETCH):
            # Row by row in native code: splitting the tuples into Python lists of columns first
            # took 1.44 s against 0.89 s for 400,000 results, 0.22 s against 0.19 s for the 46,688
            # entries a list's files show.
            parts.append(pl.DataFrame(rows, schema=wire, orient="row"))
    finally:
        cursor.close()
    frame = pl.concat(parts) if parts else pl.DataFrame(schema=wire)
    if not sqlite:
        return frame
    return frame.with_columns(
        pl.col(name).str.to_date("%Y-%m-%d") if t == pl.Date else pl.col(name).cast(t)
        for name, t in schema.items()
        if wire[name] != t
    )


COPY_TYPES = (pl.Int64, pl.Int32, pl.Date, pl.String, pl.Boolean)
"""Column types a PostgreSQL read takes through ``COPY ... TO STDOUT``, whose CSV text polars reads
back exactly: numbers, dates, booleans (``t`` and ``f``) and texts (the server writes a null as an
unquoted empty field and an empty text as ``""``, which polars tells apart)."""


def _copy_out(connection: Connection, sql: str, schema: dict[str, Any]) -> pl.DataFrame:
    """PostgreSQL's bulk read: the server writes the rows as CSV, polars parses them in native
    code; for ten million results this is much faster than fetching Python tuples, and for the
    46,688 entries of a list's files (texts among them) it took 0.11 s instead of 0.28 s."""
    raw = connection.connection.driver_connection
    buffer = io.BytesIO()
    copy_sql = f"COPY ({sql}) TO STDOUT WITH (FORMAT csv)"
    with raw.cursor() as cursor, cursor.copy(copy_sql) as copy:  # type: ignore[union-attr]
        for block in copy:
            buffer.write(block)
    if buffer.tell() == 0:
        return pl.DataFrame(schema=schema)
    wire = {name: pl.String if t == pl.Boolean else t for name, t in schema.items()}
    frame = pl.read_csv(buffer.getvalue(), has_header=False, schema=wire)
    flags = [name for name, t in schema.items() if t == pl.Boolean]
    return frame.with_columns(pl.col(name) == "t" for name in flags) if flags else frame


def chunks(items: list[Any], size: int) -> Iterable[list[Any]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]
