"""The web service's app: one factory that wires the error handlers, the upload limit and one
router per area (lists, players, seed lists, health) over a database and the service's options."""

from __future__ import annotations

import functools

from fastapi import FastAPI
from sqlalchemy.engine import Engine

from jobs.accounts import signing_key
from service.settings import WebOptions, utc_now
from service.web import (
    auth,
    charts,
    desk,
    gates,
    health,
    lists,
    officer,
    players,
    rating,
    seed,
    submissions,
)
from service.web.errors import ServerErrors, install
from service.web.limits import BodyDeadline, BodyLimit

ENVELOPE = 64 * 1024
"""Room for the multipart boundaries and the small form fields around an uploaded file, so that
a file just under the upload limit is not refused for its wrapping."""

ROUTERS = (
    lists.router,
    players.router,
    rating.router,
    seed.router,
    health.router,
    auth.router,
    submissions.router,
    desk.router,
    officer.router,
)


def create_app(engine: Engine, options: WebOptions) -> FastAPI:
    """The web service over ``engine``: published lists, player histories, seed lists for the
    public; submissions for directors; the desk for the officer."""
    app = FastAPI(
        title="Rating lists",
        version="1",
        description=(
            "Published rating lists, player histories and first-round seed lists, for everyone; "
            "results submitted by tournament directors and decided on by the rating officer, "
            "with an account (Authorization: Bearer TOKEN)."
        ),
        # The interactive docs pages load their scripts from a CDN; the schema is enough.
        docs_url=None,
        redoc_url=None,
    )
    # The routes find both through their dependencies (service.web.responses).
    app.state.engine = engine
    app.state.options = options
    gates.install(
        app.state, seed_concurrency=options.seed_concurrency, chart_queue=options.chart_queue
    )
    charts.install(app.state)
    app.state.health = health.Checks()
    app.state.throttle = auth.Throttle(options)
    app.state.site_key = functools.cache(
        lambda: options.signing_key or signing_key(engine, utc_now())
    )
    limit = options.upload_limit
    install(app, upload_limit=limit, routes=[r for router in ROUTERS for r in router.routes])
    app.add_exception_handler(auth.LoginNeeded, auth.login_needed)
    # Inside the body limit: the token is looked for in a body already bounded.
    app.add_middleware(
        auth.Csrf,
        secret=app.state.site_key,
        secure=options.secure_cookies,
    )
    app.add_middleware(BodyLimit, limit=limit + ENVELOPE, shown=limit)
    app.add_middleware(BodyDeadline, seconds=options.body_timeout)
    app.add_middleware(ServerErrors)
    for router in ROUTERS:
        app.include_router(router)
    return app
