"""A CSV column of counts, dates or Buchholz values whose every cell is its value's own text is
read as those values before the checks (``importers.results._read_where_exact``): what a file
gives, rows or problems, is exactly what checking every cell's text gives."""

from __future__ import annotations

import io

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from importers import results
from tests.importers.test_result_slices import outcome as read_outcome

COUNTS = ["0", "1", "2", "3", "12", "1000", "1001", "2000", "-1", "-0", "03", "3.0", "3.", "+3",
          "1e2", "99999999999999999999", "x", ""]  # fmt: skip
BUCHHOLZ = ["0", "0.0", "7", "23.0", "23.5", "23.25", "0.0001", "999999999.9999", "23.50",
            "23,5", "-1.5", "-0", "-0.0", "9.12345", "1e5", "1000000000", "0023", ".5", "x",
            ""]  # fmt: skip
DATES = ["2024-01-01", "2024-01-02", "2024-12-31", "2024-1-1", "2024-02-30",
         "2024-01-01 00:00", "20240101", "2024-01-01T00:00:00", "x", ""]  # fmt: skip
COLUMNS = ["tournament", "tournament_id", "start_date", "end_date", "name", "wins", "draws", "losses",
           "buchholz"]  # fmt: skip


def csv(rows: list[dict[str, str]]) -> bytes:
    frame = pl.DataFrame(rows, schema=dict.fromkeys(COLUMNS, pl.String), orient="row")
    out = io.BytesIO()
    frame.write_csv(out)
    return out.getvalue()


def outcome(data: bytes, rows: int | None = None) -> tuple[object, ...]:
    return read_outcome(data, "csv", rows)


def every_cell_as_text(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(results, "_read_where_exact", lambda frame: (frame, []))


def round_robin(number: int, day: str = "2024-01-01", **cells: str) -> list[dict[str, str]]:
    """A valid event of four players; ``cells`` change one cell each (``p2_wins="x"``)."""
    rows = [
        {
            "tournament": f"Open {number}",
            "tournament_id": f"T{number}",
            "start_date": day,
            "end_date": day,
            "name": f"Player {seat}",
            "wins": str(3 - seat),
            "draws": "0",
            "losses": str(seat),
            "buchholz": f"{seat}.5",
        }
        for seat in range(4)
    ]
    for at, value in cells.items():
        seat, column = at.split("_", 1)
        rows[int(seat[1:])][column] = value
    return rows


@pytest.mark.parametrize(
    ("column", "cells", "read"),
    [
        ("wins", ["3", "0", "12", ""], True),
        ("wins", ["3", "-1", "2000"], True),
        ("wins", ["3", "03"], False),
        ("wins", ["3", "3.0"], False),
        ("wins", ["3", "+3"], False),
        ("wins", ["3", "99999999999999999999"], False),
        ("buchholz", ["23.5", "0.0001", "7", "0", ""], True),
        ("buchholz", ["23.5", "23.50"], False),
        ("buchholz", ["23.5", "23,5"], False),
        ("buchholz", ["23.5", "-1.5"], False),
        ("buchholz", ["23.5", "-0"], False),
        ("buchholz", ["23.5", "9.12345"], False),
        ("buchholz", ["23.5", "1e5"], False),
        ("buchholz", ["23.5", "1000000000"], False),
        ("end_date", ["2024-01-01", "2024-12-31"], True),
        ("end_date", ["2024-01-01", "2024-1-1"], False),
        ("end_date", ["2024-01-01", "2024-02-30"], False),
        ("end_date", ["2024-01-01", "2024-01-01 00:00"], False),
    ],
)
def test_a_column_is_read_as_values_only_when_every_cell_is_their_own_text(
    column: str, cells: list[str], read: bool
) -> None:
    frame = pl.DataFrame({column: [c or None for c in cells]}, schema={column: pl.String})
    as_read, chosen = results._read_where_exact(frame)
    assert chosen == ([column] if read else [])
    assert (as_read.schema[column] != pl.String) is read


def test_bad_values_written_as_numbers_are_told_as_their_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    data = csv([
        *round_robin(1, p1_losses="-1", p0_wins="2000"),
        *round_robin(2, "2024-01-02", p3_buchholz="9999"),
    ])  # fmt: skip
    read = outcome(data)
    every_cell_as_text(monkeypatch)
    assert read == outcome(data)
    assert read[0] == "refused"
    assert "r.csv, line 3, column 'losses': value '-1': must not be negative" in read[1]  # type: ignore[operator]
    assert (
        "r.csv, line 2, column 'wins': value '2000': more than 1000 games in one event" in read[1]
    )  # type: ignore[operator]


def test_a_valid_file_reads_the_same_values(monkeypatch: pytest.MonkeyPatch) -> None:
    data = csv([*round_robin(1), *round_robin(2, "2024-01-02", p0_buchholz="7")])
    read = outcome(data)
    assert read[0] == "read"
    every_cell_as_text(monkeypatch)
    assert read == outcome(data)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    changes=st.lists(
        st.tuples(
            st.integers(0, 11),
            st.sampled_from(["wins", "draws", "losses", "buchholz", "start_date", "end_date"]),
            st.integers(0, 100),
        ),
        max_size=6,
    ),
    rows=st.sampled_from([None, 4, 8]),
)
def test_any_cells_give_what_their_text_gives(
    changes: list[tuple[int, str, int]], rows: int | None
) -> None:
    events = [*round_robin(1), *round_robin(2, "2024-01-02"), *round_robin(3, "2024-01-03")]
    for row, column, pick in changes:
        vocabulary = {"buchholz": BUCHHOLZ, "start_date": DATES, "end_date": DATES}.get(
            column, COUNTS
        )
        events[row][column] = vocabulary[pick % len(vocabulary)]
    data = csv(events)
    read = outcome(data, rows)
    with pytest.MonkeyPatch.context() as patch:
        every_cell_as_text(patch)
        assert outcome(data, rows) == read
