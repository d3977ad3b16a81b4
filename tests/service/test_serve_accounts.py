"""From outside, on a fresh database of each backend: `ratings db upgrade`, the first officer and
a director made with `ratings users`, `ratings serve` started with no other setting, and a
director's file submitted and accepted through the API and the pages."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import httpx

from tests.support.serving import wait_until_healthy

SAMPLES = Path(__file__).parents[2] / "samples"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_a_fresh_database_to_an_accepted_submission(database_url: str, tmp_path: Path) -> None:
    port = free_port()
    (tmp_path / "ratings.toml").write_text("")
    environment = {
        **os.environ,
        "RATINGS_CONFIG": str(tmp_path / "ratings.toml"),
        "RATINGS_DATABASE_URL": database_url,
        "RATINGS_INBOX_DIR": str(tmp_path / "inbox"),
        "RATINGS_PUBLISH_DIR": str(tmp_path / "publish"),
        "RATINGS_HTTP_PORT": str(port),
    }

    def ratings(*args: str, stdin: str = "") -> str:
        done = subprocess.run(
            [sys.executable, "-m", "service.cli", *args], env=environment, cwd=tmp_path,
            input=stdin.encode(), capture_output=True, check=False, timeout=120,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr.decode()
        return done.stdout.decode()

    ratings("db", "upgrade")
    ratings(
        "users", "add", "olga", "--role", "officer", "--password-stdin", stdin="officer pw 123\n"
    )
    ratings(
        "users", "add", "dan", "--role", "director", "--password-stdin", stdin="director pw 1\n"
    )
    director = ratings("users", "token", "dan").strip().splitlines()[-1].split()[-1]
    officer = ratings("users", "token", "olga").strip().splitlines()[-1].split()[-1]
    log = (tmp_path / "serve.log").open("wb")
    server = subprocess.Popen(
        [sys.executable, "-m", "service.cli", "serve"],
        env=environment, cwd=tmp_path, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        wait_until_healthy(server, port, tmp_path / "serve.log", 60)
        base = f"http://127.0.0.1:{port}"
        data = (SAMPLES / "results-2023.csv").read_bytes()
        with httpx.Client(base_url=base, timeout=60) as api:
            assert api.post("/api/submissions", files={"file": ("r.csv", data)}).status_code == 401
            made = api.post(
                "/api/submissions", headers={"Authorization": f"Bearer {director}"},
                files={"file": ("results-2023.csv", data)}, data={"tier": "regular"},
            )  # fmt: skip
            assert made.status_code == 201
            number = made.json()["id"]
            assert made.json()["status"] == "submitted"
            refused = api.post(
                f"/api/submissions/{number}/accept", json={"answers": {}},
                headers={"Authorization": f"Bearer {director}"},
            )  # fmt: skip
            assert refused.status_code == 403
            accepted = api.post(
                f"/api/submissions/{number}/accept", json={"answers": {}},
                headers={"Authorization": f"Bearer {officer}"},
            )  # fmt: skip
            assert accepted.status_code == 200
            assert accepted.json()["status"] == "accepted"
        # The pages: a login with the form's token, then the director's own list.
        with httpx.Client(base_url=base, timeout=60) as browser:
            form = browser.get("/login").text
            found = re.search(r'name="csrftoken" value="([^"]+)"', form)
            assert found is not None
            login = browser.post(
                "/login", data={"csrftoken": found[1], "name": "dan", "password": "director pw 1"}
            )
            assert login.status_code == 303
            assert login.headers["location"] == "/submit"
            page = browser.get("/submit")
            assert "results-2023.csv" in page.text
            assert "accepted" in page.text
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()
