"""The tier of a tournament: one enum, whose values are the strings stored and written in files."""

from __future__ import annotations

from datetime import date

import polars as pl
import pytest

from importers.from_crosstable import EventOptions, results_from_crosstable
from importers.results import read_results
from ratings.formula import MeloParams
from ratings.tiers import TIERS, Tier
from tests.ratings.builder import build


def test_the_stored_names_stay_the_same() -> None:
    assert TIERS == ("regular", "national", "international")
    assert [Tier(name) for name in TIERS] == [Tier.REGULAR, Tier.NATIONAL, Tier.INTERNATIONAL]


@pytest.mark.parametrize("tier", list(Tier))
def test_k_is_the_same_for_the_member_and_its_name(tier: Tier) -> None:
    params = MeloParams(k_regular=1, k_grandmaster=2, k_national=3, k_international=4)
    for grandmaster in (False, True):
        assert params.k_for(tier, grandmaster) == params.k_for(tier.value, grandmaster)


def test_a_results_file_without_a_tier_is_regular() -> None:
    data = (
        b"tournament,end_date,name,wins,draws,losses,buchholz\n"
        b"Open,2024-01-05,Ann,1,0,0,0\nOpen,2024-01-05,Bob,0,0,1,1\n"
    )
    tournaments = read_results(data, "r.csv", "csv").tournaments
    assert tournaments["tier"].to_list() == [Tier.REGULAR.value]
    assert tournaments.schema["tier"] == pl.String


def test_a_crosstable_event_stores_the_tier_as_text() -> None:
    # polars would make an Enum column of the enum member itself; the database wants the text.
    options = EventOptions(end_date=date(2025, 1, 5), tier=Tier.NATIONAL)
    file, _ = results_from_crosstable(build([("A", "+2"), ("B", "-1")]), b"", options)
    assert file.tournaments.schema["tier"] == pl.String
    assert file.tournaments["tier"].to_list() == ["national"]
