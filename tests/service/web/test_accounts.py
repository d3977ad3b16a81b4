"""Logging in and out of the site: server-side sessions in HttpOnly cookies, ids renewed at
login, the CSRF token every form needs, the throttle on guessing, and API tokens; on both
databases."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.engine import Engine

from jobs.accounts import HASHER, account_events
from ratings.storage.database import open_engine
from ratings.storage.schema import accounts, service_keys, web_sessions
from service.web import create_app
from tests.service.web.accounts import PASSWORDS, add_accounts, bearer, csrf, log_in
from tests.service.web.support import settings


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    engine = open_engine(database_url)
    yield engine
    engine.dispose()


@pytest.fixture
def tokens(engine: Engine) -> dict[str, str]:
    return add_accounts(engine)


def client_of(engine: Engine, **values: object) -> TestClient:
    # A Secure cookie comes back only over HTTPS.
    scheme = "https" if values.get("secure_cookies") else "http"
    return TestClient(create_app(engine, settings(**values)), base_url=f"{scheme}://testserver")


def test_login_sets_an_http_only_lax_session_and_logout_ends_it(
    engine: Engine, tokens: dict[str, str]
) -> None:
    client = client_of(engine)
    token = csrf(client)
    response = client.post(
        "/login",
        data={"name": "olga", "password": PASSWORDS["olga"], "csrftoken": token},
        follow_redirects=False,
    )
    assert response.status_code == 303
    assert response.headers["location"] == "/desk"
    cookie = response.headers["set-cookie"]
    assert cookie.startswith("ratings_session=")
    assert "HttpOnly" in cookie
    assert "SameSite=lax" in cookie
    assert "Secure" not in cookie
    assert client.get("/account", headers={"Accept": "text/html"}).status_code == 200
    session = client.cookies["ratings_session"]
    with engine.connect() as connection:
        stored = connection.execute(select(web_sessions.c.id_hash)).scalars().all()
    # Only the id's hash is stored.
    assert session not in stored
    assert len(stored) == 1
    response = client.post(
        "/logout", data={"csrftoken": csrf(client, "/account")}, follow_redirects=False
    )
    assert response.status_code == 303
    with engine.connect() as connection:
        assert connection.execute(select(web_sessions)).all() == []
    client.cookies.set("ratings_session", session)
    response = client.get("/account", headers={"Accept": "text/html"}, follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"] == "/login?next=/account"
    events = [e.event for e in account_events(engine, "olga")]
    assert events[:2] == ["logout", "login"]


def test_the_secure_setting_marks_the_cookies(engine: Engine, tokens: dict[str, str]) -> None:
    client = client_of(engine, secure_cookies=True)
    page = client.get("/login")
    assert "Secure" in page.headers["set-cookie"]
    response = client.post(
        "/login",
        data={"name": "dan", "password": PASSWORDS["dan"], "csrftoken": csrf(client)},
        follow_redirects=False,
    )
    assert "Secure" in response.headers["set-cookie"]


def test_a_session_id_does_not_survive_login(engine: Engine, tokens: dict[str, str]) -> None:
    client = client_of(engine)
    before = log_in(client, "dan")
    after = log_in(client, "eve")
    assert after != before
    other = client_of(engine)
    cookie = {"Cookie": f"ratings_session={before}"}
    assert other.get("/api/submissions", headers=cookie).status_code == 401
    assert (
        other.get("/api/submissions", headers={"Cookie": f"ratings_session={after}"}).status_code
        == 200
    )
    # An id planted before the login is not the one the login gives, nor valid after it.
    planted = client_of(engine)
    planted.cookies.set("ratings_session", "chosen-by-an-attacker")
    given = log_in(planted, "dan")
    assert given != "chosen-by-an-attacker"
    cookie = {"Cookie": "ratings_session=chosen-by-an-attacker"}
    assert client_of(engine).get("/api/submissions", headers=cookie).status_code == 401


def test_a_wrong_password_is_401_on_the_page_and_audited(
    engine: Engine, tokens: dict[str, str]
) -> None:
    client = client_of(engine)
    response = client.post(
        "/login", data={"name": "dan", "password": "not it at all", "csrftoken": csrf(client)}
    )
    assert response.status_code == 401
    assert "The name or the password is wrong." in response.text
    assert "ratings_session" not in client.cookies
    event = account_events(engine, "dan")[0]
    assert (event.event, event.address) == ("login failed", "testclient")


def test_a_login_form_without_its_token_is_refused(engine: Engine, tokens: dict[str, str]) -> None:
    client = client_of(engine)
    response = client.post("/login", data={"name": "dan", "password": PASSWORDS["dan"]})
    assert response.status_code == 403
    assert "security token" in response.json()["detail"]
    client.get("/login")
    response = client.post(
        "/login", data={"name": "dan", "password": PASSWORDS["dan"], "csrftoken": "forged"}
    )
    assert response.status_code == 403


def test_a_logged_in_form_without_its_token_is_refused(
    engine: Engine, tokens: dict[str, str]
) -> None:
    client = client_of(engine)
    log_in(client, "dan")
    assert client.post("/logout", follow_redirects=False).status_code == 403
    response = client.post(
        "/account/password", data={"current": PASSWORDS["dan"], "new": "x" * 12, "again": "x" * 12}
    )
    assert response.status_code == 403


def test_repeated_failures_throttle_the_account_with_a_clear_page(
    engine: Engine, tokens: dict[str, str]
) -> None:
    client = client_of(engine, login_failures_per_account=3)
    for _ in range(3):
        token = csrf(client)
        assert (
            client.post(
                "/login", data={"name": "dan", "password": "guess guess", "csrftoken": token}
            ).status_code
            == 401
        )
    token = csrf(client)
    # Now even the right password waits.
    response = client.post(
        "/login",
        data={"name": "dan", "password": PASSWORDS["dan"], "csrftoken": token},
        headers={"Accept": "text/html"},
    )
    assert response.status_code == 429
    assert "Too many failed logins for this account or from this address" in response.text
    # Another account from another address is not held up.
    log_in(client, "eve")


def test_repeated_failures_throttle_the_address(engine: Engine, tokens: dict[str, str]) -> None:
    client = client_of(engine, login_failures_per_address=4)
    for name in ("a1", "a2", "a3", "a4"):
        client.post(
            "/login", data={"name": name, "password": "guess guess", "csrftoken": csrf(client)}
        )
    response = client.post(
        "/login", data={"name": "olga", "password": PASSWORDS["olga"], "csrftoken": csrf(client)}
    )
    assert response.status_code == 429


def test_a_password_change_ends_the_other_sessions(engine: Engine, tokens: dict[str, str]) -> None:
    phone, laptop = client_of(engine), client_of(engine)
    log_in(phone, "dan")
    log_in(laptop, "dan")
    response = laptop.post(
        "/account/password",
        data={"current": PASSWORDS["dan"], "new": "a brand new one", "again": "a brand new one",
              "csrftoken": csrf(laptop, "/account")},
    )  # fmt: skip
    assert response.status_code == 200
    assert "1 other session of your account ended" in response.text
    assert laptop.get("/account").status_code == 200
    assert phone.get("/account", follow_redirects=False).status_code == 401
    fresh = client_of(engine)
    log_in(fresh, "dan", "a brand new one")


def test_a_wrong_current_password_changes_nothing(engine: Engine, tokens: dict[str, str]) -> None:
    client = client_of(engine)
    log_in(client, "dan")
    response = client.post(
        "/account/password",
        data={"current": "wrong wrong", "new": "a brand new one", "again": "a brand new one",
              "csrftoken": csrf(client, "/account")},
    )  # fmt: skip
    assert response.status_code == 403
    log_in(client_of(engine), "dan")


def test_a_next_address_elsewhere_is_not_followed(engine: Engine, tokens: dict[str, str]) -> None:
    client = client_of(engine)
    response = client.post(
        "/login",
        data={"name": "dan", "password": PASSWORDS["dan"], "next": "//evil.example/",
              "csrftoken": csrf(client)},
        follow_redirects=False,
    )  # fmt: skip
    assert response.headers["location"] == "/submit"


def test_an_api_token_authenticates_and_a_revoked_or_wrong_one_does_not(
    engine: Engine, tokens: dict[str, str]
) -> None:
    from jobs.accounts import revoke_token

    client = client_of(engine)
    assert client.get("/api/submissions", headers=bearer(tokens["dan"])).status_code == 200
    assert client.get("/api/submissions", headers=bearer("nope")).status_code == 401
    assert client.get("/api/submissions").status_code == 401
    assert client.get("/api/submissions").headers["www-authenticate"] == "Bearer"
    revoke_token(
        engine,
        "dan",
        2,
        by="t",
        now=__import__("datetime").datetime.now(__import__("datetime").UTC),
    )
    assert client.get("/api/submissions", headers=bearer(tokens["dan"])).status_code == 401


def test_a_bearer_header_is_never_eked_out_by_a_cookie(
    engine: Engine, tokens: dict[str, str]
) -> None:
    client = client_of(engine)
    session = log_in(client, "olga")
    assert (
        client.get("/api/submissions", headers={"Cookie": f"ratings_session={session}"}).status_code
        == 200
    )
    # A bad token beside a good session is still refused: CSRF checks skip Bearer requests.
    assert client.get("/api/submissions", headers=bearer("bad")).status_code == 401


def test_the_signing_key_is_made_once_and_kept_with_the_database(engine: Engine) -> None:
    with engine.connect() as connection:
        assert connection.execute(select(service_keys.c.value)).all() == []
    client_of(engine).get("/login")
    with engine.connect() as connection:
        first = connection.execute(select(service_keys.c.value)).scalars().all()
    client_of(engine).get("/login")
    with engine.connect() as connection:
        again = connection.execute(select(service_keys.c.value)).scalars().all()
    assert len(first) == 1
    assert len(first[0]) >= 40
    assert again == first
    # A cookie signed by one process is good in the next.
    one, two = client_of(engine), client_of(engine)
    token = csrf(one)
    two.cookies.set("csrftoken", one.cookies["csrftoken"])
    response = two.post("/login", data={"name": "x", "password": "y" * 10, "csrftoken": token})
    assert response.status_code == 401


@pytest.mark.real_password_hashing
def test_an_old_hash_is_made_again_at_login(engine: Engine, tokens: dict[str, str]) -> None:
    from pwdlib import PasswordHash
    from pwdlib.hashers.argon2 import Argon2Hasher
    from sqlalchemy import update

    weak = PasswordHash((Argon2Hasher(time_cost=1, memory_cost=8192),)).hash(PASSWORDS["dan"])
    with engine.begin() as connection:
        connection.execute(
            update(accounts).where(accounts.c.name == "dan").values(password_hash=weak)
        )
    log_in(client_of(engine), "dan")
    with engine.connect() as connection:
        stored = connection.execute(
            select(accounts.c.password_hash).where(accounts.c.name == "dan")
        ).scalar_one()
    assert stored != weak
    assert HASHER.verify(PASSWORDS["dan"], stored)
    assert "t=1," not in stored


def test_guessing_the_current_password_is_throttled(engine: Engine, tokens: dict[str, str]) -> None:
    client = client_of(engine, login_failures_per_account=2)
    log_in(client, "dan")
    statuses = [
        client.post(
            "/account/password",
            data={"current": f"guess number {i}", "new": "a brand new one",
                  "again": "a brand new one", "csrftoken": csrf(client, "/account")},
        ).status_code
        for i in range(3)
    ]  # fmt: skip
    assert statuses == [403, 403, 429]


def test_a_removed_account_loses_its_sessions_and_tokens(
    engine: Engine, tokens: dict[str, str]
) -> None:
    from datetime import UTC, datetime

    from jobs.accounts import remove_user

    client = client_of(engine)
    session = log_in(client, "dan")
    remove_user(engine, "dan", by="t", now=datetime.now(UTC))
    cookie = {"Cookie": f"ratings_session={session}"}
    assert client_of(engine).get("/api/submissions", headers=cookie).status_code == 401
    assert client.get("/api/submissions", headers=bearer(tokens["dan"])).status_code == 401
    response = client.post(
        "/login", data={"name": "dan", "password": PASSWORDS["dan"], "csrftoken": csrf(client)}
    )
    assert response.status_code == 401
