"""SQLite's write-ahead log after a transaction that writes much: the commit syncs the log alone,
and the copy into the database file (the checkpoint) follows, in this process or, at the end of a
command, in one of its own that goes on after the command has ended. PostgreSQL needs none of
it: its own checkpointer copies its log after every commit. The marking of a command's engine
(:func:`ends_with_process`) and the start of a process that outlives it (:func:`outliving`)
serve :mod:`.statistics` too."""

from __future__ import annotations

import logging
import os
import sys
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy.engine import Connection, Engine

from ratings.storage.database import sqlite_file

if TYPE_CHECKING:
    import subprocess

log = logging.getLogger(__name__)


@contextmanager
def large_transaction(engine: Engine) -> Iterator[Connection]:
    """``engine.begin()`` for a job that writes much of the database (the monthly job), its
    commit writing to the write-ahead log alone (:func:`checkpoint_deferred`)."""
    with engine.connect() as connection, checkpoint_deferred(connection), connection.begin():
        yield connection


@contextmanager
def checkpoint_deferred(connection: Connection) -> Iterator[None]:
    """Around a transaction that writes much, on a connection outside one (SQLite changes these
    settings only there); elsewhere nothing.

    On SQLite the commit then only writes the transaction to the write-ahead log and syncs the
    log (``synchronous = FULL`` for this transaction): when it returns the transaction is on disk,
    as when its commit copied it into the database file. That copy, SQLite's automatic checkpoint
    at the end of a commit, is turned off on this connection (a page of the database written
    for every page the job changed, a sizeable part of a monthly job at federation scale); the
    caller runs :func:`copy_log` afterwards. A process killed in between
    loses nothing: the next connection reads the committed transaction from the log, and the
    next checkpoint copies it. The connection's settings are put back before it returns to the
    pool."""
    raw = connection.connection.driver_connection if connection.dialect.name == "sqlite" else None
    if raw is None:
        yield
        return
    settings = (
        raw.execute("PRAGMA wal_autocheckpoint").fetchone()[0],
        raw.execute("PRAGMA synchronous").fetchone()[0],
    )
    raw.execute("PRAGMA wal_autocheckpoint = 0")
    raw.execute("PRAGMA synchronous = FULL")
    try:
        yield
    finally:
        if not connection.invalidated:
            raw.execute(f"PRAGMA wal_autocheckpoint = {int(settings[0])}")
            raw.execute(f"PRAGMA synchronous = {int(settings[1])}")


def checkpoint(engine: Engine) -> tuple[int, int, int] | None:
    """Copy what the write-ahead log holds into the SQLite database file (``PRAGMA
    wal_checkpoint(PASSIVE)``, on a connection of its own: it waits for nobody, and readers go
    on reading meanwhile); the log starts again from its beginning at the next write. Returns
    SQLite's answer (busy, pages in the log, pages copied), or None for another database."""
    if not _is_sqlite(engine):
        return None
    with engine.connect() as connection:
        raw = connection.connection.driver_connection
        assert raw is not None
        busy, logged, copied = raw.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        return int(busy), int(logged), int(copied)


CHECKPOINT_ASIDE_FROM = 16 * 1024 * 1024
"""Bytes of write-ahead log from which :func:`copy_log` leaves the copy to a process of its own
(a tenth of a second of copying and syncing, against the twentieth it takes to start one)."""
ASIDE_READY_SECONDS = 30.0
"""How long :func:`copy_log` waits for its process to hold the database."""
_CHECKPOINT_ASIDE = """
import sqlite3, sys
connection = sqlite3.connect(sys.argv[1], timeout=60)
connection.execute("SELECT count(*) FROM sqlite_master").fetchone()
print("holding", flush=True)
sys.stdout.close()
connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
sys.stdin.read()
connection.close()
"""
"""The process a large checkpoint runs in. It opens the database, which its connection holds
from its first read on, and says so; copies the log; waits for the process that started it to
end (the end of its input); then closes, the last connection, which copies what was written
meanwhile and removes the log."""
_aside: list[subprocess.Popen[bytes]] = []
"""The processes started, kept (with the pipe each waits on) until this process ends."""
_ending: weakref.WeakSet[Engine] = weakref.WeakSet()
"""The engines of a process that ends once its command is done (:func:`ends_with_process`)."""


def ends_with_process(engine: Engine) -> Engine:
    """Mark ``engine`` as a command's, whose process ends once the command is done (the command
    line's, not the service's): :func:`copy_log` may then leave a large log to a process that
    outlives this one."""
    _ending.add(engine)
    return engine


def is_ending(engine: Engine) -> bool:
    """Whether ``engine`` is a command's, marked by :func:`ends_with_process`."""
    return engine in _ending


def copy_log(engine: Engine) -> None:
    """Right after a transaction committed under :func:`checkpoint_deferred`, before any other
    write: copy the SQLite write-ahead log into the database file (:func:`checkpoint`); elsewhere
    nothing (PostgreSQL's own checkpointer does it after every commit).

    For a command's engine (:func:`ends_with_process`), a log of :data:`CHECKPOINT_ASIDE_FROM`
    bytes or more is copied by a process of its own that goes on after this one has ended, as
    PostgreSQL's checkpointer does: this returns once that process holds the database, which it
    does until this process has ended. It must: the last connection to close copies the log
    itself, so this process, ending first, would copy it on its way out (0.6 s for the 130 MB of
    an import of 800,000 results). Called later, after another commit (the monthly job's run
    record), it would come too late: that commit copies the whole log itself, a thousand pages
    and more being in it. What this process writes after the call is copied when the copier
    closes. Otherwise (a smaller log, or the service, which goes on) the log is copied here. A
    checkpoint that fails is logged, not raised: what it copies is committed already, and the
    next one copies it."""
    if not _is_sqlite(engine):
        return
    log_file = _log_file(engine) if is_ending(engine) else None
    if log_file is not None and log_file.stat().st_size >= CHECKPOINT_ASIDE_FROM:
        child = _checkpoint_aside(log_file.with_name(log_file.name.removesuffix("-wal")))
        if child is not None:
            _wait_until_holding(child)
            return
    try:
        checkpoint(engine)
    except Exception:  # a driver's error, whatever it is: the next checkpoint copies it
        log.warning("the checkpoint after a large transaction failed", exc_info=True)


def _log_file(engine: Engine) -> Path | None:
    """A SQLite database file's write-ahead log, when there is one."""
    database = sqlite_file(engine.url)
    if database is None:
        return None
    log_file = Path(os.path.abspath(f"{database}-wal"))
    return log_file if log_file.is_file() else None


def _checkpoint_aside(path: Path) -> subprocess.Popen[bytes] | None:
    # Its input is a pipe that this process holds open until it ends.
    child = outliving(["-I", "-c", _CHECKPOINT_ASIDE, str(path)], "the checkpoint", answers=True)
    if child is not None:
        _aside.append(child)
    return child


def outliving(
    arguments: list[str], what: str, *, answers: bool = False
) -> subprocess.Popen[bytes] | None:
    """A Python process (``arguments`` after the interpreter) that goes on after this one has
    ended: a session of its own, its input a pipe from this process, its output a pipe back when
    it ``answers`` and otherwise nowhere, its errors nowhere (a caller reading this process's
    output to its end, a script or a test, would wait for it). None, with a warning naming
    ``what`` it was for, where none can be started; on Windows none is (no pipe to wait on)."""
    if os.name != "posix" or not sys.executable:
        return None
    import subprocess  # here: few commands start one

    try:
        return subprocess.Popen(
            [sys.executable, *arguments],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE if answers else subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError:
        log.warning("could not start the process of %s", what, exc_info=True)
        return None


def _wait_until_holding(child: subprocess.Popen[bytes]) -> None:
    import select

    stdout = child.stdout
    assert stdout is not None
    try:
        ready, _, _ = select.select([stdout], [], [], ASIDE_READY_SECONDS)
        said = stdout.readline() if ready else b""
    finally:
        stdout.close()
    if said.strip() != b"holding":
        log.warning(
            "the checkpoint's process did not open the database; the last connection to close"
            " copies the log"
        )


def _is_sqlite(engine: Engine) -> bool:
    return engine.dialect.name == "sqlite"
