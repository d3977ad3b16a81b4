"""The list page written with its rows built by polars and streamed is, character for character,
what the template's own loop writes (escaping, empty cells, the up/down marks of ``change``,
booleans)."""

from __future__ import annotations

import io
from datetime import date

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from exporters.html import render, write_list_html

CONTEXT = {"title": "t", "subtitle": "s", "stats": [("players", "3")], "histogram": ""}


def through_template(frame: pl.DataFrame) -> str:
    return render("list.html.j2", frame, **CONTEXT)


def through_polars(frame: pl.DataFrame) -> str:
    stream = io.BytesIO()
    write_list_html(frame, stream, **CONTEXT)  # type: ignore[arg-type]
    return stream.getvalue().decode("utf-8")


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.one_of(st.none(), st.text(max_size=12)),
            st.one_of(st.none(), st.integers(-(2**40), 2**40)),
            st.one_of(st.none(), st.booleans()),
            st.one_of(st.none(), st.dates(date(1990, 1, 1), date(2040, 1, 1))),
        ),
        max_size=8,
    )
)
def test_polars_rows_equal_the_template_rows(rows: list[tuple[object, ...]]) -> None:
    frame = pl.DataFrame(
        rows,
        schema={"name": pl.String, "change": pl.Int64, "active": pl.Boolean, "last": pl.Date},
        orient="row",
    ).with_columns(pl.col("change").alias("rating"))
    assert through_polars(frame) == through_template(frame)


def test_markup_in_names_is_escaped() -> None:
    frame = pl.DataFrame({"name": ['=HYPERLINK("http://x","y")', "<b>&'"]})
    page = through_polars(frame)
    assert "=HYPERLINK(&#34;http://x&#34;,&#34;y&#34;)" in page
    assert "&lt;b&gt;&amp;&#39;" in page


def test_a_frame_with_floats_is_left_to_the_template() -> None:
    frame = pl.DataFrame({"score": [1.5, None], "name": ["a", "<b>"]})
    assert through_polars(frame) == through_template(frame)


def test_a_column_with_nothing_to_escape_is_written_as_it_is() -> None:
    # Only the column with markup is escaped; the others are copied as they are.
    frame = pl.DataFrame(
        {"player_id": ["P1", "P2", None], "name": ["Ann", "O'Neil & Co", "Bo"], "games": [3, 0, 1]}
    )
    assert through_polars(frame) == through_template(frame)
    assert "O&#39;Neil &amp; Co" in through_polars(frame)


def test_a_flag_reads_yes_or_no_on_the_page() -> None:
    frame = pl.DataFrame({"name": ["A", "B", "C"], "active": [True, False, None]})
    for page in (through_polars(frame), through_template(frame)):
        assert '<td class="">yes</td>' in page
        assert '<td class="">no</td>' in page
        assert "True" not in page
        assert "False" not in page
