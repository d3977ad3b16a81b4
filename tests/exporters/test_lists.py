"""What two published lists' diff shows: whole points as published, or exact values."""

from __future__ import annotations

import csv
import io

import polars as pl

from exporters.lists import diff_rows
from exporters.writers import write_csv

POINT = 10**10


def _entries(ratings: dict[str, float]) -> pl.DataFrame:
    """A list's entries: players 1… with these ratings (in points), all active."""
    return pl.DataFrame(
        {
            "player": list(range(1, len(ratings) + 1)),
            "federation_id": list(ratings),
            "name": [f"Player {p}" for p in ratings],
            "rating": [round(r * POINT) for r in ratings.values()],
            "active": [True] * len(ratings),
        }
    )


# A moves by 0.004 points (1512.3 shows 1512 on both lists), B by 1.5 (1400 to 1402, and up a
# rank past C), C by nothing, D only on the new list.
OLD = _entries({"A": 1512.3, "B": 1400.4, "C": 1401.0})
NEW = pl.concat(
    [_entries({"A": 1512.304, "B": 1401.9, "C": 1401.0}), _entries({"D": 1000.0})]
).with_columns(pl.int_range(1, 5).alias("player"))


def test_the_diff_counts_whole_points_as_the_lists_show_them() -> None:
    rows = diff_rows(OLD, NEW)
    assert rows.select("player_id", "status", "rating_old", "rating_new", "change").rows() == [
        ("B", "changed", 1400, 1402, 2),
        ("D", "entered", None, 1000, None),
    ]
    assert rows.schema["change"] == pl.Int64


def test_the_exact_diff_counts_every_change_of_the_exact_rating() -> None:
    rows = diff_rows(OLD, NEW, exact=True)
    assert rows.select("player_id", "status").rows() == [
        ("A", "changed"),
        ("B", "changed"),
        ("D", "entered"),
    ]
    assert rows["change"].cast(pl.String).to_list() == ["0.0040000000", "1.5000000000", None]
    # In CSV the exact values are numbers with their 10 decimals, a fall among them.
    fall = diff_rows(NEW, OLD, exact=True)
    buffer = io.BytesIO()
    write_csv(fall, buffer)
    written = {r["player_id"]: r for r in csv.DictReader(io.StringIO(buffer.getvalue().decode()))}
    assert written["A"]["change"] == "-0.0040000000"
    assert written["B"]["rating_new"] == "1400.4000000000"
    assert written["D"]["status"] == "left"
