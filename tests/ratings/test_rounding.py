"""The published whole rating: the scalar and the column form are one rule."""

from __future__ import annotations

import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ratings.formula import RATING_SCALE, to_units
from ratings.rounding import ROUNDINGS, Rounding, published, published_expr
from service.settings import Settings

EDGES = [
    to_units(text)
    for text in ("0", "1499.5", "1499.4999999999", "1499.9", "-3.5", "-3.4999999999", "-0.5")
]


def column(units: list[int], rounding: str) -> list[int]:
    frame = pl.DataFrame({"units": units}, schema={"units": pl.Int64})
    return frame.select(published_expr(pl.col("units"), rounding))["units"].to_list()


def test_the_names_are_the_settings_text() -> None:
    assert ROUNDINGS == ("half_up", "truncate")
    assert Settings(rounding="truncate").rounding is Rounding.TRUNCATE  # type: ignore[arg-type]


@pytest.mark.parametrize("rounding", list(Rounding))
def test_both_forms_agree_on_the_edges(rounding: Rounding) -> None:
    assert column(EDGES, rounding) == [published(u, rounding) for u in EDGES]


@given(
    st.lists(st.integers(-5000 * RATING_SCALE, 5000 * RATING_SCALE), min_size=1, max_size=50),
    st.sampled_from(list(Rounding)),
)
def test_both_forms_agree(units: list[int], rounding: Rounding) -> None:
    assert column(units, rounding) == [published(u, rounding) for u in units]


def test_the_rules() -> None:
    assert [published(u) for u in EDGES] == [0, 1500, 1499, 1500, -3, -3, 0]
    assert [published(u, "truncate") for u in EDGES] == [0, 1499, 1499, 1499, -3, -3, 0]


def test_an_unknown_rounding_is_refused_by_both_forms() -> None:
    with pytest.raises(ValueError, match=r"^rounding must be half_up or truncate, not 'up'$"):
        published(0, "up")
    with pytest.raises(ValueError, match=r"^rounding must be half_up or truncate, not 'up'$"):
        published_expr(pl.col("units"), "up")
