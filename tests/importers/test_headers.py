"""Tests of the one table of headings (``importers.headers``) and of how each reader uses it."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import importers.tabular
from importers.headers import ALIASES, canonical, closest, fold, unknown
from importers.participants import COLUMNS as PARTICIPANT_COLUMNS
from importers.participants import read_participants
from importers.registry import OPTIONAL, REQUIRED, read_registry
from importers.results import COLUMNS as RESULT_COLUMNS
from importers.results import read_results
from importers.tabular import json_shape
from ratings.errors import InputError


@pytest.mark.parametrize(
    ("heading", "column"),
    [
        ("Start Date", "start_date"),
        ("start-date", "start_date"),
        ("START_DATE", "start_date"),
        ("Player ID", "player_id"),
        ("\ufeffPlayer ID", "player_id"),
        ("FIDE-ID", "fide_id"),
        ("Name", "name"),
        ("Fed", "country"),
        ("Club/City", "club"),
        ("Date", "end_date"),
        ("BH", "buchholz"),
    ],
)
def test_headings_as_typed_stand_for_their_column(heading: str, column: str) -> None:
    assert canonical(heading, RESULT_COLUMNS) == column


def test_an_alias_stands_only_for_a_column_the_reader_knows() -> None:
    assert canonical("Rtg", PARTICIPANT_COLUMNS) == "rating"
    assert canonical("Rtg", RESULT_COLUMNS) is None


def test_no_two_columns_share_a_name() -> None:
    names = [fold(n) for column, aliases in ALIASES.items() for n in (column, *aliases)]
    assert len(names) == len(set(names))


def test_a_misspelt_heading_is_told_its_closest_column() -> None:
    assert closest("Tournamnet", RESULT_COLUMNS) == "tournament"
    assert closest("enddate", RESULT_COLUMNS) == "end_date"
    assert closest("Rating", RESULT_COLUMNS) is None
    assert closest("x" * 10_000, RESULT_COLUMNS) is None
    assert unknown("Contry", ("name", "country")) == (
        "unknown column (expected: name, country); did you mean 'country'?"
    )


def test_the_results_table_reads_headings_as_typed() -> None:
    data = (
        b"Event;Start Date;Date;Player ID;Name;Fed;W;D;L;BH\n"
        b"Open;2024-04-12;2024-04-14;A1;Ann;SWE;1;0;0;1\n"
        b"Open;2024-04-12;2024-04-14;B2;Bo;SWE;0;0;1;2\n"
    )
    file = read_results(data, "open.csv", "csv")
    assert file.tournaments.select("key", "start_date").rows()[0][0] == "Open 2024-04-14"
    assert file.results["player_id"].to_list() == ["A1", "B2"]


def test_two_headings_for_one_column_are_refused() -> None:
    with pytest.raises(InputError) as raised:
        read_registry(b"player_id,Name,Player name\n1,A,B\n", "r.csv", "csv")
    assert [str(p) for p in raised.value.problems] == [
        "r.csv, line 1, column 'name': the column appears twice (as 'name' and 'player name')"
    ]


def test_the_registry_reads_swiss_manager_headings_and_refuses_a_rating() -> None:
    registry = read_registry(b"ID,Name,Fed,FIDE-ID\n101,Ann Berg,SWE,4600001\n", "sm.csv", "csv")
    assert registry.players.select("player_id", "name", "country").rows() == [
        ("101", "Ann Berg", "SWE")
    ]
    with pytest.raises(InputError) as raised:
        read_registry(b"ID,Name,Rtg\n101,Ann Berg,2100\n", "sm.csv", "csv")
    assert [p.expected for p in raised.value.problems] == [
        f"unknown column (expected: {', '.join(REQUIRED + OPTIONAL)})"
    ]


def test_a_participant_list_reads_headings_as_typed() -> None:
    participants = read_participants(b"Name,Fed,Rtg\nAnn,SWE,1500\n", "p.csv", "csv")
    assert participants.rows.select("name", "country").rows() == [("Ann", "SWE")]


# --- the shape of a JSON document, counted before it is read --------------------------------

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet='ab"\\{}[]:,é '),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text(alphabet='ab"\\{}:', max_size=3), inner, max_size=3)
    ),
    max_leaves=12,
)


def _depth(value: object) -> int:
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    return 0


@settings(max_examples=200, deadline=None)
@given(st.lists(st.dictionaries(st.text(max_size=3), JSON_VALUES, max_size=3), max_size=4))
def test_json_shape_counts_what_the_reader_builds(
    rows: list[dict[str, object]],
) -> None:
    data = json.dumps(rows, ensure_ascii=False).encode()
    expected = (_depth(rows), len(rows), sum(len(r) for r in rows))
    for chunk in (1, 3, 7, 1 << 20):
        importers.tabular._JSON_CHUNK = chunk
        try:
            shape = json_shape(data)
        finally:
            importers.tabular._JSON_CHUNK = 2 * 1024 * 1024
        assert (shape.depth, shape.rows, shape.values) == expected
