"""One job at a time, across processes, with what each database offers.

PostgreSQL: a session-level advisory lock, held by a connection of its own for the job's length.
SQLite: an exclusive lock on a file next to the database (``filelock``: ``flock`` on Unix,
``msvcrt.locking`` on Windows). Both disappear with the process that holds them, so a crashed or
killed job never leaves a stale lock behind.

Everything that writes takes this lock: the monthly job, migrations, imports, merges, registry
imports, rating runs and publications by hand, so no two of them ever interleave.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout
from sqlalchemy import text
from sqlalchemy.engine import Engine

from ratings.errors import JobLockedError

LOCK_KEY = 0x4D454C4F  # "MELO": the advisory lock key the service's jobs share
POLL_SECONDS = 0.5


Waiting = Callable[[], None]
"""Called once when the lock is taken by another process and the caller is about to wait."""


@contextmanager
def job_lock(
    engine: Engine, *, wait: float = 0.0, waiting: Waiting | None = None
) -> Iterator[None]:
    """Hold the job lock; wait up to ``wait`` seconds for it, then raise JobLockedError."""
    dialect = engine.dialect.name
    if dialect == "postgresql":
        with _advisory_lock(engine, wait, waiting):
            yield
    elif dialect == "sqlite":
        database = engine.url.database
        if not database or database == ":memory:":
            yield
            return
        path = Path(database)
        with _file_lock(path.with_name(path.name + ".job-lock"), wait, waiting):
            yield
    else:
        yield


@contextmanager
def _advisory_lock(engine: Engine, wait: float, waiting: Waiting | None) -> Iterator[None]:
    deadline = time.monotonic() + wait
    told = False
    with engine.connect() as connection:
        while True:
            got = connection.execute(
                text("SELECT pg_try_advisory_lock(:key)"), {"key": LOCK_KEY}
            ).scalar()
            connection.commit()
            if got:
                break
            if time.monotonic() >= deadline:
                raise JobLockedError(wait)
            if waiting is not None and not told:
                waiting()
                told = True
            time.sleep(POLL_SECONDS)
        try:
            yield
        finally:
            connection.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": LOCK_KEY})
            connection.commit()


@contextmanager
def _file_lock(path: Path, wait: float, waiting: Waiting | None) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = FileLock(path)
    try:
        lock.acquire(timeout=0)
    except Timeout:
        if not wait:
            raise JobLockedError(wait) from None
        if waiting is not None:
            waiting()
        try:
            lock.acquire(timeout=wait, poll_interval=POLL_SECONDS)
        except Timeout:
            raise JobLockedError(wait) from None
    try:
        yield
    finally:
        lock.release()
