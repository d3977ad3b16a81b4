"""The site's accounts, their API tokens and web sessions, the audit of logins and account
changes, and the keys the site signs with. Secrets are never stored: a password as its argon2
hash (made by the caller), a token and a session id as their SHA-256."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, insert, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from ratings.storage.schema import (
    account_events,
    account_tokens,
    accounts,
    service_keys,
    web_sessions,
)


@dataclass(frozen=True, slots=True)
class AccountRow:
    id: int
    name: str
    role: str
    email: str | None
    password_hash: str
    created_at: datetime
    removed_at: datetime | None


def _row(row: object) -> AccountRow:
    return AccountRow(*row)  # type: ignore[misc]


_COLUMNS = (
    accounts.c.id, accounts.c.name, accounts.c.role, accounts.c.email, accounts.c.password_hash,
    accounts.c.created_at, accounts.c.removed_at,
)  # fmt: skip


def account_by_name(connection: Connection, name: str) -> AccountRow | None:
    row = connection.execute(select(*_COLUMNS).where(accounts.c.name == name)).first()
    return None if row is None else _row(row)


def account_by_id(connection: Connection, account_id: int) -> AccountRow | None:
    row = connection.execute(select(*_COLUMNS).where(accounts.c.id == account_id)).first()
    return None if row is None else _row(row)


def all_accounts(connection: Connection) -> list[AccountRow]:
    """Every account that is not removed, by name."""
    rows = connection.execute(
        select(*_COLUMNS).where(accounts.c.removed_at.is_(None)).order_by(accounts.c.name)
    )
    return [_row(row) for row in rows]


def insert_account(
    connection: Connection,
    *,
    name: str,
    role: str,
    email: str | None,
    password_hash: str,
    by: str,
    now: datetime,
) -> int:
    values = {
        "role": role, "email": email, "password_hash": password_hash, "created_at": now,
        "created_by": by, "removed_at": None,
    }  # fmt: skip
    removed = account_by_name(connection, name)
    if removed is not None:
        # A removed account's name comes back to life: its submissions name it still.
        connection.execute(update(accounts).where(accounts.c.id == removed.id).values(**values))
        return removed.id
    return int(
        connection.execute(
            insert(accounts).values(name=name, **values).returning(accounts.c.id)
        ).scalar_one()
    )


def set_password_hash(connection: Connection, account_id: int, password_hash: str) -> None:
    connection.execute(
        update(accounts).where(accounts.c.id == account_id).values(password_hash=password_hash)
    )


def mark_removed(connection: Connection, account_id: int, now: datetime) -> None:
    connection.execute(update(accounts).where(accounts.c.id == account_id).values(removed_at=now))
    connection.execute(
        update(account_tokens)
        .where(account_tokens.c.account_id == account_id, account_tokens.c.revoked_at.is_(None))
        .values(revoked_at=now)
    )
    end_sessions(connection, account_id)


@dataclass(frozen=True, slots=True)
class TokenRow:
    id: int
    created_at: datetime
    last_used_at: datetime | None
    revoked_at: datetime | None


def insert_token(connection: Connection, account_id: int, token_hash: str, now: datetime) -> int:
    return int(
        connection.execute(
            insert(account_tokens)
            .values(account_id=account_id, token_hash=token_hash, created_at=now)
            .returning(account_tokens.c.id)
        ).scalar_one()
    )


def account_tokens_of(connection: Connection, account_id: int) -> list[TokenRow]:
    rows = connection.execute(
        select(
            account_tokens.c.id, account_tokens.c.created_at, account_tokens.c.last_used_at,
            account_tokens.c.revoked_at,
        )
        .where(account_tokens.c.account_id == account_id)
        .order_by(account_tokens.c.id)
    )  # fmt: skip
    return [TokenRow(*row) for row in rows]


def revoke_token(connection: Connection, account_id: int, token_id: int, now: datetime) -> bool:
    """Whether the account had that token unrevoked (it is revoked now)."""
    done = connection.execute(
        update(account_tokens)
        .where(
            account_tokens.c.id == token_id,
            account_tokens.c.account_id == account_id,
            account_tokens.c.revoked_at.is_(None),
        )
        .values(revoked_at=now)
    )
    return done.rowcount == 1


def account_by_token(connection: Connection, token_hash: str, now: datetime) -> AccountRow | None:
    """The live account a live token belongs to (its last use noted), or None."""
    row = connection.execute(
        select(*_COLUMNS, account_tokens.c.id)
        .join(account_tokens, account_tokens.c.account_id == accounts.c.id)
        .where(
            account_tokens.c.token_hash == token_hash,
            account_tokens.c.revoked_at.is_(None),
            accounts.c.removed_at.is_(None),
        )
    ).first()
    if row is None:
        return None
    connection.execute(
        update(account_tokens).where(account_tokens.c.id == row[-1]).values(last_used_at=now)
    )
    return _row(row[:-1])


def insert_session(
    connection: Connection, id_hash: str, account_id: int, now: datetime, expires: datetime
) -> None:
    connection.execute(
        insert(web_sessions).values(
            id_hash=id_hash, account_id=account_id, created_at=now, expires_at=expires
        )
    )


def account_by_session(connection: Connection, id_hash: str, now: datetime) -> AccountRow | None:
    row = connection.execute(
        select(*_COLUMNS)
        .join(web_sessions, web_sessions.c.account_id == accounts.c.id)
        .where(
            web_sessions.c.id_hash == id_hash,
            web_sessions.c.expires_at > now,
            accounts.c.removed_at.is_(None),
        )
    ).first()
    return None if row is None else _row(row)


def end_session(connection: Connection, id_hash: str) -> None:
    connection.execute(delete(web_sessions).where(web_sessions.c.id_hash == id_hash))


def end_sessions(connection: Connection, account_id: int, *, keep: str | None = None) -> int:
    """End every session of the account (but ``keep``); how many ended."""
    query = delete(web_sessions).where(web_sessions.c.account_id == account_id)
    if keep is not None:
        query = query.where(web_sessions.c.id_hash != keep)
    return connection.execute(query).rowcount


def end_expired_sessions(connection: Connection, now: datetime) -> None:
    connection.execute(delete(web_sessions).where(web_sessions.c.expires_at <= now))


def record_event(
    connection: Connection,
    account: str,
    event: str,
    *,
    by: str,
    at: datetime,
    address: str | None = None,
) -> None:
    connection.execute(
        insert(account_events).values(
            account=account[:100], event=event, by=by[:100], at=at,
            address=None if address is None else address[:64],
        )
    )  # fmt: skip


@dataclass(frozen=True, slots=True)
class EventRow:
    at: datetime
    account: str
    event: str
    address: str | None
    by: str


def account_events_of(connection: Connection, account: str | None, limit: int) -> list[EventRow]:
    """The newest events first, of one account or of all."""
    query = select(
        account_events.c.at, account_events.c.account, account_events.c.event,
        account_events.c.address, account_events.c.by,
    ).order_by(account_events.c.at.desc(), account_events.c.id.desc())  # fmt: skip
    if account is not None:
        query = query.where(account_events.c.account == account)
    return [EventRow(*row) for row in connection.execute(query.limit(limit))]


def service_key(connection: Connection, name: str, make: str, now: datetime) -> str:
    """The stored key ``name``; on first use ``make`` is stored (the first writer wins when
    two processes start at once)."""
    found = connection.execute(select(service_keys.c.value).where(service_keys.c.name == name))
    value = found.scalar()
    if value is not None:
        return str(value)
    try:
        with connection.begin_nested():
            connection.execute(insert(service_keys).values(name=name, value=make, created_at=now))
    except IntegrityError:
        return str(
            connection.execute(
                select(service_keys.c.value).where(service_keys.c.name == name)
            ).scalar_one()
        )
    return make
