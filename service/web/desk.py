"""The rating officer's desk: the queue of submissions and the review of each one's new players,
accept or reject. Every route here is the officer's: a director gets 403, the public is sent to
``/login``.

- ``GET /desk``: the submissions waiting, oldest first, with their counts of problems, warnings
  and names to answer; then those decided.
- ``GET /desk/submissions/{id}``: the report and the review: each name with its candidates
  (score, country, club, ids, last event), to choose one or a new player.
- ``POST /desk/submissions/{id}/accept``: fields ``name_N`` and ``answer_N`` (a player id or
  ``new``); imports under the job lock as ``ratings import --map`` does (303 back to the page),
  or the page again with 409 naming the names still to answer.
- ``POST /desk/submissions/{id}/reject``: field ``reason``; the director sees it (and gets a
  mail when mail is set up).
"""

from __future__ import annotations

import re
from typing import Annotated

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from jobs.accounts import Account
from jobs.submissions import MAX_REASON, Submission, find, submissions_of
from ratings.errors import RatingsError, UnansweredNamesError
from service.web.auth import Officer, context
from service.web.errors import status_of
from service.web.responses import Database, Options, page
from service.web.submissions import accept_submission, reject_submission

router = APIRouter()

ANSWER = re.compile(r"(name|answer)_(\d{1,6})")


async def _answers(request: Request) -> dict[str, str]:
    """The officer's answers among the form's fields: ``name_N`` with ``answer_N``."""
    form = await request.form()
    names: dict[str, str] = {}
    answers: dict[str, str] = {}
    for key, value in form.multi_items():
        match = ANSWER.fullmatch(key)
        if match and isinstance(value, str):
            (names if match[1] == "name" else answers)[match[2]] = value.strip()
    return {names[i]: answers[i] for i in names if answers.get(i)}


Answers = Annotated[dict[str, str], Depends(_answers)]


def _counts(found: Submission) -> dict[str, int]:
    return {
        "problems": 0,  # a file with problems is never kept
        "warnings": len(found.warnings),
        "answers": len(found.unanswered),
        "new": sum(1 for n in found.names if not n["needs_answer"]),
    }


@router.get("/desk", response_class=HTMLResponse, include_in_schema=False)
def desk(request: Request, engine: Database, officer: Officer) -> Response:
    every = submissions_of(engine, officer, every=True)
    waiting = [(s, _counts(s)) for s in every if s.is_open]
    decided = [(s, _counts(s)) for s in reversed(every) if not s.is_open]
    return page(
        "desk.html.j2", title="The officer's desk", section="desk", waiting=waiting,
        decided=decided, **context(request, officer),
    )  # fmt: skip


def _review_page(
    request: Request,
    officer: Account,
    found: Submission,
    *,
    status: int = 200,
    message: str = "",
    chosen: dict[str, str] | None = None,
) -> HTMLResponse:
    names = found.names
    # The review shows the names to answer first, then the new players.
    names.sort(key=lambda n: not n["needs_answer"])
    response = page(
        "desk_submission.html.j2",
        title=f"Submission {found.id}: {found.row.file_name}",
        section="desk",
        submission=found,
        names=names,
        chosen=chosen or {},
        counts=_counts(found),
        message=message,
        **context(request, officer),
    )
    response.status_code = status
    return response


@router.get(
    "/desk/submissions/{submission_id}", response_class=HTMLResponse, include_in_schema=False
)
def review(request: Request, submission_id: int, engine: Database, officer: Officer) -> Response:
    return _review_page(request, officer, find(engine, submission_id, officer))


@router.post(
    "/desk/submissions/{submission_id}/accept",
    response_class=HTMLResponse,
    include_in_schema=False,
)
def accept_form(
    request: Request,
    submission_id: int,
    engine: Database,
    web: Options,
    officer: Officer,
    answers: Answers,
) -> Response:
    found = find(engine, submission_id, officer)
    # A name imported as a new player needs no answer; only a choice of a known player counts.
    required = set(found.unanswered)
    kept = {name: a for name, a in answers.items() if name in required or a != "new"}
    try:
        accept_submission(engine, web, submission_id, officer, kept)
    except UnansweredNamesError as error:
        return _review_page(
            request, officer, found, status=409, chosen=answers,
            message=f"{str(error)[:1].upper()}{str(error)[1:]}.",
        )  # fmt: skip
    except RatingsError as error:
        return _review_page(
            request, officer, find(engine, submission_id, officer), status=status_of(error),
            chosen=answers, message=f"The file was not imported: {error}",
        )  # fmt: skip
    return RedirectResponse(f"/desk/submissions/{submission_id}", status_code=303)


@router.post(
    "/desk/submissions/{submission_id}/reject",
    response_class=HTMLResponse,
    include_in_schema=False,
)
def reject_form(
    request: Request,
    submission_id: int,
    engine: Database,
    web: Options,
    officer: Officer,
    reason: Annotated[str, Form(max_length=MAX_REASON)] = "",
) -> Response:
    if not reason.strip():
        return _review_page(
            request, officer, find(engine, submission_id, officer), status=422,
            message="Give the director a reason for the rejection.",
        )  # fmt: skip
    reject_submission(engine, web, submission_id, officer, reason)
    return RedirectResponse(f"/desk/submissions/{submission_id}", status_code=303)
