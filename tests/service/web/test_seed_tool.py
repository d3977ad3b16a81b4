"""The site's seed tool when something is not settled: participants the rating list may hold
more than once, a file with problems, options that cannot work together, and what the form
keeps of what the director entered."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine

from service.web import create_app
from service.web.seed import keep
from tests.service.web.support import BACKENDS, published_database, settings

HTML = {"accept": "text/html"}


@pytest.fixture(scope="module", params=BACKENDS)
def published(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Engine]:
    with published_database(request, tmp_path_factory.mktemp("seed-tool")) as engine:
        yield engine


@pytest.fixture(scope="module")
def client(published: Engine) -> TestClient:
    return TestClient(create_app(published, settings(upload_limit_bytes=4096)))


def upload(
    client: TestClient,
    data: bytes | None,
    filename: str = "entries.csv",
    headers: dict[str, str] | None = None,
    **fields: str,
) -> httpx.Response:
    files = {"file": (filename, data)} if data is not None else {"file": ("", b"")}
    response: httpx.Response = client.post("/seed", data=fields, files=files, headers=headers)
    return response


ENTRIES = b"player_id,name\n1,\n,Player\n,Nina Neu\n"
"""Player 1 by id, "Player" (part of every other name of the list) and a newcomer."""


def test_an_api_client_gets_the_candidates_as_problems_of_the_file(client: TestClient) -> None:
    response = upload(client, ENTRIES, system="swiss")
    assert response.status_code == 422
    body = response.json()
    assert body["detail"] == (
        "1 participant may be a player of the rating list: answer with fields line_N "
        "(a player_id, or new for a newcomer)"
    )
    (problem,) = body["problems"]
    assert (problem["file"], problem["line"], problem["column"], problem["value"]) == (
        "entries.csv", 3, "name", "Player",
    )  # fmt: skip
    # Player 1 is on line 2 already: he is no candidate for line 3.
    assert problem["expected"].startswith(
        "no player of the rating list has this name, but it is part of or close to the name of "
    )
    assert "2 Player 2 (AUT, " in problem["expected"]
    assert " 1 Player 1 " not in problem["expected"]
    assert problem["expected"].endswith("; give the player_id, or new")


def test_the_answers_settle_the_participants(client: TestClient) -> None:
    response = upload(client, ENTRIES, system="swiss", line_3="2")
    assert response.status_code == 200, response.text
    assert sorted(r["player_id"] or r["name"] for r in response.json()) == ["1", "2", "Nina Neu"]
    response = upload(client, ENTRIES, system="swiss", line_3="new")
    assert response.status_code == 200
    assert {r["name"]: r["player_id"] for r in response.json()}["Player"] is None
    response = upload(client, ENTRIES, system="swiss", line_3="nobody")
    assert response.status_code == 422
    assert response.json()["problems"][0]["value"] == "nobody"


def test_a_person_gets_the_form_again_with_the_candidates_beside_the_participant(
    client: TestClient,
) -> None:
    fields = {"system": "mcmahon", "mms_from": "rating", "bar": "3d", "first_board": "black"}
    response = upload(client, ENTRIES, headers=HTML, format="html", **fields)
    assert response.status_code == 422
    page = response.text
    assert "<h1>Choose who the participant is</h1>" in page
    assert "HTTP status" not in page
    assert "<legend>Line 3: Player</legend>" in page
    assert page.count('<input type="radio" name="line_3"') == 11  # ten players and a newcomer
    assert '<input type="radio" name="line_3" value="new" required>' in page
    # What was entered is kept, the file too.
    assert '<option value="mcmahon" selected>' in page
    assert '<option value="rating" selected>' in page
    assert '<option value="black" selected>' in page
    assert 'name="bar" value="3d"' in page
    assert '<option value="html" selected>' in page
    kept = re.search(r'<input type="hidden" name="kept" value="([^"]+)">', page)
    assert kept is not None
    assert kept[1] == keep(ENTRIES)
    assert "Kept: <strong>entries.csv</strong>" in page
    # The form sent back with an answer and without the file gives the list.
    response = client.post(
        "/seed",
        data={**fields, "format": "json", "kept": kept[1], "kept_name": "entries.csv",
              "line_3": "4"},
        files={"file": ("", b"")},
    )  # fmt: skip
    assert response.status_code == 200, response.text
    assert sorted(r["player_id"] or r["name"] for r in response.json()) == ["1", "4", "Nina Neu"]


def test_a_damaged_kept_file_or_none_at_all_is_asked_for_again(client: TestClient) -> None:
    for kept in ("not base64!", "aGVsbG8="):
        response = client.post(
            "/seed",
            data={"system": "swiss", "kept": kept, "kept_name": "entries.csv"},
            files={"file": ("", b"")},
        )
        assert response.status_code == 422
        assert response.json()["detail"] == (
            "the participant file kept in the form is damaged: choose the file again"
        )
    response = upload(client, None, system="swiss")
    assert response.status_code == 422
    assert response.json()["detail"] == "choose the participant file to seed"
    page = upload(client, None, headers=HTML, system="swiss").text
    assert "Choose the participant file to seed." in page


def test_a_kept_file_is_held_to_the_upload_limit(client: TestClient) -> None:
    packed = keep(b"name\n" + b"x" * 5000 + b"\n")
    assert packed is not None
    response = client.post(
        "/seed", data={"system": "swiss", "kept": packed, "kept_name": "big.csv"},
        files={"file": ("", b"")},
    )  # fmt: skip
    assert response.status_code == 413


def test_a_file_with_problems_shows_them_above_the_form(client: TestClient) -> None:
    results = b"tournament,end_date,name,wins\nOpen,2024-01-01,A,1\n"
    response = upload(
        client, results, "results.csv", headers=HTML, system="swiss", bar="4d", format="html"
    )
    assert response.status_code == 422
    page = response.text
    assert "<h1>The participant file has problems</h1>" in page
    assert "3 problems found in the file: correct the file and choose it again." in page
    assert page.count("unknown column (expected: player_id, name,") == 3
    assert "HTTP status" not in page
    assert "422" not in page
    # The form is there, what was entered kept; the file with problems is chosen again.
    assert 'name="bar" value="4d"' in page
    assert 'name="kept"' not in page
    assert 'accept=".csv,.xlsx,.json,.parquet" required>' in page


def test_options_that_cannot_work_together_keep_the_file(client: TestClient) -> None:
    response = upload(
        client, ENTRIES, headers=HTML, system="mcmahon", bar="20k", floor="2d", format="html"
    )
    assert response.status_code == 422
    page = response.text
    assert "<h1>These options cannot work together</h1>" in page
    assert "The bar (20k) must not be below the floor (2d)." in page
    assert 'name="floor" value="2d"' in page
    assert "Kept: <strong>entries.csv</strong>" in page
    response = upload(client, ENTRIES, system="mcmahon", bar="20k", floor="2d")
    assert response.status_code == 422
    assert response.json() == {
        "detail": "the bar (20k) must not be below the floor (2d)", "problems": [],
    }  # fmt: skip


def test_error_pages_say_what_went_wrong_and_lead_back(client: TestClient) -> None:
    response = upload(client, ENTRIES, headers=HTML, system="swiss", handicap="12")
    assert response.status_code == 422
    page = response.text
    assert "<h1>A value entered is not valid</h1>" in page
    assert "HTTP status" not in page
    assert re.search(r'<a href="/seed"[^>]*>Back to the form</a>', page)
    missing = client.get("/players/NO-SUCH-PLAYER", headers=HTML)
    assert missing.status_code == 404
    assert "<h1>Not found</h1>" in missing.text
    assert "HTTP status" not in missing.text
    assert '<a href="/">Back to the ranking</a>' in missing.text


def test_a_control_character_in_a_name_is_taken_out_as_on_the_command_line(
    client: TestClient,
) -> None:
    entries = b'[{"name": "Nina\\u0000 Neu"}, {"player_id": "1"}]'
    response = upload(client, entries, "entries.json", system="swiss")
    assert response.status_code == 200
    assert sorted(r["name"] for r in response.json()) == ["Nina Neu", "Player 1"]
    page = upload(client, entries, "entries.json", headers=HTML, system="swiss", format="html")
    assert "Line 1, name: control characters removed: read as &#39;Nina Neu&#39;" in page.text
    # In an id a control character is refused: ids must be exact.
    refused = upload(client, b'[{"player_id": "1\\u0000"}]', "entries.json", system="swiss")
    assert refused.status_code == 422
    assert refused.json()["problems"][0]["expected"] == "must not contain control characters"


def test_a_mcmahon_page_shows_the_group_and_no_strength_class(client: TestClient) -> None:
    go = b"name,country,rank\nAki,JPN,5d\nBea,FRA,1k\nEla,GER,25k\n"
    page = upload(
        client, go, headers=HTML, system="mcmahon", bar="3d", floor="20k", format="html"
    ).text
    headings = re.findall(r'<th scope="col" class="[^"]*">([^<]+)</th>', page)
    assert headings == ["Seed", "Name", "Country", "Rank", "Rating", "MMS", "Group"]
    assert '<td class="opt">bar</td>' in page
    assert '<td class="opt">floor</td>' in page


def test_the_tool_reads_no_file_from_the_server(client: TestClient, tmp_path: Path) -> None:
    # A kept file is what the form sent: a name in kept_name is a label, never a path.
    secret = tmp_path / "secret.csv"
    secret.write_text("name\nSecret Person\n")
    response = client.post(
        "/seed", data={"system": "swiss", "kept_name": str(secret)}, files={"file": ("", b"")}
    )
    assert response.status_code == 422
    assert response.json()["detail"] == "choose the participant file to seed"


def test_a_kept_file_with_a_long_name_is_seeded_under_its_name_cut(client: TestClient) -> None:
    response = client.post(
        "/seed",
        data={"system": "swiss", "format": "html", "kept": keep(b"name\nNina Neu\n") or "",
              "kept_name": "e" * 300 + ".csv"},
        files={"file": ("", b"")},
    )  # fmt: skip
    assert response.status_code == 200
    assert "Seed list (Swiss): " + "e" * 255 + "</h1>" in response.text


UNRATED = (
    b"player_id,name,country,rating\n1,,,\n2,,,\n,Nina Neu,NOR,\n,Ole Ny,NOR,\n,Ada Alt,NOR,1210\n"
)
"""Two players of the list, two newcomers without a rating and one the file rates."""


def test_the_form_seeds_unrated_players_last_when_asked(client: TestClient) -> None:
    default = upload(client, UNRATED, system="swiss")
    assert default.status_code == 200, default.text
    assert [r["name"] for r in default.json()][-2:] != ["Nina Neu", "Ole Ny"]
    response = upload(client, UNRATED, system="swiss", unrated="last")
    assert response.status_code == 200, response.text
    rows = response.json()
    assert [(r["name"], r["rating"], r["class"]) for r in rows[-2:]] == [
        ("Nina Neu", None, None),
        ("Ole Ny", None, None),
    ]
    assert all(r["rating"] is not None for r in rows[:-2])
    assert [r["seed"] for r in rows] == [1, 2, 3, 4, 5]


def test_the_unrated_choice_is_refused_for_mcmahon_and_kept_in_the_form(
    client: TestClient,
) -> None:
    response = upload(client, UNRATED, system="mcmahon", unrated="last")
    assert response.status_code == 422
    assert response.json()["detail"].startswith("unrated last orders a Swiss seed list")
    page = upload(client, UNRATED, headers=HTML, system="mcmahon", unrated="last", format="html")
    assert page.status_code == 422
    assert '<option value="last" selected>' in page.text
    assert "Kept: <strong>entries.csv</strong>" in page.text
    assert upload(client, UNRATED, system="swiss", unrated="first").status_code == 422
    form = client.get("/seed")
    assert '<select id="unrated" name="unrated">' in form.text
    assert '<option value="initial" selected>' in form.text
