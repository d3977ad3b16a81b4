"""The officer's other work in the browser, calling the jobs the command line calls: merge two
players after seeing them side by side and undo a merge, delete a tournament after a
confirmation, run the rating as a background job under the job lock, and publish a list after a
preview of what it changes. Every route is the officer's: a director gets 403, the public is
sent to ``/login``.

- ``GET /desk/players`` (``keep`` and ``duplicate``: the two side by side; ``unmerge``: the
  merge to undo), ``POST /desk/players/merge``, ``POST /desk/players/unmerge``.
- ``GET /desk/tournaments``, ``GET /desk/tournaments/delete?key=KEY`` (the confirmation),
  ``POST /desk/tournaments/delete``.
- ``GET /desk/rating`` (running, and how the last runs ended), ``POST /desk/rating`` (starts
  it; 409 while one runs).
- ``GET /desk/publish?period=YYYY-MM`` (the preview: biggest movers, entering, leaving),
  ``POST /desk/publish`` (``period``, ``republish``).
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from datetime import datetime
from typing import Annotated, Any, cast

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlalchemy.engine import Engine

from jobs.accounts import Account
from jobs.folder import publish_with_files
from jobs.inventory import merge_preview, tournament_card, tournament_list, unmerge_preview
from jobs.locking import job_lock
from jobs.players import merge_players, unmerge_player
from jobs.publishing import preview_list
from jobs.queries import recent_jobs
from jobs.rating import run_ratings
from jobs.runs import recorded
from jobs.tournaments import delete_tournament
from ratings.errors import RatingsError
from ratings.wording import counted
from service.settings import WebOptions, utc_now
from service.web import notices
from service.web.auth import Officer, context
from service.web.errors import status_of
from service.web.responses import Database, Options, page

router = APIRouter()
log = logging.getLogger("ratings.web")

FEDERATION_ID = Annotated[str, Form(min_length=1, max_length=64)]


def _desk_page(
    request: Request,
    officer: Account,
    template: str,
    title: str,
    *,
    status: int = 200,
    message: str = "",
    **values: Any,
) -> HTMLResponse:
    response = page(
        template, title=title, section="desk", message=message, **values,
        **context(request, officer),
    )  # fmt: skip
    response.status_code = status
    return response


def _said(error: RatingsError) -> str:
    text = str(error)
    return f"{text[:1].upper()}{text[1:]}."


# Merging and unmerging.


@router.get("/desk/players", response_class=HTMLResponse, include_in_schema=False)
def players_page(
    request: Request,
    engine: Database,
    officer: Officer,
    keep: str = "",
    duplicate: str = "",
    unmerge: str = "",
    said: str = "",
) -> Response:
    sides: Any = ()
    record = None
    status, said = 200, notices.shown(request, said)
    try:
        with engine.connect() as connection:
            if keep and duplicate:
                sides = merge_preview(connection, keep[:64], duplicate[:64])
            if unmerge:
                record = unmerge_preview(connection, unmerge[:64])
    except RatingsError as error:
        status, said = status_of(error), _said(error)
    return _desk_page(
        request, officer, "desk_players.html.j2", "Merge and unmerge players", status=status,
        message=said, sides=sides, record=record, keep=keep, duplicate=duplicate,
        unmerge=unmerge,
    )  # fmt: skip


@router.post("/desk/players/merge", include_in_schema=False)
def merge(
    request: Request,
    engine: Database,
    officer: Officer,
    keep: FEDERATION_ID,
    duplicate: FEDERATION_ID,
) -> Response:
    try:
        with job_lock(engine):
            merge_players(engine, keep, duplicate, by=officer.name, now=utc_now())
    except RatingsError as error:
        return _desk_page(
            request, officer, "desk_players.html.j2", "Merge and unmerge players",
            status=status_of(error), message=_said(error), sides=(), record=None, keep=keep,
            duplicate=duplicate, unmerge="",
        )  # fmt: skip
    said = f"Merged {duplicate} into {keep}: run the rating to re-rate."
    return RedirectResponse(notices.address(request, "/desk/players", said), status_code=303)


@router.post("/desk/players/unmerge", include_in_schema=False)
def unmerge(
    request: Request, engine: Database, officer: Officer, duplicate: FEDERATION_ID
) -> Response:
    try:
        with job_lock(engine):
            report = unmerge_player(engine, duplicate, by=officer.name, now=utc_now())
    except RatingsError as error:
        return _desk_page(
            request, officer, "desk_players.html.j2", "Merge and unmerge players",
            status=status_of(error), message=_said(error), sides=(), record=None, keep="",
            duplicate="", unmerge=duplicate,
        )  # fmt: skip
    said = (
        f"{duplicate} is a player again ({counted(report.tournaments, 'tournament')} back): "
        "run the rating to re-rate."
    )
    return RedirectResponse(notices.address(request, "/desk/players", said), status_code=303)


# Tournaments.


@router.get("/desk/tournaments", response_class=HTMLResponse, include_in_schema=False)
def tournaments_page(
    request: Request, engine: Database, officer: Officer, said: str = ""
) -> Response:
    with engine.connect() as connection:
        found = tournament_list(connection)
    newest = found.reverse().head(200)
    return _desk_page(
        request, officer, "desk_tournaments.html.j2", "Tournaments",
        message=notices.shown(request, said),
        tournaments=list(newest.iter_rows(named=True)), total=found.height,
    )  # fmt: skip


@router.get("/desk/tournaments/delete", response_class=HTMLResponse, include_in_schema=False)
def delete_page(request: Request, engine: Database, officer: Officer, key: str) -> Response:
    with engine.connect() as connection:
        card = tournament_card(connection, key[:200])
    return _desk_page(
        request, officer, "desk_delete.html.j2", f"Delete {card.event.name}?", card=card,
        results=card.results.height,
    )  # fmt: skip


@router.post("/desk/tournaments/delete", include_in_schema=False)
def delete(
    request: Request,
    engine: Database,
    officer: Officer,
    key: Annotated[str, Form(min_length=1, max_length=200)],
    confirm: Annotated[str, Form(max_length=10)] = "",
) -> Response:
    if confirm != "yes":
        raise HTTPException(422, "confirm the deletion (confirm=yes) on its page")
    with job_lock(engine):
        report = delete_tournament(engine, key, by=officer.name, now=utc_now())
    said = f"Deleted {report.name} ({counted(report.results, 'result')})" + (
        ": run the rating to re-rate what follows it." if report.rerate else "."
    )
    return RedirectResponse(notices.address(request, "/desk/tournaments", said), status_code=303)


# Rating, in the background.


@dataclass
class RatingRun:
    """The rating job the site started, while it runs and after."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    thread: threading.Thread | None = None
    started: datetime | None = None
    by: str = ""
    outcome: str = ""

    @property
    def running(self) -> bool:
        return self.thread is not None and self.thread.is_alive()


def _run(request: Request) -> RatingRun:
    state = request.app.state
    if not hasattr(state, "rating_run"):
        state.rating_run = RatingRun()
    return cast(RatingRun, state.rating_run)


def _rate(engine: Engine, web: WebOptions, run: RatingRun) -> None:
    """The rating job as ``ratings run`` does it: under the job lock, recorded."""
    try:
        with job_lock(engine), recorded(engine, "run", utc_now) as record:
            report = run_ratings(engine, web.rating, now=utc_now())
            record.count(tournaments_rated=report.tournaments, results_rated=report.results)
        run.outcome = (
            "nothing to rate"
            if report.start is None
            else f"rated {counted(report.tournaments, 'tournament')}, "
            f"{counted(report.results, 'result')}, {counted(report.players, 'player')}"
        )
    except RatingsError as error:
        run.outcome = f"failed: {error}"
    except Exception as error:
        log.exception("the rating job started on the site failed")
        run.outcome = f"failed: {type(error).__name__} (see the log)"


@router.get("/desk/rating", response_class=HTMLResponse, include_in_schema=False)
def rating_page(request: Request, engine: Database, officer: Officer) -> Response:
    run = _run(request)
    with engine.connect() as connection:
        jobs = list(recent_jobs(connection, 10).iter_rows(named=True))
    return _desk_page(
        request, officer, "desk_rating.html.j2", "Rating", run=run, jobs=jobs,
        refresh=2 if run.running else None,
    )  # fmt: skip


@router.post("/desk/rating", include_in_schema=False)
def start_rating(request: Request, engine: Database, web: Options, officer: Officer) -> Response:
    run = _run(request)
    with run.lock:
        if run.running:
            raise HTTPException(409, "the rating is running already")
        run.started, run.by, run.outcome = utc_now(), officer.name, ""
        run.thread = threading.Thread(
            target=_rate, args=(engine, web, run), name="rating", daemon=True
        )
        run.thread.start()
    return RedirectResponse("/desk/rating", status_code=303)


# Publishing.


@router.get("/desk/publish", response_class=HTMLResponse, include_in_schema=False)
def publish_page(
    request: Request,
    engine: Database,
    web: Options,
    officer: Officer,
    period: str = "",
    republish: bool = False,
    said: str = "",
) -> Response:
    preview = None
    status, said = 200, notices.shown(request, said)
    if period:
        try:
            preview = preview_list(
                engine, period[:7], web.lists, republish=republish, now=utc_now(),
                params=web.rating,
            )  # fmt: skip
        except RatingsError as error:
            status, said = status_of(error), _said(error)
    return _desk_page(
        request, officer, "desk_publish.html.j2", "Publish a list", status=status, message=said,
        preview=preview, period=period[:7], republish=republish,
    )  # fmt: skip


@router.post("/desk/publish", include_in_schema=False)
def publish(
    request: Request,
    engine: Database,
    web: Options,
    officer: Officer,
    period: Annotated[str, Form(pattern=r"^\d{4}-\d{2}$")],
    republish: Annotated[bool, Form()] = False,
) -> Response:
    try:
        with job_lock(engine):
            done = publish_with_files(
                engine, period, web.lists, publish_dir=web.publish_dir, params=web.rating,
                republish=republish, by=officer.name, now=utc_now(),
            )  # fmt: skip
    except RatingsError as error:
        return _desk_page(
            request, officer, "desk_publish.html.j2", "Publish a list", status=status_of(error),
            message=_said(error), preview=None, period=period, republish=republish,
        )  # fmt: skip
    info = done.info
    said = (
        f"Published {info.period} version {info.version} (cut-off {info.cutoff}): "
        f"{counted(info.players, 'player')}, {info.active_players} active."
    )
    return RedirectResponse(notices.address(request, "/desk/publish", said), status_code=303)
