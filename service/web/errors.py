"""How the web service reports a bad request: one body shape for every 4xx, in JSON or HTML.

A browser (a request whose ``Accept`` names ``text/html``) gets a page that says what went wrong;
any other client gets an :class:`ErrorBody`. Every error a user can cause maps to a 4xx here, so
that bad input never reaches :class:`ServerErrors`; what does reach it is a bug, answered with a
500 that says nothing of it and logged with its traceback.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import BaseRoute, Match, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from jobs.queries import ListFooter, newest_footer
from ratings.errors import (
    EXPECTED_SHOWN,
    MAX_SHOWN,
    AccountError,
    InputError,
    JobLockedError,
    Problem,
    RatingsError,
    SubmissionStateError,
    UnansweredNamesError,
    UnclearParticipant,
    UnclearParticipantsError,
    UnknownEventError,
    UnknownListError,
    UnknownPlayerError,
    UnknownSubmissionError,
    shortened,
)
from ratings.wording import counted
from service.web.responses import render

STATUS: dict[type[RatingsError], int] = {
    UnknownListError: 404,
    UnknownPlayerError: 404,
    UnknownEventError: 404,
    InputError: 422,
    UnclearParticipantsError: 422,
    UnknownSubmissionError: 404,
    SubmissionStateError: 409,
    UnansweredNamesError: 409,
    JobLockedError: 409,
    AccountError: 422,
}
"""Status of each error the service's functions raise; any other :class:`RatingsError` is 400."""

REASONS = {
    400: "Bad request",
    404: "Not found",
    401: "Not logged in",
    403: "Not allowed",
    405: "Method not allowed",
    408: "Request too slow",
    409: "Not in this state",
    429: "Too many attempts",
    413: "Upload too large",
    422: "Something sent cannot be used",
    500: "Server error",
    503: "Busy",
}
"""Each status in a few words: the description of the API's answers."""

TITLES = {
    400: "The request cannot be answered",
    404: "Not found",
    401: "Log in first",
    403: "Not allowed",
    405: "This address does not take that kind of request",
    408: "The upload took too long",
    409: "Not now",
    429: "Too many attempts: wait a while",
    413: "The file is too large",
    422: "Something entered cannot be used",
    500: "Server error",
    503: "The service is busy: try again in a moment",
}
"""The title of an error page, saying what went wrong in plain words (its status code is in
the answer's head, not in the text)."""

SERVER_ERROR = "internal server error"
"""All a client learns of a bug; the log has the rest."""

log = logging.getLogger("ratings.web")


PATTERN_HINTS = {
    "period": "a list name: YYYY-MM for its newest version or YYYY-MM@N for version N",
    "list": "a list name: YYYY-MM for its newest version or YYYY-MM@N for version N, or nothing",
    "player_id": "a federation id, without control characters (and without a dot on the page "
    "route: /players/ID.json is the file)",
}
"""What a parameter with a pattern must look like, in words rather than the pattern itself."""


class ProblemBody(BaseModel):
    """One problem, located as precisely as the input allows (a file's line and column, or the
    request parameter)."""

    file: str | None = None
    line: int | None = None
    column: str | None = None
    value: str | None = None
    expected: str


class ErrorBody(BaseModel):
    """What every 4xx response carries: a sentence, and the problems behind it when there are any."""

    detail: str
    problems: list[ProblemBody] = []
    """The first hundred problems, in the file's order."""
    more: int = 0
    """How many problems were found beyond those listed (left out of the body when none)."""


ERROR_CONTENT: dict[str, Any] = {
    "application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}},
    "text/html": {"schema": {"type": "string"}},
}


def error_responses(*codes: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI entries for the given error status codes."""
    return {
        code: {
            "description": REASONS.get(code, "Error"),
            "model": ErrorBody,
            "content": ERROR_CONTENT,
        }
        for code in codes
    }


def size_text(size: int) -> str:
    """A byte count as a person reads it: ``2 MiB``, ``64 KiB``, ``1000 bytes``."""
    for unit, name in ((1024 * 1024, "MiB"), (1024, "KiB")):
        if size >= unit and size % unit == 0:
            return f"{size // unit} {name}"
    return f"{size} bytes"


def status_of(error: RatingsError) -> int:
    """The HTTP status a user error answers with (``STATUS``; 400 for the rest)."""
    return next((code for kind, code in STATUS.items() if isinstance(error, kind)), 400)


def upload_limit_text(limit: int) -> str:
    return f"the upload is larger than the limit of {size_text(limit)}"


def install(app: FastAPI, *, upload_limit: int, routes: Sequence[BaseRoute]) -> None:
    """Register the handlers that turn every user error into a 4xx with an :class:`ErrorBody`;
    ``routes`` are the app's, whose methods a 405 names."""

    async def ratings_error(request: Request, error: Exception) -> Response:
        assert isinstance(error, RatingsError)
        status = status_of(error)
        problems = error.problems if isinstance(error, InputError) else ()
        detail = str(error)
        title = None
        if problems:
            detail = f"{counted(len(problems), 'problem')} found in the file"
            if len(problems) > MAX_SHOWN:
                detail += f" (the first {MAX_SHOWN} are listed)"
            title = "The file has problems"
        shown = [problem_body(p) for p in problems[:MAX_SHOWN]]
        more = max(len(problems) - MAX_SHOWN, 0)
        if isinstance(error, UnclearParticipantsError):
            count = len(error.unclear)
            detail = (
                f"{count} participant{'s' if count != 1 else ''} may be "
                f"{'players' if count != 1 else 'a player'} of the rating list: answer with "
                "fields line_N (a player_id, or new for a newcomer)"
            )
            title = f"Choose who the participant{'s are' if count != 1 else ' is'}"
            shown = [_unclear_body(u) for u in error.unclear[:MAX_SHOWN]]
            more = max(count - MAX_SHOWN, 0)
        if isinstance(error, UnansweredNamesError):
            shown = [
                ProblemBody(column="name", value=_short(name), expected="a player id, or new")
                for name in error.names[:MAX_SHOWN]
            ]
            more = max(len(error.names) - MAX_SHOWN, 0)
        body = ErrorBody(detail=detail, problems=shown, more=more)
        return respond(request, status, body, title=title)

    async def validation_error(request: Request, error: Exception) -> Response:
        assert isinstance(error, RequestValidationError)
        problems = [_parameter_problem(item) for item in error.errors()]
        detail = "; ".join(f"{p.column}: {p.expected}" for p in problems[:MAX_SHOWN])
        body = ErrorBody(
            detail=detail or "invalid request",
            problems=problems[:MAX_SHOWN],
            more=max(len(problems) - MAX_SHOWN, 0),
        )
        return respond(request, 422, body, title="A value entered is not valid")

    async def http_error(request: Request, error: Exception) -> Response:
        assert isinstance(error, StarletteHTTPException)
        detail = upload_limit_text(upload_limit) if error.status_code == 413 else str(error.detail)
        headers = dict(error.headers or {})
        if error.status_code == 405:
            # Starlette names only the methods of the first route with the path (GET /seed).
            headers["Allow"] = ", ".join(_allowed(request, routes))
        return respond(request, error.status_code, ErrorBody(detail=detail), headers)

    app.add_exception_handler(RatingsError, ratings_error)
    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_exception_handler(StarletteHTTPException, http_error)


class ServerErrors:
    """ASGI middleware: an exception that no handler turned into a response is a bug. It is
    logged with its traceback, and the client gets a 500 with the usual error body."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def watched(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, watched)
        except Exception:
            log.exception(
                "internal server error",
                extra={"event": "server_error", "method": scope["method"], "path": scope["path"]},
            )
            if started:
                raise  # half a response is out: only the server can end it
            response = respond(Request(scope), 500, ErrorBody(detail=SERVER_ERROR))
            await response(scope, receive, send)


def respond(
    request: Request,
    status: int,
    body: ErrorBody,
    headers: Mapping[str, str] | None = None,
    *,
    title: str | None = None,
) -> Response:
    if "text/html" in request.headers.get("accept", ""):
        back, label = _way_back(request)
        page = render(
            "message.html.j2",
            pl.DataFrame(),
            title=title or TITLES.get(status, "Something went wrong"),
            message=body.detail,
            problems=body.problems,
            back=back,
            back_label=label,
            footer=_footer(request),
        )
        return HTMLResponse(page, status_code=status, headers=headers)
    # ``more`` appears only when problems were left out of the list.
    shown = body.model_dump(exclude=None if body.more else {"more"})
    return JSONResponse(shown, status_code=status, headers=headers)


def _way_back(request: Request) -> tuple[str, str]:
    """Where an error page leads back to: the seed form for the seed tool (the browser's
    history keeps what was entered there), else the ranking."""
    if request.url.path.rstrip("/") == "/seed":
        return "/seed", "Back to the form"
    return "/", "Back to the ranking"


def _unclear_body(unclear: UnclearParticipant) -> ProblemBody:
    """A participant the list does not settle, as a problem of its file: the candidates in
    ``expected``."""
    candidates = "; ".join(
        f"{c.player_id} {c.name} ({c.country or 'no country'}, "
        f"{'unrated' if c.rating is None else c.rating})"
        for c in unclear.candidates
    )
    more = f"; and {unclear.more} more" if unclear.more else ""
    return ProblemBody(
        file=unclear.source,
        line=unclear.line,
        column="name",
        value=_short(unclear.name),
        expected=f"{unclear.reason}: {candidates}{more}; give the player_id, or new",
    )


def _allowed(request: Request, routes: Sequence[BaseRoute]) -> list[str]:
    methods: set[str] = set()
    for route in routes:
        if isinstance(route, Route) and route.methods:
            match, _ = route.matches(request.scope)
            if match is not Match.NONE:
                methods |= route.methods
    return sorted(methods)


def problem_body(problem: Problem) -> ProblemBody:
    """A problem of a file as an error body lists it (a long value cut)."""
    return ProblemBody(
        file=_short(problem.file),
        line=problem.line,
        column=None if problem.column is None else _short(problem.column),
        value=None if problem.value is None else _short(problem.value),
        expected=_short(problem.expected, EXPECTED_SHOWN),
    )


def _parameter_problem(item: Any) -> ProblemBody:
    """A validation error of FastAPI's as a problem naming the parameter (``query.all``)."""
    location = [str(part) for part in item.get("loc", ())]
    given = item.get("input")
    value = None if item.get("type") == "missing" or given is None else _short(given)
    expected = str(item.get("msg", "a valid value"))
    if item.get("type") == "string_pattern_mismatch" and location:
        expected = PATTERN_HINTS.get(location[-1], expected)
    return ProblemBody(column=".".join(location), value=value, expected=expected)


def _short(value: Any, limit: int = 200) -> str:
    return shortened(value if isinstance(value, str) else repr(value), limit)


def _footer(request: Request) -> ListFooter | None:
    """The newest list for an error page's footer; an error page never fails for want of it."""
    try:
        with request.app.state.engine.connect() as connection:
            return newest_footer(connection)
    except Exception:
        return None
