"""The column contract of a long-format results file (SPEC 4.1): the columns a results table
may have, the text its cells must match, and the forms a checked file takes (:class:`ResultsFile`,
whole; :class:`SlicedResults`, compact). The readers, the checks and the limits share it."""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from ratings.errors import Problem

REQUIRED = ("tournament", "end_date", "wins", "draws", "losses", "buchholz")
OPTIONAL = (
    "tournament_id", "start_date", "tier", "player_id", "name", "country", "club", "title",
    "fide_id", "egd_pin",
)  # fmt: skip
COLUMNS = REQUIRED + OPTIONAL
"""Every column of a results table, by the names of ``importers.headers``."""
ID_COLUMNS = {"fide_id": "fide", "egd_pin": "egd"}
"""Columns holding another body's id of the player (matched on first, stored as identifiers),
and the scheme each is stored as."""
ID_TEXT = r"^\d{1,20}(\.0*)?$"
"""An external id: digits (a spreadsheet may have stored it as a number, ``4600001.0``)."""

INT_TEXT = r"^\d+(\.0*)?$"
NUMBER_TEXT = r"^-?\d+([.,]\d*)?$"
# Ten digits of whole points is beyond any event (MAX_GAMES games of MAX_GAMES + 1 points each);
# a longer number would overflow the 64 bits of the stored 1e-4 points.
HUGE_BUCHHOLZ_TEXT = r"^0*\d{10,}([.,]\d*)?$"
DATE_TEXT = r"^\d{4}-\d{2}-\d{2}([ T]00:00(:00(\.0+)?)?)?$"


@dataclass(frozen=True, slots=True)
class ResultsFile:
    """A checked long-format file: its tournaments and its result rows."""

    source: str
    sha256: str
    format: str
    tournaments: pl.DataFrame
    """key, name, start_date, end_date, tier, line (first line of the tournament)."""
    results: pl.DataFrame
    """key, line, player_id, name, name_key, country, club, title, wins, draws, losses, buchholz
    (Buchholz as an integer count of 1e-4 points), id_scheme, id_value (the row's FIDE id or
    EGD PIN, if any)."""
    warnings: tuple[Problem, ...] = ()
    """Values read only after cleaning (control characters removed from a name)."""


IDENTITY = ("player_id", "name", "name_key", "country", "club", "id_scheme", "id_value")
"""What the matching reads of a row to find its player: rows alike in all of these are the same
player, found once."""

COMPACT = {
    "tournament": pl.UInt32, "who": pl.UInt32, "line": pl.Int32, "title": pl.Categorical,
    "wins": pl.Int16, "draws": pl.Int16, "losses": pl.Int16, "buchholz": pl.Int64,
}  # fmt: skip
"""A checked slice's rows as kept until they are stored: the tournament (its row in
``tournaments``), the player as written (its row in ``players``), and the values stored."""


@dataclass(frozen=True, slots=True)
class SlicedResults:
    """A checked results file in compact form: its tournaments, the distinct players as written
    in it, and its rows in slices of whole tournaments, each row naming its tournament and its
    player by their row number. Ten million rows take a few hundred megabytes so."""

    source: str
    sha256: str
    format: str
    tournaments: pl.DataFrame
    """key, name, start_date, end_date, tier, line (first line of the tournament)."""
    players: pl.DataFrame
    """line (where the player is first written), then the ``IDENTITY`` columns; row ``who``."""
    slices: tuple[pl.DataFrame, ...]
    """``COMPACT`` columns (and ``position``, a crosstable's player number), in file order."""
    warnings: tuple[Problem, ...] = ()

    @property
    def rows(self) -> int:
        return sum(part.height for part in self.slices)

    def expanded(self, part: pl.DataFrame) -> pl.DataFrame:
        """Rows of ``part`` (a slice, or some of its rows) in the columns of
        ``ResultsFile.results``."""
        keys = self.tournaments["key"].gather(part["tournament"])
        players = self.players.drop("line").gather(part["who"])
        extra = [c for c in part.columns if c not in COMPACT]
        return pl.concat(
            [part.select("line").with_columns(keys.alias("key")), players,
             part.select("title", "wins", "draws", "losses", "buchholz", *extra)],
            how="horizontal",
        ).select(
            "key", pl.col("line").cast(pl.Int64), "player_id", "name", "name_key", "country",
            "club", pl.col("title").cast(pl.String),
            pl.col("wins", "draws", "losses").cast(pl.Int64), "buchholz", "id_scheme",
            "id_value", *extra,
        )  # fmt: skip

    def results(self) -> pl.DataFrame:
        """Every row, expanded (for small files and tests)."""
        parts = [self.expanded(part) for part in self.slices]
        return pl.concat(parts) if parts else pl.DataFrame()

    def file(self) -> ResultsFile:
        return ResultsFile(
            self.source, self.sha256, self.format, self.tournaments, self.results(), self.warnings
        )


TYPED = ("wins", "draws", "losses", "start_date", "end_date", "buchholz")
"""Columns checked as they are stored when a file stores them as whole numbers or dates, and
Buchholz values stored as floats (``importers.results._as_read``)."""
