"""Countries as one stored form, whatever code a file uses; a code that names no country is
stored as unknown (None), never as written.

What is accepted, and the form it is stored in:

- ISO 3166-1 alpha-3 (``DEU``) and alpha-2 (``DE``, and ``UK``, which ISO reserves for the
  United Kingdom): the country's ISO alpha-3 code.
- FIDE's and the IOC's federation codes (:data:`FEDERATION_CODES`): where the federation is an
  ISO country, that country's ISO alpha-3 code (``GER`` → ``DEU``, ``NED`` → ``NLD``); a
  federation that is not an ISO country keeps its own code (:data:`OWN_CODES`: ``ENG``,
  ``SCO``, ``WLS``, ``KOS``, ``FID`` for FIDE's own flag). A stored form always reads as
  itself, so where a federation code is another country's ISO alpha-3 code, ISO wins: ``BRN``
  is Brunei (FIDE's ``BRU``), and Bahrain (FIDE's and the IOC's ``BRN``) must be written
  ``BHR`` or ``BH``. Where it is only a code ISO once used, the federation wins: ``ANT`` is
  Antigua and Barbuda, not ISO 3166-3's Netherlands Antilles.
- Countries that no longer exist (:data:`HISTORIC_CODES`), as a federation's archive writes
  them: a historic country stays itself and is never mapped to a country of today (a result of
  the USSR is not a Russian one). It is stored in its ISO 3166-3 alpha-3 form where ISO has one
  that no federation code takes (``URS`` → ``SUN``, ``TCH`` → ``CSK``, ``GDR`` → ``DDR``,
  ``YUG``, ``SCG``, ``ZAI`` → ``ZAR``), else in its IOC/FIDE form: ``FRG`` (ISO has no code for
  West Germany apart from Germany's ``DEU``) and ``AHO`` (the Netherlands Antilles: ISO's
  ``ANT`` is FIDE's Antigua and Barbuda). Every other ISO 3166-3 alpha-3 code is accepted as
  itself.

A code none of these know (``???``, ``ST.``, ``C.C``, a club's code) is not a country: a reader
stores it as unknown and warns with the file, line and value (:func:`unknown_countries`).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

import polars as pl
import pycountry

from ratings.errors import Problem

FEDERATION_CODES: dict[str, str] = {
    # FIDE and IOC codes that are not the country's ISO alpha-3 code (FIDE's federation list,
    # the IOC's country codes), with the ISO alpha-3 code they are stored as.
    "ALG": "DZA", "ANG": "AGO", "ANT": "ATG", "ARU": "ABW", "ASA": "ASM", "BAH": "BHS",
    "BAN": "BGD", "BAR": "BRB", "BER": "BMU", "BHU": "BTN", "BIZ": "BLZ", "BOT": "BWA",
    "BRU": "BRN", "BUL": "BGR", "BUR": "BFA", "CAM": "KHM", "CAY": "CYM",
    "CGO": "COG", "CHA": "TCD", "CHI": "CHL", "CRC": "CRI", "CRO": "HRV", "DEN": "DNK",
    "ESA": "SLV", "FAI": "FRO", "FIJ": "FJI", "GAM": "GMB", "GBS": "GNB", "GCI": "GGY",
    "GEQ": "GNQ", "GER": "DEU", "GRE": "GRC", "GRN": "GRD", "GUA": "GTM", "GUI": "GIN",
    "HAI": "HTI", "HON": "HND", "INA": "IDN", "IOM": "IMN", "IRI": "IRN", "ISV": "VIR",
    "IVB": "VGB", "JCI": "JEY", "KSA": "SAU", "KUW": "KWT", "LAT": "LVA", "LBA": "LBY",
    "LES": "LSO", "LIB": "LBN", "MAD": "MDG", "MAS": "MYS", "MAW": "MWI", "MGL": "MNG",
    "MNC": "MCO", "MON": "MCO", "MRI": "MUS", "MTN": "MRT", "MYA": "MMR", "NCA": "NIC",
    "NED": "NLD", "NEP": "NPL", "NGR": "NGA", "NIG": "NER", "OMA": "OMN", "PAR": "PRY",
    "PHI": "PHL", "PLE": "PSE", "POR": "PRT", "PUR": "PRI", "RSA": "ZAF", "SAM": "WSM",
    "SEY": "SYC", "SIN": "SGP", "SKN": "KNA", "SLO": "SVN", "SOL": "SLB", "SRI": "LKA",
    "SUD": "SDN", "SUI": "CHE", "TAN": "TZA", "TGA": "TON", "TOG": "TGO", "TPE": "TWN",
    "TRI": "TTO", "UAE": "ARE", "URU": "URY", "VAN": "VUT", "VIE": "VNM", "VIN": "VCT",
    "ZAM": "ZMB", "ZIM": "ZWE",
}  # fmt: skip

OWN_CODES: dict[str, str] = {
    # Federations that are not ISO countries keep their FIDE/IOC code; Kosovo's codes in use
    # outside ISO (XK, XKX) are Kosovo's too.
    "ENG": "ENG", "SCO": "SCO", "WLS": "WLS", "KOS": "KOS", "XK": "KOS", "XKX": "KOS",
    "FID": "FID",
}  # fmt: skip

HISTORIC_CODES: dict[str, str] = {
    # IOC/FIDE codes of countries that no longer exist (a federation's archive holds them), and
    # the ISO 3166-3 codes of the same countries, with the one form each is stored as.
    "URS": "SUN", "SUN": "SUN", "SU": "SUN",
    "TCH": "CSK", "CSK": "CSK",
    "GDR": "DDR", "DDR": "DDR", "DD": "DDR",
    "FRG": "FRG",
    "YUG": "YUG", "YU": "YUG",
    "SCG": "SCG",
    "ZAI": "ZAR", "ZAR": "ZAR", "ZR": "ZAR",
    "AHO": "AHO", "AN": "AHO",
}  # fmt: skip

UNKNOWN = "not a country code (ISO 3166, FIDE/IOC or a historic one): stored as unknown"
"""What a reader's warning says of a code no table knows."""


def country_code(code: str | None) -> str | None:
    """The stored form of a country code: ``GER``, ``DEU``, ``DE`` and ``de`` → ``DEU``; an empty
    code, and a code no table knows (``???``), → None."""
    if code is None:
        return None
    return _table().get(code.strip().upper())


def is_unknown(code: str | None) -> bool:
    """Whether ``code`` is written (not empty) but names no country: what a reader warns of."""
    return code is not None and bool(code.strip()) and country_code(code) is None


@functools.cache
def _table() -> dict[str, str]:
    """Every known code → its stored form, built once: ISO 3166-3's historic alpha-3 codes, then
    ISO alpha-3 and alpha-2, then the historic federation codes, the federation codes and the
    federations' own codes, each winning over the ones before it (``ANT`` is Antigua for FIDE,
    the Netherlands Antilles for ISO 3166-3); ISO alpha-3 codes last, as every stored form
    must read as itself.

    The table is built whole before anyone sees it: a file's slices are checked by two threads
    (``importers.results``), and a table filled in place was seen half built by the second
    one, which then took ``DEU`` for no country and stored every German player's country as
    unknown. Two threads that ask at once may each build one; both are complete."""
    table: dict[str, str] = {}
    for historic in pycountry.historic_countries:
        table[historic.alpha_3] = historic.alpha_3
    for country in pycountry.countries:
        table[country.alpha_3] = country.alpha_3
        table[country.alpha_2] = country.alpha_3
    table["UK"] = "GBR"
    table.update(HISTORIC_CODES)
    table.update(FEDERATION_CODES)
    table.update(OWN_CODES)
    for country in pycountry.countries:
        # A stored form reads as itself (FIDE's Bahrain, ``BRN``, is ISO's Brunei).
        table[country.alpha_3] = country.alpha_3
    return table


def stored_forms() -> frozenset[str]:
    """Every code a country is stored as (what a stored country may be)."""
    return frozenset(_table().values())


def country_code_expr(column: str) -> pl.Expr:
    """:func:`country_code` as a polars expression."""
    text = pl.col(column).str.strip_chars().str.to_uppercase()
    table = _table()
    return text.replace_strict(list(table), list(table.values()), default=None).alias(column)


def unknown_countries(
    frame: pl.DataFrame,
    source: str,
    column: str = "country",
    *,
    line: str = "line",
    shown: str | None = None,
    expected: str = UNKNOWN,
) -> list[Problem]:
    """A warning for each row of ``frame`` whose ``column`` (as the file wrote it) is written
    but names no country, with the file, the row's ``line`` and the value; ``shown`` is the
    column's name in the file when it differs, ``expected`` what becomes of the code."""
    written = frame.get_column(column).drop_nulls().unique()
    # Each distinct code is looked up once: a file of ten million rows writes a few hundred.
    unknown = [code for code in written.to_list() if is_unknown(code)]
    if not unknown:
        return []
    bad = frame.filter(pl.col(column).is_in(pl.Series(unknown, dtype=pl.String).implode()))
    return [
        Problem(source, at, shown or column, value, expected)
        for at, value in bad.select(line, column).rows()
    ]


def unknown_country_warnings(
    rows: Iterable[tuple[int | None, str | None]], source: str, column: str = "country"
) -> list[Problem]:
    """:func:`unknown_countries` for (line, code) pairs read one by one."""
    return [Problem(source, line, column, code, UNKNOWN) for line, code in rows if is_unknown(code)]
