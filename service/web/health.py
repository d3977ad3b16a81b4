"""Whether the service and its database answer, and whether the officer has something to see to:
the last batch run and its outcome, files waiting in the inbox, rejected files.

A monitor asks often and wants its answer at once, also while the site serves many readers. So
``/health`` is answered on the server's event loop from the last check, taken at most
:data:`FRESH_FOR` seconds before: an older check is taken again in the background (a thread of
its own, not one of the pages'), and the answer waits for no page, connection or thread. Only
the first request of a server waits for the first check."""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field

import anyio
from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError

from jobs.queries import LastRun as Run
from jobs.queries import database_answers, inbox_state, last_backup, last_run
from service.web.models import Health, Inbox, LastRun
from service.web.responses import Database, Options

log = logging.getLogger(__name__)
router = APIRouter()

FRESH_FOR = 1.0
"""Seconds a check answers ``/health`` before it is taken again."""
STUCK_AFTER = 30.0
"""Seconds after which a check still running is given up and another one started."""


@dataclass(slots=True)
class Checks:
    """The last check of one app, and the one under way."""

    answer: tuple[int, dict[str, object]] | None = None
    taken: float = 0.0
    started: float | None = None
    limiter: anyio.CapacityLimiter = field(default_factory=lambda: anyio.CapacityLimiter(1))
    running: set[asyncio.Task[None]] = field(default_factory=set)


@router.get(
    "/health",
    summary="Whether the service and its database answer; the last run; the inbox",
    responses={503: {"model": Health, "description": "The database does not answer"}},
)
async def health(request: Request, engine: Database, options: Options) -> JSONResponse:
    checks: Checks = request.app.state.health
    now = time.monotonic()
    if checks.answer is None or FRESH_FOR <= 0:
        await _take(checks, engine, options)
    elif now - checks.taken > FRESH_FOR and (
        checks.started is None or now - checks.started > STUCK_AFTER
    ):
        checks.started = now
        task = asyncio.create_task(_take(checks, engine, options))
        checks.running.add(task)  # held until done: the loop keeps only a weak reference
        task.add_done_callback(checks.running.discard)
    assert checks.answer is not None
    status, body = checks.answer
    return JSONResponse(body, status_code=status)


async def _take(checks: Checks, engine: Engine, options: Options) -> None:
    try:
        answer = await anyio.to_thread.run_sync(_check, engine, options, limiter=checks.limiter)
        checks.answer, checks.taken = answer, time.monotonic()
    finally:
        checks.started = None


def _check(engine: Engine, options: Options) -> tuple[int, dict[str, object]]:
    unavailable = (
        503,
        Health(status="unavailable", database="unreachable").model_dump(exclude_none=True),
    )
    if not database_answers(engine):
        return unavailable
    try:
        with engine.connect() as connection:
            run = last_run(connection)
            backup = last_backup(connection)
    except SQLAlchemyError:
        log.warning("the health check could not read the last runs", exc_info=True)
        return unavailable
    inbox = inbox_state(options.inbox_dir)
    failed = any(r is not None and r.outcome == "failed" for r in (run, backup))
    body = Health(
        status="attention" if failed or inbox.rejected else "ok",
        database="ok",
        last_run=_shown(run),
        inbox=Inbox(waiting=inbox.waiting, corrections=inbox.corrections, rejected=inbox.rejected),
        last_backup=_shown(backup),
    )
    return 200, body.model_dump()


def _shown(run: Run | None) -> LastRun | None:
    if run is None:
        return None
    return LastRun(
        kind=run.kind,
        started_at=run.started_at.isoformat(),
        finished_at=None if run.finished_at is None else run.finished_at.isoformat(),
        outcome=run.outcome,
        error=run.error,
    )
