"""Backups and restores (``ratings db backup / verify / restore / copy``): an archive taken on one
backend restores on the other with every row equal and every page printing the same; damaged
archives, a database with data and killed runs are refused or leave nothing half done."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import zipfile
from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from click.testing import CliRunner
from sqlalchemy import select, text

from jobs import backup, monthly
from jobs.monthly import run_monthly
from jobs.options import MonthlyOptions
from ratings.errors import ArchiveError
from ratings.storage import archive
from ratings.storage.archive import loading
from ratings.storage.database import _config, head, open_engine
from ratings.storage.schema import metadata
from service.cli import cli
from tests.conftest import scratch_postgres
from tests.support.settings import empty_settings_file

ROOT = Path(__file__).parents[2]
SAMPLES = ROOT / "samples"
NOW = datetime(2026, 2, 1, 9, 30, tzinfo=UTC)
SHOWN = (
    ("ranking", "--list", "2026-01", "--all"),
    ("ranking",),
    ("lists",),
    ("player", "P0000002"),
    ("player", "P0000238"),
    ("players", "show", "P0000002"),
    ("players", "search", "Wrobel"),
    ("tournaments", "list"),
    ("tournaments", "show", "T0000001"),
)
"""What an officer reads: the published list, the live ranking, the lists, two players'
histories, the merged player's identity and a search, the tournaments and one of them."""


@pytest.fixture
def other_postgres() -> Iterator[str]:
    """A second scratch PostgreSQL database, empty (the suite's own may be the source)."""
    with scratch_postgres("ratings_restore") as url:
        yield url


class Officer:
    """The command line as an officer uses it, on one database at a time."""

    def __init__(self, tmp_path: Path) -> None:
        self.runner = CliRunner()
        self.env = {
            "RATINGS_CONFIG": empty_settings_file(tmp_path),
            "RATINGS_PUBLISH_DIR": str(tmp_path / "publish"),
            "RATINGS_INBOX_DIR": str(tmp_path / "inbox"),
            "RATINGS_BACKUP_DIR": str(tmp_path / "backups"),
        }

    def __call__(self, url: str, *args: str) -> tuple[int, str, str]:
        result = self.runner.invoke(
            cli, list(args), env={**self.env, "RATINGS_DATABASE_URL": url}, catch_exceptions=False
        )
        return result.exit_code, result.stdout, result.stderr

    def ok(self, url: str, *args: str) -> str:
        code, out, err = self(url, *args)
        assert code == 0, (args, out, err)
        return out

    def build(self, url: str) -> None:
        """The bundled samples imported and rated, two players merged, the list published."""
        self.ok(url, "db", "upgrade")
        self.ok(url, "players", "import", str(SAMPLES / "players.csv"))
        files = ("results-2023.csv", "results-2024.csv", "results-2025.xlsx")
        self.ok(url, "import", *(str(SAMPLES / f) for f in files))
        self.ok(url, "run")
        self.ok(url, "players", "merge", "P0000002", "P0000001", "--yes")
        self.ok(url, "run")
        self.ok(url, "publish", "2026-01")

    def pages(self, url: str) -> dict[tuple[str, ...], str]:
        return {args: self.ok(url, *args) for args in SHOWN}


def rows(url: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table of the schema in key order, times in UTC."""
    engine = open_engine(url, upgrade_schema=False, create=False)
    found: dict[str, list[tuple[Any, ...]]] = {}
    try:
        with engine.connect() as connection:
            for table in metadata.sorted_tables:
                query = select(table).order_by(*table.primary_key.columns)
                found[table.name] = [
                    tuple(_utc(v) for v in row) for row in connection.execute(query)
                ]
    finally:
        engine.dispose()
    return found


def rated(found: dict[str, list[tuple[Any, ...]]]) -> dict[str, list[tuple[Any, ...]]]:
    """The rows a re-rating may not change: all but its runs and the time it rated each
    tournament."""
    stamp = list(metadata.tables["tournaments"].c.keys()).index("rated_at")
    same = {name: found[name] for name in found if name != "job_runs"}
    same["tournaments"] = [r[:stamp] + r[stamp + 1 :] for r in found["tournaments"]]
    return same


def _unstamped(page: str) -> list[str]:
    return [line for line in page.splitlines() if not line.startswith("status: rated")]


def _utc(value: Any) -> Any:
    if isinstance(value, datetime) and value.tzinfo is not None:
        return value.astimezone(UTC).replace(tzinfo=None)
    return value


def sqlite_url(path: Path) -> str:
    return f"sqlite:///{path}"


@pytest.fixture
def officer(tmp_path: Path) -> Officer:
    return Officer(tmp_path)


@pytest.mark.slow
@pytest.mark.postgres
def test_a_database_moves_between_backends_whole(
    database_url: str, other_postgres: str, officer: Officer, tmp_path: Path
) -> None:
    # Built on one backend, restored on the other (SQLite to PostgreSQL and back, or the
    # other way round), then a full re-rating there.
    officer.build(database_url)
    before = rows(database_url)
    pages = officer.pages(database_url)
    assert before["player_merges"]
    assert before["list_entries"]
    first = tmp_path / "first.zip"
    officer.ok(database_url, "db", "backup", str(first))
    target = other_postgres if database_url.startswith("sqlite") else sqlite_url(tmp_path / "t.db")
    restored = officer.ok(target, "db", "restore", str(first), "--read-back")
    assert f"restored {len(metadata.tables)} tables" in restored
    assert "every row read back and checked" in restored
    assert rows(target) == before
    assert officer.pages(target) == pages
    if target.startswith("postgresql"):
        # The restored lists are vacuumed, as a publication leaves them: all-visible pages.
        engine = open_engine(target, upgrade_schema=False)
        try:
            with engine.connect() as connection:
                parts = connection.execute(
                    text(
                        "SELECT c.relpages, c.relallvisible FROM pg_inherits i"
                        " JOIN pg_class c ON c.oid = i.inhrelid"
                        " WHERE i.inhparent = 'list_entries'::regclass"
                    )
                ).all()
        finally:
            engine.dispose()
        assert parts
        assert all(pages > 0 and visible == pages for pages, visible in parts), parts
    officer.ok(target, "run", "--full")
    assert rated(rows(target)) == rated(before)
    # A tournament's page shows when it was rated, which a re-rating changes; no other.
    again = officer.pages(target)
    stamped = ("tournaments", "show", "T0000001")
    assert {k: v for k, v in again.items() if k != stamped} == {
        k: v for k, v in pages.items() if k != stamped
    }
    assert _unstamped(again[stamped]) == _unstamped(pages[stamped])
    # And back again, from the restored database into a new one of the first backend.
    second = tmp_path / "second.zip"
    officer.ok(target, "db", "backup", str(second))
    if database_url.startswith("sqlite"):
        back = sqlite_url(tmp_path / "back.db")
    else:
        back = database_url
        officer.ok(back, "db", "restore", str(second), "--force")
    if back != database_url:
        officer.ok(back, "db", "restore", str(second))
    assert rows(back) == rows(target)
    assert officer.pages(back) == again


def test_every_table_of_the_schema_is_in_the_archive(
    database_url: str, officer: Officer, tmp_path: Path
) -> None:
    officer.ok(database_url, "db", "upgrade")
    path = tmp_path / "empty.zip"
    officer.ok(database_url, "db", "backup", str(path))
    manifest = json.loads(zipfile.ZipFile(path).read("manifest.json"))
    assert {t["name"] for t in manifest["tables"]} == set(metadata.tables)
    assert manifest["revision"] == head()
    types = {(t["name"], c["name"]): c["type"] for t in manifest["tables"] for c in t["columns"]}
    # Exact values stay exact: 1e-10 points in 64-bit integers, times in UTC.
    assert types["rating_changes", "rating_after"] == "int64"
    assert types["players", "created_at"] == "timestamp[us, tz=UTC]"
    assert types["tournaments", "end_date"] == "date32[day]"


def test_the_default_path_holds_the_date_and_revision(
    database_url: str, officer: Officer, tmp_path: Path
) -> None:
    officer.ok(database_url, "db", "upgrade")
    code, _, err = officer(database_url, "db", "backup")
    assert code == 0, err
    (made,) = (tmp_path / "backups").iterdir()
    assert made.name.startswith(f"ratings-{date.today():%Y-%m-%d}-")
    assert made.name.endswith(f"-r{head()}.zip")
    assert str(made) in err or str(made) in officer.ok(database_url, "db", "verify", str(made))


def _player(id_: int, federation_id: str, name: str, key: str, **more: Any) -> dict[str, Any]:
    row = dict.fromkeys(metadata.tables["players"].c.keys())
    return {**row, "id": id_, "federation_id": federation_id, "name": name, "name_key": key, **more}


def test_exact_values_and_times_round_trip(database_url: str, tmp_path: Path) -> None:
    # Extreme values of every kind of column, across the backends' own storage forms.
    engine = open_engine(database_url)
    aware = datetime(2026, 1, 31, 23, 59, 59, 999999, tzinfo=UTC)
    try:
        with engine.begin() as connection:
            connection.execute(
                metadata.tables["players"].insert(),
                [
                    _player(1, "A", "Zoë ''\"", "", club="", created_at=aware,
                            title_date=date(1, 1, 1)),
                    # Merged into a later player: restored in key order, 7 before 9.
                    _player(9, "C", "c", "c", created_at=datetime(2026, 6, 1, tzinfo=UTC)),
                    _player(7, "B", "b", "b", merged_into=9, created_at=aware),
                ],
            )  # fmt: skip
            connection.execute(
                metadata.tables["rating_changes"].insert(),
                [
                    {"seq": 2**62, "player_id": 1, "tournament_id": 1, "games": 0,
                     "rating_before": -(2**62), "rating_after": 12345678901234567,
                     "expected": 1},
                ],
            )  # fmt: skip
        before = rows(database_url)
        path = tmp_path / "exact.zip"
        with engine.connect():
            backup.backup(engine, path, folder=tmp_path, now=NOW)
    finally:
        engine.dispose()
    target = sqlite_url(tmp_path / "exact.db")
    engine = open_engine(target, upgrade_schema=False)
    try:
        backup.restore(engine, path)
    finally:
        engine.dispose()
    assert rows(target) == before
    assert rows(target)["players"][0][1:3] == ("A", "Zoë ''\"")


def test_a_restore_into_a_database_with_data_is_refused_unchanged(
    database_url: str, officer: Officer, tmp_path: Path
) -> None:
    source = sqlite_url(tmp_path / "source.db")
    officer.ok(source, "db", "upgrade")
    officer.ok(source, "players", "import", str(SAMPLES / "players.csv"))
    path = tmp_path / "players.zip"
    officer.ok(source, "db", "backup", str(path))
    officer.ok(database_url, "db", "upgrade")
    officer.ok(database_url, "import", str(SAMPLES / "results-2023.csv"))
    before = rows(database_url)
    code, out, err = officer(database_url, "db", "restore", str(path))
    assert code == 1
    assert out == ""
    assert err.count("\n") == 1
    assert "holds data (table " in err
    assert "nothing was changed" in err
    assert rows(database_url) == before
    # Asked for, it replaces everything.
    officer.ok(database_url, "db", "restore", str(path), "--force")
    assert rows(database_url) == rows(source)


def test_an_empty_database_made_by_upgrade_takes_a_restore(
    database_url: str, officer: Officer, tmp_path: Path
) -> None:
    source = sqlite_url(tmp_path / "source.db")
    officer.build(source)
    path = tmp_path / "all.zip"
    officer.ok(source, "db", "backup", str(path))
    officer.ok(database_url, "db", "upgrade")
    officer.ok(database_url, "db", "restore", str(path))
    assert rows(database_url) == rows(source)
    # New rows after the restore get new ids (PostgreSQL's sequences past the restored ones).
    officer.ok(database_url, "import", str(SAMPLES / "results-2025.xlsx"), "--replace")
    officer.ok(database_url, "run")


# Damaged archives ------------------------------------------------------------------------------


def _rewrite(path: Path, target: Path, change: Any) -> None:
    """Copy the archive at ``path`` to ``target``, each member through ``change(name, bytes)``
    (None drops it)."""
    with zipfile.ZipFile(path) as source, zipfile.ZipFile(target, "w") as out:
        for name in source.namelist():
            data = change(name, source.read(name))
            if data is not None:
                out.writestr(name, data)


def _manifest_change(edit: Any) -> Any:
    def change(name: str, data: bytes) -> bytes:
        if name != "manifest.json":
            return data
        manifest = json.loads(data)
        edit(manifest)
        return json.dumps(manifest).encode()

    return change


def _table(manifest: dict[str, Any], name: str) -> dict[str, Any]:
    return next(t for t in manifest["tables"] if t["name"] == name)


def _flip(name: str, data: bytes) -> bytes:
    if name != "tables/players.arrows":
        return data
    middle = len(data) // 2
    return data[:middle] + bytes([data[middle] ^ 0xFF]) + data[middle + 1 :]


DAMAGES = {
    "a table's bytes changed": (_flip, "players"),
    "a table's checksum": (
        _manifest_change(lambda m: _table(m, "results").update(file_sha256="0" * 64)),
        "table results: the checksum of tables/results.arrows is wrong",
    ),
    "its rows' checksum": (
        _manifest_change(lambda m: _table(m, "games").update(rows_sha256="0" * 64)),
        "table games: the checksum of its rows is wrong",
    ),
    "a row count": (
        _manifest_change(lambda m: _table(m, "players").update(rows=3)),
        "table players: 300 rows, the manifest says 3",
    ),
    "a table's file missing": (
        lambda name, data: None if name == "tables/results.arrows" else data,
        "table results: its file tables/results.arrows is missing",
    ),
    "no manifest": (
        lambda name, data: None if name == "manifest.json" else data,
        "it holds no manifest.json",
    ),
    "a manifest of something else": (
        _manifest_change(lambda m: m.update(format="other")),
        "manifest.json is not a valid manifest: format is 'other'",
    ),
    "a manifest without tables": (
        _manifest_change(lambda m: m.pop("tables")),
        "manifest.json is not a valid manifest: missing field 'tables'",
    ),
    "a manifest that is no JSON": (
        lambda name, data: b"{" if name == "manifest.json" else data,
        "manifest.json is not a valid manifest",
    ),
    "an unknown revision": (
        _manifest_change(lambda m: m.update(revision="9999")),
        "schema revision 9999, which this version does not know",
    ),
    "a table of another schema": (
        _manifest_change(lambda m: _table(m, "results").update(name="resultz")),
        "are not those of the schema",
    ),
}


RESTORE_FINDS = {"a table of another schema"}
"""What only a restore finds: the schema at the archive's revision is made to see it."""


@pytest.fixture(scope="module")
def sound_archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("sound")
    officer = Officer(folder)
    url = sqlite_url(folder / "source.db")
    officer.build(url)
    path = folder / "sound.zip"
    officer.ok(url, "db", "backup", str(path))
    return path


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_a_damaged_archive_is_refused_in_one_line(
    damage: str, sound_archive: Path, database_url: str, officer: Officer, tmp_path: Path
) -> None:
    change, expected = DAMAGES[damage]
    path = tmp_path / "damaged.zip"
    _rewrite(sound_archive, path, change)
    officer.ok(database_url, "db", "upgrade")
    before = rows(database_url)
    commands = [("db", "restore", str(path))]
    if damage not in RESTORE_FINDS:
        commands.append(("db", "verify", str(path)))
    for command in commands:
        code, out, err = officer(database_url, *command)
        assert code == 1, (command, out, err)
        assert err.startswith(f"error: the archive {path} cannot be used: "), err
        assert expected in err
        assert err.count("\n") == 1
    assert rows(database_url) == before


@pytest.mark.parametrize("cut", [0.5, 0.99])
def test_a_truncated_archive_is_refused_in_one_line(
    cut: float, sound_archive: Path, officer: Officer, tmp_path: Path
) -> None:
    data = sound_archive.read_bytes()
    path = tmp_path / "cut.zip"
    path.write_bytes(data[: int(len(data) * cut)])
    code, _, err = officer(sqlite_url(tmp_path / "x.db"), "db", "verify", str(path))
    assert code == 1
    assert "cannot be used: not a readable zip file" in err
    assert err.count("\n") == 1


def test_a_missing_archive_is_named(officer: Officer, tmp_path: Path) -> None:
    code, _, err = officer(sqlite_url(tmp_path / "x.db"), "db", "verify", str(tmp_path / "no.zip"))
    assert code == 1
    assert err == f"error: the archive {tmp_path / 'no.zip'} cannot be used: no such file\n"


def test_a_sound_archive_is_read_through(sound_archive: Path) -> None:
    opened = archive.Archive(sound_archive)
    manifest = opened.verify()
    opened.close()
    assert manifest.rows > 5000
    assert {t.name for t in manifest.tables} == set(metadata.tables)


# What a restore checks in the database ---------------------------------------------------------


def _tampered(monkeypatch: pytest.MonkeyPatch, table: str, change: Any) -> None:
    """Make a restore write ``change(batch)`` for ``table``'s sound batches: what a database that
    did not keep what it was sent would hold."""
    sound = archive.Archive.batches

    def batches(self: archive.Archive, entry: Any, rows_checked: bool = True) -> Any:
        for batch in sound(self, entry, rows_checked):
            yield change(batch) if entry.name == table else batch

    monkeypatch.setattr(archive.Archive, "batches", batches)


def _renamed(batch: pa.RecordBatch) -> pa.RecordBatch:
    names = batch.column("name").to_pylist()
    names[0] = "Someone Else"
    column = batch.schema.get_field_index("name")
    return batch.set_column(column, "name", pa.array(names, batch.schema.field("name").type))


def test_a_row_the_database_did_not_keep_is_found_by_its_count(
    database_url: str, sound_archive: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Counted in the database after its rows went in, without a read back.
    _tampered(monkeypatch, "results", lambda batch: batch.slice(1))
    engine = open_engine(database_url, upgrade_schema=False)
    try:
        with pytest.raises(
            ArchiveError, match=r"table results read back from the database differs"
        ):
            backup.restore(engine, sound_archive)
        with engine.connect() as connection:
            assert archive.holds_data(connection) is None
    finally:
        engine.dispose()


def test_a_value_the_database_did_not_keep_is_found_by_the_read_back(
    database_url: str, sound_archive: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The same count, one name changed on its way: the archive is sound, so only reading the
    # rows back from the database finds it; the restore is refused whole.
    _tampered(monkeypatch, "players", _renamed)
    engine = open_engine(database_url, upgrade_schema=False)
    try:
        with pytest.raises(ArchiveError, match=r"table players read back from the database"):
            backup.restore(engine, sound_archive, read_back=True)
        with engine.connect() as connection:
            assert archive.holds_data(connection) is None
        # Without the read back the restore trusts the database with what it acknowledged.
        backup.restore(engine, sound_archive)
        with engine.connect() as connection:
            names = connection.execute(select(metadata.tables["players"].c.name)).scalars()
            assert "Someone Else" in set(names)
    finally:
        engine.dispose()


# Killed runs ----------------------------------------------------------------------------------


def _ratings(
    url: str, tmp_path: Path, crash: str | None, *args: str
) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "RATINGS_DATABASE_URL": url,
        "RATINGS_CONFIG": empty_settings_file(tmp_path),
    }
    env.pop(monthly.CRASH_ENVIRONMENT, None)
    if crash is not None:
        env[monthly.CRASH_ENVIRONMENT] = crash
    command = [sys.executable, "-m", "service.cli", *args]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=300, cwd=ROOT)


@pytest.mark.slow
def test_a_killed_backup_leaves_the_previous_archive_intact(
    database_url: str, officer: Officer, tmp_path: Path
) -> None:
    officer.build(database_url)
    path = tmp_path / "nightly.zip"
    officer.ok(database_url, "db", "backup", str(path))
    earlier = path.read_bytes()
    officer.ok(database_url, "import", str(SAMPLES / "results-2025.xlsx"), "--replace")
    killed = _ratings(database_url, tmp_path, "backup-table", "db", "backup", str(path))
    assert killed.returncode == monthly.KILLED_RETURNCODE, killed.stderr
    # Killed part-way: the new archive was being written beside the old one.
    partial = path.with_name(f".{path.name}.partial")
    assert partial.stat().st_size > 0
    assert path.read_bytes() == earlier
    officer.ok(database_url, "db", "verify", str(path))
    # The next backup replaces both.
    officer.ok(database_url, "db", "backup", str(path))
    assert not partial.exists()
    assert path.read_bytes() != earlier


@pytest.mark.slow
def test_a_killed_restore_leaves_the_database_as_before(
    database_url: str, sound_archive: Path, officer: Officer, tmp_path: Path
) -> None:
    officer.ok(database_url, "db", "upgrade")
    before = rows(database_url)
    killed = _ratings(database_url, tmp_path, "restore-table", "db", "restore", str(sound_archive))
    assert killed.returncode == monthly.KILLED_RETURNCODE, killed.stderr
    # One transaction: nothing of it is left, and a new restore goes ahead.
    assert rows(database_url) == before
    engine = open_engine(database_url, upgrade_schema=False)
    try:
        with engine.connect() as connection:
            assert archive.holds_data(connection) is None
    finally:
        engine.dispose()
    officer.ok(database_url, "db", "restore", str(sound_archive))
    assert rows(database_url)["players"]
    # Killed again while replacing it (--force), the restored database stays whole.
    whole = rows(database_url)
    killed = _ratings(
        database_url, tmp_path, "restore-table", "db", "restore", str(sound_archive), "--force"
    )
    assert killed.returncode == monthly.KILLED_RETURNCODE, killed.stderr
    assert rows(database_url) == whole
    officer.ok(database_url, "db", "restore", str(sound_archive), "--force")
    assert rows(database_url) == whole


# While the monthly job runs -----------------------------------------------------------------


def test_a_backup_during_the_monthly_job_holds_the_database_before_or_after_it(
    database_url: str, tmp_path: Path, officer: Officer
) -> None:
    officer.ok(database_url, "db", "upgrade")
    officer.ok(database_url, "players", "import", str(SAMPLES / "players.csv"))
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    for name in ("results-2023.csv", "results-2024.csv"):
        (inbox / name).write_bytes((SAMPLES / name).read_bytes())
    engine = open_engine(database_url)
    at_commit = threading.Event()
    go_on = threading.Event()

    def phase(name: str) -> None:
        if name == "commit":
            at_commit.set()
            assert go_on.wait(60)

    options = MonthlyOptions(
        inbox_dir=inbox, publish_dir=tmp_path / "publish", imported_by="officer"
    )
    failures: list[BaseException] = []
    made: list[backup.BackupReport] = []

    def job() -> None:
        try:
            run_monthly(engine, options, today=date(2025, 1, 2), clock=lambda: NOW, phase=phase)
        except BaseException as error:
            failures.append(error)
            at_commit.set()

    def back_up() -> None:
        made.append(backup.backup(engine, tmp_path / "during.zip", folder=tmp_path, now=NOW))

    worker = threading.Thread(target=job)
    worker.start()
    backing_up = threading.Thread(target=back_up)
    try:
        assert at_commit.wait(120)
        # The job is about to commit everything it wrote.
        backing_up.start()
        backing_up.join(5)
    finally:
        go_on.set()
        worker.join()
        backing_up.join()
    assert not failures
    (during,) = made
    after = backup.backup(engine, tmp_path / "after.zip", folder=tmp_path, now=NOW)
    engine.dispose()
    counted_during = {t.name: t.rows for t in during.manifest.tables}
    counted_after = {t.name: t.rows for t in after.manifest.tables}
    tables = ("tournaments", "results", "rating_changes", "published_lists", "list_entries")
    if database_url.startswith("sqlite"):
        # SQLite's snapshot, taken by the reading process once it has started: before the
        # job's commit the job's whole transaction is missing from the first archive; on a
        # loaded machine it may start after the commit and hold all of it. Never a part.
        before = all(counted_during[table] == 0 for table in tables)
        assert before or all(counted_during[t] == counted_after[t] for t in tables)
    else:
        # PostgreSQL: the backup waited for the job's lock, and holds all of it.
        assert {t: counted_during[t] for t in tables} == {t: counted_after[t] for t in tables}
    assert all(counted_after[table] > 0 for table in tables)
    assert counted_during["players"] == counted_after["players"] == 300
    # Both restore, and check, whole.
    for archived in (during, after):
        target = open_engine(
            sqlite_url(tmp_path / f"{archived.path.stem}.db"), upgrade_schema=False
        )
        try:
            backup.restore(target, archived.path)
        finally:
            target.dispose()


# An older revision ----------------------------------------------------------------------------


@pytest.mark.slow
def test_an_archive_of_an_older_revision_restores_and_migrates(
    database_url: str, officer: Officer, tmp_path: Path
) -> None:
    from alembic import command

    officer.build(database_url)
    newest = rows(database_url)
    engine = open_engine(database_url, upgrade_schema=False)
    try:
        with engine.begin() as connection:
            config = _config()
            config.attributes["connection"] = connection
            command.downgrade(config, "0016")
        path = tmp_path / "old.zip"
        made = backup.backup(engine, path, folder=tmp_path, now=NOW)
    finally:
        engine.dispose()
    assert made.manifest.revision == "0016"
    # At 0016 a player's rating was still kept on the player.
    players = next(t for t in made.manifest.tables if t.name == "players")
    assert ("rating", "int64") in players.columns
    target = sqlite_url(tmp_path / "new.db")
    restored = officer.ok(target, "db", "restore", str(path))
    assert f"revision 0016, now {head()}" in restored
    assert rows(target) == newest


def test_a_scheduled_backup_keeps_the_newest_and_records_its_outcome(
    database_url: str, tmp_path: Path
) -> None:
    from jobs.options import BackupOptions
    from jobs.queries import last_backup, last_run

    engine = open_engine(database_url)
    folder = tmp_path / "backups"
    times = iter(datetime(2026, m, 1, 3, tzinfo=UTC) for m in range(1, 13))
    options = BackupOptions(folder=folder, keep=3)
    try:
        made = [backup.scheduled_backup(engine, options, lambda: next(times)).path for _ in "abcd"]
        assert backup.archives_in(folder) == made[1:]
        with engine.connect() as connection:
            newest = last_backup(connection)
            assert last_run(connection) is None
        assert newest is not None
        assert newest.outcome == "succeeded"
        # The record is written after the archive: none of them holds a run still going.
        with archive.Archive(made[-1]) as opened:
            runs = next(t for t in opened.manifest.tables if t.name == "job_runs")
            assert runs.rows == 3
        blocked = BackupOptions(folder=tmp_path / "file", keep=3)
        (tmp_path / "file").write_text("not a folder")
        with pytest.raises(Exception, match="file"):
            backup.scheduled_backup(engine, blocked, lambda: NOW)
        with engine.connect() as connection:
            failed = last_backup(connection)
        assert failed is not None
        assert failed.outcome == "failed"
        assert failed.error
    finally:
        engine.dispose()


def _indexes(url: str) -> dict[str, list[Any]]:
    from sqlalchemy import inspect

    engine = open_engine(url, upgrade_schema=False, create=False)
    try:
        found = inspect(engine)
        # A partial index's condition is compared by its text.
        return {
            name: sorted(
                (
                    {**i, "dialect_options": {k: str(v) for k, v in i["dialect_options"].items()}}
                    for i in found.get_indexes(name)
                ),
                key=lambda i: str(i["name"]),
            )
            for name in metadata.tables
        }
    finally:
        engine.dispose()


def test_indexes_built_after_the_rows_are_the_schemas(
    database_url: str,
    sound_archive: Path,
    tmp_path: Path,
    officer: Officer,
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
) -> None:
    # A large table's indexes are dropped for its rows and built after them: here every table's.
    monkeypatch.setattr(loading, "REBUILD_FROM", 1)
    officer.ok(database_url, "db", "restore", str(sound_archive))
    restored = _indexes(database_url)
    assert restored["results"]
    if database_url.startswith("sqlite"):
        fresh = sqlite_url(tmp_path / "fresh.db")
    else:
        fresh = request.getfixturevalue("other_postgres")
    officer.ok(fresh, "db", "upgrade")
    assert restored == _indexes(fresh)


@pytest.mark.postgres
def test_one_command_moves_the_sqlite_file_to_postgresql(
    other_postgres: str, officer: Officer, tmp_path: Path
) -> None:
    source = sqlite_url(tmp_path / "federation.sqlite")
    officer.build(source)
    pages = officer.pages(source)
    out = officer.ok(source, "db", "copy", "--to", other_postgres)
    assert out.startswith(f"copied {len(metadata.tables)} tables, ")
    assert "***" in out or "postgres@" in out
    assert rows(other_postgres) == rows(source)
    assert officer.pages(other_postgres) == pages
    # Once more into the database that now holds it: refused in one line, nothing changed.
    before = rows(other_postgres)
    code, _, err = officer(source, "db", "copy", "--to", other_postgres)
    assert code == 1
    assert err.count("\n") == 1
    assert "holds data" in err
    assert rows(other_postgres) == before


def test_tables_come_as_columns_equal_to_their_rows(database_url: str, officer: Officer) -> None:
    # The backup reads through the driver's columns (PostgreSQL: a second connection in its
    # snapshot; SQLite: a reading process in one read transaction): the same batches, value for
    # value, as the rows read through its own connection.
    from ratings.storage.database import read_snapshot

    officer.build(database_url)
    engine = open_engine(database_url, upgrade_schema=False)
    try:
        with read_snapshot(engine) as connection, archive.fast_reader(connection) as fast:
            assert fast is not None
            for table in archive.database_tables(connection):
                columns = pa.Table.from_batches(
                    list(fast(table)), schema=archive.arrow_schema(table)
                )
                rows = pa.Table.from_batches(
                    list(archive.read_batches(connection, table)),
                    schema=archive.arrow_schema(table),
                )
                assert columns.num_rows == rows.num_rows
                assert columns.equals(rows), table.name
    finally:
        engine.dispose()
