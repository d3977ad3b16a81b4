"""The site's pages of a published list: one page of entries as the site shows it, and the
archive of every list published."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import polars as pl
from sqlalchemy.engine import Connection

from exporters.ranking import exact_text
from jobs.publishing import find_list
from ratings.countries import country_code
from ratings.names import name_key
from ratings.parameters import RATING_SCALE
from ratings.rounding import published_expr
from ratings.storage import list_pages, lists

PAGE_SIZE = 50
"""Rows per page of the site's list: a page of a million-player list stays a few dozen KB."""
COUNT_CAP = 10_000
"""A filtered list counts its matches up to here and says "more than" beyond."""


@dataclass(frozen=True, slots=True)
class ListPage:
    """One page of a published list as the site shows it."""

    name: str
    """``YYYY-MM@N``."""
    period: str
    version: int
    cutoff: date
    published: str
    rows: pl.DataFrame
    """rank, player_id, name, country, title, rating (whole), rating_exact, games, last_played,
    change (whole points since the previous list, null for a newcomer), active."""
    total: int
    """Entries over all pages with the page's filters (``COUNT_CAP + 1`` for more than that)."""
    offset: int
    per_page: int
    countries: list[str]
    titles: list[str]
    stats: list[tuple[str, str]]


def list_page(
    connection: Connection,
    name: str,
    *,
    search: str = "",
    country: str | None = None,
    title: str | None = None,
    everyone: bool = False,
    sort: str = "rank",
    descending: bool = False,
    page: int = 1,
    per_page: int = PAGE_SIZE,
    rounding: str = "half_up",
) -> ListPage:
    """A page of the list ``name``: the search is folded as the importer matches names, and
    filtering, ordering and paging happen in the database, so only the page is read."""
    info = find_list(connection, name)
    folded = name_key(search)
    query = list_pages.ListQuery(
        search=folded, identifier=search.strip(), country=country or None, title=title or None, everyone=everyone,
        sort=sort, descending=descending, offset=(max(page, 1) - 1) * per_page, limit=per_page,
    )  # fmt: skip
    if query.search or query.identifier or country or title:
        total = list_pages.list_count(connection, info.id, query, COUNT_CAP + 1)
    else:
        total = info.players if everyone else info.active_players
    entries = list_pages.list_page(connection, info.id, query)
    shown = published_expr(pl.col("rating"), rounding)
    rows = entries.select(
        "rank", pl.col("federation_id").alias("player_id"), "name", "country", "title",
        shown.alias("rating"), exact_text(pl.col("rating")).alias("rating_exact"),
        "games", "last_played",
        (shown - published_expr(pl.col("previous_rating"), rounding)).alias("change"), "active",
    )  # fmt: skip
    stats = [
        ("players", f"{info.players:,}"),
        ("active players", f"{info.active_players:,}"),
        ("mean rating", f"{info.mean_rating / RATING_SCALE:.2f}"),
        ("drift from initial", f"{(info.mean_rating - info.initial_rating) / RATING_SCALE:+.2f}"),
    ]
    return ListPage(
        name=f"{info.period}@{info.version}", period=info.period, version=info.version,
        cutoff=info.cutoff, published=f"{info.created_at:%Y-%m-%d}", rows=rows, total=total,
        offset=query.offset, per_page=per_page,
        # A list published before countries were checked may hold codes that name no country
        # (``???``, a club's code): they are never offered as countries.
        countries=[
            c
            for c in list_pages.list_countries(connection, info.id)
            if country_code(c) is not None
        ],
        titles=list_pages.list_titles(connection, info.id), stats=stats,
    )  # fmt: skip


@dataclass(frozen=True, slots=True)
class ListVersion:
    """A published list as the archive shows it."""

    name: str
    period: str
    version: int
    cutoff: date
    published: str
    players: int
    active: int
    mean: str
    drift: str
    replaces: str | None
    """The version this one corrects, for the diff link."""


def list_archive(connection: Connection) -> list[ListVersion]:
    """Every published list, newest first."""
    published = lists.all_lists(connection)
    names = {i.id: f"{i.period}@{i.version}" for i in published}
    return [
        ListVersion(
            name=names[i.id],
            period=i.period,
            version=i.version,
            cutoff=i.cutoff,
            published=f"{i.created_at:%Y-%m-%d %H:%M}",
            players=i.players,
            active=i.active_players,
            mean=f"{i.mean_rating / RATING_SCALE:.2f}",
            drift=f"{(i.mean_rating - i.initial_rating) / RATING_SCALE:+.2f}",
            replaces=names.get(i.replaces_id) if i.replaces_id is not None else None,
        )
        for i in reversed(published)
    ]
