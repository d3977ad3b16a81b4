"""Job runs: each batch run's start, end, outcome and counts."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import polars as pl
from sqlalchemy import insert, select, update
from sqlalchemy.engine import Connection

from ratings.storage.frames import JOB_SCHEMA, read_frame
from ratings.storage.schema import job_runs


def start_job(connection: Connection, kind: str, now: datetime) -> int:
    return int(
        connection.execute(
            insert(job_runs)
            .values(
                kind=kind,
                started_at=now,
                outcome="running",
                tournaments_rated=0,
                results_rated=0,
                files_accepted=0,
                files_rejected=0,
            )
            .returning(job_runs.c.id)
        ).scalar_one()
    )


def finish_job(
    connection: Connection, job: int, now: datetime, outcome: str, **counts: Any
) -> None:
    connection.execute(
        update(job_runs)
        .where(job_runs.c.id == job)
        .values(finished_at=now, outcome=outcome, **counts)
    )


def recent_jobs(connection: Connection, limit: int = 20) -> pl.DataFrame:
    query = (
        select(*(job_runs.c[name] for name in JOB_SCHEMA))
        .order_by(job_runs.c.id.desc())
        .limit(limit)
    )
    return read_frame(connection, query, JOB_SCHEMA)


def record_job(
    connection: Connection,
    kind: str,
    started: datetime,
    finished: datetime,
    outcome: str,
    error: str | None = None,
) -> None:
    """A run recorded whole once it is over (a backup: a record written before it would be in
    its own archive as a run still going)."""
    connection.execute(
        insert(job_runs).values(
            kind=kind,
            started_at=started,
            finished_at=finished,
            outcome=outcome,
            tournaments_rated=0,
            results_rated=0,
            files_accepted=0,
            files_rejected=0,
            error=error,
        )
    )


def last_job(
    connection: Connection, *, kind: str | None = None, other_than: str | None = None
) -> pl.DataFrame:
    """The newest run (of ``kind``, or of any kind but ``other_than``), as a frame of one row
    or none."""
    query = select(*(job_runs.c[name] for name in JOB_SCHEMA))
    if kind is not None:
        query = query.where(job_runs.c.kind == kind)
    if other_than is not None:
        query = query.where(job_runs.c.kind != other_than)
    return read_frame(connection, query.order_by(job_runs.c.id.desc()).limit(1), JOB_SCHEMA)
