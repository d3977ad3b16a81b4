"""Seed lists for an event's first round: the upload form, and the seed list or pairing of an
uploaded participant file."""

from __future__ import annotations

import base64
import io
from typing import Annotated, Literal

import polars as pl
from fastapi import APIRouter, File, Form, HTTPException, UploadFile
from fastapi.responses import HTMLResponse, Response

from exporters.seeding_documents import SeedDocument, write_seed
from importers.formats import table_format
from jobs.queries import ListFooter, newest_footer, newest_list, published_lists
from jobs.seeding import seed, seeding_options
from ratings.errors import SeedingOptionError
from service.web.errors import error_responses, size_text, upload_limit_text
from service.web.gates import Seeding
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
        footer = newest_footer(connection)
    return page(
        "seed_form.html.j2",
        section="seed",
        footer=footer,
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
        **error_responses(400, 404, 408, 413, 422, 503),
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
    seeding: Seeding,
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
    handicap: Annotated[
        int,
        Form(ge=0, le=9, description="McMahon: the most handicap a game gets; 0 an even event"),
    ] = 0,
    handicap_correction: Annotated[
        int, Form(ge=0, le=9, description="McMahon: handicap is the difference less this")
    ] = 1,
    handicap_threshold: Annotated[
        str | None,
        Form(max_length=8, description="McMahon: a Go rank from which up nobody gets handicap"),
    ] = None,
    handicap_from: Annotated[
        Literal["mms", "rank"],
        Form(description="McMahon: handicap from the initial scores' or the ranks' difference"),
    ] = "mms",
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
    # Decoding and seeding hold a file's rows in memory: a few at a time (the file's limits
    # bound each), the rest are asked to come back (service.web.gates).
    with seeding.entered():
        limit = web.upload_limit
        data = file.file.read(limit + 1)
        if len(data) > limit:
            raise HTTPException(413, upload_limit_text(limit))
        source = file.filename or "upload"
        try:
            options = seeding_options(
                web.lists, first_board=first_board, mms_from=mms_from, bar=bar, floor=floor,
                handicap=handicap, handicap_correction=handicap_correction,
                handicap_threshold=handicap_threshold, handicap_from=handicap_from,
            )  # fmt: skip
        except SeedingOptionError as error:
            raise HTTPException(422, str(error)) from None
        with engine.connect() as connection:
            if not period:
                period = newest_list(connection)
            table = table_format(source, data)
            try:
                document = seed(
                    connection, data, source, table,
                    system=system, pairings=pairings, period=period, options=options,
                )  # fmt: skip
                # A pairing page shows each player's seed list line (rating, rank, MMS) too.
                seeds = (
                    seed(
                        connection,
                        data,
                        source,
                        table,
                        system=system,
                        pairings=False,
                        period=period,
                        options=options,
                    ).rows
                    if pairings and fmt == "html"
                    else document.rows
                )
            except SeedingOptionError as error:
                # The seeding job's word for options that cannot work together.
                raise HTTPException(422, str(error)) from None
            footer = newest_footer(connection)
        stem = "pairing" if pairings else "seeds"
        if fmt == "html":
            return _result_page(document, seeds, stem, system, footer, options.handicapped)
        return file_response(lambda stream: write_seed(document, fmt, stream), fmt, stem)


SEED_HEADINGS = (
    ("seed", "Seed", "num"), ("player_id", "Id", "opt"), ("name", "Name", "name"),
    ("country", "Country", ""), ("title", "Title", "opt"), ("rank", "Rank", ""),
    ("rating", "Rating", "num"), ("class", "Class", "opt"), ("mms", "MMS", "num"),
    ("bye", "Bye", "opt"),
)  # fmt: skip
"""The seed list's columns as the page heads them; a column empty for everyone is left out."""


def _result_page(
    document: SeedDocument,
    seeds: pl.DataFrame,
    stem: str,
    system: str,
    footer: ListFooter | None,
    handicapped: bool = False,
) -> Response:
    downloads = []
    for fmt in ("csv", "xlsx", "json"):
        stream = io.BytesIO()
        write_seed(document, fmt, stream)
        encoded = base64.b64encode(stream.getvalue()).decode("ascii")
        downloads.append((fmt, f"data:{MEDIA_TYPES[fmt]};base64,{encoded}"))
    headings = [
        h for h in SEED_HEADINGS
        if h[0] in seeds.columns and ((h[0] == "bye" and seeds[h[0]].any()) or h[0] != "bye")
        and seeds[h[0]].null_count() < seeds.height
    ]  # fmt: skip
    boards = []
    if document.pairings:
        lines = {row["seed"]: row for row in seeds.iter_rows(named=True)}
        for board in document.rows.iter_rows(named=True):
            for side in ("white", "black"):
                line = lines.get(board[f"{side}_seed"], {})
                board[f"{side}_rating"] = line.get("rating")
                board[f"{side}_rank"] = line.get("rank")
                board[f"{side}_mms"] = line.get("mms")
            boards.append(board)
    return page(
        "seed_result.html.j2", title=document.title, subtitle=document.subtitle,
        pairings=document.pairings, seeds=list(seeds.iter_rows(named=True)), headings=headings,
        boards=boards, mcmahon=system == "mcmahon", first="White", second="Black",
        handicapped=handicapped and system == "mcmahon",
        downloads=downloads, stem=stem, section="seed", footer=footer,
        warnings=[str(warning) for warning in document.warnings],
    )  # fmt: skip
