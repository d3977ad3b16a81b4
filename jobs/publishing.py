"""Publishing a monthly list: freeze the ratings at the cut-off, in one transaction.

A published list never changes. Publishing a period again needs ``republish``; the new version is
stored beside the old one, which stays as it was, and the diff between them can be shown at any
time (``ratings diff 2026-11@1 2026-11@2``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from typing import Any

import polars as pl
from sqlalchemy.engine import Connection, Engine

from exporters.lists import default_cutoff, list_entries, parse_period, statistics
from jobs.options import ListOptions
from ratings.errors import (
    EmptyListError,
    ListExistsError,
    ListVersionError,
    NotRatedError,
    StaleRatingsError,
    UnknownListError,
)
from ratings.list_rules import active_rank_expr, active_since, rank_expr
from ratings.parameters import MeloParams
from ratings.storage import lists, tournaments, window
from ratings.storage.frames import ENTRY_SCHEMA
from ratings.storage.statistics import analyse_aside, analyses_deferred


@dataclass(frozen=True, slots=True)
class Publication:
    info: lists.ListInfo
    replaced: lists.ListInfo | None
    entries: pl.DataFrame | None = field(default=None, compare=False, repr=False)
    """The entries stored, as ``lists.list_entries_of`` reads them back, when they were computed
    here (a list cut off before tournaments already rated); None for the usual list, which the
    database builds from the totals. The publish folder's files are written from them."""


def with_page_columns(entries: pl.DataFrame) -> pl.DataFrame:
    """``entries`` with the ranks the site's paged list reads, fixed at publishing: among the
    active players and among everyone. The name's forms (the alphabetical one a page sorts by,
    the words a search finds it by) are stored once per name, by
    :func:`ratings.storage.lists.insert_list`."""
    return entries.with_columns(
        active_rank_expr(pl.col("rating"), pl.col("active")).alias("rank"),
        rank_expr(pl.col("rating")).alias("rank_all"),
    )


def publish_list(
    engine: Engine,
    period: str,
    options: ListOptions,
    *,
    cutoff: date | None = None,
    republish: bool = False,
    by: str,
    now: datetime,
    params: MeloParams | None = None,
) -> Publication:
    # A command leaves the analysis of a large list's partition to a process of its own after
    # the commit (on PostgreSQL).
    analyses: list[str] = []
    with engine.begin() as connection, analyses_deferred(connection, analyses, sized=True):
        done = publish_into(
            connection,
            period,
            options,
            cutoff=cutoff,
            republish=republish,
            by=by,
            now=now,
            params=params,
        )
    lists.settle(engine, done.info.id)
    analyse_aside(engine, analyses)
    return done


def publish_into(
    connection: Connection,
    period: str,
    options: ListOptions,
    *,
    cutoff: date | None = None,
    republish: bool = False,
    by: str,
    now: datetime,
    params: MeloParams | None = None,
    shown: Callable[[lists.ListInfo, pl.DataFrame], None] | None = None,
) -> Publication:
    """Publish inside the caller's transaction. A list is only published from ratings that are
    up to date: nothing pending up to the cut-off, no re-rating marked (by a merge, a title
    change or a correction), and, when ``params`` are given, ratings computed with them; and
    never a list of nobody (:class:`~ratings.errors.EmptyListError`).

    ``shown``, when given, is called with the list and its entries as its files show them
    before the database stores them: the usual list's as the database builds them from the
    totals (see :func:`.lists.insert_list_from_totals`), a list computed here (cut off before
    tournaments already rated) as the publication holds them."""
    parse_period(period)
    cutoff = cutoff or default_cutoff(period)
    existing = lists.latest_list(connection, period)
    if existing is not None and not republish:
        raise ListExistsError(period, existing.version, existing.created_at)
    waiting = tournaments.pending_until(connection, cutoff)
    if waiting:
        raise NotRatedError(cutoff, waiting)
    stale = stale_ratings(connection, params)
    if stale is not None:
        raise stale
    previous = lists.previous_period_list(connection, period)
    info = {
        "period": period,
        "version": 1 if existing is None else existing.version + 1,
        "cutoff": cutoff,
        "created_at": now,
        "created_by": by,
        "initial_rating": options.initial_rating,
        "active_months": options.active_months,
        "previous_id": previous.id if previous else None,
        "replaces_id": existing.id if existing else None,
    }
    if lists.totals_hold_list(connection, cutoff):
        if not lists.anyone_rated(connection):
            raise EmptyListError(period, cutoff)

        # The usual list, cut off after the newest rated tournament: the database builds the
        # entries from the stored totals, without a million rows crossing the driver twice.
        def entries_shown(list_id: int, entries: pl.DataFrame) -> None:
            assert shown is not None
            stats = statistics(entries)
            stored = lists.list_by_id(connection, list_id)
            shown(
                replace(
                    stored,
                    players=stats.players,
                    active_players=stats.active_players,
                    mean_rating=stats.mean_rating,
                ),
                entries,
            )

        list_id = lists.insert_list_from_totals(
            connection,
            info,
            active_since=active_since(cutoff, options.active_months),
            previous_id=previous.id if previous else None,
            shown=None if shown is None else entries_shown,
        )
        computed = None
    else:
        list_id, computed = _insert_computed(connection, info, period, cutoff, options, shown)
    return Publication(lists.list_by_id(connection, list_id), existing, computed)


def _insert_computed(
    connection: Connection,
    info: dict[str, Any],
    period: str,
    cutoff: date,
    options: ListOptions,
    shown: Callable[[lists.ListInfo, pl.DataFrame], None] | None = None,
) -> tuple[int, pl.DataFrame]:
    """Store a list whose entries are computed here (a list cut off before tournaments already
    rated takes their changes back off the totals); its id and its entries as stored. ``shown``
    is given them once the list's row is written, before its entries are stored: the monthly
    job's files are then written while the database stores and indexes them."""
    entries = _entries(connection, period, cutoff, options)
    if entries.is_empty():
        raise EmptyListError(period, cutoff)
    stats = statistics(entries)
    computed = entries.select(*ENTRY_SCHEMA).cast(ENTRY_SCHEMA)  # type: ignore[arg-type]

    def entries_shown(list_id: int) -> None:
        assert shown is not None
        shown(lists.list_by_id(connection, list_id), computed)

    list_id = lists.insert_list(
        connection,
        {
            **info,
            "players": stats.players,
            "active_players": stats.active_players,
            "mean_rating": stats.mean_rating,
        },
        with_page_columns(entries),
        stored=None if shown is None else entries_shown,
    )
    return list_id, computed


def _entries(
    connection: Connection, period: str, cutoff: date, options: ListOptions
) -> pl.DataFrame:
    """The entries a list of ``period`` with this cut-off has from the current ratings."""
    previous = lists.previous_period_list(connection, period)
    return list_entries(
        lists.ranking(connection, cutoff),
        lists.list_ratings(connection, previous.id) if previous else None,
        cutoff=cutoff,
        active_months=options.active_months,
    )


def list_is_current(connection: Connection, info: lists.ListInfo, options: ListOptions) -> bool:
    """Whether the published list ``info`` still has the entries the current ratings give it."""
    fresh = _entries(connection, info.period, info.cutoff, options)
    stored = lists.list_entries_of(connection, info.id)

    def arranged(frame: pl.DataFrame) -> pl.DataFrame:
        return frame.select(*ENTRY_SCHEMA).cast(ENTRY_SCHEMA).sort("player")  # type: ignore[arg-type]

    return arranged(fresh).equals(arranged(stored))


def stale_ratings(connection: Connection, params: MeloParams | None) -> StaleRatingsError | None:
    """Why the current ratings are not the ones a list may freeze, with the command that brings
    them up to date; None when they are up to date."""
    if params is not None:
        changed = window.changed_parameters(connection, params)
        if changed is not None:
            return StaleRatingsError(
                f"the rating parameters changed since the last rating ({changed})",
                "ratings run --full",
            )
    marked = window.pending_rerate(connection)
    if marked is not None:
        return StaleRatingsError(f"ratings must be re-rated ({marked[1]})", "ratings run")
    return None


def find_list(connection: Connection, name: str) -> lists.ListInfo:
    """A list by ``YYYY-MM`` (its newest version) or ``YYYY-MM@N`` (version N)."""
    period, _, version = name.partition("@")
    parse_period(period)
    if version:
        if re.fullmatch(r"[0-9]{1,6}", version) is None:
            raise ListVersionError(period, version)
        found = lists.list_version(connection, period, int(version))
    else:
        found = lists.latest_list(connection, period)
    if found is None:
        raise UnknownListError(name)
    return found


@dataclass(frozen=True, slots=True)
class ListPreview:
    """What publishing ``period`` now would change against the list before it: nothing is
    written."""

    period: str
    version: int
    cutoff: date
    players: int
    active_players: int
    compared_with: str | None
    """The list it is compared with (``YYYY-MM@N``): the version it replaces, else the newest
    list of an earlier period; None before the first list."""
    movers: pl.DataFrame
    """The biggest changes of a published rating, largest first (diff_rows' columns)."""
    entering: pl.DataFrame
    leaving: pl.DataFrame
    entered: int
    """How many enter (``entering`` holds the first ``shown``)."""
    left: int


def preview_list(
    engine: Engine,
    period: str,
    options: ListOptions,
    *,
    republish: bool = False,
    now: datetime,
    params: MeloParams | None = None,
    shown: int = 20,
) -> ListPreview:
    """Publish ``period`` in a transaction that is rolled back, and compare the list it made
    with the one before: the same checks as publishing (a list that could not be published
    raises the same error)."""
    from exporters.lists import diff_rows

    with engine.connect() as connection:
        transaction = connection.begin()
        try:
            done = publish_into(
                connection, period, options, republish=republish, by="preview", now=now,
                params=params,
            )  # fmt: skip
            info = done.info
            before = done.replaced or lists.previous_period_list(connection, period)
            new = lists.list_entries_of(connection, info.id)
            old = (
                lists.list_entries_of(connection, before.id) if before is not None else new.clear()
            )
        finally:
            transaction.rollback()
    rows = diff_rows(old, new, rounding=options.rounding)
    changed = rows.filter(pl.col("status") == "changed")
    movers = changed.sort(pl.col("change").abs(), descending=True).head(shown)
    return ListPreview(
        period=period,
        version=info.version,
        cutoff=info.cutoff,
        players=info.players,
        active_players=info.active_players,
        compared_with=None if before is None else f"{before.period}@{before.version}",
        movers=movers,
        entering=rows.filter(pl.col("status") == "entered").head(shown),
        leaving=rows.filter(pl.col("status") == "left").head(shown),
        entered=int((rows["status"] == "entered").sum()),
        left=int((rows["status"] == "left").sum()),
    )
