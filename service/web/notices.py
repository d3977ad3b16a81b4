"""What a desk page says after the officer's action (merged, unmerged, deleted, published). It
crosses the redirect in the page's address, signed with the site's key and good for five minutes:
a link made by anyone else cannot put words of their choosing on the officer's desk."""

from __future__ import annotations

from itsdangerous import BadData, URLSafeTimedSerializer
from starlette.requests import Request

MAX_AGE_SECONDS = 300
"""How long after the action its notice is still shown (a reload, the back button)."""
SHOWN = 300
"""Most characters of a notice shown."""
_SALT = "ratings.desk.notice"


def _serializer(request: Request) -> URLSafeTimedSerializer:
    """Signed with the site's key, the one its forms' CSRF tokens are signed with."""
    return URLSafeTimedSerializer(request.app.state.site_key(), salt=_SALT)


def address(request: Request, path: str, text: str) -> str:
    """``path`` with ``text`` signed as its notice."""
    return f"{path}?said={_serializer(request).dumps(text[:SHOWN])}"


def shown(request: Request, token: str) -> str:
    """The notice a page's ``said`` carries, or nothing when it is missing, forged or old."""
    if not token:
        return ""
    try:
        text = _serializer(request).loads(token[:4096], max_age=MAX_AGE_SECONDS)
    except BadData:
        return ""
    return text[:SHOWN] if isinstance(text, str) else ""
