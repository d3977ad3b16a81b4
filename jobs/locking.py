"""One job at a time, across processes, with what each database offers.

PostgreSQL: a session-level advisory lock, held by a connection of its own for the job's length.
SQLite: an exclusive ``flock`` on a file next to the database. Both disappear with the process
that holds them, so a crashed or killed job never leaves a stale lock behind.
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import text
from sqlalchemy.engine import Engine

from ratings.errors import JobLockedError

LOCK_KEY = 0x4D454C4F  # "MELO": the advisory lock key the service's jobs share
POLL_SECONDS = 0.5


@contextmanager
def job_lock(engine: Engine, *, wait: float = 0.0) -> Iterator[None]:
    """Hold the job lock; wait up to ``wait`` seconds for it, then raise JobLockedError."""
    dialect = engine.dialect.name
    if dialect == "postgresql":
        with _advisory_lock(engine, wait):
            yield
    elif dialect == "sqlite":
        database = engine.url.database
        if not database or database == ":memory:":
            yield
            return
        with _file_lock(Path(database).with_name(Path(database).name + ".job-lock"), wait):
            yield
    else:
        yield


@contextmanager
def _advisory_lock(engine: Engine, wait: float) -> Iterator[None]:
    deadline = time.monotonic() + wait
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
            time.sleep(POLL_SECONDS)
        try:
            yield
        finally:
            connection.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": LOCK_KEY})
            connection.commit()


@contextmanager
def _file_lock(path: Path, wait: float) -> Iterator[None]:
    deadline = time.monotonic() + wait
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        while True:
            try:
                fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise JobLockedError(wait) from None
                time.sleep(POLL_SECONDS)
        os.ftruncate(descriptor, 0)
        os.write(descriptor, f"{os.getpid()}\n".encode())
        try:
            yield
        finally:
            fcntl.flock(descriptor, fcntl.LOCK_UN)
    finally:
        os.close(descriptor)
