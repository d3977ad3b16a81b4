"""Players' rating charts as images of their own, drawn once and kept.

A player page names its chart by URL (``/players/ID/chart.svg?v=VERSION``) and is served without
waiting for it. ``VERSION`` is a digest of what the chart draws (the history's title, days and
ratings), so a run or a list that changes the history changes the URL, and a browser may keep an
image for as long as it likes. The drawn charts are kept in a bounded least-recently-used cache
keyed by the player and that digest: a burst of the same pages draws each chart once. The chart
is :func:`exporters.charts.history_svg`, drawn from text in a millisecond (matplotlib's, a tenth
of a second of a core, stays for the downloads). Reading a history for a chart not kept passes
the chart gate: a burst of them past its room gets 503 for those images only, never for a page.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Sequence
from datetime import date
from typing import Annotated, cast

from cachetools import LRUCache
from fastapi import Depends, Request

CHARTS_KEPT = 512
"""Charts the cache holds (about 30 KB each as SVG: some 15 MB at most)."""


def chart_version(title: str, days: Sequence[date], ratings: Sequence[float]) -> str:
    """The digest of what a player's chart draws: the same history, the same version."""
    digest = hashlib.blake2b(digest_size=12)
    digest.update(title.encode("utf-8"))
    for day, rating in zip(days, ratings, strict=True):
        digest.update(f"|{day.isoformat()}={rating!r}".encode("ascii"))
    return digest.hexdigest()


class ChartCache:
    """Drawn charts by (player, version), the least recently used dropped past ``size``."""

    def __init__(self, size: int = CHARTS_KEPT) -> None:
        self._charts: LRUCache[tuple[str, str], bytes] = LRUCache(maxsize=size)
        self._lock = threading.Lock()

    def get(self, player_id: str, version: str) -> bytes | None:
        with self._lock:
            return self._charts.get((player_id, version))

    def drawn(self, player_id: str, version: str, draw: Callable[[], bytes]) -> bytes:
        """The chart kept for (player, version), else ``draw()``'s, kept. Two requests that
        miss at once may both draw; the second keeps the same bytes."""
        chart = self.get(player_id, version)
        if chart is None:
            chart = draw()
            with self._lock:
                self._charts[(player_id, version)] = chart
        return chart


def install(state: object, size: int = CHARTS_KEPT) -> None:
    state.chart_cache = ChartCache(size)  # type: ignore[attr-defined]


def _cache(request: Request) -> ChartCache:
    return cast(ChartCache, request.app.state.chart_cache)


DrawnCharts = Annotated[ChartCache, Depends(_cache)]
"""A route's parameter for the app's drawn charts."""
