"""The analyses of the tables a command's large import fills: on PostgreSQL left to a process of
its own after the commit, elsewhere made in the transaction as before."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import text
from sqlalchemy.engine import Connection, Engine

from ratings.storage import statistics
from ratings.storage.bulk import indexes
from ratings.storage.database import open_engine
from ratings.storage.statistics import analyse_aside, analyses_deferred
from ratings.storage.write_ahead import ends_with_process
from service.cli import cli
from tests.support import histories
from tests.support.settings import empty_settings_file


def statistics_of(connection: Connection, table: str) -> int:
    """How many columns of ``table`` the planner has statistics of."""
    return int(
        connection.execute(
            text("SELECT count(*) FROM pg_stats WHERE schemaname = 'public' AND tablename = :t"),
            {"t": table},
        ).scalar_one()
    )


def analysed_within(engine: Engine, table: str, seconds: float = 30.0) -> bool:
    """Whether the statistics of ``table`` appear, seen from a connection of this process."""
    ends = time.monotonic() + seconds
    while time.monotonic() < ends:
        with engine.connect() as connection:
            if statistics_of(connection, table):
                return True
        time.sleep(0.05)
    return False


@pytest.fixture
def postgres(postgres_url: str) -> Iterator[Engine]:
    engine = open_engine(postgres_url)
    with engine.begin() as connection:
        connection.exec_driver_sql(
            "CREATE TABLE scratch AS SELECT g AS value FROM generate_series(1, 2000) AS g"
        )
    yield engine
    engine.dispose()


@pytest.mark.postgres
def test_a_command_s_analyses_wait_for_the_commit_and_run_in_a_process_of_their_own(
    postgres: Engine,
) -> None:
    ends_with_process(postgres)
    tables: list[str] = []
    with postgres.connect() as connection:
        with analyses_deferred(connection, tables), connection.begin():
            indexes.analyze(connection, "scratch")
            indexes.analyze(connection, "scratch")
            assert statistics_of(connection, "scratch") == 0
        assert tables == ["scratch"]
        # Once the block ends, the connection (which goes back to the pool) analyses in place.
        assert statistics.DEFERRED not in connection.info
    analyse_aside(postgres, tables)
    assert analysed_within(postgres, "scratch")


@pytest.mark.postgres
def test_a_table_of_few_rows_is_analysed_at_once_even_in_a_command(postgres: Engine) -> None:
    """A caller that knows what the table holds (a list's partition) has a small one analysed in
    the transaction: its analysis takes less than starting the process."""
    ends_with_process(postgres)
    tables: list[str] = []
    with postgres.connect() as connection:
        with analyses_deferred(connection, tables), connection.begin():
            indexes.analyze(connection, "scratch", rows=statistics.ASIDE_FROM - 1)
            assert statistics_of(connection, "scratch") == 1
            indexes.analyze(connection, "scratch", rows=statistics.ASIDE_FROM)
        assert tables == ["scratch"]


@pytest.mark.postgres
def test_a_sized_deferral_analyses_at_once_what_its_caller_does_not_size(
    postgres: Engine,
) -> None:
    """The monthly job defers only its list's partition: the tournaments its rating analyses
    are planned with by its publication, in the same transaction."""
    ends_with_process(postgres)
    tables: list[str] = []
    with postgres.connect() as connection:
        with analyses_deferred(connection, tables, sized=True), connection.begin():
            indexes.analyze(connection, "scratch")
            assert statistics_of(connection, "scratch") == 1
            indexes.analyze(connection, "scratch", rows=statistics.ASIDE_FROM)
        assert tables == ["scratch"]


@pytest.mark.postgres
def test_the_service_s_analyses_stay_in_the_transaction(postgres: Engine) -> None:
    """An engine that is not a command's (the service's) goes on after the job: nothing waits."""
    tables: list[str] = []
    with (
        postgres.connect() as connection,
        analyses_deferred(connection, tables),
        connection.begin(),
    ):
        indexes.analyze(connection, "scratch")
        assert statistics_of(connection, "scratch") == 1
    assert tables == []


@pytest.mark.postgres
def test_without_a_process_of_their_own_the_analyses_are_made_at_once(
    postgres: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(statistics, "_started", lambda engine, tables: False)
    analyse_aside(postgres, ["scratch"])
    with postgres.connect() as connection:
        assert statistics_of(connection, "scratch") == 1


@pytest.mark.postgres
def test_the_process_connects_as_the_engine_does(postgres: Engine) -> None:
    """What it is handed is plain text and numbers: the driver's arguments also hold SQLAlchemy's
    own adapters of psycopg (``context``), left out rather than keeping the analyses in the
    command."""
    _, kwargs = postgres.dialect.create_connect_args(postgres.url)
    assert "context" in kwargs
    assert statistics._started(postgres, ["scratch"])
    assert analysed_within(postgres, "scratch")


def test_on_sqlite_nothing_waits(tmp_path: Path) -> None:
    engine = ends_with_process(open_engine(f"sqlite:///{tmp_path / 'ratings.sqlite'}"))
    tables: list[str] = []
    with (
        engine.connect() as connection,
        analyses_deferred(connection, tables),
        connection.begin(),
    ):
        connection.exec_driver_sql("CREATE TABLE scratch (value INTEGER)")
        connection.exec_driver_sql("CREATE INDEX ix_scratch ON scratch (value)")
        connection.exec_driver_sql("INSERT INTO scratch VALUES (1), (2), (3)")
        indexes.analyze(connection, "scratch")
        analysed = connection.exec_driver_sql(
            "SELECT count(*) FROM sqlite_stat1 WHERE tbl = 'scratch'"
        ).scalar_one()
    engine.dispose()
    assert tables == []
    assert analysed == 1


@pytest.mark.postgres
def test_a_large_import_by_the_command_line_leaves_its_analyses_to_a_process(
    postgres_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    open_engine(postgres_url).dispose()
    # Large from a few tournaments on: the path of a history's import, at the size of a test.
    monkeypatch.setattr(indexes, "REBUILD_INDEXES_FROM", 20)
    handed: list[list[str]] = []
    real = statistics._started

    def started(engine: Engine, tables: list[str]) -> bool:
        handed.append(list(tables))
        return real(engine, tables)

    monkeypatch.setattr(statistics, "_started", started)
    monkeypatch.setenv("RATINGS_DATABASE_URL", postgres_url)
    monkeypatch.setenv("RATINGS_CONFIG", empty_settings_file(tmp_path))
    results = histories.write_csv(histories.history(events=6), tmp_path / "results.csv")
    done = CliRunner().invoke(cli, ["import", str(results)], catch_exceptions=False)
    assert done.exit_code == 0, done.stderr
    assert handed
    assert "results" in handed[0]
    engine = open_engine(postgres_url)
    try:
        assert analysed_within(engine, "results")
    finally:
        engine.dispose()
