"""The web server's connections under abuse: a deadline for each request's head, and a bound on
the connections open at once that idle ones cannot use up.

uvicorn closes a connection left idle after a response (``timeout_keep_alive``) and answers 503
past ``limit_concurrency``, but it waits for the head of a request without end, and idle
connections count towards its limit like busy ones: a few hundred clients that connect and
send nothing (or a byte at a time) would hold every slot, and past the process's file limit
the server could not even accept. :func:`guarded_protocol` makes uvicorn's HTTP/1.1 protocol
(h11) close a connection whose request head has not fully arrived within ``header_timeout``
of its opening or of its previous response, and, when more than ``max_connections`` are open,
close the oldest idle one (no request in progress) to make room for the newcomer. When every
connection is busy, uvicorn's own ``limit_concurrency`` answers the newcomer with a 503.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol


class GuardedH11(H11Protocol):
    """uvicorn's h11 protocol with a head deadline and room made by closing idle connections."""

    header_timeout: float = 10.0
    max_connections: int = 500

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head_timer: asyncio.TimerHandle | None = None
        self._waiting_since = 0.0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._await_head()
        if len(self.connections) > self.max_connections:
            self._make_room()

    def data_received(self, data: bytes) -> None:
        cycle = self.cycle
        super().data_received(data)
        if self.cycle is not cycle and self._head_timer is not None:
            # A whole request head has arrived: the body has its own deadline (BodyDeadline).
            self._head_timer.cancel()
            self._head_timer = None

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._await_head()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None
        super().connection_lost(exc)

    @property
    def idle(self) -> bool:
        """No request in progress: waiting for a head, or for the next one."""
        return self.cycle is None or self.cycle.response_complete

    def _await_head(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
        self._waiting_since = self.loop.time()
        self._head_timer = self.loop.call_later(self.header_timeout, self.drop)

    def drop(self) -> None:
        """Close the connection without an answer (the client sent no request to answer)."""
        self._head_timer = None
        if self.transport.is_closing() or not self.idle:
            return  # gone already, or a request (say a pipelined one) is being answered
        with contextlib.suppress(h11.LocalProtocolError):  # half a head: just close
            self.conn.send(h11.ConnectionClosed())
        self.transport.close()
        # Counted out now rather than when the loop reports the close, so the newcomer that
        # made room is not refused for the connection it replaced.
        self.connections.discard(self)

    def _make_room(self) -> None:
        idle = [c for c in self.connections if c is not self and isinstance(c, GuardedH11)]
        idle = [c for c in idle if c.idle and not c.transport.is_closing()]
        if idle:
            min(idle, key=lambda c: c._waiting_since).drop()


def guarded_protocol(header_timeout: float, max_connections: int) -> type[GuardedH11]:
    """The protocol class uvicorn is given (``http=``), with the service's settings."""
    return type(
        "ServiceH11",
        (GuardedH11,),
        {"header_timeout": header_timeout, "max_connections": max_connections},
    )
