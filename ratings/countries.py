"""Countries as one stored form, ISO 3166 alpha-3, whatever code a file uses.

FIDE and the IOC give federations three-letter codes of their own (``GER``, ``NED``, ``SUI``); the
EGD writes ISO alpha-2 (``DE``); registries usually hold ISO alpha-3 (``DEU``). ``pycountry`` keeps
the ISO table; :data:`FEDERATION_CODES` lists the federation codes that differ from ISO alpha-3.
A code that is none of them is kept as written (upper case), so nothing a file says is lost.
"""

from __future__ import annotations

import polars as pl
import pycountry

FEDERATION_CODES: dict[str, str] = {
    # FIDE and IOC codes that are not the country's ISO alpha-3 code (FIDE's federation list,
    # the IOC's country codes). Codes of federations that are not ISO countries (ENG, SCO, WLS,
    # KOS as XKX is not ISO either) are kept as they are.
    "ALG": "DZA", "ANG": "AGO", "ANT": "ATG", "ARU": "ABW", "BAH": "BHS",
    "BAN": "BGD", "BAR": "BRB", "BER": "BMU", "BHU": "BTN", "BIZ": "BLZ", "BOT": "BWA",
    "BRU": "BRN", "BUL": "BGR", "BUR": "BFA", "CAM": "KHM", "CAY": "CYM", "CGO": "COG",
    "CHA": "TCD", "CHI": "CHL", "CRC": "CRI", "CRO": "HRV", "DEN": "DNK", "ESA": "SLV",
    "FIJ": "FJI", "GAM": "GMB", "GEQ": "GNQ", "GER": "DEU", "GRE": "GRC", "GRN": "GRD",
    "GUA": "GTM", "GUI": "GIN", "HAI": "HTI", "HON": "HND", "INA": "IDN",
    "IRI": "IRN", "ISV": "VIR", "IVB": "VGB", "KSA": "SAU", "KUW": "KWT", "LAT": "LVA",
    "LBA": "LBY", "LES": "LSO", "LIB": "LBN", "MAD": "MDG", "MAS": "MYS", "MAW": "MWI",
    "MGL": "MNG", "MRI": "MUS", "MTN": "MRT", "MYA": "MMR", "NCA": "NIC", "NED": "NLD",
    "NEP": "NPL", "NGR": "NGA", "NIG": "NER", "OMA": "OMN", "PAR": "PRY", "PHI": "PHL",
    "PLE": "PSE", "POR": "PRT", "PUR": "PRI", "RSA": "ZAF", "SAM": "WSM", "SEY": "SYC",
    "SIN": "SGP", "SKN": "KNA", "SLO": "SVN", "SOL": "SLB", "SRI": "LKA", "SUD": "SDN",
    "SUI": "CHE", "TAN": "TZA", "TGA": "TON", "TOG": "TGO", "TPE": "TWN", "TRI": "TTO",
    "UAE": "ARE", "URU": "URY", "VAN": "VUT", "VIE": "VNM", "VIN": "VCT", "ZAM": "ZMB",
    "ZIM": "ZWE",
}  # fmt: skip


def country_code(code: str | None) -> str | None:
    """The stored form of a country code: ``GER``, ``DEU``, ``DE`` and ``de`` → ``DEU``; an empty
    code → None; a code no table knows → itself in upper case."""
    if code is None:
        return None
    text = code.strip().upper()
    if not text:
        return None
    return _table().get(text, text)


_TABLE: dict[str, str] = {}


def _table() -> dict[str, str]:
    """Every known code → ISO alpha-3, built once: ISO alpha-3 and alpha-2 first, then the
    federation codes, which win where a federation code is another country's ISO code (``ANT``
    is Antigua for FIDE, the Netherlands Antilles for ISO's old table)."""
    if not _TABLE:
        for country in pycountry.countries:
            _TABLE[country.alpha_3] = country.alpha_3
            _TABLE[country.alpha_2] = country.alpha_3
        _TABLE.update(FEDERATION_CODES)
    return _TABLE


def country_code_expr(column: str) -> pl.Expr:
    """:func:`country_code` as a polars expression."""
    text = pl.col(column).str.strip_chars().str.to_uppercase()
    return pl.when(text == "").then(None).otherwise(text.replace(_table())).alias(column)
