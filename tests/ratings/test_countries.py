"""Countries: federation, ISO alpha-3 and alpha-2 codes are one stored form."""

from __future__ import annotations

import polars as pl
import pytest

from ratings.countries import FEDERATION_CODES, country_code, country_code_expr


@pytest.mark.parametrize(
    ("code", "stored"),
    [
        ("GER", "DEU"), ("DEU", "DEU"), ("DE", "DEU"), ("de", "DEU"), (" ger ", "DEU"),
        ("NED", "NLD"), ("NL", "NLD"), ("SUI", "CHE"), ("CH", "CHE"), ("POL", "POL"),
        ("PL", "POL"), ("ENG", "ENG"), ("", None), (None, None), ("XX", "XX"),
    ],
)  # fmt: skip
def test_every_code_of_a_country_is_stored_as_iso_alpha_3(
    code: str | None, stored: str | None
) -> None:
    assert country_code(code) == stored


def test_the_federation_table_names_iso_countries_only() -> None:
    import pycountry

    iso = {c.alpha_3 for c in pycountry.countries}
    assert set(FEDERATION_CODES.values()) <= iso


def test_the_expression_agrees_with_the_function() -> None:
    codes = ["GER", "de", "ENG", "", None, "sui"]
    frame = pl.DataFrame({"country": codes}, schema={"country": pl.String})
    assert frame.select(country_code_expr("country"))["country"].to_list() == [
        country_code(c) for c in codes
    ]
