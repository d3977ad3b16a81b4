"""Output files and the system's own failures: ``-o`` writes only a regular file or a new one,
a file held open is retried and then named, a full disk is one line, and a file of a million
problems is a message of a hundred."""

from __future__ import annotations

import errno
import os
import re
from pathlib import Path

import pytest

from jobs import folder
from ratings.errors import InputError, Problem
from tests.support import histories


def test_o_refuses_a_symlink_a_folder_and_a_device(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    target = tmp_path / "precious.txt"
    target.write_text("keep me")
    link = tmp_path / "list.csv"
    link.symlink_to(target)
    code, out, err = run("ranking", "-o", str(link))
    assert (code, out, err) == (
        1, "", f"error: cannot write {link}: it is a symbolic link (give the real path)\n"
    )  # fmt: skip
    assert target.read_text() == "keep me"
    folder = tmp_path / "out.csv"
    folder.mkdir()
    assert run("ranking", "-o", str(folder)) == (
        1, "", f"error: cannot write {folder}: it is a folder\n"
    )  # fmt: skip
    if os.path.exists("/dev/null"):
        assert run("ranking", "--format", "csv", "-o", "/dev/null") == (
            1, "", "error: cannot write /dev/null: it is not a regular file\n"
        )  # fmt: skip
    fresh = tmp_path / "new" / "ranking.csv"
    assert run("ranking", "-o", str(fresh))[0] == 0
    assert fresh.is_file()
    assert run("ranking", "-o", str(fresh))[0] == 0


def test_a_file_held_open_is_retried_then_named(
    run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "ranking.csv"
    refusals = iter([True, True])
    real_replace = Path.replace

    def replace(self: Path, target: Path) -> Path:
        if next(refusals, False):
            raise PermissionError(13, "The process cannot access the file")
        return real_replace(self, target)

    monkeypatch.setattr(Path, "replace", replace)
    monkeypatch.setattr(folder.time, "sleep", lambda _seconds: None)
    assert run("ranking", "-o", str(path))[0] == 0
    assert path.is_file()
    refusals = iter([True] * folder.REPLACE_TRIES)
    assert run("ranking", "-o", str(path)) == (
        1, "",
        f"error: cannot replace {path}: it is open in another program or read-only "
        "(close it and run the command again)\n",
    )  # fmt: skip
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_a_full_disk_is_one_line(run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    def full(*_args: object, **_kwargs: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    # The command takes its writer when it runs (its module loads no writer before).
    monkeypatch.setattr("exporters.documents.write_ranking", full)
    path = tmp_path / "ranking.csv"
    assert run("ranking", "-o", str(path)) == (
        1, "", f"error: cannot write {path}: No space left on device\n"
    )  # fmt: skip
    assert list(tmp_path.glob("*ranking*")) == []
    assert run("ranking") == (
        2,
        "",
        "error: the disk is full: [Errno 28] No space left on device\n",
    )


def test_a_million_problems_are_a_screen_of_lines_and_a_count() -> None:
    problems = [Problem("wide.csv", 1, f"c{i}", None, "unknown column") for i in range(1_000_000)]
    text = str(InputError(problems))
    lines = text.splitlines()
    assert lines[0] == "1000000 problems found:"
    assert lines[1] == "  wide.csv, line 1, column 'c0': unknown column"
    assert lines[-1] == "  ... and 999980 more"
    assert len(lines) == 22


def test_a_header_of_a_million_columns_is_one_short_message(
    run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("RATINGS_UPLOAD_LIMIT_BYTES", str(16 * 1024 * 1024))
    wide = tmp_path / "wide.csv"
    wide.write_bytes(b",".join(b"c%d" % i for i in range(1_000_000)) + b"\n" + b"1\n")
    expected = "  wide.csv: has 1,000,000 columns, more than the limit of 1,000\n"
    assert run("import", str(wide)) == (1, "", "error: 1 problem found:\n" + expected)
    code, out, err = run("seed", str(wide), "--system", "swiss")
    assert (code, out) == (1, "")
    assert (
        err
        == "error: 1 problem found:\n  wide.csv: has 1,000,000 columns, more than the limit of 64\n"
    )


def test_a_wide_header_within_the_limit_lists_a_screen_of_problems_and_a_count(
    run, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    wide = tmp_path / "wide.csv"
    wide.write_bytes(b"name," + b",".join(b"c%d" % i for i in range(60)) + b"\nAnna\n")
    code, _, err = run("seed", str(wide), "--system", "swiss")
    lines = err.splitlines()
    assert (code, lines[0], len(lines)) == (1, "error: 60 problems found:", 23)
    assert lines[1].startswith("  wide.csv, line 1, column 'c0': unknown column (expected: ")
    assert lines[-2:] == ["  ... and 40 more", "--all lists every one"]
    code, _, err = run("seed", str(wide), "--system", "swiss", "--all")
    assert len(err.splitlines()) == 61


def test_seed_holds_a_participant_file_to_the_upload_limit(
    run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("RATINGS_UPLOAD_LIMIT_BYTES", "1024")
    big = tmp_path / "big.csv"
    big.write_bytes(b"name\n" + b"Anna\n" * 300)
    assert run("seed", str(big), "--system", "swiss") == (
        1, "",
        "error: 1 problem found:\n"
        "  big.csv: larger than the input limit of 1 KB (setting upload_limit_bytes)\n",
    )  # fmt: skip
    missing = tmp_path / "missing.csv"
    assert run("seed", str(missing), "--system", "swiss") == (
        1, "",
        "error: 1 problem found:\n  missing.csv: cannot be read (No such file or directory)\n",
    )  # fmt: skip


def test_a_file_deleted_while_the_import_reads_is_one_line_and_nothing_is_stored(
    run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, database_url: str
) -> None:  # type: ignore[no-untyped-def]
    from sqlalchemy import text

    from jobs import reading
    from ratings.storage.database import open_engine
    from tests.support import histories

    events = histories.history(events=4)
    first = histories.write_csv(events[:2], tmp_path / "first.csv")
    second = histories.write_csv(events[2:], tmp_path / "second.csv")
    real_read = reading.read_file_bytes

    def read_and_lose_the_next(path: Path, *args: object) -> bytes:
        data = real_read(path, *args)  # type: ignore[arg-type]
        if path == first:
            second.unlink()  # the tournament director takes the next file back meanwhile
        return data

    monkeypatch.setattr(reading, "read_file_bytes", read_and_lose_the_next)
    assert run("import", str(first), str(second)) == (
        1, "",
        "error: 1 problem found:\n  second.csv: cannot be read (No such file or directory)\n",
    )  # fmt: skip
    engine = open_engine(database_url)
    with engine.connect() as connection:
        stored = connection.execute(text("SELECT count(*) FROM tournaments")).scalar_one()
    engine.dispose()
    assert stored == 0


def test_o_says_what_it_wrote_where(run, tmp_path: Path, golden: Path) -> None:  # type: ignore[no-untyped-def]
    """On success a command writing a file says so in one line on standard error, and prints
    nothing on standard output; without -o the document is the output and nothing else is said."""
    events = histories.history(events=12)
    assert run("import", str(histories.write_csv(events, tmp_path / "results.csv")))[0] == 0
    assert run("run")[0] == 0
    assert run("publish", "2022-03")[0] == 0
    assert run("publish", "2022-04")[0] == 0
    player = events[0][0].player_id
    out = tmp_path / "out"
    trf = golden / "chess_trf_samples" / "bbp_issue_7_CR_line_endings.trf"
    cases = [
        (["ranking", "--list", "2022-04"], "ranking.csv", r"wrote \d+ players to "),
        (["player", player], "player.html", rf"wrote the history of {player} .+ \(\d+ tournaments\) to "),
        (["diff", "2022-03", "2022-04"], "diff.json", r"wrote \d+ changes from 2022-03 to 2022-04 to "),
        (["standings", str(trf)], "standings.csv", r"wrote the standings of \d+ players to "),
    ]  # fmt: skip
    for command, name, said in cases:
        target = out / name
        code, stdout, stderr = run(*command, "-o", str(target))
        assert (code, stdout) == (0, ""), stderr
        assert re.fullmatch(said + re.escape(str(target)) + "\n", stderr), stderr
        assert target.stat().st_size > 0
        code, stdout, stderr = run(*command)
        assert (code, stderr) == (0, "")
        assert stdout
