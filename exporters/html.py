"""Self-contained HTML pages (no network: styles, scripts and charts are inline), printable."""

from __future__ import annotations

from collections.abc import Sequence
from typing import IO, Any

import jinja2
import polars as pl

_ENVIRONMENT = jinja2.Environment(
    loader=jinja2.PackageLoader("exporters", "templates"),
    autoescape=jinja2.select_autoescape(["html", "j2"]),
    trim_blocks=True,
    lstrip_blocks=True,
)


def _numeric(frame: pl.DataFrame) -> set[str]:
    return {c for c, dtype in frame.schema.items() if dtype.is_numeric()} | {
        c for c in frame.columns if c.startswith("rating") or c in ("change_exact", "expected")
    }


def render(template: str, frame: pl.DataFrame, **context: Any) -> str:
    rows = [list(zip(frame.columns, row, strict=True)) for row in frame.iter_rows()]
    return _ENVIRONMENT.get_template(template).render(
        columns=frame.columns, rows=rows, numeric=_numeric(frame), **context
    )


def write_list_html(
    frame: pl.DataFrame,
    stream: IO[bytes],
    *,
    title: str,
    subtitle: str,
    stats: Sequence[tuple[str, str]],
    histogram: str,
) -> None:
    page = render(
        "list.html.j2", frame, title=title, subtitle=subtitle, stats=stats, histogram=histogram
    )
    stream.write(page.encode("utf-8"))


def write_history_html(
    frame: pl.DataFrame, stream: IO[bytes], *, title: str, subtitle: str, chart: str
) -> None:
    page = render("history.html.j2", frame, title=title, subtitle=subtitle, chart=chart)
    stream.write(page.encode("utf-8"))


def write_standings_html(frame: pl.DataFrame, stream: IO[bytes], *, title: str) -> None:
    page = render(
        "list.html.j2", frame, title=f"Standings: {title}", subtitle="Tie-breaks computed from the crosstable",
        stats=[("players", str(frame.height))], histogram="",
    )  # fmt: skip
    stream.write(page.encode("utf-8"))
