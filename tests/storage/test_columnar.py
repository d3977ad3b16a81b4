"""The full re-rating's own paths: reading through a second connection that sees what the job
sees (and falling back to the job's connection where it cannot), emptying the rating changes with
``TRUNCATE`` or SQLite's page drop, the index built again, and a job killed in the middle of it
leaving the database as it was."""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from sqlalchemy import Column, Integer, MetaData, Table, event, func, inspect, select, update
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError

from jobs.importing import import_files
from jobs.rating import _arrange, _players, rate_pending, run_ratings
from ratings.formula import MeloParams
from ratings.storage import totals
from ratings.storage.bulk import columnar, rows_file, whole_table
from ratings.storage.bulk import indexes as bulk_indexes
from ratings.storage.database import open_engine
from ratings.storage.schema import player_totals, rating_changes, rating_state, tournaments
from ratings.storage.schema import players as players_table
from tests.support import histories

NOW = datetime(2026, 11, 1, tzinfo=UTC)
PARAMS = MeloParams()
CHANGE_COLUMNS = [c.name for c in rating_changes.c]


def rate_history(engine: Engine, folder: Path) -> Engine:
    events = histories.history(events=30)
    path = histories.write_csv(events, folder / "all.csv")
    import_files(engine, [path], imported_by="test", now=NOW)
    run_ratings(engine, PARAMS, now=NOW)
    return engine


@pytest.fixture
def rated(engine: Engine, tmp_path: Path) -> Engine:
    return rate_history(engine, tmp_path)


@pytest.fixture
def rated_sqlite(sqlite_engine: Engine, tmp_path: Path) -> Engine:
    return rate_history(sqlite_engine, tmp_path)


@pytest.fixture
def rated_postgres(postgres_url: str, tmp_path: Path) -> Iterator[Engine]:
    engine = open_engine(postgres_url)
    yield rate_history(engine, tmp_path)
    engine.dispose()


@pytest.fixture
def every_path(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every large-write and second-connection path taken however small the data; returns the
    paths the rating runs read through."""
    monkeypatch.setattr(columnar, "FAST_READ_FROM", 0)
    monkeypatch.setattr(bulk_indexes, "REBUILD_INDEXES_FROM", 0)
    used: list[str] = []
    opened = columnar.reader

    @contextmanager
    def recorded(connection: Connection, *, fast: bool) -> Iterator[columnar.Reader]:
        with opened(connection, fast=fast) as reader:
            used.append(reader.path)
            yield reader

    monkeypatch.setattr(columnar, "reader", recorded)
    return used


def stored_changes(engine: Engine) -> pl.DataFrame:
    with engine.connect() as connection:
        rows = connection.execute(
            select(*rating_changes.c).order_by(rating_changes.c.seq, rating_changes.c.player_id)
        ).all()
    return pl.DataFrame([tuple(r) for r in rows], schema=CHANGE_COLUMNS, orient="row")


def stored_totals(engine: Engine) -> pl.DataFrame:
    with engine.connect() as connection:
        return totals.read_totals(connection).sort("player")


def index_names(engine: Engine) -> set[str]:
    return {str(i["name"]) for i in inspect(engine).get_indexes("rating_changes")}


def second_connection(engine: Engine) -> str:
    if engine.dialect.name == "postgresql":
        return columnar.POSTGRESQL_SNAPSHOT
    return columnar.SQLITE_PROCESS


def test_a_full_rerating_reads_through_a_second_connection_and_writes_the_same(
    rated: Engine, every_path: list[str]
) -> None:
    changes, kept = stored_changes(rated), stored_totals(rated)
    report = run_ratings(rated, PARAMS, now=NOW, full=True)
    assert report.start == 0
    assert every_path == [second_connection(rated)]
    assert stored_changes(rated).equals(changes)
    assert stored_totals(rated).equals(kept)
    with rated.connect() as connection:
        assert kept.equals(totals.from_changes(connection).sort("player"))
    assert index_names(rated) >= {"ix_rating_changes_player_seq"}
    stamped = {str(i["name"]) for i in inspect(rated).get_indexes("tournaments")}
    assert stamped >= {"ix_tournaments_order", "ix_tournaments_seq"}


def statements_of(engine: Engine, run: Callable[[], object]) -> list[str]:
    seen: list[str] = []

    def record(_c: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        seen.append(" ".join(statement.split()))

    event.listen(engine, "before_cursor_execute", record)
    try:
        run()
    finally:
        event.remove(engine, "before_cursor_execute", record)
    return seen


def test_a_full_rerating_writes_only_the_stamps_that_change_and_never_the_players(
    rated: Engine, every_path: list[str]
) -> None:
    def stamps() -> list[tuple[Any, ...]]:
        with rated.connect() as connection:
            rows = connection.execute(
                select(tournaments.c.id, tournaments.c.seq, tournaments.c.k, tournaments.c.m_avg,
                       tournaments.c.b_avg, tournaments.c.status, tournaments.c.rated_at)
                .order_by(tournaments.c.id)
            )  # fmt: skip
            return [tuple(row) for row in rows]

    before = stamps()
    same = statements_of(rated, lambda: run_ratings(rated, PARAMS, now=NOW, full=True))
    assert not [s for s in same if s.startswith(("UPDATE tournaments", "UPDATE players"))]
    assert stamps() == before
    # A day later nothing of any tournament's rating changes: each keeps the time it was rated.
    later = NOW + timedelta(days=1)
    again = statements_of(rated, lambda: run_ratings(rated, PARAMS, now=later, full=True))
    assert not [s for s in again if s.startswith(("UPDATE tournaments", "UPDATE players"))]
    assert stamps() == before


def test_a_first_rating_of_everything_puts_back_the_keys_it_dropped(
    engine: Engine, tmp_path: Path, every_path: list[str]
) -> None:
    """Every tournament stamped: on PostgreSQL the tournaments' secondary indexes and unique keys
    are dropped for it and built again, and hold. The players are not written at all: a
    player's rating is their totals' (migration 0017)."""
    keys = {
        table: (
            {str(i["name"]) for i in inspect(engine).get_indexes(table)},
            {str(u["name"]) for u in inspect(engine).get_unique_constraints(table)},
        )
        for table in ("players", "tournaments")
    }
    rated: Engine = engine
    seen = statements_of(engine, lambda: rate_history(engine, tmp_path))
    assert every_path == [second_connection(rated)]
    if rated.dialect.name == "postgresql":
        assert any('DROP CONSTRAINT "uq_tournaments_key"' in statement for statement in seen)
    # The rating job writes no player: their keys stay as they are.
    assert not [statement for statement in seen if 'CONSTRAINT "uq_players' in statement]
    for table, (indexes, unique) in keys.items():
        assert {str(i["name"]) for i in inspect(rated).get_indexes(table)} == indexes
        assert {str(u["name"]) for u in inspect(rated).get_unique_constraints(table)} == unique
    changes = stored_changes(rated)
    with rated.connect() as connection:
        ratings = connection.execute(
            select(player_totals.c.player_id, player_totals.c.rating).order_by(
                player_totals.c.player_id
            )
        ).all()
        first = connection.execute(select(players_table).limit(1)).mappings().one()
    # The same changes and ratings as rating it all again, which writes nothing new.
    run_ratings(rated, PARAMS, now=NOW, full=True)
    assert stored_changes(rated).equals(changes)
    with rated.connect() as connection:
        assert (
            connection.execute(
                select(player_totals.c.player_id, player_totals.c.rating).order_by(
                    player_totals.c.player_id
                )
            ).all()
            == ratings
        )
    with pytest.raises(IntegrityError), rated.begin() as connection:
        connection.execute(players_table.insert().values({**first, "id": None}))


def test_a_run_inside_a_transaction_that_wrote_reads_through_the_job_connection(
    rated: Engine, every_path: list[str]
) -> None:
    changes = stored_changes(rated)
    with rated.begin() as connection:
        # as the monthly job does after importing: the run is not the transaction's first write
        connection.execute(update(rating_state).values(rerate_reason="a test"))
        rate_pending(connection, PARAMS, now=NOW, full=True)
    assert every_path == [columnar.JOB_CONNECTION]
    assert stored_changes(rated).equals(changes)


@pytest.mark.postgres
def test_postgresql_refuses_the_second_connection_once_the_job_wrote(
    rated_postgres: Engine, every_path: list[str]
) -> None:
    # SQLite's reader has the caller's word only: there is nothing to ask the database.
    rated = rated_postgres
    with rated.begin() as connection:
        with columnar.reader(connection, fast=True) as reader:
            assert reader.path == columnar.POSTGRESQL_SNAPSHOT
        connection.execute(update(rating_state).values(rerate_reason="a test"))
        with columnar.reader(connection, fast=True) as reader:
            assert reader.path == columnar.JOB_CONNECTION


@pytest.mark.postgres
def test_the_postgresql_reader_sees_the_jobs_snapshot_not_later_commits(
    rated_postgres: Engine,
) -> None:
    rated = rated_postgres
    probe = Table("snapshot_probe", MetaData(), Column("id", Integer, primary_key=True))
    probe.create(rated)
    try:
        with rated.begin() as job, columnar.reader(job, fast=True) as reader:
            assert reader.path == columnar.POSTGRESQL_SNAPSHOT
            with rated.begin() as other:
                other.execute(probe.insert().values(id=1))
            count = select(func.count().label("n")).select_from(probe)
            assert reader.read(count, {"n": pl.Int64})["n"].item() == 0
            with rated.connect() as other:
                assert other.execute(count).scalar_one() == 1
    finally:
        probe.drop(rated)


def test_the_second_connection_falls_back_to_the_job_connection_when_it_cannot_read(
    rated: Engine,
) -> None:
    with rated.begin() as job, columnar.reader(job, fast=True) as reader:
        assert reader.path == second_connection(rated)
        # A temporary table lives in the job's connection only: the second one cannot read it.
        job.exec_driver_sql("CREATE TEMPORARY TABLE only_here (id integer)")
        job.exec_driver_sql("INSERT INTO only_here VALUES (7)")
        only_here = Table("only_here", MetaData(), Column("id", Integer))
        assert reader.read(select(only_here.c.id), {"id": pl.Int64})["id"].to_list() == [7]
        assert reader.fallbacks == 1
        counted = reader.read(
            select(func.count().label("n")).select_from(rating_changes), {"n": pl.Int64}
        )
        assert counted["n"].item() == stored_changes(rated).height


def test_replace_all_empties_the_table_at_once_and_builds_the_index_again(
    rated: Engine, every_path: list[str]
) -> None:
    changes = stored_changes(rated)
    statements: list[str] = []

    def seen(_c: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        statements.append(" ".join(statement.split()))

    event.listen(rated, "before_cursor_execute", seen)
    try:
        with rated.begin() as connection:
            whole_table.replace_all(connection, rating_changes, changes)
    finally:
        event.remove(rated, "before_cursor_execute", seen)
    emptied = (
        "TRUNCATE rating_changes"
        if rated.dialect.name == "postgresql"
        else "DELETE FROM rating_changes"
    )
    assert emptied in statements
    assert "DROP INDEX ix_rating_changes_player_seq" in statements
    assert stored_changes(rated).equals(changes)
    assert index_names(rated) >= {"ix_rating_changes_player_seq"}
    # PostgreSQL's write drops the primary key too; it is back, and it holds.
    key = inspect(rated).get_pk_constraint("rating_changes")
    assert key["constrained_columns"] == ["seq", "player_id"]
    with pytest.raises(IntegrityError), rated.begin() as connection:
        connection.execute(rating_changes.insert().values(changes.head(1).to_dicts()[0]))


def test_replace_all_writes_rows_given_in_any_order_in_key_order(
    rated: Engine, every_path: list[str]
) -> None:
    # named as the table's columns, as a write takes them
    kept = stored_totals(rated).rename({"player": "player_id"})
    with rated.begin() as connection:
        whole_table.replace_all(connection, player_totals, kept.reverse())
    assert stored_totals(rated).rename({"player": "player_id"}).equals(kept)
    assert whole_table._in_key_order(player_totals, kept.reverse()).equals(kept)


def test_sqlites_emptying_leaves_secure_delete_as_the_connection_had_it(
    rated_sqlite: Engine, every_path: list[str]
) -> None:
    changes = stored_changes(rated_sqlite)
    for setting in (1, 0):
        with rated_sqlite.begin() as connection:
            connection.exec_driver_sql(f"PRAGMA secure_delete = {setting}")
            whole_table.replace_all(connection, rating_changes, changes)
            assert connection.exec_driver_sql("PRAGMA secure_delete").scalar() == setting
    assert stored_changes(rated_sqlite).equals(changes)


@pytest.mark.parametrize("spread", [1, 10**9])
def test_the_players_of_a_window_are_found_as_sorting_would_find_them(spread: int) -> None:
    rng = np.random.default_rng(7)
    window = rng.integers(1, 5_000, 40_000) * spread
    previous = np.unique(rng.integers(1, 9_000, 3_000)) * spread
    players, dense = _players(window, previous)
    expected = np.unique(np.concatenate([window, previous]))
    assert np.array_equal(players, expected)
    assert np.array_equal(dense, np.searchsorted(expected, window))
    assert dense.dtype == np.int64
    empty, none = _players(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
    assert empty.size == 0
    assert none.size == 0


def test_sqlites_full_rerating_copies_a_rows_file_written_beside_it_without_sorting(
    rated_sqlite: Engine, every_path: list[str]
) -> None:
    changes, kept = stored_changes(rated_sqlite), stored_totals(rated_sqlite)
    statements: list[str] = []

    def seen(_c: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        statements.append(" ".join(statement.split()))

    event.listen(rated_sqlite, "before_cursor_execute", seen)
    try:
        run_ratings(rated_sqlite, PARAMS, now=NOW, full=True)
    finally:
        event.remove(rated_sqlite, "before_cursor_execute", seen)
    copied = [s for s in statements if s.startswith("INSERT INTO main.rating_changes SELECT *")]
    assert len(copied) == 1
    assert not [s for s in statements if s.startswith("CREATE INDEX ix_rating_changes")]
    assert stored_changes(rated_sqlite).equals(changes)
    assert stored_totals(rated_sqlite).equals(kept)
    with rated_sqlite.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA integrity_check").scalar() == "ok"
        # the index came with the rows and answers by itself
        by_player = connection.exec_driver_sql(
            "SELECT count(*) FROM rating_changes INDEXED BY ix_rating_changes_player_seq "
            "WHERE player_id >= 0"
        ).scalar()
    assert by_player == changes.height


def test_a_staged_rows_file_that_does_not_hold_the_rows_is_not_used(
    rated_sqlite: Engine, every_path: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    changes = stored_changes(rated_sqlite)
    other = changes.with_columns(pl.col("games") + 1)
    with rated_sqlite.begin() as connection, whole_table.staged(connection, rating_changes, other):
        whole_table.replace_all(connection, rating_changes, changes)
    assert stored_changes(rated_sqlite).equals(changes)

    def failing(self: Any, *_args: Any) -> None:
        self._error = RuntimeError("disk full")

    monkeypatch.setattr(whole_table._RowsFile, "_write", failing)
    with (
        rated_sqlite.begin() as connection,
        whole_table.staged(connection, rating_changes, changes),
    ):
        whole_table.replace_all(connection, rating_changes, changes.reverse())
    assert stored_changes(rated_sqlite).equals(changes)
    with rated_sqlite.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA integrity_check").scalar() == "ok"


def test_sqlites_written_rows_file_is_detached_when_the_connection_returns_to_the_pool(
    rated_sqlite: Engine, every_path: list[str]
) -> None:
    changes = stored_changes(rated_sqlite)
    with rated_sqlite.begin() as connection:
        whole_table.replace_all(connection, rating_changes, changes)
        attached = connection.exec_driver_sql("PRAGMA database_list").all()
        # the rows came through a database of their own, attached for the copy
        assert any(str(row[1]).startswith(rows_file.ATTACHED) for row in attached)
        used = connection.connection.dbapi_connection
    with rated_sqlite.connect() as connection:
        assert connection.connection.dbapi_connection is used  # the same one, from the pool
        names = [str(row[1]) for row in connection.exec_driver_sql("PRAGMA database_list")]
    assert not [name for name in names if name.startswith(rows_file.ATTACHED)]
    assert stored_changes(rated_sqlite).equals(changes)


def test_an_emptied_table_comes_back_when_the_transaction_rolls_back(rated: Engine) -> None:
    changes = stored_changes(rated)
    with rated.connect() as connection:
        transaction = connection.begin()
        whole_table.replace_all(connection, rating_changes, changes.head(0))
        assert connection.execute(select(func.count()).select_from(rating_changes)).scalar() == 0
        transaction.rollback()
    assert stored_changes(rated).equals(changes)


KILLED_IN_THE_WRITE = """
import os, signal, sys
from datetime import UTC, date, datetime, timedelta
from jobs.rating import run_ratings
from ratings.formula import MeloParams
from ratings.storage.bulk import columnar, indexes, whole_table, writes
from ratings.storage.database import open_engine

columnar.FAST_READ_FROM = 0
indexes.REBUILD_INDEXES_FROM = 0


def killed(*_args, **_kwargs):
    # The table is emptied and its index dropped: the job dies in the middle of the write.
    os.kill(os.getpid(), signal.SIGKILL)


whole_table._copy_binary = killed
whole_table._insert_attached = killed
whole_table._copy_staged = killed
writes.insert_rows = killed
run_ratings(open_engine(sys.argv[1]), MeloParams(), now=datetime(2026, 11, 1, tzinfo=UTC),
            full=True)
"""


@pytest.mark.slow
def test_a_full_rerating_killed_in_its_write_leaves_the_database_as_it_was(
    rated: Engine, database_url: str
) -> None:
    changes, kept = stored_changes(rated), stored_totals(rated)
    rated.dispose()
    killed = subprocess.run(
        [sys.executable, "-c", KILLED_IN_THE_WRITE, database_url],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    engine = open_engine(database_url)
    try:
        assert stored_changes(engine).equals(changes)
        assert stored_totals(engine).equals(kept)
        assert index_names(engine) >= {"ix_rating_changes_player_seq"}
        run_ratings(engine, PARAMS, now=NOW, full=True)
        assert stored_changes(engine).equals(changes)
    finally:
        engine.dispose()


def test_the_sqlite_reading_process_opens_a_path_with_uri_characters(tmp_path: Path) -> None:
    folder = tmp_path / "a b%20#c?d"
    folder.mkdir()
    engine = open_engine(f"sqlite:///{folder / 'ratings.sqlite'}")
    try:
        rate_history(engine, folder)
        with engine.begin() as job, columnar.reader(job, fast=True) as reader:
            counted = reader.read(
                select(func.count().label("n")).select_from(rating_changes), {"n": pl.Int64}
            )
            # read by the process, not by the fallback
            assert reader.path == columnar.SQLITE_PROCESS
            assert reader.fallbacks == 0
        assert counted["n"].item() == stored_changes(engine).height > 0
    finally:
        engine.dispose()


def test_totals_counted_along_arrays_are_the_grouped_totals() -> None:
    rng = np.random.default_rng(11)
    positions = np.arange(5, 405, dtype=np.int64)
    ends = pl.DataFrame(
        {
            "seq": positions,
            "end_date": pl.date_range(date(2020, 1, 1), date(2021, 2, 3), eager=True),
        }
    )
    seq = np.sort(rng.choice(positions, 6_000))
    player = rng.integers(1, 700, seq.size) * 3
    changes = pl.DataFrame(
        {"player": player, "seq": seq, "games": rng.integers(0, 4, seq.size),
         "rating_after": rng.integers(0, 10**14, seq.size)}
    ).unique(["player", "seq"], maintain_order=True)  # fmt: skip
    counted = totals.aggregate_arrays(
        *(changes[name].to_numpy() for name in ("player", "seq", "games", "rating_after")),
        ends,
    )
    grouped = totals.aggregate(changes.join(ends, on="seq")).sort("player")
    assert counted is not None
    assert counted.filter(pl.col("last_played").is_null()).height > 0
    assert counted.equals(grouped)
    # A change whose position is not among the ends: the caller aggregates as usual.
    assert (
        totals.aggregate_arrays(np.array([3]), np.array([2]), np.array([1]), np.array([9]), ends)
        is None
    )


@pytest.mark.parametrize("spread", [1, 10**9])
def test_a_window_is_arranged_the_same_whatever_order_its_results_come_in(spread: int) -> None:
    rng = np.random.default_rng(5)
    ids = np.arange(1, 301, dtype=np.int64) * spread
    events = pl.DataFrame({"id": ids, "tier": rng.choice(["regular", "national"], ids.size)})
    rows = (
        pl.DataFrame(
            {"tournament_id": rng.choice(ids, 5_000), "player": rng.integers(1, 400, 5_000)}
        )
        .unique(maintain_order=True)
        .with_columns(
            wins=pl.int_range(pl.len()) % 3, draws=pl.int_range(pl.len()) % 2,
            losses=pl.int_range(pl.len()) % 4, buchholz=pl.int_range(pl.len()) * 7,
            grandmaster=(pl.col("player") % 50) == 0,
        )
    )  # fmt: skip
    ordered = rows.sort("tournament_id", "player")
    # the reverse of the rating order, and results of a tournament outside the window
    events = events.reverse()
    stray = ordered.head(3).with_columns(tournament_id=pl.lit(10**12))
    one = _arrange(events, ordered, PARAMS)
    other = _arrange(events, pl.concat([stray, rows.sample(fraction=1.0, seed=3)]), PARAMS)
    for field in ("tournament_ids", "player_ids", "offsets", "k", "wins", "buchholz"):
        assert np.array_equal(getattr(one, field), getattr(other, field))
    assert one.offsets[-1] == rows.height
    assert np.array_equal(one.tournament_ids[one.offsets[:-1][np.diff(one.offsets) > 0]],
                          events["id"].to_numpy()[np.diff(one.offsets) > 0])  # fmt: skip
