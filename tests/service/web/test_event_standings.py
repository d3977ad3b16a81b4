"""An event's standings on the site are the tournament's, as ``ratings standings`` gives them.

``fixtures/spring-rapid-byes.trf`` is made up for these tests, in the form Swiss-Manager writes a
TRF16 file: a one-day rapid of 9 players and 4 rounds in Bern, with pairing-allocated byes
(``0000 - U``, a point each), two half-point byes (``H``) and a zero-point bye (``Z``). Schmid
has 3 points with a bye among them, third in the standings, but 2 points from rated games;
Fischer has two byes and 1.5 points, sixth, and no rated point at all. The event is imported
through the import job, then its page, ``/events/KEY.csv`` and ``/events/KEY.json`` are compared
with what ``ratings standings`` prints for the file, on SQLite and PostgreSQL.
"""

from __future__ import annotations

import csv
import html
import io
import json
import re
from datetime import UTC, date, datetime
from pathlib import Path
from urllib.parse import quote

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient
from sqlalchemy import select, update
from sqlalchemy.engine import Engine

from importers.from_crosstable import EventOptions
from jobs.importing import import_files
from jobs.rating import run_ratings
from ratings.formula import MeloParams
from ratings.names import display_name
from ratings.storage.schema import tournaments
from service.cli import cli
from service.web import create_app
from tests.service.web.support import settings
from tests.support.data import DATA, GOLDEN
from tests.support.settings import empty_settings_file

NOW = datetime(2026, 11, 1, tzinfo=UTC)
BYES = Path(__file__).parent / "fixtures" / "spring-rapid-byes.trf"
KEY = "Bernese Spring Rapid 2025 2025-03-29"
JUVISY = GOLDEN / "go_opengotha" / "juvisy2019.xml"
"""A McMahon event: 19 players, 4 rounds, four rounds missed (tests/data/SOURCES.md)."""
JUVISY_KEY = "Tournoi de Juvisy 2019-10-28"
STANDINGS_ROW = re.compile(
    r'<tr><td class="num">([^<]*)</td><td class="name"><a href="/players/([^"]+)">([^<]+)</a>'
    r"</td>((?:<td class=\"num(?: opt)?\">[^<]*</td>)+)</tr>"
)
RATING_ROW = re.compile(
    r'<tr><td class="name"><a href="/players/[^"]+">([^<]+)</a></td><td class="opt">[^<]*</td>'
    r'<td class="num">(\d+/\d+/\d+)</td><td class="num opt">([^<]*)</td>'
)


def imported(engine: Engine, *files: Path) -> TestClient:
    import_files(engine, list(files), imported_by="t", now=NOW)
    run_ratings(engine, MeloParams(), now=NOW)
    return TestClient(create_app(engine, settings()))


def standings(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, database_url: str, *args: str
) -> bytes:
    """What ``ratings standings ARGS`` writes on standard output."""
    monkeypatch.setenv("RATINGS_DATABASE_URL", database_url)
    monkeypatch.setenv("RATINGS_CONFIG", empty_settings_file(tmp_path))
    result = CliRunner().invoke(cli, ["standings", *args], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    return result.stdout_bytes


@pytest.mark.parametrize("fmt", ["csv", "json"])
@pytest.mark.parametrize(("file", "key"), [(BYES, KEY), (JUVISY, JUVISY_KEY)], ids=["trf", "go"])
def test_the_standings_files_are_those_ratings_standings_writes(
    engine: Engine,
    database_url: str,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    file: Path,
    key: str,
    fmt: str,
) -> None:
    client = imported(engine, file)
    served = client.get(f"/events/{quote(key)}.{fmt}")
    assert served.status_code == 200
    from_file = standings(monkeypatch, tmp_path, database_url, str(file), "--format", fmt)
    assert served.content == from_file
    stored = standings(monkeypatch, tmp_path, database_url, "--event", key, "--format", fmt)
    assert stored == from_file
    if fmt == "csv":
        assert served.headers["content-type"] == "text/csv; charset=utf-8"
        assert served.headers["content-disposition"].startswith('attachment; filename="standings-')
    else:
        assert served.headers["content-type"] == "application/json"
        rows = json.loads(served.content)
        assert [r["place"] for r in rows][:3] == ["1", "2", "3"]


def test_the_csv_has_the_byes_the_rated_games_leave_out(engine: Engine) -> None:
    client = imported(engine, BYES)
    lines = client.get(f"/events/{quote(KEY)}.csv").text.splitlines()
    assert lines[0] == "place,name,points,mms,sos,sos_1,median,sodos,sosos,cuss,mdos,sb,wins"
    assert lines[3] == '3,"Schmid, Reto",3,,9,8,4.5,2.5,36,2.5,1.25,5.5,2'
    assert lines[6] == '6,"Fischer, Daniel",1.5,,9.5,8,4.5,0,36,4,0,2.25,0'


def test_the_page_shows_the_standings_and_beside_them_the_ratings_view(
    engine: Engine, database_url: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    client = imported(engine, BYES)
    page = client.get(f"/events/{quote(KEY)}").text
    expected = json.loads(
        standings(monkeypatch, tmp_path, database_url, str(BYES), "--format", "json")
    )
    shown = [
        (place, html.unescape(name), re.findall(r">([^<]*)</td>", cells))
        for place, _, name, cells in STANDINGS_ROW.findall(page)
    ]
    # Place, name, then points, SOS and Sonneborn-Berger (the order), then the other tie-breaks.
    order = ["points", "sos", "sb", "sos_1", "median", "sodos", "sosos", "cuss", "mdos", "wins"]
    # The page names each player as the registry shows him (a new player's display form); the
    # file's spelling stays in the files.
    assert shown == [
        (row["place"], display_name(row["name"]), [str(row[c]) for c in order]) for row in expected
    ]
    assert f'href="/events/{quote(KEY)}.csv"' in page
    assert f'href="/events/{quote(KEY)}.json"' in page
    assert '<h2 id="rating">Rating</h2>' in page
    rated = {html.unescape(name): (wdl, points) for name, wdl, points in RATING_ROW.findall(page)}
    # The rating counts the games over the board: no bye.
    assert rated["Reto Schmid"] == ("2/0/1", "2.0")
    assert rated["Daniel Fischer"] == ("0/0/2", "0.0")
    assert list(rated) == [display_name(row["name"]) for row in expected]


def test_an_event_imported_before_its_record_was_kept_has_the_same_standings(
    engine: Engine, database_url: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    client = imported(engine, BYES)
    with engine.begin() as connection:
        connection.execute(update(tournaments).values(standings=None))
    served = client.get(f"/events/{quote(KEY)}.csv").text
    from_file = standings(monkeypatch, tmp_path, database_url, str(BYES), "--format", "csv")
    # Without the record, the players are named as the registry names them: the display form
    # of the file's spelling.
    rows = list(csv.reader(io.StringIO(from_file.decode())))
    assert list(csv.reader(io.StringIO(served))) == [
        rows[0],
        *([row[0], display_name(row[1]), *row[2:]] for row in rows[1:]),
    ]


def test_an_event_from_a_results_table_says_it_has_no_standings(
    engine: Engine, database_url: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    table = tmp_path / "results.csv"
    table.write_text(
        "tournament,tournament_id,start_date,end_date,tier,player_id,name,country,wins,draws,"
        "losses,buchholz\n"
        "Herbstblitz Bern,T0000901,2025-10-04,2025-10-04,regular,P1,Anna Keller,CHE,2,0,0,1\n"
        "Herbstblitz Bern,T0000901,2025-10-04,2025-10-04,regular,P2,Reto Schmid,CHE,1,0,1,2\n"
        "Herbstblitz Bern,T0000901,2025-10-04,2025-10-04,regular,P3,Jonas Baumann,CHE,0,0,2,3\n",
        encoding="utf-8",
    )
    client = imported(engine, table)
    page = client.get("/events/T0000901").text
    assert "was imported as a results table" in page
    assert ".csv" not in page
    assert RATING_ROW.findall(page)[0] == ("Anna Keller", "2/0/0", "2.0")
    message = (
        "the event T0000901 was imported as a results table, without its rounds: it has no "
        "standings (its page shows each player's rated games)"
    )
    for fmt in ("csv", "json"):
        answer = client.get(f"/events/T0000901.{fmt}")
        assert answer.status_code == 404
        assert answer.json()["detail"] == message
    browser = client.get("/events/T0000901.csv", headers={"Accept": "text/html"})
    assert browser.status_code == 404
    assert "<h1>Not found</h1>" in browser.text
    assert message in html.unescape(browser.text)
    monkeypatch.setenv("RATINGS_DATABASE_URL", database_url)
    monkeypatch.setenv("RATINGS_CONFIG", empty_settings_file(tmp_path))
    result = CliRunner().invoke(cli, ["standings", "--event", "T0000901"])
    assert (result.exit_code, result.stderr) == (1, f"error: {message}\n")


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_an_unknown_event_has_no_standings_file(engine: Engine, fmt: str) -> None:
    client = imported(engine, BYES)
    answer = client.get(f"/events/{quote('Bernese Spring Rapid 2024')}.{fmt}")
    assert answer.status_code == 404
    assert answer.json() == {"detail": "no event has the key Bernese Spring Rapid 2024",
                             "problems": []}  # fmt: skip
    page = client.get(f"/events/nothing.{fmt}", headers={"Accept": "text/html"})
    assert page.status_code == 404
    assert "<h1>Not found</h1>" in page.text
    # A key with a dot of its own is still the page's when it does not end in a file's suffix.
    assert client.get("/events/Open%202025.1").status_code == 404


def test_a_name_that_reads_as_a_formula_is_guarded_in_the_csv(
    engine: Engine, database_url: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    text = BYES.read_bytes().replace(b"Fischer, Daniel ", b"=Fischer,Daniel+")
    file = tmp_path / "formula.trf"
    file.write_bytes(text)
    client = imported(engine, file)
    served = client.get(f"/events/{quote(KEY)}.csv").content
    assert served == standings(monkeypatch, tmp_path, database_url, str(file), "--format", "csv")
    row = served.decode().splitlines()[6]
    assert row.startswith("6,'=Fischer,") or row.startswith("6,\"'=Fischer,")
    # Numbers stay numbers.
    assert row.endswith(",1.5,,9.5,8,4.5,0,36,4,0,2.25,0")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((), "give a crosstable FILE or --event KEY (one of them)"),
        ((str(BYES), "--event", KEY), "give a crosstable FILE or --event KEY (one of them)"),
        (
            ("--event", KEY, "--policy", "fide_2023"),
            "--policy applies to a file: an imported event's standings are computed as it was "
            "imported",
        ),
    ],
)
def test_standings_takes_a_file_or_an_event(args: tuple[str, ...], message: str) -> None:
    result = CliRunner().invoke(cli, ["standings", *args])
    assert result.exit_code == 2
    assert f"Error: {message}" in result.stderr


def test_a_burst_of_standings_is_answered_busy_beyond_the_gate(engine: Engine) -> None:
    imported(engine, BYES)
    app = create_app(engine, settings(chart_queue=1))
    client = TestClient(app)
    # The one place in the gate is taken: the next page or file is refused at once.
    with app.state.standings.admitted():
        for path in (f"/events/{quote(KEY)}", f"/events/{quote(KEY)}.csv"):
            answer = client.get(path)
            assert answer.status_code == 503
            assert answer.headers["retry-after"] == "5"
            assert "many standings are being computed" in answer.json()["detail"]
    assert client.get(f"/events/{quote(KEY)}.csv").status_code == 200


def test_a_mcmahon_event_without_initial_scores_says_why_it_has_no_standings(
    engine: Engine,
) -> None:
    client = imported(engine, JUVISY)
    # As an event whose file gave neither initial McMahon scores nor ranks a scale resolves.
    with engine.begin() as connection:
        text = connection.execute(select(tournaments.c.standings)).scalar_one()
        record = json.loads(text)
        record["players"] = [[line, name, None] for line, name, _ in record["players"]]
        connection.execute(update(tournaments).values(standings=json.dumps(record)))
    page = client.get(f"/events/{quote(JUVISY_KEY)}")
    assert page.status_code == 200
    assert "The standings cannot be computed from the stored crosstable:" in page.text
    told = re.search(r"cannot be computed from the stored crosstable: (.*?)\.</p>", page.text)
    assert told is not None
    assert html.unescape(told[1]) == (
        f"{JUVISY_KEY}, line 4, column 'rank': Rebelo Manuela: the file gives no initial McMahon "
        "score; give the event's McMahon bar and floor (--bar, --floor) to derive it from the "
        "rank (and 18 more like it)"
    )
    assert '<h2 id="rating">Rating</h2>' in page.text
    answer = client.get(f"/events/{quote(JUVISY_KEY)}.csv")
    assert answer.status_code == 404
    assert answer.json()["detail"].startswith(
        f"the standings of the event {JUVISY_KEY} cannot be computed: "
    )


CORPUS = [
    DATA / "corpus" / "trf" / "competichess-testtrffile.trf",
    DATA / "corpus" / "trf" / "sharlychess-lichess-2020-06.trf",
    DATA / "corpus" / "go" / "pg-simplemm.xml",
    DATA / "corpus" / "go" / "egd-egc2023-t230723b.h9",
]
"""Real files (tests/data/SOURCES.md): Swiss-Manager's half-point and pairing byes and
forfeits, lichess's byes and unplayed rounds, a Pairgoth McMahon event, an EGD h9 file."""


@pytest.mark.parametrize("file", CORPUS, ids=[f.name for f in CORPUS])
def test_real_files_give_the_same_standings_on_the_site(
    engine: Engine, database_url: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, file: Path
) -> None:
    import_files(
        engine, [file], event=EventOptions(key="E", end_date=date(2025, 1, 1)),
        imported_by="t", now=NOW,
    )  # fmt: skip
    client = TestClient(create_app(engine, settings()))
    served = client.get("/events/E.csv")
    assert served.status_code == 200
    assert served.content == standings(monkeypatch, tmp_path, database_url, str(file),
                                       "--format", "csv")  # fmt: skip
