"""Refusing an upload over the size limit while it arrives, before it is stored anywhere.

A request that declares a larger ``Content-Length`` is answered at once without reading its body;
one sent in chunks is counted as it is read and stopped at the first chunk past the limit. Either
way the client gets a 413 with the usual error body, never a file written to disk first.
"""

from __future__ import annotations

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
