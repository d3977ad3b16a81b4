"""Directors' submissions: a file kept with its dry run's report until the officer accepts or
rejects it, and what became of the tournaments it brought in."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.engine import Connection

from ratings.storage.schema import (
    accounts,
    player_identifiers,
    players,
    published_lists,
    submissions,
    tournaments,
)

OPEN = ("submitted", "needs answers")
"""Statuses in which a submission waits for the officer (and its director may still change it)."""


@dataclass(frozen=True, slots=True)
class SubmissionRow:
    id: int
    submitter_id: int
    submitter: str
    submitter_email: str | None
    file_name: str
    sha256: str
    size: int
    tier: str
    notes: str | None
    submitted_at: datetime
    status: str
    report: dict[str, Any]
    reason: str | None
    decided_at: datetime | None
    decided_by: str | None
    tournament_keys: tuple[str, ...]


_COLUMNS = (
    submissions.c.id, submissions.c.submitter_id, accounts.c.name, accounts.c.email,
    submissions.c.file_name, submissions.c.sha256, func.length(submissions.c.data),
    submissions.c.tier, submissions.c.notes, submissions.c.submitted_at, submissions.c.status,
    submissions.c.report, submissions.c.reason, submissions.c.decided_at,
    submissions.c.decided_by, submissions.c.tournament_keys,
)  # fmt: skip


def _row(row: Sequence[Any]) -> SubmissionRow:
    values = list(row)
    values[11] = json.loads(values[11])
    values[15] = tuple(json.loads(values[15])) if values[15] else ()
    return SubmissionRow(*values)


def _select() -> Any:
    return select(*_COLUMNS).join(accounts, accounts.c.id == submissions.c.submitter_id)


def insert_submission(
    connection: Connection,
    *,
    submitter_id: int,
    file_name: str,
    data: bytes,
    sha256: str,
    tier: str,
    notes: str | None,
    now: datetime,
    status: str,
    report: dict[str, Any],
) -> int:
    return int(
        connection.execute(
            insert(submissions)
            .values(
                submitter_id=submitter_id, file_name=file_name, data=data, sha256=sha256,
                tier=tier, notes=notes, submitted_at=now, status=status,
                report=json.dumps(report, ensure_ascii=False),
            )
            .returning(submissions.c.id)
        ).scalar_one()
    )  # fmt: skip


def replace_submission(
    connection: Connection,
    submission_id: int,
    *,
    file_name: str,
    data: bytes,
    sha256: str,
    tier: str,
    notes: str | None,
    now: datetime,
    status: str,
    report: dict[str, Any],
) -> None:
    connection.execute(
        update(submissions)
        .where(submissions.c.id == submission_id)
        .values(
            file_name=file_name, data=data, sha256=sha256, tier=tier, notes=notes,
            submitted_at=now, status=status, report=json.dumps(report, ensure_ascii=False),
        )
    )  # fmt: skip


def submission(connection: Connection, submission_id: int) -> SubmissionRow | None:
    row = connection.execute(_select().where(submissions.c.id == submission_id)).first()
    return None if row is None else _row(row)


def submission_data(connection: Connection, submission_id: int) -> bytes:
    return bytes(
        connection.execute(
            select(submissions.c.data).where(submissions.c.id == submission_id)
        ).scalar_one()
    )


def submissions_of(connection: Connection, submitter_id: int | None) -> list[SubmissionRow]:
    """A director's submissions, newest first; or, for None, every submission, oldest first
    (the officer's queue)."""
    query = _select()
    if submitter_id is None:
        query = query.order_by(submissions.c.submitted_at, submissions.c.id)
    else:
        query = query.where(submissions.c.submitter_id == submitter_id).order_by(
            submissions.c.submitted_at.desc(), submissions.c.id.desc()
        )
    return [_row(row) for row in connection.execute(query)]


def decide(
    connection: Connection,
    submission_id: int,
    *,
    status: str,
    by: str,
    now: datetime,
    reason: str | None = None,
    keys: Sequence[str] = (),
) -> bool:
    """Accept or reject a submission that is still open; whether it was."""
    done = connection.execute(
        update(submissions)
        .where(submissions.c.id == submission_id, submissions.c.status.in_(OPEN))
        .values(
            status=status, decided_by=by, decided_at=now, reason=reason,
            tournament_keys=json.dumps(list(keys), ensure_ascii=False) if keys else None,
        )
    )  # fmt: skip
    return done.rowcount == 1


def delete_submission(connection: Connection, submission_id: int) -> bool:
    done = connection.execute(
        delete(submissions).where(submissions.c.id == submission_id, submissions.c.status.in_(OPEN))
    )
    return done.rowcount == 1


@dataclass(frozen=True, slots=True)
class Outcome:
    """What became of an accepted file's tournaments."""

    rated: bool
    """Every one of them is rated."""
    listed: str | None
    """The first list (YYYY-MM) published after they were rated whose cut-off takes them in."""


def outcome(connection: Connection, keys: Sequence[str]) -> Outcome:
    if not keys:
        return Outcome(False, None)
    rows = connection.execute(
        select(tournaments.c.status, tournaments.c.end_date, tournaments.c.rated_at).where(
            tournaments.c.key.in_(list(keys))
        )
    ).all()
    if len(rows) != len(keys) or any(status != "rated" for status, _, _ in rows):
        return Outcome(False, None)
    end: date = max(row[1] for row in rows)
    rated: datetime = max(row[2] for row in rows)
    period = connection.execute(
        select(published_lists.c.period)
        .where(published_lists.c.cutoff >= end, published_lists.c.created_at >= rated)
        .order_by(published_lists.c.created_at, published_lists.c.id)
        .limit(1)
    ).scalar()
    return Outcome(True, period)


@dataclass(frozen=True, slots=True)
class CandidateDetails:
    club: str | None
    ids: tuple[str, ...]
    """The player's external ids, as ``SCHEME:VALUE``."""


def candidate_details(
    connection: Connection, federation_ids: Sequence[str]
) -> dict[str, CandidateDetails]:
    """The club and the external ids of each player named (the review shows them)."""
    if not federation_ids:
        return {}
    found = connection.execute(
        select(players.c.federation_id, players.c.club, players.c.id).where(
            players.c.federation_id.in_(list(federation_ids))
        )
    ).all()
    by_id = {row[2]: row[0] for row in found}
    ids: dict[str, list[str]] = {row[0]: [] for row in found}
    if by_id:
        for player_id, scheme, value in connection.execute(
            select(
                player_identifiers.c.player_id, player_identifiers.c.scheme,
                player_identifiers.c.value,
            )
            .where(player_identifiers.c.player_id.in_(list(by_id)))
            .order_by(player_identifiers.c.scheme, player_identifiers.c.value)
        ):  # fmt: skip
            ids[by_id[player_id]].append(f"{scheme}:{value}")
    return {row[0]: CandidateDetails(row[1], tuple(ids[row[0]])) for row in found}
