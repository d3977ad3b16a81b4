"""Self-contained HTML pages (no network: styles, scripts and charts are inline), printable."""

from __future__ import annotations

from collections.abc import Sequence
from typing import IO, Any

import jinja2
import polars as pl
from markupsafe import Markup

from exporters.history import history_text
from exporters.writers import NO, YES, as_text, shown_value, text_pieces, write_joined
from ratings.rounding import Rounding
from ratings.wording import counted

TEMPLATES = jinja2.PackageLoader("exporters", "templates")
"""The templates of the exported pages; other pages extend their ``base.html.j2``."""


def page_environment(loader: jinja2.BaseLoader) -> jinja2.Environment:
    """Templates from ``loader``, escaped and laid out as every page of the service is."""
    return jinja2.Environment(
        loader=loader,
        autoescape=jinja2.select_autoescape(["html", "j2"]),
        trim_blocks=True,
        lstrip_blocks=True,
    )


_ENVIRONMENT = page_environment(TEMPLATES)


def _numeric(frame: pl.DataFrame) -> set[str]:
    return {c for c, dtype in frame.schema.items() if dtype.is_numeric()} | {
        c for c in frame.columns if c.startswith("rating") or c in ("change_exact", "expected")
    }


def render(template: str, frame: pl.DataFrame, **context: Any) -> str:
    return render_in(_ENVIRONMENT, template, frame, **context)


def render_in(
    environment: jinja2.Environment, template: str, frame: pl.DataFrame, **context: Any
) -> str:
    """A page of ``environment``'s templates, with ``frame`` as its table."""
    numeric = _numeric(frame)
    frame = as_text(frame)
    rows = [list(zip(frame.columns, row, strict=True)) for row in frame.iter_rows()]
    return environment.get_template(template).render(
        columns=frame.columns, rows=rows, numeric=numeric, cell_text=shown_value, **context
    )


_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&#34;", "'": "&#39;"}
"""What the template's autoescape (markupsafe) replaces, in the same order of effect."""
_ESCAPED = "[&<>\"']"
"""A text with one of these needs escaping."""


def _row_text(frame: pl.DataFrame) -> pl.Expr | None:
    """Each row of ``frame`` as the ``<tr>`` line of ``list.html.j2`` and its line end,
    built by polars in native code, character for character what the template's own loop
    writes; None for a frame it cannot do exactly (floats, whose text Python and polars write
    differently). The template's own loop would escape one cell at a time in Python.

    Only a text column with a character to escape is escaped (numbers, dates and booleans never
    have one), and each run of fixed text between cells is one piece of the row's concatenation:
    every step is a pass over a column of a million values."""
    numeric = _numeric(frame)
    pieces: list[pl.Expr | str] = ["<tr>"]
    for name, dtype in frame.schema.items():
        value = pl.col(name)
        if dtype == pl.Boolean:
            text: pl.Expr = pl.when(value).then(pl.lit(YES)).when(~value).then(pl.lit(NO))
        elif dtype.is_integer() or dtype.is_decimal() or dtype == pl.Date:
            text = value.cast(pl.String)
        elif dtype == pl.String:
            text = value
            if frame.get_column(name).str.contains(_ESCAPED).any():
                text = text.str.replace_many(list(_ESCAPES), list(_ESCAPES.values()))
        else:
            return None
        css = "num" if name in numeric else ""
        if name == "change":
            classes: pl.Expr | str = pl.concat_str(
                pl.lit(css),
                pl.when(value > 0).then(pl.lit(" up")).otherwise(pl.lit("")),
                pl.when(value < 0).then(pl.lit(" down")).otherwise(pl.lit("")),
            )
            pieces += ['<td class="', classes, '">']
        else:
            pieces.append(f'<td class="{css}">')
        pieces += [text.fill_null(""), "</td>"]
    pieces.append("</tr>\n")
    return pl.concat_str(text_pieces(pieces)).alias("row")


_BODY = "\x00rows\x00"
"""Where the page's rows go: the page is rendered around it and the rows streamed in its place."""


def write_list_html(
    frame: pl.DataFrame,
    stream: IO[bytes],
    *,
    title: str,
    subtitle: str,
    stats: Sequence[tuple[str, str]],
    histogram: str,
) -> None:
    """The list as a page; its rows are written by polars straight to ``stream``, never held as
    one string (a million rows are hundreds of megabytes of text)."""
    row = _row_text(frame)
    page = render(
        "list.html.j2", frame.clear() if row is not None else frame, title=title,
        subtitle=subtitle, stats=stats, histogram=histogram,
        **({} if row is None else {"body": Markup(_BODY)}),
    )  # fmt: skip
    if row is None:
        stream.write(page.encode("utf-8"))
        return
    head, tail = page.split(_BODY)
    stream.write(head.encode("utf-8"))
    if frame.height:
        write_joined(frame.select(row).to_series(), stream)
    stream.write(tail.encode("utf-8"))


HISTORY_HEADINGS = (
    ("date", "Date", ""), ("tournament", "Tournament", "name"), ("tier", "Tier", "opt"),
    ("k", "k", "num opt"), ("games", "Games", "num opt"), ("wins", "W", "num opt"),
    ("draws", "D", "num opt"), ("losses", "L", "num opt"), ("points", "Points", "num opt"),
    ("expected", "E", "num opt"), ("before", "Before", "num opt"), ("after", "After", "num opt"),
    ("change", "Change", "num"), ("rating", "Rating", "num"),
)  # fmt: skip
"""The history page's columns (of :func:`~exporters.history.history_text`), their headings and
classes: ``opt`` columns give way on a phone's width."""
HISTORY_EXACT = {"expected": "expected", "before": "rating_before", "after": "rating_after",
                 "change": "change"}  # fmt: skip
"""The columns shown to two decimals, and the exact value each carries in its title."""


def write_history_html(
    frame: pl.DataFrame,
    stream: IO[bytes],
    *,
    title: str,
    subtitle: str,
    chart: str,
    rounding: str = Rounding.HALF_UP,
) -> None:
    """The history as a page that fits a screen: ratings in whole points and to two decimals,
    the exact value of each in its cell's title (the files keep every decimal)."""
    shown = history_text(frame, rounding)
    exact = as_text(frame)
    rows = [
        [
            (
                key,
                label,
                css,
                row[key],
                exact[HISTORY_EXACT[key]][n] if key in HISTORY_EXACT else None,
            )
            for key, label, css in HISTORY_HEADINGS
        ]
        for n, row in enumerate(shown.iter_rows(named=True))
    ]
    page = _ENVIRONMENT.get_template("history.html.j2").render(
        title=title, subtitle=subtitle, chart=chart, headings=HISTORY_HEADINGS, rows=rows
    )
    stream.write(page.encode("utf-8"))


STANDINGS_HEADINGS = {
    "place": "Place", "name": "Name", "points": "Points", "mms": "MMS", "sos": "SOS",
    "sos_1": "SOS-1", "median": "Median", "sodos": "SODOS", "sosos": "SOSOS", "cuss": "CUSS",
    "mdos": "MDOS", "sb": "SB", "wins": "Wins",
}  # fmt: skip


def write_standings_html(
    frame: pl.DataFrame, stream: IO[bytes], *, title: str, grid: pl.DataFrame | None = None
) -> None:
    """The standings with the tie-breaks that have a value for someone (an MMS column only for
    McMahon), then the crosstable round by round when ``grid`` is given."""
    shown = [c for c in frame.columns if frame[c].null_count() < frame.height or c == "name"]
    page = _ENVIRONMENT.get_template("standings.html.j2").render(
        title=f"Standings: {title}", subtitle=f"{counted(frame.height, 'player')}; tie-breaks computed from the crosstable",
        rows=[list(zip(frame.columns, row, strict=True)) for row in frame.iter_rows()],
        shown=shown, headings=STANDINGS_HEADINGS, grid=grid,
    )  # fmt: skip
    stream.write(page.encode("utf-8"))
