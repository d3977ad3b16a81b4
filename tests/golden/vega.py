"""Reader for the crosstable and standings pages that the Vega pairing program publishes.

The pages in ``chess_vega/`` come from samuraitruong/vegashare: three Swiss events of 2025 with the
Buchholz (BH), Buchholz Cut-1 and Sonneborn-Berger values Vega printed, following the FIDE 2023
rules for unplayed rounds. Vega writes two layouts: one with a ``#`` column and a boxed player card
per row, one with ``Player``, ``Rtg``, ``Fed`` and ``Origin`` columns. In both:

* players are identified by their registration number (the ``#N`` of the player-card link, also
  shown in the row), and the crosstable's opponent numbers are registration numbers;
* a round cell holds a result (``1``, ``½``, ``0``) and a second box whose class says what it was:
  ``cw``/``cb`` a game with White/Black, ``cf`` a forfeit against the number shown, or the text
  ``BYE`` (1 point: the pairing-allocated bye; ½: a half-point bye); an empty cell is a round the
  player was not paired in;
* cells holding a bye lack their closing ``</td>``, so a new cell closes any open one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from fractions import Fraction
from html.parser import HTMLParser
from pathlib import Path

from ratings.crosstable import Cell, CellKind, Color, Crosstable, CrosstablePlayer, Outcome
from tests.golden import DATA

FOLDER = DATA / "chess_vega"
EVENTS = ("aprilrapid2025", "bestinthewest2025", "koshnitskycup2025")
TIEBREAKS = {"BH": "BH", "BH-C1": "BH-C1", "BH/C1": "BH-C1", "SB": "SB"}
"""Standings column headings, as Vega prints them, to the names :class:`Standings` uses."""

_VOID = {"img", "br", "meta", "link", "input", "hr"}
_NUMBER = re.compile(r"#(\d+)$")
_AT_ROUND = re.compile(r"<h3[^>]*>[^<]*\bat round (\d+)")


@dataclass
class _Cell:
    """One table cell: its texts, each with the classes of the elements around it, and its links."""

    header: bool
    texts: list[tuple[tuple[str, ...], str]] = field(default_factory=list)
    links: list[str] = field(default_factory=list)

    def text(self) -> str:
        return " ".join(" ".join(text for _, text in self.texts).split())

    def text_in(self, css_class: str) -> str | None:
        found = [text for classes, text in self.texts if css_class in classes]
        return " ".join(" ".join(found).split()) if found else None


class _Tables(HTMLParser):
    """Collects every table row as a list of cells, tolerating cells that are never closed."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: list[list[_Cell]] = []
        self.row: list[_Cell] | None = None
        self.cell: _Cell | None = None
        self.stack: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("tr", "td", "th"):
            self.close_cell()
        if tag == "tr":
            self.close_row()
            self.row = []
        elif tag in ("td", "th") and self.row is not None:
            self.cell = _Cell(header=tag == "th")
            self.stack = []
        elif self.cell is not None and tag not in _VOID:
            # A tag Vega leaves unclosed inside another merges attributes; the last class wins.
            self.stack.append((tag, dict(attrs).get("class") or ""))
        if self.cell is not None and tag == "a":
            href = dict(attrs).get("href")
            if href:
                self.cell.links.append(href)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th"):
            self.close_cell()
        elif tag == "tr" or tag == "table":
            self.close_cell()
            self.close_row()
        elif self.cell is not None:
            for depth in range(len(self.stack) - 1, -1, -1):
                if self.stack[depth][0] == tag:
                    del self.stack[depth:]
                    break

    def handle_data(self, data: str) -> None:
        if self.cell is not None and data.strip():
            classes = tuple(name for _, css in self.stack for name in css.split() if name)
            self.cell.texts.append((classes, data))

    def close_cell(self) -> None:
        if self.cell is not None and self.row is not None:
            self.row.append(self.cell)
        self.cell = None
        self.stack = []

    def close_row(self) -> None:
        if self.row:
            self.rows.append(self.row)
        self.row = None


def _table(path: Path) -> tuple[list[str], list[list[_Cell]]]:
    """The headings and body rows of the page's one results table."""
    parser = _Tables()
    parser.feed(path.read_text(encoding="utf-8"))
    parser.close()
    parser.close_cell()
    parser.close_row()
    headings = [row for row in parser.rows if all(cell.header for cell in row)]
    if len(headings) != 1:
        raise ValueError(f"{path.name}: expected one heading row, found {len(headings)}")
    names = [cell.text() for cell in headings[0]]
    body = [row for row in parser.rows if len(row) == len(names) and not row[0].header]
    return names, body


def _registration(row: list[_Cell], player_column: int, path: Path) -> int:
    for link in row[player_column].links:
        if match := _NUMBER.search(link):
            return int(match[1])
    raise ValueError(f"{path.name}: no player-card link in row {row[0].text()!r}")


def _points(text: str) -> Fraction:
    return Fraction(text.replace("½", ".5").strip() or "0")


@dataclass(frozen=True)
class _Round:
    kind: CellKind
    outcome: Outcome
    opponent: int | None
    color: Color | None


def _cell_round(cell: _Cell, where: str) -> _Round:
    result = cell.text_in("res")
    if result is None:
        if cell.text():
            raise ValueError(f"{where}: unexpected cell {cell.text()!r}")
        return _Round(CellKind.ABSENT, Outcome.LOSS, None, None)
    outcome = {"1": Outcome.WIN, "½": Outcome.DRAW, "0": Outcome.LOSS}[result]
    for css, kind, color in (
        ("cw", CellKind.GAME, Color.WHITE),
        ("cb", CellKind.GAME, Color.BLACK),
        ("cf", CellKind.FORFEIT, None),
    ):
        text = cell.text_in(css)
        if text is None:
            continue
        if text == "BYE":
            bye = CellKind.BYE if outcome is Outcome.WIN else CellKind.REQUESTED_BYE
            return _Round(bye, outcome, None, None)
        return _Round(kind, outcome, int(text), color)
    raise ValueError(f"{where}: a result without an opponent box: {cell.texts!r}")


def read_crosstable(event: str) -> Crosstable:
    """The event's crosstable page, players in registration-number order.

    Each player's ``printed["Pts"]`` is the page's points column, checked against the rounds.
    """
    path = FOLDER / f"{event}_crosstable.html"
    names, body = _table(path)
    player_column = names.index("Player")
    points_column = names.index("Pts")
    round_columns = [i for i, name in enumerate(names) if name.isdigit()]
    rows: dict[int, tuple[list[_Cell], list[_Round]]] = {}
    for row in body:
        number = _registration(row, player_column, path)
        where = f"{path.name}, player {number}"
        rounds = [_cell_round(row[i], f"{where}, round {names[i]}") for i in round_columns]
        rows[number] = (row, rounds)
    index = {number: i for i, number in enumerate(sorted(rows))}
    players = []
    for number in sorted(rows):
        row, rounds = rows[number]
        player_cell = row[player_column]
        name = player_cell.text_in("player-name-box2") or _link_text(player_cell)
        rating_text = player_cell.text_in("rating") or (
            row[names.index("Rtg")].text() if "Rtg" in names else ""
        )
        cells = tuple(
            Cell(
                rnd,
                r.kind,
                r.outcome,
                index[r.opponent] if r.opponent is not None else None,
                r.color,
            )
            for rnd, r in enumerate(rounds, start=1)
        )
        player = CrosstablePlayer(
            number=number,
            name=name,
            cells=cells,
            rating=int(rating_text) if rating_text.isdigit() and int(rating_text) else None,
            printed={"Pts": _points(row[points_column].text())},
        )
        if player.points != player.printed["Pts"]:
            raise ValueError(
                f"{path.name}, player {number}: rounds add up to {player.points}, "
                f"the page prints {player.printed['Pts']}"
            )
        players.append(player)
    if _round(path) != len(round_columns):
        raise ValueError(f"{path.name}: the heading's round is not the number of round columns")
    return Crosstable(
        source=path.name,
        format="vega",
        players=tuple(players),
        rounds=len(round_columns),
    )


def _link_text(cell: _Cell) -> str:
    """The name in the second layout: the text after the number and title boxes."""
    texts = [
        text for classes, text in cell.texts if "idn" not in classes and "title" not in classes
    ]
    return " ".join(" ".join(texts).split())


@dataclass(frozen=True)
class Standings:
    """What a standings page prints: the round it stands at, and each player's values as text."""

    round: int
    values: dict[int, dict[str, str]]
    """``{registration number: {"Pts": "4.5", "BH": "16.0", ...}}``, tie-break names as in
    :data:`TIEBREAKS`; kept as text because the number of decimals says how Vega rounded."""


def read_standings(event: str) -> Standings:
    """The standings page of ``event``."""
    path = FOLDER / f"{event}_standings.html"
    names, body = _table(path)
    player_column = names.index("Player")
    columns = {TIEBREAKS[name]: i for i, name in enumerate(names) if name in TIEBREAKS}
    columns["Pts"] = names.index("Pts")
    values = {
        _registration(row, player_column, path): {key: row[i].text() for key, i in columns.items()}
        for row in body
    }
    return Standings(_round(path), values)


def _round(path: Path) -> int:
    """The round a page stands at, from its heading ("Standings at round 5")."""
    match = _AT_ROUND.search(path.read_text(encoding="utf-8"))
    if match is None:
        raise ValueError(f"{path.name}: no 'at round N' heading")
    return int(match[1])


def read_event(event: str) -> tuple[Crosstable, Standings]:
    """The crosstable cut to the round the standings page stands at, and the standings.

    Each player's ``printed`` holds the standings page's values as numbers.

    The Koshnitsky Cup pages were published with round 6 paired but not played: the crosstable
    stands at round 6 (an empty column), the standings at round 5.
    """
    crosstable = read_crosstable(event)
    standings = read_standings(event)
    rounds = standings.round
    if rounds > crosstable.rounds:
        raise ValueError(f"{event}: standings at round {rounds}, crosstable has fewer rounds")
    if sorted(standings.values) != [p.number for p in crosstable.players]:
        raise ValueError(f"{event}: the standings and the crosstable list different players")
    players = []
    for player in crosstable.players:
        printed = {key: _points(text) for key, text in standings.values[player.number].items()}
        cut = replace(player, cells=player.cells[:rounds], printed=printed)
        if cut.points != printed["Pts"]:
            raise ValueError(
                f"{event}, player {player.number}: {cut.points} points after round {rounds}, "
                f"the standings print {printed['Pts']}"
            )
        players.append(cut)
    return replace(crosstable, players=tuple(players), rounds=rounds), standings
