"""Waiting for a `ratings serve` started in a subprocess to answer."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import httpx


def wait_until_healthy(
    server: subprocess.Popen[bytes], port: int, log: Path, seconds: float
) -> None:
    """Return once ``/health`` answers 200 on ``port``; fail with the server's log if it
    exits first, or when ``seconds`` pass."""
    deadline = time.monotonic() + seconds
    # One client for every probe: a client of its own each time costs a TLS context.
    with httpx.Client(timeout=1) as client:
        while True:
            try:
                if client.get(f"http://127.0.0.1:{port}/health").status_code == 200:
                    return
            except httpx.TransportError:
                pass
            assert server.poll() is None, log.read_text()
            assert time.monotonic() < deadline, "the service did not start"
            time.sleep(0.2)
