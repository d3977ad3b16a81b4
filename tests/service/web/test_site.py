"""The site's pages: navigation and footer everywhere, the list searched, filtered, sorted and
paged by the database, and the links from list to player to event."""

from __future__ import annotations

import re
from collections.abc import Iterator

import polars as pl
import pytest
from fastapi.testclient import TestClient

from ratings.names import search_words_expr
from service.web import create_app
from tests.service.web.support import (
    GENERATED,
    HOLLERS,
    PERIODS,
    add_generated_list,
    add_list,
    generated_entries,
    published_database,
    settings,
)

SIZE = 3_000
"""Players on the generated list: sixty pages."""
NAV = ('href="/"', 'href="/lists"', 'href="/players"', 'href="/seed"', 'href="/about"')


@pytest.fixture(
    scope="module", params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]
)
def site(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[TestClient]:
    with published_database(request, tmp_path_factory.mktemp("site")) as engine:
        add_generated_list(engine, SIZE)
        yield TestClient(create_app(engine, settings()))


def names(page: str) -> list[str]:
    return re.findall(r'<td class="name"><a href="/players/[^"]+">([^<]+)</a>', page)


def ranks(page: str) -> list[int]:
    return [int(r) for r in re.findall(r'<tr><td class="num">(\d+)</td><td class="name">', page)]


def test_every_page_has_the_navigation_and_the_footer(site: TestClient) -> None:
    event = re.search(r'href="/events/([^"]+)"', site.get("/players/1").text)
    assert event is not None
    paths = [
        "/", "/players", "/lists", f"/lists/{GENERATED}", "/seed", "/about", "/players/1",
        f"/events/{event.group(1)}", f"/lists/{PERIODS[1]}/diff/{PERIODS[0]}", "/players/nobody",
    ]  # fmt: skip
    for path in paths:
        page = site.get(path, headers={"accept": "text/html"}).text
        for link in NAV:
            assert link in page, (path, link)
        assert f'Latest list <a href="/lists/{PERIODS[-1]}%401">' in page, path
        assert "tournaments ending on or before 2022-08-31" in page, path
        assert '<html lang="en">' in page
    # The navigation marks the section a page belongs to, and none for an event (it has none).
    current = {
        path: re.findall(r'<a href="([^"]*)" aria-current="page">', site.get(path).text)
        for path in paths[:8]
    }
    assert current == {
        "/": ["/"], "/players": ["/players"], "/lists": ["/lists"],
        f"/lists/{GENERATED}": ["/lists"], "/seed": ["/seed"], "/about": ["/about"],
        "/players/1": ["/players"], f"/events/{event.group(1)}": [],
    }  # fmt: skip


def test_the_list_sends_one_page_and_pages_through_the_rest(site: TestClient) -> None:
    first = site.get(f"/lists/{GENERATED}").text
    active = SIZE - SIZE // 4
    assert f"Players 1–50 of {active:,}" in first
    assert ranks(first) == list(range(1, 51))
    assert f'href="/lists/{GENERATED}?page=2" rel="next"' in first
    third = site.get(f"/lists/{GENERATED}?page=3").text
    assert ranks(third) == list(range(101, 151))
    assert f"Page 3 of {-(-active // 50)}" in third
    assert f'href="/lists/{GENERATED}?page=2" rel="prev"' in third


def test_the_search_folds_names_as_the_importer_does(site: TestClient) -> None:
    page = site.get(f"/lists/{GENERATED}", params={"q": "holler", "all": "true"}).text
    assert sorted(names(page)) == sorted(HOLLERS)
    assert "Players 1–3 of 3" in page
    # The URL keeps the search for the next page and for every order's link.
    assert 'href="/lists/2021-01?q=holler&amp;all=true&amp;sort=name"' in page
    assert names(site.get(f"/lists/{GENERATED}", params={"q": "  HÖLLER "}).text)


def test_the_search_finds_the_starts_of_words(site: TestClient) -> None:
    def found(q: str) -> list[str]:
        return names(site.get(f"/lists/{GENERATED}", params={"q": q, "all": "true"}).text)

    # A word's start, not any part of it: "aut" is no part of a name that a reader would find in
    # "Gauthier", and "holl" is the start of the Höllers' name.
    assert found("aut") == []
    assert sorted(found("holl")) == sorted(HOLLERS)
    gauthiers = found("gau")
    assert gauthiers
    assert all("Gauthier" in n for n in gauthiers)
    # Every word searched is the start of one of the name's words, in any order.
    assert sorted(found("höller ann")) == ["Anna Höller"]
    assert sorted(found("ANNA   holler")) == ["Anna Höller"]
    assert found("anna gauthier") == []
    # A federation id is found as typed.
    assert found("G1") == ["Karl Gauthier 1"]


def test_a_country_is_chosen_from_those_on_the_list(site: TestClient) -> None:
    page = site.get(f"/lists/{GENERATED}", params={"country": "AUT", "all": "true"}).text
    assert re.findall(r"<option(?: selected)?>([A-Z]{3})</option>", page) == [
        "AUT", "CZE", "FRA", "GER", "ITA", "POL",
    ]  # fmt: skip
    countries = re.findall(r'</a></td><td class="opt">[^<]*</td><td>([A-Z]*)</td>', page)
    assert countries
    assert set(countries) == {"AUT"}
    assert "Gauthier" not in " ".join(names(page))


def test_a_title_filter_and_the_orders(site: TestClient) -> None:
    titled = site.get(f"/lists/{GENERATED}", params={"title": "GM", "all": "true"}).text
    assert f"of {len(range(0, SIZE, 97))}" in titled
    by_name = names(site.get(f"/lists/{GENERATED}", params={"sort": "name", "all": "true"}).text)
    assert by_name[:3] == list(HOLLERS[:1]) + by_name[1:3]
    assert by_name == sorted(by_name, key=lambda n: n.casefold().replace("ö", "o"))
    lowest = site.get(f"/lists/{GENERATED}", params={"sort": "rating", "desc": "false"}).text
    assert ranks(lowest)[:2] == [SIZE - SIZE // 4, SIZE - SIZE // 4 - 1]
    games = site.get(f"/lists/{GENERATED}", params={"sort": "games"}).text
    played = [int(g) for g in re.findall(r'<td class="num opt">(\d+)</td><td class="opt">', games)]
    assert played == sorted(played, reverse=True)


def test_ratings_are_whole_with_the_exact_one_in_a_tooltip(site: TestClient) -> None:
    page = site.get(f"/lists/{GENERATED}").text
    assert '<td class="num" title="exact rating 3000.0000000000">3000</td>' in page
    for heading in ("Rank", "Name", "Rating", "Games", "Last played"):
        assert re.search(rf">{heading}(</a>)?</th>", page), heading


def test_bad_list_parameters_are_refused(site: TestClient) -> None:
    assert site.get("/", params={"sort": "height"}).status_code == 422
    assert site.get("/", params={"page": "0"}).status_code == 422
    assert site.get("/lists/2099-01").status_code == 404


def test_list_to_player_to_event(site: TestClient) -> None:
    home = site.get("/").text
    player = re.search(r'<td class="name"><a href="(/players/[^"]+)">', home)
    assert player is not None
    page = site.get(player.group(1)).text
    event = re.search(r'<a href="(/events/[^"]+)">', page)
    assert event is not None
    shown = site.get(event.group(1))
    assert shown.status_code == 200
    assert player.group(1) in shown.text
    assert ">Rating before</th>" in shown.text
    assert site.get("/events/nothing").status_code == 404


def test_the_archive_has_figures_versions_and_downloads(site: TestClient) -> None:
    page = site.get("/lists").text
    for period in PERIODS:
        for fmt in ("csv", "xlsx", "json"):
            assert f'href="/lists/{period}%401.{fmt}"' in page
    assert re.search(r'<td class="num opt">\+?-?\d+\.\d\d</td>', page)
    changes = site.get(f"/lists/{PERIODS[1]}/diff/{PERIODS[0]}")
    assert changes.status_code == 200
    assert "players differ" in changes.text


def test_a_search_matching_many_counts_only_so_far(
    site: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("jobs.list_pages.COUNT_CAP", 100)
    monkeypatch.setattr("service.web.lists.COUNT_CAP", 100)
    page = site.get(f"/lists/{GENERATED}", params={"q": "g", "page": "2"}).text
    assert "Players 51–100 of more than 100" in page
    assert ranks(page) == sorted(ranks(page))
    assert 'rel="next"' in page
    assert ">Last</a>" not in page


@pytest.mark.parametrize("everyone", [False, True])
def test_a_deep_page_in_rank_order_is_the_same_slice_with_ties(
    site: TestClient, everyone: bool
) -> None:
    """Deep pages start at their rank group through the index: with ratings shared by several
    players, each page must still be exactly its slice of the whole order."""
    from jobs.list_pages import list_page

    engine = site.app.state.engine  # type: ignore[attr-defined]
    tied = generated_entries(200).with_columns(
        (pl.col("rating") // 30_000_000_000 * 30_000_000_000).alias("rating")
    )
    rank = pl.col("rating").rank("min", descending=True).cast(pl.Int64)
    tied = tied.with_columns(
        pl.when(pl.col("active")).then(rank.over("active")).alias("rank"), rank.alias("rank_all")
    )
    period = "2020-02" if everyone else "2020-01"
    add_list(engine, tied, period)
    with engine.connect() as connection:
        whole = list_page(connection, period, everyone=everyone, per_page=200).rows
        assert whole["rank"].n_unique() < whole.height
        for number in range(1, 30):
            page = list_page(connection, period, everyone=everyone, page=number, per_page=7)
            assert page.rows.equals(whole.slice((number - 1) * 7, 7)), number


@pytest.mark.parametrize("everyone", [False, True])
@pytest.mark.parametrize(
    ("sort", "descending", "country"),
    [("name", False, None), ("name", True, None), ("games", False, None),
     ("rating", True, None), ("rank", False, "AUT"), ("name", False, "AUT")],
)  # fmt: skip
def test_a_deep_page_in_any_order_is_its_slice_of_the_whole(
    site: TestClient,
    everyone: bool,
    sort: str,
    descending: bool,
    country: str | None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # From DEEP_FROM entries on, a page's players are found in the order's index first and only
    # they are read: every page is still exactly its slice of the whole list in that order.
    from jobs.list_pages import list_page
    from ratings.storage import list_pages

    engine = site.app.state.engine  # type: ignore[attr-defined]
    asked = {"everyone": everyone, "sort": sort, "descending": descending, "country": country}
    with engine.connect() as connection:
        whole = list_page(connection, GENERATED, **asked, per_page=SIZE).rows
        assert whole.height > 150
        monkeypatch.setattr(list_pages, "DEEP_FROM", 100)
        for number in (1, 3, 4, 17, whole.height // 50 + 1):
            page = list_page(connection, GENERATED, **asked, page=number, per_page=50).rows
            assert page.equals(whole.slice((number - 1) * 50, 50)), number


@pytest.mark.parametrize("everyone", [False, True])
@pytest.mark.parametrize("search", ["gau", "karl g", "g", "holler"])
def test_a_search_pages_in_rank_order_as_the_list_ranks(
    site: TestClient, search: str, everyone: bool
) -> None:
    # Worked out from the entries themselves: each word searched starts a word of the name.
    frame = generated_entries(SIZE).filter(
        pl.all_horizontal(
            search_words_expr("name")
            .str.split(" ")
            .list.eval(pl.element().str.starts_with(word))
            .list.any()
            for word in search.split()
        )
    )
    rank = "rank_all" if everyone else "rank"
    expected = frame.drop_nulls(rank).sort(rank, "player")[rank].to_list()
    params = {"q": search, "all": str(everyone).lower()}
    for page, desc in ((1, None), (2, None), (1, "false")):
        shown = ranks(site.get(f"/lists/{GENERATED}", params=params | {
            "page": str(page), **({"sort": "rating", "desc": desc} if desc else {}),
        }).text)  # fmt: skip
        wanted = list(reversed(expected)) if desc else expected
        assert shown == wanted[(page - 1) * 50 : page * 50], (page, desc)
