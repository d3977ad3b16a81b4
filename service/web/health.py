"""Whether the service and its database answer, and whether the officer has something to see to:
the last batch run and its outcome, files waiting in the inbox, rejected files."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from jobs.queries import LastRun as Run
from jobs.queries import database_answers, inbox_state, last_backup, last_run
from service.web.models import Health, Inbox, LastRun
from service.web.responses import Database, Options

router = APIRouter()


@router.get(
    "/health",
    summary="Whether the service and its database answer; the last run; the inbox",
    responses={503: {"model": Health, "description": "The database does not answer"}},
)
def health(engine: Database, options: Options) -> JSONResponse:
    if not database_answers(engine):
        body = Health(status="unavailable", database="unreachable")
        return JSONResponse(body.model_dump(exclude_none=True), status_code=503)
    with engine.connect() as connection:
        run = last_run(connection)
        backup = last_backup(connection)
    inbox = inbox_state(options.inbox_dir)
    failed = any(r is not None and r.outcome == "failed" for r in (run, backup))
    body = Health(
        status="attention" if failed or inbox.rejected else "ok",
        database="ok",
        last_run=_shown(run),
        inbox=Inbox(waiting=inbox.waiting, corrections=inbox.corrections, rejected=inbox.rejected),
        last_backup=_shown(backup),
    )
    return JSONResponse(body.model_dump())


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
