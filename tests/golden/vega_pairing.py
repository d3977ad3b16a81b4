"""Reader for two pages of a Vega event: its player list and its round-1 pairing.

``chess_vega/bestinthewest2025_players_by_rating.html`` and ``…_pairs_round1.html`` come from
samuraitruong/vegashare (see ``tests/data/SOURCES.md``): the 2025 Hobsons Bay Chess Club "Best in
The West", 106 players, as the Vega pairing program published it.

* The player list has the columns ``#`` (registration number, which Vega also pairs by), ``Title``,
  ``Player`` (``Surname,Given``), ``Fed``, ``Origin``, ``Rtg`` (the rating used for pairing; 0 for
  an unrated player), ``RtgF`` and ``RtgN``.
* The pairing has one row per board: ``Bo.``, ``White Player`` and ``Black Player`` (each with the
  registration number in a ``idwhite``/``idblack`` box), ``Result``. A player who asked for a
  half-point bye has a board of his own whose black cell reads ``( half point bye )``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser

from tests.golden import DATA

FOLDER = DATA / "chess_vega"


@dataclass(frozen=True, slots=True)
class VegaPlayer:
    number: int
    """Registration number; Vega's pairing numbers are these."""
    title: str | None
    name: str
    federation: str
    rating: int
    """``Rtg``; 0 marks an unrated player."""


@dataclass(frozen=True, slots=True)
class VegaBoard:
    board: int
    white: int
    black: int | None
    """Registration number of Black; None on a bye board."""
    result: str
    bye: str | None
    """The text of the black cell on a bye board, such as ``half point bye``."""


@dataclass
class _Cell:
    text: list[str] = field(default_factory=list)
    boxes: dict[str, list[str]] = field(default_factory=dict)
    """Text inside elements by their CSS classes (``idwhite``, ``title``, ...)."""

    def joined(self) -> str:
        return " ".join("".join(self.text).split())

    def box(self, css_class: str) -> str | None:
        found = self.boxes.get(css_class)
        return " ".join("".join(found).split()) if found is not None else None


class _Rows(HTMLParser):
    """Every table row as a list of cells; a new cell or row closes one left open."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: list[list[_Cell]] = []
        self.row: list[_Cell] | None = None
        self.cell: _Cell | None = None
        self.classes: list[tuple[str, tuple[str, ...]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "tr":
            self.row = []
            self.rows.append(self.row)
            self.cell = None
        elif tag in ("td", "th") and self.row is not None:
            self.cell = _Cell()
            self.row.append(self.cell)
            self.classes = []
        elif self.cell is not None and tag not in ("img", "br"):
            css = dict(attrs).get("class") or ""
            self.classes.append((tag, tuple(css.split())))

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th"):
            self.cell = None
        elif tag == "tr":
            self.row = self.cell = None
        elif self.cell is not None:
            for index in range(len(self.classes) - 1, -1, -1):
                if self.classes[index][0] == tag:
                    del self.classes[index:]
                    break

    def handle_data(self, data: str) -> None:
        if self.cell is None:
            return
        self.cell.text.append(data)
        for _, classes in self.classes:
            for css in classes:
                self.cell.boxes.setdefault(css, []).append(data)


def _table(page: str) -> tuple[list[str], list[list[_Cell]]]:
    """The heading and the body rows of the page's first table."""
    parser = _Rows()
    parser.feed((FOLDER / page).read_text(encoding="utf-8"))
    heading = next(row for row in parser.rows if row and row[0].joined() in ("#", "Bo."))
    body = [row for row in parser.rows if len(row) == len(heading) and row is not heading]
    return [cell.joined().lstrip("↕ ").strip() for cell in heading], body


def read_players(event: str = "bestinthewest2025") -> list[VegaPlayer]:
    """The registered players in registration-number order."""
    heading, body = _table(f"{event}_players_by_rating.html")
    column = {name: heading.index(name) for name in ("#", "Title", "Player", "Fed", "Rtg")}
    players = [
        VegaPlayer(
            number=int(row[column["#"]].joined()),
            title=row[column["Title"]].joined() or None,
            name=row[column["Player"]].joined(),
            federation=row[column["Fed"]].joined(),
            rating=int(row[column["Rtg"]].joined()),
        )
        for row in body
    ]
    return sorted(players, key=lambda player: player.number)


def read_pairing(event: str = "bestinthewest2025", round_: int = 1) -> list[VegaBoard]:
    """The boards of a round in the order printed."""
    heading, body = _table(f"{event}_pairs_round{round_}.html")
    white = heading.index("White Player")
    black = heading.index("Black Player")
    result = heading.index("Result")
    boards = []
    for row in body:
        black_number = row[black].box("idblack")
        boards.append(
            VegaBoard(
                board=int(row[0].joined()),
                white=int(row[white].box("idwhite") or "0"),
                black=int(black_number) if black_number else None,
                result=row[result].joined(),
                bye=None if black_number else row[black].joined().strip("() ") or None,
            )
        )
    return boards
