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
