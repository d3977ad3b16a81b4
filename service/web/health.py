"""Whether the service and its database answer."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from jobs.queries import database_answers
from service.web.models import Health
from service.web.responses import Database

router = APIRouter()


@router.get(
    "/health",
    summary="Whether the service and its database answer",
    responses={503: {"model": Health, "description": "The database does not answer"}},
)
def health(engine: Database) -> JSONResponse:
    if not database_answers(engine):
        body = Health(status="unavailable", database="unreachable")
        return JSONResponse(body.model_dump(), status_code=503)
    return JSONResponse(Health(status="ok", database="ok").model_dump())
