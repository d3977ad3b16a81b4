"""Rating lists: the live ranking from the rating changes, and the published lists frozen from it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

import polars as pl
from sqlalchemy import ColumnElement, Select, and_, func, insert, or_, select, text
from sqlalchemy.engine import Connection

from ratings.storage import totals
from ratings.storage.bulk import insert_frame
from ratings.storage.frames import (
    ENTRY_SCHEMA,
    LIST_PAGE_SCHEMA,
    PLAYER_LISTS_SCHEMA,
    RANKING_SCHEMA,
    read_frame,
)
from ratings.storage.schema import (
    list_entries,
    players,
    published_lists,
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


def insert_list(connection: Connection, info: dict[str, Any], entries: pl.DataFrame) -> int:
    list_id = int(
        connection.execute(
            insert(published_lists).values(**info).returning(published_lists.c.id)
        ).scalar_one()
    )
    rows = entries.select(
        pl.lit(list_id, dtype=pl.Int64).alias("list_id"), pl.col("player").alias("player_id"),
        pl.col("player_id").alias("federation_id"), "name", "country", "title", "rating",
        "games", "tournaments", "last_played", "active", "previous_rating", "name_key", "rank",
        "rank_all",
    )  # fmt: skip
    insert_frame(connection, list_entries, rows)
    return list_id


LIST_SORTS = ("rank", "name", "rating", "games")
"""What a page of a list can be ordered by; ``rating`` is the rank's order reversed when ascending."""


@dataclass(frozen=True, slots=True)
class ListQuery:
    """One page of a published list: who is shown, in which order, and which slice."""

    search: str = ""
    """Folded words (as :func:`ratings.names.name_key` folds them), each a part of the name."""
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


def _escaped(word: str) -> str:
    """``word`` for a LIKE pattern: its wildcards taken literally."""
    return word.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _page_filter(list_id: int, query: ListQuery) -> ColumnElement[bool]:
    e = list_entries.c
    conditions: list[ColumnElement[bool]] = [e.list_id == list_id]
    if not query.everyone:
        conditions.append(e.rank.is_not(None))
    if query.country:
        conditions.append(e.country == query.country)
    if query.title:
        conditions.append(e.title == query.title)
    if query.search:
        # Lists published before names were folded at publishing carry no key: their case folds.
        folded = func.coalesce(e.name_key, func.lower(e.name))
        words = [
            folded.like("%" + _escaped(word) + "%", escape="\\") for word in query.search.split()
        ]
        conditions.append(or_(and_(*words), e.federation_id == query.identifier))
    return and_(*conditions)


def list_page(connection: Connection, list_id: int, query: ListQuery) -> pl.DataFrame:
    """The entries of one page of a list, in the page's order, each with its rank (among the
    active players, or among everyone for ``everyone``)."""
    if query.sort not in LIST_SORTS:
        raise ValueError(f"a list is sorted by one of {', '.join(LIST_SORTS)}, not {query.sort!r}")
    e = list_entries.c
    rank = e.rank_all if query.everyone else e.rank
    keys = {
        "rank": [rank],
        # The highest rating first is the rank's order.
        "rating": [rank] if query.descending else [rank.desc()],
        "name": [e.name_key.desc(), e.name.desc()] if query.descending else [e.name_key, e.name],
        "games": [e.games.desc()] if query.descending else [e.games],
    }[query.sort]
    if query.sort == "rank" and query.descending:
        keys = [rank.desc()]
    shown = (
        rank.label("rank"), e.federation_id, e.name, e.country, e.title, e.rating, e.games,
        e.tournaments, e.last_played, e.active, e.previous_rating,
    )  # fmt: skip
    where = _page_filter(list_id, query)
    offset = query.offset
    plain = not (query.search or query.country or query.title)
    best_first = query.descending is (query.sort == "rating")
    if plain and query.sort in ("rank", "rating") and best_first and offset:
        # Deep in the whole list in rank order: start at the rank group holding the page's first
        # entry, found through the index, instead of walking past every entry before it. A rank
        # is one more than the entries ranked better, so exactly ``start - 1`` come before it.
        start = connection.execute(select(func.max(rank)).where(where, rank <= offset + 1)).scalar()
        if start is not None:
            where = and_(where, rank >= start)
            offset -= int(start) - 1
    statement = (
        select(*shown).where(where).order_by(*keys, e.player_id).offset(offset).limit(query.limit)
    )
    return read_frame(connection, statement, LIST_PAGE_SCHEMA)


def list_count(connection: Connection, list_id: int, query: ListQuery, cap: int) -> int:
    """How many entries the page's filters leave, over all its pages, counting no further than
    ``cap``: a search matching most of a million entries is not read to the end to say so."""
    matching = select(list_entries.c.player_id).where(_page_filter(list_id, query)).limit(cap)
    statement = select(func.count()).select_from(matching.subquery())
    return int(connection.execute(statement).scalar_one())


def _distinct(connection: Connection, list_id: int, column: str) -> list[str]:
    # A loose index scan written out: one index probe per distinct value, instead of reading a
    # million entries to find the forty countries among them (neither backend does it alone).
    sql = f"""
        WITH RECURSIVE seen(value) AS (
            SELECT min({column}) FROM list_entries WHERE list_id = :list_id
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
