"""Seed lists for an event's first round: the upload form, and the seed list or pairing of an
uploaded participant file."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, File, Form, HTTPException, UploadFile
from fastapi.responses import HTMLResponse, Response

from exporters.seeding_documents import write_seed
from importers.formats import table_format
from jobs.queries import newest_list, published_lists
from jobs.seeding import seed, seeding_options
from ratings.errors import SeedingOptionError
from service.web.errors import error_responses, size_text, upload_limit_text
from service.web.lists import LIST_NAME
from service.web.models import BINARY, TEXT
from service.web.responses import MEDIA_TYPES, Database, Options, file_response, page

SeedFormat = Literal["json", "csv", "xlsx", "html"]

router = APIRouter()


@router.get(
    "/seed",
    summary="A form for a person to upload a participant file",
    response_class=HTMLResponse,
    responses={200: {"content": {"text/html": TEXT}}},
)
def seed_form(engine: Database, web: Options) -> Response:
    with engine.connect() as connection:
        frame = published_lists(connection)
    return page(
        "seed_form.html.j2",
        title="Seed list for the first round",
        lists=frame["list"].reverse().to_list(),
        limit=size_text(web.upload_limit),
    )


@router.post(
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
    engine: Database,
    web: Options,
    pairings: Annotated[bool, Form(description="The round-1 pairing instead")] = False,
    fmt: Annotated[SeedFormat, Form(alias="format")] = "json",
    bar: Annotated[str | None, Form(description="McMahon bar: a Go rank (4d) or a score")] = None,
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
    limit = web.upload_limit
    data = file.file.read(limit + 1)
    if len(data) > limit:
        raise HTTPException(413, upload_limit_text(limit))
    source = file.filename or "upload"
    try:
        options = seeding_options(
            web.lists, first_board=first_board, mms_from=mms_from, bar=bar, floor=floor
        )
    except SeedingOptionError as error:
        raise HTTPException(422, str(error)) from None
    with engine.connect() as connection:
        if not period:
            period = newest_list(connection)
        try:
            document = seed(
                connection, data, source, table_format(source, data),
                system=system, pairings=pairings, period=period, options=options,
            )  # fmt: skip
        except SeedingOptionError as error:
            # The seeding job's word for options that cannot work together.
            raise HTTPException(422, str(error)) from None
    stem = "pairing" if pairings else "seeds"
    return file_response(lambda stream: write_seed(document, fmt, stream), fmt, stem)
