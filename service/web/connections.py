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

Past the process's file limit (or the system's) the loop cannot accept at all: asyncio logs every
failed ``accept()`` with its traceback, a burst of them for each waiting connection (1,208 in a
second were seen), and retries each a second later. :func:`new_loop`, the loop uvicorn is given,
tries once a second instead and counts the failures (:class:`AcceptFailures`): one line at the
first, then one every ten seconds with the count while they go on.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import sys
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

try:
    # Imported now: once the process is out of descriptors, an import cannot open its file.
    import resource
except ImportError:  # Windows
    resource = None  # type: ignore[assignment]

log = logging.getLogger("ratings.web")

RESOURCE_ERRORS = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})
"""The errors of an ``accept()`` for want of a resource, after which asyncio retries."""


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


def open_files_limit() -> int | None:
    """How many files this process may open (the soft limit), where the system says."""
    if resource is None:  # Windows
        return None
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    return None if soft == resource.RLIM_INFINITY else soft


class AcceptFailures:
    """The loop's exception handler: an ``accept()`` that failed for want of a resource is
    counted, not logged with a traceback; the first of a run of them is one ``accept_failed``
    line, then one every ``interval`` seconds with their count while they go on (asyncio tries
    again once a second). Anything else goes to the loop's default handler, as before."""

    def __init__(self, interval: float = 10.0) -> None:
        self.interval = interval
        self.failures = 0
        self._timer: asyncio.TimerHandle | None = None
        self._limit = open_files_limit()

    def __call__(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        error = context.get("exception")
        if not (
            isinstance(error, OSError)
            and error.errno in RESOURCE_ERRORS
            and context.get("socket") is not None
        ):
            loop.default_exception_handler(context)
            return
        if self._timer is not None:
            self.failures += 1
            return
        self._report(error, 1, None)
        self._timer = loop.call_later(self.interval, self._again, loop, error)

    def _again(self, loop: asyncio.AbstractEventLoop, error: OSError) -> None:
        if not self.failures:
            self._timer = None  # they have stopped: the next one is a first again
            return
        self._report(error, self.failures, self.interval)
        self.failures = 0
        self._timer = loop.call_later(self.interval, self._again, loop, error)

    def _report(self, error: OSError, failures: int, seconds: float | None) -> None:
        log.error(
            "cannot accept connections",
            extra={
                "event": "accept_failed",
                "error": error.strerror or str(error),
                "failures": failures,
                "seconds": seconds,
                "open_files_limit": self._limit,
            },
        )


class _Listening:
    """The listening socket as asyncio's accept loop sees it: after one ``accept()`` failed for
    want of a resource, the next says there is nothing to accept. asyncio then waits a second
    before it tries again, instead of failing once for each connection waiting (up to its
    backlog, 2048, each one with a retry of its own a second later)."""

    def __init__(self, sock: Any) -> None:
        self.sock = sock
        self.refused = False

    def accept(self) -> Any:
        if self.refused:
            raise BlockingIOError(errno.EAGAIN, "accepting again after a pause")
        try:
            return self.sock.accept()
        except OSError as error:
            self.refused = error.errno in RESOURCE_ERRORS
            raise

    def __getattr__(self, name: str) -> Any:
        return getattr(self.sock, name)


class ServiceLoop(asyncio.SelectorEventLoop):
    """asyncio's selector loop with :class:`AcceptFailures` as its exception handler, which
    accepts a connection past the file limit once a second, not once for each waiting one; a
    retry that comes after the service closed its listening socket (it is stopping) is dropped
    rather than logged as an error with its traceback."""

    def __init__(self) -> None:
        super().__init__()
        self.set_exception_handler(AcceptFailures())

    def _accept_connection(
        self, protocol_factory: Any, sock: Any, *args: Any, **kwargs: Any
    ) -> None:
        real = sock.sock if isinstance(sock, _Listening) else sock
        super()._accept_connection(protocol_factory, _Listening(real), *args, **kwargs)  # type: ignore[misc]

    def _start_serving(self, protocol_factory: Any, sock: Any, *args: Any, **kwargs: Any) -> None:
        real = sock.sock if isinstance(sock, _Listening) else sock
        if real.fileno() == -1:
            return
        super()._start_serving(protocol_factory, real, *args, **kwargs)  # type: ignore[misc]


def new_loop() -> asyncio.AbstractEventLoop:
    """The event loop uvicorn runs the service in (its ``loop`` setting names this function)."""
    if sys.platform == "win32":
        loop: asyncio.AbstractEventLoop = asyncio.ProactorEventLoop()
        loop.set_exception_handler(AcceptFailures())
        return loop
    return ServiceLoop()
