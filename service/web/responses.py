"""What the routes answer with: files in a format, and the web service's own pages.

The pages that only the web service shows (the navigation, the list of lists, the upload form,
messages) have their templates in ``service/web/templates``; they extend the exported pages'
``base.html.j2``, so the site and the files it serves look alike.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from typing import IO, Annotated, Any, cast

import jinja2
import polars as pl
from fastapi import Depends, Request
from fastapi.responses import HTMLResponse, Response
from sqlalchemy.engine import Engine

from exporters.html import TEMPLATES, page_environment, render_in
from ratings.wording import counted
from service.settings import WebOptions

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

_UNSAFE_IN_FILENAME = re.compile(r"[^A-Za-z0-9@._-]")

_PAGES = page_environment(
    jinja2.ChoiceLoader([jinja2.PackageLoader("service.web", "templates"), TEMPLATES])
)
# A count with its noun in the right number: {{ n | counted('warning') }}.
_PAGES.filters["counted"] = counted


def _engine(request: Request) -> Engine:
    return cast(Engine, request.app.state.engine)


def _options(request: Request) -> WebOptions:
    return cast(WebOptions, request.app.state.options)


Database = Annotated[Engine, Depends(_engine)]
"""A route's parameter for the database the app was made for."""
Options = Annotated[WebOptions, Depends(_options)]
"""A route's parameter for the options the app was made with."""


def file_response(write: Callable[[IO[bytes]], None], fmt: str, stem: str) -> Response:
    stream = io.BytesIO()
    write(stream)
    headers = {}
    if fmt in DOWNLOADS:
        filename = _UNSAFE_IN_FILENAME.sub("_", stem)
        headers["Content-Disposition"] = f'attachment; filename="{filename}.{fmt}"'
    return Response(stream.getvalue(), media_type=MEDIA_TYPES[fmt], headers=headers)


def render(template: str, frame: pl.DataFrame | None = None, **context: Any) -> str:
    """One of the web service's pages, or an exported one."""
    return render_in(_PAGES, template, pl.DataFrame() if frame is None else frame, **context)


def page(template: str, frame: pl.DataFrame | None = None, **context: Any) -> HTMLResponse:
    return HTMLResponse(render(template, frame, **context))
