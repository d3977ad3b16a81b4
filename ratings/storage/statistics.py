"""The planner's statistics of the tables a command's large write filled (a history's import, a
list's partition), on PostgreSQL: taken after the commit by a process of its own that goes on
after the command has ended, as the SQLite checkpoint of such a write is (:mod:`.write_ahead`).

Their analyses were 0.30 s of the 5 s an import of a history of 807,856 results took (players
0.11 s, tournaments 0.08 s, results 0.11 s), with the command waiting and nothing in the
transaction using them: the keys added back and the indexes built need none. The next command
(a rating, a month's import) plans with them; one started within a second of the import plans
with the row counts the index builds left, as it would before any analysis. Should the process
fail, PostgreSQL's autovacuum analyses the tables within a minute of the commit: a tenth of a
table written is its threshold. The service, which goes on, analyses in its transaction, as does
every smaller write.

A list of 46,688 entries published by the monthly job waited 0.18 s for its partition's analysis
on PostgreSQL, after 0.4 s of index builds that need none; the site plans its pages of that list
from the statistics once the process has taken them.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy.engine import Connection, Engine

from ratings.storage.write_ahead import is_ending, outliving

log = logging.getLogger(__name__)

DEFERRED = "ratings.analyses_deferred"
"""The key, in a connection's ``info``, of the tables whose analysis waits for the commit."""
ASIDE_FROM = 10_000
"""Rows from which a table written while analyses are deferred is analysed after the commit:
a smaller one's analysis takes milliseconds, less than starting the process."""

_ANALYSE_ASIDE = """
import json, sys
import psycopg
args, kwargs, tables = json.load(sys.stdin)
with psycopg.connect(*args, autocommit=True, **kwargs) as connection:
    for table in tables:
        connection.execute("ANALYZE " + table)
"""
"""The process the analyses run in: it reads how to connect and the tables from its input."""


@contextmanager
def analyses_deferred(
    connection: Connection, tables: list[str], *, sized: bool = False
) -> Iterator[None]:
    """Around a command's large write on PostgreSQL (a connection of an engine marked by
    ``write_ahead.ends_with_process``): the analyses its writes ask for
    (``bulk.indexes.analyze``) are not run but listed in ``tables``, for :func:`analyse_aside`
    after the commit. ``sized``: only those whose caller says the table holds
    :data:`ASIDE_FROM` rows or more (a list's partition), the others run at once: a transaction
    that goes on reading what it wrote (the monthly job publishes after it rates) plans with
    them. Elsewhere it changes nothing."""
    if connection.dialect.name != "postgresql" or not is_ending(connection.engine):
        yield
        return
    connection.info[DEFERRED] = (tables, sized)
    try:
        yield
    finally:
        connection.info.pop(DEFERRED, None)


def deferred(connection: Connection, table: str, rows: int | None = None) -> bool:
    """Whether the analysis of ``table`` waits for the commit (:func:`analyses_deferred`):
    then it is listed there. ``rows``, when the caller knows them, are what the table holds:
    under :data:`ASIDE_FROM` it is analysed at once."""
    held = connection.info.get(DEFERRED)
    if held is None:
        return False
    tables, sized = held
    if (rows is None and sized) or (rows is not None and rows < ASIDE_FROM):
        return False
    if table not in tables:
        tables.append(table)
    return True


def analyse_aside(engine: Engine, tables: list[str]) -> None:
    """After the commit: analyse ``tables`` in a process of its own, which this one does not
    wait for; where none can be started, here."""
    if not tables:
        return
    if _started(engine, tables):
        return
    try:
        with engine.begin() as connection:
            for table in tables:
                connection.exec_driver_sql(f"ANALYZE {table}")
    except Exception:  # a driver's error, whatever it is: autovacuum analyses them
        log.warning("the analysis of the tables an import filled failed", exc_info=True)


def _started(engine: Engine, tables: list[str]) -> bool:
    args, kwargs = engine.dialect.create_connect_args(engine.url)
    # What the URL says, in libpq's terms; SQLAlchemy's own adapters (``context``) stay here.
    plain = {k: v for k, v in kwargs.items() if isinstance(v, str | int | float | bool)}
    try:
        given = json.dumps([list(args), plain, tables]).encode()
    except TypeError:
        return False  # a connection argument that is not plain text or a number
    child = outliving(["-c", _ANALYSE_ASIDE], "the analyses")
    if child is None:
        return False
    assert child.stdin is not None
    try:
        # A few hundred bytes: the pipe takes them at once, and the process reads them when
        # it has started.
        child.stdin.write(given)
        child.stdin.close()
    except OSError:
        log.warning("could not hand the analyses to their process", exc_info=True)
        return False
    return True
