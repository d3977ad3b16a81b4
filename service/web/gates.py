"""Bounds on the work a burst of requests can start: uploads decoded and seeded, charts drawn,
events' standings computed.

Routes run in a pool of threads that every route shares. Without a bound, a hundred player
pages waiting for the one chart that can be drawn at a time (matplotlib's pyplot keeps global
state) hold every thread, and ``/health`` and the lists wait behind them; a burst of uploads
holds the memory of each decoded file at once. A :class:`Gate` lets ``room`` requests in (one
working, the rest waiting their turn) and answers the next at once with a 503 and
``Retry-After``, so a burst costs its senders a retry rather than everyone their answers.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, cast

from fastapi import Depends, Request
from starlette.exceptions import HTTPException

RETRY_AFTER = "5"
"""Seconds a refused client is asked to wait, in the ``Retry-After`` header."""


class Gate:
    """At most ``room`` requests inside at once, ``at_once`` of them working at a time."""

    def __init__(self, room: int, busy: str, at_once: int | None = None) -> None:
        self._room = threading.BoundedSemaphore(room)
        self._turns = threading.BoundedSemaphore(at_once or room)
        self._busy = busy

    @contextmanager
    def admitted(self) -> Iterator[None]:
        """Inside the gate (a request's whole work, so a refusal costs nothing), or an
        HTTPException 503 when it is full."""
        if not self._room.acquire(blocking=False):
            raise HTTPException(503, self._busy, headers={"Retry-After": RETRY_AFTER})
        try:
            yield
        finally:
            self._room.release()

    @contextmanager
    def turn(self) -> Iterator[None]:
        """One of the ``at_once`` turns to work, waiting for it; only inside :meth:`admitted`."""
        with self._turns:
            yield

    @contextmanager
    def entered(self) -> Iterator[None]:
        """Admitted, and working in a turn."""
        with self.admitted(), self.turn():
            yield


def install(state: object, *, seed_concurrency: int, chart_queue: int) -> None:
    """The app's gates, kept on its ``state``."""
    state.seeding = Gate(  # type: ignore[attr-defined]
        seed_concurrency, "other seed lists are being made; try again in a few seconds"
    )
    # pyplot draws one chart at a time; the others wait their turn, within the queue.
    state.charts = Gate(  # type: ignore[attr-defined]
        chart_queue, "many charts are being drawn; try again in a few seconds", at_once=1
    )
    # An event's standings are computed on each request (about a second for six hundred players
    # and ten rounds): as many may wait as charts, two are computed at a time.
    state.standings = Gate(  # type: ignore[attr-defined]
        chart_queue, "many standings are being computed; try again in a few seconds", at_once=2
    )


def _seeding(request: Request) -> Gate:
    return cast(Gate, request.app.state.seeding)


def _charts(request: Request) -> Gate:
    return cast(Gate, request.app.state.charts)


def _standings(request: Request) -> Gate:
    return cast(Gate, request.app.state.standings)


Seeding = Annotated[Gate, Depends(_seeding)]
"""A route's parameter for the gate of uploads decoded and seeded."""
Charts = Annotated[Gate, Depends(_charts)]
"""A route's parameter for the gate of charts drawn."""
Standings = Annotated[Gate, Depends(_standings)]
"""A route's parameter for the gate of events' standings computed."""
