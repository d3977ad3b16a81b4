"""The crosstable parts of the site: an event that came as a crosstable shows every round of every
player, and a player's page lists their games, each as the file has it."""

from __future__ import annotations

import html
import re
from datetime import UTC, date, datetime
from pathlib import Path
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.engine import Engine

from importers.crosstables import read_crosstable
from importers.from_crosstable import EventOptions
from jobs.importing import import_files
from jobs.rating import run_ratings
from ratings.crosstable import CellKind, Crosstable
from ratings.formula import MeloParams
from ratings.storage.schema import tournaments
from service.web import create_app
from tests.service.web.support import settings
from tests.support.data import GOLDEN

NOW = datetime(2026, 11, 1, tzinfo=UTC)
JUVISY = GOLDEN / "go_opengotha" / "juvisy2019.xml"
"""19 players, 4 rounds, four rounds missed (OpenGotha's sample; tests/data/SOURCES.md)."""
TRF = GOLDEN / "chess_trf_samples" / "bbp_issue_7_CR_line_endings.trf"
"""60 players, 14 rounds, 50 forfeits."""
ROW = re.compile(
    r'<tr><td class="num">(\d+)</td><td class="num">[^<]*</td>'
    r'<td class="name"><a href="/players/([^"]+)">([^<]+)</a></td>'
    r"((?:<td class=\"round\">[^<]*</td>)+)</tr>"
)


def imported(engine: Engine, file: Path) -> TestClient:
    event = None if file == JUVISY else EventOptions(name="Club", end_date=date(2025, 3, 2))
    import_files(engine, [file], event=event, imported_by="t", now=NOW)
    run_ratings(engine, MeloParams(), now=NOW)
    return TestClient(create_app(engine, settings()))


def event_key(engine: Engine) -> str:
    with engine.connect() as connection:
        return str(connection.execute(select(tournaments.c.key)).scalar_one())


def expected_cell(crosstable: Crosstable, places: dict[str, int], name: str, round: int) -> str:
    """The round as a printed crosstable writes it, worked out from the file itself."""
    player = next(p for p in crosstable.players if p.name == name)
    cell = next((c for c in player.cells if c.round == round), None)
    if cell is None or cell.kind is CellKind.ABSENT:
        return "-"
    if cell.opponent is None:
        return f"bye{cell.outcome.value}"
    opponent = crosstable.players[cell.opponent].name
    colour = cell.color.value if cell.color else ""
    forfeit = " ff" if cell.kind is CellKind.FORFEIT else ""
    return f"{places[opponent]}{colour}{cell.outcome.value}{forfeit}"


@pytest.mark.parametrize("file", [JUVISY, TRF], ids=["opengotha", "trf"])
def test_the_event_page_shows_each_round_as_the_file_has_it(engine: Engine, file: Path) -> None:
    client = imported(engine, file)
    crosstable = read_crosstable(file)
    page = client.get(f"/events/{event_key(engine)}").text
    assert '<h2 id="crosstable">Crosstable</h2>' in page
    assert "".join(f'<th scope="col">R{n}</th>' for n in range(1, crosstable.rounds + 1)) in page
    rows = [
        (int(place), pid, html.unescape(name), re.findall(r'<td class="round">([^<]*)</td>', cells))
        for place, pid, name, cells in ROW.findall(page)
    ]
    assert [place for place, *_ in rows] == list(range(1, len(crosstable.players) + 1))
    places = {name: place for place, _, name, _ in rows}
    shown = {name: cells for _, _, name, cells in rows}
    expected = {
        p.name: [
            expected_cell(crosstable, places, p.name, r) for r in range(1, crosstable.rounds + 1)
        ]
        for p in crosstable.players
    }
    assert shown == expected
    # What the file holds is in the table: missed rounds and forfeits.
    every = [cell for cells in shown.values() for cell in cells]
    if file == JUVISY:
        assert every.count("-") == 4
    else:
        assert sum(cell.endswith(" ff") for cell in every) == 50


def test_a_players_games_name_and_link_each_opponent(engine: Engine) -> None:
    client = imported(engine, JUVISY)
    crosstable = read_crosstable(JUVISY)
    key = event_key(engine)
    event = client.get(f"/events/{key}").text
    ids = {html.unescape(name): pid for _, pid, name, _ in ROW.findall(event)}
    # A player who missed a round, so that the page shows a game, and a round not played.
    player = next(p for p in crosstable.players if any(c.kind is CellKind.ABSENT for c in p.cells))
    page = client.get(f"/players/{ids[player.name]}").text
    assert "<h2>Games</h2>" in page
    # Under the event's heading, one line per round.
    assert (
        f'<tr class="event"><th scope="colgroup" colspan="4"><a href="/events/{quote(key)}">'
        in page
    )
    games = re.findall(
        r'<tr><td class="num">(\d+)</td>'
        r'<td class="name">(.*?)</td><td>([a-z]*)</td><td>([a-z ]*)</td></tr>',
        page,
    )
    expected = []
    for cell in player.cells:
        if cell.kind is CellKind.ABSENT:
            expected.append((str(cell.round), "not played", "", ""))
            continue
        assert cell.opponent is not None
        opponent = crosstable.players[cell.opponent].name
        link = f'<a href="/players/{ids[opponent]}">{html.escape(opponent, quote=False)}</a>'
        colour = {"w": "white", "b": "black"}[cell.color.value] if cell.color else ""
        result = {"+": "won", "=": "drawn", "-": "lost"}[cell.outcome.value]
        expected.append((str(cell.round), link, colour, result))
    assert sorted(games) == sorted(expected)
    # Each opponent's link leads to their page.
    for _, opponent, _, _ in games:
        if opponent != "not played":
            link = re.search(r'href="(/players/[^"]+)"', opponent)
            assert link is not None
            assert client.get(link[1]).status_code == 200
