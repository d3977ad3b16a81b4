"""The publish folder: the files of every published list, and a pointer to the newest.

Every publication, by hand or by the monthly job, a first version or a republication, writes its
period's files here from what the database holds (the entries it has just stored, as reading
them back gives them, or the list read back), so the folder, the database and the website never
disagree on what is published. Each file is written under a temporary name and renamed, so
a reader never sees half a file; ``latest.json`` is written last, naming the newest list the
database holds, and so always points to a complete set of files. The monthly job writes its
list's files while the database stores the list (:class:`StagedRankings`) and renames them only
once the list is committed.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import date, datetime
from pathlib import Path
from typing import IO

import polars as pl
from sqlalchemy.engine import Engine

from exporters.documents import RankingDocument, write_ranking
from exporters.lists import drift
from jobs.options import ListOptions
from jobs.publishing import Publication, publish_list
from jobs.queries import list_rankings
from ratings.errors import OutputError
from ratings.parameters import MeloParams, format_exact
from ratings.storage import list_files, lists

EXPORTS = (("ranking.csv", "csv", False), ("ranking-all.csv", "csv", True), ("ranking.json", "json", True),
           ("ranking.xlsx", "xlsx", True), ("ranking.html", "html", False))  # fmt: skip
"""Each list's files: name, format, and whether everyone is in it (else the active players)."""
WRITERS = 2
"""Files of a list written at the same time: the machine's cores, which polars' own threads share."""
STATISTICS = "statistics.json"
LATEST = "latest.json"

log = logging.getLogger(__name__)


REPLACE_TRIES = 5
"""Attempts to put a finished file in place; on Windows a file open in another program (a
spreadsheet showing last month's list) cannot be replaced until it is closed."""


def replace_file(temporary: Path, path: Path, pause: float = 0.5) -> None:
    """Rename ``temporary`` to ``path``, retrying a while when ``path`` is held open; then an
    OutputError saying so (one line, the officer's to fix)."""
    for attempt in range(REPLACE_TRIES):
        try:
            temporary.replace(path)
            return
        except PermissionError:
            if attempt + 1 == REPLACE_TRIES:
                raise OutputError(
                    f"cannot replace {path}: it is open in another program or read-only "
                    "(close it and run the command again)"
                ) from None
            time.sleep(pause)
        except OSError as error:
            raise OutputError(f"cannot write {path}: {error.strerror or error}") from None


def write_atomically(path: Path, data: bytes) -> None:
    write_streamed(path, lambda stream: stream.write(data))


def write_streamed(path: Path, write: Callable[[IO[bytes]], object]) -> None:
    """What ``write`` writes, as the file ``path``: written under a temporary name, flushed to the
    disk, then renamed, so a reader never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = _temporary(path)
    try:
        _write_to(temporary, write)
        replace_file(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def _temporary(path: Path) -> Path:
    return path.with_name(f".{path.name}.partial")


def _write_to(temporary: Path, write: Callable[[IO[bytes]], object]) -> None:
    with temporary.open("wb") as stream:
        write(stream)
        stream.flush()
        os.fsync(stream.fileno())


def write_rankings(folder: Path, documents: dict[bool, RankingDocument]) -> list[Path]:
    """Every file of :data:`EXPORTS` in ``folder``, from a list's two rankings (see
    :class:`_Writing`)."""
    return _Writing(folder, documents).put_in_place()


class _Writing:
    """The files of :data:`EXPORTS` being written under their temporary names in ``folder``, from
    a list's two rankings, until they are put in place or discarded.

    They are written at the same time by :data:`WRITERS` threads, the workbook first: the
    writers spend their time in native code (polars, rust_xlsxwriter, the disk), most of it
    without the interpreter's lock, so on two cores the workbook is compressed while the other
    files are built. rust_xlsxwriter keeps the lock while it writes the sheet's rows: started
    first, that stretch is over before the other files need the lock most."""

    def __init__(self, folder: Path, documents: dict[bool, RankingDocument]) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self._pool = ThreadPoolExecutor(max_workers=WRITERS)
        self._writing: list[Future[None]] = [
            self._pool.submit(
                _write_to, _temporary(folder / name), _ranking_writer(documents[everyone], fmt)
            )
            for name, fmt, everyone in sorted(EXPORTS, key=lambda export: export[1] != "xlsx")
        ]

    def put_in_place(self) -> list[Path]:
        """Every file renamed into place once all are written; a writer's error is raised with
        nothing of them kept."""
        self._pool.shutdown(wait=True)
        for written in self._writing:
            error = written.exception()
            if error is not None:
                self.discard()
                raise error
        paths = [self.folder / name for name, _, _ in EXPORTS]
        for path in paths:
            replace_file(_temporary(path), path)
        return paths

    def discard(self) -> None:
        """Wait for the writers, and remove what they wrote (nothing once put in place)."""
        self._pool.shutdown(wait=True)
        for name, _, _ in EXPORTS:
            _temporary(self.folder / name).unlink(missing_ok=True)


def _ranking_writer(document: RankingDocument, fmt: str) -> Callable[[IO[bytes]], None]:
    def write(stream: IO[bytes]) -> None:
        write_ranking(document, fmt, stream)

    return write


class StagedRankings:
    """A list's ranking files written while the database stores the list
    (``publish_into(shown=staged.start)``), and put in place only once the list is committed
    (:func:`write_list_files`). The monthly job's files are then made beside the database's
    work instead of after it: on a medium history the workbook's 0.3 s overlap the half second
    the database takes to store and index the list. A list that is not committed leaves no file
    of it: leaving the ``with`` block discards whatever was not put in place."""

    def __init__(self, folder: Path, rounding: str) -> None:
        self.folder = folder
        self.rounding = rounding
        self.info: lists.ListInfo | None = None
        self._writing: _Writing | None = None

    def __enter__(self) -> StagedRankings:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.discard()

    def start(self, info: lists.ListInfo, entries: pl.DataFrame) -> None:
        """Start writing the files of list ``info`` from its ``entries`` (as its files show
        them)."""
        self.info = info
        self._writing = _Writing(self.folder, list_rankings(info, entries, self.rounding))

    def put_in_place(self, info: lists.ListInfo) -> list[Path] | None:
        """The files in place, once list ``info`` is committed; None (and nothing kept) when
        they were not written from that list as it was committed."""
        writing, staged = self._writing, self.info
        self._writing, self.info = None, None
        if writing is None:
            return None
        if staged != info:
            log.warning("the files written beside list %s were not of it as committed", info.id)
            writing.discard()
            return None
        return writing.put_in_place()

    def discard(self) -> None:
        """Wait for the writers, and remove what they wrote."""
        if self._writing is not None:
            self._writing.discard()
        self._writing, self.info = None, None


def write_list_files(
    engine: Engine,
    publish_dir: Path,
    period: str,
    rounding: str,
    *,
    published: Publication | None = None,
    staged: StagedRankings | None = None,
) -> list[Path]:
    """The newest version of ``period``'s list in every format, its statistics, and the
    ``latest.json`` pointer, in ``publish_dir``; nothing when the period has no list.

    ``published`` is the publication just committed, when the caller made one: when it is that
    newest version, the files are written from the entries it stored rather than read back; else
    the list is read back once, as Arrow columns at federation scale
    (:func:`.list_files.shown_entries`). The files are the same either way. ``staged``: the
    ranking files written while the list was stored, put in place when they are of this list."""
    folder = publish_dir / period
    with engine.connect() as connection:
        info = lists.latest_list(connection, period)
        if info is None:
            if staged is not None:
                staged.discard()
            return []
        written = None if staged is None else staged.put_in_place(info)
        entries = None
        if written is None:
            held = published is not None and published.info.id == info.id
            entries = published.entries if held and published is not None else None
            if entries is None:
                entries = list_files.shown_entries(connection, info.id, size=info.players)
        newest = lists.latest_list(connection)
    if entries is not None:
        written = write_rankings(folder, list_rankings(info, entries, rounding))
    assert written is not None
    statistics = {
        "period": info.period,
        "version": info.version,
        "cutoff": info.cutoff.isoformat(),
        "published": info.created_at.isoformat(),
        "players": info.players,
        "active_players": info.active_players,
        "mean_rating": format_exact(info.mean_rating),
        "drift": drift(info.mean_rating, info.initial_rating),
    }
    write_atomically(folder / STATISTICS, (json.dumps(statistics, indent=1) + "\n").encode())
    written.append(folder / STATISTICS)
    if newest is not None:
        pointer = {
            "period": newest.period,
            "version": newest.version,
            "folder": newest.period,
            "published": newest.created_at.isoformat(),
        }
        write_atomically(publish_dir / LATEST, (json.dumps(pointer, indent=1) + "\n").encode())
        written.append(publish_dir / LATEST)
    return written


def publish_with_files(
    engine: Engine,
    period: str,
    options: ListOptions,
    *,
    publish_dir: Path,
    params: MeloParams,
    cutoff: date | None = None,
    republish: bool = False,
    by: str,
    now: datetime,
) -> Publication:
    """Publish ``period``'s list by hand (see :func:`jobs.publishing.publish_list`) and write its
    files to the publish folder, as the monthly job does with the lists it publishes."""
    done = publish_list(
        engine,
        period,
        options,
        cutoff=cutoff,
        republish=republish,
        by=by,
        now=now,
        params=params,
    )
    write_list_files(engine, publish_dir, period, options.rounding, published=done)
    return done
