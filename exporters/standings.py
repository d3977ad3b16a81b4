"""A crosstable's standings with every tie-break (SPEC 5), as rows for the writers."""

from __future__ import annotations

from fractions import Fraction

import polars as pl

from ratings.crosstable import Crosstable, System
from ratings.tiebreaks import Policy, compute, ordered

COLUMNS = (
    "place", "name", "points", "mms", "sos", "sos_1", "median", "sodos", "sosos", "cuss", "mdos",
    "sb", "wins",
)  # fmt: skip
SWISS_ORDER = ("points", "sos", "sb")
MCMAHON_ORDER = ("score", "sos", "sosos")


def number(value: Fraction | None) -> str | None:
    """An exact value as a decimal: ``12.5``; a value with no finite decimal (``20 2/3``) to 4 places."""
    if value is None:
        return None
    if value.denominator == 1:
        return str(value.numerator)
    scaled = value * 10**4
    if scaled.denominator == 1:
        return f"{float(value):.4f}".rstrip("0").rstrip(".")
    return f"{float(round(value, 4)):.4f}"


def standings_rows(crosstable: Crosstable, policy: Policy, *, index: bool = False) -> pl.DataFrame:
    """One row per player in standing order; a shared place is written ``3=``.

    Swiss events are ordered by points, SOS, Sonneborn-Berger; McMahon events by MMS, SOS, SOSOS.
    The ``mms`` column is empty in a Swiss event. With ``index`` a last column ``index`` gives
    each row's player as a position in ``crosstable.players``.
    """
    mcmahon = crosstable.system is System.MCMAHON
    standings = compute(crosstable, policy)
    placed = ordered(standings, MCMAHON_ORDER if mcmahon else SWISS_ORDER)
    rows = [
        {
            "place": f"{p.place}=" if p.shared else str(p.place),
            "name": s.name,
            "points": number(s.points),
            "mms": number(s.mms) if mcmahon else None,
            "sos": number(s.sos),
            "sos_1": number(s.sos_cut1),
            "median": number(s.median),
            "sodos": number(s.sodos),
            "sosos": number(s.sosos),
            "cuss": number(s.cuss),
            "mdos": number(s.mdos),
            "sb": number(s.sb),
            "wins": s.wins,
        }
        | ({"index": s.index} if index else {})
        for p in placed
        for s in (p.standing,)
    ]
    schema = dict.fromkeys(COLUMNS, pl.String) | {"wins": pl.Int64}
    if index:
        schema["index"] = pl.Int64
    return pl.DataFrame(rows, schema=schema)


def crosstable_cell(kind: str, opponent: int | None, color: str | None, outcome: str) -> str:
    """One round of a crosstable as printed ones write it: the opponent's number, the colour and
    the result (``5w+``, ``3b=``), ``ff`` after a forfeit, ``bye`` with the points of a bye
    (``bye+``, ``bye=``, ``bye-``), and ``-`` for a round not played."""
    if kind == "absent":
        return "-"
    if opponent is None:
        return f"bye{outcome}"
    return f"{opponent}{(color or '').lower()}{outcome}" + (" ff" if kind == "forfeit" else "")


def crosstable_grid(crosstable: Crosstable) -> pl.DataFrame:
    """The crosstable round by round, one row per player in the file's order: each cell the
    opponent's number (as the file numbers players), the colour and the result (``5w+``),
    ``bye+`` / ``bye=`` / ``bye-`` for a bye by its points, ``-`` for a round not played, and a
    forfeit marked ``ff``."""
    numbers = [player.number for player in crosstable.players]
    rows = []
    for player in crosstable.players:
        cells = dict.fromkeys(range(1, crosstable.rounds + 1), "-")
        for cell in player.cells:
            # A cell holds its opponent's place in the crosstable, not the file's number.
            cells[cell.round] = crosstable_cell(
                cell.kind.value,
                None if cell.opponent is None else numbers[cell.opponent],
                cell.color.value if cell.color else None,
                cell.outcome.value,
            )
        rows.append(
            {"number": player.number, "name": player.name}
            | {f"r{n}": cells[n] for n in sorted(cells)}
        )
    schema = {"number": pl.Int64, "name": pl.String} | {
        f"r{n}": pl.String for n in range(1, crosstable.rounds + 1)
    }
    return pl.DataFrame(rows, schema=schema)
