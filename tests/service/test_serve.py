"""One scheduled run of the monthly job, with the clock as an input: what it does and logs."""

from __future__ import annotations

import dataclasses
import logging
from datetime import UTC, datetime
from pathlib import Path

import pytest

from jobs.queries import recent_jobs
from service.serve import scheduled_job
from service.settings import Configuration, Settings, configure, open_database
from tests.support import histories
from tests.support.db import created


def configuration(tmp_path: Path, **values: str) -> Configuration:
    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]
        database_url=created(f"sqlite:///{tmp_path / 'ratings.sqlite'}"),
        inbox_dir=tmp_path / "inbox",
        publish_dir=tmp_path / "publish",
        **values,
    )
    return configure(settings)


def events(caplog: pytest.LogCaptureFixture) -> dict[str, logging.LogRecord]:
    return {getattr(r, "event", ""): r for r in caplog.records if r.name == "ratings.service"}


def test_a_scheduled_run_takes_the_period_from_the_federations_date(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    config = configuration(tmp_path, timezone="Europe/Zurich")
    (tmp_path / "inbox").mkdir()
    histories.write_csv(histories.history(events=4), tmp_path / "inbox" / "results.csv")
    # 00:30 on 1 November in Zurich, still October in UTC.
    clock = lambda: datetime(2026, 10, 31, 23, 30, tzinfo=UTC)  # noqa: E731
    with caplog.at_level(logging.INFO, logger="ratings.service"):
        scheduled_job(config, clock)
    logged = events(caplog)
    assert logged["job_started"].today == "2026-11-01"  # type: ignore[attr-defined]
    finished = logged["job_finished"]
    assert (finished.period, finished.files_accepted) == ("2026-11", 1)  # type: ignore[attr-defined]
    assert (tmp_path / "publish" / "2026-11" / "ranking.csv").is_file()
    engine = open_database(config.database_url)
    with engine.connect() as connection:
        run = recent_jobs(connection, 1).row(0, named=True)
    engine.dispose()
    assert run["started_at"] == datetime(2026, 10, 31, 23, 30, tzinfo=UTC)


def test_a_failed_run_is_logged_and_a_bug_with_its_traceback(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jobs import monthly

    def broken(*_args: object, **_kwargs: object) -> None:
        raise ValueError("a bug")

    monkeypatch.setattr(monthly, "run_monthly", broken)
    with caplog.at_level(logging.INFO, logger="ratings.service"):
        scheduled_job(configuration(tmp_path), lambda: datetime(2026, 11, 1, 3, tzinfo=UTC))
    failed = events(caplog)["job_failed"]
    assert (failed.error, failed.kind) == ("a bug", "ValueError")  # type: ignore[attr-defined]
    assert failed.exc_info is not None


def test_a_database_that_cannot_be_opened_is_one_log_event(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    config = configuration(tmp_path)
    config = dataclasses.replace(
        config, database_url="postgresql+psycopg://postgres@127.0.0.1:5433/ratings"
    )
    with caplog.at_level(logging.INFO, logger="ratings.service"):
        scheduled_job(config, lambda: datetime(2026, 11, 1, 3, tzinfo=UTC))
    logged = events(caplog)
    unavailable = logged["database_unavailable"]
    assert unavailable.error == (  # type: ignore[attr-defined]
        "cannot connect to the database server at 127.0.0.1:5433: connection refused "
        "(is the server running, and is this its port?)"
    )
    assert (unavailable.kind, unavailable.exc_info) == ("DatabaseUnreachableError", None)  # type: ignore[attr-defined]
    assert "job_failed" not in logged
