"""The monthly job: inbox to archive or rejected, rating, publication, exports, job records, the
job lock, and the promise that a job killed at any point loses nothing (SPEC 8)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.engine import Engine
from sqlalchemy.exc import OperationalError

from jobs import monthly
from jobs.folder import StagedRankings, write_list_files
from jobs.locking import job_lock
from jobs.monthly import run_monthly
from jobs.options import MonthlyOptions
from ratings.errors import JobLockedError
from ratings.storage import lists as rating_lists
from ratings.storage import runs
from ratings.storage.database import open_engine
from ratings.storage.schema import (
    list_entries,
    player_totals,
    players,
    rating_changes,
    tournaments,
)
from tests.jobs.test_folder import same_files
from tests.storage.test_database import rows_in_the_file_alone
from tests.support import histories
from tests.support.data import DATA
from tests.support.db import created
from tests.support.settings import empty_settings_file

TODAY = date(2023, 1, 15)


def clock() -> datetime:
    return datetime(2023, 1, 15, 3, 0, tzinfo=UTC)


def fill_inbox(inbox: Path) -> list[str]:
    """Three good files (one of them dated before the others, as late files are) and a bad one."""
    inbox.mkdir(parents=True, exist_ok=True)
    events = histories.history(events=30)
    names = []
    for index, chunk in enumerate([events[10:20], events[20:], events[:10]]):
        path = histories.write_csv(chunk, inbox / f"results-{index}.csv")
        os.utime(path, (1_700_000_000 + index, 1_700_000_000 + index))
        names.append(path.name)
    bad = inbox / "broken.csv"
    bad.write_text(
        "tournament,end_date,name,wins,draws,losses,buchholz\nCup,2022-13-01,Ann,1,0,0,0\n"
    )
    os.utime(bad, (1_700_000_100, 1_700_000_100))
    return names


def options_for(tmp_path: Path) -> MonthlyOptions:
    return MonthlyOptions(
        inbox_dir=tmp_path / "inbox", publish_dir=tmp_path / "publish", imported_by="officer"
    )


def test_a_monthly_run(engine: Engine, tmp_path: Path) -> None:
    options = options_for(tmp_path)
    good = fill_inbox(options.inbox_dir)
    report = run_monthly(engine, options, today=TODAY, clock=clock)
    assert report.period == "2023-01"
    assert sorted(report.accepted) == sorted(good)
    assert report.rejected == ["broken.csv"]
    assert report.tournaments_rated == 30
    assert report.published_version == 1
    inbox = options.inbox_dir
    assert sorted(p.name for p in (inbox / "archive" / "2023-01").iterdir()) == sorted(good)
    assert not any(p.is_file() for p in inbox.iterdir())
    errors = (inbox / "rejected" / "broken.csv.errors.txt").read_text()
    assert (
        "broken.csv, line 2, column 'end_date': value '2022-13-01': not a real calendar date"
        in errors
    )
    folder = options.publish_dir / "2023-01"
    assert sorted(p.name for p in folder.iterdir()) == [
        "ranking-all.csv", "ranking.csv", "ranking.html", "ranking.json", "ranking.xlsx",
        "statistics.json",
    ]  # fmt: skip
    statistics = json.loads((folder / "statistics.json").read_text())
    assert (statistics["period"], statistics["cutoff"]) == ("2023-01", "2022-12-31")
    with engine.connect() as connection:
        job = runs.recent_jobs(connection).row(0, named=True)
    assert (job["kind"], job["outcome"], job["files_accepted"], job["files_rejected"]) == (
        "monthly",
        "succeeded",
        3,
        1,
    )
    assert (job["tournaments_rated"], job["list_period"]) == (30, "2023-01")

    again = run_monthly(engine, options, today=TODAY, clock=clock)
    assert (again.accepted, again.rejected, again.published_version) == ([], [], None)


def test_a_second_job_stops_with_a_clear_message(engine: Engine, tmp_path: Path) -> None:
    options = options_for(tmp_path)
    with (
        job_lock(engine),
        pytest.raises(
            JobLockedError, match=r"another job is running on this database \(waited 0.6 s\)"
        ),
    ):
        run_monthly(engine, options, today=TODAY, clock=clock, wait=0.6)


def test_a_database_error_fails_the_run_without_a_list(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    options = options_for(tmp_path)
    fill_inbox(options.inbox_dir)

    def gone(*_args: Any, **_kwargs: Any) -> None:
        raise OperationalError(
            "UPDATE players", {}, Exception("server closed the connection unexpectedly")
        )

    monkeypatch.setattr(monthly, "rate_pending", gone)
    with pytest.raises(OperationalError):
        run_monthly(engine, options, today=TODAY, clock=clock)
    with engine.connect() as connection:
        job = runs.recent_jobs(connection).row(0, named=True)
        assert rating_lists.latest_list(connection) is None
        assert connection.execute(select(tournaments.c.id)).first() is None
    assert job["outcome"] == "failed"
    assert "server closed the connection unexpectedly" in job["error"]
    assert len([p for p in options.inbox_dir.iterdir() if p.is_file()]) == 4


# --- killed jobs ----------------------------------------------------------------------------

CRASH_POINTS = ["import", "rating", "publish", "commit", "archive"]


def run_job(url: str, tmp_path: Path, crash: str | None) -> subprocess.CompletedProcess[str]:
    environment = {
        **os.environ,
        "RATINGS_DATABASE_URL": created(url),
        "RATINGS_INBOX_DIR": str(tmp_path / "inbox"),
        "RATINGS_PUBLISH_DIR": str(tmp_path / "publish"),
        "RATINGS_CONFIG": empty_settings_file(tmp_path),
    }
    environment.pop(monthly.CRASH_ENVIRONMENT, None)
    if crash:
        environment[monthly.CRASH_ENVIRONMENT] = crash
    command = [sys.executable, "-m", "service.cli", "monthly", "--period", "2023-01"]
    return subprocess.run(
        command, env=environment, capture_output=True, text=True, timeout=120, check=False
    )


def outcome(engine: Engine, tmp_path: Path) -> tuple[Any, ...]:
    """Everything a run leaves: ratings, rating changes, the list, the files and the exports."""
    with engine.connect() as connection:
        ratings = sorted(
            connection.execute(
                select(players.c.federation_id, player_totals.c.rating).select_from(
                    players.outerjoin(player_totals, player_totals.c.player_id == players.c.id)
                )
            ).all()
        )
        changes = sorted(
            connection.execute(
                select(
                    tournaments.c.key, rating_changes.c.player_id, rating_changes.c.rating_after
                ).join(tournaments, tournaments.c.id == rating_changes.c.tournament_id)
            ).all()
        )
        entries = sorted(
            connection.execute(select(list_entries.c.federation_id, list_entries.c.rating)).all()
        )
        lists = [(i.period, i.version, i.players) for i in rating_lists.all_lists(connection)]
    files = sorted(
        str(p.relative_to(tmp_path))
        for p in tmp_path.rglob("*")
        if p.is_file()
        and p.suffix != ".sqlite"
        and "sqlite" not in p.name
        and "job-lock" not in p.name
    )
    csv_export = (tmp_path / "publish" / "2023-01" / "ranking.csv").read_text()
    return ratings, changes, entries, lists, files, csv_export


@pytest.fixture(scope="module")
def clean_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, ...]:
    folder = tmp_path_factory.mktemp("clean")
    fill_inbox(folder / "inbox")
    url = f"sqlite:///{folder / 'clean.sqlite'}"
    assert run_job(url, folder, None).returncode == 0
    engine = open_engine(url)
    try:
        return outcome(engine, folder)
    finally:
        engine.dispose()


@pytest.mark.slow
@pytest.mark.parametrize("point", CRASH_POINTS)
def test_a_killed_job_loses_nothing(
    database_url: str, tmp_path: Path, point: str, clean_run: tuple[Any, ...]
) -> None:
    fill_inbox(tmp_path / "inbox")
    killed = run_job(database_url, tmp_path, point)
    assert killed.returncode == monthly.KILLED_RETURNCODE, killed.stderr
    engine = open_engine(database_url)
    try:
        with engine.connect() as connection:
            published = rating_lists.latest_list(connection)
        # Before the commit nothing of the job is in the database; after it, all of it is.
        assert (published is None) == (point in ("import", "rating", "publish"))
        again = run_job(database_url, tmp_path, None)
        assert again.returncode == 0, again.stderr
        ratings, changes, entries, lists, files, export = outcome(engine, tmp_path)
    finally:
        engine.dispose()
    clean = clean_run
    # Player and database ids may differ between databases; compare by federation id and value.
    assert [r[1] for r in ratings] == [r[1] for r in clean[0]]
    assert sorted((k, a) for k, _, a in changes) == sorted((k, a) for k, _, a in clean[1])
    assert entries == clean[2]
    assert lists == clean[3]
    assert files == clean[4]
    assert export == clean[5]


def published_entries(engine: Engine, folder: Path) -> int:
    """The monthly job run on ``engine`` with an inbox in ``folder``: the entries of the one list
    it published."""
    fill_inbox(folder / "inbox")
    report = run_monthly(engine, options_for(folder), today=TODAY, clock=clock)
    assert report.published_version == 1
    with engine.connect() as connection:
        return int(connection.execute(select(func.count()).select_from(list_entries)).scalar_one())


def test_the_job_leaves_its_transaction_in_the_sqlite_file(tmp_path: Path) -> None:
    # Its commit leaves the copy into the database file to a checkpoint beside the exports,
    # which has run by the time the job returns.
    path = tmp_path / "ratings.sqlite"
    engine = open_engine(f"sqlite:///{path}")
    try:
        entries = published_entries(engine, tmp_path)
        assert entries
        assert rows_in_the_file_alone(path, "list_entries") == entries
    finally:
        engine.dispose()


@pytest.mark.slow
def test_a_job_killed_between_its_commit_and_the_checkpoint_loses_nothing(
    tmp_path: Path,
) -> None:
    path = tmp_path / "ratings.sqlite"
    url = f"sqlite:///{path}"
    fill_inbox(tmp_path / "inbox")
    killed = run_job(url, tmp_path, "commit")
    assert killed.returncode == monthly.KILLED_RETURNCODE, killed.stderr
    # The committed list is in the write-ahead log only, and read from there.
    assert not rows_in_the_file_alone(path, "list_entries")
    engine = open_engine(url)
    try:
        with engine.connect() as connection:
            published = rating_lists.latest_list(connection)
        assert published is not None
        assert published.period == "2023-01"
        again = run_job(url, tmp_path, None)
        assert again.returncode == 0, again.stderr
        with engine.connect() as connection:
            entries = connection.execute(select(func.count()).select_from(list_entries)).scalar()
    finally:
        engine.dispose()
    assert entries
    assert rows_in_the_file_alone(path, "list_entries") == entries


def test_readers_guesses_are_reported_next_to_the_archived_file(
    sqlite_engine: Engine, tmp_path: Path
) -> None:
    """A TRF with two-digit dates (the ICU's ``YY.MM.DD``) is imported and its guesses written."""
    options = options_for(tmp_path)
    options.inbox_dir.mkdir(parents=True)
    source = DATA / "corpus" / "trf" / "icu-armstrong-2012-with-bom.trf"
    (options.inbox_dir / source.name).write_bytes(source.read_bytes())
    report = run_monthly(sqlite_engine, options, today=TODAY, clock=clock)
    assert report.accepted == [source.name]
    assert len(report.warnings[source.name]) == 2
    archived = options.inbox_dir / "archive" / "2023-01"
    text = (archived / f"{source.name}.warnings.txt").read_text()
    assert text.startswith(f"{source.name} was imported; the reader guessed:\n\n")
    assert (
        f"{source.name}, line 4, column '5-14': value '11.09.26': 2011-09-26 "
        "(two-digit date read year first, YY.MM.DD)\n" in text
    )


def test_a_go_readers_guess_is_reported_next_to_the_archived_file(
    sqlite_engine: Engine, tmp_path: Path
) -> None:
    """An OpenGotha file whose end date precedes its start date: imported, the guess written."""
    options = options_for(tmp_path)
    options.inbox_dir.mkdir(parents=True)
    source = DATA / "corpus" / "go" / "remote-gp2020.xml"
    (options.inbox_dir / source.name).write_bytes(source.read_bytes())
    report = run_monthly(sqlite_engine, options, today=TODAY, clock=clock)
    assert report.accepted == [source.name]
    archived = options.inbox_dir / "archive" / "2023-01"
    text = (archived / f"{source.name}.warnings.txt").read_text()
    assert (
        f"{source.name}, line 100, column 'endDate': value '2020-01-03': an end date before the "
        "start date, 2020-12-12: the start date is taken as the end date" in text
    )


def test_an_h9_rank_without_k_or_d_is_reported_next_to_the_archived_file(
    sqlite_engine: Engine, tmp_path: Path
) -> None:
    options = options_for(tmp_path)
    options.inbox_dir.mkdir(parents=True)
    (options.inbox_dir / "cup.h9").write_text(
        "; EV[Club Cup]\n"
        "; DT[2022-12-03,2022-12-03]\n"
        "; Pl Name          Rk Co Club  NBW\n"
        "   1 Alpha Anna    12 FR Club    1    2+/w0   |11111111\n"
        "   2 Beta Bob       3 FR Club    0    1-/b0   |22222222\n",
        encoding="iso8859_15",
    )
    report = run_monthly(sqlite_engine, options, today=TODAY, clock=clock)
    assert report.accepted == ["cup.h9"]
    text = (options.inbox_dir / "archive" / "2023-01" / "cup.h9.warnings.txt").read_text()
    assert (
        "cup.h9, line 4, column 'Rk': value '12': rank 12 has no k/d: the rank is not used\n"
        in text
    )
    assert "cup.h9, line 5, column 'Rk': value '3': rank 3 has no k/d" in text


def test_a_match_by_name_alone_is_reported_next_to_the_archived_file(
    engine: Engine, tmp_path: Path
) -> None:
    from jobs.players import import_registry

    registry = tmp_path / "players.csv"
    registry.write_text("player_id,name,country\nP0000001,Klaus Klein,DEU\n", encoding="utf-8")
    import_registry(engine, registry, now=clock())
    options = options_for(tmp_path)
    options.inbox_dir.mkdir(parents=True)
    (options.inbox_dir / "club.csv").write_text(
        "tournament,end_date,name,country,wins,draws,losses,buchholz\n"
        'Club Night,2022-12-05,"KLEIN, Klaus",DE,1,0,0,0\n'
        "Club Night,2022-12-05,Anna Berg,DE,0,0,1,1\n",
        encoding="utf-8",
    )
    report = run_monthly(engine, options, today=TODAY, clock=clock)
    assert report.accepted == ["club.csv"]
    assert report.warnings["club.csv"] == [
        "matched by name alone: club.csv, line 2: 'KLEIN, Klaus' (DEU) is P0000001 Klaus Klein "
        "(DEU)"
    ]
    text = (options.inbox_dir / "archive" / "2023-01" / "club.csv.warnings.txt").read_text()
    assert "matched by name alone: club.csv, line 2: 'KLEIN, Klaus' (DEU)" in text


def test_a_run_failing_before_its_commit_leaves_no_file_of_its_list(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The list's files are written while the database stores it: a failure after that and
    # before the commit leaves neither the list nor any of its files, whole or partial.
    options = options_for(tmp_path)
    fill_inbox(options.inbox_dir)
    real = monthly.checkpoint

    def failing(name: str) -> None:
        real(name)
        if name == "publish":
            raise OperationalError("COMMIT", {}, Exception("disk I/O error"))

    monkeypatch.setattr(monthly, "checkpoint", failing)
    with pytest.raises(OperationalError):
        run_monthly(engine, options, today=TODAY, clock=clock)
    with engine.connect() as connection:
        assert rating_lists.latest_list(connection) is None
    folder = options.publish_dir / "2023-01"
    assert not folder.exists() or list(folder.iterdir()) == []
    monkeypatch.setattr(monthly, "checkpoint", real)
    report = run_monthly(engine, options, today=TODAY, clock=clock)
    assert report.published_version == 1
    assert sorted(p.name for p in folder.iterdir()) == [
        "ranking-all.csv", "ranking.csv", "ranking.html", "ranking.json", "ranking.xlsx",
        "statistics.json",
    ]  # fmt: skip


def test_a_list_cut_off_before_the_month_s_tournaments_has_its_files_written_while_stored(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A month's file with tournaments after the list's cut-off (the list is then computed by the
    job, not built by the database from the totals): its files are written while the database
    stores it and put in place after the commit, the same as those written from the list read
    back."""
    options = options_for(tmp_path)
    options.inbox_dir.mkdir(parents=True)
    # A tournament a week from 2022-01-08: the last two end in January 2023, after 2022-12-31.
    histories.write_csv(histories.history(events=53), options.inbox_dir / "year.csv")
    started: list[rating_lists.ListInfo] = []
    placed: list[list[Path] | None] = []
    start, put_in_place = StagedRankings.start, StagedRankings.put_in_place

    def staged_start(self: StagedRankings, info: rating_lists.ListInfo, entries: Any) -> None:
        started.append(info)
        start(self, info, entries)

    def staged_put(self: StagedRankings, info: rating_lists.ListInfo) -> list[Path] | None:
        placed.append(put_in_place(self, info))
        return placed[-1]

    monkeypatch.setattr(StagedRankings, "start", staged_start)
    monkeypatch.setattr(StagedRankings, "put_in_place", staged_put)
    report = run_monthly(engine, options, today=TODAY, clock=clock)
    assert report.published_version == 1
    with engine.connect() as connection:
        info = rating_lists.latest_list(connection, "2023-01")
        assert info is not None
        assert not rating_lists.totals_hold_list(connection, info.cutoff)
    assert started == [info]
    assert placed[0] is not None
    write_list_files(engine, tmp_path / "read", "2023-01", options.lists.rounding)
    same_files(options.publish_dir, tmp_path / "read")
