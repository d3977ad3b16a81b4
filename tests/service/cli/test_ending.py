"""How the ``ratings`` process ends (``service.cli.entry``): with the command's exit code, its
output whole and its handlers run, but without Python taking every module apart."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from sqlalchemy import select

from ratings.storage.database import open_engine
from ratings.storage.schema import players
from tests.support import histories
from tests.support.settings import empty_settings_file

ENTRY = """
import atexit, sys
from pathlib import Path
marks = Path(sys.argv[1])
atexit.register(lambda: (marks / "before").touch())
import service.cli
real = service.cli.main
def main():
    atexit.register(lambda: (marks / "during").touch())
    real()
service.cli.main = main
sys.argv = ["ratings", *sys.argv[2:]]
service.cli.entry()
"""
"""The command line's entry with a handler registered before it and one registered during the
command, each leaving a file in the folder given first when it runs."""


def ended(
    tmp_path: Path, database_url: str, *args: str
) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    marks = tmp_path / "marks"
    marks.mkdir(exist_ok=True)
    for mark in marks.iterdir():
        mark.unlink()
    environment = {
        **os.environ,
        "RATINGS_DATABASE_URL": database_url,
        "RATINGS_CONFIG": empty_settings_file(tmp_path),
        "RATINGS_PUBLISH_DIR": str(tmp_path / "publish"),
    }
    done = subprocess.run(
        [sys.executable, "-c", ENTRY, str(marks), *args], env=environment, capture_output=True,
        text=True, timeout=120, check=False,
    )  # fmt: skip
    return done, {mark.name for mark in marks.iterdir()}


def test_a_command_ends_with_its_code_and_its_whole_output_without_pythons_teardown(
    run, database_url: str, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    path = histories.write_csv(histories.history(events=40), tmp_path / "results.csv")
    assert run("import", str(path))[0] == 0
    assert run("run")[0] == 0
    engine = open_engine(database_url)
    try:
        with engine.connect() as connection:
            rated = len(connection.execute(select(players.c.id)).all())
    finally:
        engine.dispose()
    done, marks = ended(tmp_path, database_url, "ranking", "--all")
    assert done.returncode == 0, done.stderr
    # Every line, the header's two included, through a pipe whose buffer it fills many times.
    assert len(done.stdout.splitlines()) == rated + 2
    assert done.stderr == ""
    # The command's own handlers ran; Python's teardown, and what came before the command
    # (logging's own handler, whose work the ending does itself), did not.
    assert marks == {"during"}


def test_errors_keep_their_exit_codes_and_their_one_line(database_url: str, tmp_path: Path) -> None:
    missing = f"sqlite:///{tmp_path / 'missing.sqlite'}"
    done, marks = ended(tmp_path, missing, "lists")
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        f"error: the database {tmp_path / 'missing.sqlite'} does not exist: create it with"
        " `ratings db upgrade` (or set database_url to the right file)"
    ]
    assert marks == {"during"}
    done, marks = ended(tmp_path, database_url, "no-such-command")
    assert done.returncode == 2
    assert "No such command 'no-such-command'" in done.stderr
    assert marks == {"during"}


def test_an_exit_with_a_message_is_left_to_python(tmp_path: Path) -> None:
    script = ENTRY.replace("    real()\n", "    raise SystemExit('stopped here')\n")
    marks = tmp_path / "marks"
    marks.mkdir()
    done = subprocess.run(
        [sys.executable, "-c", script, str(marks), "lists"], capture_output=True, text=True,
        timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 1
    assert done.stderr.strip() == "stopped here"
    assert {mark.name for mark in marks.iterdir()} == {"before", "during"}
