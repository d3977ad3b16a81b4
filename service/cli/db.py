"""Commands for the database: db upgrade, and its backups: db backup, restore, verify, copy."""

from __future__ import annotations

from pathlib import Path

import click

from ratings.wording import counted
from service.cli.base import ProgressBar, State, cli, pass_state, say_waiting


@cli.group()
def db() -> None:
    """The database: create or migrate its schema; back it up, check a backup, restore one,
    copy the database to another (SQLite to PostgreSQL)."""


@db.command("upgrade")
@pass_state
def db_upgrade(state: State) -> None:
    """Create the database (a SQLite file) and its schema, or migrate the schema to the newest
    version (holding the job lock, so no job runs on a schema that is being changed). The only
    command that creates a database."""
    from jobs.locking import job_lock
    from jobs.schema import upgrade_schema
    from service.settings import MIGRATION_WAIT_SECONDS, open_database

    engine = open_database(state.config.database_url, upgrade_schema=False, create=True)
    with job_lock(engine, wait=MIGRATION_WAIT_SECONDS, waiting=say_waiting):
        version = upgrade_schema(engine)
    click.echo(f"schema at revision {version.current} (newest {version.newest})")


class RowsBar(ProgressBar):
    """The progress bar of a backup, check or restore: shown for more than a few rows."""

    MIN_TOURNAMENTS = 200_000


@db.command("backup")
@click.argument("path", required=False, type=click.Path(path_type=Path, dir_okay=False))
@pass_state
def db_backup(state: State, path: Path | None) -> None:
    """Back up the whole database into one archive at PATH (default: a name with the date and
    the schema's revision in the backup folder, RATINGS_BACKUP_DIR). Taken in one read
    transaction, so the service may go on working (on PostgreSQL after a running job ends);
    written under a temporary name and renamed when complete. The archive restores into SQLite
    or PostgreSQL alike."""
    from jobs.backup import backup
    from service.settings import open_database

    engine = open_database(state.config.database_url, upgrade_schema=False)
    try:
        with RowsBar("backing up") as bar:
            report = backup(
                engine,
                path,
                folder=state.config.backup.folder,
                now=state.clock(),
                progress=bar,
                waiting=_say_waiting_for_job,
            )
    finally:
        engine.dispose()
    manifest = report.manifest
    click.echo(
        f"backed up {counted(len(manifest.tables), 'table')}, {counted(manifest.rows, 'row')}"
        f" at schema revision {manifest.revision} to {report.path}"
    )


def _say_waiting_for_job() -> None:
    click.echo("waiting for the running job to finish before backing up ...", err=True)


@db.command("verify")
@click.argument("path", type=click.Path(path_type=Path, dir_okay=False))
def db_verify(path: Path) -> None:
    """Read the archive at PATH through and check it (every table's rows, count and checksums)
    without restoring it."""
    from jobs.backup import verify

    with RowsBar("checking") as bar:
        manifest = verify(path, progress=bar)
    click.echo(
        f"{path}: sound: {counted(len(manifest.tables), 'table')}, {counted(manifest.rows, 'row')},"
        f" schema revision {manifest.revision}, taken {manifest.created_at}"
    )


READ_BACK_HELP = (
    "Also read every restored row back from the database and compare it with the archive"
    " (about a third more time): proof that the database keeps exactly what it was sent."
)


@db.command("restore")
@click.argument("path", type=click.Path(path_type=Path, dir_okay=False))
@click.option(
    "--force",
    is_flag=True,
    help="Replace everything the database holds (by default a database with data is refused).",
)
@click.option("--read-back", is_flag=True, help=READ_BACK_HELP)
@pass_state
def db_restore(state: State, path: Path, force: bool, read_back: bool) -> None:
    """Restore the archive at PATH into the configured database (RATINGS_DATABASE_URL), which
    must hold no data: the schema is made at the archive's revision, every table loaded and
    checked against the archive's checksums and counts, then migrated to the newest revision;
    all in one transaction, so an interrupted restore leaves the database as it was."""
    from jobs.backup import restore
    from service.settings import open_database

    engine = open_database(state.config.database_url, upgrade_schema=False, create=True)
    try:
        with RowsBar("restoring") as bar:
            report = restore(engine, path, force=force, read_back=read_back, progress=bar)
    finally:
        engine.dispose()
    click.echo(
        f"restored {counted(len(report.manifest.tables), 'table')},"
        f" {counted(report.manifest.rows, 'row')} from {path}"
        f" (revision {report.manifest.revision}, now {report.revision})"
        + ("; every row read back and checked" if read_back else "")
    )


@db.command("copy")
@click.option("--to", "url", required=True, help="The database to copy into (a URL).")
@click.option("--force", is_flag=True, help="Replace everything the target database holds.")
@click.option("--read-back", is_flag=True, help=READ_BACK_HELP)
@pass_state
def db_copy(state: State, url: str, force: bool, read_back: bool) -> None:
    """Copy the configured database whole into the empty database at URL (moving from the
    SQLite file to PostgreSQL: `ratings db copy --to postgresql+psycopg://user@host/name`),
    through an archive checked as a restore checks it. Then point RATINGS_DATABASE_URL at it."""
    from jobs.backup import copy
    from service.settings import open_database

    source = open_database(state.config.database_url, upgrade_schema=False)
    target = open_database(url, upgrade_schema=False, create=True)
    try:
        with RowsBar("copying") as bar:
            report = copy(
                source, target, now=state.clock(), force=force, read_back=read_back, progress=bar
            )
    finally:
        source.dispose()
        target.dispose()
    shown = target.url.render_as_string(hide_password=True)
    click.echo(
        f"copied {counted(len(report.manifest.tables), 'table')},"
        f" {counted(report.manifest.rows, 'row')} to {shown} (revision {report.revision})"
        + ("; every row read back and checked" if read_back else "")
    )
