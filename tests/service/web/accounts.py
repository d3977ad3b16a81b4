"""What the tests of the site's accounts share: an officer and two directors, a logged-in
client, the CSRF token of a page."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine

from jobs.accounts import add_user, create_token

PASSWORDS = {"olga": "officer password", "dan": "director password", "eve": "another director"}
ROLES = {"olga": "officer", "dan": "director", "eve": "director"}
NOW = datetime(2026, 11, 1, tzinfo=UTC)


def add_accounts(engine: Engine) -> dict[str, str]:
    """The officer olga and the directors dan and eve (dan with a mail address); their API
    tokens by name."""
    tokens = {}
    for name, password in PASSWORDS.items():
        email = "dan@example.org" if name == "dan" else None
        add_user(engine, name, role=ROLES[name], password=password, email=email, by="t", now=NOW)
        tokens[name] = create_token(engine, name, by="t", now=NOW)[1]
    return tokens


TOKEN = re.compile(r'name="csrftoken" value="([^"]+)"')


def csrf(client: TestClient, path: str = "/login") -> str:
    """The CSRF token of the form at ``path`` (its cookie kept in the client)."""
    found = TOKEN.search(client.get(path, headers={"Accept": "text/html"}).text)
    assert found is not None, f"no csrftoken field on {path}"
    return found[1]


def log_in(client: TestClient, name: str, password: str | None = None) -> str:
    """Log in; the new session id."""
    response = client.post(
        "/login",
        data={"name": name, "password": password or PASSWORDS[name], "csrftoken": csrf(client)},
        follow_redirects=False,
    )
    assert response.status_code == 303, response.text
    found = re.search(r"ratings_session=([^;]+)", response.headers["set-cookie"])
    assert found is not None
    return found[1]


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}
