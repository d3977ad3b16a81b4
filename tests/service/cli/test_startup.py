"""What a command loads before it answers: each group of commands imports its libraries when one
of its commands runs, so that `ratings --help` loads no data library and a command that reads a
list never loads the rating kernels (numba). Checked in a fresh interpreter, as an officer runs
it: the modules loaded are the interpreter's own ``sys.modules`` after the command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.support import histories
from tests.support.settings import empty_settings_file

LOADED = """
import json, sys
sys.argv = ["ratings", *sys.argv[1:]]
from service.cli import main
try:
    main()
except SystemExit as done:
    code = done.code
else:
    code = 0
dialects = {m for m in sys.modules if m.startswith("sqlalchemy.dialects.") and m.count(".") == 2}
top = {m.split(".")[0] for m in sys.modules}
print(json.dumps({"code": code, "modules": sorted(top | dialects)}))
"""
"""Runs the command line as its entry point does, then prints its exit code and the top-level
packages it loaded, with SQLAlchemy's dialects (``sqlalchemy.dialects.sqlite``), on the last
line."""


def loaded(tmp_path: Path, *args: str, database_url: str = "sqlite:///:memory:") -> set[str]:
    environment = {
        **os.environ,
        "RATINGS_DATABASE_URL": database_url,
        "RATINGS_CONFIG": empty_settings_file(tmp_path),
    }
    done = subprocess.run(
        [sys.executable, "-c", LOADED, *args], env=environment, capture_output=True, text=True,
        timeout=120, check=True,
    )  # fmt: skip
    found = json.loads(done.stdout.splitlines()[-1])
    assert found["code"] == 0, done.stderr
    modules: set[str] = set(found["modules"])
    return modules


def test_help_loads_no_data_library_nor_the_settings(tmp_path: Path) -> None:
    modules = loaded(tmp_path, "--help")
    assert "click" in modules
    assert not modules & {"numba", "numpy", "polars", "pyarrow", "sqlalchemy", "alembic"}
    assert "pydantic" not in modules


def test_a_groups_help_loads_no_data_library(tmp_path: Path) -> None:
    for group in (["players", "--help"], ["tournaments", "--help"], ["ranking", "--help"]):
        modules = loaded(tmp_path, *group)
        assert not modules & {"numba", "numpy", "polars", "sqlalchemy"}, group


def test_commands_that_read_never_load_the_rating_kernels(
    run, database_url: str, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    events = histories.history(events=8)
    path = histories.write_csv(events, tmp_path / "results.csv")
    assert run("import", str(path))[0] == 0
    assert run("run")[0] == 0
    assert run("publish", "2022-03")[0] == 0
    # The rating loads numpy (numba only from ratings.formula.COMPILED_FROM results on): the
    # checks below could not pass by the modules loaded going unseen.
    assert "numpy" in loaded(tmp_path, "run", "--full", database_url=database_url)
    for command in (
        ["ranking", "--top", "5"],
        ["ranking", "--list", "2022-03", "--top", "5"],
        ["lists"],
        ["players", "search", "Player 3"],
        ["player", "3"],
        ["tournaments", "list"],
    ):
        modules = loaded(tmp_path, *command, database_url=database_url)
        assert "polars" in modules, command
        assert not modules & {"numba", "llvmlite", "alembic"}, command
        # A database's commands load its own dialect only: on SQLite, PostgreSQL's (its drivers,
        # its catalogue) cost 0.1 s before the command started.
        backend = "postgresql" if database_url.startswith("postgresql") else "sqlite"
        assert f"sqlalchemy.dialects.{backend}" in modules, command
        if backend == "sqlite":
            assert "sqlalchemy.dialects.postgresql" not in modules, command
        if command in (["ranking", "--top", "5"], ["lists"]):
            # Nor numpy for a list, read and printed.
            assert "numpy" not in modules, command
