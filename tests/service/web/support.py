"""What the web service's tests share: a database with published lists, participant files, and a
real server on loopback."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from fastapi import FastAPI
from sqlalchemy import create_engine, insert, select, text
from sqlalchemy.engine import Connection, Engine

from jobs.importing import import_files
from jobs.options import ListOptions
from jobs.publishing import publish_list, with_page_columns
from jobs.rating import run_ratings
from ratings.formula import MeloParams
from ratings.names import name_key
from ratings.storage import lists
from ratings.storage.database import open_engine
from ratings.storage.schema import players
from service.settings import Settings, WebOptions, configure
from service.web import make_server
from tests.support import histories

NOW = datetime(2026, 11, 1, tzinfo=UTC)
PARAMS = MeloParams()
EVENTS = histories.history(events=40)
PERIODS = ("2022-06", "2022-09")
"""The lists :func:`publish` publishes, oldest first."""


OPERATIONS = [
    ("GET", "/"),
    ("GET", "/lists"),
    ("GET", "/lists.json"),
    ("GET", "/lists.html"),
    ("GET", "/lists/{period}.{fmt}"),
    ("GET", "/lists/{period}"),
    ("GET", "/lists/{period}/diff/{old}"),
    ("GET", "/players"),
    ("GET", "/events/{key}.csv"),
    ("GET", "/events/{key}.json"),
    ("GET", "/events/{key}"),
    ("GET", "/about"),
    ("GET", "/about/rating"),
    ("GET", "/players/{player_id}"),
    ("GET", "/players/{player_id}.{fmt}"),
    ("GET", "/players/{player_id}/chart.svg"),
    ("GET", "/seed"),
    ("POST", "/seed"),
    ("GET", "/health"),
    ("GET", "/api/submissions"),
    ("POST", "/api/submissions"),
    ("GET", "/api/submissions/{submission_id}"),
    ("PUT", "/api/submissions/{submission_id}"),
    ("DELETE", "/api/submissions/{submission_id}"),
    ("POST", "/api/submissions/{submission_id}/accept"),
    ("POST", "/api/submissions/{submission_id}/reject"),
]
"""Every operation the web service offers, as (method, path template)."""


def settings(**values: Any) -> WebOptions:
    """The web service's options from the settings given and the defaults only, whatever the
    machine's environment."""
    return configure(Settings(_env_file=None, **values)).web


def publish(engine: Engine, path: Path) -> None:
    """Import and rate :data:`EVENTS`, then publish the lists of :data:`PERIODS`."""
    import_files(engine, [histories.write_csv(EVENTS, path)], imported_by="t", now=NOW)
    run_ratings(engine, PARAMS, now=NOW)
    for period in PERIODS:
        publish_list(engine, period, ListOptions(), by="officer", now=NOW)


BACKENDS = ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]
"""Parameters of a module-scoped fixture that runs the module once per database backend."""


@contextmanager
def published_database(request: pytest.FixtureRequest, folder: Path) -> Iterator[Engine]:
    """A database with the lists of :data:`PERIODS` on the backend ``request.param`` names.

    PostgreSQL reuses the session's scratch database (emptied first); the service is read-only,
    so a whole module can share it.
    """
    if request.param == "sqlite":
        url = f"sqlite:///{folder / 'ratings.sqlite'}"
    else:
        url = request.getfixturevalue("postgres_database")
        scratch = create_engine(url)
        with scratch.begin() as connection:
            connection.execute(text("DROP SCHEMA public CASCADE"))
            connection.execute(text("CREATE SCHEMA public"))
        scratch.dispose()
    engine = open_engine(url)
    publish(engine, folder / "history.csv")
    try:
        yield engine
    finally:
        engine.dispose()


def participants_csv() -> bytes:
    """Five known players (three by id, two by name and country) and a newcomer with a rating."""
    return (
        b"player_id,name,country,rating\n"
        b"1,,,\n2,,,\n3,,,\n,Player 4,AUT,\n,Player 5,GER,\n,Newcomer Nina,NOR,1210\n"
    )


def go_participants_csv() -> bytes:
    """Newcomers with Go ranks, for McMahon seeding from ranks."""
    return b"name,country,rank\nAki,JPN,3d\nBea,FRA,1k\nCem,TUR,5k\nDan,POL,12k\nEla,GER,25k\n"


def free_socket() -> socket.socket:
    """A listening-ready socket on a free loopback port, bound here so no other process can take
    the port between choosing it and the server starting."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    return sock


@contextmanager
def running_server(app: FastAPI, *, timeout: float = 10.0, **values: Any) -> Iterator[str]:
    """Serve ``app`` with uvicorn on 127.0.0.1 in a thread, with the server settings ``values``;
    yields the base URL, stops on exit."""
    sock = free_socket()
    host, port = sock.getsockname()
    server = make_server(app, settings(http_host=host, http_port=port, **values))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError(f"the web server did not start on {host}:{port}")
        time.sleep(0.02)
    try:
        yield f"http://{host}:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout)
        sock.close()
        if thread.is_alive():
            raise RuntimeError("the web server did not stop")


GENERATED = "2021-01"
"""The period of the large list :func:`add_generated_list` publishes, older than :data:`PERIODS`
so that the home page still shows the lists rated from :data:`EVENTS`."""
HOLLERS = ("Anna Höller", "Franz HÖLLER", "Maria  Höller")
"""The three players a search for ``holler`` must find: accents, case and spacing differ."""
_FIRST = ("Jean", "Karl", "Ewa", "Lukas", "Sofia", "Piotr", "Ines", "Tomas")
_LAST = ("Gauthier", "Gruber", "Nowak", "Svoboda", "Müller", "Rossi", "Dupont", "Berger")
_COUNTRIES = ("FRA", "AUT", "POL", "CZE", "GER", "ITA", "FRA", "AUT")


def generated_entries(count: int) -> pl.DataFrame:
    """``count`` list entries with made-up names (the three of :data:`HOLLERS` among them) and
    ratings falling with the index, every fourth player inactive."""
    names = [
        f"{_FIRST[i % 8]} {_LAST[(i // 8) % 8]} {i}" for i in range(count - len(HOLLERS))
    ] + list(HOLLERS)
    index = pl.Series(range(count))
    frame = pl.DataFrame(
        {
            "player": pl.Series(range(1_000_000, 1_000_000 + count), dtype=pl.Int64),
            "federation_id": [f"G{i}" for i in range(count)],
            "name": names,
            "country": [_COUNTRIES[(i // 8) % 8] for i in range(count)],
            "title": ["GM" if i % 97 == 0 else None for i in range(count)],
            "rating": (30_000_000_000_000 - index * 3_000_000_000).cast(pl.Int64),
            "games": (index % 50 + 1).cast(pl.Int64),
            "tournaments": (index % 7 + 1).cast(pl.Int64),
            "last_played": [date(2020, 12, 1)] * count,
            "active": [i % 4 != 3 for i in range(count)],
            "previous_rating": pl.Series([None] * count, dtype=pl.Int64),
        }
    )
    # The columns publishing adds, by the publishing job's own rule.
    return with_page_columns(frame)


def add_generated_list(engine: Engine, count: int, period: str = GENERATED) -> None:
    """Publish a list of ``count`` generated players, as the publishing job stores one."""
    add_list(engine, generated_entries(count), period)


def add_list(engine: Engine, entries: pl.DataFrame, period: str) -> None:
    """Publish ``entries`` (as :func:`generated_entries` makes them) as the list of ``period``."""
    count = entries.height
    with engine.begin() as connection:
        _register(connection, entries)
        lists.insert_list(
            connection,
            {
                "period": period, "version": 1, "cutoff": date(2020, 12, 31), "created_at": NOW,
                "created_by": "officer", "players": count,
                "active_players": int(entries["active"].sum()),
                "mean_rating": int(entries["rating"].mean() or 0),
                "initial_rating": 10_000_000_000_000, "active_months": 24, "previous_id": None,
                "replaces_id": None,
            },
            entries,
        )  # fmt: skip


def _register(connection: Connection, entries: pl.DataFrame) -> None:
    """Put the players of ``entries`` that the registry does not hold into it, as importing
    them would: every entry of a list is a registered player (the search by federation id looks
    the player up there)."""
    known = set(connection.execute(select(players.c.id)).scalars())
    new = entries.filter(~pl.col("player").is_in(list(known)))
    if new.height:
        connection.execute(
            insert(players),
            [
                {
                    "id": row["player"], "federation_id": row["federation_id"], "name": row["name"],
                    "name_key": name_key(row["name"]), "country": row["country"],
                    "title": row["title"], "created_at": NOW,
                }
                for row in new.iter_rows(named=True)
            ],
        )  # fmt: skip
