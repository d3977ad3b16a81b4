"""The web service under abuse, over real connections on loopback: uploads that decode to far
more than they weigh, slow or silent clients, hundreds of idle connections, a burst of chart
images. Each is answered (or dropped) quickly and the service keeps answering everyone else.

Sizes and timeouts are small, chosen to show each mechanism, not to load the machine."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pyarrow as pa
import pytest
from sqlalchemy.engine import Engine

from ratings.storage.database import open_engine
from service.web import create_app
from tests.service.web.support import participants_csv, publish, running_server, settings
from tests.support.tables import parquet, workbook


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    folder = tmp_path_factory.mktemp("abuse")
    engine = open_engine(f"sqlite:///{folder / 'ratings.sqlite'}")
    publish(engine, folder / "history.csv")
    yield engine
    engine.dispose()


def serving(engine: Engine, **values: Any) -> Any:
    """A server over ``engine`` whose app and server take the settings ``values``."""
    return running_server(create_app(engine, settings(**values)), **values)


def upload(base: str, name: str, data: bytes) -> httpx.Response:
    with httpx.Client(base_url=base, timeout=20) as client:
        return client.post("/seed", data={"system": "swiss"}, files={"file": (name, data)})


def test_files_that_decode_to_gigabytes_are_refused_and_the_service_goes_on(
    engine: Engine,
) -> None:
    bomb = workbook(700_000)  # a sheet of 36 MB in a file of about 100 KB
    million = parquet(pa.table({"name": pa.array([None] * 1_000_000, pa.string())}))
    repeated = parquet(pa.table({"name": pa.array(["x" * 20_000] * 2000).dictionary_encode()}))
    with serving(engine) as base:
        answers = {
            name: upload(base, name, data)
            for name, data in [
                ("bomb.xlsx", bomb), ("million.parquet", million), ("long.parquet", repeated),
                ("million.csv", b"name\n" + b"x\n" * 1_000_000),
                ("deep.json", b"[" * 100_000 + b"]" * 100_000),
            ]
        }  # fmt: skip
        assert {name: a.status_code for name, a in answers.items()} == dict.fromkeys(answers, 422)
        assert {name: a.json()["problems"][0]["expected"] for name, a in answers.items()} == {
            "bomb.xlsx": "unpacks to 36.1 MB once decoded, more than the limit of 32 MB",
            "million.parquet": "has more than 10,000 rows, the limit for this kind of file",
            "long.parquet": "holds text of 38.1 MB once decoded, more than the limit of 32 MB",
            "million.csv": "has more than 10,000 rows, the limit for this kind of file",
            "deep.json": "nested more than 32 levels deep",
        }
        assert max(len(a.content) for a in answers.values()) < 1000
        # The service is still there, and seeds a real file.
        assert upload(base, "participants.csv", participants_csv()).status_code == 200
        assert httpx.get(f"{base}/health", timeout=5).status_code == 200


def test_a_problem_list_is_the_first_twenty_and_a_count(engine: Engine) -> None:
    rows = b"".join(b"P%d,ten\n" % i for i in range(300))
    with serving(engine) as base:
        answer = upload(base, "bad.csv", b"name,rating\n" + rows)
    assert answer.status_code == 422
    body = answer.json()
    assert body["detail"] == "300 problems found in the file (the first 20 are listed)"
    assert (len(body["problems"]), body["more"]) == (20, 280)
    assert body["problems"][0]["line"] == 2
    assert body["problems"][-1]["line"] == 21


def test_uploads_beyond_the_seeding_room_are_asked_to_come_back(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    from service.web import seed as route

    inside = threading.Event()
    release = threading.Event()
    real_seed = route.seed

    def held(*args: Any, **kwargs: Any) -> Any:
        inside.set()
        release.wait(10)
        return real_seed(*args, **kwargs)

    monkeypatch.setattr(route, "seed", held)
    with serving(engine, seed_concurrency=1) as base, ThreadPoolExecutor(1) as pool:
        first = pool.submit(upload, base, "participants.csv", participants_csv())
        assert inside.wait(10)
        second = upload(base, "participants.csv", participants_csv())
        release.set()
        assert first.result().status_code == 200
    assert second.status_code == 503
    assert second.headers["retry-after"] == "5"
    assert second.json()["detail"] == (
        "other seed lists are being made; try again in a few seconds"
    )


def raw(base: str) -> socket.socket:
    host, port = base.removeprefix("http://").split(":")
    return socket.create_connection((host, int(port)), timeout=10)


def closed_within(sock: socket.socket, seconds: float) -> bytes:
    """What the server sent before closing ``sock``; fails if it is still open after
    ``seconds``."""
    sock.settimeout(seconds)
    received = b""
    while chunk := sock.recv(65536):
        received += chunk
    return received


def test_a_request_head_that_never_ends_is_dropped(engine: Engine) -> None:
    with serving(engine, http_header_timeout=1) as base:
        silent = raw(base)
        trickling = raw(base)
        trickling.sendall(b"GET /health HTTP/1.1\r\nHost: a\r\n")
        started = time.monotonic()
        for byte in b"X-Slow: 1\r\n":  # a byte now and then does not keep it open
            trickling.sendall(bytes([byte]))
            time.sleep(0.05)
        assert closed_within(trickling, 5) == b""
        assert closed_within(silent, 5) == b""
        assert time.monotonic() - started < 5
        # A client that sends its request in time is answered, and kept for the next one.
        with httpx.Client(base_url=base, timeout=5) as client:
            assert client.get("/health").status_code == 200
            time.sleep(1.5)
            assert client.get("/health").status_code == 200


def test_a_body_that_never_ends_gets_a_408(engine: Engine) -> None:
    with serving(engine, http_body_timeout=1) as base:
        sock = raw(base)
        sock.sendall(
            b"POST /seed HTTP/1.1\r\nHost: a\r\nContent-Length: 5000\r\n"
            b"Content-Type: multipart/form-data; boundary=b\r\n\r\n--b\r\n"
        )
        answer = closed_within(sock, 5)
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 408 ")
    assert b"connection: close" in head.lower()
    assert body == b'{"detail":"the request\'s body did not arrive within 1 seconds","problems":[]}'


def test_idle_connections_cannot_lock_everyone_out(engine: Engine) -> None:
    # Head deadline far away: the bound alone must make room.
    with serving(engine, http_max_connections=50, http_header_timeout=60) as base:
        idle = [raw(base) for _ in range(300)]
        for sock in idle[::2]:
            sock.sendall(b"GET /health HTTP/1.1\r\n")  # half a head
        with httpx.Client(base_url=base, timeout=5) as client:
            assert client.get("/health").status_code == 200
        time.sleep(0.5)
        still_open = 0
        for sock in idle:
            sock.setblocking(False)
            try:
                still_open += sock.recv(1) != b""
            except BlockingIOError:
                still_open += 1
            except ConnectionResetError:
                pass  # closed by the server too
            sock.close()
    assert still_open <= 50


def test_a_burst_of_charts_cannot_starve_health_nor_the_pages(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    from service.web import players

    real_chart = players.history_svg

    def slow_chart(*args: Any, **kwargs: Any) -> bytes:
        time.sleep(0.3)  # a large history on a loaded machine
        return real_chart(*args, **kwargs)

    monkeypatch.setattr(players, "history_svg", slow_chart)

    def chart(n: int) -> int:
        # Five players' charts, none drawn yet: a burst past the gate's room is refused. The
        # client's pool opens a connection for each request under way.
        return burst.get(f"/players/{1 + n % 5}/chart.svg?v={n}").status_code

    limits = httpx.Limits(max_connections=None, max_keepalive_connections=None)
    with (
        serving(engine, chart_queue=2) as base,
        httpx.Client(base_url=base, timeout=60, limits=limits) as burst,
        ThreadPoolExecutor(60) as pool,
    ):
        charts = pool.map(chart, range(60))
        time.sleep(0.3)
        started = time.monotonic()
        health = httpx.get(f"{base}/health", timeout=3)
        page = httpx.get(f"{base}/players/1", timeout=6)
        waited = time.monotonic() - started
        statuses = list(charts)
    assert health.status_code == 200
    assert page.status_code == 200
    assert waited < 6
    assert set(statuses) == {200, 503}
    assert statuses.count(200) >= 2


def test_the_settings_reach_the_server(tmp_path: Path) -> None:
    from service.web import make_server

    options = settings(
        http_header_timeout=3, http_body_timeout=7, http_keep_alive=4, http_max_connections=9,
        http_stop_timeout=2,
    )  # fmt: skip
    config = make_server(create_app(open_engine(f"sqlite:///{tmp_path / 'r.sqlite'}"), options),
                         options).config  # fmt: skip
    protocol: Any = config.http
    assert (protocol.header_timeout, protocol.max_connections) == (3, 9)
    assert (config.timeout_keep_alive, config.timeout_graceful_shutdown) == (4, 2)
    assert config.limit_concurrency == 10
    assert (options.body_timeout, options.seed_concurrency, options.chart_queue) == (7, 2, 8)
