"""The service's scheduled backups: after each monthly job by default, or on a schedule of their
own, the oldest beyond ``backup_keep`` deleted; the newest one's time and outcome in ``/health``
and ``ratings jobs``, and a failure mailed as a failed run is."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from click.testing import CliRunner
from fastapi.testclient import TestClient

from jobs.backup import archives_in
from ratings.storage.database import open_engine
from service.cli import cli
from service.scheduler import build_scheduler
from service.serve import backup_schedule, monthly_then_backup, scheduled_backup
from service.settings import Configuration, Settings, configure
from service.web import create_app
from tests.service.test_notices import Inbox
from tests.support import histories
from tests.support.settings import empty_settings_file

NOW = datetime(2026, 11, 1, 3, tzinfo=UTC)


def clock() -> datetime:
    return NOW


def configuration(tmp_path: Path, url: str, **values: Any) -> Configuration:
    return configure(
        Settings(
            _env_file=None,  # type: ignore[call-arg]
            database_url=url,
            inbox_dir=tmp_path / "inbox",
            publish_dir=tmp_path / "publish",
            backup_dir=tmp_path / "backups",
            **values,
        )
    )


@pytest.fixture
def smtp() -> Iterator[tuple[Inbox, int]]:
    """A local mail server and its port."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    inbox = Inbox()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield inbox, port
    finally:
        controller.stop()


@pytest.fixture
def url(database_url: str) -> str:
    open_engine(database_url).dispose()
    return database_url


def jobs_output(tmp_path: Path, url: str, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("RATINGS_DATABASE_URL", url)
    monkeypatch.setenv("RATINGS_CONFIG", empty_settings_file(tmp_path))
    monkeypatch.setenv("RATINGS_INBOX_DIR", str(tmp_path / "inbox"))
    monkeypatch.setenv("RATINGS_BACKUP_DIR", str(tmp_path / "backups"))
    return CliRunner().invoke(cli, ["jobs"])


def test_the_monthly_job_is_followed_by_a_backup(
    url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = configuration(tmp_path, url)
    (tmp_path / "inbox").mkdir()
    histories.write_csv(histories.history(events=4), tmp_path / "inbox" / "results.csv")
    monthly_then_backup(config, clock)
    (made,) = archives_in(tmp_path / "backups")
    assert made.name.startswith("ratings-2026-11-01-030000-r")
    engine = open_engine(url)
    try:
        body = TestClient(create_app(engine, config.web)).get("/health").json()
    finally:
        engine.dispose()
    assert body["status"] == "ok"
    assert body["last_run"]["kind"] == "monthly"
    backup = body["last_backup"]
    assert (backup["kind"], backup["outcome"], backup["error"]) == ("backup", "succeeded", None)
    assert backup["started_at"].startswith("2026-11-01T03:00:00")
    result = jobs_output(tmp_path, url, monkeypatch)
    assert result.exit_code == 0
    assert (
        f"backups {tmp_path / 'backups'}: the newest scheduled backup succeeded at"
        f" 2026-11-01 03:00:00, newest archive {made}\n"
    ) in result.stdout


def test_backups_may_be_off_or_on_a_schedule_of_their_own(url: str, tmp_path: Path) -> None:
    (tmp_path / "inbox").mkdir()
    off = configuration(tmp_path, url, backup_schedule="off")
    monthly_then_backup(off, clock)
    assert archives_in(tmp_path / "backups") == []
    assert backup_schedule(off) is None
    nightly = configuration(tmp_path, url, backup_schedule="30 2 * * *")
    monthly_then_backup(nightly, clock)
    assert archives_in(tmp_path / "backups") == []
    schedule = backup_schedule(nightly)
    assert schedule is not None
    scheduler = build_scheduler(nightly.schedule, nightly.timezone, lambda: None, schedule)
    job = scheduler.get_job("backup")
    assert (
        str(job.trigger)
        == "cron[month='*', day='*', day_of_week='*', hour='2', minute='30', second='0']"
    )


def test_a_bad_backup_schedule_stops_the_service_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RATINGS_CONFIG", empty_settings_file(tmp_path))
    monkeypatch.setenv("RATINGS_BACKUP_SCHEDULE", "nightly")
    result = CliRunner().invoke(cli, ["serve"])
    assert result.exit_code == 1
    assert result.stderr == (
        "error: backup_schedule 'nightly' is not a cron expression: expected 5 or 6 fields,"
        " found 1\n"
    )


def test_only_the_newest_are_kept(url: str, tmp_path: Path) -> None:
    config = configuration(tmp_path, url, backup_keep=2)
    for day in (1, 2, 3):
        scheduled_backup(config, lambda day=day: datetime(2026, 11, day, 3, tzinfo=UTC))
    kept = archives_in(tmp_path / "backups")
    assert [p.name[:18] for p in kept] == ["ratings-2026-11-02", "ratings-2026-11-03"]
    # Files the service did not name are never deleted.
    (tmp_path / "backups" / "by-hand.zip").write_text("x")
    scheduled_backup(config, lambda: datetime(2026, 11, 4, 3, tzinfo=UTC))
    assert (tmp_path / "backups" / "by-hand.zip").exists()


def test_a_failed_backup_is_mailed_and_shown(
    url: str,
    tmp_path: Path,
    smtp: tuple[Inbox, int],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    received, port = smtp
    (tmp_path / "backups").write_text("a file where the folder should be")
    config = configuration(
        tmp_path, url, smtp_host="127.0.0.1", smtp_port=port, mail_to="officer@example.org"
    )
    scheduled_backup(config, clock)
    (mail,) = received.messages
    assert mail["Subject"] == "[ratings] the scheduled backup failed"
    assert "cannot make the folder" in mail.get_payload()  # type: ignore[operator]
    engine = open_engine(url)
    try:
        body = TestClient(create_app(engine, config.web)).get("/health").json()
    finally:
        engine.dispose()
    assert body["status"] == "attention"
    assert body["last_backup"]["outcome"] == "failed"
    assert body["last_run"] is None
    result = jobs_output(tmp_path, url, monkeypatch)
    assert result.exit_code == 1
    assert "the newest scheduled backup failed at 2026-11-01 03:00:00" in result.stdout
    assert result.stderr.startswith("the newest backup failed: cannot make the folder ")
