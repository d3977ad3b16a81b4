"""The web service through FastAPI's test client: every route, every error status, the schema.

The service is read-only, so one database with two published lists (built once per backend)
serves every test of the module; the tests that need another database make their own.
"""

from __future__ import annotations

import asyncio
import csv
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import openpyxl
import pytest
from fastapi.testclient import TestClient
from openapi_spec_validator import validate
from sqlalchemy import create_engine
from sqlalchemy.engine import Engine

from service.web import create_app, make_server
from service.web.models import HistoryRow, PublishedList, RankingRow
from tests.service.web.support import (
    BACKENDS,
    OPERATIONS,
    PERIODS,
    go_participants_csv,
    participants_csv,
    published_database,
    settings,
)

SPEC_COLUMNS = [
    "rank", "player_id", "name", "country", "rating", "rating_exact", "games", "tournaments",
    "last_played",
]  # fmt: skip
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


@pytest.fixture(scope="module", params=BACKENDS)
def published(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Engine]:
    with published_database(request, tmp_path_factory.mktemp("web")) as engine:
        yield engine


@pytest.fixture(scope="module")
def client(published: Engine) -> TestClient:
    return TestClient(create_app(published, settings(upload_limit_bytes=4096)))


def upload(
    client: TestClient, data: bytes, filename: str = "participants.csv", **fields: str
) -> httpx.Response:
    response: httpx.Response = client.post("/seed", data=fields, files={"file": (filename, data)})
    return response


def test_home_shows_the_newest_list(client: TestClient) -> None:
    response = client.get("/")
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    assert f"<title>World ranking {PERIODS[-1]}</title>" in response.text


def test_home_before_any_list_is_published(sqlite_engine: Engine) -> None:
    response = TestClient(create_app(sqlite_engine, settings())).get("/")
    assert response.status_code == 200
    assert "<h1>No list published yet</h1>" in response.text


def test_lists_as_json(client: TestClient) -> None:
    response = client.get("/lists.json")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    lists = [PublishedList.model_validate(item) for item in response.json()]
    assert [item.list for item in lists] == [f"{period}@1" for period in PERIODS]
    assert all(item.active <= item.players for item in lists)
    # A client asking for JSON at the archive's address gets the same.
    asked = client.get("/lists", headers={"accept": "application/json"})
    assert asked.headers["content-type"] == "application/json"
    assert asked.json() == response.json()


def test_lists_is_the_archive_page_and_its_old_address_leads_there(client: TestClient) -> None:
    for accept in (
        "*/*",
        "text/html,application/xhtml+xml,*/*;q=0.8",
        "text/html, application/json",
    ):
        page = client.get("/lists", headers={"accept": accept})
        assert page.headers["content-type"] == "text/html; charset=utf-8", accept
        assert "<h1>Published rating lists</h1>" in page.text
    moved = client.get("/lists.html", follow_redirects=False)
    assert (moved.status_code, moved.headers["location"]) == (308, "/lists")


def test_lists_as_a_page_link_every_file(client: TestClient) -> None:
    response = client.get("/lists")
    assert response.status_code == 200
    for period in PERIODS:
        for fmt in ("html", "csv", "xlsx", "json"):
            assert f'href="/lists/{period}%401.{fmt}"' in response.text


def test_a_list_as_csv_is_an_attachment_with_the_spec_columns(client: TestClient) -> None:
    response = client.get(f"/lists/{PERIODS[0]}.csv")
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/csv; charset=utf-8"
    assert (
        response.headers["content-disposition"]
        == f'attachment; filename="ranking-{PERIODS[0]}.csv"'
    )
    rows = list(csv.reader(io.StringIO(response.text)))
    assert rows[0][: len(SPEC_COLUMNS)] == SPEC_COLUMNS
    assert [int(row[0]) for row in rows[1:]] == sorted(int(row[0]) for row in rows[1:])


def test_a_list_in_every_format_has_the_same_players(client: TestClient) -> None:
    as_json = client.get(f"/lists/{PERIODS[1]}.json").json()
    ids = [RankingRow.model_validate(row).player_id for row in as_json]
    xlsx = client.get(f"/lists/{PERIODS[1]}.xlsx")
    assert xlsx.headers["content-type"] == XLSX
    assert xlsx.headers["content-disposition"].startswith("attachment; ")
    sheet = openpyxl.load_workbook(io.BytesIO(xlsx.content)).active
    assert sheet is not None
    cells = list(sheet.iter_rows(values_only=True))
    assert [str(row[1]) for row in cells[1:]] == ids
    html = client.get(f"/lists/{PERIODS[1]}.html")
    assert "content-disposition" not in html.headers
    assert html.text.count("<tr>") == len(ids) + 1


def test_all_adds_inactive_players_and_the_active_column(client: TestClient) -> None:
    shown = client.get(f"/lists/{PERIODS[1]}.json").json()
    everyone = client.get(f"/lists/{PERIODS[1]}.json", params={"all": "true"}).json()
    assert len(everyone) >= len(shown)
    assert sum(row["active"] for row in everyone) == len(shown)
    assert "active" not in shown[0]


def test_a_version_is_addressed_with_at(client: TestClient) -> None:
    response = client.get(f"/lists/{PERIODS[0]}@1.json")
    assert response.status_code == 200
    assert response.json() == client.get(f"/lists/{PERIODS[0]}.json").json()


@pytest.mark.parametrize(
    ("path", "status", "detail"),
    [
        ("/lists/2030-01.csv", 404, "no list 2030-01 has been published"),
        ("/lists/2022-06@7.json", 404, "no list 2022-06@7 has been published"),
        ("/lists/2022-13.html", 404, "a list period is written YYYY-MM, not '2022-13'"),
        ("/players/nobody", 404, "no player has the id nobody"),
        ("/players/nobody.json", 404, "no player has the id nobody"),
        ("/nowhere", 404, "Not Found"),
    ],
)
def test_unknown_lists_and_players_are_404(
    client: TestClient, path: str, status: int, detail: str
) -> None:
    response = client.get(path)
    assert response.status_code == status
    assert response.json() == {"detail": detail, "problems": []}


@pytest.mark.parametrize("name", ["latest", "2022-06@²", "2022-06@99999999999999999999", "2022-6"])
def test_a_malformed_list_name_is_422(client: TestClient, name: str) -> None:
    response = client.get(f"/lists/{name}.json")
    assert response.status_code == 422
    (problem,) = response.json()["problems"]
    assert (problem["column"], problem["value"]) == ("path.period", name)
    assert problem["expected"] == (
        "a list name: YYYY-MM for its newest version or YYYY-MM@N for version N"
    )


@pytest.mark.parametrize("path", ["/players/a%00b", "/players/%07.json", "/players/%0A"])
def test_a_player_id_with_control_characters_is_422(client: TestClient, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 422
    (problem,) = response.json()["problems"]
    assert problem["column"] == "path.player_id"
    assert problem["expected"].startswith("a federation id, without control characters")


def test_an_unknown_format_is_422_naming_the_parameter(client: TestClient) -> None:
    response = client.get(f"/lists/{PERIODS[0]}.pdf")
    assert response.status_code == 422
    (problem,) = response.json()["problems"]
    assert (problem["column"], problem["value"]) == ("path.fmt", "pdf")
    assert problem["expected"] == "Input should be 'csv', 'xlsx', 'json' or 'html'"


def test_a_browser_gets_errors_as_a_page(client: TestClient) -> None:
    response = client.get("/players/nobody", headers={"accept": "text/html,*/*;q=0.8"})
    assert response.status_code == 404
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    assert "<h1>Not found</h1>" in response.text
    assert "no player has the id nobody" in response.text


def test_a_player_page_has_the_chart_and_every_tournament(client: TestClient) -> None:
    rows = client.get("/players/1.json").json()
    history = [HistoryRow.model_validate(row) for row in rows]
    assert history
    page = client.get("/players/1")
    assert page.status_code == 200
    assert page.headers["content-type"] == "text/html; charset=utf-8"
    assert '<figure class="chart"><img src="/players/1/chart.svg?v=' in page.text
    # Every event links its page, newest first, with the change in two decimals.
    events = re.findall(r'<a href="/events/([^"]+)">', page.text)
    assert events == [row.tournament.removeprefix("Event ") for row in reversed(history)]
    newest = history[-1]
    change = float(newest.rating_after) - float(newest.rating_before)
    assert f"{change:+.2f}</td>" in page.text
    for heading in ("Date", "Event", "W/D/L", "Buchholz", "Expected", "Rating after"):
        assert f">{heading}</th>" in page.text
    assert "m_avg" not in page.text
    assert "rating_exact" not in page.text


@pytest.mark.parametrize(
    ("fmt", "media_type", "start"),
    [
        ("png", "image/png", b"\x89PNG"),
        ("svg", "image/svg+xml", b"<?xml"),
        ("csv", "text/csv; charset=utf-8", b"date,tournament,"),
        ("xlsx", XLSX, b"PK"),
    ],
)
def test_a_player_history_as_a_file(
    client: TestClient, fmt: str, media_type: str, start: bytes
) -> None:
    response = client.get(f"/players/1.{fmt}")
    assert response.status_code == 200
    assert response.headers["content-type"] == media_type
    assert response.content.startswith(start)
    attachment = response.headers.get("content-disposition")
    assert attachment == (
        f'attachment; filename="player-1.{fmt}"' if fmt in ("csv", "xlsx") else None
    )


def test_the_seed_form_has_every_field(client: TestClient) -> None:
    response = client.get("/seed")
    assert response.status_code == 200
    assert 'enctype="multipart/form-data"' in response.text
    for field in ("file", "system", "pairings", "format", "bar", "floor", "mms_from", "list"):
        assert f'name="{field}"' in response.text
    assert f'<option value="{PERIODS[-1]}@1" selected>' in response.text


def test_a_swiss_seed_list_orders_by_the_newest_list(client: TestClient) -> None:
    ranking = client.get(f"/lists/{PERIODS[-1]}.json", params={"all": "true"}).json()
    exact = {row["player_id"]: float(row["rating_exact"]) for row in ranking}
    response = upload(client, participants_csv(), system="swiss", format="json")
    assert response.status_code == 200
    seeds = response.json()
    assert [row["seed"] for row in seeds] == [1, 2, 3, 4, 5, 6]
    ratings = [exact.get(row["player_id"], 1210.0) for row in seeds]
    assert ratings == sorted(ratings, reverse=True)
    assert {row["player_id"] for row in seeds} == {"1", "2", "3", "4", "5", None}


def test_a_seed_list_as_csv_is_an_attachment(client: TestClient) -> None:
    response = upload(client, participants_csv(), system="swiss", format="csv")
    assert response.headers["content-disposition"] == 'attachment; filename="seeds.csv"'
    rows = list(csv.DictReader(io.StringIO(response.text)))
    assert [row["name"] for row in rows].count("Newcomer Nina") == 1


def test_round_one_pairing_as_a_page(client: TestClient) -> None:
    response = upload(client, participants_csv(), system="swiss", pairings="true", format="html")
    assert response.status_code == 200
    text = response.text
    assert text.count("<h3>Board ") == 3
    assert "Round 1 pairing (Swiss): participants.csv" in text
    # A wall chart line per board, the players' ratings on the cards, the way back and every file.
    assert text.count('<tr><td class="num">') == 3
    assert "1. Newcomer Nina (1210)" in text
    assert '<a href="/seed">Back to the form</a>' in text
    for fmt in ("csv", "xlsx", "json"):
        assert f'download="pairing.{fmt}"' in text


def test_a_seed_list_page_prints_words_and_leaves_out_empty_columns(client: TestClient) -> None:
    text = upload(client, participants_csv(), system="swiss", format="html").text
    headings = re.findall(r'<th scope="col" class="[^"]*">([^<]+)</th>', text)
    assert headings == ["Seed", "Id", "Name", "Country", "Title", "Rating", "Class"]
    assert 'Newcomer Nina <span class="meta">(newcomer)</span>' in text
    assert "False" not in text
    mcmahon = upload(client, go_participants_csv(), system="mcmahon", format="html").text
    assert re.findall(r'<th scope="col" class="[^"]*">([^<]+)</th>', mcmahon) == [
        "Seed", "Name", "Country", "Rank", "Rating", "MMS",
    ]  # fmt: skip


def test_mcmahon_bar_and_floor_from_ranks_or_scores(client: TestClient) -> None:
    by_rank = upload(client, go_participants_csv(), system="mcmahon", bar="1d", floor="20k")
    assert by_rank.status_code == 200
    mms = {row["name"]: row["mms"] for row in by_rank.json()}
    # Seed 000's scale: 20k = 0 ... 1k = 19, 1d = 20; the bar holds 3d at 1d's 20, the floor 25k at 0.
    assert mms == {"Aki": 20, "Bea": 19, "Cem": 15, "Dan": 8, "Ela": 0}
    by_score = upload(client, go_participants_csv(), system="mcmahon", bar="20", floor="0")
    assert by_score.json() == by_rank.json()


def test_mcmahon_cards_show_rank_score_and_the_handicap_of_a_handicap_event(
    client: TestClient,
) -> None:
    def cards(page: str) -> list[str]:
        found = re.findall(r'<section class="card">(.*?)</section>', page, re.DOTALL)
        return [re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", card)).strip() for card in found]

    fields = {"system": "mcmahon", "pairings": "true", "format": "html"}
    # Aki 3d (22), Bea 1k (19), Cem 5k (15), Dan 12k (8), Ela 25k (-5): each alone in a group,
    # so Aki meets Bea, Cem meets Dan, and Ela has the bye.
    even = upload(client, go_participants_csv(), **fields).text
    assert cards(even) == [
        "Board 1 White: 1. Aki (3d, MMS 22) Black: 2. Bea (1k, MMS 19) MMS difference 3 "
        "Result: ______ – ______",
        "Board 2 White: 4. Dan (12k, MMS 8) Black: 3. Cem (5k, MMS 15) MMS difference 7 "
        "Result: ______ – ______",
        "Board 3 5. Ela (25k, MMS -5) Bye",
    ]
    assert "Handicap" not in even
    handicapped = upload(
        client, go_participants_csv(), **fields, handicap="9", handicap_threshold="1d"
    ).text
    # 1d and up count as 1d: Aki and Bea are one grade apart, less the correction: even. Cem
    # gives Dan six stones, and takes White for it.
    assert cards(handicapped)[:2] == [
        "Board 1 White: 1. Aki (3d, MMS 22) Black: 2. Bea (1k, MMS 19) MMS difference 3 "
        "Handicap: even game Result: ______ – ______",
        "Board 2 White: 3. Cem (5k, MMS 15) Black: 4. Dan (12k, MMS 8) MMS difference 7 "
        "Handicap: 6 stones Result: ______ – ______",
    ]
    assert '<th scope="col" class="num">Handicap</th>' in handicapped
    as_json = upload(
        client, go_participants_csv(), system="mcmahon", pairings="true", handicap="9"
    ).json()
    assert [(b["white_name"], b["black_name"], b["handicap"]) for b in as_json] == [
        ("Aki", "Bea", 2), ("Cem", "Dan", 6), ("Ela", None, None),
    ]  # fmt: skip
    refused = upload(client, go_participants_csv(), **fields, handicap="10")
    assert refused.status_code == 422


def test_a_bar_below_the_floor_is_422(client: TestClient) -> None:
    response = upload(client, go_participants_csv(), system="mcmahon", bar="20k", floor="2d")
    assert response.status_code == 422
    assert response.json() == {
        "detail": "the bar (20k) must not be below the floor (2d)",
        "problems": [],
    }


def test_a_bug_in_the_seeding_is_not_answered_as_bad_input(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A ValueError is a mistake in the code, not in the request: no 422 "your input is wrong".
    def broken(*args: object, **kwargs: object) -> None:
        raise ValueError("a mistake in the code")

    monkeypatch.setattr("service.web.seed.seed", broken)
    response = upload(client, participants_csv(), system="swiss")
    assert response.status_code == 500
    assert response.json() == {"detail": "internal server error", "problems": []}


def test_a_file_that_is_not_a_participant_list_is_422_with_every_problem(
    client: TestClient,
) -> None:
    results = b"tournament,end_date,name,wins,draws,losses,buchholz\nOpen,2024-01-01,A,1,0,0,0\n"
    response = upload(client, results, filename="results.csv", system="swiss")
    assert response.status_code == 422
    body = response.json()
    assert body["detail"] == "6 problems found in the file"
    assert [p["column"] for p in body["problems"]] == [
        "tournament", "end_date", "wins", "draws", "losses", "buchholz",
    ]  # fmt: skip
    assert {p["file"] for p in body["problems"]} == {"results.csv"}
    assert {p["line"] for p in body["problems"]} == {1}


@pytest.mark.parametrize(
    ("filename", "data", "column", "expected"),
    [
        ("p.csv", b"", None, "the file is empty"),
        ("p.csv", b"player_id\n424242\n", "player_id", "a player_id of the rating list"),
        ("p.csv", b"name,rank\nAki,99d\n", "rank", "a Go rank from 30k to 1k or 1d to 9d"),
        ("p.csv", b"name\nA\x81B\n", "name", "the file is neither UTF-8 nor Windows-1252 text"),
        ("p.csv", b"Name,Ratng\nAnn,1500\n", "ratng", "unknown column (expected: player_id, "),
        ("p.xlsx", b"PK\x03\x04 not a workbook", None, "not a readable XLSX workbook"),
        ("p", b"[{]", None, "not valid JSON"),
    ],
)
def test_bad_participant_files_are_422(
    client: TestClient, filename: str, data: bytes, column: str | None, expected: str
) -> None:
    response = upload(client, data, filename, system="swiss")
    assert response.status_code == 422
    problem = response.json()["problems"][0]
    assert (problem["file"], problem["column"]) == (filename, column)
    assert problem["expected"].startswith(expected)


def test_the_seed_tool_reads_headings_as_typed_and_says_what_a_misspelt_one_may_be(
    client: TestClient,
) -> None:
    typed = b"Player ID,Name,Fed,Rtg\n1,,,\n,Newcomer Nina,NOR,1210\n"
    assert upload(client, typed, system="swiss").status_code == 200
    misspelt = upload(client, b"Name,Contry\nAnn,NOR\n", system="swiss")
    assert misspelt.status_code == 422
    [problem] = misspelt.json()["problems"]
    assert problem["column"] == "contry"
    assert problem["expected"].endswith("; did you mean 'country'?")


def test_a_windows_1252_participant_list_is_seeded_with_a_note(client: TestClient) -> None:
    data = "Name;Land;Rtg\r\nJürgen Groß;GER;1500\r\nHélène Dubois;FRA;1450\r\n".encode("cp1252")
    page = client.post(
        "/seed",
        data={"system": "swiss", "format": "html"},
        files={"file": ("Teilnehmer.csv", data)},
    )
    assert page.status_code == 200
    assert "Jürgen Groß" in page.text
    assert "Note: Teilnehmer.csv: not UTF-8 text: read as Windows-1252" in page.text


def test_missing_or_invalid_form_fields_are_422(client: TestClient) -> None:
    response = client.post("/seed", data={"system": "round-robin"})
    assert response.status_code == 422
    columns = {p["column"] for p in response.json()["problems"]}
    # The file may come as the form's kept copy instead: its absence is the route's to say
    # (tests/service/web/test_seed_tool.py).
    assert columns == {"body.system"}


def test_a_body_that_is_not_multipart_form_data_is_400(client: TestClient) -> None:
    response = client.post(
        "/seed", content=b"garbage", headers={"content-type": "multipart/form-data"}
    )
    assert response.status_code == 400
    assert response.json() == {"detail": "Missing boundary in multipart.", "problems": []}


def test_seeding_from_a_malformed_list_name_is_422(client: TestClient) -> None:
    response = upload(client, participants_csv(), system="swiss", list="2022-06@²")
    assert response.status_code == 422
    assert [p["column"] for p in response.json()["problems"]] == ["body.list"]


def test_seeding_from_an_unknown_list_is_404(client: TestClient) -> None:
    response = upload(client, participants_csv(), system="swiss", list="2031-01")
    assert response.status_code == 404
    assert response.json()["detail"] == "no list 2031-01 has been published"


def test_an_upload_over_the_limit_is_413(client: TestClient) -> None:
    # The limit is 4096 bytes: just over it is refused by the route, far over it by the
    # middleware before the body is read.
    for size in (4097, 200_000):
        response = upload(client, b"x" * size, system="swiss")
        assert response.status_code == 413
        assert response.json()["detail"] == "the upload is larger than the limit of 4 KiB"


FILE_PART = b'--b\r\nContent-Disposition: form-data; name="file"; filename="p.csv"\r\n\r\n'
"""The start of a multipart body whose file then goes on and on."""


def post_in_chunks(app: Any, chunks: int, *, declared: bool) -> tuple[int, bytes, int]:
    """POST /seed straight through ASGI, 16 KiB per message; the status, the body, and how many
    messages the service pulled before it answered."""
    chunk = b"x" * 16_384
    headers = [(b"content-type", b"multipart/form-data; boundary=b")]
    if declared:
        headers.append((b"content-length", str(chunks * len(chunk)).encode()))
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
        "scheme": "http", "path": "/seed", "raw_path": b"/seed", "query_string": b"",
        "root_path": "", "headers": headers, "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 80),
    }  # fmt: skip
    pulled = 0
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        nonlocal pulled
        pulled += 1
        body = FILE_PART + chunk if pulled == 1 else chunk
        return {"type": "http.request", "body": body, "more_body": pulled < chunks}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    asyncio.run(app(scope, receive, send))
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return sent[0]["status"], body, pulled


def test_an_upload_is_refused_while_it_arrives(client: TestClient) -> None:
    # 4 KiB limit plus 64 KiB for the form around the file: the fifth 16 KiB message is too many.
    status, body, pulled = post_in_chunks(client.app, 640, declared=False)
    assert status == 413
    assert pulled == 5
    assert json.loads(body)["detail"] == "the upload is larger than the limit of 4 KiB"


def test_an_upload_declared_too_large_is_refused_unread(client: TestClient) -> None:
    status, body, pulled = post_in_chunks(client.app, 640, declared=True)
    assert (status, pulled) == (413, 0)
    assert json.loads(body)["detail"] == "the upload is larger than the limit of 4 KiB"


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("POST", "/lists", "GET"),
        ("DELETE", "/players/1", "GET"),
        ("PUT", "/seed", "GET, POST"),
        ("PATCH", "/", "GET"),
    ],
)
def test_everything_but_the_seed_upload_is_read_only(
    client: TestClient, method: str, path: str, allowed: str
) -> None:
    response = client.request(method, path)
    assert response.status_code == 405
    assert response.headers["allow"] == allowed
    assert response.json() == {"detail": "Method Not Allowed", "problems": []}


def test_health(client: TestClient) -> None:
    response = client.get("/health")
    body = response.json()
    assert (response.status_code, body["status"], body["database"]) == (200, "ok", "ok")
    assert body["last_run"] is None


def test_health_without_a_database_is_503(tmp_path: Path) -> None:
    unreachable = create_engine(f"sqlite:///{tmp_path / 'missing' / 'folder' / 'x.sqlite'}")
    response = TestClient(create_app(unreachable, settings())).get("/health")
    assert response.status_code == 503
    assert response.json() == {"status": "unavailable", "database": "unreachable"}


def test_the_openapi_schema_is_served_and_valid(client: TestClient) -> None:
    response = client.get("/openapi.json")
    assert response.status_code == 200
    schema = response.json()
    validate(schema)
    operations = {
        (method.upper(), path) for path, item in schema["paths"].items() for method in item
    }
    assert operations == set(OPERATIONS)
    upload_schema = schema["paths"]["/seed"]["post"]["requestBody"]["content"]
    (form,) = upload_schema.values()
    reference = form["schema"]["$ref"].rsplit("/", 1)[-1]
    fields = schema["components"]["schemas"][reference]["properties"]
    assert {"file", "system", "pairings", "format", "bar", "floor"} <= set(fields)
    assert set(schema["paths"]["/seed"]["post"]["responses"]) == {
        "200", "400", "404", "408", "413", "422", "503"
    }  # fmt: skip
    ranking = schema["paths"]["/lists/{period}.{fmt}"]["get"]["responses"]["200"]["content"]
    assert set(ranking) == {
        "text/csv; charset=utf-8",
        XLSX,
        "application/json",
        "text/html; charset=utf-8",
    }


def test_no_page_loads_anything_from_the_network(client: TestClient) -> None:
    for path in ("/", "/lists", "/seed", "/players/1", "/players/nobody"):
        text = client.get(path, headers={"accept": "text/html"}).text
        # XML namespaces in the inline SVG look like addresses but are never fetched.
        assert not re.search(r"""(src|href|action)\s*=\s*["']?(https?:)?//""", text), path
        assert not re.search(r"""url\(\s*["']?(https?:)?//|@import""", text), path


def test_the_server_listens_where_the_settings_say(client: TestClient) -> None:
    server = make_server(client.app, settings(http_host="127.0.0.2", http_port=8123))  # type: ignore[arg-type]
    assert (server.config.host, server.config.port) == ("127.0.0.2", 8123)
    assert make_server(client.app, settings()).config.host == "127.0.0.1"  # type: ignore[arg-type]


def test_json_and_csv_carry_the_same_ranking(client: TestClient) -> None:
    as_json = client.get(f"/lists/{PERIODS[0]}.json").json()
    as_csv = list(csv.DictReader(io.StringIO(client.get(f"/lists/{PERIODS[0]}.csv").text)))
    assert [(r["player_id"], r["rating_exact"]) for r in as_json] == [
        (r["player_id"], r["rating_exact"]) for r in as_csv
    ]


EXACT_TEXT = re.compile(r"^-?[0-9]+\.[0-9]{10}$")
HISTORY_NUMBERS = ("expected", "m_avg", "b_avg", "rating_before", "rating_after", "change")


def test_no_number_in_a_history_file_is_written_as_text(client: TestClient) -> None:
    falls = 0
    for player in ("1", "2", "3", "4", "5"):
        rows = list(csv.DictReader(io.StringIO(client.get(f"/players/{player}.csv").text)))
        assert rows
        assert not [v for r in rows for v in r.values() if v.startswith("'")]
        assert all(EXACT_TEXT.match(r[c]) for r in rows for c in HISTORY_NUMBERS)
        falls += sum(r["change"].startswith("-") for r in rows)
        sheet = openpyxl.load_workbook(io.BytesIO(client.get(f"/players/{player}.xlsx").content))
        cells = list(sheet.active.iter_rows(values_only=False))
        header = [c.value for c in cells[0]]
        for row, written in zip(cells[1:], rows, strict=True):
            for name in HISTORY_NUMBERS:
                cell = row[header.index(name)]
                assert cell.data_type == "n"
                assert f"{cell.value:.10f}" == written[name]
    assert falls  # a rating that fell is among them, written -0.52…, not '-0.52…


def test_the_diff_page_shows_whole_points_unless_exact_is_chosen(client: TestClient) -> None:
    new, old = PERIODS[1], PERIODS[0]
    whole = client.get(f"/lists/{new}/diff/{old}")
    exact = client.get(f"/lists/{new}/diff/{old}?exact=true")
    assert whole.status_code == exact.status_code == 200

    def shown(page: str) -> tuple[int, list[str]]:
        count = re.search(r"(\d+) players? differs? in ([a-z ,]+)", page)
        assert count is not None
        body = page[page.index("<tbody>") : page.index("</tbody>")]
        return int(count.group(1)), re.findall(r"<tr>(.*?)</tr>", body)

    counted, rows = shown(whole.text)
    assert counted == len(rows) > 0
    assert "in whole points, as the lists show them" in whole.text
    assert '<option value="false" selected>' in whole.text
    assert not re.search(r"\.[0-9]{10}<", whole.text)
    exactly, exact_rows = shown(exact.text)
    assert exactly == len(exact_rows) >= counted
    assert '<option value="true" selected>' in exact.text
    assert re.search(r">-?[0-9]+\.[0-9]{10}</td>", exact.text)
    assert f'action="/lists/{new}/diff/{old}"' in whole.text
