"""Rating lists: the live ranking from the rating changes, and the published lists frozen from it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

import polars as pl
from sqlalchemy import (
    Column,
    ColumnElement,
    CompoundSelect,
    FromClause,
    MetaData,
    Select,
    Table,
    and_,
    case,
    func,
    insert,
    intersect,
    literal,
    select,
    text,
    true,
    union,
    update,
)
from sqlalchemy.engine import Connection
from sqlalchemy.types import Integer

from ratings.names import page_forms, word_range
from ratings.rounding import mean_units
from ratings.storage import totals
from ratings.storage.bulk import (
    INDEX_BUILD_MEMORY,
    REBUILD_INDEXES_FROM,
    analyze,
    indexes_rebuilt,
    insert_frame,
)
from ratings.storage.frames import (
    ENTRY_SCHEMA,
    LIST_NAMES_SCHEMA,
    LIST_PAGE_SCHEMA,
    LIST_RATINGS_SCHEMA,
    PLAYER_LISTS_SCHEMA,
    RANKING_SCHEMA,
    read_frame,
)
from ratings.storage.schema import (
    LIST_PARTITIONS,
    declared_on,
    list_entries,
    list_names,
    name_words,
    player_totals,
    players,
    published_lists,
    rating_changes,
    tournaments,
)


def ranking(connection: Connection, as_of: date | None = None) -> pl.DataFrame:
    """Every rated player's exact rating, games, tournaments and last date played, counting the
    tournaments rated so far that ended on or before ``as_of`` (all of them when None)."""
    # From the totals the rating job keeps per player: aggregating every rating change here
    # read ten million rows for a million players at federation scale.
    per_player = totals.totals_at(connection, as_of).drop("changes").rename({"player_id": "id"})
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


def list_ratings(connection: Connection, list_id: int) -> pl.DataFrame:
    """Each entry's player and exact rating: what the next list shows as the previous rating."""
    e = list_entries.c
    query = select(e.player_id.label("player"), e.rating).where(e.list_id == list_id)
    return read_frame(connection, query, LIST_RATINGS_SCHEMA)


def stored_names(connection: Connection, names: pl.Series) -> pl.DataFrame:
    """Each distinct name of ``names`` with its id in ``list_names`` and its alphabetical form
    (``name``, ``name_id``, ``name_key``); names no list has printed before are stored first."""
    wanted = names.drop_nulls().unique().alias("name").to_frame()
    n = list_names.c
    known = read_frame(
        connection, select(n.name, n.id.label("name_id"), n.name_key), LIST_NAMES_SCHEMA
    ).join(wanted, on="name", how="semi")
    added = _store_names(connection, wanted.join(known, on="name", how="anti")["name"])
    return pl.concat([known, added])


def _store_names(connection: Connection, names: pl.Series) -> pl.DataFrame:
    """Store ``names`` (distinct, none stored yet) with their forms and search words: a name's
    forms are derived once, when a list first prints it, instead of for every name at every
    publication (folding a million names was most of publishing)."""
    if names.len() == 0:
        return pl.DataFrame(schema=LIST_NAMES_SCHEMA)
    names = names.sort()
    forms = page_forms(names)
    n = list_names.c
    first = int(connection.execute(select(func.coalesce(func.max(n.id), 0))).scalar_one()) + 1
    added = pl.DataFrame(
        {
            "name": names,
            "name_id": pl.int_range(first, first + names.len(), dtype=pl.Int64, eager=True),
            "name_key": forms.get_column("alphabetical"),
        }
    )
    insert_frame(
        connection, list_names, added.select(pl.col("name_id").alias("id"), "name", "name_key")
    )
    words = (
        added.select(forms.get_column("words").str.split(" ").alias("word"), "name_id")
        .explode("word")
        .filter(pl.col("word").is_not_null() & (pl.col("word") != ""))
        .unique()
        # In the key's order: PostgreSQL keeps rows where they were written, so the names of one
        # word are read from a few pages instead of one page each.
        .sort("word", "name_id")
    )
    insert_frame(connection, name_words, words)
    if words.height >= REBUILD_INDEXES_FROM:
        # A search plans a range of words joined to a list's entries; without statistics
        # PostgreSQL guesses the range's size.
        analyze(connection, name_words.name)
        analyze(connection, list_names.name)
    return added


def totals_hold_list(connection: Connection, cutoff: date) -> bool:
    """Whether the players' stored totals are exactly what a list cut off at ``cutoff`` shows:
    no rating change is of a tournament ending after it (as ``totals.totals_at`` decides)."""
    last = connection.execute(
        select(func.max(tournaments.c.seq)).where(
            tournaments.c.seq.is_not(None), tournaments.c.end_date <= cutoff
        )
    ).scalar()
    after = select(rating_changes.c.seq).where(
        rating_changes.c.seq > (-1 if last is None else last)
    )
    return connection.execute(after.limit(1)).first() is None


def anyone_rated(connection: Connection) -> bool:
    """Whether any player (not merged into another) has a rating: a list from the totals has
    an entry."""
    rated = players.join(player_totals, player_totals.c.player_id == players.c.id)
    found = select(players.c.id).select_from(rated).where(players.c.merged_into.is_(None))
    return connection.execute(found.limit(1)).first() is not None


_LOW_BITS = 20
"""A rating is summed as its high and low bits: a million ratings of 1e-10 points overflow a
64-bit sum (SQLite raises), each part does not."""


def insert_list_from_totals(
    connection: Connection,
    info: dict[str, Any],
    *,
    active_since: date,
    previous_id: int | None,
) -> int:
    """Store a list whose entries are every rated player's stored totals (when
    :func:`totals_hold_list`), built by the database in one ``INSERT ... SELECT``: a million
    entries never cross the driver. The entries are what :func:`ranking`,
    ``exporters.lists.list_entries`` and ``jobs.publishing.with_page_columns`` give, which the
    tests check; the list's counts and mean rating are taken from them afterwards."""
    p, t, n = players.c, player_totals.c, list_names.c
    prev = list_entries.alias("prev")
    rated = players.join(player_totals, t.player_id == p.id)
    # The names no list has printed, found by one anti-join of the players to the names. Keeping
    # first only the players whose name the previous list did not print added a join of two
    # million-row tables to it: on PostgreSQL 1.4-1.8 s against 0.26 s at a million players.
    missing = (
        select(p.name)
        .select_from(rated)
        .where(p.merged_into.is_(None), ~select(n.id).where(n.name == p.name).exists())
        .distinct()
    )
    _store_names(
        connection, pl.Series("name", connection.execute(missing).scalars().all(), pl.String)
    )
    list_id = int(
        connection.execute(
            insert(published_lists)
            .values(**info, players=0, active_players=0, mean_rating=0)
            .returning(published_lists.c.id)
        ).scalar_one()
    )
    source = rated
    previous_rating: Any = literal(None, type_=list_entries.c.previous_rating.type)
    if previous_id is not None:
        source = source.outerjoin(
            prev, and_(prev.c.list_id == previous_id, prev.c.player_id == p.id)
        )
        previous_rating = prev.c.rating
    active = and_(t.last_played.is_not(None), t.last_played > active_since)
    rank, rank_all = _ranks(active, t.rating)
    # Each entry's name by a join, not a look-up per entry: PostgreSQL ran the look-up as a
    # subplan for each of a million entries. Every name is in ``list_names`` by now (stored just
    # above); the join is outer, as the look-up was, so it can never leave a player off.
    values = (
        literal(list_id, Integer()), p.id, p.federation_id, p.name, p.country, p.title, t.rating,
        t.games, t.tournaments, t.last_played, active, previous_rating, n.name_key, rank,
        rank_all, n.id,
    )  # fmt: skip
    rows = (
        select(*values)
        .select_from(source.outerjoin(list_names, n.name == p.name))
        .where(p.merged_into.is_(None))
        # In the list's order: SQLite's table and PostgreSQL's heap keep rows as written, so a
        # page in rank order is read from a few pages.
        .order_by(t.rating.desc(), p.id)
    )
    columns = [
        "list_id", "player_id", "federation_id", "name", "country", "title", "rating", "games",
        "tournaments", "last_played", "active", "previous_rating", "name_key", "rank",
        "rank_all", "name_id",
    ]  # fmt: skip
    if connection.dialect.name == "postgresql":
        _write_partition(connection, list_id, columns, rows)
    else:
        first = connection.execute(select(list_entries.c.list_id).limit(1)).first() is None
        entries = (
            int(
                connection.execute(
                    select(func.count()).select_from(rated).where(p.merged_into.is_(None))
                ).scalar_one()
            )
            if first
            else 0
        )
        # The first list of all is written into an empty table, whose indexes are built after it
        # in one sorted pass each; every later list goes into the indexes over the lists before.
        with indexes_rebuilt(connection, list_entries, entries):
            connection.execute(insert(list_entries).from_select(columns, rows))
    count, active_count, mean = pool_statistics(
        connection, list_entries, list_entries.c.list_id == list_id
    )
    connection.execute(
        update(published_lists)
        .where(published_lists.c.id == list_id)
        .values(players=count, active_players=active_count, mean_rating=mean)
    )
    return list_id


def pool_statistics(
    connection: Connection, entries: FromClause, *where: ColumnElement[bool]
) -> tuple[int, int, int]:
    """How many of ``entries`` (a table or query with the columns ``rating`` and ``rank``)
    there are, how many are active (ranked), and their mean rating, exact and rounded half up
    (``ratings.rounding.mean_units``, as polars' lists are): each rating is summed as its high
    and its low bits, neither of which wraps a 64-bit sum, and the two sums are added in
    Python."""
    rating, rank = entries.c.rating, entries.c.rank
    count, active, high, low = connection.execute(
        select(
            func.count(),
            func.coalesce(func.sum(case((rank.is_not(None), 1), else_=0)), 0),
            func.coalesce(func.sum(rating.op(">>")(literal(_LOW_BITS, Integer()))), 0),
            func.coalesce(func.sum(rating.op("&")((1 << _LOW_BITS) - 1)), 0),
        )
        .select_from(entries)
        .where(*where)
    ).one()
    total = (int(high) << _LOW_BITS) + int(low)
    return int(count), int(active), mean_units(total, int(count))


def _ranks(
    active: ColumnElement[bool], rating: ColumnElement[int]
) -> tuple[ColumnElement[Any], ColumnElement[Any]]:
    """Each entry's rank among the active players (null for the inactive) and among everyone,
    as window functions of the statement building a list.

    Both come from one window, so the rows are sorted once: a rank is one more than the players
    rated strictly higher, among everyone and among the active, which are the rows of the peer
    groups before the current one (a ``GROUPS`` frame), ties left out as ``rank()`` leaves them.
    Two ``rank()`` windows, one partitioned by activity, sorted the rows twice: at a million
    entries SQLite's SELECT took 9.9 against 8.1 processor seconds, PostgreSQL's 10.4-11.1 s
    against 6.6-8.9 (a frame of ratings one point or more above, ``RANGE``, was as fast there
    and slower on SQLite)."""
    higher = {"order_by": rating.desc(), "groups": (None, -1)}
    above = func.count().over(**higher)  # type: ignore[arg-type]
    active_above = func.sum(case((active, 1), else_=0)).over(**higher)  # type: ignore[arg-type]
    return case((active, 1 + func.coalesce(active_above, 0))), 1 + above


_STATEMENT_MEMORY = "256MB"
"""What the statement building a list may sort and hash in on PostgreSQL (this transaction only):
with the default 4 MB its sorts of a million entries went to disk."""


def _partition_name(list_id: int) -> str:
    return f"{LIST_PARTITIONS}.entries_{int(list_id)}"


def _new_partition(connection: Connection, list_id: int) -> Table:
    """Create the empty table of a list's entries on PostgreSQL, shaped as ``list_entries``."""
    connection.exec_driver_sql(
        f"CREATE TABLE {_partition_name(list_id)} (LIKE list_entries INCLUDING DEFAULTS)"
    )
    return Table(
        f"entries_{int(list_id)}",
        MetaData(),
        *(Column(c.name, c.type) for c in list_entries.columns),
        schema=LIST_PARTITIONS,
    )


def new_partition(connection: Connection, list_id: int) -> None:
    """Create the empty table of a list's entries (PostgreSQL), for a restore to copy its rows
    into before :func:`finish_partition`."""
    _new_partition(connection, list_id)


def partition_table(list_id: int) -> str:
    return _partition_name(list_id)


def finish_partition(connection: Connection, list_id: int) -> None:
    """Build a filled partition's key and indexes and attach it under ``list_entries``."""
    _index_partition(connection, list_id)
    _attach(connection, list_id)


def _write_partition(
    connection: Connection, list_id: int, columns: list[str], rows: Select[Any]
) -> None:
    """On PostgreSQL: write a list's entries into a table of its own, build its key and indexes
    after the rows (one sorted pass each), and attach it under ``list_entries``. Inserting a
    million entries into the nine indexes over the lists before took 26 s of random B-tree
    writes through a buffer pool smaller than those indexes; attaching takes no lock that stops
    the site reading the lists published before."""
    part = _new_partition(connection, list_id)
    connection.exec_driver_sql(f"SET LOCAL work_mem = '{_STATEMENT_MEMORY}'")
    # A one-off statement: compiling it to machine code cost more than it saved.
    connection.exec_driver_sql("SET LOCAL jit = off")
    connection.execute(insert(part).from_select(columns, rows))
    connection.exec_driver_sql("SET LOCAL work_mem = DEFAULT")
    connection.exec_driver_sql("SET LOCAL jit = DEFAULT")
    _index_partition(connection, list_id)
    _attach(connection, list_id)


def _index_partition(connection: Connection, list_id: int) -> None:
    """Build the key and every index of ``list_entries`` on a list's partition, named after it;
    attaching finds them equal to the parent's and takes them instead of building its own."""
    name = _partition_name(list_id)
    short = f"entries_{int(list_id)}"
    connection.exec_driver_sql(f"SET LOCAL maintenance_work_mem = '{INDEX_BUILD_MEMORY}'")
    key = ", ".join(c.name for c in list_entries.primary_key.columns)
    connection.exec_driver_sql(f"ALTER TABLE {name} ADD CONSTRAINT {short}_key PRIMARY KEY ({key})")
    for statement in order_indexes(name, short, "postgresql"):
        connection.exec_driver_sql(statement)
    connection.exec_driver_sql("SET LOCAL maintenance_work_mem = DEFAULT")


def order_indexes(table: str, prefix: str, dialect: str) -> list[str]:
    """The statements building, on ``table`` (a table shaped as ``list_entries``), each index of
    ``list_entries`` declared on ``dialect``, named ``<prefix>_<order>``."""
    statements = []
    declared = (i for i in list_entries.indexes if declared_on(i, dialect))
    for index in sorted(declared, key=lambda i: str(i.name)):
        suffix = str(index.name).removeprefix("ix_list_entries_")
        options = index.dialect_options[dialect]
        sql = (
            f"CREATE INDEX {prefix}_{suffix} ON {table}"
            f" ({', '.join(c.name for c in index.columns)})"
        )
        if options.get("include"):
            sql += f" INCLUDE ({', '.join(options['include'])})"
        if options.get("where") is not None:
            sql += f" WHERE {options['where']}"
        statements.append(sql)
    return statements


def _attach(connection: Connection, list_id: int) -> None:
    connection.exec_driver_sql(
        f"ALTER TABLE list_entries ATTACH PARTITION {_partition_name(list_id)}"
        f" FOR VALUES IN ({int(list_id)})"
    )
    # The site's pages are planned from the partition's statistics.
    analyze(connection, _partition_name(list_id))


def insert_list(connection: Connection, info: dict[str, Any], entries: pl.DataFrame) -> int:
    """Store a list and its entries (as :func:`jobs.publishing.with_page_columns` gives them);
    each entry points at its name in ``list_names``, stored there with its forms when no list
    printed it before."""
    list_id = int(
        connection.execute(
            insert(published_lists).values(**info).returning(published_lists.c.id)
        ).scalar_one()
    )
    names = stored_names(connection, entries.get_column("name"))
    entries = entries.join(names, on="name", how="left", maintain_order="left")
    rows = entries.select(
        pl.lit(list_id, dtype=pl.Int64).alias("list_id"), pl.col("player").alias("player_id"),
        pl.col("player_id").alias("federation_id"), "name", "country", "title", "rating",
        "games", "tournaments", "last_played", "active", "previous_rating", "name_key", "rank",
        "rank_all", "name_id",
    )  # fmt: skip
    if connection.dialect.name == "postgresql":
        # Into a partition of its own, as a list the database builds (written through
        # list_entries into an attached partition, the rows went into its nine indexes one by
        # one: 300,000 entries 30 s against 7 s).
        insert_frame(connection, _new_partition(connection, list_id), rows, rebuild=False)
        _index_partition(connection, list_id)
        _attach(connection, list_id)
    else:
        insert_frame(connection, list_entries, rows)
    return list_id


LIST_SORTS = ("rank", "name", "rating", "games")
"""What a page of a list can be ordered by; ``rating`` is the rank's order reversed when ascending."""


@dataclass(frozen=True, slots=True)
class ListQuery:
    """One page of a published list: who is shown, in which order, and which slice."""

    search: str = ""
    """Folded words (as :func:`ratings.names.name_key` folds them), each the start of a word of
    the name (:func:`ratings.names.search_words`)."""
    identifier: str = ""
    """The search as typed, which may be a federation id."""
    country: str | None = None
    title: str | None = None
    everyone: bool = False
    """The inactive players too, ranked among everyone."""
    sort: str = "rank"
    descending: bool = False
    offset: int = 0
    limit: int = 50


def _page_filter(list_id: int, query: ListQuery) -> ColumnElement[bool]:
    e = list_entries.c
    conditions: list[ColumnElement[bool]] = [e.list_id == list_id]
    if not query.everyone:
        conditions.append(e.rank.is_not(None))
    if query.country:
        conditions.append(e.country == query.country)
    if query.title:
        conditions.append(e.title == query.title)
    if query.search or query.identifier:
        conditions.append(e.player_id.in_(_found(list_id, query)))
    return and_(*conditions)


def _names_found(query: ListQuery) -> Select[Any]:
    """The names a search finds: those having, for each word searched, a word starting with it
    (each a range of the words' key), as a set of name ids."""
    w = name_words.c
    starts = []
    for word in sorted(set(query.search.split())):
        low, high = word_range(word)
        starts.append(select(w.name_id).where(w.word >= low, w.word < high))
    # Several words are intersected as sets. Written as one range checked against the other
    # (IN), PostgreSQL estimated a word's range at one row and probed 'john' for each of 5,000
    # 'smith' words: 8 s on a million names, against milliseconds for the two sets.
    return starts[0] if len(starts) == 1 else _select_ids(intersect(*starts))


def _found(list_id: int, query: ListQuery) -> Select[Any]:
    """The entries a search finds: those whose name it finds, and the one whose federation id is
    what was typed."""
    e = list_entries.c
    by_id = _typed_entry(list_id, query)
    if not query.search:
        return by_id
    by_name = select(e.player_id).where(e.list_id == list_id, e.name_id.in_(_names_found(query)))
    return _select_from(union(by_name, by_id)) if query.identifier else by_name


def _select_from(compound: CompoundSelect[Any]) -> Select[Any]:
    return select(compound.subquery().c.player_id)


def _select_ids(compound: CompoundSelect[Any]) -> Select[Any]:
    return select(compound.subquery().c.name_id)


def list_page(connection: Connection, list_id: int, query: ListQuery) -> pl.DataFrame:
    """The entries of one page of a list, in the page's order, each with its rank (among the
    active players, or among everyone for ``everyone``)."""
    if query.sort not in LIST_SORTS:
        raise ValueError(f"a list is sorted by one of {', '.join(LIST_SORTS)}, not {query.sort!r}")
    e = list_entries.c
    rank = e.rank_all if query.everyone else e.rank
    # The highest rating first is the rank's order. Ties go by player in the same direction, so
    # that each order is one of the indexes read forwards or backwards.
    backwards = query.descending is (query.sort != "rating")
    # Among a country's players the active ones are in the same order by their rank among
    # everyone, which its index holds.
    ranked = e.rank_all if query.country else rank
    column = {"rank": ranked, "rating": ranked, "name": e.name_key, "games": e.games}[query.sort]
    keys = [column.desc(), e.player_id.desc()] if backwards else [column, e.player_id]
    shown = (
        rank.label("rank"), e.federation_id, e.name, e.country, e.title, e.rating, e.games,
        e.tournaments, e.last_played, e.active, e.previous_rating,
    )  # fmt: skip
    if _by_words(connection, list_id, query):
        # A search in rank order: the page's entries are found and ordered in the (list, name)
        # index alone, then read.
        found = _words_page(list_id, query, backwards, connection.dialect.name).subquery()
        statement = (
            select(*shown)
            .join(found, and_(e.list_id == list_id, e.player_id == found.c.player_id))
            .order_by(*keys)
        )
        return read_frame(connection, statement, LIST_PAGE_SCHEMA)
    where = _page_filter(list_id, query)
    offset = query.offset
    plain = not (query.search or query.identifier or query.country or query.title)
    if plain and query.sort in ("rank", "rating") and not backwards and offset:
        # Deep in the whole list in rank order: start at the rank group holding the page's first
        # entry, found through the index, instead of walking past every entry before it. A rank
        # is one more than the entries ranked better, so exactly ``start - 1`` come before it.
        start = connection.execute(select(func.max(rank)).where(where, rank <= offset + 1)).scalar()
        if start is not None:
            where = and_(where, rank >= start)
            offset -= int(start) - 1
    statement = select(*shown).where(where).order_by(*keys).offset(offset).limit(query.limit)
    return read_frame(connection, statement, LIST_PAGE_SCHEMA)


def _by_words(connection: Connection, list_id: int, query: ListQuery) -> bool:
    """True when a page is a search by name alone in rank order, which the (list, name) index
    answers without reading the entries: it holds each entry's ranks. Reading every match's entry
    cost a read of the whole list when a short search matched tens of thousands of names."""
    if not query.search or query.country or query.title or query.sort not in ("rank", "rating"):
        return False
    return connection.execute(_typed_entry(list_id, query).limit(1)).first() is None


def _typed_entry(list_id: int, query: ListQuery) -> Select[Any]:
    """The list's entry of the player whose federation id is what the search typed, found
    through the registry's unique index. An entry's federation id is its player's, which never
    changes, so the list needs no index of its own for it (one fewer index of a million entries
    built with every list)."""
    typed = select(players.c.id).where(players.c.federation_id == query.identifier)
    e = list_entries.c
    return select(e.player_id).where(e.list_id == list_id, e.player_id == typed.scalar_subquery())


def _words_matching(list_id: int, query: ListQuery, dialect: str) -> Select[Any]:
    """The (player, rank) of the entries whose name a search finds, read from the list's (list,
    name) index alone."""
    e = list_entries.c
    rank = e.rank_all if query.everyone else e.rank
    conditions = [e.list_id == list_id]
    if not query.everyone:
        conditions.append(e.rank.is_not(None))
    if dialect == "postgresql":
        # Each name found looks up its entries in the index. Given the names as a set, the
        # planner hashed them and scanned the whole list: 660 ms for the 20,000 names a
        # three-letter search finds among a million different ones.
        names = _names_found(query).distinct().subquery()
        entries = (
            select(e.player_id, rank.label("rank"))
            .where(*conditions, e.name_id == names.c.name_id)
            .lateral()
        )
        return select(entries.c.player_id, entries.c.rank).select_from(names).join(entries, true())
    conditions.append(e.name_id.in_(_names_found(query)))
    return select(e.player_id, rank.label("rank")).where(*conditions)


def _words_page(list_id: int, query: ListQuery, backwards: bool, dialect: str) -> Select[Any]:
    found = _words_matching(list_id, query, dialect).subquery()
    keys = (
        [found.c.rank.desc(), found.c.player_id.desc()]
        if backwards
        else [found.c.rank, found.c.player_id]
    )
    return select(found.c.player_id).order_by(*keys).offset(query.offset).limit(query.limit)


def list_count(connection: Connection, list_id: int, query: ListQuery, cap: int) -> int:
    """How many entries the page's filters leave, over all its pages, counting no further than
    ``cap``: a search matching most of a million entries is not read to the end to say so."""
    if _by_words(connection, list_id, query):
        matching = _words_matching(list_id, query, connection.dialect.name)
        found = matching.limit(cap).subquery()
        return int(connection.execute(select(func.count()).select_from(found)).scalar_one())
    matching = select(list_entries.c.player_id).where(_page_filter(list_id, query)).limit(cap)
    statement = select(func.count()).select_from(matching.subquery())
    return int(connection.execute(statement).scalar_one())


def _distinct(connection: Connection, list_id: int, column: str) -> list[str]:
    # A loose index scan written out: one index probe per distinct value, instead of reading a
    # million entries to find the forty countries among them (neither backend does it alone).
    sql = f"""
        WITH RECURSIVE seen(value) AS (
            SELECT min({column}) FROM list_entries
            WHERE list_id = :list_id AND {column} IS NOT NULL
            UNION ALL
            SELECT (SELECT min({column}) FROM list_entries
                    WHERE list_id = :list_id AND {column} > seen.value)
            FROM seen WHERE seen.value IS NOT NULL
        )
        SELECT value FROM seen WHERE value IS NOT NULL
    """
    return [str(v) for v in connection.execute(text(sql), {"list_id": list_id}).scalars()]


def list_countries(connection: Connection, list_id: int) -> list[str]:
    """The countries of a list's players, in order."""
    return _distinct(connection, list_id, "country")


def list_titles(connection: Connection, list_id: int) -> list[str]:
    """The titles held by a list's players, in order."""
    return _distinct(connection, list_id, "title")


def player_on_lists(connection: Connection, player: int, list_ids: list[int]) -> pl.DataFrame:
    """A player's rank (active and overall), exact rating and country on each of the lists that
    hold them; by list id, so that each is a look-up of the entries' key."""
    e = list_entries.c
    query = select(e.list_id, e.rank, e.rank_all, e.rating, e.country).where(
        e.list_id.in_(list_ids or [-1]), e.player_id == player
    )
    return read_frame(connection, query, PLAYER_LISTS_SCHEMA)


def country_rank(connection: Connection, list_id: int, country: str, rank_all: int) -> int:
    """The place among the players of ``country`` on a list of someone ranked ``rank_all``
    among everyone (ties share the lower place, as on the list)."""
    e = list_entries.c
    ahead = select(func.count()).where(
        e.list_id == list_id, e.country == country, e.rank_all < rank_all
    )
    return int(connection.execute(ahead).scalar_one()) + 1
