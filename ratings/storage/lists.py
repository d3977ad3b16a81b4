"""Rating lists: the live ranking from the rating changes, and the published lists frozen from it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

import polars as pl
from sqlalchemy import (
    Column,
    ColumnElement,
    FromClause,
    MetaData,
    Select,
    Table,
    and_,
    case,
    func,
    insert,
    literal,
    select,
    text,
    update,
)
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.types import Integer

from ratings.list_rules import active_sql, mean_from_sums, ranks_sql, rating_sums_sql
from ratings.names import page_forms
from ratings.storage import list_partitions, totals
from ratings.storage.bulk import (
    indexes_rebuilt,
    insert_frame,
)
from ratings.storage.bulk.list_columns import SHOWN_SCHEMA
from ratings.storage.frames import (
    ENTRY_SCHEMA,
    LIST_NAMES_SCHEMA,
    LIST_RATINGS_SCHEMA,
    RANKING_SCHEMA,
    read_frame,
)
from ratings.storage.schema import (
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
    per_player = totals.totals_at(connection, as_of).drop("changes")
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
            "player": pl.Int64,
            "federation_id": pl.String,
            "name": pl.String,
            "country": pl.String,
            "title": pl.String,
        },
    )
    return people.join(per_player, on="player", how="inner").select(*RANKING_SCHEMA)


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
    # Both analysed when much grew (``bulk.analyze_if_grown``): a search plans a range of words
    # joined to a list's entries, and without statistics PostgreSQL guesses the range's size.
    insert_frame(connection, name_words, words)
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


def insert_list_from_totals(
    connection: Connection,
    info: dict[str, Any],
    *,
    active_since: date,
    previous_id: int | None,
    shown: Callable[[int, pl.DataFrame], None] | None = None,
) -> int:
    """Store a list whose entries are every rated player's stored totals (when
    :func:`totals_hold_list`), built by the database in one ``INSERT ... SELECT``: a million
    entries never cross the driver. The entries are what :func:`ranking`,
    ``exporters.lists.list_entries`` and ``jobs.publishing.with_page_columns`` give, which the
    tests check; the list's counts and mean rating are taken from them afterwards.

    ``shown``, when given, is called with the list's id and its entries as its files show them
    (``list_files.SHOWN_SCHEMA``), read just before the database stores them: the caller writes
    the files while the database stores and indexes the entries."""
    p, t, n = players.c, player_totals.c, list_names.c
    prev = list_entries.alias("prev")
    rated = players.join(player_totals, t.player_id == p.id)
    # The names no list has printed, found by one anti-join of the players to the names. Keeping
    # first only the players whose name the previous list did not print added a join of two
    # million-row tables to it, which made the statement much slower on PostgreSQL.
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
    active = active_sql(t.last_played, active_since)
    rank, rank_all = ranks_sql(active, t.rating)
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
    # The files' entries (``shown``) are read before the list is stored, so that its files are
    # written while the database stores it. On PostgreSQL by the list's own selection, run again
    # by the server to store it: reading them from the stored table instead started the files
    # 3.5 s later for a million entries, and the job then waited 3 s more for them. On SQLite
    # the selection fills a temporary table in the list's order, which the files are read from
    # and the list is stored from.
    chosen = dict(zip(columns, values, strict=True))
    if connection.dialect.name == "postgresql":
        if shown is not None:
            seen = rows.with_only_columns(*(chosen[c].label(c) for c in SHOWN_SCHEMA))
            shown(list_id, read_frame(connection, seen.order_by(None), SHOWN_SCHEMA))
        written = list_partitions.filled_partition(connection, list_id, columns, rows)
        list_partitions.finish_partition(connection, list_id, written)
    else:
        once = None
        if shown is not None:
            labelled = rows.with_only_columns(*(chosen[c].label(c) for c in columns))
            once = _computed_once(connection, labelled)
            shown(list_id, _read_shown(connection, once))
            rows = select(*(once.c[c] for c in columns)).order_by(text("rowid"))
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
        if once is not None:
            connection.exec_driver_sql(f"DROP TABLE {once.name}")
    count, active_count, mean = pool_statistics(
        connection, list_entries, list_entries.c.list_id == list_id
    )
    connection.execute(
        update(published_lists)
        .where(published_lists.c.id == list_id)
        .values(players=count, active_players=active_count, mean_rating=mean)
    )
    return list_id


def _computed_once(connection: Connection, rows: Select[Any]) -> Table:
    """SQLite: ``rows`` (labelled as ``list_entries``' columns) written into a temporary table in
    their order, which its rowids keep."""
    sql = rows.compile(dialect=connection.dialect, compile_kwargs={"literal_binds": True})
    connection.exec_driver_sql(f"CREATE TEMPORARY TABLE {_ENTRIES_ONCE} AS {sql}")
    return Table(
        _ENTRIES_ONCE,
        MetaData(),
        *(Column(c.name, list_entries.c[c.name].type) for c in rows.selected_columns),
    )


_ENTRIES_ONCE = "_list_entries_once"


def _read_shown(connection: Connection, entries: Table) -> pl.DataFrame:
    return read_frame(connection, select(*(entries.c[c] for c in SHOWN_SCHEMA)), SHOWN_SCHEMA)


def pool_statistics(
    connection: Connection, entries: FromClause, *where: ColumnElement[bool]
) -> tuple[int, int, int]:
    """How many of ``entries`` (a table or query with the columns ``rating`` and ``rank``)
    there are, how many are active (ranked), and their mean rating, as
    :func:`ratings.list_rules.mean_rating` gives it for a list polars builds."""
    rank = entries.c.rank
    count, active, high, low = connection.execute(
        select(
            func.count(),
            func.coalesce(func.sum(case((rank.is_not(None), 1), else_=0)), 0),
            *rating_sums_sql(entries.c.rating),
        )
        .select_from(entries)
        .where(*where)
    ).one()
    return int(count), int(active), mean_from_sums(count, high, low)


def settle(engine: Engine, list_id: int) -> None:
    """After a list's publication is committed, on PostgreSQL: ``VACUUM`` its partition, which
    marks its pages visible to every reader. Until then (or until autovacuum comes by) a read of
    its indexes alone still visits the rows: a player's place in a country of fifty thousand
    took 120 ms instead of 50 at a million entries, a page deep in name order half a second.
    It takes about 0.4 s for a million entries and blocks no reader; elsewhere it does
    nothing."""
    if engine.dialect.name != "postgresql":
        return
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        connection.exec_driver_sql(f"VACUUM {list_partitions.partition_table(list_id)}")


def insert_list(
    connection: Connection,
    info: dict[str, Any],
    entries: pl.DataFrame,
    *,
    stored: Callable[[int], None] | None = None,
) -> int:
    """Store a list and its entries (as :func:`jobs.publishing.with_page_columns` gives them);
    each entry points at its name in ``list_names``, stored there with its forms when no list
    printed it before. ``stored``, when given, is called with the list's id while the database
    works on its own: on PostgreSQL once the entries are written, before their key and indexes
    are built (0.4 s of the server's for 46,688 entries), elsewhere before they are written."""
    list_id = int(
        connection.execute(
            insert(published_lists).values(**info).returning(published_lists.c.id)
        ).scalar_one()
    )
    names = stored_names(connection, entries.get_column("name"))
    entries = entries.join(names, on="name", how="left", maintain_order="left")
    rows = entries.select(
        pl.lit(list_id, dtype=pl.Int64).alias("list_id"), pl.col("player").alias("player_id"),
        "federation_id", "name", "country", "title", "rating",
        "games", "tournaments", "last_played", "active", "previous_rating", "name_key", "rank",
        "rank_all", "name_id",
    )  # fmt: skip
    if connection.dialect.name == "postgresql":
        # Into a partition of its own, as a list the database builds (written through
        # list_entries into an attached partition, the rows went into its nine indexes one by
        # one, much slower than indexes built after the rows).
        part = list_partitions.new_partition(connection, list_id)
        insert_frame(connection, part, rows, rebuild=False)
        if stored is not None:
            stored(list_id)
        list_partitions.finish_partition(connection, list_id, rows.height)
    else:
        if stored is not None:
            stored(list_id)
        insert_frame(connection, list_entries, rows)
    return list_id
