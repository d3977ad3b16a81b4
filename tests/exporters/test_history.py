"""A player's history as the terminal shows it: whole ratings and two decimals."""

from __future__ import annotations

from datetime import date

import polars as pl
import pytest

from exporters.history import history_text
from exporters.ranking import EXACT
from ratings.formula import format_hundredths


@pytest.mark.parametrize(
    ("units", "text"),
    [
        (12_808_350_000_000, "1280.84"),  # a half, away from zero
        (12_808_349_999_999, "1280.83"),
        (-5_250_000_000, "-0.53"),
        (-49_999_999, "0.00"),  # no "-0.00"
        (0, "0.00"),
        (10_000_000_000_000, "1000.00"),
    ],
)
def test_two_decimals(units: int, text: str) -> None:
    assert format_hundredths(units) == text


def test_the_terminal_history_has_whole_ratings_and_signed_changes() -> None:
    exact = ["1000.0000000000", "1093.9297993084", "1093.9297993084", "1090.8486093084"]
    rows = pl.DataFrame(
        {
            "date": [date(2023, 5, 4), date(2023, 9, 23)],
            "tournament": ["Open Luzern 2023", "Stadtturnier Linz 2023"],
            "tier": ["regular", "regular"], "k": [5, 10], "games": [8, 5], "wins": [6, 3],
            "draws": [1, 0], "losses": [1, 2], "points": [6.5, 3.0],
            "expected": pl.Series(["4.2123105129", "3.3081190035"]).cast(EXACT),
            "rating_before": pl.Series(exact[0::2]).cast(EXACT),
            "rating_after": pl.Series(exact[1::2]).cast(EXACT),
            "change": pl.Series(["93.9297993084", "-3.0811900000"]).cast(EXACT),
        }
    )  # fmt: skip
    text = history_text(rows)
    assert text.select("expected", "before", "after", "change", "rating").rows() == [
        ("4.21", "1000.00", "1093.93", "+93.93", 1094),
        ("3.31", "1093.93", "1090.85", "-3.08", 1091),
    ]
    assert history_text(rows, "truncate")["rating"].to_list() == [1093, 1090]


def test_the_pages_chart_is_a_small_svg_of_the_steps_and_the_events() -> None:
    from xml.etree import ElementTree

    from exporters.charts import history_svg

    days = [date(2022, 1, 1), date(2022, 2, 19), date(2022, 3, 5), date(2022, 9, 24)]
    ratings = [1000.0, 1005.98, 1045.22, 1030.96]
    svg = history_svg(days, ratings, title="22 Player <22> & co")
    root = ElementTree.fromstring(svg)
    ns = "{http://www.w3.org/2000/svg}"
    assert root.tag == f"{ns}svg"
    assert root.find(f"{ns}title").text == "22 Player <22> & co"  # type: ignore[union-attr]
    assert len(root.findall(f"{ns}circle")) == 4
    (path,) = root.findall(f"{ns}path")
    # One move, then a level and a rise for each event after the first: a step line.
    assert path.get("d", "").count("H") == path.get("d", "").count("V") == 3
    labels = [t.text for t in root.findall(f"{ns}text")]
    assert {"1000", "1050"} <= set(labels)
    assert "2022-01" in labels
    assert "2022-09" in labels
    assert len(svg) < 4000
    # The highest point is inside the plot, the lowest on its floor or above.
    ys = [float(c.get("cy", "0")) for c in root.findall(f"{ns}circle")]
    assert min(ys) >= 30
    assert max(ys) <= 320 - 44


def test_the_pages_chart_of_no_event_or_one_event_is_drawn() -> None:
    from xml.etree import ElementTree

    from exporters.charts import history_svg

    empty = ElementTree.fromstring(history_svg([], [], title="Nobody"))
    assert empty.findall("{http://www.w3.org/2000/svg}path") == []
    one = ElementTree.fromstring(history_svg([date(2022, 5, 1)], [1000.0], title="One"))
    assert len(one.findall("{http://www.w3.org/2000/svg}circle")) == 1
