"""One date for the whole service: a monthly run by hand and the scheduled run, at the same
instant, pick the same period, the federation's, whatever the machine's or UTC's date is."""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from service.cli import cli
from service.cli.base import State
from service.serve import scheduled_job
from service.settings import load
from tests.support import histories
from tests.support.db import created
from tests.support.settings import empty_settings_file

# 00:30 on 1 November in Zurich; in UTC it is still 31 October.
INSTANT = datetime(2026, 10, 31, 23, 30, tzinfo=UTC)


@pytest.fixture
def zurich(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("RATINGS_CONFIG", empty_settings_file(tmp_path))
    monkeypatch.setenv("RATINGS_TIMEZONE", "Europe/Zurich")
    monkeypatch.setenv("RATINGS_INBOX_DIR", str(tmp_path / "inbox"))
    return tmp_path


def results_waiting(inbox: Path) -> None:
    """A file in the inbox: a list is published only with someone rated."""
    inbox.mkdir(parents=True, exist_ok=True)
    histories.write_csv(histories.history(events=4), inbox / "results.csv")


def by_hand(folder: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    results_waiting(folder / "inbox")
    monkeypatch.setenv("RATINGS_DATABASE_URL", created(f"sqlite:///{folder / 'by-hand.sqlite'}"))
    monkeypatch.setenv("RATINGS_PUBLISH_DIR", str(folder / "by-hand"))
    result = CliRunner().invoke(
        cli, ["monthly"], obj=State(clock=lambda: INSTANT), catch_exceptions=False
    )
    assert result.exit_code == 0, result.stderr
    (published,) = [line for line in result.stdout.splitlines() if line.startswith("published")]
    return published.split()[1]


def scheduled(
    folder: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> str:
    results_waiting(folder / "inbox")
    monkeypatch.setenv("RATINGS_DATABASE_URL", created(f"sqlite:///{folder / 'scheduled.sqlite'}"))
    monkeypatch.setenv("RATINGS_PUBLISH_DIR", str(folder / "scheduled"))
    with caplog.at_level(logging.INFO, logger="ratings.service"):
        scheduled_job(load(), lambda: INSTANT)
    (finished,) = [r for r in caplog.records if getattr(r, "event", None) == "job_finished"]
    return str(finished.period)  # type: ignore[attr-defined]


def test_by_hand_and_on_schedule_the_same_period(
    zurich: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    assert by_hand(zurich, monkeypatch) == "2026-11"
    assert scheduled(zurich, monkeypatch, caplog) == "2026-11"
    assert sorted(p.name for p in (zurich / "by-hand").iterdir()) == ["2026-11", "latest.json"]
    assert sorted(p.name for p in (zurich / "scheduled").iterdir()) == ["2026-11", "latest.json"]


def test_the_live_ranking_is_as_of_the_federations_date(
    zurich: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RATINGS_DATABASE_URL", f"sqlite:///{zurich / 'r.sqlite'}")
    created(f"sqlite:///{zurich / 'r.sqlite'}")
    result = CliRunner().invoke(
        cli, ["ranking", "--format", "html"], obj=State(clock=lambda: INSTANT),
        catch_exceptions=False,
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert "tournaments ending on or before 2026-11-01" in result.stdout
