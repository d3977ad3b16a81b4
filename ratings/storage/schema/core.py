"""The registry, the tournaments, their results and the rating state: the tables a rating run
reads and writes, and the runs of the jobs."""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Date,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    Text,
    UniqueConstraint,
)

from ratings.storage.schema.base import metadata

players = Table(
    "players",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("federation_id", String(64), nullable=False, unique=True),
    Column("name", String(200), nullable=False),
    Column("name_key", String(200), nullable=False, index=True),
    Column("country", String(16)),
    Column("club", String(200)),
    Column("title", String(16)),
    Column("title_date", Date),
    Column("first_seen", Date),
    Column("merged_into", Integer, ForeignKey("players.id")),
    Column("created_at", DateTime(timezone=True), nullable=False),
    # A player's current rating is their totals' (player_totals.rating, the rating after their
    # last change): one copy, written once per rating run (migration 0017).
)

tournaments = Table(
    "tournaments",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("key", String(200), nullable=False, unique=True),
    Column("name", String(200), nullable=False),
    Column("start_date", Date, nullable=False),
    Column("end_date", Date, nullable=False),
    Column("tier", String(16), nullable=False),
    Column("status", String(16), nullable=False),
    Column("seq", BigInteger),
    Column("k", Integer),
    Column("m_avg", BigInteger),
    Column("b_avg", BigInteger),
    Column("source_name", String(500), nullable=False),
    Column("source_hash", String(64), nullable=False),
    Column("source_format", String(16), nullable=False),
    Column("imported_at", DateTime(timezone=True), nullable=False),
    Column("imported_by", String(100), nullable=False),
    Column("rated_at", DateTime(timezone=True)),
    # What a crosstable's standings need beyond its games (ratings.tiebreaks.record), as JSON;
    # null for an event that came as a results table.
    Column("standings", Text),
    Index("ix_tournaments_order", "end_date", "start_date", "key"),
    Index("ix_tournaments_seq", "seq"),
    # Whether a file was imported before (the monthly job asks for each file of its inbox).
    Index("ix_tournaments_source_hash", "source_hash"),
)

results = Table(
    "results",
    metadata,
    # Keyed by its tournament and player, which no other table refers to by an id of its own:
    # on SQLite (a table without rowid) the rows are stored in key order, one B-tree with the
    # player's index beside it; on PostgreSQL a large import drops the key and adds it back
    # after the rows (``bulk.primary_key_rebuilt``), which checks every key once.
    Column(
        "tournament_id",
        Integer,
        ForeignKey("tournaments.id", ondelete="CASCADE"),
        primary_key=True,
        autoincrement=False,
    ),
    Column("player_id", Integer, ForeignKey("players.id"), primary_key=True, autoincrement=False),
    Column("line", Integer),
    Column("wins", Integer, nullable=False),
    Column("draws", Integer, nullable=False),
    Column("losses", Integer, nullable=False),
    Column("buchholz", BigInteger, nullable=False),
    Column("title", String(16)),
    Index("ix_results_player_id", "player_id"),
    sqlite_with_rowid=False,
)

rating_changes = Table(
    "rating_changes",
    metadata,
    # Keyed by position: a rating run appends in position order and a re-rating deletes a tail,
    # so on SQLite (a table without rowid) the rows are written and removed in key order.
    Column("seq", BigInteger, primary_key=True),
    Column("player_id", Integer, primary_key=True),
    Column("tournament_id", Integer, nullable=False),
    Column("games", Integer, nullable=False),
    Column("rating_before", BigInteger, nullable=False),
    Column("rating_after", BigInteger, nullable=False),
    Column("expected", BigInteger, nullable=False),
    Index("ix_rating_changes_player_seq", "player_id", "seq"),
    sqlite_with_rowid=False,
)
"""One row per result of a rated tournament. What is the same for the whole tournament (k, M_avg,
B_avg) is kept on the tournament, and the points on the result: ten million rows are written on
a full re-rating, and every column of them counts.

Derived data: only the rating job writes it, from results whose keys to players and tournaments
are checked, so it carries no foreign keys of its own (checked row by row, they made the bulk
write much slower; ``tests/jobs/test_rating_job.py`` checks no change lacks its result)."""

player_totals = Table(
    "player_totals",
    metadata,
    Column("player_id", Integer, primary_key=True, autoincrement=False),
    Column("changes", Integer, nullable=False),
    Column("games", Integer, nullable=False),
    Column("tournaments", Integer, nullable=False),
    Column("last_played", Date),
    Column("rating", BigInteger, nullable=False),
)
"""What a list shows of each player with a rating change, over all their rating changes: how many
changes, games and tournaments played (changes with games), the end date of the last tournament
played and the rating after the last change. Derived data, kept current by the rating job
(``ratings/storage/totals.py``) so that publishing reads a row per player instead of aggregating
every rating change ever made; no foreign keys, as for ``rating_changes``."""

rating_state = Table(
    "rating_state",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("rerate_from_seq", BigInteger),
    Column("rerate_reason", Text),
    Column("parameters", Text),
)
"""One row (id 1): where the next rating run must start again and why, and the parameters the
current ratings were computed with (JSON, as written by the rating job)."""

player_merges = Table(
    "player_merges",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("kept_id", Integer, ForeignKey("players.id"), nullable=False),
    Column("duplicate_id", Integer, ForeignKey("players.id"), nullable=False),
    Column("merged_at", DateTime(timezone=True), nullable=False),
    Column("merged_by", String(100), nullable=False),
    Column("results_recorded", Boolean),
    Column("undone_at", DateTime(timezone=True)),
    Column("undone_by", String(100)),
)
"""Every merge, kept after it is undone (``undone_at``, ``undone_by``) as the audit of both.
``results_recorded`` is true for merges that recorded which tournaments they moved
(``player_merge_results``); merges made before that (null) cannot be undone by the service."""

player_merge_results = Table(
    "player_merge_results",
    metadata,
    Column(
        "merge_id", Integer, ForeignKey("player_merges.id", ondelete="CASCADE"), primary_key=True
    ),
    Column(
        "tournament_id",
        Integer,
        ForeignKey("tournaments.id", ondelete="CASCADE"),
        primary_key=True,
    ),
)
"""The tournaments whose results (and games) a merge moved from the duplicate to the kept
player: a merge is refused when both played in one tournament, so the tournament names the
result, and an unmerge moves exactly these back."""

tournament_deletions = Table(
    "tournament_deletions",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("key", String(200), nullable=False, index=True),
    Column("name", String(200), nullable=False),
    Column("start_date", Date, nullable=False),
    Column("end_date", Date, nullable=False),
    Column("status", String(16), nullable=False),
    Column("results", Integer, nullable=False),
    Column("games", Integer, nullable=False),
    Column("source_name", String(500), nullable=False),
    Column("source_hash", String(64), nullable=False),
    Column("imported_at", DateTime(timezone=True), nullable=False),
    Column("imported_by", String(100), nullable=False),
    Column("deleted_at", DateTime(timezone=True), nullable=False),
    Column("deleted_by", String(100), nullable=False),
)
"""The audit of tournaments deleted as wrongly imported: what they were, where they came from,
and who deleted them when."""

player_identifiers = Table(
    "player_identifiers",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("player_id", Integer, ForeignKey("players.id"), nullable=False),
    Column("scheme", String(16), nullable=False),
    Column("value", String(64), nullable=False),
    UniqueConstraint("scheme", "value"),
    Index("ix_player_identifiers_player_id", "player_id"),
)
"""The ids other bodies give a player (``fide``, ``egd``, ``national``): one id names one player."""

player_aliases = Table(
    "player_aliases",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("scheme", String(16), nullable=False),
    Column("spelling", String(200), nullable=False),
    Column("player_id", Integer, ForeignKey("players.id"), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("created_by", String(100), nullable=False),
    UniqueConstraint("scheme", "spelling"),
)
"""The officer's answers: this spelling, in files of this format (``trf``, ``h9``, ...), is
this player, so next month's file of the same director matches without asking again."""

job_runs = Table(
    "job_runs",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("kind", String(32), nullable=False),
    Column("started_at", DateTime(timezone=True), nullable=False),
    Column("finished_at", DateTime(timezone=True)),
    Column("outcome", String(16), nullable=False),
    Column("tournaments_rated", Integer, nullable=False, default=0),
    Column("results_rated", Integer, nullable=False, default=0),
    Column("files_accepted", Integer, nullable=False, default=0),
    Column("files_rejected", Integer, nullable=False, default=0),
    Column("list_period", String(7)),
    Column("error", Text),
)
