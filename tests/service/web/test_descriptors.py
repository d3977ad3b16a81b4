"""The service out of file descriptors: a connection it cannot accept is counted, not logged
with a traceback each time (1,208 tracebacks in a second were seen), and it serves again once
descriptors are free."""

from __future__ import annotations

import errno
import json
import logging
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from service.web.connections import AcceptFailures, new_loop
from tests.support.db import created
from tests.support.serving import wait_until_healthy
from tests.support.settings import empty_settings_file


def refused() -> dict[str, object]:
    """What asyncio hands its exception handler when ``accept()`` finds no descriptor free."""
    return {
        "message": "socket.accept() out of system resource",
        "exception": OSError(errno.EMFILE, "Too many open files"),
        "socket": object(),
    }


class _Timers:
    """The two calls of a loop the handler makes, with its timers fired by the test when it
    says so: the handler's counting is checked without waiting on a clock that a busy machine
    delays (a late wake-up would fire a timer early in the sequence)."""

    def __init__(self) -> None:
        self.pending: list[tuple[Any, tuple[Any, ...]]] = []

    def call_later(self, _delay: float, callback: Any, *args: Any) -> Any:
        self.pending.append((callback, args))
        return object()

    def fire(self) -> None:
        due, self.pending = self.pending, []
        for callback, args in due:
            callback(*args)

    def default_exception_handler(self, context: dict[str, Any]) -> None:
        raise AssertionError(f"not the handler's to pass on: {context}")


def test_the_loop_reports_failed_accepts_through_the_handler() -> None:
    loop = new_loop()
    try:
        assert isinstance(loop.get_exception_handler(), AcceptFailures)
    finally:
        loop.close()


def test_failed_accepts_are_one_line_then_a_count(caplog: pytest.LogCaptureFixture) -> None:
    handler = AcceptFailures()
    timers = _Timers()
    with caplog.at_level(logging.INFO, logger="ratings.web"):
        for _ in range(1208):
            handler(timers, refused())  # type: ignore[arg-type]
        timers.fire()  # the first interval ends: the 1207 after the first
        for _ in range(5):
            handler(timers, refused())  # type: ignore[arg-type]
        timers.fire()  # the second: those 5
        timers.fire()  # a third with none: the run is over
        assert timers.pending == []
        handler(timers, refused())  # type: ignore[arg-type]
    records = [r for r in caplog.records if r.name == "ratings.web"]
    assert [(r.event, r.failures, r.exc_info) for r in records] == [  # type: ignore[attr-defined]
        ("accept_failed", 1, None),
        ("accept_failed", 1207, None),
        ("accept_failed", 5, None),
        ("accept_failed", 1, None),
    ]
    assert {r.error for r in records} == {"Too many open files"}  # type: ignore[attr-defined]


def test_any_other_error_of_the_loop_is_logged_as_before(caplog: pytest.LogCaptureFixture) -> None:
    loop = new_loop()
    try:
        with caplog.at_level(logging.ERROR, logger="asyncio"):
            loop.call_exception_handler(
                {"message": "something else", "exception": ValueError("a bug")}
            )
    finally:
        loop.close()
    (record,) = caplog.records
    assert (record.name, record.getMessage()) == ("asyncio", "something else")
    assert record.exc_info is not None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.skipif(sys.platform == "win32", reason="the file limit is set with RLIMIT_NOFILE")
def test_serve_past_its_file_limit_logs_no_traceback_and_recovers(tmp_path: Path) -> None:
    import resource

    limit = 64

    def lowered() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))

    port = free_port()
    environment = {
        **os.environ,
        "RATINGS_CONFIG": empty_settings_file(tmp_path),
        "RATINGS_DATABASE_URL": created(f"sqlite:///{tmp_path / 'ratings.sqlite'}"),
        "RATINGS_INBOX_DIR": str(tmp_path / "inbox"),
        "RATINGS_PUBLISH_DIR": str(tmp_path / "publish"),
        "RATINGS_HTTP_PORT": str(port),
    }
    log = (tmp_path / "serve.log").open("wb")
    server = subprocess.Popen(
        [sys.executable, "-m", "service.cli", "serve"],
        env=environment,
        stdout=log,
        stderr=subprocess.STDOUT,
        preexec_fn=lowered,
    )
    clients: list[socket.socket] = []
    try:
        wait_until_healthy(server, port, tmp_path / "serve.log", 60)
        # Three times the limit: the kernel queues what the service cannot accept.
        clients.extend(
            socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(3 * limit)
        )
        time.sleep(2.5)
        for client in clients:
            client.close()
        clients.clear()
        deadline = time.monotonic() + 30
        while True:  # descriptors free again: it serves again
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "the service did not recover"
            time.sleep(0.2)
    finally:
        for client in clients:
            client.close()
        server.terminate()
        server.wait(timeout=30)
        log.close()
    output = (tmp_path / "serve.log").read_text()
    assert "Traceback" not in output, output[:3000]
    failed = [
        json.loads(line) for line in output.splitlines() if '"event": "accept_failed"' in line
    ]
    assert failed, output[-3000:]
    assert len(failed) <= 2
    assert (failed[0]["failures"], failed[0]["error"], failed[0]["open_files_limit"]) == (
        1,
        "Too many open files",
        limit,
    )
    assert len(output.splitlines()) < 60
