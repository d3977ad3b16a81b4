"""A player's page never waits for its chart: the chart is an image of its own URL, drawn once
and kept by (player, version), and only that image may be answered 503 in a burst.

Over a real server on loopback, on both databases."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from sqlalchemy import select
from sqlalchemy.engine import Engine

from ratings.storage.schema import players
from service.web import create_app
from service.web.charts import ChartCache
from tests.service.web.support import BACKENDS, published_database, running_server, settings

CHART = re.compile(r'<img src="(/players/[^"/]+/chart\.svg\?v=([0-9a-f]{24}))"')


@pytest.fixture(scope="module", params=BACKENDS)
def published(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Engine]:
    with published_database(request, tmp_path_factory.mktemp("charts")) as engine:
        yield engine


@pytest.fixture(scope="module")
def player_ids(published: Engine) -> list[str]:
    with published.connect() as connection:
        ids = connection.scalars(
            select(players.c.federation_id).where(players.c.merged_into.is_(None))
        ).all()
    assert len(ids) >= 10
    return sorted(ids)


async def _burst(base: str, paths: list[str]) -> list[httpx.Response]:
    limits = httpx.Limits(max_connections=len(paths))
    async with httpx.AsyncClient(base_url=base, timeout=60, limits=limits) as client:
        return await asyncio.gather(*(client.get(path) for path in paths))


def test_a_hundred_player_pages_at_once_are_all_served(
    published: Engine, player_ids: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from service.web import players as routes

    drawn: list[Any] = []
    monkeypatch.setattr(routes, "history_svg", lambda *a, **k: drawn.append(a) or b"<svg/>")
    paths = [f"/players/{player_ids[n % len(player_ids)]}" for n in range(100)]
    # The smallest room for charts: a page must not need any of it.
    with running_server(create_app(published, settings(chart_queue=1))) as base:
        answers = asyncio.run(_burst(base, paths))
    assert [a.status_code for a in answers] == [200] * 100
    assert all(CHART.search(a.text) for a in answers)
    assert drawn == []  # no page drew a chart


def test_the_chart_is_drawn_once_per_version_and_kept(
    published: Engine, player_ids: list[str]
) -> None:
    app = create_app(published, settings())
    with running_server(app) as base, httpx.Client(base_url=base, timeout=30) as client:
        page = client.get(f"/players/{player_ids[0]}")
        found = CHART.search(page.text)
        assert found is not None
        url, version = found.groups()
        first = client.get(url)
        assert first.status_code == 200
        assert first.headers["content-type"] == "image/svg+xml"
        assert first.content.startswith(b"<svg ")
        assert first.headers["cache-control"] == "public, max-age=31536000, immutable"
        assert first.headers["etag"] == f'"{version}"'
        cache: ChartCache = app.state.chart_cache
        assert cache.get(player_ids[0], version) == first.content
        assert client.get(url).content == first.content
        # Another version (a page of before the last run) gets the current chart, not kept.
        stale = client.get(f"/players/{player_ids[0]}/chart.svg?v=0123")
        assert (stale.status_code, stale.content) == (200, first.content)
        assert stale.headers["cache-control"] == "no-cache"
        # Another player's chart differs, and has its own version.
        other = CHART.search(client.get(f"/players/{player_ids[1]}").text)
        assert other is not None
        assert other.group(2) != version
        assert client.get(other.group(1)).content != first.content
        assert client.get("/players/nobody/chart.svg?v=0123").status_code == 404
        assert client.get(f"/players/{player_ids[0]}/chart.svg?v={'f' * 65}").status_code == 422


def test_a_burst_of_charts_not_yet_drawn_may_be_refused_but_never_a_page(
    published: Engine, player_ids: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import time

    from service.web import players as routes

    real = routes.history_svg

    def slow(*args: Any, **kwargs: Any) -> bytes:
        time.sleep(0.5)
        return real(*args, **kwargs)

    monkeypatch.setattr(routes, "history_svg", slow)
    ids = player_ids[:10]
    with running_server(create_app(published, settings(chart_queue=1))) as base:
        pages = asyncio.run(_burst(base, [f"/players/{i}" for i in ids]))
        assert [p.status_code for p in pages] == [200] * len(ids)
        urls = [m.group(1) for p in pages if (m := CHART.search(p.text))]
        charts = asyncio.run(_burst(base, urls))
        statuses = [c.status_code for c in charts]
        assert set(statuses) <= {200, 503}
        assert 503 in statuses
        refused = next(c for c in charts if c.status_code == 503)
        assert refused.headers["retry-after"] == "5"
        assert "many charts are being drawn" in refused.json()["detail"]
        # While charts are drawn, pages are still served at once.
        again = asyncio.run(_burst(base, [f"/players/{ids[0]}"] * 20))
        assert [p.status_code for p in again] == [200] * 20
