"""A large first import on SQLite writes without checking its foreign keys row by row, and checks
every key once before its commit."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import polars as pl
import pytest
from sqlalchemy import insert, inspect
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError, OperationalError

from ratings.storage import bulk
from ratings.storage.bulk import keys_checked_once
from ratings.storage.schema import players, results, tournaments

NOW = datetime(2026, 11, 1, tzinfo=UTC)


def _foreign_keys(engine: Engine) -> int:
    with engine.connect() as connection:
        return int(connection.exec_driver_sql("PRAGMA foreign_keys").scalar_one())


def _add(engine: Engine, player: int, large: bool) -> None:
    with (
        engine.connect() as connection,
        keys_checked_once(connection, large, [players, tournaments, results]) as check,
        connection.begin(),
    ):
        connection.execute(
            insert(players).values(id=1, federation_id="1", name="A", name_key="a", created_at=NOW)
        )
        connection.execute(
            insert(tournaments).values(
                id=1, key="T", name="T", start_date=NOW.date(), end_date=NOW.date(),
                tier="regular", status="pending", imported_at=NOW, imported_by="test",
                source_name="t.csv", source_hash="0", source_format="csv",
            )
        )  # fmt: skip
        connection.execute(
            insert(results).values(
                tournament_id=1, player_id=player, wins=0, draws=0, losses=0, buchholz=0
            )
        )
        check()


@pytest.mark.parametrize("large", [True, False])
def test_a_broken_key_is_refused_and_nothing_is_written(sqlite_engine: Engine, large: bool) -> None:
    with pytest.raises(IntegrityError, match="FOREIGN KEY constraint failed"):
        _add(sqlite_engine, player=2, large=large)
    with sqlite_engine.connect() as connection:
        assert connection.exec_driver_sql("SELECT count(*) FROM players").scalar_one() == 0
    assert _foreign_keys(sqlite_engine) == 1


def test_keys_that_hold_are_written(sqlite_engine: Engine) -> None:
    _add(sqlite_engine, player=1, large=True)
    with sqlite_engine.connect() as connection:
        assert connection.exec_driver_sql("SELECT count(*) FROM results").scalar_one() == 1
    assert _foreign_keys(sqlite_engine) == 1


def _players(count: int, start: int = 1) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "id": pl.int_range(start, start + count, eager=True),
            "federation_id": [f"F{i}" for i in range(start, start + count)],
            "name": [f"Player {i}" for i in range(start, start + count)],
            "name_key": [f"player {i}" for i in range(start, start + count)],
            "created_at": [datetime(2026, 1, 1, tzinfo=UTC)] * count,
        }
    )


def test_a_write_that_grows_a_table_much_gives_the_planner_its_size(engine: Engine) -> None:
    """Below ANALYZE_FROM rows a write leaves the statistics alone; a write of more that adds a
    tenth or more of what the planner knows of has the table analysed at once (the planner then
    knows every row); a write of less than a tenth of them leaves them as they were."""
    few = bulk.ANALYZE_FROM - 1
    with engine.begin() as connection:
        bulk.insert_frame(connection, players, _players(few))
        assert bulk.planned_rows(connection, players) == 0
        bulk.insert_frame(connection, players, _players(bulk.ANALYZE_FROM, few + 1))
        # SQLite estimates from a sample (``SQLITE_ANALYSIS_ROWS``).
        assert bulk.planned_rows(connection, players) == pytest.approx(
            few + bulk.ANALYZE_FROM, rel=0.2
        )
    # Ten times as many, then a write of less than a tenth of them: not analysed again.
    with engine.begin() as connection:
        held = few + bulk.ANALYZE_FROM
        bulk.insert_frame(connection, players, _players(9 * held, held + 1))
        known = bulk.planned_rows(connection, players)
        assert known == pytest.approx(10 * held, rel=0.2)
        bulk.insert_frame(connection, players, _players(bulk.ANALYZE_FROM, 10 * held + 1))
        assert bulk.planned_rows(connection, players) == known


@pytest.mark.parametrize(("stamped", "rebuilt_from"), [(3, None), (12, None), (12, 10)])
def test_stamping_tournaments_rated_analyses_them_once(
    engine: Engine, monkeypatch: pytest.MonkeyPatch, stamped: int, rebuilt_from: int | None
) -> None:
    """A run that stamps tournaments rated has their statistics refreshed once: after their
    indexes are built again when the update is most of them and large (PostgreSQL), by the
    update when it is large against the table (a full re-rating), else after it."""
    from ratings.storage import changes
    from ratings.storage.bulk import indexes

    monkeypatch.setattr(indexes, "ANALYZE_FROM", 10)
    if rebuilt_from is not None:
        monkeypatch.setattr(indexes, "REBUILD_INDEXES_FROM", rebuilt_from)
    analysed: list[str] = []
    real = indexes.analyze

    def counted(connection: object, table: str) -> None:
        analysed.append(table)
        real(connection, table)  # type: ignore[arg-type]

    monkeypatch.setattr(indexes, "analyze", counted)
    monkeypatch.setattr(changes, "analyze", counted)
    with engine.begin() as connection:
        for number in range(1, 13):
            connection.execute(
                insert(tournaments).values(
                    id=number, key=f"T{number}", name="T", start_date=NOW.date(),
                    end_date=NOW.date(), tier="regular", status="pending", imported_at=NOW,
                    imported_by="test", source_name="t.csv", source_hash="0",
                    source_format="csv",
                )
            )  # fmt: skip
        rated = pl.DataFrame(
            {
                "id": range(1, stamped + 1),
                "seq": range(1, stamped + 1),
                "k": [16] * stamped,
                "m_avg": [1000] * stamped,
                "b_avg": [0] * stamped,
            }
        )
        changes.mark_rated(connection, rated, NOW, changes.held_stamps(connection))
        statuses = connection.exec_driver_sql("SELECT status FROM tournaments").scalars().all()
    assert statuses.count("rated") == stamped
    assert analysed.count("tournaments") == 1


def _key_of(connection: Any, table: str) -> list[str]:
    return list(inspect(connection).get_pk_constraint(table)["constrained_columns"])


@pytest.mark.parametrize("twice", [False, True])
def test_a_large_write_drops_the_results_key_and_checks_it_again(
    engine: Engine, monkeypatch: pytest.MonkeyPatch, twice: bool
) -> None:
    """A large write into the results (an import's) goes in without their primary key (the
    tournament and the player) on PostgreSQL, which is added back after it and checks every key
    again: a player twice in a tournament is refused and nothing is written. A table another
    refers to (the players) keeps its key, and so does every SQLite table, a table without rowid
    being its key."""
    from ratings.storage.bulk import indexes

    monkeypatch.setattr(indexes, "REBUILD_INDEXES_FROM", 0)
    _add(engine, player=1, large=False)
    with engine.begin() as connection:
        for number in (2, 3):
            connection.execute(
                insert(players).values(
                    id=number, federation_id=str(number), name="B", name_key="b", created_at=NOW
                )
            )
    postgresql = engine.dialect.name == "postgresql"
    seen: dict[str, list[str]] = {}
    rows = {"tournament_id": 1, "wins": 0, "draws": 0, "losses": 0, "buchholz": 0}

    def write() -> None:
        with (
            engine.begin() as connection,
            indexes.indexes_rebuilt(connection, results, rows=10, key=True) as rebuilt,
            indexes.primary_key_rebuilt(connection, players),
        ):
            assert rebuilt
            seen["results"] = _key_of(connection, "results")
            seen["players"] = _key_of(connection, "players")
            connection.execute(insert(results).values(player_id=2, **rows))
            if twice:
                connection.execute(insert(results).values(player_id=2, line=9, **rows))

    key = ["tournament_id", "player_id"]
    if twice and postgresql:
        with pytest.raises(IntegrityError, match="pk_results"):
            write()
    elif twice:
        with pytest.raises(
            IntegrityError,
            match=r"UNIQUE constraint failed: results\.tournament_id, results\.player_id",
        ):
            write()
    else:
        write()
    assert seen == {"results": [] if postgresql else key, "players": ["id"]}
    with engine.connect() as connection:
        assert _key_of(connection, "results") == key
        stored = connection.exec_driver_sql("SELECT player_id FROM results").scalars().all()
    assert sorted(stored) == ([1] if twice else [1, 2])


@pytest.mark.parametrize(
    ("held", "rows", "rebuilt"), [(0, 10, True), (0, 4, False), (1, 10, False), (0, 120, True)]
)
def test_a_write_into_an_empty_table_builds_its_indexes_after_the_rows(
    engine: Engine, monkeypatch: pytest.MonkeyPatch, held: int, rows: int, rebuilt: bool
) -> None:
    """A write of at least ``REBUILD_EMPTY_FROM`` rows into an empty table (a history's first
    players and tournaments) drops the secondary indexes and builds them after the rows, as a
    write as large as the table does from ``REBUILD_INDEXES_FROM`` rows; a smaller write, or one
    into a table holding rows below that size, goes into the indexes."""
    from ratings.storage.bulk import indexes

    monkeypatch.setattr(indexes, "REBUILD_EMPTY_FROM", 5)
    monkeypatch.setattr(indexes, "REBUILD_INDEXES_FROM", 100)
    with engine.begin() as connection:
        for number in range(1, held + 1):
            connection.execute(
                insert(players).values(
                    id=number, federation_id=str(number), name="A", name_key="a", created_at=NOW
                )
            )
    with engine.begin() as connection, indexes.indexes_rebuilt(connection, players, rows) as done:
        inside = {i["name"] for i in inspect(connection).get_indexes("players")}
    assert done is rebuilt
    assert ("ix_players_name_key" not in inside) is rebuilt
    with engine.connect() as connection:
        after = {i["name"] for i in inspect(connection).get_indexes("players")}
    assert "ix_players_name_key" in after


@pytest.fixture
def postgres_engine(postgres_url: str) -> Iterator[Engine]:
    from ratings.storage.database import open_engine

    engine = open_engine(postgres_url)
    yield engine
    engine.dispose()


def _next_id(connection: Connection) -> int:
    return int(connection.exec_driver_sql("SELECT nextval('players_id_seq')").scalar_one())


@pytest.mark.postgres
def test_a_run_of_ids_is_taken_at_once_and_held_from_other_writers(
    postgres_engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run of ids is taken from a table's sequence in one step, from a sequence never used as
    from one in use; the next id the sequence gives follows the run, and no other writer gets
    one until the transaction ends. A rollback gives back the step and the ids taken (``ALTER
    SEQUENCE`` makes the sequence's changes part of the transaction)."""
    from ratings.storage.bulk import reserve_ids, writes

    monkeypatch.setattr(writes, "RUN_FROM", 1)

    def first(connection: Connection, count: int) -> int:
        ids = reserve_ids(connection, players, count).to_list()
        assert ids == list(range(ids[0], ids[0] + count))
        return int(ids[0])

    with postgres_engine.begin() as connection:
        assert first(connection, 5) == 1
        with postgres_engine.connect() as other:
            other.exec_driver_sql("SET lock_timeout = '200ms'")
            with pytest.raises(OperationalError, match="lock timeout"):
                _next_id(other)
        assert _next_id(connection) == 6
        assert first(connection, 3) == 7
    with postgres_engine.begin() as connection:
        assert _next_id(connection) == 10
        assert first(connection, 4) == 11
        connection.rollback()
    with postgres_engine.connect() as connection:
        step = connection.exec_driver_sql(
            "SELECT increment_by FROM pg_sequences WHERE sequencename = 'players_id_seq'"
        ).scalar_one()
        assert step == 1
        assert _next_id(connection) == 11


@pytest.mark.postgres
@pytest.mark.parametrize("count", [2, 3])
def test_many_ids_are_taken_as_one_run_and_few_one_by_one(
    postgres_engine: Engine, monkeypatch: pytest.MonkeyPatch, count: int
) -> None:
    """From ``RUN_FROM`` ids on, ``reserve_ids`` takes them as one run, which holds the
    sequence from other writers until the transaction ends; fewer are taken one by one, and
    another writer goes on meanwhile. Either way the ids are fresh and follow each other."""
    from ratings.storage.bulk import reserve_ids, writes

    monkeypatch.setattr(writes, "RUN_FROM", 3)
    with postgres_engine.begin() as connection:
        ids = reserve_ids(connection, players, count).to_list()
        with postgres_engine.connect() as other:
            other.exec_driver_sql("SET lock_timeout = '200ms'")
            if count >= 3:
                with pytest.raises(OperationalError, match="lock timeout"):
                    _next_id(other)
            else:
                assert _next_id(other) == count + 1
                other.commit()
    assert ids == list(range(1, count + 1))
    with postgres_engine.connect() as connection:
        assert _next_id(connection) == (count + 1 if count >= 3 else count + 2)


@pytest.mark.parametrize("through_file", [True, False], ids=["rows file", "driver"])
def test_a_main_tables_rows_are_stored_alike_through_a_rows_file_or_the_driver(
    sqlite_engine: Engine, monkeypatch: pytest.MonkeyPatch, through_file: bool
) -> None:
    """SQLite writes a write of ``ROWS_FILE_FROM`` rows or more into one of its own tables
    (players, tournaments) through a rows file, a smaller one through the driver; either way
    every value is stored as given: names beyond ASCII, dates, times, empty cells."""
    from ratings.storage.bulk import rows_file, writes

    monkeypatch.setattr(writes, "ROWS_FILE_FROM", 3 if through_file else 4)
    attached: list[int] = []
    insert_attached = rows_file.insert_attached

    def counted(connection: Connection, table: Any, frame: pl.DataFrame) -> None:
        attached.append(frame.height)
        insert_attached(connection, table, frame)

    monkeypatch.setattr(writes, "insert_attached", counted)
    frame = pl.DataFrame(
        {
            "id": [1, 2, 3],
            "federation_id": ["F1", "F2", "F3"],
            "name": ["Łucja Żak", "Ødegård, Åse", "O'Neill"],
            "name_key": ["lucja zak", "odegard ase", "o neill"],
            "country": ["POL", None, "IRL"],
            "club": [None, "Bergen SK", ""],
            "first_seen": [NOW.date(), None, datetime(2019, 2, 28).date()],
            "created_at": [NOW, NOW, NOW],
        }
    )
    with sqlite_engine.begin() as connection:
        bulk.insert_frame(connection, players, frame, main=True)
    assert attached == ([3] if through_file else [])
    with sqlite_engine.connect() as connection:
        stored = connection.exec_driver_sql(
            "SELECT id, federation_id, name, name_key, country, club, first_seen, created_at "
            "FROM players ORDER BY id"
        ).all()
    assert [tuple(row) for row in stored] == [
        (1, "F1", "Łucja Żak", "lucja zak", "POL", None, "2026-11-01", NOW.isoformat(" ")),
        (2, "F2", "Ødegård, Åse", "odegard ase", None, "Bergen SK", None, NOW.isoformat(" ")),
        (3, "F3", "O'Neill", "o neill", "IRL", "", "2019-02-28", NOW.isoformat(" ")),
    ]
