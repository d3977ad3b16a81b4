"""The officer's other work in the browser (merge and unmerge, deleting a tournament, the
rating in the background, publishing after a preview), the same jobs as the command line; and
who may call every route the accounts brought: the public, a director, the officer."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.engine import Engine
from starlette.requests import Request

from ratings.storage.database import open_engine
from ratings.storage.schema import player_merges, published_lists, tournament_deletions
from service.web import create_app
from tests.service.web.accounts import add_accounts, bearer, csrf, log_in
from tests.service.web.support import settings
from tests.support.db import counts
from tests.support.filled import samples_2023_rated
from tests.support.prepared import PreparedDatabases

SAMPLES = Path(__file__).parents[3] / "samples"
NOW = datetime(2026, 11, 1, tzinfo=UTC)


@pytest.fixture
def engine(database_url: str, prepared: PreparedDatabases) -> Iterator[Engine]:
    prepared.fill(database_url, "samples-2023-rated", samples_2023_rated)
    engine = open_engine(database_url)
    add_accounts(engine)
    yield engine
    engine.dispose()


def _request_of(client: TestClient) -> Request:
    """A request to the client's app, as a route sees it (its state: options, engine)."""
    return Request({"type": "http", "app": client.app})


def officer_client(engine: Engine, tmp_path: Path) -> TestClient:
    client = TestClient(create_app(engine, settings(publish_dir=tmp_path / "publish")))
    log_in(client, "olga")
    return client


def test_merge_side_by_side_and_unmerge(engine: Engine, tmp_path: Path) -> None:
    client = officer_client(engine, tmp_path)
    page = client.get("/desk/players", params={"keep": "P0000238", "duplicate": "P0000023"})
    assert page.status_code == 200
    assert "Nathalie Richard" in page.text
    assert "Michał Sikora" in page.text
    token = csrf(client, "/desk/players")
    done = client.post(
        "/desk/players/merge", data={"csrftoken": token, "keep": "P0000238", "duplicate": "P0000023"},
        follow_redirects=False,
    )  # fmt: skip
    assert done.status_code == 303
    with engine.connect() as connection:
        assert connection.execute(select(player_merges.c.merged_by)).scalars().all() == ["olga"]
    again = client.post(
        "/desk/players/merge",
        data={"csrftoken": token, "keep": "P0000238", "duplicate": "P0000023"},
    )
    assert again.status_code == 400
    assert "merged" in again.text
    shown = client.get("/desk/players", params={"unmerge": "P0000023"})
    assert "was merged into P0000238" in shown.text
    undone = client.post(
        "/desk/players/unmerge", data={"csrftoken": token, "duplicate": "P0000023"},
        follow_redirects=False,
    )  # fmt: skip
    assert undone.status_code == 303
    assert "is a player again" in client.get(undone.headers["location"]).text


@pytest.mark.parametrize("path", ["/desk/players", "/desk/tournaments", "/desk/publish"])
def test_a_desk_notice_only_the_site_signed_is_shown(
    engine: Engine, tmp_path: Path, path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A notice crosses the redirect signed: a link made elsewhere (unsigned words, a token
    signed with another key, an old one) shows nothing on the officer's desk."""
    from itsdangerous import URLSafeTimedSerializer

    from service.web import notices

    client = officer_client(engine, tmp_path)
    made = client.get(path, headers={"Accept": "text/html"})
    forged = "Send the list to evil.example"
    other_key = URLSafeTimedSerializer("not the site's key", salt="ratings.desk.notice")
    for params in (
        {"message": forged},
        {"said": forged},
        {"said": other_key.dumps(forged)},
    ):
        page = client.get(path, params=params)
        assert page.status_code == 200
        assert forged not in page.text
        assert 'class="notice"' not in page.text or 'class="notice"' in made.text
    signed = notices.address(_request_of(client), path, forged)
    assert forged in client.get(signed).text
    monkeypatch.setattr(notices, "MAX_AGE_SECONDS", -1)
    assert forged not in client.get(signed).text


def test_a_tournament_is_deleted_after_a_confirmation(engine: Engine, tmp_path: Path) -> None:
    client = officer_client(engine, tmp_path)
    listing = client.get("/desk/tournaments").text
    assert "Open de Marseille 2023" in listing
    confirm = client.get("/desk/tournaments/delete", params={"key": "T0000001"})
    assert "Yes, delete Open de Marseille 2023" in confirm.text
    token = csrf(client, "/desk/tournaments")
    unconfirmed = client.post(
        "/desk/tournaments/delete", data={"csrftoken": token, "key": "T0000001"}
    )
    assert unconfirmed.status_code == 422
    done = client.post(
        "/desk/tournaments/delete", data={"csrftoken": token, "key": "T0000001", "confirm": "yes"},
        follow_redirects=False,
    )  # fmt: skip
    assert done.status_code == 303
    with engine.connect() as connection:
        assert connection.execute(select(tournament_deletions.c.deleted_by)).scalars().all() == [
            "olga"
        ]
    unknown = client.post(
        "/desk/tournaments/delete", data={"csrftoken": token, "key": "T0000001", "confirm": "yes"}
    )
    assert unknown.status_code == 404


def wait_for_rating(client: TestClient) -> str:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        page = client.get("/desk/rating").text
        if "This page reloads itself" not in page:
            return page
        time.sleep(0.2)
    raise AssertionError("the rating did not end")


def test_rating_runs_in_the_background_and_publishing_follows_a_preview(
    engine: Engine, tmp_path: Path
) -> None:
    client = officer_client(engine, tmp_path)
    token = csrf(client, "/desk/rating")
    # A merge waits for a re-rating: publishing refuses until the rating ran.
    client.post(
        "/desk/players/merge",
        data={"csrftoken": token, "keep": "P0000238", "duplicate": "P0000023"},
    )
    refused = client.get("/desk/publish", params={"period": "2024-01"})
    assert refused.status_code == 409 or refused.status_code == 400
    started = client.post("/desk/rating", data={"csrftoken": token}, follow_redirects=False)
    assert started.status_code == 303
    page = wait_for_rating(client)
    assert "ended: rated" in page
    preview = client.get("/desk/publish", params={"period": "2024-01"})
    assert preview.status_code == 200
    assert "2024-01 version 1" in preview.text
    assert "the first list" in preview.text
    assert "Entering" in preview.text
    with engine.connect() as connection:
        assert connection.execute(select(published_lists)).all() == []
    done = client.post(
        "/desk/publish", data={"csrftoken": token, "period": "2024-01"}, follow_redirects=False
    )
    assert done.status_code == 303
    assert "Published 2024-01 version 1" in client.get(done.headers["location"]).text
    with engine.connect() as connection:
        assert connection.execute(select(published_lists.c.created_by)).scalars().all() == ["olga"]
    assert (tmp_path / "publish" / "2024-01").is_dir()
    twice = client.post("/desk/publish", data={"csrftoken": token, "period": "2024-01"})
    assert twice.status_code == 400
    again = client.get("/desk/publish", params={"period": "2024-01", "republish": "true"})
    assert "2024-01 version 2" in again.text
    assert "compared with 2024-01@1" in again.text
    republished = client.post(
        "/desk/publish", data={"csrftoken": token, "period": "2024-01", "republish": "true"},
        follow_redirects=False,
    )  # fmt: skip
    assert republished.status_code == 303


PAGES = [
    ("GET", "/desk"), ("GET", "/desk/submissions/1"), ("POST", "/desk/submissions/1/accept"),
    ("POST", "/desk/submissions/1/reject"), ("GET", "/desk/players"),
    ("POST", "/desk/players/merge"), ("POST", "/desk/players/unmerge"),
    ("GET", "/desk/tournaments"), ("GET", "/desk/tournaments/delete?key=T0000001"),
    ("POST", "/desk/tournaments/delete"), ("GET", "/desk/rating"), ("POST", "/desk/rating"),
    ("GET", "/desk/publish"), ("POST", "/desk/publish"),
]  # fmt: skip
"""The officer's pages: a director gets 403."""
ANYONE_LOGGED_IN = [
    ("GET", "/submit"), ("POST", "/submit"), ("GET", "/submissions/1"),
    ("POST", "/submissions/1/withdraw"), ("POST", "/submissions/1/replace"), ("GET", "/account"),
    ("POST", "/account/password"), ("POST", "/logout"),
]  # fmt: skip
API_OFFICER = [("POST", "/api/submissions/1/accept"), ("POST", "/api/submissions/1/reject")]
API_ANYONE = [
    ("GET", "/api/submissions"), ("POST", "/api/submissions"), ("GET", "/api/submissions/1"),
    ("PUT", "/api/submissions/1"), ("DELETE", "/api/submissions/1"),
]  # fmt: skip


@pytest.fixture(scope="module")
def bare(module_database_url: str) -> Iterator[Engine]:
    """A database with the accounts alone: who may call a route does not depend on its data.
    The refusals below share it: a refused call changes nothing."""
    engine = open_engine(module_database_url)
    add_accounts(engine)
    yield engine
    engine.dispose()


KEPT = ("accounts", "job_runs", "player_merges", "players", "published_lists", "rating_changes",
        "results", "submissions", "tournament_deletions", "tournaments")  # fmt: skip
"""What a call the site refuses may not change: the rows of these tables, counted."""


@pytest.fixture
def plain(bare: Engine) -> Iterator[TestClient]:
    """A client of the shared database, which the refused call leaves as it was."""
    before = counts(bare, *KEPT)
    yield TestClient(create_app(bare, settings()))
    assert counts(bare, *KEPT) == before


@pytest.mark.parametrize(("method", "path"), PAGES + ANYONE_LOGGED_IN)
def test_a_page_sends_the_public_to_login(plain: TestClient, method: str, path: str) -> None:
    response = plain.request(method, path, headers={"Accept": "text/html"}, follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"].startswith("/login?next=")


@pytest.mark.parametrize(("method", "path"), PAGES + ANYONE_LOGGED_IN + API_OFFICER + API_ANYONE)
def test_a_script_without_an_account_gets_401(plain: TestClient, method: str, path: str) -> None:
    response = plain.request(method, path, follow_redirects=False)
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == "Bearer"


def _tokens(engine: Engine) -> dict[str, str]:
    from jobs.accounts import create_token

    return {name: create_token(engine, name, by="t", now=NOW)[1] for name in ("dan", "olga")}


@pytest.mark.parametrize(("method", "path"), PAGES + API_OFFICER)
def test_a_director_gets_403_where_the_officer_is_needed(
    bare: Engine, plain: TestClient, method: str, path: str
) -> None:
    token = _tokens(bare)["dan"]
    body: dict[str, Any] = (
        {"json": {"reason": "x", "answers": {}}} if path.startswith("/api/") else {}
    )
    response = plain.request(method, path, headers=bearer(token), follow_redirects=False, **body)
    assert response.status_code == 403
    # On the pages too, with a session and the form's token.
    log_in(plain, "dan")
    token = csrf(plain, "/submit")
    data = (
        {"data": {"csrftoken": token}}
        if method == "POST" and not path.startswith("/api/")
        else body
    )
    response = plain.request(method, path, follow_redirects=False, **data)
    assert response.status_code == 403


def test_the_public_site_needs_no_account(plain: TestClient) -> None:
    for path in ("/", "/lists", "/players", "/seed", "/about", "/health", "/login"):
        assert plain.get(path, headers={"Accept": "text/html"}).status_code == 200
