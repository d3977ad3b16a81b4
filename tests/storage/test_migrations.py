"""The migrations build exactly the schema the code declares, on every backend."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect, text
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError, OperationalError

from jobs.players import unmerge_player
from ratings.errors import UnrecordedMergeError
from ratings.names import name_key
from ratings.storage import list_pages, players
from ratings.storage.bulk import indexes
from ratings.storage.database import (
    _config,
    current,
    head,
    is_current,
    newest_known,
    open_engine,
    upgrade,
)
from ratings.storage.schema import compared_on, metadata, results

# What the migrations themselves build, each time: no schema copied from a template.
pytestmark = pytest.mark.real_migrations


def downgrade(engine: Engine, revision: str) -> None:
    """Migrate the database down to ``revision``, as ``alembic downgrade`` does."""
    config = _config()
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, revision)


def test_migrations_match_the_declared_schema(engine: Engine) -> None:
    assert current(engine) == head()
    with engine.connect() as connection:
        context = MigrationContext.configure(
            connection, opts={"include_object": compared_on(connection.dialect.name)}
        )
        differences = compare_metadata(context, metadata)
    assert differences == []


def test_the_newest_revision_by_file_name_is_alembics_head() -> None:
    # Every command checks the schema by the newest migration's file name, not loading alembic.
    assert newest_known() == head()


def test_a_database_behind_the_newest_revision_is_not_current(engine: Engine) -> None:
    assert is_current(engine)
    downgrade(engine, "0018")
    assert not is_current(engine)
    engine.dispose()
    upgrade(engine)
    assert is_current(engine)


def test_opening_an_empty_database_creates_the_schema(database_url: str) -> None:
    engine = open_engine(database_url, upgrade_schema=False)
    assert current(engine) is None
    engine.dispose()
    engine = open_engine(database_url)
    assert current(engine) == head()
    engine.dispose()


def test_0004_and_0005_keep_every_rating_change_and_list_entry(database_url: str) -> None:
    engine = open_engine(database_url, upgrade_schema=False)
    upgrade(engine, "0003")
    stamp = "2025-01-01 00:00:00"
    with engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO players (id, federation_id, name, name_key, created_at) VALUES "
                "(1, 'P1', 'Ann', 'ann', :t), (2, 'P2', 'Bob', 'bob', :t)"
            ),
            {"t": stamp},
        )
        connection.execute(
            text(
                "INSERT INTO tournaments (id, key, name, start_date, end_date, tier, status, seq,"
                " k, source_name, source_hash, source_format, imported_at, imported_by) VALUES "
                "(7, 'T7', 'Open', '2025-01-01', '2025-01-02', 'regular', 'rated', 0, 5, 'f.csv',"
                " 'h', 'csv', :t, 'me'),"
                "(8, 'T8', 'Cup', '2025-02-01', '2025-02-02', 'regular', 'pending', NULL, NULL,"
                " 'f.csv', 'h', 'csv', :t, 'me')"
            ),
            {"t": stamp},
        )
        connection.execute(
            text(
                "INSERT INTO rating_changes (tournament_id, player_id, seq, games, points_x2, k,"
                " rating_before, rating_after, expected, m_avg, b_avg) VALUES "
                "(7, 1, 0, 3, 4, 5, 10000000000000, 10012345678901, 15000000000,"
                " 10000000000000, 40000000000),"
                "(7, 2, 0, 3, 2, 5, 10000000000000, 9987654321099, 15000000000,"
                " 10000000000000, 40000000000)"
            )
        )
        connection.execute(
            text(
                "INSERT INTO published_lists (id, period, version, cutoff, created_at, created_by,"
                " players, active_players, mean_rating, initial_rating, active_months) VALUES "
                "(1, '2025-01', 1, '2025-01-31', :t, 'me', 2, 2, 10000000000000,"
                " 10000000000000, 24)"
            ),
            {"t": stamp},
        )
        connection.execute(
            text(
                "INSERT INTO list_entries (list_id, player_id, federation_id, name, rating, games,"
                " tournaments, last_played, active) VALUES "
                "(1, 2, 'P2', 'Bob', 9987654321099, 3, 1, '2025-01-02', :yes),"
                "(1, 1, 'P1', 'Ann', 10012345678901, 3, 1, '2025-01-02', :yes)"
            ),
            {"yes": True},
        )
    upgrade(engine)
    assert current(engine) == head()
    with engine.connect() as connection:
        changes = connection.execute(
            text(
                "SELECT seq, player_id, tournament_id, games, rating_before, rating_after,"
                " expected FROM rating_changes ORDER BY seq, player_id"
            )
        ).all()
        averages = connection.execute(
            text("SELECT id, k, m_avg, b_avg FROM tournaments ORDER BY id")
        ).all()
        entries = connection.execute(
            text("SELECT list_id, player_id, name, rating FROM list_entries ORDER BY player_id")
        ).all()
    engine.dispose()
    assert [tuple(r) for r in changes] == [
        (0, 1, 7, 3, 10000000000000, 10012345678901, 15000000000),
        (0, 2, 7, 3, 10000000000000, 9987654321099, 15000000000),
    ]
    assert [tuple(r) for r in averages] == [
        (7, 5, 10000000000000, 40000000000),
        (8, None, None, None),
    ]
    assert [tuple(r) for r in entries] == [
        (1, 1, "Ann", 10012345678901),
        (1, 2, "Bob", 9987654321099),
    ]


def test_players_pages_are_filled_once_no_rating_is_updated_in_them(engine: Engine) -> None:
    """Migration 0005 left room on each page of ``players`` on PostgreSQL for the rating updated
    there by every run; since 0017 the rating is the totals' and the room is given back."""
    if engine.dialect.name != "postgresql":
        assert engine.dialect.name == "sqlite"  # SQLite has no such setting
        return
    with engine.connect() as connection:
        options = connection.execute(
            text("SELECT reloptions FROM pg_class WHERE relname = 'players'")
        ).scalar_one()
    assert not any("fillfactor" in option for option in options or [])


def test_0011_gives_lists_published_before_it_their_search_words(database_url: str) -> None:
    engine = open_engine(database_url, upgrade_schema=False)
    upgrade(engine, "0010")
    with engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO published_lists (id, period, version, cutoff, created_at, created_by,"
                " players, active_players, mean_rating, initial_rating, active_months) VALUES "
                "(1, '2025-01', 1, '2025-01-31', '2025-02-01 00:00:00', 'me', 3, 3,"
                " 10000000000000, 10000000000000, 24)"
            )
        )
        connection.execute(
            text(
                "INSERT INTO list_entries (list_id, player_id, federation_id, name, rating, games,"
                " tournaments, active, name_key, rank, rank_all) VALUES "
                "(1, 1, 'P1', 'Anna HÖLLER', 3, 3, 1, :yes, NULL, 1, 1),"
                "(1, 2, 'P2', 'Dirk van der Berg', 2, 3, 1, :yes, NULL, 2, 2),"
                "(1, 3, 'P3', 'Henri Gauthier', 1, 3, 1, :yes, 'henri gauthier', 3, 3),"
                "(1, 4, 'P4', 'Maria Höller', 0, 3, 1, :no, NULL, NULL, 4)"
            ),
            {"yes": True, "no": False},
        )
    upgrade(engine)
    assert current(engine) == head()

    def found(search: str, everyone: bool = False) -> list[str]:
        query = list_pages.ListQuery(search=name_key(search), everyone=everyone)
        with engine.connect() as connection:
            return sorted(list_pages.list_page(connection, 1, query)["federation_id"].to_list())

    with engine.connect() as connection:
        keys = connection.execute(
            text("SELECT player_id, name_key FROM list_entries ORDER BY player_id")
        ).all()
    assert [tuple(k) for k in keys] == [
        (1, "anna holler"), (2, "dirk van der berg"), (3, "henri gauthier"), (4, "maria holler"),
    ]  # fmt: skip
    assert found("holler") == ["P1"]
    assert found("holler", everyone=True) == ["P1", "P4"]
    assert found("maria holl", everyone=True) == ["P4"]
    assert found("berg") == found("van der berg") == found("vanderb") == ["P2"]
    assert found("aut") == []
    assert found("gauth henri") == ["P3"]
    # Back to 0010 and forward again: the words are dropped with their table and made anew.
    downgrade(engine, "0010")
    assert current(engine) == "0010"
    upgrade(engine)
    assert found("holler") == ["P1"]
    engine.dispose()


def test_0009_keeps_earlier_merges_but_marks_them_as_not_undoable(database_url: str) -> None:
    engine = open_engine(database_url, upgrade_schema=False)
    upgrade(engine, "0008")
    stamp = "2025-01-01 00:00:00"
    with engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO players (id, federation_id, name, name_key, created_at) VALUES "
                "(1, 'P1', 'Ann', 'ann', :t), (2, 'P2', 'Ann B', 'ann b', :t)"
            ),
            {"t": stamp},
        )
        connection.execute(text("UPDATE players SET merged_into = 1 WHERE id = 2"))
        connection.execute(
            text(
                "INSERT INTO player_merges (id, kept_id, duplicate_id, merged_at, merged_by) "
                "VALUES (1, 1, 2, :t, 'me')"
            ),
            {"t": stamp},
        )
    upgrade(engine)
    with engine.connect() as connection:
        row = connection.execute(
            text("SELECT merged_by, results_recorded, undone_at FROM player_merges")
        ).one()
    assert tuple(row) == ("me", None, None)
    with pytest.raises(UnrecordedMergeError, match="cannot be undone"):
        unmerge_player(engine, "P2", by="me", now=datetime(2026, 1, 1, tzinfo=UTC))
    # And back down: the merge stays, the new tables go.
    downgrade(engine, "0008")
    assert current(engine) == "0008"
    with engine.connect() as connection:
        assert connection.execute(text("SELECT count(*) FROM player_merges")).scalar_one() == 1
    engine.dispose()


def test_0010_fills_the_totals_from_the_rating_changes(database_url: str) -> None:
    engine = open_engine(database_url, upgrade_schema=False)
    upgrade(engine, "0009")
    stamp = "2025-01-01 00:00:00"
    with engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO players (id, federation_id, name, name_key, created_at) VALUES "
                "(1, 'P1', 'Ann', 'ann', :t), (2, 'P2', 'Bob', 'bob', :t),"
                " (3, 'P3', 'Cy', 'cy', :t)"
            ),
            {"t": stamp},
        )
        connection.execute(
            text(
                "INSERT INTO tournaments (id, key, name, start_date, end_date, tier, status, seq,"
                " k, source_name, source_hash, source_format, imported_at, imported_by) VALUES "
                "(7, 'T7', 'Open', '2025-01-01', '2025-01-02', 'regular', 'rated', 0, 5, 'f.csv',"
                " 'h', 'csv', :t, 'me'),"
                "(8, 'T8', 'Cup', '2025-02-01', '2025-02-03', 'regular', 'rated', 1, 5, 'f.csv',"
                " 'h', 'csv', :t, 'me')"
            ),
            {"t": stamp},
        )
        # Ann plays both; Bob plays the first and only sits out the second (no games).
        connection.execute(
            text(
                "INSERT INTO rating_changes (seq, player_id, tournament_id, games, rating_before,"
                " rating_after, expected) VALUES "
                "(0, 1, 7, 3, 10000000000000, 10012345678901, 15000000000),"
                "(0, 2, 7, 3, 10000000000000, 9987654321099, 15000000000),"
                "(1, 1, 8, 2, 10012345678901, 10020000000000, 10000000000),"
                "(1, 2, 8, 0, 9987654321099, 9987654321099, 0)"
            )
        )
    upgrade(engine)
    with engine.connect() as connection:
        rows = connection.execute(
            text(
                "SELECT player_id, changes, games, tournaments, last_played, rating"
                " FROM player_totals ORDER BY player_id"
            )
        ).all()
    engine.dispose()
    assert [(r[0], r[1], r[2], r[3], str(r[4]), r[5]) for r in rows] == [
        (1, 2, 5, 2, "2025-02-03", 10020000000000),
        (2, 2, 3, 1, "2025-01-02", 9987654321099),
    ]


def test_0012_moves_the_search_words_of_earlier_lists_to_their_names(database_url: str) -> None:
    engine = open_engine(database_url, upgrade_schema=False)
    upgrade(engine, "0011")
    with engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO published_lists (id, period, version, cutoff, created_at, created_by,"
                " players, active_players, mean_rating, initial_rating, active_months) VALUES "
                "(1, '2025-01', 1, '2025-01-31', '2025-02-01 00:00:00', 'me', 3, 2,"
                " 10000000000000, 10000000000000, 24),"
                "(2, '2025-02', 1, '2025-02-28', '2025-03-01 00:00:00', 'me', 2, 2,"
                " 10000000000000, 10000000000000, 24)"
            )
        )
        connection.execute(
            text(
                "INSERT INTO list_entries (list_id, player_id, federation_id, name, rating, games,"
                " tournaments, active, name_key, rank, rank_all) VALUES "
                "(1, 1, 'P1', 'Anna HÖLLER', 3, 3, 1, :yes, 'anna holler', 1, 1),"
                "(1, 2, 'P2', 'Dirk van der Berg', 2, 3, 1, :yes, 'dirk van der berg', 2, 2),"
                "(1, 4, 'P4', 'Maria Höller', 0, 3, 1, :no, 'maria holler', NULL, 3),"
                # The same player renamed on the next list, and a name both lists print.
                "(2, 1, 'P1', 'Anna Gauthier', 3, 3, 1, :yes, 'anna gauthier', 1, 1),"
                "(2, 2, 'P2', 'Dirk van der Berg', 2, 3, 1, :yes, 'dirk van der berg', 2, 2)"
            ),
            {"yes": True, "no": False},
        )
    upgrade(engine)
    assert current(engine) == head()

    def found(list_id: int, search: str, everyone: bool = False) -> list[str]:
        query = list_pages.ListQuery(search=name_key(search), everyone=everyone)
        with engine.connect() as connection:
            return sorted(
                list_pages.list_page(connection, list_id, query)["federation_id"].to_list()
            )

    def searches() -> None:
        # Each list is found by the names it printed.
        assert found(1, "holler") == ["P1"]
        assert found(1, "holler", everyone=True) == ["P1", "P4"]
        assert found(1, "maria holl", everyone=True) == ["P4"]
        assert found(1, "berg") == found(1, "van der berg") == found(1, "vanderb") == ["P2"]
        assert found(1, "gauth") == []
        assert found(2, "gauth") == ["P1"]
        assert found(2, "holler", everyone=True) == []
        assert found(2, "dirk") == ["P2"]

    searches()
    with engine.connect() as connection:
        names = connection.execute(text("SELECT name FROM list_names ORDER BY name")).scalars()
        assert list(names) == ["Anna Gauthier", "Anna HÖLLER", "Dirk van der Berg", "Maria Höller"]
        pointing = connection.execute(
            text("SELECT count(*) FROM list_entries WHERE name_id IS NULL")
        ).scalar_one()
    assert pointing == 0
    # Back to 0011: the words are each entry's again, and the searches find the same.
    downgrade(engine, "0011")
    assert current(engine) == "0011"
    with engine.connect() as connection:
        words = connection.execute(
            text("SELECT word FROM list_words WHERE list_id = 1 AND player_id = 2 ORDER BY word")
        ).scalars()
        assert list(words) == ["berg", "der", "dirk", "van", "vanderberg"]
    upgrade(engine)
    searches()
    engine.dispose()


def _partitions(engine: Engine) -> list[str]:
    """The tables holding ``list_entries``' rows on PostgreSQL, by name."""
    with engine.connect() as connection:
        rows = connection.execute(
            text(
                "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid"
                " WHERE i.inhparent = 'list_entries'::regclass ORDER BY 1"
            )
        )
        return list(rows.scalars())


def test_0014_keeps_every_list_entry_in_a_partition_on_postgresql(database_url: str) -> None:
    engine = open_engine(database_url, upgrade_schema=False)
    upgrade(engine, "0012")
    with engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO published_lists (id, period, version, cutoff, created_at, created_by,"
                " players, active_players, mean_rating, initial_rating, active_months) VALUES "
                "(1, '2025-01', 1, '2025-01-31', '2025-02-01 00:00:00', 'me', 2, 1,"
                " 10000000000000, 10000000000000, 24),"
                "(2, '2025-02', 1, '2025-02-28', '2025-03-01 00:00:00', 'me', 1, 1,"
                " 10000000000000, 10000000000000, 24)"
            )
        )
        connection.execute(
            text(
                "INSERT INTO list_entries (list_id, player_id, federation_id, name, rating, games,"
                " tournaments, active, name_key, rank, rank_all) VALUES "
                "(1, 1, 'P1', 'Ann', 3, 3, 1, :yes, 'ann', 1, 1),"
                "(1, 2, 'P2', 'Bob', 2, 3, 1, :no, 'bob', NULL, 2),"
                "(2, 1, 'P1', 'Ann', 4, 5, 2, :yes, 'ann', 1, 1)"
            ),
            {"yes": True, "no": False},
        )
    upgrade(engine, "0014")
    postgresql = engine.dialect.name == "postgresql"
    if postgresql:
        # The lists before the revision stay in their table, now one partition of all of them.
        assert _partitions(engine) == ["entries_before"]
    upgrade(engine)
    if postgresql:
        # Revision 0016 gives each list a table of its own, and the texts a page is ordered by
        # compare by code point, as on SQLite.
        assert _partitions(engine) == ["entries_1", "entries_2"]
        with engine.connect() as connection:
            collations = connection.execute(
                text(
                    "SELECT column_name, collation_name FROM information_schema.columns"
                    " WHERE table_name = 'list_entries' AND collation_name IS NOT NULL"
                    " ORDER BY 1"
                )
            ).all()
            country = connection.execute(
                text("SELECT indexdef FROM pg_indexes WHERE indexname = 'entries_1_country'")
            ).scalar_one()
        assert [tuple(row) for row in collations] == [
            ("country", "C"), ("name_key", "C"), ("title", "C"),
        ]  # fmt: skip
        # Each index of a list's table holds its orders' columns, the list carried along.
        assert country.endswith("(country, rank_all, rank) INCLUDE (list_id)")

    def pages() -> None:
        with engine.connect() as connection:
            everyone = list_pages.ListQuery(everyone=True)
            assert list_pages.list_page(connection, 1, everyone)["federation_id"].to_list() == [
                "P1",
                "P2",
            ]
            assert list_pages.list_page(connection, 2, everyone)["federation_id"].to_list() == [
                "P1"
            ]

    pages()
    downgrade(engine, "0012")
    if postgresql:
        with engine.connect() as connection:
            kind = connection.execute(
                text("SELECT relkind FROM pg_class WHERE relname = 'list_entries'")
            ).scalar_one()
        assert kind == "r"
    pages()
    upgrade(engine)
    pages()
    engine.dispose()


def test_0013_keeps_every_result_and_its_key(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The (tournament, player) key becomes a unique index: the rows stay, a second result of a
    player in one tournament is still refused, and a large write that drops and rebuilds the
    index refuses it too."""
    engine = open_engine(database_url, upgrade_schema=False)
    upgrade(engine, "0012")
    _two_results_with_ids(engine)
    upgrade(engine, "0013")
    kept = "SELECT * FROM results ORDER BY id"
    with engine.connect() as connection:
        rows = [tuple(r) for r in connection.execute(text(kept))]
    assert rows == [(4, 7, 2, 2, 0, 0, 1, 10000, None), (5, 7, 1, 3, 1, 0, 0, 5000, "GM")]
    twice = "INSERT INTO results (tournament_id, player_id, wins, draws, losses, buchholz)" \
        " VALUES (7, 1, 0, 0, 0, 0)"  # fmt: skip
    with pytest.raises(IntegrityError), engine.begin() as connection:
        connection.execute(text(twice))
    monkeypatch.setattr(indexes, "REBUILD_INDEXES_FROM", 0)
    dropped: set[str] = set()

    def large_write() -> None:
        with engine.begin() as connection, indexes.indexes_rebuilt(connection, results, rows=10):
            dropped.update(str(i["name"]) for i in inspect(connection).get_indexes("results"))
            connection.execute(text(twice))

    with pytest.raises(IntegrityError):
        large_write()
    # The pair's index is the key itself from 0021 on; a large write drops the player's.
    assert "ix_results_player_id" not in dropped
    with engine.connect() as connection:
        assert [tuple(r) for r in connection.execute(text(kept))] == rows
    engine.dispose()


def test_0017_reads_the_rating_from_the_totals_and_gives_it_back_going_down(
    database_url: str,
) -> None:
    """The players' own copy of the rating goes; the totals' stays the one read. Going down, the
    column is filled again from the totals, a never rated player's left null."""
    engine = open_engine(database_url, upgrade_schema=False)
    upgrade(engine, "0016")
    stamp = "2025-01-01 00:00:00"
    with engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO players (id, federation_id, name, name_key, created_at, rating)"
                " VALUES (1, 'P1', 'Ann', 'ann', :t, 10012345678901),"
                " (2, 'P2', 'Bob', 'bob', :t, NULL)"
            ),
            {"t": stamp},
        )
        connection.execute(
            text(
                "INSERT INTO player_totals (player_id, changes, games, tournaments, last_played,"
                " rating) VALUES (1, 1, 3, 1, '2025-01-02', 10012345678901)"
            )
        )
    upgrade(engine)
    with engine.connect() as connection:
        columns = {c["name"] for c in inspect(connection).get_columns("players")}
        assert "rating" not in columns
        ann = players.player_by_federation_id(connection, "P1")
        bob = players.player_by_federation_id(connection, "P2")
        assert ann is not None
        assert ann.rating == 10012345678901
        assert bob is not None
        assert bob.rating is None
    downgrade(engine, "0016")
    with engine.connect() as connection:
        rows = connection.execute(text("SELECT id, rating FROM players ORDER BY id")).all()
    engine.dispose()
    assert [tuple(r) for r in rows] == [(1, 10012345678901), (2, None)]


def test_0018_keeps_only_countries(database_url: str) -> None:
    """A stored code that names no country becomes unknown; a historic code kept as written
    becomes its stored form; a country stays."""
    engine = open_engine(database_url, upgrade_schema=False)
    upgrade(engine, "0017")
    stamp = "2025-01-01 00:00:00"
    codes = ["DEU", "???", "C.C", "ST.", "URS", "ENG", None]
    with engine.begin() as connection:
        for i, code in enumerate(codes, start=1):
            connection.execute(
                text(
                    "INSERT INTO players (id, federation_id, name, name_key, country, created_at)"
                    " VALUES (:id, :fid, 'Ann', 'ann', :country, :t)"
                ),
                {"id": i, "fid": f"P{i}", "country": code, "t": stamp},
            )
    upgrade(engine)
    with engine.connect() as connection:
        rows = connection.execute(text("SELECT country FROM players ORDER BY id")).scalars().all()
    engine.dispose()
    assert rows == ["DEU", None, None, None, "SUN", "ENG", None]


def test_0021_keys_every_result_by_its_tournament_and_player_and_gives_the_ids_back_going_down(
    database_url: str,
) -> None:
    """The results lose their own ids and are keyed by tournament and player: every row stays,
    a second result of a player in one tournament is refused by the key, and on SQLite the table
    has no rowid. Going down gives every row an id again, with the pair's unique index."""
    engine = open_engine(database_url, upgrade_schema=False)
    upgrade(engine, "0020")
    _two_results_with_ids(engine)
    upgrade(engine, "0021")
    columns = "tournament_id, player_id, line, wins, draws, losses, buchholz, title"
    kept = f"SELECT {columns} FROM results ORDER BY tournament_id, player_id"
    rows = [(7, 1, 3, 1, 0, 0, 5000, "GM"), (7, 2, 2, 0, 0, 1, 10000, None)]
    with engine.connect() as connection:
        assert [tuple(r) for r in connection.execute(text(kept))] == rows
        inspector = inspect(connection)
        assert inspector.get_pk_constraint("results")["constrained_columns"] == [
            "tournament_id",
            "player_id",
        ]
        assert "id" not in {c["name"] for c in inspector.get_columns("results")}
        assert {i["name"] for i in inspector.get_indexes("results")} == {"ix_results_player_id"}
        if engine.dialect.name == "sqlite":
            with pytest.raises(OperationalError, match="rowid"):
                connection.execute(text("SELECT rowid FROM results"))
    twice = "INSERT INTO results (tournament_id, player_id, wins, draws, losses, buchholz)" \
        " VALUES (7, 1, 0, 0, 0, 0)"  # fmt: skip
    with pytest.raises(IntegrityError), engine.begin() as connection:
        connection.execute(text(twice))
    downgrade(engine, "0020")
    with engine.connect() as connection:
        assert [tuple(r) for r in connection.execute(text(kept))] == rows
        ids = connection.execute(text("SELECT id FROM results")).scalars().all()
        assert len(set(ids)) == 2
        indexes_down = {i["name"] for i in inspect(connection).get_indexes("results")}
        assert "ix_results_tournament_id_player_id" in indexes_down
    # A result written after going down gets an id of its own, after the others'.
    with engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO players (id, federation_id, name, name_key, created_at) VALUES "
                "(3, 'P3', 'Cy', 'cy', :t)"
            ),
            {"t": STAMP},
        )
        connection.execute(
            text(
                "INSERT INTO results (tournament_id, player_id, wins, draws, losses, buchholz)"
                " VALUES (7, 3, 0, 0, 0, 0)"
            )
        )
        given = connection.execute(text("SELECT id FROM results WHERE player_id = 3")).scalar()
    assert given is not None
    assert given not in ids
    upgrade(engine)
    with engine.connect() as connection:
        assert len(connection.execute(text(kept)).all()) == 3
    engine.dispose()


STAMP = "2025-01-01 00:00:00"


def _two_results_with_ids(engine: Engine) -> None:
    """Two players' results of one tournament, with the ids results had before 0021 (4, 5)."""
    with engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO players (id, federation_id, name, name_key, created_at) VALUES "
                "(1, 'P1', 'Ann', 'ann', :t), (2, 'P2', 'Bob', 'bob', :t)"
            ),
            {"t": STAMP},
        )
        connection.execute(
            text(
                "INSERT INTO tournaments (id, key, name, start_date, end_date, tier, status,"
                " source_name, source_hash, source_format, imported_at, imported_by) VALUES "
                "(7, 'T7', 'Open', '2025-01-01', '2025-01-02', 'regular', 'pending', 'f.csv',"
                " 'h', 'csv', :t, 'me')"
            ),
            {"t": STAMP},
        )
        connection.execute(
            text(
                "INSERT INTO results (id, tournament_id, player_id, line, wins, draws, losses,"
                " buchholz, title) VALUES (4, 7, 2, 2, 0, 0, 1, 10000, NULL),"
                " (5, 7, 1, 3, 1, 0, 0, 5000, 'GM')"
            )
        )
