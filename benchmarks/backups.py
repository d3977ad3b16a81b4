"""Backup and restore at scale: ``python -m benchmarks.backups [--size M] [--databases ...]``.

For each database it builds a federation of ``size`` (the synthetic history imported and rated,
two lists published), then times, each in a fresh process so that the peak RSS printed is its
own: a backup of the whole database into an archive, a check of the archive (``db verify``),
and its restore into an empty database of each backend (loading, checking every table read
back, migrating). The targets are for L (ten million results): each ≤ 2 minutes, ≤ 2 GiB.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

from benchmarks.run import DATABASES, HISTORY_LIMIT, NOW, _database, _peak_rss_mib, workdir_kept

Row = dict[str, Any]


def build(url: str, folder: str) -> Row:
    """The scenario's history imported and rated, its list and the next month's published."""
    from jobs.importing import import_files
    from jobs.options import ListOptions
    from jobs.publishing import publish_list
    from jobs.rating import run_ratings
    from ratings.formula import MeloParams
    from ratings.storage.database import open_engine

    workdir = Path(folder)
    meta = json.loads((workdir / "scenario.json").read_text())
    engine = open_engine(url)
    try:
        import_files(
            engine,
            [workdir / "history.parquet"],
            imported_by="bench",
            now=NOW,
            limit=HISTORY_LIMIT,
        )
        run_ratings(engine, MeloParams(), now=NOW)
        publish_list(engine, meta["period"], ListOptions(), by="bench", now=NOW)
        publish_list(
            engine, meta["period"], ListOptions(), by="bench", now=NOW + timedelta(1),
            republish=True,
        )  # fmt: skip
    finally:
        engine.dispose()
    return {"results": meta["results"]}


def back_up(url: str, path: str) -> Row:
    from jobs.backup import backup
    from ratings.storage.database import open_engine

    archive = Path(path)
    engine = open_engine(url, upgrade_schema=False)
    began = time.perf_counter()
    report = backup(engine, archive, folder=archive.parent, now=NOW)
    seconds = time.perf_counter() - began
    engine.dispose()
    return {
        "seconds": seconds,
        "rows": report.manifest.rows,
        "bytes": archive.stat().st_size,
        "tables": {t.name: t.rows for t in report.manifest.tables},
    }


def verify_archive(path: str) -> Row:
    from jobs.backup import verify

    began = time.perf_counter()
    verify(Path(path))
    return {"seconds": time.perf_counter() - began}


def restore_into(url: str, path: str) -> Row:
    from jobs.backup import restore
    from ratings.storage.database import open_engine

    engine = open_engine(url, upgrade_schema=False)
    began = time.perf_counter()
    restore(engine, Path(path))
    seconds = time.perf_counter() - began
    engine.dispose()
    return {"seconds": seconds}


TASKS: dict[str, Any] = {
    "build": build,
    "backup": back_up,
    "verify": verify_archive,
    "restore": restore_into,
}


def _child(task: str, *args: str) -> Row:
    """Run one task in a fresh process; its figures and peak RSS."""
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.backups", "--child", task, *args],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"{task} failed: {done.stderr[-2000:]}")
    row: Row = json.loads(done.stdout.strip().splitlines()[-1])
    return row


def _run_child(task: str, args: Sequence[str]) -> None:
    load = os.getloadavg()[0]
    row = TASKS[task](*args)
    row["peak_rss_mib"] = _peak_rss_mib()
    # A backup of SQLite reads through a process of its own: its time and memory count too.
    mine = resource.getrusage(resource.RUSAGE_SELF)
    theirs = resource.getrusage(resource.RUSAGE_CHILDREN)
    row["cpu_seconds"] = mine.ru_utime + mine.ru_stime + theirs.ru_utime + theirs.ru_stime
    row["child_peak_rss_mib"] = theirs.ru_maxrss / 1024
    row["load"] = f"{load:.1f} → {os.getloadavg()[0]:.1f}"
    print(json.dumps(row))


def _rss(row: Row) -> str:
    """The step's peak RSS, and its reading process's where it had one."""
    child = row.get("child_peak_rss_mib", 0.0)
    shown = f"{row['peak_rss_mib']:.0f}"
    return f"{shown} (+{child:.0f} reading process)" if child >= 1 else shown


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.backups", description=__doc__)
    parser.add_argument("--size", default="M", help="S, M (about a million results) or L")
    parser.add_argument("--databases", default=",".join(DATABASES))
    parser.add_argument(
        "--workdir",
        help="a folder kept after the run; its archives, where present, are restored again"
        " without building and backing up (to time restores alone)",
    )
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        _run_child(args.child[0], args.child[1:])
        return 0
    databases = args.databases.split(",")
    lines = [
        f"size {args.size}",
        "| step | from | into | rows | seconds | CPU seconds | peak RSS (MiB) | archive (MiB)"
        " | load average |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    kept = None if args.workdir is None else Path(args.workdir)
    with workdir_kept(kept, "ratings-bench-backup-") as workdir:
        for source in databases:
            archive = workdir / f"{source}.zip"
            if not archive.exists():
                _built_and_backed_up(args.size, workdir, source, lines)
            for target in databases:
                into_dir = workdir / f"into-{source}-{target}"
                into_dir.mkdir()
                with _database(target, into_dir) as into:
                    restored = _child("restore", into, str(archive))
                shutil.rmtree(into_dir)
                lines.append(
                    f"| restore | {source} archive | {target} | {_rows(archive):,}"
                    f" | {restored['seconds']:.1f} | {restored['cpu_seconds']:.1f} | {_rss(restored)}"
                    f" | | {restored['load']} |"
                )
                print(lines[-1], flush=True)
    print("\n".join(lines))
    return 0


def _rows(archive: Path) -> int:
    from ratings.storage.archive import Archive

    with Archive(archive) as opened:
        return opened.manifest.rows


def _built_and_backed_up(size: str, workdir: Path, source: str, lines: list[str]) -> None:
    """The scenario prepared (once per folder), the federation built on ``source`` and backed
    up into ``workdir/<source>.zip``, and the archive verified; their rows added to ``lines``."""
    if not (workdir / "scenario.json").exists():
        subprocess.run(
            [sys.executable, "-c", f"from benchmarks.run import prepare; from pathlib import Path;"
             f" prepare({size!r}, Path({str(workdir)!r}))"],
            check=True,
        )  # fmt: skip
    with _database(source, workdir / f"from-{source}") as url:
        (workdir / f"from-{source}").mkdir(exist_ok=True)
        _child("build", url, str(workdir))
        archive = workdir / f"{source}.zip"
        made = _child("backup", url, str(archive))
        lines.append(
            f"| backup | {source} | archive | {made['rows']:,} | {made['seconds']:.1f}"
            f" | {made['cpu_seconds']:.1f} | {_rss(made)} | {made['bytes'] / 2**20:.0f}"
            f" | {made['load']} |"
        )
        print(lines[-1], flush=True)
        checked = _child("verify", str(archive))
        lines.append(
            f"| verify | archive | | {made['rows']:,} | {checked['seconds']:.1f}"
            f" | {checked['cpu_seconds']:.1f} | {_rss(checked)} | | {checked['load']} |"
        )
        print(lines[-1], flush=True)


if __name__ == "__main__":
    raise SystemExit(main())
