"""``ratings serve``: the monthly job on its schedule, and the web service, in one process."""

from __future__ import annotations

import logging
import signal
from collections.abc import Callable
from datetime import datetime

from sqlalchemy.engine import Engine

from ratings.errors import DatabaseError, JobLockedError, RatingsError
from service.settings import AFTER_MONTHLY, NO_BACKUPS, Configuration, open_database, utc_now

log = logging.getLogger("ratings.service")


def scheduled_job(config: Configuration, clock: Callable[[], datetime] = utc_now) -> None:
    """One scheduled run of the monthly job; every outcome is logged (and recorded in the database
    by the job itself), so a failure never stops the scheduler."""
    from jobs.monthly import run_monthly
    from service import mail

    today = config.today(clock())
    log.info("monthly job started", extra={"event": "job_started", "today": today.isoformat()})
    try:
        engine = opened(config.database_url)
    except DatabaseError as error:
        # Nowhere to record the run (the database is missing or does not answer): the log and
        # the officer's mail say it failed.
        mail.monthly_failed(config.mail, error)
        return
    try:
        report = run_monthly(engine, config.monthly, today=today, clock=clock)
    except JobLockedError as error:
        log.warning("monthly job skipped", extra={"event": "job_skipped", "reason": str(error)})
    except Exception as error:  # a scheduled job must log every failure, whatever its kind
        known = isinstance(error, RatingsError)
        kind = "input" if known else type(error).__name__
        # Anything but the service's own errors is a bug, or the database going away: the
        # traceback is what finds it.
        log.error(
            "monthly job failed",
            extra={"event": "job_failed", "error": str(error), "kind": kind},
            exc_info=not known,
        )
        mail.monthly_failed(config.mail, error)
    else:
        mail.files_rejected(
            config.mail, report.period, report.rejected, str(config.monthly.inbox_dir)
        )
        log.info(
            "monthly job finished",
            extra={
                "event": "job_finished",
                "period": report.period,
                "files_accepted": len(report.accepted),
                "files_rejected": len(report.rejected),
                "tournaments_rated": report.tournaments_rated,
                "published_version": report.published_version,
            },
        )
    finally:
        engine.dispose()


def scheduled_backup(config: Configuration, clock: Callable[[], datetime] = utc_now) -> None:
    """One scheduled backup into the backup folder, the oldest beyond ``backup_keep`` deleted;
    its outcome is logged and recorded (``ratings jobs``, ``/health``), a failure mailed."""
    from jobs.backup import scheduled_backup as back_up
    from service import mail

    folder = str(config.backup.folder)
    try:
        engine = opened(config.database_url)
    except DatabaseError as error:
        mail.backup_failed(config.mail, error, folder)
        return
    try:
        report = back_up(engine, config.backup, clock)
    except Exception as error:  # logged and mailed whatever it is: the schedule goes on
        known = isinstance(error, RatingsError)
        log.error(
            "backup failed",
            extra={"event": "backup_failed", "error": str(error), "folder": folder},
            exc_info=not known,
        )
        mail.backup_failed(config.mail, error, folder)
    else:
        log.info(
            "backup finished",
            extra={
                "event": "backup_finished",
                "path": str(report.path),
                "rows": report.manifest.rows,
                "revision": report.manifest.revision,
            },
        )
    finally:
        engine.dispose()


def monthly_then_backup(config: Configuration, clock: Callable[[], datetime] = utc_now) -> None:
    """The monthly job, then (by default, ``backup_schedule = "after-monthly"``) a backup."""
    scheduled_job(config, clock)
    if config.backup_schedule == AFTER_MONTHLY:
        scheduled_backup(config, clock)


def backup_schedule(config: Configuration) -> tuple[str, Callable[[], None]] | None:
    """The backups' own cron schedule, or None when they follow the monthly job or are off."""
    if config.backup_schedule in (AFTER_MONTHLY, NO_BACKUPS):
        return None
    return config.backup_schedule, lambda: scheduled_backup(config)


def opened(url: str) -> Engine:
    """The database, or a ``database_unavailable`` log event saying why not (one line, no
    traceback: a server that is down, a wrong URL or a SQLite file that does not exist is the
    officer's to fix, not a bug). A missing SQLite file is never created here: only
    ``ratings db upgrade`` creates a database."""
    try:
        return open_database(url)
    except DatabaseError as error:
        log.error(
            "database unavailable",
            extra={
                "event": "database_unavailable",
                "error": str(error),
                "kind": type(error).__name__,
            },
        )
        raise


def _exit_cleanly(_signal: int, _frame: object) -> None:
    raise SystemExit(0)


def serve(config: Configuration) -> None:
    """Start the scheduler, then serve HTTP until interrupted (SIGINT or SIGTERM)."""
    from service.logs import configure
    from service.scheduler import build_scheduler
    from service.web import create_app, make_server

    configure()
    # uvicorn stops on SIGTERM and then raises it again with the handler it found: make that
    # handler a clean exit, so the scheduler below is shut down and the stop is logged.
    signal.signal(signal.SIGTERM, _exit_cleanly)
    scheduler = build_scheduler(
        config.schedule,
        config.timezone,
        lambda: monthly_then_backup(config),
        backup_schedule(config),
    )
    engine = opened(config.database_url)
    scheduler.start()
    job = scheduler.get_job("monthly")
    log.info(
        "scheduler started",
        extra={
            "event": "scheduler_started",
            "schedule": config.schedule,
            "timezone": config.timezone,
            "next_run": job.next_run_time.isoformat() if job and job.next_run_time else None,
            "backups": config.backup_schedule,
        },
    )
    try:
        make_server(create_app(engine, config.web), config.web).run()
    finally:
        scheduler.shutdown(wait=True)
        engine.dispose()
        log.info("service stopped", extra={"event": "service_stopped"})
