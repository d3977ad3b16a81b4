"""Hostile input files at the size limit: ``python -m benchmarks.hostile [--megabytes N]``.

Writes files that stay inside the default input limit (256 MB) but are built to cost a reader
as much as possible, then runs the command that reads each (``ratings import --dry-run``,
``ratings players import`` or ``ratings seed``) in a subprocess of its own, on an empty SQLite
database in a temporary folder, and prints for each the seconds, the peak resident memory of
the process, its processor seconds (the machine may be shared), its exit code and the length of
what it wrote to the terminal, with the last line of that. Target: every file
read or refused within seconds, under about 1 GiB, and with an error that fits on a screen.

The files:

* a CSV of little but separators and newlines (a crosstable CSV, a results table, a registry),
  and a results table whose every row is wrong four times;
* a sparse JSON table, ``[{}, {}, ...]``; one of blanks inside its brackets; one nested as deep
  as is allowed, again and again;
* a CSV on one line: one long header cell, and one long cell of a results table.

``--megabytes`` scales the files (256 by default, the input limit); the one-line files are
100 MB at the default size.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

MEGABYTE = 1024 * 1024
CHUNK = 4 * MEGABYTE


def repeated(unit: bytes, size: int, head: bytes = b"", tail: bytes = b"") -> Iterator[bytes]:
    """``head``, then ``unit`` as many times as fits in ``size`` bytes, then ``tail``."""
    yield head
    count = max(0, (size - len(head) - len(tail)) // len(unit))
    block = unit * max(1, CHUNK // len(unit))
    per_block = CHUNK // len(unit) or 1
    while count > 0:
        take = min(count, per_block)
        yield block if take == per_block else unit * take
        count -= take
    yield tail


@dataclass(frozen=True)
class Case:
    title: str
    file: str
    command: tuple[str, ...]
    """The ``ratings`` arguments before the file's path."""
    content: Callable[[int], Iterator[bytes]]
    """The file's bytes in pieces, given the size to aim at."""
    share: float = 1.0
    """The file's size as a share of the others': 100/256 for the one-line files of the report,
    a half for the file of wrong rows, which then has as many cells as a table may have."""


IMPORT = ("import", "--dry-run")
REGISTRY = ("players", "import")

CASES = (
    Case(
        "crosstable CSV of separators and newlines", "separators.csv", IMPORT,
        lambda size: repeated(b",,,,,,,,,\n", size, b"no,name,r1,r2,r3,r4,r5,r6,r7,r8\n"),
    ),
    Case(
        "CSV of newlines after a crosstable header", "newlines.csv", IMPORT,
        lambda size: repeated(b"\n", size, b"no,name,r1\n1,A,\n"),
    ),
    Case(
        "results CSV of separators and newlines", "separators-results.csv", IMPORT,
        lambda size: repeated(
            b",,,,,,\n", size, b"tournament,end_date,name,wins,draws,losses,buchholz\n"
        ),
    ),
    Case(
        "results CSV of rows each wrong four times", "bad-rows.csv", IMPORT,
        lambda size: repeated(
            b"Tournament of a town,2024-13-01,Some Player Name,w,d,l,b\n", size,
            b"tournament,end_date,name,wins,draws,losses,buchholz\n",
        ),
        share=0.45,
    ),
    Case(
        "registry CSV of separators and newlines", "separators-registry.csv", REGISTRY,
        lambda size: repeated(b",,,,\n", size, b"player_id,name,country,club,title\n"),
    ),
    Case(
        "sparse JSON results, [{}, {}, ...]", "sparse.json", IMPORT,
        lambda size: repeated(b"{},", size, b"[", b"{}]"),
    ),
    Case(
        "sparse JSON registry, [{}, {}, ...]", "sparse-registry.json", REGISTRY,
        lambda size: repeated(b"{},", size, b"[", b"{}]"),
    ),
    Case(
        "JSON of blanks", "blank.json", IMPORT,
        lambda size: repeated(b" " * 64, size, b"[{}", b"]"),
    ),
    Case(
        "JSON nested 30 deep, again and again", "nested.json", IMPORT,
        lambda size: repeated(b'{"a":' + b"[" * 28 + b"]" * 28 + b"},", size, b"[", b"{}]"),
    ),
    Case(
        "crosstable CSV on one line, one long header cell", "one-line.csv", IMPORT,
        lambda size: repeated(b"x", size, b"no,name,r1,"), share=100 / 256,
    ),
    Case(
        "results CSV on one line, one long cell", "one-line-results.csv", IMPORT,
        lambda size: repeated(
            b"x", size, b"tournament,end_date,name,wins,draws,losses,buchholz\r"
        ),
        share=100 / 256,
    ),
    Case(
        "participants CSV on one line", "one-line-participants.csv", ("seed", "--system", "swiss"),
        lambda size: repeated(b"y", size, b"name,"), share=100 / 256,
    ),
)  # fmt: skip


@dataclass(frozen=True)
class Outcome:
    seconds: float
    processor: float
    """Seconds of processor time (user and system): the machine may be shared."""
    peak_rss: int
    """Bytes."""
    code: int | None
    """None: stopped at the timeout."""
    output: bytes


def run(arguments: list[str], env: dict[str, str], timeout: float) -> Outcome:
    """Run ``ratings ARGUMENTS`` and measure the process alone (``wait4`` gives its own peak)."""
    started = time.perf_counter()
    with tempfile.TemporaryFile() as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "service.cli", *arguments],
            stdout=output,
            stderr=subprocess.STDOUT,
            env=env,
        )
        code: int | None = None
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                code = os.waitstatus_to_exitcode(status)
                break
            if time.perf_counter() - started > timeout:
                process.kill()
                _, status, usage = os.wait4(process.pid, 0)
                break
            time.sleep(0.05)
        process.returncode = code if code is not None else -9
        seconds = time.perf_counter() - started
        output.seek(0)
        processor = usage.ru_utime + usage.ru_stime
        return Outcome(seconds, processor, usage.ru_maxrss * 1024, code, output.read())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=int, default=256, help="size of the files")
    parser.add_argument("--timeout", type=float, default=120, help="seconds before a stop")
    parser.add_argument("--only", help="run only the cases whose file name contains this")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        env = {
            **os.environ,
            "RATINGS_DATABASE_URL": f"sqlite:///{root / 'ratings.sqlite'}",
            # The seed tool's participant lists are bounded by the upload limit.
            "RATINGS_UPLOAD_LIMIT_BYTES": str(256 * MEGABYTE),
        }
        env.pop("RATINGS_INPUT_LIMIT_BYTES", None)
        run(["db", "upgrade"], env, arguments.timeout)
        print(
            f"{'file':<28} {'MB':>5} {'seconds':>8} {'cpu s':>6} {'peak MB':>8} {'exit':>5} "
            f"{'output':>9}"
        )
        for case in CASES:
            if arguments.only and arguments.only not in case.file:
                continue
            size = int(arguments.megabytes * MEGABYTE * case.share)
            path = root / case.file
            with path.open("wb") as stream:
                for piece in case.content(size):
                    stream.write(piece)
            outcome = run([*case.command, str(path)], env, arguments.timeout)
            path.unlink()
            code = "stop" if outcome.code is None else str(outcome.code)
            print(
                f"{case.file:<28} {size / MEGABYTE:>5.0f} {outcome.seconds:>8.1f} "
                f"{outcome.processor:>6.1f} "
                f"{outcome.peak_rss / MEGABYTE:>8.0f} {code:>5} {len(outcome.output):>9,}",
                flush=True,
            )
            last = outcome.output.decode("utf-8", "replace").strip().splitlines()
            if last:
                print(f"    {last[-1][:150]}")


if __name__ == "__main__":
    main()
