"""One published truth: after every kind of publication (by hand, a republication, the monthly
job, a correction through the inbox) the publish folder, the database and the website agree."""

from __future__ import annotations

import csv
import io
import json
import os
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, date, datetime
from pathlib import Path

import openpyxl
import polars as pl
import pytest
from fastapi.testclient import TestClient
from sqlalchemy.engine import Connection, Engine

from jobs import folder as publish_folder
from jobs.folder import EXPORTS, publish_with_files
from jobs.importing import import_files
from jobs.monthly import run_monthly
from jobs.options import ListOptions, MonthlyOptions
from jobs.queries import recent_jobs
from jobs.rating import run_ratings
from ratings.errors import OutputError
from ratings.formula import MeloParams
from ratings.storage import lists
from ratings.storage.bulk import columnar, list_columns
from service.settings import Settings, configure
from service.web import create_app
from tests.support import histories
from tests.support.db import snapshot
from tests.support.histories import Row

NOW = datetime(2026, 11, 1, tzinfo=UTC)
PARAMS = MeloParams()


def agree(engine: Engine, publish_dir: Path, period: str) -> lists.ListInfo:
    """The folder's files of ``period`` are the database's newest version, byte for byte what the
    website serves; ``latest.json`` names the newest list of the database."""
    with engine.connect() as connection:
        info = lists.latest_list(connection, period)
        newest = lists.latest_list(connection)
    assert info is not None
    assert newest is not None
    folder = publish_dir / period
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        [name for name, _, _ in EXPORTS] + ["statistics.json"]
    )
    statistics = json.loads((folder / "statistics.json").read_text())
    assert (statistics["period"], statistics["version"]) == (info.period, info.version)
    assert statistics["players"] == info.players
    latest = json.loads((publish_dir / "latest.json").read_text())
    assert (latest["period"], latest["version"]) == (newest.period, newest.version)
    assert (publish_dir / latest["folder"] / "statistics.json").is_file()
    web = TestClient(create_app(engine, configure(Settings(_env_file=None)).web))  # type: ignore[call-arg]
    assert (
        web.get(f"/lists/{period}.json?all=true").content == (folder / "ranking.json").read_bytes()
    )
    assert web.get(f"/lists/{period}.csv").content == (folder / "ranking.csv").read_bytes()
    assert (
        web.get(f"/lists/{period}.csv?all=true").content
        == (folder / "ranking-all.csv").read_bytes()
    )
    if newest.period == period:
        assert f"version {info.version}" in web.get("/").text
    listed = {
        row["player_id"]: row["rating_exact"]
        for row in csv.DictReader(io.StringIO((folder / "ranking-all.csv").read_text()))
    }
    with engine.connect() as connection:
        entries = lists.list_entries_of(connection, info.id)
    assert sorted(listed) == sorted(entries["federation_id"].to_list())
    return info


def test_by_hand_republished_and_monthly(engine: Engine, tmp_path: Path) -> None:
    publish_dir = tmp_path / "publish"
    events = histories.history(events=40)
    import_files(
        engine, [histories.write_csv(events, tmp_path / "h.csv")], imported_by="t", now=NOW
    )
    run_ratings(engine, PARAMS, now=NOW)

    def by_hand(period: str, republish: bool = False) -> None:
        publish_with_files(
            engine, period, ListOptions(), publish_dir=publish_dir, params=PARAMS,
            republish=republish, by="officer", now=NOW,
        )  # fmt: skip

    by_hand("2022-06")
    assert agree(engine, publish_dir, "2022-06").version == 1
    # A late tournament before the cut-off, then a republication: version 2 everywhere.
    late = histories.history(events=1, seed=99, start=date(2022, 3, 5))
    late = [[Row(**{**r.__dict__, "tournament_id": "LATE"}) for r in late[0]]]
    import_files(
        engine, [histories.write_csv(late, tmp_path / "late.csv")], imported_by="t", now=NOW
    )
    run_ratings(engine, PARAMS, now=NOW)
    before = (publish_dir / "2022-06" / "ranking-all.csv").read_bytes()
    by_hand("2022-06", republish=True)
    assert agree(engine, publish_dir, "2022-06").version == 2
    assert (publish_dir / "2022-06" / "ranking-all.csv").read_bytes() != before

    options = MonthlyOptions(
        inbox_dir=tmp_path / "inbox", publish_dir=publish_dir, imported_by="officer"
    )
    run_monthly(engine, options, today=date(2022, 9, 3), clock=lambda: NOW)
    assert agree(engine, publish_dir, "2022-09").version == 1
    assert json.loads((publish_dir / "latest.json").read_text())["period"] == "2022-09"
    # Republishing an older period leaves the pointer on the newest list.
    by_hand("2022-06", republish=True)
    assert agree(engine, publish_dir, "2022-06").version == 3
    assert json.loads((publish_dir / "latest.json").read_text())["period"] == "2022-09"
    assert not list(publish_dir.rglob(".*.partial"))


def test_a_correction_in_the_inbox_republishes_the_list(engine: Engine, tmp_path: Path) -> None:
    publish_dir = tmp_path / "publish"
    options = MonthlyOptions(
        inbox_dir=tmp_path / "inbox", publish_dir=publish_dir, imported_by="officer"
    )
    events = histories.history(events=20)
    inbox = options.inbox_dir
    inbox.mkdir()
    histories.write_csv(events, inbox / "results.csv")
    first = run_monthly(engine, options, today=date(2022, 6, 2), clock=lambda: NOW)
    assert first.published_version == 1
    frozen = (publish_dir / "2022-06" / "ranking-all.csv").read_bytes()

    # The director of event 5 sends a corrected file: the last result belonged to player 99.
    *kept, wrong = events[5]
    fixed = [*kept, Row(**{**wrong.__dict__, "player_id": "99", "name": "Player 99"})]
    (inbox / "corrections").mkdir()
    histories.write_csv([fixed], inbox / "corrections" / "event-5.csv")
    again = run_monthly(engine, options, today=date(2022, 6, 20), clock=lambda: NOW)
    assert (again.accepted, again.rejected, again.published_version) == (["event-5.csv"], [], 2)
    assert (inbox / "archive" / "2022-06" / "corrections" / "event-5.csv").is_file()
    assert not list((inbox / "corrections").iterdir())
    assert agree(engine, publish_dir, "2022-06").version == 2
    assert (publish_dir / "2022-06" / "ranking-all.csv").read_bytes() != frozen
    assert "99" in (publish_dir / "2022-06" / "ranking-all.csv").read_text()

    # A correction that changes nothing on the list (the same results in another order) keeps it.
    histories.write_csv([events[-1][::-1]], inbox / "corrections" / "last.csv")
    third = run_monthly(engine, options, today=date(2022, 6, 21), clock=lambda: NOW)
    assert (third.accepted, third.published_version) == (["last.csv"], None)


def test_a_bad_correction_is_rejected_with_the_import_report(
    engine: Engine, tmp_path: Path
) -> None:
    options = MonthlyOptions(
        inbox_dir=tmp_path / "inbox", publish_dir=tmp_path / "publish", imported_by="officer"
    )
    corrections = options.inbox_dir / "corrections"
    corrections.mkdir(parents=True)
    bad = corrections / "bad.csv"
    bad.write_text(
        "tournament,end_date,name,wins,draws,losses,buchholz\nCup,2022-13-01,Ann,1,0,0,0\n"
    )
    os.utime(bad, (1_700_000_000, 1_700_000_000))
    good = histories.write_csv(histories.history(events=3), options.inbox_dir / "results.csv")
    report = run_monthly(engine, options, today=date(2022, 6, 2), clock=lambda: NOW)
    assert (report.rejected, report.accepted) == (["bad.csv"], ["results.csv"])
    errors = (options.inbox_dir / "rejected" / "bad.csv.errors.txt").read_text()
    assert "value '2022-13-01': not a real calendar date" in errors
    assert not good.exists()


def test_a_run_with_nobody_to_list_fails_and_still_files_the_refused_files(
    engine: Engine, tmp_path: Path
) -> None:
    """Nobody rated and the only files refused: no list, nothing kept in the database, the run
    failed; the refused files are in rejected/ with their reports all the same."""
    from ratings.errors import EmptyListError

    options = MonthlyOptions(
        inbox_dir=tmp_path / "inbox", publish_dir=tmp_path / "publish", imported_by="officer"
    )
    (options.inbox_dir / "corrections").mkdir(parents=True)
    (options.inbox_dir / "corrections" / "bad.csv").write_text(
        "tournament,end_date,name,wins,draws,losses,buchholz\nCup,2022-13-01,Ann,1,0,0,0\n"
    )
    (options.inbox_dir / "broken.csv").write_text("nonsense\n")
    # Accepted, but ending after the cut-off of 2022-01-31: its players are not on the list.
    late = histories.write_csv(
        histories.history(events=2, start=date(2022, 3, 5)), options.inbox_dir / "late.csv"
    )
    before = snapshot(engine)
    with pytest.raises(EmptyListError):
        run_monthly(engine, options, today=date(2022, 2, 2), clock=lambda: NOW)
    after = snapshot(engine)
    assert {name: rows for name, rows in after.items() if name != "job_runs"} == {
        name: rows for name, rows in before.items() if name != "job_runs"
    }
    rejected = options.inbox_dir / "rejected"
    assert sorted(p.name for p in rejected.iterdir()) == [
        "bad.csv", "bad.csv.errors.txt", "broken.csv", "broken.csv.errors.txt",
    ]  # fmt: skip
    assert late.is_file()
    assert not (tmp_path / "publish").exists()
    with engine.connect() as connection:
        run = recent_jobs(connection, 1).row(0, named=True)
    assert (run["outcome"], run["files_rejected"], run["list_period"]) == ("failed", 2, "2022-02")


@pytest.mark.parametrize("republish", [False, True])
def test_nothing_is_written_when_publication_is_refused(
    engine: Engine, tmp_path: Path, republish: bool
) -> None:
    from ratings.errors import ListExistsError, NotRatedError

    events = histories.history(events=10)
    import_files(
        engine, [histories.write_csv(events, tmp_path / "h.csv")], imported_by="t", now=NOW
    )
    with pytest.raises(NotRatedError):
        publish_with_files(
            engine, "2022-03", ListOptions(), publish_dir=tmp_path / "publish", params=PARAMS,
            republish=republish, by="officer", now=NOW,
        )  # fmt: skip
    assert not (tmp_path / "publish").exists()
    run_ratings(engine, PARAMS, now=NOW)
    publish_with_files(
        engine, "2022-03", ListOptions(), publish_dir=tmp_path / "publish", params=PARAMS,
        by="officer", now=NOW,
    )  # fmt: skip
    with pytest.raises(ListExistsError):
        publish_with_files(
            engine, "2022-03", ListOptions(), publish_dir=tmp_path / "publish", params=PARAMS,
            by="officer", now=NOW,
        )  # fmt: skip


def test_a_folder_file_held_open_is_retried_then_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # On Windows a list open in a spreadsheet cannot be replaced until it is closed.
    from jobs import folder

    path = tmp_path / "2026-11" / "ranking.csv"
    refusals = iter([True, True])
    real_replace = Path.replace

    def replace(self: Path, target: Path) -> Path:
        if next(refusals, False):
            raise PermissionError(13, "The process cannot access the file")
        return real_replace(self, target)

    monkeypatch.setattr(Path, "replace", replace)
    monkeypatch.setattr(folder.time, "sleep", lambda _seconds: None)
    folder.write_atomically(path, b"new\n")
    assert path.read_bytes() == b"new\n"
    refusals = iter([True] * folder.REPLACE_TRIES)
    with pytest.raises(OutputError) as refused:
        folder.write_atomically(path, b"newer\n")
    assert str(refused.value) == (
        f"cannot replace {path}: it is open in another program or read-only "
        "(close it and run the command again)"
    )
    assert path.read_bytes() == b"new\n"
    assert [p.name for p in path.parent.iterdir()] == ["ranking.csv"]


def _workbook_parts(data: bytes) -> dict[str, bytes]:
    """A workbook's parts, but the time it was written (``docProps/core.xml``)."""
    book = zipfile.ZipFile(io.BytesIO(data))
    assert book.testzip() is None
    return {i.filename: book.read(i) for i in book.infolist() if i.filename != "docProps/core.xml"}


def same_files(held: Path, read_back: Path) -> None:
    """Both folders hold the same files, byte for byte (a workbook part for part: its parts say
    when it was written)."""
    names = sorted(p.relative_to(held) for p in held.rglob("*") if p.is_file())
    assert names == sorted(p.relative_to(read_back) for p in read_back.rglob("*") if p.is_file())
    assert len(names) == len(EXPORTS) + 2
    for name in names:
        first, second = (held / name).read_bytes(), (read_back / name).read_bytes()
        if name.suffix == ".xlsx":
            assert _workbook_parts(first) == _workbook_parts(second), name
        else:
            assert first == second, name


def test_a_computed_lists_files_are_written_from_its_entries_as_read_back(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A list whose entries publishing computed (cut off before tournaments already rated) has
    its files written from them, not read back; the usual list, which the database builds from
    the totals, is read back once. Either way the files are those the list read back gives."""
    events = histories.history(events=30, seed=7)
    import_files(
        engine, [histories.write_csv(events, tmp_path / "h.csv")], imported_by="t", now=NOW
    )
    run_ratings(engine, PARAMS, now=NOW)
    reads: list[int] = []
    read_entries = list_columns.shown_entries

    def counted(connection: object, list_id: int, *, size: int) -> object:
        reads.append(list_id)
        return read_entries(connection, list_id, size=size)  # type: ignore[arg-type]

    monkeypatch.setattr(list_columns, "shown_entries", counted)
    # June's list leaves out the tournaments of June and July, rated already.
    done = publish_with_files(
        engine, "2022-06", ListOptions(), publish_dir=tmp_path / "held", params=PARAMS,
        by="officer", now=NOW,
    )  # fmt: skip
    assert done.entries is not None
    assert reads == []
    publish_folder.write_list_files(engine, tmp_path / "read", "2022-06", "half_up")
    assert len(reads) == 1
    same_files(tmp_path / "held", tmp_path / "read")
    agree(engine, tmp_path / "held", "2022-06")

    # The monthly job: the next period's list, the usual one (every rated tournament in it),
    # published on top of the previous one (with a change for each player).
    options = MonthlyOptions(
        inbox_dir=tmp_path / "inbox", publish_dir=tmp_path / "monthly", imported_by="officer"
    )
    reads.clear()
    report = run_monthly(engine, options, today=date(2022, 9, 3), clock=lambda: NOW)
    assert report.published_version == 1
    with engine.connect() as connection:
        september = report_list_id(connection, "2022-09")
    # The database built it, and its files were written from the entries as it stored them,
    # while it stored them: the list is never read back.
    assert reads.count(september) == 0
    publish_folder.write_list_files(engine, tmp_path / "monthly-read", "2022-09", "half_up")
    assert reads.count(september) == 1
    same_files(tmp_path / "monthly", tmp_path / "monthly-read")
    with engine.connect() as connection:
        entries = lists.list_entries_of(connection, september)
    assert entries["previous_rating"].null_count() < entries.height
    ranked = openpyxl.load_workbook(tmp_path / "monthly" / "2022-09" / "ranking.xlsx")["ranking"]
    assert ranked.max_row == entries.height + 1

    # A run that publishes nothing writes the files from the list read back.
    again = run_monthly(engine, options, today=date(2022, 9, 4), clock=lambda: NOW)
    assert again.published_version is None
    assert reads.count(september) == 2
    same_files(tmp_path / "monthly", tmp_path / "monthly-read")


def test_files_written_beside_another_list_than_the_one_committed_are_not_kept(
    engine: Engine, tmp_path: Path
) -> None:
    events = histories.history(events=12, seed=5)
    import_files(
        engine, [histories.write_csv(events, tmp_path / "h.csv")], imported_by="t", now=NOW
    )
    run_ratings(engine, PARAMS, now=NOW)
    publish_with_files(
        engine, "2022-09", ListOptions(), publish_dir=tmp_path / "read", params=PARAMS,
        by="officer", now=NOW,
    )  # fmt: skip
    with engine.connect() as connection:
        info = lists.latest_list(connection, "2022-09")
        assert info is not None
        entries = list_columns.shown_entries(connection, info.id, size=info.players)
    folder = tmp_path / "staged" / "2022-09"
    # Files of the list with one player less than the list as committed holds.
    with publish_folder.StagedRankings(folder, "half_up") as staged:
        staged.start(replace(info, players=info.players - 1), entries.slice(1))
        assert staged.put_in_place(info) is None
        assert list(folder.iterdir()) == []
        staged.start(replace(info, players=info.players - 1), entries.slice(1))
        written = publish_folder.write_list_files(
            engine, tmp_path / "staged", "2022-09", "half_up", staged=staged
        )
    assert len(written) == len(EXPORTS) + 2
    same_files(tmp_path / "staged", tmp_path / "read")
    # Of the list as committed, they are put in place as they were written.
    with publish_folder.StagedRankings(folder, "half_up") as staged:
        staged.start(info, entries)
        assert staged.put_in_place(info) == [folder / name for name, _, _ in EXPORTS]
    same_files(tmp_path / "staged", tmp_path / "read")


def test_a_staged_file_that_cannot_be_written_fails_the_export_and_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    info = lists.ListInfo(
        1, "2022-09", 1, date(2022, 8, 31), NOW, "officer", 1, 1, 10**13, 10**13, 12, None, None
    )
    entries = pl.DataFrame(
        {
            "federation_id": ["1"], "name": ["Ann"], "country": ["NL"], "rating": [10**13],
            "games": [3], "tournaments": [1], "last_played": [date(2022, 8, 1)],
            "active": [True], "previous_rating": [None],
        },
        schema=list_columns.SHOWN_SCHEMA,
    )  # fmt: skip

    def full(*_args: object, **_kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(publish_folder, "write_ranking", full)
    folder = tmp_path / "2022-09"
    with publish_folder.StagedRankings(folder, "half_up") as staged:
        staged.start(info, entries)
        with pytest.raises(OSError, match="No space left"):
            staged.put_in_place(info)
    assert list(folder.iterdir()) == []


def report_list_id(connection: object, period: str) -> int:
    info = lists.latest_list(connection, period)  # type: ignore[arg-type]
    assert info is not None
    return info.id


def test_a_list_read_as_arrow_columns_gives_the_files_of_the_list_read_by_the_driver(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A federation's list is read through a second connection as Arrow columns (a process of
    its own on SQLite): the same entries, nulls and dates as the driver reads, the same files."""
    events = histories.history(events=30, seed=11)
    # Players without a country, between players with one (SQLite's columnar read types a
    # column from its first rows); the first players' country missing too.
    events = [
        [Row(**{**r.__dict__, "country": "" if int(r.player_id) % 3 == 0 else r.country})
         for r in event]
        for event in events
    ]  # fmt: skip
    import_files(
        engine, [histories.write_csv(events, tmp_path / "h.csv")], imported_by="t", now=NOW
    )
    run_ratings(engine, PARAMS, now=NOW)
    done = publish_with_files(
        engine, "2022-09", ListOptions(), publish_dir=tmp_path / "first", params=PARAMS,
        by="officer", now=NOW,
    )  # fmt: skip
    paths: list[str] = []
    opened = columnar.reader

    @contextmanager
    def recorded(connection: Connection, *, fast: bool) -> Iterator[columnar.Reader]:
        with opened(connection, fast=fast) as found:
            yield found
        paths.append(found.path if found.fallbacks == 0 else "fell back")

    monkeypatch.setattr(columnar, "reader", recorded)
    monkeypatch.setattr(list_columns, "COLUMNAR_FROM", 0)
    with engine.connect() as connection:
        driver = lists.list_entries_of(connection, done.info.id)
        arrow = list_columns.shown_entries(connection, done.info.id, size=done.info.players)
    assert paths == [
        columnar.SQLITE_PROCESS if engine.dialect.name == "sqlite" else columnar.POSTGRESQL_SNAPSHOT
    ]
    assert driver["country"].null_count() > 0
    assert driver["previous_rating"].null_count() == driver.height
    assert arrow.schema == list_columns.SHOWN_SCHEMA
    assert arrow.sort("federation_id").equals(
        driver.select(list(arrow.columns)).sort("federation_id")
    )
    publish_folder.write_list_files(engine, tmp_path / "arrow", "2022-09", "half_up")
    assert len(paths) == 2

    # When the second connection fails, the job's own reads the same columns.
    @contextmanager
    def failed(connection: Connection, *, fast: bool) -> Iterator[columnar.Reader]:
        yield columnar.Reader(connection)

    monkeypatch.setattr(columnar, "reader", failed)
    with engine.connect() as connection:
        fallen = list_columns.shown_entries(connection, done.info.id, size=done.info.players)
    assert fallen.sort("federation_id").equals(arrow.sort("federation_id"))
    monkeypatch.setattr(columnar, "reader", recorded)
    monkeypatch.setattr(list_columns, "COLUMNAR_FROM", done.info.players + 1)
    publish_folder.write_list_files(engine, tmp_path / "driver", "2022-09", "half_up")
    assert len(paths) == 2
    same_files(tmp_path / "arrow", tmp_path / "driver")
    same_files(tmp_path / "first", tmp_path / "driver")
