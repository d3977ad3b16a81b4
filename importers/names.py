"""Comparing player names the way a rating officer does: case, accents and spacing do not count."""

from __future__ import annotations

import unicodedata

import polars as pl

# Letters that are not a base letter plus a combining accent, so Unicode decomposition leaves
# them alone; people typing a name on a keyboard without them write these instead.
_UNDECOMPOSED = {
    "ł": "l",
    "đ": "d",
    "ð": "d",
    "ø": "o",
    "ß": "ss",
    "æ": "ae",
    "œ": "oe",
    "ı": "i",
    "þ": "th",
    "ħ": "h",
}


def name_key(name: str) -> str:
    """The form of a name used for matching: ``"  Łukasz  MÜLLER"`` → ``"lukasz muller"``."""
    decomposed = unicodedata.normalize("NFKD", name.casefold())
    bare = "".join(c for c in decomposed if not unicodedata.combining(c))
    for letter, plain in _UNDECOMPOSED.items():
        bare = bare.replace(letter, plain)
    return " ".join(bare.split())


def name_key_expr(column: str) -> pl.Expr:
    """:func:`name_key` as a polars expression, for whole columns at once."""
    expr = pl.col(column).str.to_lowercase().str.normalize("NFKD").str.replace_all(r"\p{M}", "")
    expr = expr.str.replace_many(list(_UNDECOMPOSED), list(_UNDECOMPOSED.values()))
    return expr.str.replace_all(r"\s+", " ").str.strip_chars()
