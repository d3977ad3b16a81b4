"""The site under readers at once: ``python -m benchmarks.load [--size S] [--readers 50]
[--seconds 60] [--databases sqlite,postgresql]``.

For each database: a history of the benchmark's ``--size`` (``benchmarks.run``'s sizes) imported,
rated and published as the officer would, then ``ratings serve`` started as a process of its own,
then ``--readers`` readers at once for ``--seconds``, each in a loop: a page, then a pause of one
to three seconds (a person reading it). The pages are drawn at random from the list pages (the
first page, a page deep in the list, an order by name, a country), searches by name and player
pages; after a player page the reader's browser asks for its chart image too. Meanwhile a probe
asks for ``/health`` every half second.

It prints, per database: the pages asked for, their median, p95 and slowest time, the errors
(any answer but 200, or no answer) per kind of page, the chart images (answered, refused with
503), and ``/health``'s slowest answer. Targets: pages p95 ≤ 300 ms, no error, ``/health`` ≤
100 ms throughout.

The readers are an ``asyncio`` loop of ``httpx`` clients in this process, the service another
process: both share the machine's cores, as a load tool run beside a server does.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from benchmarks.run import DATABASES, HISTORY_LIMIT, NOW, _database, prepare

PAGE_P95_MS = 300
HEALTH_MS = 100
THINK = (1.0, 3.0)
"""Seconds a reader spends on a page before the next (uniform)."""
PROBE_EVERY = 0.5
SEARCHES = ("mu", "kow", "ber", "sch", "nov", "ros", "hol", "jan", "mar", "pet")


@dataclass
class Tally:
    """What the readers and the probe saw."""

    pages: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: Counter[str] = field(default_factory=Counter)
    charts: Counter[int | str] = field(default_factory=Counter)
    health: list[float] = field(default_factory=list)
    health_errors: int = 0
    charts_asked: bool = True
    """Whether a reader's browser asks for a player page's chart (``--no-charts``: not)."""


def build(size: str, url: str, workdir: Path) -> dict[str, Any]:
    """The size's history imported, rated and its list published into ``url``; what the
    readers need to know of it (the period, player ids, countries)."""
    from sqlalchemy import select

    from jobs.importing import import_files
    from jobs.options import ListOptions
    from jobs.publishing import publish_list
    from jobs.rating import run_ratings
    from ratings.formula import MeloParams
    from ratings.storage.database import open_engine
    from ratings.storage.schema import players

    meta = json.loads((workdir / "scenario.json").read_text())
    engine = open_engine(url, create=True)
    try:
        import_files(
            engine, [workdir / "history.parquet"], imported_by="bench", now=NOW,
            limit=HISTORY_LIMIT,
        )  # fmt: skip
        run_ratings(engine, MeloParams(), now=NOW)
        publish_list(engine, meta["period"], ListOptions(), by="bench", now=NOW)
        with engine.connect() as connection:
            rows = connection.execute(
                select(players.c.federation_id, players.c.country).where(
                    players.c.merged_into.is_(None)
                )
            ).all()
    finally:
        engine.dispose()
    return {
        "period": meta["period"],
        "results": meta["results"],
        "players": [r[0] for r in rows],
        "countries": sorted({r[1] for r in rows if r[1]}),
    }


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_service(url: str, workdir: Path, port: int) -> subprocess.Popen[bytes]:
    """``ratings serve`` on ``url``, as a process of its own; returns once it answers."""
    settings = workdir / "settings.toml"
    settings.write_text("")
    env = {
        **os.environ,
        "RATINGS_DATABASE_URL": url,
        "RATINGS_CONFIG": str(settings),
        "RATINGS_HTTP_HOST": "127.0.0.1",
        "RATINGS_HTTP_PORT": str(port),
        "RATINGS_PUBLISH_DIR": str(workdir / "publish"),
        "RATINGS_INBOX_DIR": str(workdir / "inbox"),
    }
    log = (workdir / f"serve-{port}.log").open("wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "service.cli", "serve"], env=env, stdout=log, stderr=log
    )
    deadline = time.monotonic() + 60
    with httpx.Client(timeout=1) as client:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"ratings serve stopped: see {log.name}")
            try:
                if client.get(f"http://127.0.0.1:{port}/health").status_code == 200:
                    return process
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
    process.terminate()
    raise RuntimeError("ratings serve did not answer within a minute")


def pick(rng: random.Random, known: dict[str, Any]) -> tuple[str, str]:
    """A page a reader asks for: (kind, path)."""
    roll = rng.random()
    pages = max(1, len(known["players"]) // 50)
    if roll < 0.15:
        return "list", "/"
    if roll < 0.25:
        return "list", f"/?page={rng.randint(1, pages)}"
    if roll < 0.30:
        return "list", f"/?sort=name&page={rng.randint(1, pages)}"
    if roll < 0.35 and known["countries"]:
        return "list", f"/?country={rng.choice(known['countries'])}"
    if roll < 0.40:
        return "list", f"/lists/{known['period']}"
    if roll < 0.65:
        return "search", f"/?q={rng.choice(SEARCHES)}"
    return "player", f"/players/{rng.choice(known['players'])}"


async def reader(
    client: httpx.AsyncClient, rng: random.Random, known: dict[str, Any], until: float, t: Tally
) -> None:
    # Readers arrive over the first think time, not all in the same instant.
    await asyncio.sleep(rng.uniform(0, THINK[1]))
    while time.monotonic() < until:
        kind, path = pick(rng, known)
        began = time.perf_counter()
        try:
            answer = await client.get(path)
        except httpx.HTTPError as error:
            t.errors[f"{kind}: {type(error).__name__}"] += 1
        else:
            t.pages[kind].append((time.perf_counter() - began) * 1000)
            if answer.status_code != 200:
                t.errors[f"{kind}: {answer.status_code}"] += 1
            elif kind == "player" and t.charts_asked:
                await chart(client, answer.text, t)
        await asyncio.sleep(rng.uniform(*THINK))


async def chart(client: httpx.AsyncClient, page: str, t: Tally) -> None:
    """The chart image a browser asks for after the page."""
    start = page.find("/chart.svg?v=")
    if start < 0:
        t.charts["no image on the page"] += 1
        return
    begin = page.rfind('"', 0, start) + 1
    end = page.find('"', start)
    try:
        answer = await client.get(page[begin:end])
    except httpx.HTTPError as error:
        t.charts[type(error).__name__] += 1
    else:
        t.charts[answer.status_code] += 1


async def probe(client: httpx.AsyncClient, until: float, t: Tally) -> None:
    while time.monotonic() < until:
        began = time.perf_counter()
        try:
            answer = await client.get("/health")
            t.health.append((time.perf_counter() - began) * 1000)
            t.health_errors += answer.status_code != 200
        except httpx.HTTPError:
            t.health_errors += 1
        await asyncio.sleep(PROBE_EVERY)


async def run_load(
    base: str, known: dict[str, Any], readers: int, seconds: float, *, charts: bool = True
) -> Tally:
    tally = Tally(charts_asked=charts)
    # An idle connection is let go before the server's keep-alive (5 s) closes it: else a
    # request sent as the server closes fails with ReadError, which a browser retries unseen.
    limits = httpx.Limits(
        max_connections=readers + 1, max_keepalive_connections=readers + 1, keepalive_expiry=3
    )
    async with (
        httpx.AsyncClient(base_url=base, timeout=30, limits=limits) as client,
        httpx.AsyncClient(base_url=base, timeout=30) as health,
    ):
        until = time.monotonic() + seconds
        rngs = [random.Random(n) for n in range(readers)]
        await asyncio.gather(
            probe(health, until, tally),
            *(reader(client, rng, known, until, tally) for rng in rngs),
        )
    return tally


def percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0


def report(database: str, size: str, known: dict[str, Any], tally: Tally, args: Any) -> str:
    every = [v for values in tally.pages.values() for v in values]
    lines = [
        f"{database}, size {size} ({known['results']:,} results, {len(known['players']):,} "
        f"players), {args.readers} readers for {args.seconds:.0f} s, a pause of "
        f"{THINK[0]:.0f}-{THINK[1]:.0f} s between pages",
        "| pages | asked | median ms | p95 ms | slowest ms | errors |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for kind in ("list", "search", "player"):
        values = tally.pages.get(kind, [])
        errors = sum(n for k, n in tally.errors.items() if k.startswith(kind))
        lines.append(
            f"| {kind} | {len(values)} | {statistics.median(values) if values else 0:.0f} | "
            f"{percentile(values, 0.95):.0f} | {max(values, default=0):.0f} | {errors} |"
        )
    errors = sum(tally.errors.values())
    lines.append(
        f"| all | {len(every)} | {statistics.median(every) if every else 0:.0f} | "
        f"{percentile(every, 0.95):.0f} | {max(every, default=0):.0f} | {errors} |"
    )
    charts = ", ".join(f"{k}: {n}" for k, n in sorted(tally.charts.items(), key=str))
    asked = charts or "none" if tally.charts_asked else "not asked for (--no-charts)"
    lines.append(f"chart images after player pages: {asked}")
    lines.append(
        f"/health: {len(tally.health)} probes, median {statistics.median(tally.health or [0]):.0f}"
        f" ms, slowest {max(tally.health, default=0):.0f} ms, {tally.health_errors} errors"
    )
    p95 = percentile(every, 0.95)
    held = (
        p95 <= PAGE_P95_MS
        and errors == 0
        and tally.health_errors == 0
        and max(tally.health, default=0) <= HEALTH_MS
    )
    lines.append(
        f"targets (p95 ≤ {PAGE_P95_MS} ms, no error, /health ≤ {HEALTH_MS} ms): "
        f"{'held' if held else 'NOT held'}"
    )
    if tally.errors:
        lines.append("errors: " + ", ".join(f"{k} ×{n}" for k, n in tally.errors.items()))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", default="S", help="the benchmark's size (XS, S, M, L)")
    parser.add_argument("--readers", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--databases", default=",".join(DATABASES))
    parser.add_argument(
        "--no-charts", action="store_true", help="readers do not ask for the players' charts"
    )
    args = parser.parse_args(argv)
    print(f"cores: {os.cpu_count()}, load average before: {os.getloadavg()[0]:.1f}", flush=True)
    with tempfile.TemporaryDirectory(prefix="ratings-load-") as folder:
        workdir = Path(folder)
        prepare(args.size, workdir)
        for database in args.databases.split(","):
            with _database(database, workdir) as url:
                began = time.perf_counter()
                known = build(args.size, url, workdir)
                print(f"{database}: built in {time.perf_counter() - began:.1f} s", flush=True)
                port = free_port()
                service = start_service(url, workdir, port)
                try:
                    tally = asyncio.run(
                        run_load(
                            f"http://127.0.0.1:{port}",
                            known,
                            args.readers,
                            args.seconds,
                            charts=not args.no_charts,
                        )
                    )
                finally:
                    service.terminate()
                    service.wait(30)
                print(report(database, args.size, known, tally, args), flush=True)
                print(f"load average after: {os.getloadavg()[0]:.1f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
