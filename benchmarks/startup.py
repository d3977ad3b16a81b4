"""How long a command takes to answer, beside a bare interpreter: ``python -m benchmarks.startup``.

It builds the samples' database as ``make demo`` does (the registry, the three results files,
a rating, the 2026-01 list) in a scratch folder, then runs each command as an officer would, a
fresh process each time, all of them in turn ``--rounds`` times, and prints the best and the
median wall time of each and how far each is above ``python -c pass`` measured in the same
rounds: the issue's targets are ``ratings --help`` within 0.35 s of it and the everyday reads
within 0.7 s. On a shared machine the median carries its load; the best is the command's own.
``--before FOLDER`` (a checkout of an earlier version, e.g. from ``git archive``) times the same
commands of that version too, in the same rounds, for a comparison the load cannot skew.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from benchmarks.bytecode import ROOT, compile_project

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
COMMANDS: tuple[tuple[str, tuple[str, ...], float | None], ...] = (
    ("python -c pass", ("-c", "pass"), None),
    ("ratings --help", ("-m", "service.cli", "--help"), 0.35),
    ("ratings ranking --top 5", ("-m", "service.cli", "ranking", "--top", "5"), 0.7),
    ("ratings lists", ("-m", "service.cli", "lists"), 0.7),
    ("ratings players search klein", ("-m", "service.cli", "players", "search", "klein"), 0.7),
)
"""Each command's label, its interpreter arguments and its target above a bare interpreter."""


def demo_database(folder: Path) -> dict[str, str]:
    """The environment of a database holding the samples, as `make demo` builds it."""
    settings = folder / "empty.toml"
    settings.write_text("")
    environment = {
        **os.environ,
        "RATINGS_DATABASE_URL": f"sqlite:///{folder / 'demo.sqlite'}",
        "RATINGS_PUBLISH_DIR": str(folder / "publish"),
        "RATINGS_CONFIG": str(settings),
    }
    steps = [
        ["db", "upgrade"],
        ["players", "import", str(SAMPLES / "players.csv")],
        ["import", *(str(SAMPLES / n) for n in ("results-2023.csv", "results-2024.csv", "results-2025.xlsx"))],
        ["run"],
        ["publish", "2026-01"],
    ]  # fmt: skip
    for step in steps:
        subprocess.run(
            [sys.executable, "-m", "service.cli", *step], env=environment, check=True,
            capture_output=True,
        )  # fmt: skip
    return environment


def measure(
    environment: dict[str, str], rounds: int, folder: Path, before: Path | None = None
) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Wall seconds and processor seconds (user and system) of each command, ``rounds`` times,
    the commands taken in turn each round (and each of them in the version at ``before`` right
    after it, labelled ``before:``). They run in ``folder``: ``python -m`` looks for modules in
    the working directory first, which must not hold either version."""
    versions = [("", environment)]
    if before is not None:
        earlier = {**environment, "PYTHONPATH": str(before.resolve())}
        versions.append(("before: ", earlier))
    seconds: dict[str, list[float]] = {}
    processor: dict[str, list[float]] = {}
    for _ in range(rounds):
        for label, args, _ in COMMANDS:
            for prefix, env in versions:
                used = resource.getrusage(resource.RUSAGE_CHILDREN)
                began = time.perf_counter()
                subprocess.run(
                    [sys.executable, *args], env=env, check=True, stdout=subprocess.DEVNULL,
                    cwd=folder,
                )  # fmt: skip
                seconds.setdefault(prefix + label, []).append(time.perf_counter() - began)
                now = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu = now.ru_utime + now.ru_stime - used.ru_utime - used.ru_stime
                processor.setdefault(prefix + label, []).append(cpu)
    return seconds, processor


def table(seconds: dict[str, list[float]], processor: dict[str, list[float]] | None = None) -> str:
    """Each command's best and median wall time, and above the bare interpreter's; with
    ``processor``, the best processor time too (on a busy machine the wall time waits for a
    core, the processor time much less)."""
    bare = seconds["python -c pass"]
    best_bare, median_bare = min(bare), statistics.median(bare)
    lines = [
        "| command | best (s) | median (s) | best − bare (s) | median − bare (s) | target − bare "
        "| best processor (s) |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    labels = [(label, target) for label, _, target in COMMANDS]
    labels += [
        (f"before: {label}", None) for label, _, _ in COMMANDS if f"before: {label}" in seconds
    ]
    for label, target in labels:
        times = seconds[label]
        best, median = min(times), statistics.median(times)
        wanted = "-" if target is None else f"≤ {target:.2f}"
        cpu = f"{min(processor[label]):.3f}" if processor else "-"
        lines.append(
            f"| `{label}` | {best:.3f} | {median:.3f} | {best - best_bare:.3f} | "
            f"{median - median_bare:.3f} | {wanted} | {cpu} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.startup", description=__doc__)
    parser.add_argument("--rounds", type=int, default=9, help="runs of each command (default 9)")
    parser.add_argument("--before", type=Path, help="an earlier version's source folder")
    args = parser.parse_args(argv)
    compiled = [compile_project(root) for root in (ROOT, args.before) if root is not None]
    with tempfile.TemporaryDirectory(prefix="ratings-startup-") as folder:
        environment = demo_database(Path(folder))
        seconds, processor = measure(environment, args.rounds, Path(folder), args.before)
    print(f"load average over the last minute: {os.getloadavg()[0]:.1f}")
    print("; ".join(compiled))
    print(table(seconds, processor))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
