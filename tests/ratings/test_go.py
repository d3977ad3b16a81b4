"""Go ranks and the McMahon scale: one reading of a rank for files, options, tie-breaks and seeds."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from exporters.seeding import SeedingOptions
from exporters.seeding_mcmahon import initial_mms
from ratings.go import McMahonScale, initial_score, rank_text, rank_value

VALUES = st.integers(-30, 8)


@given(VALUES)
def test_text_and_value_round_trip(value: int) -> None:
    text = rank_text(value)
    assert rank_value(text) == value
    assert rank_value(text.upper()) == value
    assert rank_text(rank_value(text) or 0) == text


def test_every_rank_once_from_30k_to_9d() -> None:
    texts = [rank_text(v) for v in range(-30, 9)]
    assert texts[0] == "30k"
    assert texts[29:31] == ["1k", "1d"]
    assert texts[-1] == "9d"
    assert len(set(texts)) == 39


@pytest.mark.parametrize("text", ["3 kyu", "3K", "3-k", " 3k "])
def test_the_tie_break_scale_reads_ranks_as_participant_lists_do(text: str) -> None:
    # The scale once had a stricter reader of its own; a rank means the same everywhere now.
    assert McMahonScale(bar="9d", floor="30k", zero="30k").initial(text) == 27


@given(VALUES, VALUES, VALUES, VALUES)
def test_the_tie_break_scale_and_seeding_give_the_same_initial_score(
    rank: int, bar: int, floor: int, zero: int
) -> None:
    bar, floor = max(bar, floor), min(bar, floor)
    scale = McMahonScale(bar=rank_text(bar), floor=rank_text(floor), zero=rank_text(zero))
    options = SeedingOptions(bar=rank_text(bar), floor=rank_text(floor), zero=rank_text(zero))
    expected = initial_score(rank, zero=zero, bar=bar, floor=floor)
    assert scale.initial(rank_text(rank)) == expected
    assert initial_mms(rank, options) == expected


def test_without_bar_or_floor_nothing_is_held() -> None:
    assert initial_score(8, zero=-20, bar=None, floor=None) == 28
    assert initial_score(-30, zero=-20, bar=None, floor=None) == -10
    assert initial_score(-30, zero=-20, bar=None, floor=-25) == -5
