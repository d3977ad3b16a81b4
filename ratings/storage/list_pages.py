"""Reading a published list's pages: one page of entries in an order, searched by name or
federation id and filtered by country or title, and a player's places on the lists. Every page
reads the ranks and name forms fixed on the entries when :mod:`.lists` built the list."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import polars as pl
from sqlalchemy import (
    ColumnElement,
    CompoundSelect,
    Select,
    and_,
    case,
    func,
    intersect,
    select,
    text,
    true,
    union,
)
from sqlalchemy.engine import Connection

from ratings.names import word_range
from ratings.storage.frames import LIST_PAGE_SCHEMA, PLAYER_LISTS_SCHEMA, read_frame
from ratings.storage.schema import list_entries, name_words, players

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
    # (IN), PostgreSQL estimated a word's range at one row and probed 'john' for each 'smith'
    # word: far slower on a million names than the two sets.
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
        found = _words_page(list_id, query, backwards, connection.dialect.name)
        return _entries_of(connection, list_id, found, shown, keys)
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
    if offset < DEEP_FROM:
        statement = select(*shown).where(where).order_by(*keys).offset(offset).limit(query.limit)
        return read_frame(connection, statement, LIST_PAGE_SCHEMA)
    # Deep in another order: the page's players are found in the order's index alone, walking
    # past the entries before them there, and only the page's own entries are read. Asked for
    # whole rows, PostgreSQL sorted the list (or read every entry walked past): half a second
    # for a page in the middle of a million names.
    found = select(e.player_id).where(where).order_by(*keys).offset(offset).limit(query.limit)
    return _entries_of(connection, list_id, found, shown, keys)


def _entries_of(
    connection: Connection,
    list_id: int,
    found: Select[Any],
    shown: tuple[Any, ...],
    keys: list[Any],
) -> pl.DataFrame:
    """The ``shown`` columns of the list's entries of the players ``found`` selects (a page of
    them, found in an index alone), in the page's order."""
    e = list_entries.c
    page = found.subquery()
    statement = (
        select(*shown)
        .join(page, and_(e.list_id == list_id, e.player_id == page.c.player_id))
        .order_by(*keys)
    )
    return read_frame(connection, statement, LIST_PAGE_SCHEMA)


DEEP_FROM = 1_000
"""Entries before a page from which :func:`list_page` finds the page's players first."""


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
        # planner hashed them and scanned the whole list, also for the few names a
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
    matching = _words_matching(list_id, query, dialect)
    # On PostgreSQL the entries found are gathered first, then ordered. Left to choose, the
    # planner walked the whole list in rank order looking for them: 200 ms for a word no name
    # holds, 300 for a one-letter search, against 0.1 and 100 ms gathered first (at a million
    # entries).
    found = (
        matching.cte("found").prefix_with("MATERIALIZED")
        if dialect == "postgresql"
        else matching.subquery()
    )
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
    hold them, and their place among the players of their country there (ties share the lower
    place, as on the list; null without a country): one query, by list id, so that each is a
    look-up of the entries' key."""
    e = list_entries.c
    others = list_entries.alias("others")
    ahead = (
        select(func.count())
        .select_from(others)
        .where(
            others.c.list_id == e.list_id,
            others.c.country == e.country,
            others.c.rank_all < e.rank_all,
        )
        .scalar_subquery()
    )
    in_country = case((e.country.is_(None), None), else_=ahead + 1)
    query = select(
        e.list_id, e.rank, e.rank_all, e.rating, e.country, in_country.label("rank_country")
    ).where(e.list_id.in_(list_ids or [-1]), e.player_id == player)
    return read_frame(connection, query, PLAYER_LISTS_SCHEMA)
