"""The read-only web service that ``ratings serve`` runs beside the scheduler (SPEC 8).

Routes, with the status codes each can answer:

- ``GET /``: the newest published list as a page (200). Before anything is published it is a
  page saying so, still 200: the site is there, the list is not yet.
- ``GET /lists``: the archive of every published list as a page, linking every list's files and
  changes (200); JSON when ``Accept`` names ``application/json`` and not ``text/html``.
- ``GET /lists.json``: every published list as JSON (200). ``GET /lists.html``, the page's former
  address, redirects to ``/lists`` (308).
- ``GET /lists/{YYYY-MM or YYYY-MM@N}.{csv,xlsx,json,html}``, ``?all=true`` for everyone with an
  ``active`` column: one list (200; 404 for a list never published or a malformed period; 422
  for another format).
- ``GET /players/{id}``: the history page with the rating chart (200, 404).
- ``GET /players/{id}.{json,csv,xlsx,html,svg,png}``: the history as a file (200, 404, 422).
- ``GET /seed``: the upload form (200).
- ``POST /seed``: a participant file (multipart field ``file``) with the fields ``system``
  (swiss or mcmahon), ``pairings``, ``format`` (json, csv, xlsx, html), ``bar``, ``floor``,
  ``mms_from``, ``handicap`` (0 to 9; 0 an even event), ``handicap_correction``,
  ``handicap_threshold``, ``handicap_from`` (mms or rank), ``first_board`` and ``list``: the seed list or round-1 pairing (200; 400 for a
  body that is not multipart form data; 404 for an unknown ``list``; 413 over
  ``upload_limit_bytes``; 422 for a file that is not a participant list, with every problem
  listed, for a bar below the floor, or for a bad field).
- ``GET /health``: service and database (200; 503 when the database does not answer).
- ``GET /openapi.json``: the OpenAPI schema.

Every error body is an :class:`~service.web.errors.ErrorBody` in JSON, or a page when the request's
``Accept`` names ``text/html``. CSV and XLSX come as attachments. Any other method is 405:
importing and publishing stay with the officer's command line. A bug is a 500 with the detail
``internal server error``, its traceback logged.

``POST /seed`` seeds from the published list named in ``list``, by default the newest one, and
from the live ratings only while nothing is published: the site shows nothing the officer has not
published.
"""

from __future__ import annotations

import uvicorn
from fastapi import FastAPI

from service.settings import WebOptions
from service.web.app import create_app
from service.web.connections import guarded_protocol

__all__ = ["create_app", "make_server"]


def make_server(app: FastAPI, options: WebOptions) -> uvicorn.Server:
    """A uvicorn server for ``app`` on the configured host and port (loopback by default).

    ``log_config=None`` leaves logging as the command line set it up; ``server.run()`` blocks,
    so ``ratings serve`` runs it while the scheduler works in its own thread.
    """
    config = uvicorn.Config(
        app,
        host=options.host,
        port=options.port,
        log_config=None,
        server_header=False,
        proxy_headers=False,
        lifespan="off",
        # h11 (pure Python, as on every platform) with a deadline for a request's head and
        # room made by closing idle connections (service.web.connections); its default
        # h11_max_incomplete_event_size (16 KiB) bounds a head's size.
        http=guarded_protocol(options.header_timeout, options.max_connections),
        # Failed accepts past the file limit counted, one line a second (connections.new_loop).
        loop="service.web.connections:new_loop",
        timeout_keep_alive=options.keep_alive,
        # The newcomer past max_connections when no connection is idle gets a 503.
        limit_concurrency=options.max_connections + 1,
        # On SIGTERM, requests in progress get this long, then they are cancelled.
        timeout_graceful_shutdown=options.stop_timeout,
    )
    return uvicorn.Server(config)
