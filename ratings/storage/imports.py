"""What an import writes, in the caller's one transaction: its tournaments (the new ones and the
ones it replaces), their results given in slices, the titles its results show, and the check of
the keys of everything it wrote. The players it creates or learns of are :mod:`.players`'s."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager

import polars as pl
from sqlalchemy.engine import Connection

from ratings.storage import players as stored_players
from ratings.storage import tournaments as stored_tournaments
from ratings.storage.bulk import indexes, reserve_ids
from ratings.storage.schema import (
    games,
    player_aliases,
    player_identifiers,
    players,
    results,
    tournaments,
)

WRITTEN = (players, player_identifiers, player_aliases, tournaments, results, games)
"""The tables an import writes."""

REPLACED = (
    "name", "start_date", "end_date", "tier", "source_name", "source_hash", "source_format",
    "imported_at", "imported_by", "standings",
)  # fmt: skip
"""What an import sets of a tournament it replaces."""


def is_large(rows: int) -> bool:
    """Whether an import of ``rows`` results is large: its keys may then be checked once
    (:func:`keys_checked`)."""
    return rows >= indexes.REBUILD_INDEXES_FROM


@contextmanager
def keys_checked(connection: Connection, large: bool) -> Iterator[Callable[[], None]]:
    """Around the transaction of an import (on a connection outside one) that deletes nothing:
    a ``large`` one has its keys checked once, by the check given, before the commit rather
    than row by row (:func:`.bulk.indexes.keys_checked_once`)."""
    with indexes.keys_checked_once(connection, large, WRITTEN) as check:
        yield check


def tournament_ids_taken(
    connection: Connection,
    meta: pl.DataFrame,
    stored: Mapping[str, stored_tournaments.StoredTournament],
) -> dict[str, int]:
    """The database id of every tournament of an import (``meta``, by its ``key``): a stored
    one's own (``stored``, by key), a new one's taken now for :func:`store_tournaments`."""
    fresh = meta.filter(~pl.col("key").is_in(list(stored)))["key"]
    keys = dict(
        zip(
            fresh.to_list(),
            reserve_ids(connection, tournaments, fresh.len()).to_list(),
            strict=True,
        )
    )
    keys.update((key, stored[key].id) for key in meta["key"] if key in stored)
    return keys


def store_tournaments(
    connection: Connection,
    meta: pl.DataFrame,
    stored: Mapping[str, stored_tournaments.StoredTournament],
    keys: Mapping[str, int],
) -> None:
    """Write the tournaments of an import (``meta``: the columns
    :func:`.tournaments.insert_tournaments` takes): the new ones inserted with the ids taken for
    them (``keys``, from :func:`tournament_ids_taken`), those of ``stored`` (by key) replaced."""
    fresh = meta.filter(~pl.col("key").is_in(list(stored)))
    ids = fresh["key"].replace_strict(keys, return_dtype=pl.Int64).alias("id")
    stored_tournaments.insert_tournaments(connection, fresh, ids)
    for row in meta.filter(pl.col("key").is_in(list(stored))).iter_rows(named=True):
        values = {c: row[c] for c in REPLACED}
        stored_tournaments.replace_tournament(connection, stored[row["key"]], values)


@contextmanager
def results_ahead(
    connection: Connection, rows: int, slices: Iterable[pl.DataFrame]
) -> Iterator[None]:
    """Store an import's ``rows`` results, given as ``slices`` (frames as
    :func:`.tournaments.insert_results` takes, each in key order), by the time the block ends;
    the block writes the players and tournaments they point to, and on SQLite a large write is
    made meanwhile (:func:`.tournaments.results_ahead`)."""
    with stored_tournaments.results_ahead(connection, rows, slices):
        yield


def record_titles(connection: Connection, titled: pl.DataFrame) -> None:
    """A ``GM`` in a results file (``titled``: player and end_date of each such result): the
    player holds the title, at the latest from that event on."""
    if titled.height == 0:
        return
    earliest = titled.group_by("player").agg(pl.col("end_date").min())
    current = stored_players.player_titles(connection, earliest["player"].to_list())
    updates = []
    for pid, day in earliest.iter_rows():
        title, since = current.get(pid, (None, None))
        if title != "GM" or (since is not None and day < since):
            updates.append((pid, "GM", day))
    stored_players.update_players(connection, updates, ["title", "title_date"])
