"""``ratings serve`` stops within seconds of a SIGTERM, whatever its connections are doing: idle
ones, half-sent heads, an upload whose body never comes."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.db import created
from tests.support.serving import wait_until_healthy

pytestmark = pytest.mark.skipif(
    not hasattr(signal, "SIGTERM") or sys.platform == "win32",
    reason="SIGTERM is how a service is stopped on Unix",
)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_serve_stops_within_seconds_with_connections_open(tmp_path: Path) -> None:
    port = free_port()
    environment = {
        **os.environ,
        "RATINGS_CONFIG": str(tmp_path / "ratings.toml"),
        "RATINGS_DATABASE_URL": created(f"sqlite:///{tmp_path / 'ratings.sqlite'}"),
        "RATINGS_INBOX_DIR": str(tmp_path / "inbox"),
        "RATINGS_PUBLISH_DIR": str(tmp_path / "publish"),
        "RATINGS_HTTP_PORT": str(port),
        # Long deadlines: the stop must not wait for them.
        "RATINGS_HTTP_HEADER_TIMEOUT": "120",
        "RATINGS_HTTP_BODY_TIMEOUT": "120",
        "RATINGS_HTTP_STOP_TIMEOUT": "2",
    }
    (tmp_path / "ratings.toml").write_text("")
    log = (tmp_path / "serve.log").open("wb")
    server = subprocess.Popen(
        [sys.executable, "-m", "service.cli", "serve"],
        env=environment,
        cwd=tmp_path,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    sockets: list[socket.socket] = []
    try:
        wait_until_healthy(server, port, tmp_path / "serve.log", 30)
        sockets.extend(socket.create_connection(("127.0.0.1", port)) for _ in range(20))
        sockets[0].sendall(b"GET /health HTTP/1.1\r\n")
        sockets[1].sendall(
            b"POST /seed HTTP/1.1\r\nHost: a\r\nContent-Length: 100000\r\n"
            b"Content-Type: multipart/form-data; boundary=b\r\n\r\n--b\r\n"
        )
        time.sleep(0.3)
        started = time.monotonic()
        server.send_signal(signal.SIGTERM)
        code = server.wait(timeout=15)
        stopped = time.monotonic() - started
    finally:
        for sock in sockets:
            sock.close()
        if server.poll() is None:
            server.kill()
            server.wait()
        log.close()
    output = (tmp_path / "serve.log").read_text()
    assert code == 0, output
    assert stopped < 6, output
    assert '"event": "service_stopped"' in output
    # Opening a current database at the start: no line of Alembic's setting itself up.
    assert '"logger": "alembic' not in output
