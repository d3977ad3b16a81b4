"""The schedule (pure trigger, fixed clock) and a real `ratings serve` process running the job."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import httpx
import pytest

from ratings.errors import ConfigurationError
from ratings.storage import runs as job_runs
from ratings.storage.database import open_engine
from service.scheduler import MISFIRE_GRACE_SECONDS, build_scheduler, cron_trigger
from tests.support import histories
from tests.support.db import created
from tests.support.settings import empty_settings_file

ZURICH = ZoneInfo("Europe/Zurich")


def next_runs(expression: str, zone: str, start: datetime, count: int = 3) -> list[str]:
    trigger = cron_trigger(expression, zone)
    times, previous, now = [], None, start
    for _ in range(count):
        fire = trigger.get_next_fire_time(previous, now)
        assert fire is not None
        times.append(fire.isoformat())
        previous, now = fire, fire
    return times


def test_the_default_schedule_is_03_00_on_the_first_in_the_federations_zone() -> None:
    start = datetime(2026, 11, 22, 12, 0, tzinfo=ZURICH)
    assert next_runs("0 3 1 * *", "Europe/Zurich", start) == [
        "2026-12-01T03:00:00+01:00",
        "2027-01-01T03:00:00+01:00",
        "2027-02-01T03:00:00+01:00",
    ]


def test_summer_time_keeps_the_local_hour() -> None:
    start = datetime(2027, 2, 15, tzinfo=ZURICH)
    assert next_runs("0 3 1 * *", "Europe/Zurich", start, 2) == [
        "2027-03-01T03:00:00+01:00",
        "2027-04-01T03:00:00+02:00",
    ]


def test_weekdays_are_numbered_as_in_cron() -> None:
    # 2026-11-22 is a Sunday: cron's 0 and 7 are Sunday, 1 is Monday.
    start = datetime(2026, 11, 22, 12, 0, tzinfo=ZoneInfo("UTC"))
    assert next_runs("0 3 * * 0", "UTC", start, 1) == ["2026-11-29T03:00:00+00:00"]
    assert next_runs("0 3 * * 7", "UTC", start, 1) == ["2026-11-29T03:00:00+00:00"]
    assert next_runs("0 3 * * 1-5", "UTC", start, 2) == [
        "2026-11-23T03:00:00+00:00",
        "2026-11-24T03:00:00+00:00",
    ]


def test_six_fields_put_seconds_first() -> None:
    start = datetime(2026, 11, 22, 12, 0, 0, tzinfo=ZoneInfo("UTC"))
    assert next_runs("*/20 * * * * *", "UTC", start, 3) == [
        "2026-11-22T12:00:00+00:00",
        "2026-11-22T12:00:20+00:00",
        "2026-11-22T12:00:40+00:00",
    ]


@pytest.mark.parametrize(
    ("expression", "zone", "message"),
    [
        (
            "0 3 1 *",
            "UTC",
            r"schedule '0 3 1 \*' is not a cron expression: expected 5 or 6 fields, found 4",
        ),
        ("0 27 1 * *", "UTC", "schedule '0 27 1 \\* \\*' is not a cron expression"),
        (
            "0 3 1 * *",
            "Mars/Olympus",
            "timezone must be an IANA time zone such as Europe/Zurich, not 'Mars/Olympus'",
        ),
    ],
)
def test_bad_schedules(expression: str, zone: str, message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        cron_trigger(expression, zone)


def test_the_job_runs_one_at_a_time_and_coalesces_missed_runs() -> None:
    scheduler = build_scheduler("0 3 1 * *", "Europe/Zurich", lambda: None)
    job = scheduler.get_job("monthly")
    assert (job.coalesce, job.max_instances, job.misfire_grace_time) == (
        True,
        1,
        MISFIRE_GRACE_SECONDS,
    )


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.slow
def test_serve_runs_the_job_on_its_schedule_and_answers_http(tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    histories.write_csv(histories.history(events=8), inbox / "results.csv")
    port = free_port()
    url = created(f"sqlite:///{tmp_path / 'serve.sqlite'}")
    environment = {
        **os.environ,
        "RATINGS_DATABASE_URL": url,
        "RATINGS_INBOX_DIR": str(inbox),
        "RATINGS_PUBLISH_DIR": str(tmp_path / "publish"),
        "RATINGS_SCHEDULE": "*/2 * * * * *",
        "RATINGS_HTTP_PORT": str(port),
        "RATINGS_CONFIG": empty_settings_file(tmp_path),
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "service.cli", "serve"],
        env=environment,
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        outcome = None
        while time.monotonic() < deadline and outcome is None:
            time.sleep(1)
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
            engine = open_engine(url)
            with engine.connect() as connection:
                runs = job_runs.recent_jobs(connection)
            engine.dispose()
            # The first run takes the file; on a busy machine a second run (every 2 s, finding
            # the inbox empty) may have finished before this look, so take the oldest.
            done = runs.filter(runs["outcome"] == "succeeded")
            outcome = done.row(done.height - 1, named=True) if done.height else None
        assert outcome is not None, "the scheduled job did not run within 60 s"
        assert (outcome["kind"], outcome["files_accepted"]) == ("monthly", 1)
        health = httpx.get(f"http://127.0.0.1:{port}/health", timeout=10)
        assert health.status_code == 200
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            _, errors = process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            _, errors = process.communicate()
    events = [json.loads(line) for line in errors.splitlines() if line.startswith("{")]
    names = [e.get("event") for e in events]
    assert "scheduler_started" in names
    assert "job_finished" in names
    assert "service_stopped" in names
    assert all({"time", "level", "logger", "message"} <= set(e) for e in events)
