"""Seed lists for an event's first round: the upload form, and the seed list or pairing of an
uploaded participant file."""

from __future__ import annotations

import base64
import binascii
import io
import re
import zlib
from collections.abc import Mapping
from typing import Annotated, Literal

import polars as pl
from fastapi import APIRouter, Depends, File, Form, HTTPException, Request, UploadFile
from fastapi.responses import HTMLResponse, Response
from sqlalchemy.engine import Connection

from exporters.seeding_documents import SeedDocument, write_seed
from importers.formats import table_format
from jobs.queries import ListFooter, newest_footer, newest_list, published_lists
from jobs.seeding import seed, seeding_options
from ratings.errors import (
    MAX_SHOWN,
    InputError,
    RatingsError,
    SeedingOptionError,
    UnclearParticipantsError,
)
from service.settings import WebOptions
from service.web.auth import csrf_token
from service.web.errors import error_responses, problem_body, size_text, upload_limit_text
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
def seed_form(request: Request, engine: Database, web: Options) -> Response:
    with engine.connect() as connection:
        return _form_page(connection, web, csrf=_csrf(request))


def _csrf(request: Request) -> str | None:
    """The form's CSRF token for a browser that has cookies (a session, or the token's own); a
    caller without cookies is not asked for one, as nothing of theirs can be misused."""
    return csrf_token(request) if request.cookies else None


ANSWER = re.compile(r"line_(\d{1,9})")
"""A form field answering for a participant the list does not settle: ``line_N`` (the line of
the file) with a player_id, or ``new`` for a newcomer."""


async def _answers(request: Request) -> dict[int, str]:
    """The director's answers among the form's fields (FastAPI has read the form already)."""
    form = await request.form()
    answers: dict[int, str] = {}
    for key, value in form.multi_items():
        match = ANSWER.fullmatch(key)
        if match and isinstance(value, str) and value.strip():
            answers[int(match[1])] = value.strip()
    return answers


Answers = Annotated[dict[int, str], Depends(_answers)]

KEPT_LIMIT = 1024 * 1024
"""Most characters of a kept file in the form: the size of a form field the server reads
(Starlette's ``max_part_size``). A larger file is asked for again."""


def keep(data: bytes) -> str | None:
    """A participant file as the form keeps it between answers (compressed, base64), or None
    when it would not fit in a form field."""
    packed = base64.b64encode(zlib.compress(data, 6)).decode("ascii")
    return packed if len(packed) <= KEPT_LIMIT else None


def unkeep(text: str, limit: int) -> bytes:
    """The participant file a form kept; at most ``limit`` bytes, as an upload."""
    try:
        packed = base64.b64decode(text, validate=True)
        inflate = zlib.decompressobj()
        data = inflate.decompress(packed, limit + 1)
    except (binascii.Error, zlib.error, ValueError):
        raise HTTPException(422, KEPT_DAMAGED) from None
    if len(data) > limit:
        raise HTTPException(413, upload_limit_text(limit))
    if not inflate.eof:
        raise HTTPException(422, KEPT_DAMAGED)
    return data


KEPT_DAMAGED = "the participant file kept in the form is damaged: choose the file again"


@router.post(
    "/seed",
    summary="The seed list (or round-1 pairing) of an uploaded participant file",
    description="Participants the list does not settle (a name several players have, or one "
    "only part of or close to players' names) are answered with fields `line_N` (N the "
    "participant's line in the file): a player_id, or `new` for a newcomer. A page asked for "
    "in HTML shows the form again with the candidates, or with the problems, what was entered "
    "kept (the file too, in the field `kept`, named by `kept_name`).",
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
    request: Request,
    system: Annotated[Literal["swiss", "mcmahon"], Form()],
    engine: Database,
    web: Options,
    seeding: Seeding,
    answers: Answers,
    file: Annotated[
        UploadFile | None,
        File(description="Participant list: CSV, XLSX, JSON or Parquet (see SPEC 7)"),
    ] = None,
    kept: Annotated[
        str | None,
        Form(description="The participant file the form kept, when no file is uploaded again"),
    ] = None,
    kept_name: Annotated[str | None, Form(description="The kept file's name")] = None,
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
    unrated: Annotated[
        Literal["initial", "last"],
        Form(
            description="Swiss: players without a rating at the initial rating among the rated, "
            "or seeded after every rated player (by title, then name)"
        ),
    ] = "initial",
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
    entered = {
        "system": system, "pairings": pairings, "format": fmt, "bar": bar or "",
        "floor": floor or "", "mms_from": mms_from, "handicap": handicap,
        "handicap_correction": handicap_correction,
        "handicap_threshold": handicap_threshold or "", "handicap_from": handicap_from,
        "first_board": first_board, "list": period or "", "unrated": unrated,
    }  # fmt: skip
    html = "text/html" in request.headers.get("accept", "")
    # Decoding and seeding hold a file's rows in memory: a few at a time (the file's limits
    # bound each), the rest are asked to come back (service.web.gates).
    with seeding.entered():
        limit = web.upload_limit
        data = b"" if file is None else file.file.read(limit + 1)
        # A form sent without a file chosen has a file field with no name and no bytes.
        source = "" if file is None else (file.filename or "")
        if not data and not source and kept:
            data, source = unkeep(kept, limit), (kept_name or "upload")[:255]
        with engine.connect() as connection:
            try:
                if len(data) > limit:
                    raise HTTPException(413, upload_limit_text(limit))
                if not data and not source:
                    raise HTTPException(422, "choose the participant file to seed")
                options = seeding_options(
                    web.lists, first_board=first_board, mms_from=mms_from, bar=bar,
                    floor=floor, handicap=handicap, handicap_correction=handicap_correction,
                    handicap_threshold=handicap_threshold, handicap_from=handicap_from,
                    review_score=web.review_score, unrated=unrated,
                )  # fmt: skip
                if not period:
                    period = newest_list(connection)
                table = table_format(source, data)
                document = seed(
                    connection, data, source, table, system=system, pairings=pairings,
                    period=period, options=options, answers=answers,
                )  # fmt: skip
                # A pairing page shows each player's seed list line (rating, rank, MMS) too.
                seeds = (
                    seed(
                        connection, data, source, table, system=system, pairings=False,
                        period=period, options=options, answers=answers,
                    ).rows
                    if pairings and fmt == "html"
                    else document.rows
                )  # fmt: skip
            except (RatingsError, HTTPException) as error:
                if not html:
                    if isinstance(error, SeedingOptionError):
                        # The seeding job's word for options that cannot work together.
                        raise HTTPException(422, str(error)) from None
                    raise
                # A person at the form gets the form again, what they entered kept, with what
                # went wrong or the players to choose from.
                return _form_page(
                    connection, web, entered=entered, error=error, answers=answers,
                    kept=(source, keep(data))
                    if data and len(data) <= limit and not isinstance(error, InputError)
                    else None,
                    csrf=_csrf(request),
                )  # fmt: skip
            footer = newest_footer(connection)
        stem = "pairing" if pairings else "seeds"
        if fmt == "html":
            return _result_page(document, seeds, stem, system, footer, options.handicapped)
        return file_response(lambda stream: write_seed(document, fmt, stream), fmt, stem)


DEFAULTS: dict[str, object] = {
    "system": "swiss", "pairings": False, "format": "html", "bar": "", "floor": "",
    "mms_from": "rank", "handicap": 0, "handicap_correction": 1, "handicap_threshold": "",
    "handicap_from": "mms", "first_board": "white", "list": "", "unrated": "initial",
}  # fmt: skip
"""What the form shows before anything is entered."""


def _form_page(
    connection: Connection,
    web: WebOptions,
    *,
    entered: Mapping[str, object] | None = None,
    error: Exception | None = None,
    answers: Mapping[int, str] | None = None,
    kept: tuple[str, str | None] | None = None,
    csrf: str | None = None,
) -> Response:
    """The upload form; after a refusal, with what was entered, the file kept when it fits,
    and what went wrong: the problems of the file, or the participants to choose players for."""
    lists = published_lists(connection)["list"].reverse().to_list()
    values = {**DEFAULTS, **(entered or {})}
    if not values["list"] and lists:
        values["list"] = lists[0]
    status, title, message, problems, unclear = 200, "Seed list for the first round", "", [], []
    if isinstance(error, UnclearParticipantsError):
        status, unclear = 422, list(error.unclear)
        count = len(unclear)
        title = f"Choose who the participant{'s are' if count != 1 else ' is'}"
        message = (
            f"{count} participant{'s' if count != 1 else ''} of the file may be "
            f"{'players' if count != 1 else 'a player'} of the rating list: choose who "
            f"{'each one' if count != 1 else 'it'} is, or a newcomer, then make the list again."
        )
    elif isinstance(error, InputError):
        status, title = 422, "The participant file has problems"
        shown = error.problems[:MAX_SHOWN]
        message = f"{len(error.problems)} problem{'s' if len(error.problems) != 1 else ''} found in the file"
        if len(error.problems) > MAX_SHOWN:
            message += f" (the first {MAX_SHOWN} are listed)"
        message += ": correct the file and choose it again."
        problems = [problem_body(p) for p in shown]
    elif isinstance(error, SeedingOptionError):
        status, title = 422, "These options cannot work together"
        message = f"{sentence(str(error))}."
    elif isinstance(error, HTTPException):
        status = error.status_code
        title = "The file is too large" if status == 413 else "The seed list could not be made"
        message = f"{sentence(str(error.detail))}."
    elif isinstance(error, RatingsError):
        status, title, message = 400, "The seed list could not be made", f"{sentence(str(error))}."
    name, packed = kept or (None, None)
    response = page(
        "seed_form.html.j2",
        section="seed",
        footer=newest_footer(connection),
        title=title,
        message=message,
        problems=problems,
        unclear=unclear,
        answers=answers or {},
        values=values,
        kept_name=name if packed else None,
        kept=packed,
        lost=name if kept and not packed else None,
        lists=lists,
        limit=size_text(web.upload_limit),
        csrf=csrf,
    )
    response.status_code = status
    return response


def sentence(text: str) -> str:
    """A message as the start of a sentence."""
    return text[:1].upper() + text[1:]


SEED_HEADINGS = (
    ("seed", "Seed", "num"), ("player_id", "Id", "opt"), ("name", "Name", "name"),
    ("country", "Country", ""), ("title", "Title", "opt"), ("rank", "Rank", ""),
    ("rating", "Rating", "num"), ("class", "Class", "opt"), ("mms", "MMS", "num"),
    ("group", "Group", "opt"), ("bye", "Bye", "opt"),
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
        warnings=document.warnings,
    )  # fmt: skip
