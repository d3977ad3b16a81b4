"""Fixtures for the command-line tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from service.cli import cli

Invoke = Callable[..., tuple[int, str, str]]


@pytest.fixture
def run(database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Invoke:
    """``run("ranking", "--top", "5")`` → (exit code, stdout, stderr), on each database, with no
    settings file so only the test's environment counts."""
    monkeypatch.setenv("RATINGS_DATABASE_URL", database_url)
    monkeypatch.setenv("RATINGS_CONFIG", str(tmp_path / "absent.toml"))
    monkeypatch.setenv("RATINGS_PUBLISH_DIR", str(tmp_path / "publish"))
    monkeypatch.setenv("RATINGS_INBOX_DIR", str(tmp_path / "inbox"))
    runner = CliRunner()

    def invoke(*args: str) -> tuple[int, str, str]:
        result = runner.invoke(cli, list(args), catch_exceptions=False)
        return result.exit_code, result.stdout, result.stderr

    return invoke
