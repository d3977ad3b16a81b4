"""The reads the command line and the web service make besides the documents (tested with
publishing): the newest list, the job runs, whether the database answers."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import create_engine
from sqlalchemy.engine import Engine

from jobs.importing import import_files
from jobs.options import ListOptions
from jobs.publishing import publish_list
from jobs.queries import database_answers, newest_list, recent_jobs
from jobs.rating import run_ratings
from jobs.runs import recorded
from ratings.formula import MeloParams
from tests.support import histories

NOW = datetime(2026, 11, 1, tzinfo=UTC)


def test_the_newest_list_is_the_last_version_published(engine: Engine, tmp_path: Path) -> None:
    with engine.connect() as connection:
        assert newest_list(connection) is None
    # Someone rated: a list of nobody is never published.
    events = histories.write_csv(histories.history(events=3), tmp_path / "results.csv")
    import_files(engine, [events], imported_by="o", now=NOW)
    run_ratings(engine, MeloParams(), now=NOW)
    publish_list(engine, "2026-10", ListOptions(), by="o", now=NOW)
    publish_list(engine, "2026-09", ListOptions(), by="o", now=NOW)
    publish_list(engine, "2026-10", ListOptions(), republish=True, by="o", now=NOW)
    with engine.connect() as connection:
        assert newest_list(connection) == "2026-10@2"


def test_recent_jobs_newest_first_and_limited(engine: Engine) -> None:
    for kind in ("run", "monthly", "run --full"):
        with recorded(engine, kind, lambda: NOW):
            pass
    with engine.connect() as connection:
        runs = recent_jobs(connection, 2)
    assert runs["kind"].to_list() == ["run --full", "monthly"]


def test_whether_the_database_answers(engine: Engine, tmp_path: Path) -> None:
    assert database_answers(engine)
    unreachable = create_engine(f"sqlite:///{tmp_path / 'missing' / 'folder' / 'x.sqlite'}")
    assert not database_answers(unreachable)
