"""The import job: all or nothing, duplicates, dry runs, player matching against the database,
and the player registry. Bad input must leave every table exactly as it was."""

from __future__ import annotations

import dataclasses
import hashlib
import tempfile
import threading
from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from sqlalchemy import select, update
from sqlalchemy.engine import Engine

from importers.from_crosstable import EventOptions
from importers.tabular import MAX_INPUT_BYTES
from jobs.importing import import_files
from jobs.players import import_registry
from jobs.reading import read_file
from ratings.errors import InputError
from ratings.storage import imports as imports_storage
from ratings.storage import players as storage_players
from ratings.storage.bulk import indexes, rows_file
from ratings.storage.database import open_engine
from ratings.storage.schema import players, results, tournaments
from tests.golden import DATA
from tests.support import histories
from tests.support.db import snapshot

NOW = datetime(2026, 11, 1, tzinfo=UTC)
HEADER = "tournament,end_date,name,country,wins,draws,losses,buchholz\n"


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def load(engine: Engine, *paths: Path, **options: bool) -> None:
    import_files(engine, list(paths), imported_by="test", now=NOW, **options)


@pytest.fixture
def seeded(engine: Engine, tmp_path: Path) -> Engine:
    """A database holding a few tournaments and players already."""
    load(engine, histories.write_csv(histories.history(events=6), tmp_path / "base.csv"))
    return engine


BAD_FILES = {
    "missing column": HEADER.replace(",buchholz", "") + "Open,2024-01-05,Ann,GER,1,0,0\n",
    "unknown column": HEADER.replace("\n", ",rating\n") + "Open,2024-01-05,Ann,GER,1,0,0,0,1500\n",
    "wrong type": HEADER + "Open,2024-01-05,Ann,GER,one,0,0,0\nOpen,2024-01-05,Bob,GER,0,0,1,1\n",
    "negative count": HEADER
    + "Open,2024-01-05,Ann,GER,1,0,-1,0\nOpen,2024-01-05,Bob,GER,0,0,1,1\n",
    "fractional count": HEADER
    + "Open,2024-01-05,Ann,GER,1,0.5,0,0\nOpen,2024-01-05,Bob,GER,0,0,1,1\n",
    "bad date": HEADER + "Open,05/01/2024,Ann,GER,1,0,0,0\nOpen,05/01/2024,Bob,GER,0,0,1,1\n",
    "impossible date": HEADER
    + "Open,2024-02-30,Ann,GER,1,0,0,0\nOpen,2024-02-30,Bob,GER,0,0,1,1\n",
    "player twice": HEADER + "Open,2024-01-05,Ann,GER,1,0,0,0\nOpen,2024-01-05,ann,GER,0,0,1,1\n",
    "wins and losses": HEADER
    + "Open,2024-01-05,Ann,GER,2,0,0,0\nOpen,2024-01-05,Bob,GER,0,0,1,1\n",
    "odd draws": HEADER + "Open,2024-01-05,Ann,GER,0,1,0,0.5\nOpen,2024-01-05,Bob,GER,0,0,0,0\n",
    "buchholz too high": HEADER
    + "Open,2024-01-05,Ann,GER,1,0,0,9\nOpen,2024-01-05,Bob,GER,0,0,1,1\n",
    "empty": "",
}


@pytest.fixture(scope="module")
def seeded_once(
    module_database_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Engine]:
    """:func:`seeded`, once for the module's tests that leave it as it was (and check it)."""
    engine = open_engine(module_database_url)
    folder = tmp_path_factory.mktemp("seeded")
    load(engine, histories.write_csv(histories.history(events=6), folder / "base.csv"))
    yield engine
    engine.dispose()


@pytest.mark.parametrize("kind", sorted(BAD_FILES))
def test_bad_input_leaves_the_database_unchanged(
    seeded_once: Engine, tmp_path: Path, kind: str
) -> None:
    seeded = seeded_once
    before = snapshot(seeded)
    good = write(
        tmp_path,
        "good.csv",
        HEADER + "Cup,2024-03-01,Zoe,NOR,1,0,0,0\nCup,2024-03-01,Yan,NOR,0,0,1,1\n",
    )
    bad = write(tmp_path, "bad.csv", BAD_FILES[kind])
    with pytest.raises(InputError, match=r"bad\.csv"):
        load(seeded, good, bad)
    assert snapshot(seeded) == before


def test_an_ambiguous_name_asks_for_the_id(seeded: Engine, tmp_path: Path) -> None:
    registry = write(
        tmp_path, "players.csv", "player_id,name,country\n500,Jan Novák,CZE\n501,Jan Novak,SVK\n"
    )
    import_registry(seeded, registry, now=NOW)
    before = snapshot(seeded)
    bad = write(
        tmp_path,
        "bad.csv",
        HEADER + "Open,2024-01-05,JAN NOVAK,,1,0,0,0\nOpen,2024-01-05,Bob,GER,0,0,1,1\n",
    )
    with pytest.raises(InputError) as caught:
        load(seeded, bad)
    assert str(caught.value.problems[0]) == (
        "bad.csv, line 2, column 'name': value 'JAN NOVAK': 2 players match this name (500, 501): "
        "give the player_id"
    )
    assert snapshot(seeded) == before
    # With the country the name is no longer ambiguous.
    good = write(
        tmp_path,
        "good.csv",
        HEADER + "Open,2024-01-05,jan novák,SVK,1,0,0,0\nOpen,2024-01-05,Bob,GER,0,0,1,1\n",
    )
    load(seeded, good)
    with seeded.connect() as connection:
        ids = (
            connection.execute(
                select(players.c.federation_id)
                .join(results, results.c.player_id == players.c.id)
                .join(tournaments, tournaments.c.id == results.c.tournament_id)
                .where(tournaments.c.key == "Open 2024-01-05")
                .order_by(players.c.federation_id)
            )
            .scalars()
            .all()
        )
    assert "501" in ids


def test_names_match_known_players_without_case_or_accents(seeded: Engine, tmp_path: Path) -> None:
    load(
        seeded,
        write(
            tmp_path,
            "a.csv",
            HEADER + "A,2024-01-05,Łukasz Müller,POL,1,0,0,0\nA,2024-01-05,Bob,GER,0,0,1,1\n",
        ),
    )
    load(
        seeded,
        write(
            tmp_path,
            "b.csv",
            HEADER + "B,2024-02-05,lukasz  MULLER,POL,1,0,0,0\nB,2024-02-05,bob,GER,0,0,1,1\n",
        ),
    )
    with seeded.connect() as connection:
        names = (
            connection.execute(
                select(players.c.name).where(players.c.name_key.in_(["lukasz muller", "bob"]))
            )
            .scalars()
            .all()
        )
    assert sorted(names) == ["Bob", "Łukasz Müller"]


def test_an_imported_tournament_is_refused_unless_replaced(seeded: Engine, tmp_path: Path) -> None:
    path = histories.write_csv(histories.history(events=6)[:1], tmp_path / "again.csv")
    before = snapshot(seeded)
    with pytest.raises(InputError, match="this tournament is already imported"):
        load(seeded, path)
    assert snapshot(seeded) == before
    load(seeded, path, replace=True)
    with seeded.connect() as connection:
        status = connection.execute(
            select(tournaments.c.status).where(tournaments.c.key == "T000")
        ).scalar()
    assert status == "pending"


def test_one_tournament_in_two_files_is_refused(engine: Engine, tmp_path: Path) -> None:
    text = HEADER + "Cup,2024-03-01,Zoe,NOR,1,0,0,0\nCup,2024-03-01,Yan,NOR,0,0,1,1\n"
    with pytest.raises(
        InputError,
        match=r"b\.csv, line 2, column 'tournament': value 'Cup 2024-03-01': the same tournament is also in a\.csv",
    ):
        load(engine, write(tmp_path, "a.csv", text), write(tmp_path, "b.csv", text))


def test_a_dry_run_writes_nothing(seeded: Engine, tmp_path: Path) -> None:
    before = snapshot(seeded)
    report = import_files(
        seeded,
        [
            write(
                tmp_path,
                "new.csv",
                HEADER + "Cup,2024-03-01,Zoe,NOR,1,0,0,0\nCup,2024-03-01,Yan,NOR,0,0,1,1\n",
            )
        ],
        dry_run=True,
        imported_by="test",
        now=NOW,
    )
    assert (report.tournaments_new, report.players_new, report.dry_run) == (1, 2, True)
    assert snapshot(seeded) == before


def test_a_missing_file_is_reported(engine: Engine, tmp_path: Path) -> None:
    with pytest.raises(
        InputError, match=r"nothere\.csv: cannot be read \(No such file or directory\)"
    ):
        load(engine, tmp_path / "nothere.csv")


def test_an_unknown_id_without_a_name_cannot_create_a_player(
    engine: Engine, tmp_path: Path
) -> None:
    text = "tournament,end_date,player_id,name,wins,draws,losses,buchholz\nCup,2024-03-01,42,,1,0,0,0\nCup,2024-03-01,43,Yan,0,0,1,1\n"
    with pytest.raises(
        InputError,
        match="line 2, column 'player_id': value '42': unknown player id and no name to create it",
    ):
        load(engine, write(tmp_path, "ids.csv", text))


def test_the_registry_creates_and_updates_players(engine: Engine, tmp_path: Path) -> None:
    first = write(
        tmp_path,
        "p1.csv",
        "player_id,name,country,club,title,title_date\n1,Ann Berg,NOR,Oslo SK,GM,2019-05-01\n2,Bo Li,CHN,,,\n",
    )
    report = import_registry(engine, first, now=NOW)
    assert (report.created, report.updated) == (2, 0)
    second = write(tmp_path, "p2.csv", "player_id,name,country\n2,Bo Li,SGP\n3,Cy Ode,NGA\n")
    report = import_registry(engine, second, now=NOW)
    assert (report.created, report.updated) == (1, 1)
    with engine.connect() as connection:
        rows = connection.execute(
            select(players.c.federation_id, players.c.country, players.c.title).order_by(
                players.c.federation_id
            )
        ).all()
    assert [tuple(r) for r in rows] == [("1", "NOR", "GM"), ("2", "SGP", None), ("3", "NGA", None)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("name,country\nAnn,NOR\n", "p.csv, line 1, column 'player_id': this column is required"),
        ("player_id,name,rating\n1,Ann,1500\n", "p.csv, line 1, column 'rating': unknown column"),
        (
            "player_id,name\n1,Ann\n1,Bob\n",
            "p.csv, line 3, column 'player_id': value '1': the player id appears twice in the file",
        ),
        (
            "player_id,name,title,title_date\n1,Ann,GM,2019-13-01\n",
            "p.csv, line 2, column 'title_date': value '2019-13-01': expected a real date as YYYY-MM-DD",
        ),
        (
            "player_id,name,title_date\n1,Ann,2019-01-01\n",
            "p.csv, line 2, column 'title_date': value '2019-01-01': a title date needs a title",
        ),
        ("player_id,name\n1,\n", "p.csv, line 2, column 'name': a value is required"),
        (
            f"player_id,name\n1,{'N' * 201}\n",
            f"p.csv, line 2, column 'name': value '{'N' * 60}… (201 characters)': "
            "longer than 200 characters",
        ),
        (
            "player_id,name,country\n1,Ann,NO\x00R\n",
            "p.csv, line 2, column 'country': value 'NO\\x00R': must not contain control characters",
        ),
    ],
)
def test_bad_registry_files(engine: Engine, tmp_path: Path, text: str, expected: str) -> None:
    before = snapshot(engine)
    with pytest.raises(InputError) as caught:
        import_registry(engine, write(tmp_path, "p.csv", text), now=NOW)
    assert str(caught.value.problems[0]).startswith(expected)
    assert snapshot(engine) == before


def test_the_bytes_hashed_are_the_bytes_parsed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The file is replaced by another event just after the job first reads it: a second read
    # would parse (or hash) the other event.
    go = DATA / "go_opengotha"
    target = tmp_path / "event.h9"
    original = (go / "juvisy2019.h9").read_bytes()
    target.write_bytes(original)
    reads: list[Path] = []
    from jobs import reading

    read_bytes = reading.read_file_bytes

    def read_then_replace(path: Path, limit: int = MAX_INPUT_BYTES) -> bytes:
        data = read_bytes(path, limit)
        if path == target:
            reads.append(path)
            target.write_bytes((go / "ioct_20_02.h9").read_bytes())
        return data

    monkeypatch.setattr(reading, "read_file_bytes", read_then_replace)
    checked = read_file(target)
    assert reads == [target]
    assert checked.file.sha256 == hashlib.sha256(original).hexdigest()
    assert checked.file.tournaments["name"].to_list() == ["Tournoi de Juvisy"]


def test_a_file_stored_in_slices_is_stored_as_one_read_at_once(
    engine: Engine, tmp_path: Path
) -> None:
    """Slices of whole tournaments, the players found once per spelling: the same rows stored."""
    path = histories.write_csv(histories.history(events=12), tmp_path / "history.csv")
    whole = open_engine(f"sqlite:///{tmp_path / 'whole.sqlite'}")
    try:
        import_files(whole, [path], imported_by="test", now=NOW, slice_rows=None)
        import_files(engine, [path], imported_by="test", now=NOW, slice_rows=7)
        assert stored_rows(engine) == stored_rows(whole)
    finally:
        whole.dispose()
    assert len(stored_rows(engine)) > 7 * 3


def test_a_large_write_stores_what_a_small_one_does(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Indexes dropped and rebuilt, on SQLite the rows through a rows file written while the
    players and tournaments are (into the empty table with its indexes built there and copied
    whole, into a table holding rows without them), new players and tournaments written with
    ids taken beforehand: the same rows as a small write stores."""
    path = histories.write_csv(histories.history(events=12), tmp_path / "history.csv")
    more = histories.write_csv(renamed(histories.history(events=3, seed=9), "M"),
                               tmp_path / "more.csv")  # fmt: skip
    small = open_engine(f"sqlite:///{tmp_path / 'small.sqlite'}")
    copies: list[list[str] | None] = []
    copy = imports_storage.copy_attached

    def copied(connection: Any, table: Any, where: Path, columns: list[str] | None = None) -> None:
        copies.append(columns)
        copy(connection, table, where, columns)

    monkeypatch.setattr(imports_storage, "copy_attached", copied)
    try:
        import_files(small, [path], imported_by="test", now=NOW)
        first = stored_rows(small)
        import_files(small, [more], imported_by="test", now=NOW)
        monkeypatch.setattr(indexes, "REBUILD_INDEXES_FROM", 0)
        import_files(engine, [path], imported_by="test", now=NOW, slice_rows=7)
        assert stored_rows(engine) == first
        import_files(engine, [more], imported_by="test", now=NOW, slice_rows=7)
        assert stored_rows(engine) == stored_rows(small)
    finally:
        small.dispose()
    if engine.dialect.name == "sqlite":
        # The history copied whole into the empty table, the next file's rows column by column.
        assert copies == [None, list(imports_storage.RESULT_COLUMNS.values())]
        with engine.connect() as connection:
            assert connection.exec_driver_sql("PRAGMA integrity_check").scalar() == "ok"
            built = connection.exec_driver_sql(
                "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'results'"
            ).scalars()
            assert sorted(built) == sorted(str(i.name) for i in results.indexes)
    with engine.connect() as connection:
        ids = connection.execute(select(players.c.id)).scalars().all()
        events = connection.execute(select(tournaments.c.id)).scalars().all()
    assert len(set(ids)) == len(ids)
    assert len(set(events)) == len(events) == 15


def test_a_large_write_whose_players_fail_leaves_nothing(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The players' insert failing while the results are written beside it: the import fails,
    nothing is written, and the thread writing the rows file has ended and left no file."""

    def failing(*_args: Any, **_kwargs: Any) -> None:
        raise RuntimeError("the disk is full")

    monkeypatch.setattr(storage_players, "insert_players", failing)
    _fails_and_leaves_nothing(engine, tmp_path, monkeypatch)


def test_a_large_write_whose_rows_file_fails_leaves_nothing(
    sqlite_engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite's rows file of the results failing (a full disk) while the players are written:
    the import fails and nothing is written."""

    def failing(self: Any, *_args: Any) -> None:
        self._error = RuntimeError("the disk is full")

    monkeypatch.setattr(rows_file.RowsAhead, "_write", failing)
    _fails_and_leaves_nothing(sqlite_engine, tmp_path, monkeypatch)


def _fails_and_leaves_nothing(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = histories.write_csv(histories.history(events=12), tmp_path / "history.csv")
    monkeypatch.setattr(indexes, "REBUILD_INDEXES_FROM", 0)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    before = snapshot(engine)
    with pytest.raises(RuntimeError, match="the disk is full"):
        import_files(engine, [path], imported_by="test", now=NOW, slice_rows=7)
    assert snapshot(engine) == before
    assert not [t for t in threading.enumerate() if t.name == "rows file"]
    assert list(scratch.iterdir()) == []


def test_a_player_first_seen_moves_to_an_earlier_event(engine: Engine, tmp_path: Path) -> None:
    """Known players named by id (their registry is not read whole): an earlier event imported
    later moves their first date back, a later one leaves it."""
    late = histories.history(events=2, start=date(2023, 6, 3))
    early = renamed(histories.history(events=2, start=date(2021, 6, 5), seed=8), "E")
    load(engine, histories.write_csv(late, tmp_path / "late.csv"))
    first = dict(first_seen(engine))
    load(engine, histories.write_csv(early, tmp_path / "early.csv"))
    after = dict(first_seen(engine))
    for fid, day in first.items():
        played = [r.end_date for e in early for r in e if r.player_id == fid]
        assert after[fid] == min([day, *played])
    assert all(after[fid] == min(r.end_date for e in early for r in e if r.player_id == fid)
               for fid in after.keys() - first.keys())  # fmt: skip


def test_players_named_by_id_are_read_alone(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file naming every player by id matches as when the whole registry is read; the merged
    player's id finds whom it was merged into."""
    load(engine, histories.write_csv(histories.history(events=6), tmp_path / "history.csv"))
    with engine.begin() as connection:
        duplicate, kept, other = storage_players.known_players(connection)["federation_id"][:3]
        connection.execute(
            update(players).where(players.c.federation_id == duplicate)
            .values(merged_into=select(players.c.id).where(players.c.federation_id == kept)
                    .scalar_subquery())
        )  # fmt: skip
        every = storage_players.known_players(connection)
        some = storage_players.known_players(connection, among=[duplicate, other, "999"])
    assert set(some["federation_id"]) == {duplicate, kept, other}
    assert some.equals(
        every.filter(pl.col("federation_id").is_in([duplicate, kept, other])).sort("id")
    )
    month = renamed(histories.history(events=2, seed=5, start=date(2023, 1, 7)), "N")
    load(engine, histories.write_csv(month, tmp_path / "month.csv"))
    with engine.connect() as connection:
        held = connection.execute(
            select(players.c.federation_id)
            .join(results, players.c.id == results.c.player_id)
            .join(tournaments, tournaments.c.id == results.c.tournament_id)
            .where(tournaments.c.key.startswith("N"))
        ).scalars().all()  # fmt: skip
    written = [r.player_id for e in month for r in e]
    assert duplicate in written
    assert duplicate not in held
    assert sorted(held) == sorted(kept if fid == duplicate else fid for fid in written)


def renamed(events: list[list[histories.Row]], prefix: str) -> list[list[histories.Row]]:
    """``events`` under other tournament keys (the generator names the first event T000)."""
    return [
        [dataclasses.replace(r, tournament_id=prefix + r.tournament_id) for r in event]
        for event in events
    ]


def first_seen(engine: Engine) -> list[tuple[str, date]]:
    with engine.connect() as connection:
        return [
            (fid, day)
            for fid, day in connection.execute(
                select(players.c.federation_id, players.c.first_seen)
            )
        ]


def stored_rows(engine: Engine) -> list[tuple[object, ...]]:
    """Every result with its tournament's key and dates and its player's id, name and dates."""
    t, p, r = tournaments.c, players.c, results.c
    query = (
        select(
            t.key, t.name, t.start_date, t.end_date, t.tier, p.federation_id, p.name, p.country,
            p.club, p.first_seen, r.line, r.wins, r.draws, r.losses, r.buchholz, r.title,
        )
        .join(tournaments, t.id == r.tournament_id)
        .join(players, p.id == r.player_id)
    )  # fmt: skip
    with engine.connect() as connection:
        return sorted((tuple(row) for row in connection.execute(query)), key=repr)


BUNRATTY = Path(__file__).parents[1] / "data" / "corpus" / "trf"
"""Sections of one weekend, each a TRF file whose 012 line is ``012 Bunratty 2011``."""


def test_two_sections_named_alike_are_told_how_to_be_keyed_apart(engine: Engine) -> None:
    masters = BUNRATTY / "icu-bunratty-masters-2011.trf"
    minor = BUNRATTY / "icu-bunratty-minor-2011.trf"
    advice = (
        "a tournament is known by its key, which is its name and end date unless --key gives "
        "one; if it is another event (a section of the same name and dates), import it on its "
        "own with --key or --name (such as 'Bunratty 2011 Masters'), or give its file a name "
        "of its own (the 012 line of a TRF)"
    )
    with pytest.raises(InputError) as together:
        load(engine, masters, minor)
    assert [str(p) for p in together.value.problems] == [
        "icu-bunratty-minor-2011.trf, line 14, column 'tournament': value 'Bunratty 2011 2011-02-27': "
        f"the same tournament is also in icu-bunratty-masters-2011.trf: {advice}"
    ]
    load(engine, masters)
    before = snapshot(engine)
    with pytest.raises(InputError) as after:
        load(engine, minor)
    assert [str(p) for p in after.value.problems] == [
        "icu-bunratty-minor-2011.trf, line 14, column 'tournament': value 'Bunratty 2011 2011-02-27': "
        f"this tournament is already imported (use --replace if this file corrects it); {advice}"
    ]
    assert snapshot(engine) == before
    # What the message offers: the section under a name of its own.
    import_files(
        engine, [minor], imported_by="test", now=NOW,
        event=EventOptions(name="Bunratty 2011 Minor"),
    )  # fmt: skip
    with engine.connect() as connection:
        keys = connection.execute(select(tournaments.c.key).order_by(tournaments.c.key))
        assert list(keys.scalars()) == [
            "Bunratty 2011 2011-02-27",
            "Bunratty 2011 Minor 2011-02-27",
        ]


def test_two_tables_with_one_tournament_are_told_to_give_tournament_ids(
    engine: Engine, tmp_path: Path
) -> None:
    text = HEADER + "Cup,2024-03-01,Zoe,NOR,1,0,0,0\nCup,2024-03-01,Yan,NOR,0,0,1,1\n"
    with pytest.raises(InputError) as raised:
        load(engine, write(tmp_path, "a.csv", text), write(tmp_path, "b.csv", text))
    assert str(raised.value.problems[0]).endswith(
        "the same tournament is also in a.csv: a tournament is known by its tournament_id, else "
        "by its name and end date; give each event a tournament_id of its own"
    )
