"""The officer hears about problems: a failed run, rejected files and files waiting show in
``/health`` and ``ratings jobs`` (which exits with 1 after a failed run), and can be mailed."""

from __future__ import annotations

import dataclasses
import socket
import time
import types
from collections.abc import Iterator
from datetime import UTC, datetime
from email import message_from_bytes
from email.message import Message
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from click.testing import CliRunner
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine

from jobs.runs import recorded
from service.cli import cli
from service.serve import scheduled_job
from service.settings import Configuration, MailOptions, Settings, configure
from service.web import create_app, health
from tests.support import histories
from tests.support.db import created, snapshot
from tests.support.settings import empty_settings_file

NOW = datetime(2026, 11, 1, 3, tzinfo=UTC)


def clock() -> datetime:
    return NOW


def fail_a_run(engine: Engine) -> None:
    with pytest.raises(RuntimeError), recorded(engine, "monthly", clock):
        raise RuntimeError("server closed the connection")


class Inbox:
    """What a local SMTP server received."""

    def __init__(self) -> None:
        self.messages: list[Message] = []

    async def handle_DATA(self, _server: Any, _session: Any, envelope: Any) -> str:
        self.messages.append(message_from_bytes(envelope.content))
        return "250 OK"


@pytest.fixture
def smtp() -> Iterator[tuple[Inbox, int]]:
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


def configuration(tmp_path: Path, **values: Any) -> Configuration:
    return configure(
        Settings(
            _env_file=None,  # type: ignore[call-arg]
            database_url=created(f"sqlite:///{tmp_path / 'ratings.sqlite'}"),
            inbox_dir=tmp_path / "inbox",
            publish_dir=tmp_path / "publish",
            **values,
        )
    )


def test_mail_is_off_by_default(tmp_path: Path) -> None:
    assert configuration(tmp_path).mail == MailOptions()
    assert not configuration(tmp_path).mail.enabled
    assert not configuration(tmp_path, smtp_host="127.0.0.1").mail.enabled


def test_a_failed_scheduled_run_is_mailed(
    tmp_path: Path, smtp: tuple[Inbox, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    from jobs import monthly

    received, port = smtp
    config = configuration(
        tmp_path,
        smtp_host="127.0.0.1",
        smtp_port=port,
        mail_to="officer@example.org, td@example.org",
    )

    def broken(*_args: object, **_kwargs: object) -> None:
        raise ValueError("disk full")

    monkeypatch.setattr(monthly, "run_monthly", broken)
    scheduled_job(config, clock)
    assert len(received.messages) == 1
    mail = received.messages[0]
    assert mail["Subject"] == "[ratings] the monthly job failed"
    assert mail["To"] == "officer@example.org, td@example.org"
    assert "disk full" in mail.get_payload()  # type: ignore[operator]


def test_rejected_files_are_mailed(tmp_path: Path, smtp: tuple[Inbox, int]) -> None:
    received, port = smtp
    config = configuration(tmp_path, smtp_host="127.0.0.1", smtp_port=port, mail_to="o@example.org")
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    histories.write_csv(histories.history(events=4), inbox / "good.csv")
    (inbox / "bad.csv").write_text("tournament,end_date,name,wins\nCup,2022-13-01,Ann,1\n")
    scheduled_job(config, clock)
    assert [m["Subject"] for m in received.messages] == [
        "[ratings] 1 file rejected by the 2026-11 run"
    ]
    assert "bad.csv" in received.messages[0].get_payload()  # type: ignore[operator]


def test_a_mail_server_that_does_not_answer_fails_nothing(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = configuration(tmp_path, smtp_host="127.0.0.1", smtp_port=port, mail_to="o@example.org")
    (tmp_path / "inbox").mkdir()
    histories.write_csv(histories.history(events=4), tmp_path / "inbox" / "results.csv")
    scheduled_job(config, clock)
    assert (tmp_path / "publish" / "2026-11" / "ranking.csv").is_file()


def test_health_shows_the_last_run_and_the_inbox(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every request takes its own check here (the server answers from one a second old).
    monkeypatch.setattr(health, "FRESH_FOR", 0.0)
    options = configure(Settings(_env_file=None, inbox_dir=tmp_path / "inbox")).web  # type: ignore[call-arg]
    web = TestClient(create_app(engine, options))
    assert web.get("/health").json() == {
        "status": "ok",
        "database": "ok",
        "last_run": None,
        "inbox": {"waiting": 0, "corrections": 0, "rejected": 0},
        "last_backup": None,
    }
    fail_a_run(engine)
    (tmp_path / "inbox" / "rejected").mkdir(parents=True)
    (tmp_path / "inbox" / "rejected" / "x.csv").write_text("x")
    (tmp_path / "inbox" / "rejected" / "x.csv.errors.txt").write_text("x")
    (tmp_path / "inbox" / "new.csv").write_text("x")
    (tmp_path / "inbox" / "corrections").mkdir()
    (tmp_path / "inbox" / "corrections" / "fix.csv").write_text("x")
    response = web.get("/health")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "attention"
    assert body["inbox"] == {"waiting": 1, "corrections": 1, "rejected": 1}
    run = body["last_run"]
    assert (run["kind"], run["outcome"], run["error"]) == (
        "monthly",
        "failed",
        "server closed the connection",
    )
    assert run["started_at"].startswith("2026-11-01T03:00:00")


def test_health_answers_from_a_check_a_moment_old_and_takes_the_next_meanwhile(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A check answers every request for FRESH_FOR seconds; the first request after that still
    # gets it, at once, while a new check is taken in the background for the next ones. The
    # check's clock is the test's: a slow machine's seconds do not move it.
    clock_now = [1000.0]
    monkeypatch.setattr(health, "time", types.SimpleNamespace(monotonic=lambda: clock_now[0]))
    options = configure(Settings(_env_file=None, inbox_dir=tmp_path / "inbox")).web  # type: ignore[call-arg]
    with TestClient(create_app(engine, options)) as web:
        assert web.get("/health").json()["last_run"] is None
        fail_a_run(engine)
        clock_now[0] += health.FRESH_FOR / 2
        assert web.get("/health").json()["last_run"] is None
        clock_now[0] += health.FRESH_FOR
        assert web.get("/health").json()["last_run"] is None
        deadline = time.monotonic() + 10
        while web.get("/health").json()["status"] != "attention":
            assert time.monotonic() < deadline, "the check after the run was never taken"
            time.sleep(0.05)
        assert web.get("/health").json()["last_run"]["outcome"] == "failed"


def test_ratings_jobs_exits_with_1_after_a_failed_run(
    engine: Engine, database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RATINGS_DATABASE_URL", database_url)
    monkeypatch.setenv("RATINGS_CONFIG", empty_settings_file(tmp_path))
    monkeypatch.setenv("RATINGS_INBOX_DIR", str(tmp_path / "inbox"))
    runner = CliRunner()
    with recorded(engine, "monthly", clock):
        pass
    result = runner.invoke(cli, ["jobs"])
    assert result.exit_code == 0
    assert "0 files waiting, 0 corrections waiting, 0 rejected" in result.stdout
    fail_a_run(engine)
    result = runner.invoke(cli, ["jobs"])
    assert result.exit_code == 1
    assert "failed" in result.stdout
    assert result.stderr == "the last run (monthly) failed: server closed the connection\n"


def test_the_ranking_and_the_website_say_when_ratings_are_pending(
    engine: Engine, database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jobs.importing import import_files
    from jobs.players import merge_players
    from jobs.publishing import publish_list
    from jobs.rating import run_ratings
    from ratings.formula import MeloParams

    import_files(
        engine,
        [histories.write_csv(histories.split_history(), tmp_path / "split.csv")],
        imported_by="t",
        now=NOW,
    )
    run_ratings(engine, MeloParams(), now=NOW)
    options = configuration(tmp_path)
    publish_list(engine, "2022-09", options.lists, by="officer", now=NOW)
    web = TestClient(create_app(engine, options.web))
    assert "recalculated" not in web.get("/").text
    monkeypatch.setenv("RATINGS_DATABASE_URL", database_url)
    monkeypatch.setenv("RATINGS_CONFIG", empty_settings_file(tmp_path))
    runner = CliRunner()
    assert "note:" not in runner.invoke(cli, ["ranking"]).stderr

    merge_players(engine, "3", "103", by="officer", now=NOW)
    assert "ratings are being recalculated; the next list includes the changes" in web.get("/").text
    assert runner.invoke(cli, ["ranking"]).stderr == (
        "note: ratings must be re-rated (player 103 was merged into 3): run `ratings run` first\n"
    )
    slower = configuration(tmp_path, k_regular=7)
    run_ratings(engine, MeloParams(), now=NOW)
    assert "recalculated" not in web.get("/").text
    assert "recalculated" in TestClient(create_app(engine, slower.web)).get("/").text


EMPTY = (
    "the 2026-07 list would have no player: nobody is rated by its cut-off 2026-06-30 (import"
    " results and rate them first, or check that database_url is the federation's database)"
)


def test_an_empty_database_publishes_nothing_and_the_run_is_failed(
    engine: Engine,
    database_url: str,
    tmp_path: Path,
    smtp: tuple[Inbox, int],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A database with the schema and nothing rated, as a cron line on the wrong database
    finds it: `publish` and `monthly` stop with one line, nothing is published, and the failed
    run shows in `ratings jobs`, `/health` and the officer's mail."""
    received, port = smtp
    for name, value in {
        "RATINGS_DATABASE_URL": database_url,
        "RATINGS_CONFIG": empty_settings_file(tmp_path),
        "RATINGS_INBOX_DIR": str(tmp_path / "inbox"),
        "RATINGS_PUBLISH_DIR": str(tmp_path / "publish"),
        "RATINGS_SMTP_HOST": "127.0.0.1",
        "RATINGS_SMTP_PORT": str(port),
        "RATINGS_MAIL_TO": "officer@example.org",
    }.items():
        monkeypatch.setenv(name, value)
    runner = CliRunner()
    before = snapshot(engine)
    published = runner.invoke(cli, ["publish", "2026-07"])
    assert (published.exit_code, published.stdout, published.stderr) == (1, "", f"error: {EMPTY}\n")
    assert snapshot(engine) == before
    monthly = runner.invoke(cli, ["monthly", "--period", "2026-07"])
    assert (monthly.exit_code, monthly.stdout, monthly.stderr) == (1, "", f"error: {EMPTY}\n")
    after = snapshot(engine)
    assert after["published_lists"] == after["list_entries"] == []
    assert not (tmp_path / "publish" / "2026-07").exists()
    jobs = runner.invoke(cli, ["jobs"])
    assert jobs.exit_code == 1
    assert jobs.stderr == f"the last run (monthly) failed: {EMPTY}\n"
    web = TestClient(create_app(engine, configuration(tmp_path).web))
    health = web.get("/health").json()
    assert health["status"] == "attention"
    assert (health["last_run"]["outcome"], health["last_run"]["error"]) == ("failed", EMPTY)
    (mail,) = received.messages
    assert mail["Subject"] == "[ratings] the monthly job failed"
    assert EMPTY in mail.get_payload(decode=True).decode()  # type: ignore[union-attr]


def test_jobs_are_shown_to_the_second(
    engine: Engine, database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RATINGS_DATABASE_URL", database_url)
    monkeypatch.setenv("RATINGS_CONFIG", empty_settings_file(tmp_path))
    monkeypatch.setenv("RATINGS_INBOX_DIR", str(tmp_path / "inbox"))
    instant = datetime(2026, 11, 1, 3, 0, 7, 654321, tzinfo=UTC)
    with recorded(engine, "monthly", lambda: instant):
        pass
    result = CliRunner().invoke(cli, ["jobs"])
    assert result.exit_code == 0
    header, _rule, row = result.stdout.splitlines()[:3]
    started = header.index("started_at")
    assert row[started:].split("  ")[0] == "2026-11-01 03:00:07+00:00"
    assert ".654321" not in result.stdout


def test_a_scheduled_run_without_its_database_creates_none_and_is_mailed(
    tmp_path: Path, smtp: tuple[Inbox, int]
) -> None:
    received, port = smtp
    folder = tmp_path / "elsewhere"
    config = configuration(tmp_path, smtp_host="127.0.0.1", smtp_port=port, mail_to="o@example.org")
    config = dataclasses.replace(config, database_url=f"sqlite:///{folder / 'ratings.sqlite'}")
    (tmp_path / "inbox").mkdir()
    histories.write_csv(histories.history(events=4), tmp_path / "inbox" / "results.csv")
    scheduled_job(config, clock)
    assert not folder.exists()
    assert (tmp_path / "inbox" / "results.csv").is_file()
    (mail,) = received.messages
    assert mail["Subject"] == "[ratings] the monthly job failed"
    body = mail.get_payload(decode=True).decode()  # type: ignore[union-attr]
    assert f"the database {folder / 'ratings.sqlite'} does not exist" in body
