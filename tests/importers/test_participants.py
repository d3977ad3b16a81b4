"""The participant-list reader (SPEC 7) and the bad input it rejects (SPEC 4.4)."""

from __future__ import annotations

import io
import json

import polars as pl
import pytest

from importers.participants import exact_rating, read_participants
from ratings.errors import InputError
from ratings.formula import RATING_SCALE
from ratings.go import rank_text, rank_value


def csv(*lines: str) -> bytes:
    return ("\n".join(lines) + "\n").encode()


def problems(data: bytes, fmt: str = "csv") -> list[str]:
    with pytest.raises(InputError) as caught:
        read_participants(data, "entries.csv", fmt)
    return [str(p) for p in caught.value.problems]


def test_a_good_list_gives_typed_rows_in_file_order() -> None:
    read = read_participants(
        csv(
            "player_id,name,country,title,rank,rating,bye,mms_correction",
            "17,,,,,,,",
            ",Łukasz Müller,pol,gm,3 kyu,1523.4567891234,yes,1",
            ",Ana Silva,BRA,,2D,,no,",
        ),
        "entries.csv",
        "csv",
    )
    rows = read.rows
    assert read.source == "entries.csv"
    assert rows["line"].to_list() == [2, 3, 4]
    assert rows["player_id"].to_list() == ["17", None, None]
    assert rows["name_key"].to_list() == [None, "lukasz muller", "ana silva"]
    assert rows["country"].to_list() == [None, "POL", "BRA"]
    assert rows["title"].to_list() == [None, "GM", None]
    assert rows["rank"].to_list() == [None, "3k", "2d"]
    assert rows["rating"].to_list() == [None, 15_234_567_891_234, None]
    assert rows["bye"].to_list() == [False, True, False]
    assert rows["mms_correction"].to_list() == [0, 1, 0]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("30k", -30),
        ("20K", -20),
        ("1k", -1),
        ("1d", 0),
        ("9D", 8),
        ("3 kyu", -3),
        ("3kyu", -3),
        ("3-Kyu", -3),
        ("2 dan", 1),
        (" 2D ", 1),
    ],
)
def test_ranks_in_every_usual_spelling(text: str, value: int) -> None:
    assert rank_value(text) == value


@pytest.mark.parametrize("text", ["31k", "0k", "0d", "10d", "1p", "3x", "kyu", "3 k y u", ""])
def test_what_is_not_a_rank(text: str) -> None:
    assert rank_value(text) is None


def test_rank_text_is_the_inverse_of_rank_value() -> None:
    assert [rank_text(v) for v in (-30, -1, 0, 8)] == ["30k", "1k", "1d", "9d"]


@pytest.mark.parametrize(
    ("text", "units"),
    [
        ("1000", 1000 * RATING_SCALE),
        ("1523.4567891234", 15_234_567_891_234),
        ("1523,5", 15_235_000_000_000),
        ("1523.50000000000", 15_235_000_000_000),
        ("-900", -900 * RATING_SCALE),
        ("7.", 7 * RATING_SCALE),
    ],
)
def test_ratings_are_read_exactly(text: str, units: int) -> None:
    assert exact_rating(text) == units


@pytest.mark.parametrize("text", ["12.12345678901", "abc", "1e3", "--5", "1 000"])
def test_what_is_not_a_rating(text: str) -> None:
    assert exact_rating(text) is None


def test_every_bad_cell_is_reported_with_line_column_and_value() -> None:
    found = problems(
        csv(
            "name,rank,rating,bye,mms_correction",
            "Ann,31k,12.12345678901,maybe,3",
            ",2d,,,",
            "Bob,1p,abc,,x",
        )
    )
    assert found == [
        "entries.csv, line 2, column 'rank': value '31k': a Go rank from 30k to 1k or 1d to 9d "
        "(such as 3k, 2d, 3 kyu)",
        "entries.csv, line 2, column 'rating': value '12.12345678901': a rating: a number with at "
        "most 10 decimals (such as 1523 or 1523.25)",
        "entries.csv, line 2, column 'bye': value 'maybe': yes or no (yes, y, true, 1, x ask for a "
        "bye; no, n, false, 0 or empty do not)",
        "entries.csv, line 2, column 'mms_correction': value '3': a whole number from -2 to 2",
        "entries.csv, line 3, column 'name': a player_id or a name is required",
        "entries.csv, line 4, column 'rank': value '1p': a Go rank from 30k to 1k or 1d to 9d "
        "(such as 3k, 2d, 3 kyu)",
        "entries.csv, line 4, column 'rating': value 'abc': a rating: a number with at most 10 "
        "decimals (such as 1523 or 1523.25)",
        "entries.csv, line 4, column 'mms_correction': value 'x': a whole number from -2 to 2",
    ]


def test_a_bad_rank_is_an_input_error_naming_the_cell() -> None:
    with pytest.raises(InputError, match=r"line 2, column 'rank': value '4 pro'"):
        read_participants(csv("name,rank", "Ann,4 pro"), "entries.csv", "csv")


def test_unknown_columns_are_named_on_the_header_line() -> None:
    with pytest.raises(InputError, match=r"line 1, column 'club': unknown column") as caught:
        read_participants(csv("name,club,ratng", "Ann,X,1"), "entries.csv", "csv")
    assert [p.column for p in caught.value.problems] == ["club", "ratng"]
    assert caught.value.problems[1].expected.endswith("; did you mean 'rating'?")


def test_a_list_needs_a_player_id_or_a_name_column() -> None:
    with pytest.raises(InputError, match=r"a player_id or a name column is required"):
        read_participants(csv("country,rating", "FRA,1000"), "entries.csv", "csv")


def test_a_participant_listed_twice_is_named_with_the_first_line() -> None:
    found = problems(
        csv(
            "player_id,name,country",
            "17,,",
            ",Ann Lee,USA",
            "17,,",
            ",ann  LEE,usa",
            ",Ann Lee,CAN",
        )
    )
    assert found == [
        "entries.csv, line 4, column 'player_id': value '17': each participant once (this "
        "player_id is also on line 2)",
        "entries.csv, line 5, column 'name': value 'ann  LEE': each participant once (this name "
        "is also on line 3; give player_ids to tell them apart)",
    ]


def test_an_empty_file_is_rejected() -> None:
    with pytest.raises(InputError, match=r"entries.csv: the file is empty"):
        read_participants(b"", "entries.csv", "csv")


def test_a_header_without_participants_is_rejected() -> None:
    with pytest.raises(InputError, match=r"the file has a header but no rows"):
        read_participants(csv("name,rating"), "entries.csv", "csv")


def test_json_lines_count_objects_and_column_problems_have_no_line() -> None:
    data = json.dumps([{"name": "Ann", "bye": True}, {"name": "Bob", "rank": "40k"}]).encode()
    with pytest.raises(InputError, match=r"line 2, column 'rank': value '40k'"):
        read_participants(data, "entries.json", "json")
    read = read_participants(json.dumps([{"name": "Ann", "bye": True}]).encode(), "e.json", "json")
    assert read.rows["bye"].to_list() == [True]
    with pytest.raises(InputError, match=r"^1 problem found:\n  e.json, column 'team'"):
        read_participants(json.dumps([{"name": "Ann", "team": "A"}]).encode(), "e.json", "json")


def test_an_xlsx_list_is_read_like_a_csv_list() -> None:
    buffer = io.BytesIO()
    pl.DataFrame({"Name": ["Ann", "Bob"], "Rank": ["3k", "1 dan"], "Bye": ["", "x"]}).write_excel(
        buffer
    )
    read = read_participants(buffer.getvalue(), "entries.xlsx", "xlsx")
    assert read.rows["rank"].to_list() == ["3k", "1d"]
    assert read.rows["bye"].to_list() == [False, True]
    assert read.rows["line"].to_list() == [2, 3]


def test_control_characters_are_taken_out_of_a_name_with_a_warning() -> None:
    read = read_participants(
        csv("name,country", "Nina\x00 Neu,NOR", "Ole\x1b[31m Berg,NOR"), "entries.csv", "csv"
    )
    assert read.rows["name"].to_list() == ["Nina Neu", "Ole Berg"]
    assert read.rows["name_key"].to_list() == ["neu nina", "berg ole"]
    assert [str(w) for w in read.warnings] == [
        "entries.csv, line 2, column 'name': value 'Nina\\x00 Neu': control characters removed: "
        "read as 'Nina Neu'",
        "entries.csv, line 3, column 'name': value 'Ole\\x1b[31m Berg': control characters "
        "removed: read as 'Ole Berg'",
    ]
    assert read_participants(csv("name", "Ann"), "entries.csv", "csv").warnings == ()


def test_control_characters_in_an_id_a_country_or_a_title_are_refused() -> None:
    assert problems(
        csv("player_id,name,country,title", "1\x00,,,", ",Ann,N\x07OR,", ",Bob,,G\x00M")
    ) == [
        "entries.csv, line 2, column 'player_id': value '1\\x00': must not contain control characters",
        "entries.csv, line 3, column 'country': value 'N\\x07OR': must not contain control characters",
        "entries.csv, line 4, column 'title': value 'G\\x00M': must not contain control characters",
    ]


def test_new_in_the_player_id_marks_a_newcomer() -> None:
    rows = read_participants(
        csv("player_id,name", "new,Klein", "NEW,Klein Anna", "17,"), "entries.csv", "csv"
    ).rows
    assert rows.select("player_id", "name", "newcomer").rows() == [
        (None, "Klein", True), (None, "Klein Anna", True), ("17", None, False),
    ]  # fmt: skip
