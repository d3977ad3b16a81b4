"""What an import writes, in the caller's one transaction: its tournaments (the new ones and the
ones it replaces), their results given in slices, the titles its results show, and the check of
the keys of everything it wrote. The players it creates or learns of are :mod:`.players`'s."""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import polars as pl
from sqlalchemy import select
from sqlalchemy.engine import Connection

from ratings.storage import players as stored_players
from ratings.storage import tournaments as stored_tournaments
from ratings.storage.bulk import copy_writer, indexes, insert_frame, reserve_ids
from ratings.storage.bulk.rows_file import (
    RowsAhead,
    copy_attached,
    rows_file_usable,
    table_statements,
)
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


def writes_on_server(connection: Connection) -> bool:
    """Whether the import's writes are mostly waits on a database server (PostgreSQL), which
    leave this process's cores to work beside them; SQLite writes in this process, and a large
    import's results are made by a thread of their own meanwhile (:func:`results_ahead`)."""
    return connection.dialect.name != "sqlite"


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


def new_player_ids(connection: Connection, count: int) -> pl.Series:
    """``count`` fresh player ids, for ``players.insert_players`` to create players with."""
    return reserve_ids(connection, players, count)


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


RESULT_COLUMNS = {
    "tournament": "tournament_id", "player": "player_id", "line": "line", "wins": "wins",
    "draws": "draws", "losses": "losses", "buchholz": "buchholz", "title": "title",
}  # fmt: skip
"""The columns of a frame of results, and the table's column each is stored in."""


def _as_stored(frame: pl.DataFrame) -> pl.DataFrame:
    """A frame of results (:data:`RESULT_COLUMNS`' keys) in the table's columns."""
    return frame.select(pl.col(k).alias(v) for k, v in RESULT_COLUMNS.items())


def insert_results(connection: Connection, frame: pl.DataFrame, *, rebuild: bool = True) -> None:
    """Frame columns: tournament, player, line, wins, draws, losses, buchholz, title.

    ``rebuild=False``: one slice of a larger write, whose caller drops and rebuilds the indexes
    around all of it (``bulk.indexes_rebuilt``)."""
    insert_frame(connection, results, _as_stored(frame), rebuild=rebuild)


@contextmanager
def _results_writer(connection: Connection, rows: int) -> Iterator[Callable[[pl.DataFrame], None]]:
    """A writer of ``rows`` results given in slices (frames as :func:`insert_results` takes),
    inside a block around which the caller drops and rebuilds the indexes: a large write on
    PostgreSQL through one ``COPY`` (``bulk.copy_writer``), whose server stores a slice while the
    next is made; SQLite's large write is :func:`results_ahead`'s."""
    if rows >= indexes.REBUILD_INDEXES_FROM and connection.dialect.name == "postgresql":
        with copy_writer(connection, results, list(RESULT_COLUMNS.values())) as copy:
            yield lambda frame: copy(_as_stored(frame))
        return
    yield lambda frame: insert_results(connection, frame, rebuild=False)


@contextmanager
def results_ahead(
    connection: Connection, rows: int, slices: Iterable[pl.DataFrame]
) -> Iterator[None]:
    """Store ``rows`` results, given as ``slices`` (frames as :func:`insert_results` takes, each
    in key order), when the block ends, with the indexes dropped and built again around a large
    write. On SQLite a large write begins at once instead: a thread of its own makes the slices
    and writes them into a rows file (``bulk.rows_file.RowsAhead``) while the block writes what
    they point to (the players and tournaments of an import), and the job's connection copies
    them in when the block ends. Into an empty table whose foreign keys are not checked row by
    row (a large import, ``bulk.keys_checked_once``) the file holds the table's indexes too,
    built by that thread, and is copied B-tree for B-tree: a history imported into a new
    database sorts nothing in the job's thread."""
    if rows < indexes.REBUILD_INDEXES_FROM or not rows_file_usable(
        connection, [pl.Int64(), pl.Int16(), pl.String()]
    ):
        yield
        with (
            indexes.indexes_rebuilt(connection, results, rows, key=True) as rebuilt,
            _results_writer(connection, rows) as write,
        ):
            for part in slices:
                write(part)
        if not rebuilt:
            indexes.analyze_if_grown(connection, results, rows)
        return
    whole = (
        connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 0
        and connection.execute(select(results.c.tournament_id).limit(1)).first() is None
    )
    statements = table_statements(connection, results, indexes=whole)
    with tempfile.TemporaryDirectory(prefix="ratings-write-", ignore_cleanup_errors=True) as tmp:
        path = Path(tmp) / "rows.sqlite"
        written = RowsAhead(path, statements, results.name, (_as_stored(p) for p in slices))
        try:
            yield
        finally:
            error = written.wait()
        if error is not None:
            raise error
        if whole:
            copy_attached(connection, results, path)
            indexes.analyze(connection, results.name)
            return
        with indexes.indexes_rebuilt(connection, results, rows) as rebuilt:
            copy_attached(connection, results, path, list(RESULT_COLUMNS.values()))
        if not rebuilt:
            indexes.analyze_if_grown(connection, results, rows)


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
