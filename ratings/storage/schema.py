"""The database schema (SQLAlchemy Core). Alembic migrations in ``migrations/`` create it.

Exact values (ratings, E, averages) are integers counting 1e-10 points and Buchholz values integers
counting 1e-4 points, so every backend stores and returns the same digits.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Date,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    text,
)

metadata = MetaData(
    naming_convention={
        "ix": "ix_%(table_name)s_%(column_0_N_name)s",
        "uq": "uq_%(table_name)s_%(column_0_N_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
    }
)

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
    Column("id", Integer, primary_key=True),
    Column(
        "tournament_id", Integer, ForeignKey("tournaments.id", ondelete="CASCADE"), nullable=False
    ),
    Column("player_id", Integer, ForeignKey("players.id"), nullable=False),
    Column("line", Integer),
    Column("wins", Integer, nullable=False),
    Column("draws", Integer, nullable=False),
    Column("losses", Integer, nullable=False),
    Column("buchholz", BigInteger, nullable=False),
    Column("title", String(16)),
    # A unique index, not a constraint: a large import drops it with the other indexes and
    # builds it once after the rows (``bulk.indexes_rebuilt``), which checks every key.
    Index("ix_results_tournament_id_player_id", "tournament_id", "player_id", unique=True),
    Index("ix_results_player_id", "player_id"),
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
write several times slower; ``tests/jobs/test_rating_job.py`` checks no change lacks its result)."""

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

published_lists = Table(
    "published_lists",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("period", String(7), nullable=False),
    Column("version", Integer, nullable=False),
    Column("cutoff", Date, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("created_by", String(100), nullable=False),
    Column("players", Integer, nullable=False),
    Column("active_players", Integer, nullable=False),
    Column("mean_rating", BigInteger, nullable=False),
    Column("initial_rating", BigInteger, nullable=False),
    Column("active_months", Integer, nullable=False),
    Column("previous_id", Integer, ForeignKey("published_lists.id")),
    Column("replaces_id", Integer, ForeignKey("published_lists.id")),
    UniqueConstraint("period", "version"),
)

TITLED = text("title IS NOT NULL")
"""Which list entries hold a title."""
WORD = String(200).with_variant(String(200, collation="C"), "postgresql")


def _ordered(length: int) -> String:
    """A text a list's pages are ordered or ranged by: code-point order on every backend, as
    SQLite compares texts (a language's collation on PostgreSQL put names in another order than
    SQLite, and cost its index builds a fifth more)."""
    return String(length).with_variant(String(length, collation="C"), "postgresql")


LIST_ORDERS: dict[str, tuple[tuple[str, ...], Any]] = {
    "rank": (("rank",), None),
    "rank_all": (("rank_all",), None),
    # Few players hold a title: only theirs are indexed.
    "title": (("title",), TITLED),
    # A search: the entries of the names found, with their ranks, so that the page's order is
    # taken from the index alone.
    "name_id": (("name_id", "rank", "rank_all", "player_id"), None),
    # One index per order a page offers (a country's in rank order), each over everyone with the
    # rank among the active players last, so that a page of the active players is read from the
    # same index, skipping the inactive in it: each index is a copy of the list, written with
    # every list.
    "country": (("country", "rank_all", "rank"), None),
    "name": (("name_key", "player_id", "rank"), None),
    "games": (("games", "player_id", "rank"), None),
}
"""The orders of a list's entries the site reads through an index (``ix_list_entries_<name>``):
the columns after the list and which entries are indexed (None: all)."""


def _list_order_indexes() -> list[Index]:
    """The indexes of :data:`LIST_ORDERS` on each backend. SQLite keeps every list in one table,
    so each index starts with the list. On PostgreSQL each list is a table of its own (a
    partition, ratings.storage.lists) holding one list id: the list in each of its keys only made
    every key longer and every comparison of the index's build one column longer (7.7 against
    5.2 processor seconds for a million entries). There the list is carried in each index
    without being compared (``INCLUDE``, at no measurable cost), so that a query naming its list
    is still answered from the index alone: without it PostgreSQL read the table to check the
    list (a country's count 40 ms against 3). :func:`declared_on` tells them apart."""
    indexes = []
    for name, (columns, where) in LIST_ORDERS.items():
        partial: dict[str, Any] = {}
        if where is not None:
            partial = {"postgresql_where": where, "sqlite_where": where}
        indexes += [
            Index(
                f"ix_list_entries_{name}", "list_id", *columns, info={"dialect": "sqlite"},
                **partial,
            ).ddl_if(dialect="sqlite"),
            Index(
                f"ix_list_entries_{name}", *columns, info={"dialect": "postgresql"},
                postgresql_include=["list_id"], **partial,
            ).ddl_if(dialect="postgresql"),
        ]  # fmt: skip
    return indexes


def declared_on(item: Any, dialect: str) -> bool:
    """Whether a schema item is declared on the backend ``dialect``: all but the indexes of one
    backend only (:func:`_list_order_indexes`)."""
    info = getattr(item, "info", None) or {}
    return bool(info.get("dialect", dialect) == dialect)


def compared_on(dialect: str) -> Callable[[Any, str | None, str, bool, Any], bool]:
    """Alembic's filter (``include_object``) for comparing the schema with a database of
    ``dialect``: everything the database has, and what the code declares on that backend."""

    def compared(item: Any, name: str | None, kind: str, reflected: bool, other: Any) -> bool:
        return reflected or declared_on(item, dialect)

    return compared


list_entries = Table(
    "list_entries",
    metadata,
    # A frozen copy, written once by the publishing job from the players table in the
    # transaction that creates its list: no foreign keys to check row by row (see rating_changes).
    Column("list_id", Integer, primary_key=True),
    Column("player_id", Integer, primary_key=True),
    Column("federation_id", String(64), nullable=False),
    Column("name", String(200), nullable=False),
    Column("country", _ordered(16)),
    Column("title", _ordered(16)),
    Column("rating", BigInteger, nullable=False),
    Column("games", Integer, nullable=False),
    Column("tournaments", Integer, nullable=False),
    Column("last_played", Date),
    Column("active", Boolean, nullable=False),
    Column("previous_rating", BigInteger),
    # For the site's paged list: the name folded as the importer matches names, and the rank
    # among the active players (null for the inactive) and among everyone, fixed at publishing
    # so that a page of a million-player list is read through an index, never ranked per request.
    Column("name_key", _ordered(200)),
    Column("rank", Integer),
    Column("rank_all", Integer),
    # The entry's name in list_names, whose words the search reads.
    Column("name_id", Integer),
    *_list_order_indexes(),
    # On PostgreSQL each list is a partition of its own (in the schema LIST_PARTITIONS), written
    # whole with its indexes built after the rows, then attached (ratings.storage.lists).
    postgresql_partition_by="LIST (list_id)",
)

LIST_PARTITIONS = "list_parts"
"""The schema of ``list_entries``' partitions on PostgreSQL, one table per list."""

list_names = Table(
    "list_names",
    metadata,
    # Every name a published list has printed, once, with what the site reads of it: a name's
    # folded forms are a function of the name alone, so they are derived when a list first prints
    # it, not for every list. Append-only: an entry points at the name as its list printed it.
    Column("id", Integer, primary_key=True, autoincrement=False),
    Column("name", String(200), nullable=False, unique=True),
    Column("name_key", String(200), nullable=False),
)
"""The names of list entries: the name as printed and its alphabetical form
(``ratings.names.page_forms``)."""

name_words = Table(
    "name_words",
    metadata,
    # The site's search: each name once per word it is found by (ratings.names.search_words), so
    # that the names having a word that starts with what was typed are a range of the key, and a
    # list's entries of those names are found through its (list, name) index. Code-point order on
    # every backend (PostgreSQL's collation may order by language rules, where such a range is
    # not a prefix).
    Column("word", WORD, primary_key=True),
    Column("name_id", Integer, primary_key=True, autoincrement=False),
    sqlite_with_rowid=False,
)

games = Table(
    "games",
    metadata,
    Column(
        "tournament_id", Integer, ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True
    ),
    Column("round", Integer, primary_key=True),
    Column("player_id", Integer, ForeignKey("players.id"), primary_key=True),
    Column("opponent_id", Integer, ForeignKey("players.id")),
    Column("kind", String(16), nullable=False),
    Column("outcome", String(1), nullable=False),
    Column("color", String(1)),
    Column("handicap", Integer, nullable=False),
)


# Accounts of the site (migration 0020): officers and tournament directors. A password is kept
# only as its argon2 hash, an API token and a session id only as their SHA-256.
accounts = Table(
    "accounts",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(100), nullable=False, unique=True),
    Column("role", String(16), nullable=False),
    Column("email", String(254)),
    Column("password_hash", String(200), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("created_by", String(100), nullable=False),
    # A removed account keeps its row, so that its submissions still name it.
    Column("removed_at", DateTime(timezone=True)),
)

account_tokens = Table(
    "account_tokens",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("account_id", Integer, ForeignKey("accounts.id"), nullable=False, index=True),
    Column("token_hash", String(64), nullable=False, unique=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("last_used_at", DateTime(timezone=True)),
    Column("revoked_at", DateTime(timezone=True)),
)

web_sessions = Table(
    "web_sessions",
    metadata,
    Column("id_hash", String(64), primary_key=True),
    Column("account_id", Integer, ForeignKey("accounts.id"), nullable=False, index=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("expires_at", DateTime(timezone=True), nullable=False),
)

account_events = Table(
    "account_events",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("at", DateTime(timezone=True), nullable=False),
    # The account's name as given: a failed login may name no account at all.
    Column("account", String(100), nullable=False),
    Column("event", String(32), nullable=False),
    Column("address", String(64)),
    Column("by", String(100), nullable=False),
    Index("ix_account_events_account_at", "account", "at"),
)

submissions = Table(
    "submissions",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("submitter_id", Integer, ForeignKey("accounts.id"), nullable=False, index=True),
    Column("file_name", String(255), nullable=False),
    Column("data", LargeBinary, nullable=False),
    Column("sha256", String(64), nullable=False),
    Column("tier", String(16), nullable=False),
    Column("notes", Text),
    Column("submitted_at", DateTime(timezone=True), nullable=False),
    # submitted, needs answers, accepted, rejected (rated and in a list are read from the
    # tournaments it brought in and the lists published since).
    Column("status", String(16), nullable=False),
    # The dry run's report (warnings, names to answer with their candidates) as JSON.
    Column("report", Text, nullable=False),
    Column("reason", Text),
    Column("decided_at", DateTime(timezone=True)),
    Column("decided_by", String(100)),
    # The keys of the tournaments the accepted file brought in, as JSON.
    Column("tournament_keys", Text),
    Index("ix_submissions_status_submitted_at", "status", "submitted_at"),
)

service_keys = Table(
    "service_keys",
    metadata,
    Column("name", String(32), primary_key=True),
    Column("value", String(200), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
)
