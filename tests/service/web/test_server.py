"""The web service as ``ratings serve`` runs it: uvicorn on loopback, real HTTP requests."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from ratings.storage.database import open_engine
from service.web import create_app
from tests.service.web.support import PERIODS, participants_csv, publish, running_server, settings

LIMIT = 4096


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("server")
    engine = open_engine(f"sqlite:///{folder / 'ratings.sqlite'}")
    publish(engine, folder / "history.csv")
    with running_server(create_app(engine, settings(upload_limit_bytes=LIMIT))) as url:
        yield url
    engine.dispose()


@pytest.fixture
def http(base_url: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=base_url, timeout=10) as client:
        yield client


def test_health_and_home_over_http(http: httpx.Client) -> None:
    health = http.get("/health").json()
    assert (health["status"], health["database"]) == ("ok", "ok")
    home = http.get("/")
    assert home.status_code == 200
    assert f"<title>World ranking {PERIODS[-1]}</title>" in home.text
    assert "server" not in home.headers


def test_a_list_download_over_http(http: httpx.Client) -> None:
    response = http.get(f"/lists/{PERIODS[0]}.csv", params={"all": "true"})
    assert response.status_code == 200
    assert (
        response.headers["content-disposition"]
        == f'attachment; filename="ranking-{PERIODS[0]}.csv"'
    )
    rows = list(csv.DictReader(io.StringIO(response.text)))
    assert int(response.headers["content-length"]) == len(response.content)
    assert {row["active"] for row in rows} <= {"true", "false"}


def test_a_seed_list_upload_over_http(http: httpx.Client) -> None:
    response = http.post(
        "/seed",
        data={"system": "swiss", "pairings": "true", "format": "json"},
        files={"file": ("participants.csv", participants_csv(), "text/csv")},
    )
    assert response.status_code == 200
    boards = response.json()
    assert [board["board"] for board in boards] == [1, 2, 3]
    assert all(board["black_seed"] is not None for board in boards)


def test_errors_over_http_are_4xx_with_a_message(http: httpx.Client) -> None:
    missing = http.get("/players/nobody.json")
    assert (missing.status_code, missing.json()["detail"]) == (404, "no player has the id nobody")
    write = http.put("/lists")
    assert write.status_code == 405
    assert write.headers["allow"] == "GET"


def test_an_oversized_upload_is_refused_before_it_is_read(base_url: str) -> None:
    # A fresh connection: the server closes it after refusing, as the body stays unread.
    with httpx.Client(base_url=base_url, timeout=10) as client:
        response = client.post(
            "/seed", data={"system": "swiss"}, files={"file": ("big.csv", b"x" * 300_000)}
        )
    assert response.status_code == 413
    assert response.json()["detail"] == "the upload is larger than the limit of 4 KiB"
    assert response.headers["connection"] == "close"


def test_a_streamed_upload_is_cut_at_the_limit(base_url: str) -> None:
    def chunks() -> Iterator[bytes]:
        yield b'--b\r\nContent-Disposition: form-data; name="file"; filename="p.csv"\r\n\r\n'
        for _ in range(64):
            yield b"x" * 16_384

    with httpx.Client(base_url=base_url, timeout=10) as client:
        response = client.post(
            "/seed", content=chunks(), headers={"content-type": "multipart/form-data; boundary=b"}
        )
    assert response.status_code == 413
    assert response.request.headers["transfer-encoding"] == "chunked"
    assert response.json()["detail"] == "the upload is larger than the limit of 4 KiB"


def test_charts_drawn_at_the_same_time_are_all_whole(base_url: str) -> None:
    # Routes run in a thread pool and the charts come from matplotlib's pyplot, which keeps
    # global state: requests at the same time must still each get their own whole image.

    def chart(player: str) -> bytes:
        with httpx.Client(base_url=base_url, timeout=30) as client:
            response = client.get(f"/players/{player}.png")
            assert response.status_code == 200
            return response.content

    with ThreadPoolExecutor(max_workers=6) as pool:
        images = list(pool.map(chart, ["1", "2", "3"] * 2))
    assert all(
        image.startswith(b"\x89PNG") and image.endswith(b"IEND\xaeB`\x82") for image in images
    )
    assert images[:3] == images[3:]
    assert len(set(images)) == 3
