"""A bug in a route is a 500 that tells the client nothing of it, and a log line with the
traceback; a user's error stays the 4xx it was."""

from __future__ import annotations

import logging

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine

from service.web import create_app, lists
from tests.service.web.support import settings


@pytest.fixture
def broken(sqlite_engine: Engine, monkeypatch: pytest.MonkeyPatch) -> TestClient:
    """The app with the reads behind ``GET /lists`` (page and JSON) failing as a bug would."""

    def bug(*_args: object) -> None:
        raise ValueError("secret detail of a bug")

    monkeypatch.setattr(lists, "published_lists", bug)
    monkeypatch.setattr(lists, "list_archive", bug)
    return TestClient(create_app(sqlite_engine, settings()))


def test_a_plain_exception_is_a_500_with_a_generic_body(
    broken: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR, logger="ratings.web"):
        response = broken.get("/lists")
    assert response.status_code == 500
    assert response.json() == {"detail": "internal server error", "problems": []}
    (record,) = [r for r in caplog.records if r.name == "ratings.web"]
    assert record.getMessage() == "internal server error"
    assert (record.event, record.method, record.path) == ("server_error", "GET", "/lists")  # type: ignore[attr-defined]
    assert record.exc_info is not None
    assert record.exc_info[0] is ValueError
    assert "secret detail of a bug" in caplog.text


def test_a_browser_gets_the_500_as_a_page(broken: TestClient) -> None:
    response = broken.get("/lists", headers={"accept": "text/html"})
    assert response.status_code == 500
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    assert "<h1>Server error</h1>" in response.text
    assert "internal server error" in response.text
    assert "secret detail" not in response.text


def test_the_other_routes_and_user_errors_are_untouched(broken: TestClient) -> None:
    assert broken.get("/health").status_code == 200
    missing = broken.get("/players/nobody.json")
    assert (missing.status_code, missing.json()["detail"]) == (404, "no player has the id nobody")
