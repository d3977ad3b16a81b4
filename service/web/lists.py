"""The published lists: the newest as the home page, all of them, and each in a format."""

from __future__ import annotations

from typing import Annotated, Any, Literal
from urllib.parse import quote, urlencode

from fastapi import APIRouter, Header, Path, Query
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from sqlalchemy.engine import Engine

from exporters.documents import write_ranking
from exporters.writers import write_json
from jobs.list_pages import COUNT_CAP, list_archive, list_page
from jobs.queries import (
    list_diff,
    newest_footer,
    pending_note,
    published_lists,
    published_ranking,
)
from ratings.wording import counted
from service.settings import WebOptions
from service.web.errors import error_responses
from service.web.models import BINARY, TEXT, PublishedList, RankingRow, array_of
from service.web.responses import MEDIA_TYPES, Database, Options, file_response, page

ListFormat = Literal["csv", "xlsx", "json", "html"]

LIST_NAME = r"^[0-9]{4}-[0-9]{2}(@[0-9]{1,9})?$"
"""A list's name as the routes accept it. ASCII digits and a bounded version: the lookup behind it
would take a superscript ``²`` for a digit, and SQLite cannot compare a version past 64 bits."""

router = APIRouter()


SORTS = (("rank", "Rank"), ("name", "Name"), ("rating", "Rating"), ("games", "Games"))
"""The orders a list page offers, as the select shows them."""
DESCENDING = {"rank": False, "name": False, "rating": True, "games": True}
"""Each order's first direction: best rank, A to Z, highest rating, most games."""
HEADINGS = (
    ("rank", "Rank", "num"), ("name", "Name", ""), (None, "Title", "opt"), (None, "Country", ""),
    ("rating", "Rating", "num"), ("games", "Games", "num opt"), (None, "Last played", "opt"),
    (None, "Change", "num opt"),
)  # fmt: skip

Search = Annotated[str, Query(alias="q", max_length=200, description="Part of a name, or an id")]
Country = Annotated[str, Query(max_length=16, description="Players of this country only")]
Title = Annotated[str, Query(max_length=16, description="Players with this title only")]
Everyone = Annotated[
    bool, Query(alias="all", description="Everyone, inactive players too, ranked among all")
]
Sort = Annotated[Literal["rank", "name", "rating", "games"], Query(description="The order")]
Descending = Annotated[
    bool | None, Query(alias="desc", description="Reverse the order's usual direction")
]
PageNumber = Annotated[int, Query(ge=1, le=1_000_000, description="The page, from 1")]


def _list_view(
    engine: Engine,
    options: WebOptions,
    name: str | None,
    action: str,
    *,
    section: str,
    search: str,
    country: str,
    title: str,
    everyone: bool,
    sort: str,
    desc: bool | None,
    number: int,
) -> Response:
    with engine.connect() as connection:
        footer = newest_footer(connection)
        name = name or (footer.name if footer else None)
        if name is None:
            return page(
                "message.html.j2",
                title="No list published yet",
                message="The rating officer has not published a rating list yet.",
                section=section,
                footer=footer,
            )
        descending = DESCENDING[sort] if desc is None else desc
        shown = list_page(
            connection, name, search=search, country=country, title=title, everyone=everyone,
            sort=sort, descending=descending, page=number, rounding=options.lists.rounding,
        )  # fmt: skip
        # Visitors learn that the ratings moved since this list (a merge, a correction, results
        # waiting to be rated): the next list will differ from it.
        pending = pending_note(connection, options.rating)
    state: dict[str, Any] = {
        "q": search or None, "country": country or None, "title": title or None,
        "all": "true" if everyone else None, "sort": None if sort == "rank" else sort,
        "desc": None if desc is None else str(desc).lower(),
        "page": number if number > 1 else None,
    }  # fmt: skip

    def href(**changes: Any) -> str:
        query = {k: v for k, v in {**state, **changes}.items() if v is not None}
        if "desc" in changes and changes["desc"] is not None:
            query["desc"] = str(changes["desc"]).lower()
        return action + ("?" + urlencode(query) if query else "")

    pages = max(1, -(-shown.total // shown.per_page))
    headings = [*HEADINGS, *([(None, "Active", "opt")] if everyone else [])]
    return page(
        "ranking.html.j2",
        title=f"{'Players' if section == 'players' else 'World ranking'} {shown.period}",
        page=shown, action=action, search=search, country=country, title_filter=title,
        everyone=everyone, sort=sort, descending=descending, sorts=SORTS, headings=headings,
        href=href, pages=pages, current=number, section=section, footer=footer, cap=COUNT_CAP,
        pending=pending,
    )  # fmt: skip


@router.get(
    "/",
    response_class=HTMLResponse,
    summary="The latest published list as a page: searched, filtered, sorted and paged",
    responses={200: {"content": {"text/html": TEXT}}, **error_responses(422)},
)
def home(
    engine: Database,
    options: Options,
    search: Search = "",
    country: Country = "",
    title: Title = "",
    everyone: Everyone = False,
    sort: Sort = "rank",
    desc: Descending = None,
    number: Annotated[int, Query(alias="page", ge=1, le=1_000_000)] = 1,
) -> Response:
    return _list_view(
        engine, options, None, "/", section="list", search=search, country=country,
        title=title, everyone=everyone, sort=sort, desc=desc, number=number,
    )  # fmt: skip


@router.get(
    "/players",
    response_class=HTMLResponse,
    summary="Every player of the latest list, inactive ones too: search by name or id",
    responses={200: {"content": {"text/html": TEXT}}, **error_responses(422)},
)
def players_search(
    engine: Database,
    options: Options,
    search: Search = "",
    country: Country = "",
    title: Title = "",
    everyone: Everyone = True,
    sort: Sort = "rank",
    desc: Descending = None,
    number: Annotated[int, Query(alias="page", ge=1, le=1_000_000)] = 1,
) -> Response:
    return _list_view(
        engine, options, None, "/players", section="players", search=search, country=country,
        title=title, everyone=everyone, sort=sort, desc=desc, number=number,
    )  # fmt: skip


def _archive(engine: Engine) -> Response:
    with engine.connect() as connection:
        versions = list_archive(connection)
        footer = newest_footer(connection)
    return page(
        "lists.html.j2", title="Published rating lists", versions=versions, section="lists",
        footer=footer,
    )  # fmt: skip


def _lists_json(engine: Engine) -> Response:
    with engine.connect() as connection:
        frame = published_lists(connection)
    return file_response(lambda stream: write_json(frame, stream), "json", "lists")


def _wants_json(accept: str) -> bool:
    """True when ``Accept`` asks for JSON and not for a page (a program, not a browser)."""
    media = [part.split(";")[0].strip().lower() for part in accept.split(",")]
    return "application/json" in media and "text/html" not in media


@router.get(
    "/lists",
    summary="Every published list: the archive page, or JSON for a client that asks for it",
    description=(
        "The page shows each list's date, cut-off, players, mean and drift, its versions with "
        "their changes, and its files. A request whose `Accept` names `application/json` and not "
        "`text/html` gets the JSON of `/lists.json`."
    ),
    response_class=HTMLResponse,
    responses={200: {"content": {"text/html": TEXT, "application/json": array_of(PublishedList)}}},
)
def lists_page(
    engine: Database, accept: Annotated[str, Header(include_in_schema=False)] = ""
) -> Response:
    return _lists_json(engine) if _wants_json(accept) else _archive(engine)


@router.get(
    "/lists.json",
    summary="Every published list (JSON)",
    response_class=JSONResponse,
    responses={200: {"content": {"application/json": array_of(PublishedList)}}},
)
def lists(engine: Database) -> Response:
    return _lists_json(engine)


@router.get(
    "/lists.html",
    summary="The archive page's former address: a permanent redirect to /lists",
    response_class=RedirectResponse,
    status_code=308,
    responses={308: {"description": "To `/lists`"}},
)
def lists_html() -> Response:
    return RedirectResponse("/lists", status_code=308)


@router.get(
    "/lists/{period}/diff/{old}",
    response_class=HTMLResponse,
    summary="What changed from one published list to another",
    responses={200: {"content": {"text/html": TEXT}}, **error_responses(404, 422)},
)
def list_changes(
    period: Annotated[str, Path(pattern=LIST_NAME, description="The newer list")],
    old: Annotated[str, Path(pattern=LIST_NAME, description="The older list")],
    engine: Database,
    options: Options,
    exact: Annotated[
        bool,
        Query(description="Exact ratings and changes (10 decimals) instead of whole points"),
    ] = False,
) -> Response:
    with engine.connect() as connection:
        frame = list_diff(connection, old, period, rounding=options.lists.rounding, exact=exact)
        footer = newest_footer(connection)
    unit = "in their exact ratings" if exact else "in whole points, as the lists show them"
    return page(
        "diff.html.j2", frame, title=f"Changes from {old} to {period}",
        subtitle=f"{counted(frame.height, 'player differs', 'players differ')} {unit}",
        action=f"/lists/{quote(period)}/diff/{quote(old)}", exact=exact, section="lists",
        footer=footer,
    )  # fmt: skip


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


# After the file route: a period with a format is a file, one without it the page.
@router.get(
    "/lists/{period}",
    response_class=HTMLResponse,
    summary="One published list as a page: searched, filtered, sorted and paged",
    responses={200: {"content": {"text/html": TEXT}}, **error_responses(404, 422)},
)
def list_view(
    period: Annotated[
        str,
        Path(pattern=LIST_NAME, description="YYYY-MM (its newest version) or YYYY-MM@N"),
    ],
    engine: Database,
    options: Options,
    search: Search = "",
    country: Country = "",
    title: Title = "",
    everyone: Everyone = False,
    sort: Sort = "rank",
    desc: Descending = None,
    number: Annotated[int, Query(alias="page", ge=1, le=1_000_000)] = 1,
) -> Response:
    return _list_view(
        engine, options, period, f"/lists/{quote(period)}", section="lists", search=search,
        country=country, title=title, everyone=everyone, sort=sort, desc=desc, number=number,
    )  # fmt: skip
