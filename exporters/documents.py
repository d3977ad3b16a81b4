"""What the service publishes, in every format: a ranking (live or a published list) and a
player's history. Builders give rows; this module picks the writer for the format, and loads the
HTML and workbook writers (Jinja, rust_xlsxwriter) only for a document written in their format."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import IO

import polars as pl

from exporters.charts import histogram_svg, history_chart
from exporters.formats import HISTORY_FORMATS, RANKING_FORMATS
from exporters.history import history_text
from exporters.writers import write_csv, write_json, write_text
from ratings.rounding import Rounding


@dataclass(frozen=True, slots=True)
class RankingDocument:
    rows: pl.DataFrame
    title: str
    subtitle: str
    stats: Sequence[tuple[str, str]]


def write_ranking(
    document: RankingDocument, fmt: str, stream: IO[bytes], *, limit: int | None = None
) -> None:
    rows = document.rows
    if fmt == "csv":
        write_csv(rows, stream)
    elif fmt == "json":
        write_json(rows, stream)
    elif fmt == "xlsx":
        from exporters.xlsx import write_xlsx

        write_xlsx(rows, stream, sheet="ranking")
    elif fmt == "html":
        from exporters.html import write_list_html

        histogram = histogram_svg(rows["rating"].drop_nulls().to_list())
        write_list_html(
            rows, stream, title=document.title, subtitle=document.subtitle,
            stats=document.stats, histogram=histogram,
        )  # fmt: skip
    elif fmt == "text":
        write_text(rows, stream, limit=limit)
    else:
        raise ValueError(f"format must be one of {', '.join(RANKING_FORMATS)}, not {fmt!r}")


@dataclass(frozen=True, slots=True)
class HistoryDocument:
    rows: pl.DataFrame
    title: str
    subtitle: str
    days: Sequence[date]
    ratings: Sequence[float]
    rounding: str = Rounding.HALF_UP
    """How the whole ratings of the text form are rounded from the exact ones."""


def write_history(document: HistoryDocument, fmt: str, stream: IO[bytes]) -> None:
    if fmt in ("svg", "png"):
        stream.write(history_chart(document.days, document.ratings, title=document.title, fmt=fmt))
    elif fmt == "html":
        from exporters.html import write_history_html

        chart = history_chart(document.days, document.ratings, title=document.title, fmt="svg")
        svg = chart.decode("utf-8")
        svg = svg[svg.index("<svg") :]
        write_history_html(
            document.rows, stream, title=document.title, subtitle=document.subtitle, chart=svg,
            rounding=document.rounding,
        )  # fmt: skip
    elif fmt == "csv":
        write_csv(document.rows, stream)
    elif fmt == "json":
        write_json(document.rows, stream)
    elif fmt == "xlsx":
        from exporters.xlsx import write_xlsx

        write_xlsx(document.rows, stream, sheet="history")
    elif fmt == "text":
        stream.write(f"{document.title}\n{document.subtitle}\n".encode())
        write_text(history_text(document.rows, document.rounding), stream)
    else:
        raise ValueError(f"format must be one of {', '.join(HISTORY_FORMATS)}, not {fmt!r}")
