"""Backing up a whole database into a portable archive, checking one, restoring one, copying a
database to another (SQLite to PostgreSQL), and the service's scheduled backups with their
retention (``ratings.storage.archive`` holds the archive's form).

A backup reads everything in one read transaction, so one taken while the monthly job writes
holds the database as it was before the job or after it. It is written under a temporary name
and renamed when complete: a backup killed part-way leaves any earlier archive of that name as
it was. A restore is one transaction too, holding the job lock: it creates the schema at the
archive's revision, loads every table, checks each one read back against the archive's counts
and checksums, sets PostgreSQL's sequences past the restored ids and migrates to the newest
revision; killed part-way, it leaves the database as it was before it began.
"""

from __future__ import annotations

import logging
import os
import tempfile
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from pathlib import Path

from sqlalchemy import Table
from sqlalchemy.engine import Connection, Engine

from jobs.locking import job_lock
from jobs.monthly import checkpoint as crash_point
from jobs.options import BackupOptions
from jobs.queries import BACKUP_KIND
from ratings.errors import (
    ArchiveError,
    ArchiveRevisionError,
    OutputError,
    RestoreRefusedError,
)
from ratings.storage import archive, lists, runs
from ratings.storage.database import (
    head,
    known_revision,
    migrate_on,
    read_snapshot,
    revision_of,
)
from ratings.storage.write_ahead import checkpoint, large_transaction

log = logging.getLogger(__name__)

Progress = Callable[[int, int], None]
"""Told rows done and rows in all, as a backup, restore or check goes."""
PREFIX = "ratings-"
SUFFIX = ".zip"


BACKUP_LOCK_WAIT = 3600.0
"""Seconds a backup on PostgreSQL waits for a running job (a full re-rating at federation
scale takes a minute or two)."""


@dataclass(frozen=True, slots=True)
class BackupReport:
    path: Path
    manifest: archive.Manifest


@dataclass(frozen=True, slots=True)
class RestoreReport:
    manifest: archive.Manifest
    revision: str | None
    """The revision the database is at after the restore (the newest)."""


def default_name(now: datetime, revision: str | None) -> str:
    """An archive's name holding when it was taken and the schema's revision; names sort in the
    order they were taken."""
    return f"{PREFIX}{now:%Y-%m-%d-%H%M%S}-r{revision or 'none'}{SUFFIX}"


def _counter(progress: Progress | None, total: int) -> Callable[[int], None] | None:
    if progress is None:
        return None
    done = 0

    def step(rows: int) -> None:
        nonlocal done
        done += rows
        progress(done, total)

    return step


def backup(
    engine: Engine,
    path: Path | None,
    *,
    folder: Path,
    now: datetime,
    progress: Progress | None = None,
    lock_wait: float = BACKUP_LOCK_WAIT,
    waiting: Callable[[], None] | None = None,
) -> BackupReport:
    """Write the whole database into an archive at ``path`` (default: a new name in ``folder``).

    On PostgreSQL the backup holds the job lock (waiting up to ``lock_wait`` seconds for a
    running job, ``waiting`` told when it starts to): the jobs empty tables with ``TRUNCATE`` and
    attach each new list's table, neither of which a snapshot taken before them sees as it was
    (PostgreSQL's manual: TRUNCATE is not MVCC-safe), so a backup there is taken after a running
    job. SQLite's snapshot holds whatever commits meanwhile: no lock, the job goes on."""
    held: AbstractContextManager[None] = nullcontext()
    if engine.dialect.name == "postgresql":
        held = job_lock(engine, wait=lock_wait, waiting=waiting)
    with held, read_snapshot(engine) as connection, archive.fast_reader(connection) as fast:
        revision = revision_of(connection)
        tables = archive.database_tables(connection)
        total = sum(archive.count_rows(connection, table) for table in tables)
        target = path if path is not None else folder / default_name(now, revision)
        if target.is_dir() or target.is_symlink():
            raise OutputError(f"cannot write {target}: it is a folder or a symbolic link")
        temporary = target.with_name(f".{target.name}.partial")
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise OutputError(
                f"cannot make the folder {target.parent}: {error.strerror or error}"
            ) from None
        try:
            with temporary.open("wb") as stream:
                manifest = archive.write_archive(
                    stream,
                    tables,
                    fast or partial(archive.read_batches, connection),
                    revision=revision or "",
                    created_at=now,
                    source=connection.dialect.name,
                    progress=_counter(progress, total),
                    written=lambda name: crash_point("backup-table"),
                )
                stream.flush()
                os.fsync(stream.fileno())
            os.replace(temporary, target)
        except OSError as error:
            raise OutputError(f"cannot write {target}: {error.strerror or error}") from None
        finally:
            temporary.unlink(missing_ok=True)
    return BackupReport(target, manifest)


def verify(path: Path, progress: Progress | None = None) -> archive.Manifest:
    """Read an archive through and check everything in it, restoring nothing; one made at a
    revision this version does not know is refused, as its restore would be."""
    with archive.Archive(path) as opened:
        if not known_revision(opened.manifest.revision):
            raise ArchiveRevisionError(path, opened.manifest.revision, head())
        return opened.verify(_counter(progress, opened.manifest.rows))


def restore(
    engine: Engine,
    path: Path,
    *,
    force: bool = False,
    read_back: bool = False,
    progress: Progress | None = None,
    lock_wait: float = 0.0,
) -> RestoreReport:
    """Restore an archive into the database ``engine`` opens, which must hold no data (unless
    ``force``: then everything in it is replaced). Refused with the database unchanged when it
    holds data or the archive is damaged.

    Every table's bytes are checked against the archive's checksum as they are read and its
    rows counted in the database, every foreign key checked. ``read_back`` also reads every
    row back from where it was written and compares them with the archive's rows checksum: a
    proof that the database holds exactly the archive's values, at the price of a second pass
    over everything (about a third of a restore's time)."""
    with archive.Archive(path) as opened:
        manifest = opened.manifest
        if not known_revision(manifest.revision):
            raise ArchiveRevisionError(path, manifest.revision, head())
        with (
            job_lock(engine, wait=lock_wait),
            large_transaction(engine) as connection,
        ):
            if not force:
                table = archive.holds_data(connection)
                if table is not None:
                    raise RestoreRefusedError(_shown(engine), table)
            archive.drop_everything(connection)
            migrate_on(connection, manifest.revision)
            tables = {t.name: t for t in archive.database_tables(connection)}
            named = {t.name for t in manifest.tables}
            if named != set(tables):
                missing = sorted(set(tables) - named) or sorted(named - set(tables))
                raise ArchiveError(
                    path,
                    f"its tables are not those of the schema at revision {manifest.revision}"
                    f" ({', '.join(missing)})",
                )
            keys = archive.foreign_keys_set_aside(connection)
            passes = 2 if read_back else 1
            _load(connection, opened, tables, read_back, _counter(progress, passes * manifest.rows))
            archive.foreign_keys_restored(connection, keys)
            archive.sequences_past_ids(connection, list(tables.values()))
            migrate_on(connection, "head")
            revision = revision_of(connection)
    checkpoint(engine)
    # The restored lists are read as a publication leaves them: vacuumed, their indexes
    # answering the site's pages alone.
    with engine.connect() as connection:
        restored = [info.id for info in lists.all_lists(connection)]
    for list_id in restored:
        lists.settle(engine, list_id)
    return RestoreReport(manifest, revision)


def _load(
    connection: Connection,
    opened: archive.Archive,
    tables: dict[str, Table],
    read_back: bool,
    step: Callable[[int], None] | None,
) -> None:
    """Every table of the archive into the database's empty tables, its count checked there;
    with ``read_back`` each table's rows also read back and checked against the archive's rows
    checksum (on SQLite from the scratch file the database's table is a copy of; on PostgreSQL
    in the database, inside the restore's transaction)."""
    if connection.dialect.name == "sqlite":
        with archive.sqlite_staged(opened, tables, read_back, step) as staged:
            for entry in opened.manifest.tables:
                archive.load_staged(connection, opened, staged, entry, tables[entry.name])
                crash_point("restore-table")
        return
    for entry in opened.manifest.tables:
        archive.load_table(connection, opened, entry, tables[entry.name], read_back, step)
        crash_point("restore-table")
    if not read_back:
        return
    for entry in opened.manifest.tables:
        rows, digest = archive.content_digest(connection, tables[entry.name])
        archive.check_read_back(opened, entry, rows, digest)
        if step is not None:
            step(rows)


def copy(
    source: Engine,
    target: Engine,
    *,
    now: datetime,
    force: bool = False,
    read_back: bool = False,
    progress: Progress | None = None,
) -> RestoreReport:
    """Copy the whole database ``source`` into the empty database ``target`` through an
    archive in a temporary folder (checked on the way in as any restore is)."""
    with tempfile.TemporaryDirectory(prefix="ratings-copy-") as folder:
        made = backup(source, Path(folder) / "copy.zip", folder=Path(folder), now=now)
        return restore(target, made.path, force=force, read_back=read_back, progress=progress)


def _shown(engine: Engine) -> str:
    return engine.url.render_as_string(hide_password=True)


# Scheduled backups ---------------------------------------------------------------------------


def archives_in(folder: Path) -> list[Path]:
    """The archives the service named in ``folder``, oldest first."""
    if not folder.is_dir():
        return []
    return sorted(
        p
        for p in folder.iterdir()
        if p.is_file() and p.name.startswith(PREFIX) and p.name.endswith(SUFFIX)
    )


def prune(folder: Path, keep: int) -> list[Path]:
    """Delete all but the newest ``keep`` archives of ``folder``; those deleted."""
    found = archives_in(folder)
    gone = found[: max(len(found) - keep, 0)]
    for path in gone:
        path.unlink(missing_ok=True)
    return gone


def scheduled_backup(
    engine: Engine, options: BackupOptions, clock: Callable[[], datetime]
) -> BackupReport:
    """One backup of the service's schedule into the backup folder, the oldest beyond
    ``options.keep`` deleted after it; its outcome is recorded as a job run of kind
    ``backup`` (written after the backup, so the archive does not hold a run still going)."""
    started = clock()
    try:
        report = backup(engine, None, folder=options.folder, now=started)
    except Exception as error:
        text = str(error) or type(error).__name__
        try:
            with engine.begin() as connection:
                runs.record_job(connection, BACKUP_KIND, started, clock(), "failed", error=text)
        except Exception:  # the database itself failing: the log and the mail say so
            log.warning("cannot record the failed backup", exc_info=True)
        raise
    prune(options.folder, options.keep)
    with engine.begin() as connection:
        runs.record_job(connection, BACKUP_KIND, started, clock(), "succeeded")
    return report
