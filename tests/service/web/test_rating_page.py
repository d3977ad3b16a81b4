"""The site's "About the rating" page (the evaluation of the published history) and the per-game
expectation on the event and player pages. Public and read-only: anyone may read them, nothing
may be written through them. On SQLite and PostgreSQL."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text
from sqlalchemy.engine import Engine

from jobs.evaluation import evaluation, tournament_expectations
from jobs.importing import import_files
from jobs.options import ListOptions
from jobs.publishing import publish_list
from jobs.rating import run_ratings
from ratings.formula import MeloParams
from ratings.storage.database import open_engine
from service.web import create_app
from tests.service.web.support import settings
from tests.support import crosstables

NOW = datetime(2026, 11, 1, tzinfo=UTC)
CUTOFF = date(2023, 3, 31)
"""The list's cut-off: the events after it are rated but not yet published."""


@pytest.fixture(
    scope="module", params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]
)
def engine(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Engine]:
    folder = tmp_path_factory.mktemp("rating-page")
    if request.param == "sqlite":
        url = f"sqlite:///{folder / 'ratings.sqlite'}"
    else:
        url = request.getfixturevalue("postgres_database")
        scratch = create_engine(url)
        with scratch.begin() as connection:
            connection.execute(text("DROP SCHEMA public CASCADE"))
            connection.execute(text("CREATE SCHEMA public"))
        scratch.dispose()
    engine = open_engine(url)
    try:
        yield engine
    finally:
        engine.dispose()


@pytest.fixture(scope="module")
def site(engine: Engine, tmp_path_factory: pytest.TempPathFactory) -> TestClient:
    folder = tmp_path_factory.mktemp("events")
    for event in crosstables.history(folder, events=20):
        import_files(engine, [event.path], event=event.options, imported_by="t", now=NOW)
    run_ratings(engine, MeloParams(), now=NOW)
    return TestClient(create_app(engine, settings()))


def test_without_a_list_there_is_nothing_to_evaluate(engine: Engine, site: TestClient) -> None:
    # Runs first in the module: nothing is published yet.
    page = site.get("/about/rating")
    assert page.status_code == 200
    assert "No rating list has been published yet" in page.text
    assert "<svg" not in page.text


def test_the_page_shows_the_evaluation_of_the_published_history(
    engine: Engine, site: TestClient
) -> None:
    publish_list(engine, "2023-04", ListOptions(), by="officer", now=NOW, cutoff=CUTOFF)
    page = site.get("/about/rating")
    assert page.status_code == 200
    with engine.connect() as connection:
        published = evaluation(connection, MeloParams(), date_to=CUTOFF).figures
        everything = evaluation(connection, MeloParams()).figures
    # Only the events up to the list's cut-off count.
    assert published["results"] < everything["results"]
    assert f"<b>{published['results']}</b>" in page.text
    assert f"<b>{published['score_mse']:.6f}</b>" in page.text
    assert f"on or before {CUTOFF}" in page.text
    assert page.text.count("<svg") == 4
    for tier, figures in published["by_tier"].items():
        assert f'<td>{tier}</td><td class="num">{figures["results"]}</td>' in page.text
    # The page is reachable from "How ratings work".
    assert 'href="/about/rating"' in site.get("/about").text


def test_the_page_can_only_be_read(site: TestClient) -> None:
    for method in ("POST", "PUT", "DELETE", "PATCH"):
        answer = site.request(method, "/about/rating")
        assert answer.status_code == 405, method


def test_event_and_player_pages_show_the_per_game_expectation(
    engine: Engine, site: TestClient
) -> None:
    key = "Event 001 2023-01-21"
    with engine.connect() as connection:
        _, expectations = tournament_expectations(connection, key)
    page = site.get(f"/events/{key}").text
    assert "E by games" in page
    assert "Change by games" in page
    for row in expectations.iter_rows(named=True):
        cells = f'<td class="num">{row["expected_by_games"]:.2f}</td>'
        assert cells in page, row["federation_id"]
        assert f"{row['change_by_games']:+.2f}" in page
    player = expectations["federation_id"][0]
    mine = expectations.filter(expectations["federation_id"] == player).row(0, named=True)
    page = site.get(f"/players/{player}").text
    assert "Expected by games" in page
    assert f"{mine['expected_by_games']:.2f}" in page
    assert f"{mine['change_by_games']:+.2f}" in page


def test_every_players_page_has_each_events_per_game_figures_and_games(
    engine: Engine, site: TestClient
) -> None:
    """The player page reads a player's games and per-game figures for all their events at once;
    for every player they are what each event's own reading gives (the event page's)."""
    from jobs.queries import player_page
    from ratings.storage import tournaments as stored

    with engine.connect() as connection:
        keys = stored.list_tournaments(connection)["key"].to_list()
        expected: dict[str, dict[str, tuple[float, float]]] = {}
        games: dict[str, list[tuple[object, ...]]] = {}
        for key in keys:
            event, frame = tournament_expectations(connection, key)
            if event.seq is None:
                continue
            for row in frame.iter_rows(named=True):
                if row["expected_by_games"] is not None:
                    expected.setdefault(row["federation_id"], {})[key] = (
                        round(row["expected_by_games"], 2), round(row["change_by_games"], 2)
                    )  # fmt: skip
            played = stored.event_games(connection, event).sort("round", maintain_order=True)
            for row in played.iter_rows(named=True):
                games.setdefault(row["federation_id"], []).append(
                    (key, row["round"], row["kind"], row["opponent_federation_id"],
                     row["opponent_name"], row["color"], row["outcome"])
                )  # fmt: skip
        assert len(expected) > 10
        for federation_id, by_key in expected.items():
            page = player_page(connection, federation_id, rounding="half_up")
            shown = {
                row["key"]: (row["expected_by_games"], row["change_by_games"])
                for row in page.rows.iter_rows(named=True)
                if row["expected_by_games"] is not None
            }
            assert shown == by_key, federation_id
            order = {key: n for n, key in enumerate(reversed(page.rows["key"].to_list()))}
            assert sorted(page.games.rows(), key=lambda r: (order[r[0]], r[1])) == sorted(
                games[federation_id], key=lambda r: (order[r[0]], r[1])
            ), federation_id


def test_an_event_without_games_shows_no_per_game_columns(
    engine: Engine, site: TestClient, tmp_path: Path
) -> None:
    table = tmp_path / "table.csv"
    table.write_text(
        "tournament,tournament_id,start_date,end_date,tier,player_id,name,wins,draws,losses,buchholz\n"
        "Table Cup,TC1,2023-05-01,2023-05-02,regular,2,Player 2,1,0,0,0\n"
        "Table Cup,TC1,2023-05-01,2023-05-02,regular,3,Player 3,0,0,1,1\n"
    )
    import_files(engine, [table], imported_by="t", now=NOW)
    run_ratings(engine, MeloParams(), now=NOW)
    page = site.get("/events/TC1").text
    assert "Rating after" in page
    assert "E by games" not in page
    assert re.search(r"imported as a results table", page)
