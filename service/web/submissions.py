"""Results submitted by tournament directors: the ``/submit`` page and the API.

Pages (a logged-in director or officer; anyone else is sent to ``/login``):

- ``GET /submit``: the upload form and the caller's own submissions with their status.
- ``POST /submit``: a file (multipart ``file``, ``tier``, ``notes``), read at once as ``ratings
  import --dry-run`` reads it: kept and shown (303 to its page), or not kept, its problems
  listed (422).
- ``GET /submissions/{id}``: one submission (its submitter or an officer; 404 for another
  director), ``POST /submissions/{id}/withdraw`` and ``/replace`` (its submitter, while it waits).

API (``Authorization: Bearer TOKEN``; 401 without a valid one):

- ``GET /api/submissions``: the caller's submissions (an officer's: all of them).
- ``POST /api/submissions``: 201 with the submission, or 422 with the problems.
- ``GET /api/submissions/{id}``: 200 for its submitter and officers, 404 for another director.
- ``PUT /api/submissions/{id}``: another file in its place (its submitter, while it waits; 409
  after the officer decided). ``DELETE /api/submissions/{id}``: withdrawn (204).
- ``POST /api/submissions/{id}/accept`` ``{"answers": {NAME: "new" | PLAYER_ID}}``: imported
  (200), 409 listing the names that still need an answer; 403 for a director.
- ``POST /api/submissions/{id}/reject`` ``{"reason": "..."}``: 200; 403 for a director.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, File, Form, HTTPException, Request, UploadFile
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import BaseModel, Field

from jobs.accounts import Account
from jobs.locking import job_lock
from jobs.submissions import (
    MAX_NOTES,
    MAX_REASON,
    TIERS,
    Submission,
    accept,
    find,
    reject,
    replace,
    submissions_of,
    submit,
    withdraw,
)
from ratings.errors import MAX_SHOWN, InputError
from ratings.wording import counted
from service.mail import notify
from service.settings import MailOptions, WebOptions, utc_now
from service.web.auth import Officer, Someone, context
from service.web.errors import error_responses, problem_body, size_text, upload_limit_text
from service.web.responses import Database, Options, page

router = APIRouter()

RESULTS_FILE = File(
    description="Results: a crosstable (TRF, h9, OpenGotha XML, MacMahon, crosstable CSV) or "
    "a results table (CSV, XLSX, JSON, Parquet), as `ratings import` reads them"
)


def _matching(web: WebOptions) -> Any:
    from jobs.options import MatchOptions

    return MatchOptions(review_score=web.review_score)


def _upload(file: UploadFile | None, limit: int) -> tuple[bytes, str]:
    """The uploaded bytes, at most ``limit`` (the body was bounded before it was read)."""
    if file is None:
        raise HTTPException(422, "choose the results file to submit")
    data = file.file.read(limit + 1)
    if len(data) > limit:
        raise HTTPException(413, upload_limit_text(limit))
    name = (file.filename or "upload")[:255]
    if not data:
        raise HTTPException(422, "the file is empty: choose the results file to submit")
    return data, name


def _submit_page(
    request: Request,
    engine: Any,
    account: Account,
    web: WebOptions,
    *,
    status: int = 200,
    message: str = "",
    problems: list[Any] | None = None,
    entered: dict[str, str] | None = None,
) -> HTMLResponse:
    response = page(
        "submit.html.j2",
        title="Submit results",
        section="submit",
        submissions=submissions_of(engine, account),
        message=message,
        problems=problems or [],
        tiers=TIERS,
        entered=entered or {"tier": "regular", "notes": ""},
        limit=size_text(web.upload_limit),
        **context(request, account),
    )
    response.status_code = status
    return response


def _refusal(error: InputError | HTTPException) -> tuple[int, str, list[Any]]:
    if isinstance(error, HTTPException):
        return error.status_code, f"{str(error.detail)[:1].upper()}{str(error.detail)[1:]}.", []
    count = len(error.problems)
    message = f"{counted(count, 'problem')} found in the file"
    if count > MAX_SHOWN:
        message += f" (the first {MAX_SHOWN} are listed)"
    message += ": nothing was kept. Correct the file and send it again."
    return 422, message, [problem_body(p) for p in error.problems[:MAX_SHOWN]]


@router.get("/submit", response_class=HTMLResponse, include_in_schema=False)
def submit_page(request: Request, engine: Database, web: Options, account: Someone) -> Response:
    return _submit_page(request, engine, account, web)


@router.post("/submit", response_class=HTMLResponse, include_in_schema=False)
def submit_form(
    request: Request,
    engine: Database,
    web: Options,
    account: Someone,
    file: Annotated[UploadFile | None, RESULTS_FILE] = None,
    tier: Annotated[str, Form(max_length=32)] = "regular",
    notes: Annotated[str, Form(max_length=MAX_NOTES)] = "",
) -> Response:
    try:
        data, name = _upload(file, web.upload_limit)
        done = submit(
            engine, account, data, name, tier=tier, notes=notes, matching=_matching(web),
            limit=web.upload_limit, now=utc_now(),
        )  # fmt: skip
    except (InputError, HTTPException) as error:
        status, message, problems = _refusal(error)
        return _submit_page(
            request, engine, account, web, status=status, message=message, problems=problems,
            entered={"tier": tier, "notes": notes},
        )  # fmt: skip
    return RedirectResponse(f"/submissions/{done.id}", status_code=303)


def _submission_page(
    request: Request,
    account: Account,
    found: Submission,
    web: WebOptions,
    *,
    status: int = 200,
    message: str = "",
    problems: list[Any] | None = None,
) -> HTMLResponse:
    response = page(
        "submission.html.j2",
        title=f"Submission {found.id}: {found.row.file_name}",
        section="submit",
        submission=found,
        own=found.row.submitter_id == account.id,
        message=message,
        problems=problems or [],
        tiers=TIERS,
        limit=size_text(web.upload_limit),
        **context(request, account),
    )
    response.status_code = status
    return response


@router.get("/submissions/{submission_id}", response_class=HTMLResponse, include_in_schema=False)
def submission_page(
    request: Request, submission_id: int, engine: Database, web: Options, account: Someone
) -> Response:
    return _submission_page(request, account, find(engine, submission_id, account), web)


@router.post("/submissions/{submission_id}/withdraw", include_in_schema=False)
def withdraw_form(submission_id: int, engine: Database, account: Someone) -> Response:
    withdraw(engine, submission_id, account)
    return RedirectResponse("/submit", status_code=303)


@router.post(
    "/submissions/{submission_id}/replace", response_class=HTMLResponse, include_in_schema=False
)
def replace_form(
    request: Request,
    submission_id: int,
    engine: Database,
    web: Options,
    account: Someone,
    file: Annotated[UploadFile | None, RESULTS_FILE] = None,
    tier: Annotated[str, Form(max_length=32)] = "regular",
    notes: Annotated[str, Form(max_length=MAX_NOTES)] = "",
) -> Response:
    try:
        data, name = _upload(file, web.upload_limit)
        replace(
            engine, submission_id, account, data, name, tier=tier, notes=notes,
            matching=_matching(web), limit=web.upload_limit, now=utc_now(),
        )  # fmt: skip
    except (InputError, HTTPException) as error:
        status, message, problems = _refusal(error)
        found = find(engine, submission_id, account)
        return _submission_page(
            request, account, found, web, status=status, message=message, problems=problems
        )
    return RedirectResponse(f"/submissions/{submission_id}", status_code=303)


# The API.


class SubmissionBody(BaseModel):
    id: int
    status: str = Field(
        description="submitted, needs answers, accepted, rejected, rated, or rated, in list YYYY-MM"
    )
    file: str
    sha256: str
    tier: str
    notes: str | None
    submitter: str
    submitted_at: str
    reason: str | None = Field(description="The officer's reason for a rejection")
    problems: list[Any]
    warnings: list[dict[str, Any]]
    tournaments: list[dict[str, Any]]
    new_players: list[dict[str, Any]] = Field(
        description="Players the file would create and names that need an answer "
        "(needs_answer), each with its candidates: player_id, name, country, club, ids, score, "
        "last_event"
    )
    needs_answers: list[str]


class AcceptBody(BaseModel):
    answers: dict[str, str] = Field(
        default_factory=dict, description='Each name to answer: a player id, or "new"'
    )


class RejectBody(BaseModel):
    reason: str = Field(min_length=1, max_length=MAX_REASON)


@router.get(
    "/api/submissions",
    summary="The caller's submissions (an officer's: every submission, oldest first)",
    response_model=list[SubmissionBody],
    responses=error_responses(401),
)
def api_list(engine: Database, account: Someone) -> Any:
    return [s.body() for s in submissions_of(engine, account, every=account.officer)]


@router.post(
    "/api/submissions",
    summary="Submit a results file; read at once as `ratings import --dry-run` reads it",
    status_code=201,
    response_model=SubmissionBody,
    responses=error_responses(400, 401, 413, 422),
)
def api_submit(
    engine: Database,
    web: Options,
    account: Someone,
    file: Annotated[UploadFile | None, RESULTS_FILE] = None,
    tier: Annotated[str, Form(max_length=32)] = "regular",
    notes: Annotated[str, Form(max_length=MAX_NOTES)] = "",
) -> Any:
    data, name = _upload(file, web.upload_limit)
    done = submit(
        engine, account, data, name, tier=tier, notes=notes, matching=_matching(web),
        limit=web.upload_limit, now=utc_now(),
    )  # fmt: skip
    return done.body()


@router.get(
    "/api/submissions/{submission_id}",
    summary="One submission: its submitter's or, for an officer, anyone's",
    response_model=SubmissionBody,
    responses=error_responses(401, 404, 422),
)
def api_get(submission_id: int, engine: Database, account: Someone) -> Any:
    return find(engine, submission_id, account).body()


@router.put(
    "/api/submissions/{submission_id}",
    summary="Replace a submission's file while it waits for the officer (its submitter only)",
    response_model=SubmissionBody,
    responses=error_responses(400, 401, 404, 409, 413, 422),
)
def api_replace(
    submission_id: int,
    engine: Database,
    web: Options,
    account: Someone,
    file: Annotated[UploadFile | None, RESULTS_FILE] = None,
    tier: Annotated[str, Form(max_length=32)] = "regular",
    notes: Annotated[str, Form(max_length=MAX_NOTES)] = "",
) -> Any:
    data, name = _upload(file, web.upload_limit)
    return replace(
        engine, submission_id, account, data, name, tier=tier, notes=notes,
        matching=_matching(web), limit=web.upload_limit, now=utc_now(),
    ).body()  # fmt: skip


@router.delete(
    "/api/submissions/{submission_id}",
    summary="Withdraw a submission while it waits for the officer (its submitter only)",
    status_code=204,
    responses=error_responses(401, 404, 409, 422),
)
def api_withdraw(submission_id: int, engine: Database, account: Someone) -> Response:
    withdraw(engine, submission_id, account)
    return Response(status_code=204)


def accept_submission(
    engine: Any, web: WebOptions, submission_id: int, officer: Account, answers: dict[str, str]
) -> Submission:
    """Import under the job lock, as the command line's import does."""
    with job_lock(engine):
        done, _ = accept(
            engine, submission_id, officer, answers, matching=_matching(web),
            limit=web.upload_limit, now=utc_now(),
        )  # fmt: skip
    return done


def reject_submission(
    engine: Any, web: WebOptions, submission_id: int, officer: Account, reason: str
) -> Submission:
    """Reject, and tell the director by mail when mail is set up and they have an address."""
    done = reject(engine, submission_id, officer, reason, now=utc_now())
    mail = web.mail
    if mail is not None and mail.host and done.row.submitter_email:
        notify(
            MailOptions(
                host=mail.host, port=mail.port, user=mail.user, password=mail.password,
                starttls=mail.starttls, sender=mail.sender,
                recipients=(done.row.submitter_email,),
            ),
            f"submission {done.id} ({done.row.file_name}) was rejected",
            f"The rating officer rejected your submission {done.id}, {done.row.file_name}:\n\n"
            f"{done.row.reason}\n\nCorrect it and submit it again on the site.\n",
        )  # fmt: skip
    return done


@router.post(
    "/api/submissions/{submission_id}/accept",
    summary="Import a submission with the officer's answers (officers only)",
    response_model=SubmissionBody,
    responses=error_responses(400, 401, 403, 404, 409, 422),
)
def api_accept(
    submission_id: int, body: AcceptBody, engine: Database, web: Options, officer: Officer
) -> Any:
    return accept_submission(engine, web, submission_id, officer, body.answers).body()


@router.post(
    "/api/submissions/{submission_id}/reject",
    summary="Reject a submission with a reason (officers only)",
    response_model=SubmissionBody,
    responses=error_responses(400, 401, 403, 404, 409, 422),
)
def api_reject(
    submission_id: int, body: RejectBody, engine: Database, web: Options, officer: Officer
) -> Any:
    return reject_submission(engine, web, submission_id, officer, body.reason).body()
