"""The published lists: each list, its frozen entries (with one index per order the site
offers), the names lists have printed and the words the site's search finds them by."""

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
    String,
    Table,
    UniqueConstraint,
    event,
    text,
)
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.sql.base import DialectKWArgs

from ratings.storage.schema.base import metadata

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


_POSTGRESQL_OPTIONS: list[tuple[DialectKWArgs, dict[str, Any]]] = []
"""The options of schema items on PostgreSQL (an index's ``INCLUDE`` and ``WHERE``, a table's
partitioning), given to them only once an engine connects to PostgreSQL
(:func:`_postgresql_options_given`): naming one where the item is declared makes SQLAlchemy load
its PostgreSQL dialect to check the name, which every command on SQLite then paid for before it
started (0.1 s of a `ratings ranking` on two cores)."""


def _list_order_indexes() -> list[Index]:
    """The indexes of :data:`LIST_ORDERS` on each backend. SQLite keeps every list in one table,
    so each index starts with the list. On PostgreSQL each list is a table of its own (a
    partition, ratings.storage.lists) holding one list id: the list in each of its keys only made
    every key longer and every comparison of the index's build one column longer. There the list
    is carried in each index without being compared (``INCLUDE``), so that a query naming its
    list is still answered from the index alone: without it PostgreSQL read the table to check
    the list. :func:`declared_on` tells them apart."""
    indexes = []
    for name, (columns, where) in LIST_ORDERS.items():
        partial: dict[str, Any] = {} if where is None else {"where": where}
        on_postgresql = Index(
            f"ix_list_entries_{name}", *columns, info={"dialect": "postgresql"}
        ).ddl_if(dialect="postgresql")
        _POSTGRESQL_OPTIONS.append((on_postgresql, {"include": ["list_id"], **partial}))
        indexes += [
            Index(
                f"ix_list_entries_{name}", "list_id", *columns, info={"dialect": "sqlite"},
                **{f"sqlite_{k}": v for k, v in partial.items()},
            ).ddl_if(dialect="sqlite"),
            on_postgresql,
        ]  # fmt: skip
    return indexes


_postgresql_given = False


@event.listens_for(Engine, "engine_connect")
def _postgresql_options_given(connection: Connection) -> None:
    global _postgresql_given  # once per process; giving them twice is harmless
    if _postgresql_given or connection.dialect.name != "postgresql":
        return
    for item, options in _POSTGRESQL_OPTIONS:
        item.dialect_options["postgresql"].update(options)
    _postgresql_given = True


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
)
# On PostgreSQL each list is a partition of its own (in the schema LIST_PARTITIONS), written whole
# with its indexes built after the rows, then attached (ratings.storage.lists).
_POSTGRESQL_OPTIONS.append((list_entries, {"partition_by": "LIST (list_id)"}))

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
