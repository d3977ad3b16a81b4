"""The site's accounts: officers and tournament directors, their passwords (argon2, through
pwdlib), API tokens, web sessions and logins. Each function is one transaction; every change is
kept in the account audit with who made it."""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from pwdlib import PasswordHash
from pwdlib.hashers.argon2 import Argon2Hasher
from sqlalchemy.engine import Engine

from ratings.errors import AccountError, UnknownAccountError
from ratings.storage import accounts
from ratings.storage.accounts import AccountRow, EventRow, TokenRow

ROLES = ("officer", "director")
"""An officer does everything; a director submits results and sees their own submissions."""

MIN_PASSWORD = 10
"""Fewest characters of a password."""
MAX_PASSWORD = 1024
"""Most characters of a password: hashing a megabyte would be a way to keep the server busy."""
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@-]{0,99}")
"""An account's name: what a person types at a login form, without spaces."""
SESSION_DAYS = 14
"""How long a web session lasts without a new login."""

HASHER = PasswordHash((Argon2Hasher(),))
"""The one way passwords are hashed; a hash made with other parameters is made again at the
next login."""

_DUMMY = HASHER.hash("a password nobody has")
"""Verified against when the account does not exist, so that a login takes as long either way."""


@dataclass(frozen=True, slots=True)
class Account:
    """Who is logged in, as the site and the jobs see them."""

    id: int
    name: str
    role: str
    email: str | None

    @property
    def officer(self) -> bool:
        return self.role == "officer"


def _account(row: AccountRow) -> Account:
    return Account(row.id, row.name, row.role, row.email)


def digest(secret: str) -> str:
    """What is stored of a token or a session id."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def check_password(password: str) -> None:
    if len(password) < MIN_PASSWORD:
        raise AccountError(f"a password needs at least {MIN_PASSWORD} characters")
    if len(password) > MAX_PASSWORD:
        raise AccountError(f"a password has at most {MAX_PASSWORD} characters")


def add_user(
    engine: Engine,
    name: str,
    *,
    role: str,
    password: str,
    email: str | None = None,
    by: str,
    now: datetime,
) -> Account:
    if not NAME.fullmatch(name):
        raise AccountError(
            f"an account's name is 1 to 100 letters, digits and . _ @ -, starting with a letter "
            f"or digit, not {name[:100]!r}"
        )
    if role not in ROLES:
        raise AccountError(f"a role is officer or director, not {role!r}")
    if email is not None and (len(email) > 254 or "@" not in email):
        raise AccountError(f"not a mail address: {email[:254]!r}")
    check_password(password)
    hashed = HASHER.hash(password)
    with engine.begin() as connection:
        found = accounts.account_by_name(connection, name)
        if found is not None and found.removed_at is None:
            raise AccountError(f"an account named {name!r} exists already")
        account_id = accounts.insert_account(
            connection, name=name, role=role, email=email, password_hash=hashed, by=by, now=now
        )
        accounts.record_event(connection, name, f"added as {role}", by=by, at=now)
    return Account(account_id, name, role, email)


def _live(engine: Engine, name: str) -> AccountRow:
    with engine.connect() as connection:
        row = accounts.account_by_name(connection, name)
    if row is None or row.removed_at is not None:
        raise UnknownAccountError(name)
    return row


def list_users(engine: Engine) -> list[Account]:
    with engine.connect() as connection:
        return [_account(row) for row in accounts.all_accounts(connection)]


def remove_user(engine: Engine, name: str, *, by: str, now: datetime) -> None:
    """The account can no longer log in; its tokens are revoked and its sessions ended. Its
    submissions stay, naming it."""
    row = _live(engine, name)
    with engine.begin() as connection:
        accounts.mark_removed(connection, row.id, now)
        accounts.record_event(connection, name, "removed", by=by, at=now)


def set_password(
    engine: Engine,
    name: str,
    password: str,
    *,
    by: str,
    now: datetime,
    keep_session: str | None = None,
) -> int:
    """A new password; every session of the account ends but ``keep_session`` (the session id
    of the person who changed it on the site). How many sessions ended."""
    check_password(password)
    row = _live(engine, name)
    hashed = HASHER.hash(password)
    with engine.begin() as connection:
        accounts.set_password_hash(connection, row.id, hashed)
        ended = accounts.end_sessions(
            connection, row.id, keep=None if keep_session is None else digest(keep_session)
        )
        accounts.record_event(connection, name, "password changed", by=by, at=now)
    return ended


def create_token(engine: Engine, name: str, *, by: str, now: datetime) -> tuple[int, str]:
    """A new API token for the account: its number and the token, which is shown once and
    stored only as its hash."""
    row = _live(engine, name)
    token = secrets.token_urlsafe(32)
    with engine.begin() as connection:
        token_id = accounts.insert_token(connection, row.id, digest(token), now)
        accounts.record_event(connection, name, f"token {token_id} created", by=by, at=now)
    return token_id, token


def list_tokens(engine: Engine, name: str) -> list[TokenRow]:
    row = _live(engine, name)
    with engine.connect() as connection:
        return accounts.account_tokens_of(connection, row.id)


def revoke_token(engine: Engine, name: str, token_id: int, *, by: str, now: datetime) -> None:
    row = _live(engine, name)
    with engine.begin() as connection:
        if not accounts.revoke_token(connection, row.id, token_id, now):
            raise AccountError(
                f"{name} has no token {token_id} in use (see `ratings users token list {name}`)"
            )
        accounts.record_event(connection, name, f"token {token_id} revoked", by=by, at=now)


def token_account(engine: Engine, token: str, now: datetime) -> Account | None:
    """The account of an API token, or None for a token unknown or revoked."""
    if not token or len(token) > 200:
        return None
    with engine.begin() as connection:
        row = accounts.account_by_token(connection, digest(token), now)
    return None if row is None else _account(row)


def log_in(
    engine: Engine,
    name: str,
    password: str,
    *,
    address: str | None,
    now: datetime,
    previous_session: str | None = None,
) -> tuple[Account, str] | None:
    """A new session for the account when the password is right (None when it is not), with
    the login kept in the audit either way. The session id the browser had before is ended:
    an id never survives a login. A hash made with older parameters is made again."""
    name = name[:100]
    password = password[:MAX_PASSWORD]
    with engine.connect() as connection:
        row = accounts.account_by_name(connection, name)
    live = row is not None and row.removed_at is None
    valid, updated = HASHER.verify_and_update(
        password, row.password_hash if live and row else _DUMMY
    )
    with engine.begin() as connection:
        if previous_session:
            accounts.end_session(connection, digest(previous_session))
        if not (live and valid and row is not None):
            accounts.record_event(
                connection, name, "login failed", by=name, at=now, address=address
            )
            return None
        if updated is not None:
            accounts.set_password_hash(connection, row.id, updated)
        session = secrets.token_urlsafe(32)
        accounts.end_expired_sessions(connection, now)
        accounts.insert_session(
            connection, digest(session), row.id, now, now + timedelta(days=SESSION_DAYS)
        )
        accounts.record_event(connection, name, "login", by=name, at=now, address=address)
    return _account(row), session


def password_is(engine: Engine, name: str, password: str) -> bool:
    """Whether ``password`` is the live account's (asked again before it is changed)."""
    with engine.connect() as connection:
        row = accounts.account_by_name(connection, name)
    if row is None or row.removed_at is not None:
        return False
    return HASHER.verify(password[:MAX_PASSWORD], row.password_hash)


def session_account(engine: Engine, session: str, now: datetime) -> Account | None:
    if not session or len(session) > 200:
        return None
    with engine.connect() as connection:
        row = accounts.account_by_session(connection, digest(session), now)
    return None if row is None else _account(row)


def log_out(engine: Engine, session: str, account: Account, *, now: datetime) -> None:
    with engine.begin() as connection:
        accounts.end_session(connection, digest(session))
        accounts.record_event(connection, account.name, "logout", by=account.name, at=now)


def account_events(engine: Engine, name: str | None = None, limit: int = 50) -> list[EventRow]:
    with engine.connect() as connection:
        return accounts.account_events_of(connection, name, limit)


def signing_key(engine: Engine, now: datetime) -> str:
    """The key the site signs its CSRF cookies with: made on first use and kept in the
    database, so that every process of the service and every restart share it."""
    with engine.begin() as connection:
        return accounts.service_key(connection, "signing", secrets.token_urlsafe(48), now)
