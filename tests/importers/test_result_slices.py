"""A results table read in slices of whole tournaments gives exactly what reading it at once
gives: the same rows, the same warnings, and for a bad file the same problems in the same order;
typed Parquet columns are checked as their text would be."""

from __future__ import annotations

import io
from datetime import date

import numpy as np
import polars as pl
import pytest

from importers import results
from importers.results import read_results_sliced
from ratings import names
from ratings.errors import InputError
from ratings.names import name_key

HEADER = "tournament,tournament_id,end_date,tier,name,country,club,wins,draws,losses,buchholz"


def event(number: int, *, size: int = 4, day: int = 1, **changes: str) -> list[dict[str, str]]:
    """A valid round robin of ``size`` players, as rows of text cells."""
    rows = []
    for seat in range(size):
        wins, losses = size - 1 - seat, seat
        rows.append(
            {
                "tournament": f"Open {number}",
                "tournament_id": f"T{number}",
                "end_date": f"2024-01-{day:02d}",
                "tier": "regular",
                "name": f"Player {seat + number % 3}",
                "country": "GER",
                "club": f"Club {seat}",
                "wins": str(wins),
                "draws": "0",
                "losses": str(losses),
                "buchholz": str(seat),
            }
        )
    for at, value in changes.items():
        seat, column = at.split("_", 1)
        rows[int(seat[1:])][column] = value
    return rows


def text_frame(rows: list[dict[str, str]]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=dict.fromkeys(HEADER.split(","), pl.String), orient="row")


def as_csv(frame: pl.DataFrame) -> bytes:
    out = io.BytesIO()
    frame.write_csv(out)
    return out.getvalue()


def as_parquet(frame: pl.DataFrame) -> bytes:
    out = io.BytesIO()
    frame.write_parquet(out, row_group_size=3)
    return out.getvalue()


def typed(frame: pl.DataFrame) -> pl.DataFrame:
    """The frame as a program writes Parquet: counts as integers, dates as dates."""
    return frame.with_columns(
        pl.col("wins", "draws", "losses").cast(pl.Int64),
        pl.col("end_date").str.to_date(),
    )


def outcome(data: bytes, fmt: str, rows: int | None) -> tuple[object, ...]:
    """Everything a read gives: the rows, tournaments and warnings, or the problems."""
    try:
        read = read_results_sliced(data, f"r.{fmt}", fmt, rows)
    except InputError as error:
        return ("refused", [str(p) for p in error.problems])
    return (
        "read",
        read.file().results.to_dicts(),
        read.tournaments.to_dicts(),
        [str(w) for w in read.warnings],
    )


GOOD = [row for n in range(1, 8) for row in event(n, day=n)]
BAD = [
    *event(1, p0_wins="x", p2_name=""),
    *event(2, day=2, p1_losses="-1", p3_buchholz="9.12345"),
    *event(3, day=3, p0_name="Tab\tName", p1_club="Bell\x07Club"),
    *event(4, day=4, p2_end_date="2024-01-05"),
    *event(5, day=5, p0_wins="5", p3_name="Player 1"),
    *event(6, day=6, p1_tier="club", p2_draws="1"),
    *event(7, day=7, p3_wins="2000"),
]
TOO_LONG = [
    *event(1, p0_name="N" * 201),
    *event(2, day=2, p1_club="Tab\tClub"),
    *event(3, day=3, p2_country="G\x01R"),
]


@pytest.mark.parametrize("rows", [1, 3, 5, 9])
@pytest.mark.parametrize("kind", ["good", "bad", "too long"])
@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_slices_read_what_one_read_does(rows: int, kind: str, fmt: str) -> None:
    frame = text_frame({"good": GOOD, "bad": BAD, "too long": TOO_LONG}[kind])
    data = as_csv(frame) if fmt == "csv" else as_parquet(frame)
    whole = outcome(data, fmt, None)
    assert whole[0] == ("read" if kind == "good" else "refused")
    assert outcome(data, fmt, rows) == whole


def test_the_problems_of_every_slice_are_listed() -> None:
    refused = outcome(as_csv(text_frame(BAD)), "csv", 3)
    assert refused[0] == "refused"
    lines = {int(p.split("line ")[1].split(",")[0]) for p in refused[1]}  # type: ignore[union-attr]
    # One problem at least in each of the six bad tournaments (rows of 4 after the header).
    assert {(line - 2) // 4 for line in lines} >= {0, 1, 3, 4, 5, 6}


def test_cleaned_names_are_warned_about_in_one_order() -> None:
    data = as_csv(text_frame([*event(1, p0_name="A\tB"), *event(2, day=2, p0_name="C\tD")]))
    read = read_results_sliced(data, "r.csv", "csv", 1)
    assert len(read.slices) == 2
    assert [w.line for w in read.warnings] == [2, 6]


def test_a_tournament_is_never_split() -> None:
    frame = text_frame([*event(1, size=6), *event(2, day=2, size=3)])
    for data, fmt in ((as_csv(frame), "csv"), (as_parquet(frame), "parquet")):
        read = read_results_sliced(data, f"r.{fmt}", fmt, 4)
        assert [part.height for part in read.slices] == [6, 3], fmt


def test_scattered_tournaments_are_read_at_once() -> None:
    rows = event(1) + event(2, day=2)
    scattered = text_frame(rows[:2] + rows[4:6] + rows[2:4] + rows[6:])
    for data, fmt in ((as_csv(scattered), "csv"), (as_parquet(scattered), "parquet")):
        read = read_results_sliced(data, f"r.{fmt}", fmt, 2)
        assert len(read.slices) == 1
        assert outcome(data, fmt, 2) == outcome(data, fmt, None)


@pytest.mark.parametrize("kind", ["good", "bad"])
def test_typed_parquet_columns_are_checked_as_their_text(kind: str) -> None:
    rows = GOOD if kind == "good" else [*event(1, p1_losses="-1"), *event(2, day=2, p0_wins="2000")]
    frame = text_frame(rows)
    as_text = outcome(as_parquet(frame), "parquet", None)
    as_numbers = outcome(as_parquet(typed(frame)), "parquet", None)
    assert as_numbers == as_text
    assert outcome(as_parquet(typed(frame)), "parquet", 3) == as_text
    if kind == "bad":
        assert as_numbers[1] == [
            "r.parquet, line 2, column 'losses': value '-1': must not be negative",
            "r.parquet, line 5, column 'wins': value '2000': more than 1000 games in one event",
        ]


def test_typed_parquet_keeps_dates_and_counts() -> None:
    frame = typed(text_frame(GOOD))
    read = read_results_sliced(as_parquet(frame), "r.parquet", "parquet", 5)
    assert read.tournaments["end_date"][0] == date(2024, 1, 1)
    assert read.file().results["wins"].to_list() == frame["wins"].to_list()


@pytest.mark.parametrize("rows", [3, 5, None])
def test_each_player_is_one_row_of_the_players_read_in_slices(rows: int | None) -> None:
    frame = text_frame(GOOD)
    whole = read_results_sliced(as_parquet(frame), "r.parquet", "parquet", None)
    sliced = read_results_sliced(as_parquet(frame), "r.parquet", "parquet", rows)
    assert sliced.players.to_dicts() == whole.players.to_dicts()
    assert whole.players.height == whole.players.drop("line").unique().height


def with_ids(rows: list[dict[str, str]], missing: int | None = None) -> pl.DataFrame:
    """``rows`` with a player_id column: each name's own id, but none in row ``missing``."""
    ids = [f"P{row['name'].split()[-1]}" for row in rows]
    if missing is not None:
        ids[missing] = ""
    return text_frame(rows).with_columns(pl.Series("player_id", ids))


@pytest.mark.parametrize("rows", [3, 5, None])
@pytest.mark.parametrize("missing", [None, 9])
def test_players_written_with_ids_are_folded_as_they_come(
    rows: int | None, missing: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A slice whose rows all carry an id folds only its new players' names; one naming a
    player without an id folds its names for its tournaments' checks. Either way each player's
    name's key is its name folded, and the players and rows are a read at once's."""
    written = with_ids(GOOD, missing)
    data = as_csv(written)
    whole = read_results_sliced(data, "r.csv", "csv", None)
    if missing is None:

        def folded_per_slice(self: object, names: pl.Series) -> pl.Series:
            raise AssertionError("the names of a slice identified by ids were folded")

        monkeypatch.setattr(results._NameKeys, "keys", folded_per_slice)
    sliced = read_results_sliced(data, "r.csv", "csv", rows)
    assert sliced.players.to_dicts() == whole.players.to_dicts()
    assert sliced.file().results.to_dicts() == whole.file().results.to_dicts()
    keys = sliced.players.select("name", "name_key").rows()
    assert [key for _, key in keys] == [name_key(name) for name, _ in keys]
    who = written.select(pl.col("player_id").replace("", None), "name", "country", "club")
    assert sliced.players.height == who.unique().height


def test_a_name_written_by_new_players_of_many_slices_is_folded_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Players told apart by their ids, who share names (a history's 46,688 players write 13,175
    names), slice after slice: each name is folded once, and every player's key is its name's."""
    rows = [
        {**row, "tournament_id": f"T{number}", "tournament": f"Open {number}"}
        for number in range(6)
        for row in event(number, size=3)
    ]
    # Every tournament's players are new (ids of their own), with the names of the others.
    ids = [f"P{index}" for index in range(len(rows))]
    written = text_frame(rows).with_columns(pl.Series("player_id", ids))
    folded: list[str] = []
    real = names.name_key

    def counted(name: str) -> str:
        folded.append(name)
        return real(name)

    monkeypatch.setattr(names, "name_key", counted)
    sliced = read_results_sliced(as_csv(written), "r.csv", "csv", 3)
    assert len(sliced.slices) > 1
    assert sorted(folded) == sorted(set(written["name"]))
    assert sliced.players.height == len(rows)
    keys = sliced.players.select("name", "name_key").rows()
    assert [key for _, key in keys] == [real(name) for name, _ in keys]


def test_players_are_found_alike_when_their_hashes_are_equal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two different players with one hash: the rows are compared, and the read goes on with
    joins, finding the same players."""
    frame = text_frame(GOOD)
    expected = read_results_sliced(as_parquet(frame), "r.parquet", "parquet", 5)
    monkeypatch.setattr(results, "_hashes", lambda values: np.zeros(values.height, np.uint64))
    colliding = read_results_sliced(as_parquet(frame), "r.parquet", "parquet", 5)
    assert colliding.players.to_dicts() == expected.players.to_dicts()
    assert [p.to_dicts() for p in colliding.slices] == [p.to_dicts() for p in expected.slices]


BUCHHOLZ_FLOATS = [
    0.0, 3.0, 20.5, 0.0001, 123.4567, 999999999.9999, 1e8, 0.1 + 0.2, 1e-5, 0.00015, 9.12345,
    -1.0, -0.0, 1e9, 1e10, 1e22, float("nan"), float("inf"), None,
]  # fmt: skip


@pytest.mark.parametrize("value", BUCHHOLZ_FLOATS)
def test_float_buchholz_is_checked_as_its_text(value: float | None) -> None:
    """A Buchholz column of floats gives what the text polars writes of them gives: the same
    numbers, or the same problems, naming the same text."""
    rows = [*event(1, p3_buchholz="0"), *event(2, day=2)]
    floats = text_frame(rows).with_columns(pl.col("buchholz").cast(pl.Float64))
    floats = floats.with_columns(
        pl.when(pl.int_range(pl.len()) == 3)
        .then(pl.lit(value, dtype=pl.Float64))
        .otherwise(pl.col("buchholz"))
        .alias("buchholz")
    )
    text = floats.with_columns(pl.col("buchholz").cast(pl.String))
    expected = outcome(as_parquet(text), "parquet", None)
    assert outcome(as_parquet(floats), "parquet", None) == expected
    assert outcome(as_parquet(floats), "parquet", 3) == expected
