"""Refusing an upload over the size limit while it arrives, before it is stored anywhere, and
one that arrives too slowly.

A request that declares a larger ``Content-Length`` is answered at once without reading its body;
one sent in chunks is counted as it is read and stopped at the first chunk past the limit. Either
way the client gets a 413 with the usual error body, never a file written to disk first.
"""

from __future__ import annotations

import asyncio

from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from service.web.errors import ErrorBody, respond, upload_limit_text


class BodyLimit:
    """ASGI middleware: at most ``limit`` bytes of request body; ``shown`` is the limit the
    message names (the file's, without the room left for the form around it)."""

    def __init__(self, app: ASGIApp, *, limit: int, shown: int) -> None:
        self.app = app
        self.limit = limit
        self.shown = shown

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = Headers(scope=scope).get("content-length", "")
        if declared.isdigit() and int(declared) > self.limit:
            body = ErrorBody(detail=upload_limit_text(self.shown))
            # The body stays unread, so the connection cannot carry another request.
            response = respond(Request(scope), 413, body, {"Connection": "close"})
            await response(scope, receive, send)
            return
        received = 0

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.limit:
                    # FastAPI passes an HTTPException raised while it reads the form on to the
                    # app's handler, which answers 413.
                    raise HTTPException(413, upload_limit_text(self.shown))
            return message

        await self.app(scope, counted, send)


class BodyDeadline:
    """ASGI middleware: a request's body must have arrived whole within ``seconds`` of its
    head. A client that stops sending, or sends a byte now and then, gets a 408 and the
    connection is closed, instead of holding a worker and a connection for ever."""

    def __init__(self, app: ASGIApp, *, seconds: float) -> None:
        self.app = app
        self.seconds = seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.seconds
        more = True

        async def timed() -> Message:
            nonlocal more
            if not more:
                # After the body, a receive waits for the client to go: no deadline for that.
                return await receive()
            try:
                message = await asyncio.wait_for(receive(), max(deadline - loop.time(), 0))
            except TimeoutError:
                raise HTTPException(
                    408,
                    f"the request's body did not arrive within {self.seconds:g} seconds",
                    headers={"Connection": "close"},
                ) from None
            more = message["type"] == "http.request" and bool(message.get("more_body"))
            return message

        await self.app(scope, timed, send)
