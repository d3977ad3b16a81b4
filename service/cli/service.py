"""Commands for the service and its batch runs: monthly, serve, jobs."""

from __future__ import annotations

import sys

import click

from ratings.wording import counted
from service.cli.base import EXIT_ERROR, State, all_option, cli, pass_state


@cli.command("monthly")
@click.option("--period", help="The list to publish, YYYY-MM (default: the current month).")
@click.option(
    "--wait",
    type=click.FloatRange(min=0),
    default=0,
    show_default=True,
    help="Seconds to wait for another running job before giving up.",
)
@all_option
@pass_state
def monthly_command(state: State, period: str | None, wait: float) -> None:
    """The monthly job, once: import the inbox, rate, publish the period's list, write the exports."""
    from jobs.monthly import run_monthly
    from ratings.errors import JobLockedError
    from service import mail

    options = state.config.monthly
    try:
        report = run_monthly(
            state.engine, options, today=state.today(), clock=state.clock, period=period, wait=wait
        )
    except JobLockedError:
        raise
    except Exception as error:
        mail.monthly_failed(state.config.mail, error)
        raise
    mail.files_rejected(state.config.mail, report.period, report.rejected, str(options.inbox_dir))
    click.echo(f"{counted(len(report.accepted), 'file')} imported, {len(report.rejected)} rejected")
    for name in report.rejected:
        click.echo(f"  rejected: {name} (see {options.inbox_dir / 'rejected' / name}.errors.txt)")
    for name in report.review:
        click.echo(
            f"  held for review: {name} (see {options.inbox_dir / 'review' / name}.review.txt)"
        )
    click.echo(
        f"rated {counted(report.tournaments_rated, 'tournament')}, "
        f"{counted(report.results_rated, 'result')}"
    )
    if report.published_version is None:
        click.echo(f"the {report.period} list was already published")
    else:
        click.echo(f"published {report.period} version {report.published_version}")
    click.echo(
        f"wrote {counted(len(report.exports), 'file')} to {options.publish_dir / report.period}"
    )


@cli.command("serve")
@pass_state
def serve_command(state: State) -> None:
    """Run the monthly job on its schedule (RATINGS_SCHEDULE, RATINGS_TIMEZONE) and serve the
    published lists, player histories and seed lists over HTTP (RATINGS_HTTP_HOST, _PORT)."""
    from service.scheduler import cron_trigger
    from service.serve import serve
    from service.settings import AFTER_MONTHLY, NO_BACKUPS

    config = state.config
    cron_trigger(config.schedule, config.timezone)
    if config.backup_schedule not in (AFTER_MONTHLY, NO_BACKUPS):
        cron_trigger(config.backup_schedule, config.timezone, "backup_schedule")
    serve(config)


@cli.command("jobs")
@click.option(
    "--limit",
    type=click.IntRange(min=1),
    default=20,
    show_default=True,
    help="How many runs to show.",
)
@pass_state
def jobs_command(state: State, limit: int) -> None:
    """The recent batch runs: start, end, outcome, counts and the error of a failed run; then
    the files waiting in the inbox and the rejected ones; the newest scheduled backup. Exits with
    1 when the last run or the newest backup failed."""
    import polars as pl

    from exporters.writers import write
    from jobs.backup import archives_in
    from jobs.queries import inbox_state, last_backup, last_run, recent_jobs

    with state.reader.connect() as connection:
        runs = recent_jobs(connection, limit)
        last = last_run(connection)
        backup = last_backup(connection)
    # To the second: the microseconds the database keeps only widen the table.
    shown = runs.with_columns(pl.col("started_at", "finished_at").dt.truncate("1s"))
    write(shown, "text", sys.stdout.buffer)
    inbox = state.config.monthly.inbox_dir
    files = inbox_state(inbox)
    click.echo(
        f"inbox {inbox}: {counted(files.waiting, 'file')} waiting, "
        f"{counted(files.corrections, 'correction')} "
        f"waiting, {files.rejected} rejected (see {inbox / 'rejected'})"
    )
    folder = state.config.backup.folder
    archives = archives_in(folder)
    newest = f", newest archive {archives[-1]}" if archives else ""
    if backup is None:
        click.echo(f"backups {folder}: no scheduled backup yet{newest}")
    else:
        click.echo(
            f"backups {folder}: the newest scheduled backup {backup.outcome}"
            f" at {backup.started_at:%Y-%m-%d %H:%M:%S}{newest}"
        )
    failed = False
    if last is not None and last.outcome == "failed":
        click.echo(f"the last run ({last.kind}) failed: {last.error}", err=True)
        failed = True
    if backup is not None and backup.outcome == "failed":
        click.echo(f"the newest backup failed: {backup.error}", err=True)
        failed = True
    if failed:
        click.get_current_context().exit(EXIT_ERROR)
