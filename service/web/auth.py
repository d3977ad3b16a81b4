"""Who is calling: accounts on the site (a server-side session in an HttpOnly cookie, or an API
token as ``Authorization: Bearer TOKEN``), the login and logout pages with their throttle, the
CSRF protection every form has, and the dependencies a route states who may call it with.

- ``GET /login``: the form (200). ``POST /login``: a session and a redirect (303) to ``next``
  or the account's own page; the form again with 401 for a wrong name or password; 429 after
  repeated failures of one account or from one address; 403 without the form's CSRF token.
- ``POST /logout``: ends the session (303 to ``/``).
- ``GET /account``, ``POST /account/password``: a logged-in person changes their password; the
  account's other sessions end.

A route that needs someone answers an anonymous API call (a path under ``/api/``, or a request
that does not ask for a page) with 401, and a person at a page with a redirect to ``/login``; a
director where an officer is needed gets 403.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any, cast
from urllib.parse import quote

from asgi_csrf import asgi_csrf_decorator
from fastapi import APIRouter, Depends, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from limits import RateLimitItemPerSecond
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter
from python_multipart.exceptions import MultipartParseError
from python_multipart.multipart import MultipartParser, parse_options_header
from sqlalchemy.exc import SQLAlchemyError
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from jobs.accounts import (
    MAX_PASSWORD,
    SESSION_DAYS,
    Account,
    log_in,
    log_out,
    password_is,
    session_account,
    set_password,
    token_account,
)
from jobs.queries import newest_footer
from ratings.errors import AccountError
from service.settings import WebOptions, utc_now
from service.web.errors import ErrorBody, error_responses, respond
from service.web.responses import Database, Options, page

SESSION_COOKIE = "ratings_session"
CSRF_COOKIE = "csrftoken"
CSRF_FIELD = "csrftoken"
"""The hidden field of every form that carries the CSRF token (asgi-csrf's name)."""

router = APIRouter()


class LoginNeeded(Exception):
    """Raised by a dependency when nobody is logged in; the app answers 401 or a redirect."""


def _bearer(request: Request) -> str | None:
    header = request.headers.get("authorization")
    if header is None:
        return None
    scheme, _, token = header.partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


def _viewer(request: Request, engine: Database) -> Account | None:
    """The account calling, or None. A request with an Authorization header is judged by its
    token alone, never by a cookie beside it (CSRF protection leaves such requests alone)."""
    if hasattr(request.state, "account"):
        return cast(Account | None, request.state.account)
    now = utc_now()
    token = _bearer(request)
    if token is not None:
        account = token_account(engine, token, now) if token else None
    else:
        session = request.cookies.get(SESSION_COOKIE)
        account = session_account(engine, session, now) if session else None
    request.state.account = account
    return account


Viewer = Annotated[Account | None, Depends(_viewer)]
"""A route's parameter for whoever is calling, None for the public."""


def _someone(account: Viewer) -> Account:
    if account is None:
        raise LoginNeeded
    return account


def _officer(account: Annotated[Account, Depends(_someone)]) -> Account:
    if not account.officer:
        raise HTTPException(403, "only the rating officer may do this")
    return account


Someone = Annotated[Account, Depends(_someone)]
"""A route's parameter for a logged-in caller of either role."""
Officer = Annotated[Account, Depends(_officer)]
"""A route's parameter for an officer; a director gets 403."""


def wants_page(request: Request) -> bool:
    return not request.url.path.startswith("/api/") and "text/html" in request.headers.get(
        "accept", ""
    )


async def login_needed(request: Request, _error: Exception) -> Response:
    if wants_page(request) and _bearer(request) is None:
        target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        return RedirectResponse(f"/login?next={quote(target, safe='/')}", status_code=303)
    detail = "log in first: this needs an account (a session, or Authorization: Bearer TOKEN)"
    return respond(request, 401, ErrorBody(detail=detail), {"WWW-Authenticate": "Bearer"})


def csrf_token(request: Request) -> str:
    """The token a form carries in its hidden ``csrftoken`` field (the cookie is set with the
    page that shows it)."""
    return cast(Callable[[], str], request.scope["csrftoken"])()


def context(request: Request, account: Account | None) -> dict[str, Any]:
    """What every page of the accounts' part of the site gets: who is logged in, the form
    token, the footer."""
    with request.app.state.engine.connect() as connection:
        footer = newest_footer(connection)
    return {"account": account, "csrf": csrf_token(request), "footer": footer}


class Csrf:
    """ASGI middleware: asgi-csrf's double-submit cookie on every form, signed with the site's
    key. A request carrying ``Authorization: Bearer`` is left alone (no browser sends one by
    itself), as is one without any cookie, which no session can be behind (``/login`` is always
    checked). A refusal is a 403 with the usual error body."""

    def __init__(self, app: ASGIApp, *, secret: Callable[[], str], secure: bool) -> None:
        self.app = app
        self.secret = secret
        self.secure = secure
        self.inner: Callable[[Scope, Receive, Send], Awaitable[None]] | None = None

    def _protected(self) -> Callable[[Scope, Receive, Send], Awaitable[None]]:
        """The app behind asgi-csrf, made on the first request: the key may have to be read
        from the database, which a service starts without."""
        if self.inner is None:
            self.inner = asgi_csrf_decorator(
                cookie_name=CSRF_COOKIE,
                form_input=CSRF_FIELD,
                signing_secret=self.secret(),
                always_protect={"/login"},
                cookie_secure=self.secure,
                cookie_samesite="Lax",
                send_csrf_failed=_refused,
            )(self.app)
        return self.inner

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        safe = scope["method"] in ("GET", "HEAD", "OPTIONS")
        try:
            protected = self._protected()
        except SQLAlchemyError:
            if safe:
                # Nothing a read changes; /health says what is wrong with the database.
                await self.app(scope, receive, send)
                return
            body = ErrorBody(detail="the database does not answer: try again in a moment")
            await respond(_request(scope), 503, body)(scope, receive, send)
            return
        if not safe:
            headers = Headers(scope=scope)
            kind = headers.get("content-type", "")
            checked = "cookie" in headers and not headers.get("authorization", "").startswith(
                "Bearer "
            )
            if checked and kind.startswith("multipart/form-data"):
                await self._multipart(scope, receive, send, protected, kind)
                return
        await protected(scope, receive, send)

    async def _multipart(
        self,
        scope: Scope,
        receive: Receive,
        send: Send,
        protected: Callable[[Scope, Receive, Send], Awaitable[None]],
        kind: str,
    ) -> None:
        """A multipart form's token, found in its body (before its file, as asgi-csrf asks)
        and handed to asgi-csrf as its header, which it compares with the signed cookie: its
        own reader of multipart bodies does not fit the python-multipart this project uses."""
        boundary = parse_options_header(kind)[1].get(b"boundary")
        if not boundary:
            body = ErrorBody(detail="a multipart body needs a boundary in its Content-Type")
            await respond(_request(scope), 400, body)(scope, receive, send)
            return
        try:
            token, messages = await _form_token(boundary, receive)
        except StarletteHTTPException as error:
            # The body's limit or deadline (service.web.limits), raised while it is read here,
            # outside the app's handlers.
            body = ErrorBody(detail=str(error.detail))
            await respond(_request(scope), error.status_code, body, error.headers)(
                scope, receive, send
            )
            return
        if token is None:
            await _refused(scope, send, None)
            return

        async def replay() -> Message:
            return messages.pop(0) if messages else await receive()

        field = CSRF_HEADER.encode("latin-1")
        headers = [(k, v) for k, v in scope["headers"] if k.lower() != field]
        headers.append((field, token.encode("latin-1", "replace")))
        await protected({**scope, "headers": headers}, replay, send)


CSRF_HEADER = "x-csrftoken"
TOKEN_MOST = 200
"""Most bytes of a form's token: a signed token is far shorter."""


class _Found(Exception):
    pass


async def _form_token(boundary: bytes, receive: Receive) -> tuple[str | None, list[Message]]:
    """The ``csrftoken`` field of a multipart body, read until it is found (or a file comes
    first, or the body ends), and the messages read, to replay."""
    state: dict[str, Any] = {"field": b"", "value": b"", "name": None, "data": b""}

    def header_field(data: bytes, start: int, end: int) -> None:
        state["field"] += data[start:end]

    def header_value(data: bytes, start: int, end: int) -> None:
        state["value"] += data[start:end]

    def header_end() -> None:
        if state["field"].lower() == b"content-disposition":
            options = parse_options_header(state["value"])[1]
            state["name"] = options.get(b"name")
            if b"filename" in options and state["name"] != CSRF_FIELD.encode():
                raise _Found  # a file before the token: no token
        state["field"], state["value"] = b"", b""

    def part_data(data: bytes, start: int, end: int) -> None:
        if state["name"] == CSRF_FIELD.encode():
            state["data"] = (state["data"] + data[start:end])[: TOKEN_MOST + 1]

    def part_end() -> None:
        if state["name"] == CSRF_FIELD.encode():
            state["token"] = state["data"]
            raise _Found
        state["name"], state["data"] = None, b""

    parser = MultipartParser(
        boundary,
        {
            "on_header_field": header_field,
            "on_header_value": header_value,
            "on_header_end": header_end,
            "on_part_data": part_data,
            "on_part_end": part_end,
        },
    )
    messages: list[Message] = []
    more = True
    try:
        while more:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                break
            parser.write(message.get("body", b""))
            more = bool(message.get("more_body"))
    except _Found:
        pass
    except MultipartParseError:
        return None, messages
    token = state.get("token")
    if token is None or len(token) > TOKEN_MOST:
        return None, messages
    return token.decode("latin-1"), messages


def _request(scope: Scope) -> Request:
    return Request(scope)


async def _refused(scope: Scope, send: Send, _reason: object) -> None:
    body = ErrorBody(
        detail="the form was sent without its security token (CSRF): open the page again and "
        "send the form from there"
    )

    async def nothing() -> dict[str, Any]:
        return {"type": "http.disconnect"}

    await respond(_request(scope), 403, body)(scope, nothing, send)


class Throttle:
    """Failed logins counted per account and per address in a moving window (``limits``):
    past either bound, ``/login`` answers 429 until the window has moved on."""

    def __init__(self, options: WebOptions) -> None:
        self.limiter = MovingWindowRateLimiter(MemoryStorage())
        seconds = options.login_throttle_seconds
        self.account = RateLimitItemPerSecond(options.login_failures_per_account, seconds)
        self.address = RateLimitItemPerSecond(options.login_failures_per_address, seconds)
        self.seconds = seconds

    def allowed(self, name: str, address: str) -> bool:
        return self.limiter.test(self.account, "account", name) and self.limiter.test(
            self.address, "address", address
        )

    def failed(self, name: str, address: str) -> None:
        self.limiter.hit(self.account, "account", name)
        self.limiter.hit(self.address, "address", address)

    def succeeded(self, name: str) -> None:
        self.limiter.clear(self.account, "account", name)


def _throttle(request: Request) -> Throttle:
    return cast(Throttle, request.app.state.throttle)


def _safe_next(target: str | None, account: Account | None = None) -> str:
    """Where a login leads: a path on this site only (never ``//elsewhere``)."""
    if target and target.startswith("/") and not target.startswith("//") and "\\" not in target:
        return target
    if account is None:
        return "/"
    return "/desk" if account.officer else "/submit"


def _login_page(
    request: Request, *, status: int = 200, message: str = "", name: str = "", target: str = ""
) -> HTMLResponse:
    response = page(
        "login.html.j2",
        title="Log in",
        section="login",
        message=message,
        name=name,
        target=target,
        **context(request, None),
    )
    response.status_code = status
    return response


@router.get("/login", response_class=HTMLResponse, include_in_schema=False)
def login_form(request: Request, next: str = "") -> Response:
    return _login_page(request, target=_safe_next(next) if next else "")


@router.post(
    "/login",
    response_class=HTMLResponse,
    include_in_schema=False,
    responses=error_responses(401, 403, 429),
)
def login(
    request: Request,
    engine: Database,
    web: Options,
    name: Annotated[str, Form(max_length=100)] = "",
    password: Annotated[str, Form(max_length=MAX_PASSWORD)] = "",
    next: Annotated[str, Form(max_length=2000)] = "",
) -> Response:
    throttle = _throttle(request)
    address = request.client.host if request.client else "unknown"
    name = name.strip()
    if not throttle.allowed(name, address):
        minutes = max(round(throttle.seconds / 60), 1)
        return _login_page(
            request,
            status=429,
            message=f"Too many failed logins for this account or from this address: wait "
            f"{minutes} minute{'s' if minutes != 1 else ''} and try again.",
            name=name,
            target=next,
        )
    done = log_in(
        engine, name, password, address=address, now=utc_now(),
        previous_session=request.cookies.get(SESSION_COOKIE),
    )  # fmt: skip
    if done is None:
        throttle.failed(name, address)
        refused = _login_page(
            request, status=401, message="The name or the password is wrong.", name=name,
            target=next,
        )  # fmt: skip
        refused.delete_cookie(SESSION_COOKIE, path="/")
        return refused
    account, session = done
    throttle.succeeded(name)
    response = RedirectResponse(_safe_next(next, account), status_code=303)
    response.set_cookie(
        SESSION_COOKIE,
        session,
        max_age=SESSION_DAYS * 24 * 3600,
        path="/",
        httponly=True,
        samesite="lax",
        secure=web.secure_cookies,
    )
    return response


@router.post("/logout", include_in_schema=False)
def logout(request: Request, engine: Database, account: Someone) -> Response:
    session = request.cookies.get(SESSION_COOKIE)
    if session:
        log_out(engine, session, account, now=utc_now())
    response = RedirectResponse("/", status_code=303)
    response.delete_cookie(SESSION_COOKIE, path="/")
    return response


@router.get("/account", response_class=HTMLResponse, include_in_schema=False)
def account_page(request: Request, account: Someone) -> Response:
    return page(
        "account.html.j2", title="Your account", section="account", message="",
        **context(request, account),
    )  # fmt: skip


@router.post("/account/password", response_class=HTMLResponse, include_in_schema=False)
def change_password(
    request: Request,
    engine: Database,
    account: Someone,
    current: Annotated[str, Form(max_length=MAX_PASSWORD)] = "",
    new: Annotated[str, Form(max_length=MAX_PASSWORD)] = "",
    again: Annotated[str, Form(max_length=MAX_PASSWORD)] = "",
) -> Response:
    session = request.cookies.get(SESSION_COOKIE)
    status, message = 200, ""
    if _bearer(request) is not None or not session:
        raise HTTPException(403, "a password is changed on the site, logged in")
    throttle = _throttle(request)
    address = request.client.host if request.client else "unknown"
    if not throttle.allowed(account.name, address):
        status, message = 429, "Too many wrong passwords: wait a while and try again."
    elif new != again:
        status, message = 422, "The new password and its repetition differ."
    elif not password_is(engine, account.name, current):
        # Guessing the password from a session left open is throttled as at the login.
        throttle.failed(account.name, address)
        status, message = 403, "The current password is wrong."
    else:
        try:
            ended = set_password(
                engine, account.name, new, by=account.name, now=utc_now(), keep_session=session
            )
        except AccountError as error:
            status, message = 422, f"{str(error)[:1].upper()}{str(error)[1:]}."
        else:
            message = (
                f"Your password is changed; {ended} other session{'s' if ended != 1 else ''} "
                "of your account ended."
            )
    response = page(
        "account.html.j2", title="Your account", section="account", message=message,
        **context(request, account),
    )  # fmt: skip
    response.status_code = status
    return response
