"""The schedule of ``ratings serve``: it only wires a cron trigger to the monthly job.

The trigger is pure (a function of the expression, the time zone and the time asked about), so
the next run times are tested with a fixed clock.
"""

from __future__ import annotations

from collections.abc import Callable

from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.cron import CronTrigger

from ratings.errors import ScheduleError
from service.settings import time_zone

MISFIRE_GRACE_SECONDS = 6 * 3600
"""A run missed while the service was down still happens if it restarts within six hours."""


def cron_trigger(expression: str, zone: str, setting: str = "schedule") -> CronTrigger:
    """A trigger from a cron expression: five fields (minute hour day month weekday), or six with
    seconds first. Weekdays follow cron: 0 or 7 is Sunday, or use names (mon-fri)."""
    fields = expression.split()
    tz = time_zone(zone)
    try:
        if len(fields) == 5:
            minute, hour, day, month, weekday = fields
            second = "0"
        elif len(fields) == 6:
            second, minute, hour, day, month, weekday = fields
        else:
            raise ValueError(f"expected 5 or 6 fields, found {len(fields)}")
        return CronTrigger(
            second=second, minute=minute, hour=hour, day=day, month=month,
            day_of_week=_cron_weekdays(weekday), timezone=tz,
        )  # fmt: skip
    except ValueError as error:
        raise ScheduleError(expression, str(error), setting) from None


_NAMES = ("sun", "mon", "tue", "wed", "thu", "fri", "sat", "sun")


def _cron_weekdays(field: str) -> str:
    """Cron numbers weekdays from Sunday (0 and 7); the trigger takes names, which mean one thing."""
    if field == "*" or not any(ch.isdigit() for ch in field):
        return field
    out = []
    for part in field.split(","):
        step = ""
        if "/" in part:
            part, step = part.split("/", 1)
            step = "/" + step
        ends = [_NAMES[int(x)] if x.isdigit() and int(x) <= 7 else x for x in part.split("-")]
        out.append("-".join(ends) + step)
    return ",".join(out)


def build_scheduler(
    expression: str,
    zone: str,
    job: Callable[[], None],
    backups: tuple[str, Callable[[], None]] | None = None,
) -> BackgroundScheduler:
    """A scheduler running ``job`` on the schedule: one run at a time, missed runs coalesced into
    one, a run late by up to ``MISFIRE_GRACE_SECONDS`` still made; and, given ``backups`` (a
    cron expression and the backup), the backups on a schedule of their own alike."""
    scheduler = BackgroundScheduler(timezone=time_zone(zone))
    scheduler.add_job(
        job,
        cron_trigger(expression, zone),
        id="monthly",
        name="monthly job",
        coalesce=True,
        max_instances=1,
        misfire_grace_time=MISFIRE_GRACE_SECONDS,
        replace_existing=True,
    )
    if backups is not None:
        scheduler.add_job(
            backups[1],
            cron_trigger(backups[0], zone, "backup_schedule"),
            id="backup",
            name="backup",
            coalesce=True,
            max_instances=1,
            misfire_grace_time=MISFIRE_GRACE_SECONDS,
            replace_existing=True,
        )
    return scheduler
