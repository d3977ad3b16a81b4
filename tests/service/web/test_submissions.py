"""Directors submit results through the site and its API; the officer reviews the new players,
accepts (the import of ``ratings import --map``) or rejects with a reason; a director sees what
became of each file. On both databases, with every refusal tested."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from datetime import UTC, datetime
from email import message_from_bytes
from email.message import Message
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from sqlalchemy.engine import Engine

from jobs.options import ListOptions
from jobs.publishing import publish_list
from jobs.rating import run_ratings
from ratings.formula import MeloParams
from ratings.storage.database import open_engine
from ratings.storage.schema import submissions, tournaments
from service.web import create_app
from tests.service.web.accounts import add_accounts, bearer, csrf, log_in
from tests.service.web.support import settings
from tests.support.filled import samples_2023_rated
from tests.support.prepared import PreparedDatabases

SAMPLES = Path(__file__).parents[3] / "samples"
NOW = datetime(2026, 11, 1, tzinfo=UTC)

CLUB_CUP = (
    b"tournament,tournament_id,start_date,end_date,tier,name,country,wins,draws,losses,buchholz\n"
    b"Club Cup 2024,CC2024,2024-02-03,2024-02-04,regular,Nathalie Richart,FRA,2,0,0,2\n"
    b"Club Cup 2024,CC2024,2024-02-03,2024-02-04,regular,<script>alert(1)</script>,FRA,1,0,1,3\n"
    b"Club Cup 2024,CC2024,2024-02-03,2024-02-04,regular,Chiara Rochat,CHE,0,0,2,3\n"
)
"""A close spelling of a known player (to answer), a new player whose name is markup, and a
player matched by name."""

BROKEN = (
    b"tournament,tournament_id,start_date,end_date,tier,name,country,wins,draws,losses,buchholz\n"
    b"Club Cup 2024,CC2024,2024-02-31,2024-02-04,regular,Anna,FRA,two,0,0,2\n"
)


@pytest.fixture
def engine(database_url: str, prepared: PreparedDatabases) -> Iterator[Engine]:
    prepared.fill(database_url, "samples-2023-rated", samples_2023_rated)
    engine = open_engine(database_url)
    yield engine
    engine.dispose()


@pytest.fixture
def tokens(engine: Engine) -> dict[str, str]:
    return add_accounts(engine)


def client_of(engine: Engine, **values: Any) -> TestClient:
    return TestClient(create_app(engine, settings(upload_limit_bytes=64 * 1024, **values)))


def api_submit(
    client: TestClient, token: str, data: bytes = CLUB_CUP, name: str = "cup.csv"
) -> Any:
    return client.post("/api/submissions", headers=bearer(token), files={"file": (name, data)})


def test_a_readable_file_is_kept_with_its_review(engine: Engine, tokens: dict[str, str]) -> None:
    client = client_of(engine)
    response = api_submit(client, tokens["dan"])
    assert response.status_code == 201
    body = response.json()
    assert body["status"] == "needs answers"
    assert body["submitted_at"].endswith("+00:00")
    assert body["problems"] == []
    assert body["needs_answers"] == ["Nathalie Richart"]
    names = {n["name"]: n for n in body["new_players"]}
    close = names["Nathalie Richart"]["candidates"][0]
    assert close["player_id"] == "P0000238"
    assert close["name"] == "Nathalie Richard"
    assert close["country"] == "FRA"
    assert close["club"] == "Club de Marelle de Nice"
    assert close["score"] > 85
    assert close["last_event"].startswith("Molentoernooi Arnhem 2023")
    assert names["<script>alert(1)</script>"]["needs_answer"] is False
    with engine.connect() as connection:
        row = connection.execute(select(submissions.c.data, submissions.c.sha256)).one()
        imported = connection.execute(select(func.count()).select_from(tournaments)).scalar()
    assert bytes(row.data) == CLUB_CUP
    assert len(row.sha256) == 64
    # Not imported yet.
    assert imported == 25


def test_a_file_that_cannot_be_read_is_not_kept(engine: Engine, tokens: dict[str, str]) -> None:
    client = client_of(engine)
    response = api_submit(client, tokens["dan"], BROKEN, "broken.csv")
    assert response.status_code == 422
    problems = response.json()["problems"]
    assert {(p["file"], p["line"], p["column"]) for p in problems} >= {
        ("broken.csv", 2, "wins"), ("broken.csv", 2, "start_date"),
    }  # fmt: skip
    log_in(client, "dan")
    page = client.post(
        "/submit",
        data={"csrftoken": csrf(client, "/submit"), "tier": "regular"},
        files={"file": ("broken.csv", BROKEN)},
    )
    assert page.status_code == 422
    assert "nothing was kept" in page.text
    assert "wins" in page.text
    with engine.connect() as connection:
        assert connection.execute(select(func.count()).select_from(submissions)).scalar() == 0


def test_an_unknown_tier_and_a_missing_file_are_refused(
    engine: Engine, tokens: dict[str, str]
) -> None:
    client = client_of(engine)
    response = client.post(
        "/api/submissions", headers=bearer(tokens["dan"]), files={"file": ("c.csv", CLUB_CUP)},
        data={"tier": "galactic"},
    )  # fmt: skip
    assert response.status_code == 422
    assert response.json()["problems"][0]["column"] == "tier"
    assert (
        client.post(
            "/api/submissions", headers=bearer(tokens["dan"]), data={"tier": "regular"}
        ).status_code
        == 422
    )


def test_an_upload_over_the_limit_is_refused_before_it_is_read(
    engine: Engine, tokens: dict[str, str]
) -> None:
    client = TestClient(create_app(engine, settings(upload_limit_bytes=1024)))
    big = CLUB_CUP + b"x" * 200_000
    response = api_submit(client, tokens["dan"], big)
    assert response.status_code == 413
    assert "limit of 1 KiB" in response.json()["detail"]


def test_a_page_upload_over_the_limit_is_refused_too(
    engine: Engine, tokens: dict[str, str]
) -> None:
    client = TestClient(create_app(engine, settings(upload_limit_bytes=1024)))
    log_in(client, "dan")
    token = csrf(client, "/submit")
    # Sent in chunks, without a length: counted as it arrives, while the form's token is
    # looked for.
    body = (
        b"--b\r\nContent-Disposition: form-data; name=\"csrftoken\"\r\n\r\n" + token.encode()
        + b"\r\n--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"c.csv\"\r\n\r\n"
        + CLUB_CUP + b"x" * 200_000 + b"\r\n--b--\r\n"
    )  # fmt: skip

    def chunks() -> Iterator[bytes]:
        for start in range(0, len(body), 4096):
            yield body[start : start + 4096]

    response = client.post(
        "/submit", content=chunks(), headers={"Content-Type": "multipart/form-data; boundary=b"}
    )
    assert response.status_code == 413
    with engine.connect() as connection:
        assert connection.execute(select(func.count()).select_from(submissions)).scalar() == 0


def test_the_page_way_director_submits_and_sees_the_status(
    engine: Engine, tokens: dict[str, str]
) -> None:
    client = client_of(engine)
    log_in(client, "dan")
    response = client.post(
        "/submit",
        data={"csrftoken": csrf(client, "/submit"), "tier": "regular", "notes": "two rounds"},
        files={"file": ("cup.csv", CLUB_CUP)},
        follow_redirects=False,
    )
    assert response.status_code == 303
    page = client.get(response.headers["location"]).text
    assert "needs answers" in page
    assert "two rounds" in page
    listing = client.get("/submit").text
    assert "cup.csv" in listing
    assert "needs answers" in listing


def test_another_director_never_sees_or_changes_a_submission(
    engine: Engine, tokens: dict[str, str]
) -> None:
    client = client_of(engine)
    made = api_submit(client, tokens["dan"]).json()["id"]
    eve = bearer(tokens["eve"])
    assert client.get(f"/api/submissions/{made}", headers=eve).status_code == 404
    assert client.delete(f"/api/submissions/{made}", headers=eve).status_code == 404
    replaced = client.put(
        f"/api/submissions/{made}", headers=eve, files={"file": ("x.csv", CLUB_CUP)}
    )
    assert replaced.status_code == 404
    assert client.get("/api/submissions", headers=eve).json() == []
    # Nobody logged in is asked who they are, on the API and on the page.
    anonymous = client_of(engine)
    assert anonymous.get(f"/api/submissions/{made}").status_code == 401
    assert anonymous.get(f"/submissions/{made}").status_code == 401
    # The officer sees it, but only its director changes it.
    olga = bearer(tokens["olga"])
    assert client.get(f"/api/submissions/{made}", headers=olga).status_code == 200
    assert client.delete(f"/api/submissions/{made}", headers=olga).status_code == 404
    assert [s["id"] for s in client.get("/api/submissions", headers=olga).json()] == [made]
    # And on the pages.
    log_in(client, "eve")
    assert client.get(f"/submissions/{made}").status_code == 404
    token = csrf(client, "/submit")
    assert (
        client.post(f"/submissions/{made}/withdraw", data={"csrftoken": token}).status_code == 404
    )
    assert (
        client.post(
            f"/submissions/{made}/replace",
            data={"csrftoken": token},
            files={"file": ("x.csv", CLUB_CUP)},
        ).status_code
        == 404
    )
    assert client.get(f"/api/submissions/{made}", headers=bearer(tokens["dan"])).status_code == 200


def test_a_director_withdraws_and_replaces_until_the_officer_decides(
    engine: Engine, tokens: dict[str, str]
) -> None:
    client = client_of(engine)
    dan = bearer(tokens["dan"])
    first = api_submit(client, tokens["dan"]).json()["id"]
    fixed = CLUB_CUP.replace(b"Nathalie Richart,FRA", b"Nathalie Richard,FRA")
    replaced = client.put(
        f"/api/submissions/{first}", headers=dan, files={"file": ("cup2.csv", fixed)}
    )
    assert replaced.status_code == 200
    assert replaced.json()["status"] == "submitted"
    assert replaced.json()["file"] == "cup2.csv"
    # A broken replacement leaves it as it was.
    broken = client.put(f"/api/submissions/{first}", headers=dan, files={"file": ("b.csv", BROKEN)})
    assert broken.status_code == 422
    assert client.get(f"/api/submissions/{first}", headers=dan).json()["file"] == "cup2.csv"
    second = api_submit(client, tokens["dan"]).json()["id"]
    assert client.delete(f"/api/submissions/{second}", headers=dan).status_code == 204
    assert client.get(f"/api/submissions/{second}", headers=dan).status_code == 404
    accepted = client.post(
        f"/api/submissions/{first}/accept", headers=bearer(tokens["olga"]), json={}
    )
    assert accepted.status_code == 200
    assert client.delete(f"/api/submissions/{first}", headers=dan).status_code == 409
    again = client.put(f"/api/submissions/{first}", headers=dan, files={"file": ("c.csv", fixed)})
    assert again.status_code == 409


def test_accept_needs_every_answer_and_imports_as_the_officer(
    engine: Engine, tokens: dict[str, str]
) -> None:
    client = client_of(engine)
    made = api_submit(client, tokens["dan"]).json()["id"]
    url = f"/api/submissions/{made}/accept"
    assert client.post(url, headers=bearer(tokens["dan"]), json={"answers": {}}).status_code == 403
    assert client.post(url, json={"answers": {}}).status_code == 401
    olga = bearer(tokens["olga"])
    missing = client.post(url, headers=olga, json={"answers": {}})
    assert missing.status_code == 409
    assert [p["value"] for p in missing.json()["problems"]] == ["Nathalie Richart"]
    done = client.post(url, headers=olga, json={"answers": {"Nathalie Richart": "P0000238"}})
    assert done.status_code == 200
    assert done.json()["status"] == "accepted"
    with engine.connect() as connection:
        by = connection.execute(
            select(tournaments.c.imported_by).where(tournaments.c.key == "CC2024")
        ).scalar_one()
    assert by == "olga"
    assert client.post(url, headers=olga, json={"answers": {}}).status_code == 409
    # Rated, then in the list that takes it in.
    run_ratings(engine, MeloParams(), now=NOW)
    assert (
        client.get(f"/api/submissions/{made}", headers=bearer(tokens["dan"])).json()["status"]
        == "rated"
    )
    # The 2024-02 list is cut off at the end of January: not in it.
    publish_list(engine, "2024-02", ListOptions(), by="olga", now=datetime.now(UTC))
    status = client.get(f"/api/submissions/{made}", headers=bearer(tokens["dan"])).json()["status"]
    assert status == "rated"
    publish_list(engine, "2024-03", ListOptions(), by="olga", now=datetime.now(UTC))
    status = client.get(f"/api/submissions/{made}", headers=bearer(tokens["dan"])).json()["status"]
    assert status == "rated, in list 2024-03"
    # A full re-rating that changes nothing of its rating leaves it in the list it came in.
    run_ratings(engine, MeloParams(), now=datetime.now(UTC), full=True)
    status = client.get(f"/api/submissions/{made}", headers=bearer(tokens["dan"])).json()["status"]
    assert status == "rated, in list 2024-03"


@pytest.fixture
def smtp() -> Iterator[tuple[list[Message], int]]:
    from aiosmtpd.controller import Controller

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    received: list[Message] = []

    class Handler:
        async def handle_DATA(self, _server: Any, _session: Any, envelope: Any) -> str:
            received.append(message_from_bytes(envelope.content))
            return "250 OK"

    controller = Controller(Handler(), hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield received, port
    finally:
        controller.stop()


def test_a_rejection_gives_the_director_the_reason_and_a_mail(
    engine: Engine, tokens: dict[str, str], smtp: tuple[list[Message], int]
) -> None:
    received, port = smtp
    client = client_of(engine, smtp_host="127.0.0.1", smtp_port=port)
    made = api_submit(client, tokens["dan"]).json()["id"]
    url = f"/api/submissions/{made}/reject"
    assert client.post(url, headers=bearer(tokens["dan"]), json={"reason": "no"}).status_code == 403
    assert client.post(url, headers=bearer(tokens["olga"]), json={"reason": ""}).status_code == 422
    done = client.post(url, headers=bearer(tokens["olga"]), json={"reason": "Round 3 is missing"})
    assert done.status_code == 200
    assert done.json()["status"] == "rejected"
    assert done.json()["reason"] == "Round 3 is missing"
    assert len(received) == 1
    assert received[0]["To"] == "dan@example.org"
    assert "Round 3 is missing" in received[0].get_payload()
    log_in(client, "dan")
    page = client.get("/submit").text
    assert "rejected" in page
    assert "Round 3 is missing" in page


def test_the_desk_queue_and_review_in_the_browser(engine: Engine, tokens: dict[str, str]) -> None:
    client = client_of(engine)
    first = api_submit(client, tokens["dan"]).json()["id"]
    second = api_submit(
        client, tokens["eve"], CLUB_CUP.replace(b"Nathalie Richart,FRA", b"Nathalie Richard,FRA")
    ).json()["id"]
    log_in(client, "olga")
    desk = client.get("/desk").text
    assert desk.index(f'/desk/submissions/{first}"') < desk.index(f'/desk/submissions/{second}"')
    review = client.get(f"/desk/submissions/{first}").text
    # A name from a file is text on the page, never markup.
    assert "<script>alert(1)</script>" not in review
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in review
    assert "Club de Marelle de Nice" in review
    token = csrf(client, f"/desk/submissions/{first}")
    unanswered = client.post(
        f"/desk/submissions/{first}/accept", data={"csrftoken": token, "name_1": "Nathalie Richart"}
    )
    assert unanswered.status_code == 409
    assert "needs an answer" in unanswered.text
    done = client.post(
        f"/desk/submissions/{first}/accept",
        data={"csrftoken": token, "name_1": "Nathalie Richart", "answer_1": "P0000238",
              "name_2": "<script>alert(1)</script>", "answer_2": "new"},
        follow_redirects=False,
    )  # fmt: skip
    assert done.status_code == 303
    assert "accepted" in client.get(f"/desk/submissions/{first}").text
    rejected = client.post(
        f"/desk/submissions/{second}/reject", data={"csrftoken": token, "reason": "a copy of 1"},
        follow_redirects=False,
    )  # fmt: skip
    assert rejected.status_code == 303
    assert (
        client.get(f"/api/submissions/{second}", headers=bearer(tokens["eve"])).json()["reason"]
        == "a copy of 1"
    )


def test_a_desk_form_without_its_token_is_refused(engine: Engine, tokens: dict[str, str]) -> None:
    client = client_of(engine)
    made = api_submit(client, tokens["dan"]).json()["id"]
    log_in(client, "olga")
    response = client.post(f"/desk/submissions/{made}/reject", data={"reason": "no"})
    assert response.status_code == 403
    assert (
        client.get(f"/api/submissions/{made}", headers=bearer(tokens["dan"])).json()["status"]
        == "needs answers"
    )
