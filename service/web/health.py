"""Whether the service and its database answer, and whether the officer has something to see to:
the last batch run and its outcome, files waiting in the inbox, rejected files."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from jobs.queries import database_answers, inbox_state, last_run
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
    inbox = inbox_state(options.inbox_dir)
    failed = run is not None and run.outcome == "failed"
    body = Health(
        status="attention" if failed or inbox.rejected else "ok",
        database="ok",
        last_run=None
        if run is None
        else LastRun(
            kind=run.kind,
            started_at=run.started_at.isoformat(),
            finished_at=None if run.finished_at is None else run.finished_at.isoformat(),
            outcome=run.outcome,
            error=run.error,
        ),
        inbox=Inbox(waiting=inbox.waiting, corrections=inbox.corrections, rejected=inbox.rejected),
    )
    return JSONResponse(body.model_dump())
