"""A player's page and history files, an event's page, and the page on how ratings work."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Path, Query
from fastapi.responses import HTMLResponse, Response

from exporters.charts import history_svg
from exporters.documents import write_history
from exporters.writers import write
from jobs.queries import event_page, newest_footer, player_history
from jobs.queries import player_page as player_view
from jobs.standings import standings_file
from service.web.charts import DrawnCharts, chart_version
from service.web.errors import error_responses
from service.web.gates import Charts, Standings
from service.web.models import BINARY, TEXT, HistoryRow, StandingsRow, array_of
from service.web.responses import MEDIA_TYPES, Database, Options, file_response, page

HistoryFormat = Literal["json", "csv", "xlsx", "html", "svg", "png"]

PLAYER_ID = r"^[^\x00-\x1f\x7f]+$"
"""A federation id has no control characters, and PostgreSQL refuses a NUL in any text."""
PAGE_PLAYER_ID = r"^[^.\x00-\x1f\x7f]+$"
"""An id with a dot in it is the file route's (``/players/12.json``)."""

router = APIRouter()


@router.get(
    "/players/{player_id}.{fmt}",
    summary="A player's history in a format (svg and png: the chart alone)",
    response_class=Response,
    responses={
        200: {
            "content": {
                MEDIA_TYPES["json"]: array_of(HistoryRow),
                MEDIA_TYPES["csv"]: TEXT,
                MEDIA_TYPES["xlsx"]: BINARY,
                MEDIA_TYPES["html"]: TEXT,
                MEDIA_TYPES["svg"]: TEXT,
                MEDIA_TYPES["png"]: BINARY,
            }
        },
        **error_responses(404, 422, 503),
    },
)
def player_file(
    player_id: Annotated[str, Path(pattern=PLAYER_ID, description="Federation id")],
    fmt: HistoryFormat,
    engine: Database,
    options: Options,
    charts: Charts,
) -> Response:
    # Admitted first, so that a refusal in a burst costs no database work.
    with charts.admitted():
        with engine.connect() as connection:
            document = player_history(connection, player_id, rounding=options.lists.rounding)
        with charts.turn():
            return file_response(
                lambda stream: write_history(document, fmt, stream), fmt, f"player-{player_id}"
            )


@router.get(
    "/players/{player_id}",
    summary="A player's page: facts, ranks, events and games; the chart is an image of its own",
    response_class=HTMLResponse,
    responses={200: {"content": {"text/html": TEXT}}, **error_responses(404, 422)},
)
def player_page(
    player_id: Annotated[
        str,
        Path(pattern=PAGE_PLAYER_ID, description="Federation id; add .json etc. for files"),
    ],
    engine: Database,
    options: Options,
) -> Response:
    # No chart is drawn here, and no gate is passed: the page names its chart's image, which
    # the browser asks for on its own (player_chart).
    with engine.connect() as connection:
        shown = player_view(connection, player_id, rounding=options.lists.rounding)
        footer = newest_footer(connection)
    document = shown.history
    version = chart_version(document.title, document.days, document.ratings)
    return page(
        "player.html.j2", title=f"{shown.name} – rating", p=shown, chart_version=version,
        section="players", footer=footer,
    )  # fmt: skip


CHART_KEPT = "public, max-age=31536000, immutable"
"""A chart asked for by its version never changes: a browser keeps it."""


@router.get(
    "/players/{player_id}/chart.svg",
    summary="A player's rating chart, the image the player's page shows",
    description="`v` is the version the page names (a digest of the history drawn); a chart "
    "asked for by its current version may be kept for good, any other is the current chart, "
    "not to be kept. Charts are drawn once and kept; while many are being drawn a chart not "
    "yet drawn is answered 503 with `Retry-After` (the page itself never is).",
    response_class=Response,
    responses={200: {"content": {MEDIA_TYPES["svg"]: TEXT}}, **error_responses(404, 422, 503)},
)
def player_chart(
    player_id: Annotated[str, Path(pattern=PAGE_PLAYER_ID, description="Federation id")],
    engine: Database,
    options: Options,
    gate: Charts,
    drawn: DrawnCharts,
    v: Annotated[str | None, Query(max_length=64, description="The chart's version")] = None,
) -> Response:
    chart = None if v is None else drawn.get(player_id, v)
    version = v
    if chart is None:
        # Admitted first, so that a refusal in a burst costs no database work and a burst of
        # charts holds at most the gate's room of the threads and connections pages need.
        with gate.admitted():
            with engine.connect() as connection:
                document = player_history(connection, player_id, rounding=options.lists.rounding)
            version = chart_version(document.title, document.days, document.ratings)

            def draw() -> bytes:
                return history_svg(document.days, document.ratings, title=document.title)

            chart = drawn.drawn(player_id, version, draw)
    cache = CHART_KEPT if version == v else "no-cache"
    return Response(
        chart,
        media_type=MEDIA_TYPES["svg"],
        headers={"Cache-Control": cache, "ETag": f'"{version}"'},
    )


EVENT_KEY = Path(pattern=PLAYER_ID, max_length=200, description="The event's key")


def _standings_file(key: str, fmt: str, engine: Database, gate: Standings) -> Response:
    with gate.entered(), engine.connect() as connection:
        rows = standings_file(connection, key)
    return file_response(lambda stream: write(rows, fmt, stream), fmt, f"standings-{key}")


# The files' routes come before the page's: a key is matched up to a literal ".csv" or ".json".
@router.get(
    "/events/{key}.csv",
    summary="An event's standings as CSV, as `ratings standings --format csv` writes them",
    response_class=Response,
    responses={200: {"content": {MEDIA_TYPES["csv"]: TEXT}}, **error_responses(404, 422, 503)},
)
def event_standings_csv(
    key: Annotated[str, EVENT_KEY], engine: Database, gate: Standings
) -> Response:
    return _standings_file(key, "csv", engine, gate)


@router.get(
    "/events/{key}.json",
    summary="An event's standings as JSON, as `ratings standings --format json` writes them",
    response_class=Response,
    responses={
        200: {"content": {MEDIA_TYPES["json"]: array_of(StandingsRow)}},
        **error_responses(404, 422, 503),
    },
)
def event_standings_json(
    key: Annotated[str, EVENT_KEY], engine: Database, gate: Standings
) -> Response:
    return _standings_file(key, "json", engine, gate)


@router.get(
    "/events/{key}",
    summary="An event's page: its standings, the rating's view of it, the crosstable",
    response_class=HTMLResponse,
    responses={200: {"content": {"text/html": TEXT}}, **error_responses(404, 422, 503)},
)
def event_view(key: Annotated[str, EVENT_KEY], engine: Database, gate: Standings) -> Response:
    with gate.entered(), engine.connect() as connection:
        shown = event_page(connection, key)
        footer = newest_footer(connection)
    return page("event.html.j2", title=shown.name, e=shown, section="events", footer=footer)


@router.get(
    "/about",
    summary="How the ratings and the lists work",
    response_class=HTMLResponse,
    responses={200: {"content": {"text/html": TEXT}}},
)
def about(engine: Database) -> Response:
    with engine.connect() as connection:
        footer = newest_footer(connection)
    return page("about.html.j2", title="How ratings work", section="about", footer=footer)
