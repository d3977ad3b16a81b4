"""The published lists: the newest as the home page, all of them, and each in a format."""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated, Literal

from fastapi import APIRouter, Path, Query
from fastapi.responses import HTMLResponse, JSONResponse, Response

from exporters.documents import write_ranking
from exporters.writers import write_json
from jobs.queries import newest_list, pending_note, published_lists, published_ranking
from service.web.errors import error_responses
from service.web.models import BINARY, TEXT, PublishedList, RankingRow, array_of
from service.web.responses import MEDIA_TYPES, Database, Options, file_response, page

ListFormat = Literal["csv", "xlsx", "json", "html"]

LIST_NAME = r"^[0-9]{4}-[0-9]{2}(@[0-9]{1,9})?$"
"""A list's name as the routes accept it. ASCII digits and a bounded version: the lookup behind it
would take a superscript ``²`` for a digit, and SQLite cannot compare a version past 64 bits."""

router = APIRouter()


@router.get(
    "/",
    response_class=HTMLResponse,
    summary="The latest published list as a page",
    responses={200: {"content": {"text/html": TEXT}}},
)
def home(engine: Database, options: Options) -> Response:
    with engine.connect() as connection:
        name = newest_list(connection)
        if name is None:
            return page(
                "message.html.j2",
                title="No list published yet",
                message="The rating officer has not published a rating list yet.",
            )
        document = published_ranking(
            connection, name, everyone=False, rounding=options.lists.rounding
        )
        pending = pending_note(connection, options.rating)
    if pending is not None:
        # Visitors learn that the ratings moved since this list (a merge, a correction, results
        # waiting to be rated): the next list will differ from it.
        document = replace(document, stats=[*document.stats, ("note", pending)])
    return file_response(lambda stream: write_ranking(document, "html", stream), "html", "ranking")


@router.get(
    "/lists",
    summary="Every published list (JSON)",
    response_class=JSONResponse,
    responses={200: {"content": {"application/json": array_of(PublishedList)}}},
)
def lists(engine: Database) -> Response:
    with engine.connect() as connection:
        frame = published_lists(connection)
    return file_response(lambda stream: write_json(frame, stream), "json", "lists")


@router.get(
    "/lists.html",
    summary="Every published list (a page with links to its files)",
    response_class=HTMLResponse,
    responses={200: {"content": {"text/html": TEXT}}},
)
def lists_page(engine: Database) -> Response:
    with engine.connect() as connection:
        frame = published_lists(connection)
    return page("lists.html.j2", frame, title="Published rating lists")


@router.get(
    "/lists/{period}.{fmt}",
    summary="One published list in a format",
    response_class=Response,
    responses={
        200: {
            "description": "The list; CSV and XLSX come as attachments",
            "content": {
                MEDIA_TYPES["csv"]: TEXT,
                MEDIA_TYPES["xlsx"]: BINARY,
                MEDIA_TYPES["json"]: array_of(RankingRow),
                MEDIA_TYPES["html"]: TEXT,
            },
        },
        **error_responses(404, 422),
    },
)
def ranking(
    period: Annotated[
        str,
        Path(
            pattern=LIST_NAME,
            description="YYYY-MM (its newest version) or YYYY-MM@N (version N)",
        ),
    ],
    fmt: ListFormat,
    engine: Database,
    options: Options,
    everyone: Annotated[
        bool, Query(alias="all", description="Everyone, with an `active` column")
    ] = False,
) -> Response:
    with engine.connect() as connection:
        document = published_ranking(
            connection, period, everyone=everyone, rounding=options.lists.rounding
        )
    return file_response(
        lambda stream: write_ranking(document, fmt, stream), fmt, f"ranking-{period}"
    )
