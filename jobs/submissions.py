"""Results submitted by tournament directors through the site: read and checked at once as
``ratings import --dry-run`` does, kept (the file's bytes, its hash, who sent it and when) with
the dry run's report, then accepted by the officer, which imports the file exactly as ``ratings
import --map`` does with the officer's answers, or rejected with a reason.

A director sees only their own submissions, and may withdraw or replace one until the officer
decides. The caller that imports (:func:`accept`) holds the job lock, as the command line does.
"""

from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy.engine import Connection, Engine

from importers.from_crosstable import EventOptions
from jobs.accounts import Account
from jobs.importing import ImportReport, import_checked, import_read
from jobs.options import MatchOptions
from jobs.reading import read_data
from ratings.errors import (
    Candidate,
    InputError,
    Problem,
    ReviewError,
    SubmissionStateError,
    UnansweredNamesError,
    UnknownSubmissionError,
)
from ratings.storage import accounts as stored_accounts
from ratings.storage import submissions as stored
from ratings.storage.submissions import OPEN, SubmissionRow
from ratings.tiers import Tier

TIERS = tuple(tier.value for tier in Tier)
MAX_NOTES = 2000
"""Most characters of a director's notes."""
MAX_REASON = 2000
"""Most characters of an officer's reason for a rejection."""


@dataclass(frozen=True, slots=True)
class Submission:
    """A submission as its director and the officer see it."""

    row: SubmissionRow
    status: str
    """submitted, needs answers, accepted, rejected, rated, or rated, in list YYYY-MM."""

    @property
    def id(self) -> int:
        return self.row.id

    @property
    def names(self) -> list[dict[str, Any]]:
        """The players the file would create, and the names to answer, with their candidates."""
        return list(self.row.report.get("names", []))

    @property
    def unanswered(self) -> list[str]:
        return [n["name"] for n in self.names if n["needs_answer"]]

    @property
    def warnings(self) -> list[dict[str, Any]]:
        return list(self.row.report.get("warnings", []))

    @property
    def is_open(self) -> bool:
        return self.row.status in OPEN

    def body(self) -> dict[str, Any]:
        """What the API answers with."""
        return {
            "id": self.id,
            "status": self.status,
            "file": self.row.file_name,
            "sha256": self.row.sha256,
            "tier": self.row.tier,
            "notes": self.row.notes,
            "submitter": self.row.submitter,
            "submitted_at": _utc(self.row.submitted_at).isoformat(),
            "reason": self.row.reason,
            "problems": [],
            "warnings": self.warnings,
            "tournaments": self.row.report.get("tournaments", []),
            "new_players": self.names,
            "needs_answers": self.unanswered,
        }


def _utc(moment: datetime) -> datetime:
    """A stored time with its zone: SQLite gives back the UTC time without one."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def problem_dict(problem: Problem) -> dict[str, Any]:
    return {
        "file": problem.file, "line": problem.line, "column": problem.column,
        "value": problem.value, "expected": problem.expected,
    }  # fmt: skip


def _candidate(candidate: Candidate, details: dict[str, stored.CandidateDetails]) -> dict[str, Any]:
    found = details.get(candidate.federation_id)
    return {
        "player_id": candidate.federation_id,
        "name": candidate.name,
        "country": candidate.country,
        "club": None if found is None else found.club,
        "ids": [] if found is None else list(found.ids),
        "score": round(candidate.score, 1),
        "last_event": candidate.last_event,
    }


def _report(engine: Engine, report: ImportReport, read: Any) -> dict[str, Any]:
    """The dry run's report as it is kept: warnings, tournaments, and the names (the players
    to be created, and those to answer) with their candidates."""
    wanted = {c.federation_id for u in report.uncertain for c in u.candidates} | {
        c.federation_id for p in report.new_players for c in p.closest
    }
    with engine.connect() as connection:
        details = stored.candidate_details(connection, sorted(wanted))
    names: list[dict[str, Any]] = [
        {
            "name": u.name, "country": u.country, "file": u.source, "line": u.line,
            "reason": u.reason, "needs_answer": True,
            "candidates": [_candidate(c, details) for c in u.candidates],
        }
        for u in report.uncertain
    ]  # fmt: skip
    answering = {n["name"] for n in names}
    names += [
        {
            "name": p.name, "country": p.country, "file": None, "line": None,
            "reason": "a new player", "needs_answer": False,
            "candidates": [_candidate(c, details) for c in p.closest],
        }
        for p in report.new_players
        if p.name not in answering
    ]  # fmt: skip
    tournaments = [
        {"key": key, "name": name, "end_date": str(end)}
        for key, name, end in read.file.tournaments.select("key", "name", "end_date").iter_rows()
    ]
    return {
        "warnings": [problem_dict(w) for w in report.warnings],
        "names": names,
        "tournaments": tournaments,
        "results": report.results,
        "by_name": [str(m) for m in report.by_name],
    }


def _checked(
    engine: Engine,
    data: bytes,
    file_name: str,
    tier: str,
    *,
    by: str,
    now: datetime,
    matching: MatchOptions,
    limit: int,
) -> tuple[str, dict[str, Any]]:
    """The status and the report of a file: read and checked as ``import --dry-run`` does (an
    InputError lists every problem of a file that cannot be imported)."""
    read = read_data(data, file_name, None, EventOptions(tier=tier), limit)
    report = import_read(engine, [read], dry_run=True, imported_by=by, now=now, matching=matching)
    kept = _report(engine, report, read)
    status = "needs answers" if any(n["needs_answer"] for n in kept["names"]) else "submitted"
    return status, kept


@dataclass(frozen=True, slots=True)
class _Upload:
    """A file a director sent, cleaned and checked: what a submission keeps of it."""

    file_name: str
    tier: str
    notes: str | None
    status: str
    report: dict[str, Any]


def _upload(
    engine: Engine,
    account: Account,
    data: bytes,
    file_name: str,
    tier: str,
    notes: str | None,
    *,
    matching: MatchOptions,
    limit: int,
    now: datetime,
) -> _Upload:
    """The name, tier and notes as kept, and the file's status and report (:func:`_checked`);
    an unknown tier or a file that cannot be imported is an InputError."""
    file_name = (file_name or "upload")[:255]
    if tier not in TIERS:
        expected = f"a tier: {', '.join(TIERS)}"
        raise InputError([Problem(file_name, None, "tier", tier[:100], expected)])
    notes = (notes or "").strip()[:MAX_NOTES] or None
    status, report = _checked(
        engine, data, file_name, tier, by=account.name, now=now, matching=matching, limit=limit
    )
    return _Upload(file_name, tier, notes, status, report)


def submit(
    engine: Engine,
    account: Account,
    data: bytes,
    file_name: str,
    *,
    tier: str = "regular",
    notes: str | None = None,
    matching: MatchOptions,
    limit: int,
    now: datetime,
) -> Submission:
    """Keep a file that can be imported as a submission of ``account``; a file that cannot is
    not kept (InputError with every problem)."""
    up = _upload(
        engine, account, data, file_name, tier, notes, matching=matching, limit=limit, now=now
    )
    with engine.begin() as connection:
        submission_id = stored.insert_submission(
            connection, submitter_id=account.id, file_name=up.file_name, data=data,
            sha256=hashlib.sha256(data).hexdigest(), tier=up.tier, notes=up.notes, now=now,
            status=up.status, report=up.report,
        )  # fmt: skip
    return find(engine, submission_id, account)


def _status(connection: Connection, row: SubmissionRow) -> str:
    if row.status != "accepted":
        return row.status
    outcome = stored.outcome(connection, row.tournament_keys)
    if outcome.listed:
        return f"rated, in list {outcome.listed}"
    return "rated" if outcome.rated else "accepted"


def find(engine: Engine, submission_id: int, account: Account) -> Submission:
    """A submission its submitter or an officer may see; for anyone else it does not exist."""
    with engine.connect() as connection:
        row = stored.submission(connection, submission_id)
        if row is None or not (account.officer or row.submitter_id == account.id):
            raise UnknownSubmissionError(submission_id)
        return Submission(row, _status(connection, row))


def submissions_of(engine: Engine, account: Account, *, every: bool = False) -> list[Submission]:
    """The account's own submissions, newest first; with ``every`` (an officer's queue), all of
    them, oldest first."""
    # One connection for the queue: an accepted submission's outcome is read on it, not on a
    # connection of its own each.
    with engine.connect() as connection:
        rows = stored.submissions_of(connection, None if every else account.id)
        return [Submission(row, _status(connection, row)) for row in rows]


def _owned_open(engine: Engine, submission_id: int, account: Account, action: str) -> Submission:
    found = find(engine, submission_id, account)
    if found.row.submitter_id != account.id:
        # An officer decides on a director's file; only its director changes it.
        raise UnknownSubmissionError(submission_id)
    if not found.is_open:
        raise SubmissionStateError(submission_id, found.status, action)
    return found


def withdraw(engine: Engine, submission_id: int, account: Account) -> None:
    _owned_open(engine, submission_id, account, "withdrawn")
    with engine.begin() as connection:
        if not stored.delete_submission(connection, submission_id):
            raise SubmissionStateError(submission_id, "decided", "withdrawn")


def replace(
    engine: Engine,
    submission_id: int,
    account: Account,
    data: bytes,
    file_name: str,
    *,
    tier: str = "regular",
    notes: str | None = None,
    matching: MatchOptions,
    limit: int,
    now: datetime,
) -> Submission:
    """Another file in place of an open submission; one that cannot be imported leaves the
    submission as it was."""
    _owned_open(engine, submission_id, account, "replaced")
    up = _upload(
        engine, account, data, file_name, tier, notes, matching=matching, limit=limit, now=now
    )
    with engine.begin() as connection:
        stored.replace_submission(
            connection, submission_id, file_name=up.file_name, data=data,
            sha256=hashlib.sha256(data).hexdigest(), tier=up.tier, notes=up.notes, now=now,
            status=up.status, report=up.report,
        )  # fmt: skip
    return find(engine, submission_id, account)


def accept(
    engine: Engine,
    submission_id: int,
    officer: Account,
    answers: dict[str, str],
    *,
    matching: MatchOptions,
    limit: int,
    now: datetime,
) -> tuple[Submission, ImportReport]:
    """Import the submission with the officer's answers, as ``ratings import --map`` does, and
    mark it accepted, in one transaction. Every name that needs an answer must have one
    (:class:`UnansweredNamesError` lists the rest); the caller holds the job lock."""
    found = find(engine, submission_id, officer)
    if not found.is_open:
        raise SubmissionStateError(submission_id, found.status, "accepted")
    missing = [name for name in found.unanswered if not answers.get(name, "").strip()]
    if missing:
        raise UnansweredNamesError(missing)
    with engine.connect() as connection:
        data = stored.submission_data(connection, submission_id)
    read = read_data(data, found.row.file_name, None, EventOptions(tier=found.row.tier), limit)
    keys = read.file.tournaments["key"].to_list()
    answered = dataclasses.replace(matching, answers={**matching.answers, **answers})
    try:
        with engine.connect() as connection, connection.begin():
            report = import_checked(
                connection, [read], imported_by=officer.name, now=now, matching=answered
            )
            if not stored.decide(
                connection, submission_id, status="accepted", by=officer.name, now=now, keys=keys
            ):
                raise SubmissionStateError(submission_id, "decided", "accepted")
    except ReviewError as review:
        # The registry changed since the file came: more names need an answer.
        raise UnansweredNamesError(u.name for u in review.uncertain) from None
    return find(engine, submission_id, officer), report


def reject(
    engine: Engine, submission_id: int, officer: Account, reason: str, *, now: datetime
) -> Submission:
    reason = reason.strip()[:MAX_REASON]
    if not reason:
        raise SubmissionStateError(submission_id, "open", "rejected without a reason")
    found = find(engine, submission_id, officer)
    with engine.begin() as connection:
        if not stored.decide(
            connection, submission_id, status="rejected", by=officer.name, now=now, reason=reason
        ):
            raise SubmissionStateError(submission_id, found.status, "rejected")
        stored_accounts.record_event(
            connection, found.row.submitter, f"submission {submission_id} rejected",
            by=officer.name, at=now,
        )  # fmt: skip
    return find(engine, submission_id, officer)
