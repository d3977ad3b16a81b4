"""Countries: every code of a country is one stored form; a code that names no country is
stored as unknown, and a reader can warn of it with the file, line and value."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from typing import Any

import polars as pl
import pycountry
import pytest

from ratings import countries
from ratings.countries import (
    FEDERATION_CODES,
    HISTORIC_CODES,
    OWN_CODES,
    UNKNOWN,
    country_code,
    country_code_expr,
    stored_forms,
    unknown_countries,
)
from ratings.errors import Problem


@pytest.mark.parametrize(
    ("code", "stored"),
    [
        ("GER", "DEU"), ("DEU", "DEU"), ("DE", "DEU"), ("de", "DEU"), (" ger ", "DEU"),
        ("NED", "NLD"), ("NL", "NLD"), ("SUI", "CHE"), ("CH", "CHE"), ("POL", "POL"),
        ("PL", "POL"), ("UK", "GBR"), ("", None), (None, None),
        # Federations that are not ISO countries keep their code.
        ("ENG", "ENG"), ("sco", "SCO"), ("WLS", "WLS"), ("KOS", "KOS"), ("XKX", "KOS"),
        ("FID", "FID"),
        # Federation codes of ISO countries, the federation winning over another ISO code.
        ("JCI", "JEY"), ("IOM", "IMN"), ("FAI", "FRO"), ("MNC", "MCO"), ("BRN", "BRN"),
        ("BRU", "BRN"), ("BHR", "BHR"), ("ANT", "ATG"), ("BUR", "BFA"),
        # Historic countries stay themselves, in their ISO 3166-3 form where they have one.
        ("URS", "SUN"), ("SUN", "SUN"), ("TCH", "CSK"), ("CSK", "CSK"), ("GDR", "DDR"),
        ("DDR", "DDR"), ("FRG", "FRG"), ("YUG", "YUG"), ("SCG", "SCG"), ("ZAI", "ZAR"),
        ("AHO", "AHO"), ("RHO", "RHO"),
        # Not countries.
        ("???", None), ("ST.", None), ("C.C", None), ("XX", None), ("SKB", None),
        ("Bern", None),
    ],
)  # fmt: skip
def test_a_code_is_stored_in_one_form_or_as_unknown(code: str | None, stored: str | None) -> None:
    assert country_code(code) == stored


def test_every_fide_federation_is_known() -> None:
    # FIDE's federation codes (its rating list's "Fed" column), every one a country.
    fide = re.findall(
        r"[A-Z]{3}",
        "AFG AHO ALB ALG AND ANG ANT ARG ARM ARU AUS AUT AZE BAH BAN BAR BDI BEL BER BHU BIH "
        "BIZ BLR BOL BOT BRA BRN BRU BUL BUR CAF CAM CAN CAY CHA CHI CHN CIV CMR COD COL COM "
        "CPV CRC CRO CUB CYP CZE DEN DJI DMA DOM ECU EGY ENG ERI ESA ESP EST ETH FAI FID FIJ "
        "FIN FRA GAB GAM GCI GEO GEQ GER GHA GRE GRN GUA GUM GUY HAI HKG HON HUN INA IND IOM "
        "IRI IRL IRQ ISL ISR ISV ITA IVB JAM JCI JOR JPN KAZ KEN KGZ KOR KOS KSA KUW LAO LAT "
        "LBA LBN LBR LCA LES LIE LTU LUX MAC MAD MAR MAS MAW MDA MDV MEX MGL MKD MLI MLT MNC "
        "MNE MOZ MRI MTN MYA NAM NCA NED NEP NGR NIG NOR NRU NZL OMA PAK PAN PAR PER PHI PLE "
        "PLW PNG POL POR PUR QAT ROU RSA RUS RWA SCO SEN SEY SGP SKN SLE SLO SMR SOL SOM SRB "
        "SRI SSD STP SUD SUI SUR SVK SWE SWZ SYR TAN THA TJK TKM TLS TOG TPE TRI TUN TUR UAE "
        "UGA UKR URU USA UZB VAN VEN VIE VIN WLS YEM ZAM ZIM",
    )
    assert [code for code in fide if country_code(code) is None] == []


def test_the_stored_forms_are_iso_codes_or_named_exceptions() -> None:
    iso = {c.alpha_3 for c in pycountry.countries}
    historic = {c.alpha_3 for c in pycountry.historic_countries}
    exceptions = set(OWN_CODES.values()) | set(HISTORIC_CODES.values())
    assert set(FEDERATION_CODES.values()) <= iso
    assert stored_forms() <= iso | historic | exceptions
    # A stored form is stored as itself: reading a stored code again changes nothing.
    assert {code for code in stored_forms() if country_code(code) != code} == set()


def test_the_expression_agrees_with_the_function() -> None:
    codes = ["GER", "de", "ENG", "", None, "sui", "???", "URS", " c.c "]
    frame = pl.DataFrame({"country": codes}, schema={"country": pl.String})
    assert frame.select(country_code_expr("country"))["country"].to_list() == [
        country_code(c) for c in codes
    ]


def test_unknown_codes_are_warned_of_with_their_lines() -> None:
    frame = pl.DataFrame(
        {"line": [2, 3, 4, 5, 6], "country": ["GER", "???", None, "C.C", "???"]},
        schema={"line": pl.Int64, "country": pl.String},
    )
    assert unknown_countries(frame, "p.csv") == [
        Problem("p.csv", 3, "country", "???", UNKNOWN),
        Problem("p.csv", 5, "country", "C.C", UNKNOWN),
        Problem("p.csv", 6, "country", "???", UNKNOWN),
    ]


def test_a_code_looked_up_while_another_thread_builds_the_table_is_found(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two threads check a file's slices: one asking while the other is half way through
    building the table of codes must not find a half-built one (``DEU`` unknown)."""
    real = list(pycountry.historic_countries)
    halfway, go_on = threading.Event(), threading.Event()
    calls: list[int] = []

    class Slow:
        """The historic countries, the first building stopping after the first of them."""

        def __iter__(self) -> Iterator[Any]:
            calls.append(1)
            yield real[0]
            if len(calls) == 1:
                halfway.set()
                go_on.wait(10)
            yield from real[1:]

    monkeypatch.setattr(countries.pycountry, "historic_countries", Slow())
    countries._table.cache_clear()
    try:
        found: list[str | None] = []
        first = threading.Thread(target=lambda: found.append(country_code("DEU")))
        first.start()
        assert halfway.wait(10)
        assert country_code("DEU") == "DEU"
        go_on.set()
        first.join(10)
        assert found == ["DEU"]
    finally:
        go_on.set()
        countries._table.cache_clear()
