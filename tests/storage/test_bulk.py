"""A large first import on SQLite writes without checking its foreign keys row by row, and checks
every key once before its commit."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import insert
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError

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
