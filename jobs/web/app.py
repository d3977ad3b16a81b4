"""The routes of the web service: each one parses its parameters and calls a job or an exporter."""

from __future__ import annotations

import io
import re
import threading
from collections.abc import Callable
from typing import IO, Annotated, Any, Literal

import polars as pl
from fastapi import FastAPI, File, Form, HTTPException, Path, Query, UploadFile
from fastapi.responses import HTMLResponse, JSONResponse, Response
from sqlalchemy import text
from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError

from exporters.documents import write_history, write_ranking
from exporters.html import render
from exporters.seeding_documents import write_seed
from exporters.writers import write_json
from importers.formats import table_format
from jobs.documents import player_history, published_lists, published_ranking
from jobs.seeding import seed, seeding_options
from jobs.web.errors import error_responses, install, size_text, upload_limit_text
from jobs.web.limits import BodyLimit
from jobs.web.models import BINARY, TEXT, Health, HistoryRow, PublishedList, RankingRow, array_of
from ratings.errors import SeedingOptionError
from ratings.settings import Settings
from ratings.storage import repository as repo

ListFormat = Literal["csv", "xlsx", "json", "html"]
HistoryFormat = Literal["json", "csv", "xlsx", "html", "svg", "png"]
SeedFormat = Literal["json", "csv", "xlsx", "html"]

MEDIA_TYPES = {
    "csv": "text/csv; charset=utf-8",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "json": "application/json",
    "html": "text/html; charset=utf-8",
    "svg": "image/svg+xml",
    "png": "image/png",
}
DOWNLOADS = ("csv", "xlsx")
"""Formats served as attachments: a browser saves them rather than showing them."""

ENVELOPE = 64 * 1024
"""Room for the multipart boundaries and the small form fields around an uploaded file, so that
a file just under the upload limit is not refused for its wrapping."""

_CHARTS = threading.Lock()
"""matplotlib's pyplot keeps global state, and sync routes run in a thread pool: one chart at a
time."""

_UNSAFE_IN_FILENAME = re.compile(r"[^A-Za-z0-9@._-]")

PLAYER_ID = r"^[^\x00-\x1f\x7f]+$"
"""A federation id has no control characters, and PostgreSQL refuses a NUL in any text."""
PAGE_PLAYER_ID = r"^[^.\x00-\x1f\x7f]+$"
"""An id with a dot in it is the file route's (``/players/12.json``)."""
LIST_NAME = r"^[0-9]{4}-[0-9]{2}(@[0-9]{1,9})?$"
"""A list's name as the routes accept it. ASCII digits and a bounded version: the lookup behind it
would take a superscript ``²`` for a digit, and SQLite cannot compare a version past 64 bits."""


def create_app(engine: Engine, settings: Settings) -> FastAPI:
    """The read-only web service over ``engine``: published lists, player histories, seed lists."""
    app = FastAPI(
        title="Rating lists",
        version="1",
        description=(
            "Published rating lists, player histories and first-round seed lists. Read-only: "
            "importing and publishing stay with the rating officer's command line."
        ),
        # The interactive docs pages load their scripts from a CDN; the schema is enough.
        docs_url=None,
        redoc_url=None,
    )
    limit = settings.upload_limit_bytes
    install(app, upload_limit=limit)
    app.add_middleware(BodyLimit, limit=limit + ENVELOPE, shown=limit)

    @app.get(
        "/",
        response_class=HTMLResponse,
        summary="The latest published list as a page",
        responses={200: {"content": {"text/html": TEXT}}},
    )
    def home() -> Response:
        with engine.connect() as connection:
            latest = repo.latest_list(connection)
            if latest is None:
                return _page(
                    "message.html.j2",
                    title="No list published yet",
                    message="The rating officer has not published a rating list yet.",
                )
            name = f"{latest.period}@{latest.version}"
            document = published_ranking(
                connection, name, everyone=False, rounding=settings.rounding
            )
        return _file(lambda stream: write_ranking(document, "html", stream), "html", "ranking")

    @app.get(
        "/lists",
        summary="Every published list (JSON)",
        response_class=JSONResponse,
        responses={200: {"content": {"application/json": array_of(PublishedList)}}},
    )
    def lists() -> Response:
        with engine.connect() as connection:
            frame = published_lists(connection)
        return _file(lambda stream: write_json(frame, stream), "json", "lists")

    @app.get(
        "/lists.html",
        summary="Every published list (a page with links to its files)",
        response_class=HTMLResponse,
        responses={200: {"content": {"text/html": TEXT}}},
    )
    def lists_page() -> Response:
        with engine.connect() as connection:
            frame = published_lists(connection)
        return _page("lists.html.j2", frame, title="Published rating lists")

    @app.get(
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
        everyone: Annotated[
            bool, Query(alias="all", description="Everyone, with an `active` column")
        ] = False,
    ) -> Response:
        with engine.connect() as connection:
            document = published_ranking(
                connection, period, everyone=everyone, rounding=settings.rounding
            )
        return _file(lambda stream: write_ranking(document, fmt, stream), fmt, f"ranking-{period}")

    @app.get(
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
            **error_responses(404, 422),
        },
    )
    def player_file(
        player_id: Annotated[str, Path(pattern=PLAYER_ID, description="Federation id")],
        fmt: HistoryFormat,
    ) -> Response:
        with engine.connect() as connection:
            document = player_history(connection, player_id)
        with _CHARTS:
            return _file(
                lambda stream: write_history(document, fmt, stream), fmt, f"player-{player_id}"
            )

    @app.get(
        "/players/{player_id}",
        summary="A player's history as a page with the rating chart",
        response_class=HTMLResponse,
        responses={200: {"content": {"text/html": TEXT}}, **error_responses(404, 422)},
    )
    def player_page(
        player_id: Annotated[
            str,
            Path(pattern=PAGE_PLAYER_ID, description="Federation id; add .json etc. for files"),
        ],
    ) -> Response:
        return player_file(player_id, "html")

    @app.get(
        "/seed",
        summary="A form for a person to upload a participant file",
        response_class=HTMLResponse,
        responses={200: {"content": {"text/html": TEXT}}},
    )
    def seed_form() -> Response:
        with engine.connect() as connection:
            frame = published_lists(connection)
        return _page(
            "seed_form.html.j2",
            title="Seed list for the first round",
            lists=frame["list"].reverse().to_list(),
            limit=size_text(limit),
        )

    @app.post(
        "/seed",
        summary="The seed list (or round-1 pairing) of an uploaded participant file",
        response_class=Response,
        responses={
            200: {
                "description": "The seed list or pairing; CSV and XLSX come as attachments",
                "content": {
                    MEDIA_TYPES["json"]: {"schema": {"type": "array", "items": {"type": "object"}}},
                    MEDIA_TYPES["csv"]: TEXT,
                    MEDIA_TYPES["xlsx"]: BINARY,
                    MEDIA_TYPES["html"]: TEXT,
                },
            },
            **error_responses(400, 404, 413, 422),
        },
    )
    def seed_list(
        file: Annotated[
            UploadFile,
            File(description="Participant list: CSV, XLSX, JSON or Parquet (see SPEC 7)"),
        ],
        system: Annotated[Literal["swiss", "mcmahon"], Form()],
        pairings: Annotated[bool, Form(description="The round-1 pairing instead")] = False,
        fmt: Annotated[SeedFormat, Form(alias="format")] = "json",
        bar: Annotated[
            str | None, Form(description="McMahon bar: a Go rank (4d) or a score")
        ] = None,
        floor: Annotated[
            str | None, Form(description="McMahon floor: a Go rank (20k) or a score")
        ] = None,
        mms_from: Annotated[
            Literal["rank", "rating"],
            Form(description="McMahon: initial scores from the file's Go ranks or from ratings"),
        ] = "rank",
        first_board: Annotated[Literal["white", "black"], Form()] = "white",
        period: Annotated[
            str | None,
            Form(
                alias="list",
                pattern=f"({LIST_NAME})|^$",
                description="The published list to seed from (YYYY-MM or YYYY-MM@N); "
                "default the newest, or the live ratings when none is published",
            ),
        ] = None,
    ) -> Response:
        data = file.file.read(limit + 1)
        if len(data) > limit:
            raise HTTPException(413, upload_limit_text(limit))
        source = file.filename or "upload"
        try:
            options = seeding_options(
                settings, first_board=first_board, mms_from=mms_from, bar=bar, floor=floor
            )
        except SeedingOptionError as error:
            raise HTTPException(422, str(error)) from None
        with engine.connect() as connection:
            if not period:
                latest = repo.latest_list(connection)
                period = None if latest is None else f"{latest.period}@{latest.version}"
            try:
                document = seed(
                    connection, data, source, table_format(source, data),
                    system=system, pairings=pairings, period=period, options=options,
                )  # fmt: skip
            except SeedingOptionError as error:
                # The seeding job's word for options that cannot work together.
                raise HTTPException(422, str(error)) from None
        stem = "pairing" if pairings else "seeds"
        return _file(lambda stream: write_seed(document, fmt, stream), fmt, stem)

    @app.get(
        "/health",
        summary="Whether the service and its database answer",
        responses={503: {"model": Health, "description": "The database does not answer"}},
    )
    def health() -> JSONResponse:
        try:
            with engine.connect() as connection:
                connection.execute(text("SELECT 1"))
        except SQLAlchemyError:
            body = Health(status="unavailable", database="unreachable")
            return JSONResponse(body.model_dump(), status_code=503)
        return JSONResponse(Health(status="ok", database="ok").model_dump())

    return app


def _file(write: Callable[[IO[bytes]], None], fmt: str, stem: str) -> Response:
    stream = io.BytesIO()
    write(stream)
    headers = {}
    if fmt in DOWNLOADS:
        filename = _UNSAFE_IN_FILENAME.sub("_", stem)
        headers["Content-Disposition"] = f'attachment; filename="{filename}.{fmt}"'
    return Response(stream.getvalue(), media_type=MEDIA_TYPES[fmt], headers=headers)


def _page(template: str, frame: pl.DataFrame | None = None, **context: Any) -> HTMLResponse:
    return HTMLResponse(render(template, pl.DataFrame() if frame is None else frame, **context))
