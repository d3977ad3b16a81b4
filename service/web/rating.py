"""The "About the rating" page: how well the list predicts, the latest evaluation of the
published history (every rated result of an event ending on or before the newest list's
cut-off), with its charts. Public, read-only.

An evaluation re-rates the whole history in memory for its k sweep (seconds at federation
scale), so it is computed once per published list and set of parameters and kept for the
process; a new list is evaluated on the first request after it is published."""

from __future__ import annotations

import threading
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from exporters.evaluation import evaluation_charts, summary
from jobs.evaluation import evaluation
from jobs.queries import newest_footer
from service.web.errors import error_responses
from service.web.gates import Charts
from service.web.models import TEXT
from service.web.responses import Database, Options, page

router = APIRouter()

_lock = threading.Lock()


def _kept(request: Request) -> dict[Any, Any]:
    """The evaluations computed by this app, by list and parameters (only the newest is kept)."""
    state = request.app.state
    with _lock:
        if not hasattr(state, "evaluations"):
            state.evaluations = {}
        kept: dict[Any, Any] = state.evaluations
    return kept


@router.get(
    "/about/rating",
    summary="About the rating: how well the list predicts its own players' results",
    response_class=HTMLResponse,
    responses={200: {"content": {"text/html": TEXT}}, **error_responses(503)},
)
def about_rating(request: Request, engine: Database, options: Options, charts: Charts) -> Response:
    params = options.rating
    with charts.admitted():
        with engine.connect() as connection:
            footer = newest_footer(connection)
        if footer is None:
            return page(
                "rating_evaluation.html.j2", title="About the rating", figures=None,
                section="about", footer=None,
            )  # fmt: skip
        kept = _kept(request)
        key = (footer.name, params)
        shown = kept.get(key)
        if shown is None:
            with charts.turn():
                shown = kept.get(key)
                if shown is None:
                    with engine.connect() as connection:
                        found = evaluation(connection, params, date_to=footer.cutoff).evaluation
                    figures = found.figures
                    drawn = evaluation_charts(figures, found.change, found.change_by_games)
                    shown = (figures, drawn, summary(figures))
                    kept.clear()
                    kept[key] = shown
    figures, drawn, lines = shown
    return page(
        "rating_evaluation.html.j2", title="About the rating", f=figures, figures=figures,
        charts=drawn, lines=lines, section="about", footer=footer,
    )  # fmt: skip
