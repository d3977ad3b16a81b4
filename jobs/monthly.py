"""The monthly job (SPEC 8): import the inbox and its corrections, rate, publish the period's list
(again when a correction changed it), write the exports.

Everything the job writes to the database is one transaction (each inbox file in a savepoint of
its own, so a rejected file takes nothing with it): a job killed at any point leaves the database
as it was before the job, or as after it. Files move out of the inbox only after that transaction
has committed, and an inbox file whose content is already in the database (a job killed after
committing, before moving it) is archived, not imported twice. Exports are written under a
temporary name and renamed, so a reader never sees half a file, and they are rewritten by every
run, so running the job again after any interruption ends with exactly what one run gives.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from pathlib import Path

from sqlalchemy.engine import Connection, Engine

from importers.answers import read_answers
from importers.tabular import read_file_bytes
from jobs.folder import StagedRankings, write_atomically, write_list_files
from jobs.importing import import_checked
from jobs.locking import job_lock
from jobs.options import MonthlyOptions
from jobs.publishing import Publication, list_is_current, publish_into
from jobs.rating import PhaseCallback, rate_pending
from jobs.reading import Checked, read_file
from jobs.runs import recorded
from ratings.errors import EmptyListError, InputError, RatingsError, ReviewError
from ratings.storage import lists, tournaments
from ratings.storage.statistics import analyse_aside, analyses_deferred
from ratings.storage.write_ahead import copy_log, large_transaction

CORRECTIONS = "corrections"
"""The inbox's folder for corrected files: each replaces the tournaments it holds (``--replace``)."""
CRASH_ENVIRONMENT = "RATINGS_CRASH_AT"
"""Fault injection for the crash tests: the job kills itself at the named point."""
_KILL = getattr(signal, "SIGKILL", signal.SIGTERM)
"""The platform's abrupt end: SIGKILL, or on Windows (no SIGKILL) SIGTERM, which there is
TerminateProcess, as sudden as SIGKILL."""
KILLED_RETURNCODE = -_KILL if hasattr(signal, "SIGKILL") else _KILL
"""What the parent sees of a process killed by :func:`checkpoint`."""


def checkpoint(name: str) -> None:
    if os.environ.get(CRASH_ENVIRONMENT) == name:
        os.kill(os.getpid(), _KILL)


@dataclass
class MonthlyReport:
    period: str
    accepted: list[str] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)
    review: list[str] = field(default_factory=list)
    """Files held in ``inbox/review/`` until the officer says who their uncertain names are."""
    tournaments_rated: int = 0
    results_rated: int = 0
    published_version: int | None = None
    """Version published by this run; None when the period was already published."""
    exports: list[Path] = field(default_factory=list)
    warnings: dict[str, list[str]] = field(default_factory=dict)
    """Inbox file name → the readers' guesses in it, one line each (also written next to the
    archived file as ``NAME.warnings.txt``)."""


def run_monthly(
    engine: Engine,
    options: MonthlyOptions,
    *,
    today: date,
    clock: Callable[[], datetime],
    period: str | None = None,
    wait: float = 0.0,
    phase: PhaseCallback | None = None,
) -> MonthlyReport:
    """Run the monthly job once for ``period`` (default: the month of ``today``); ``phase`` is
    told when it starts to ``import``, ``rate``, ``publish``, ``commit`` (the transaction's end,
    with what the database does then) and ``export``, and when it is ``done``."""
    mark = phase or _no_phase
    report = MonthlyReport(period or today.strftime("%Y-%m"))
    inbox = options.inbox_dir
    mark("import")
    # The list's files are written while the database stores it and put in place once it is
    # committed; a run that fails before leaves none of them.
    with (
        job_lock(engine, wait=wait),
        recorded(engine, "monthly", clock) as record,
        StagedRankings(options.publish_dir / report.period, options.lists.rounding) as staged,
    ):
        waiting = _inbox_files(inbox) + _answered_files(inbox)
        corrections = _inbox_files(inbox / CORRECTIONS)
        problems: dict[Path, RatingsError] = {}
        guesses: dict[Path, list[str]] = {}
        corrected = False
        # On SQLite the commit leaves copying the transaction into the database file to the
        # checkpoint after it (copy_log); on PostgreSQL a command leaves the analysis of its
        # list's partition, when large, to a process of its own after it (analyse_aside).
        analyses: list[str] = []
        try:
            with (
                large_transaction(engine) as connection,
                analyses_deferred(connection, analyses, sized=True),
            ):
                for path, correction in [(p, False) for p in waiting] + [
                    (p, True) for p in corrections
                ]:
                    error = _import_one(connection, path, options, clock(), guesses, correction)
                    if error is None:
                        report.accepted.append(path.name)
                        corrected = corrected or correction
                    else:
                        problems[path] = error
                        held = report.review if isinstance(error, ReviewError) else report.rejected
                        held.append(path.name)
                    checkpoint("import")
                # Everything marked for re-rating (merges, title changes, corrections, changed
                # parameters) is rated here, so the list below is never frozen from stale ratings.
                mark("rate")
                rated = rate_pending(
                    connection,
                    options.rating,
                    now=clock(),
                    progress=lambda done, total: checkpoint("rating"),
                )
                report.tournaments_rated, report.results_rated = rated.tournaments, rated.results
                mark("publish")
                existing = lists.latest_list(connection, report.period)
                published: Publication | None = None
                # A correction that changes the period's published list republishes it: the list
                # on the website and in the publish folder is then the corrected one.
                if existing is None or (
                    corrected and not list_is_current(connection, existing, options.lists)
                ):
                    published = publish_into(
                        connection,
                        report.period,
                        options.lists,
                        cutoff=None if existing is None else existing.cutoff,
                        republish=existing is not None,
                        by="monthly job",
                        now=clock(),
                        params=options.rating,
                        shown=staged.start,
                    )
                    report.published_version = published.info.version
                checkpoint("publish")
                mark("commit")
        except EmptyListError:
            # Nobody would be on the list: nothing of the run is kept in the database, and the
            # accepted files wait in the inbox for the next run; the files it refused are filed
            # away with their reports all the same, so the officer sees why nobody is rated.
            _file_away(inbox, report.period, [p for p in waiting if p in problems], problems, {})
            refused = [p for p in corrections if p in problems]
            _file_away(inbox, report.period, refused, problems, {}, CORRECTIONS)
            record.count(files_rejected=len(report.rejected), list_period=report.period)
            raise
        checkpoint("commit")
        copy_log(engine)
        if published is not None:
            lists.settle(engine, published.info.id)
        analyse_aside(engine, analyses)
        report.warnings = {path.name: lines for path, lines in guesses.items()}
        _file_away(inbox, report.period, waiting, problems, guesses)
        _file_away(inbox, report.period, corrections, problems, guesses, CORRECTIONS)
        checkpoint("archive")
        mark("export")
        report.exports = _write_exports(engine, options, report.period, published, staged)
        record.count(
            files_accepted=len(report.accepted),
            files_rejected=len(report.rejected),
            tournaments_rated=report.tournaments_rated,
            results_rated=report.results_rated,
            list_period=report.period,
        )
    mark("done")
    return report


def _no_phase(_name: str) -> None:
    pass


MAP_SUFFIX = ".map.csv"
"""The officer's answers for a file held for review: ``NAME.map.csv`` next to ``NAME``."""


def _inbox_files(inbox: Path) -> list[Path]:
    """Files waiting in the inbox, oldest first (then by name)."""
    if not inbox.is_dir():
        return []
    files = [
        p
        for p in inbox.iterdir()
        if p.is_file() and not p.name.startswith(".") and not p.name.endswith(MAP_SUFFIX)
    ]
    return sorted(files, key=lambda p: (p.stat().st_mtime, p.name))


def _answered_files(inbox: Path) -> list[Path]:
    """Files held for review whose answers the officer has dropped next to them."""
    return [p for p in _inbox_files(inbox / "review") if _answers_file(p).is_file()]


def _answers_file(path: Path) -> Path:
    return path.with_name(path.name + MAP_SUFFIX)


def _import_one(
    connection: Connection,
    path: Path,
    options: MonthlyOptions,
    now: datetime,
    guesses: dict[Path, list[str]],
    correction: bool = False,
) -> RatingsError | None:
    """Import one file in a savepoint; its problems, or None when it is in the database. The
    reader's guesses go into ``guesses`` under the file's path."""
    matching = options.matching
    try:
        checked: Checked = read_file(path, limit=options.input_limit)
        if _answers_file(path).is_file():
            answers = _answers_file(path)
            matching = replace(
                matching, answers=read_answers(read_file_bytes(answers), answers.name)
            )
    except InputError as error:
        return error
    if checked.warnings:
        guesses[path] = [str(warning) for warning in checked.warnings]
    if tournaments.source_imported(connection, checked.file.sha256):
        return None
    savepoint = connection.begin_nested()
    try:
        imported = import_checked(
            connection,
            [checked],
            replace=correction,
            imported_by=options.imported_by,
            now=now,
            matching=matching,
        )
    except (InputError, ReviewError) as error:
        savepoint.rollback()
        return error
    savepoint.commit()
    # The reader's guesses, then the external ids the import kept out for review, then the
    # players taken for known ones by the name alone.
    told = [str(warning) for warning in imported.warnings]
    told += [f"matched by name alone: {match}" for match in imported.by_name]
    if told:
        guesses[path] = told
    return None


def _file_away(
    inbox: Path,
    period: str,
    files: list[Path],
    problems: dict[Path, RatingsError],
    guesses: dict[Path, list[str]],
    under: str = "",
) -> None:
    archive = inbox / "archive" / period / under
    rejected = inbox / "rejected"
    review = inbox / "review"
    for path in files:
        answers = _answers_file(path)
        if isinstance(problems.get(path), ReviewError):
            target = review / path.name
            write_atomically(
                target.with_name(target.name + ".review.txt"),
                (
                    f"{path.name} waits for a review: some names may be known players.\n"
                    f"Put the answers in {answers.name} next to it (lines: name,player_id, "
                    "where player_id is a player's id or 'new'); the next run imports it.\n\n"
                    # Every name: each needs its answer, and a file is not a screen.
                    f"{problems[path].listed(None)}\n"
                ).encode(),
            )
            if path != target:
                target.parent.mkdir(parents=True, exist_ok=True)
                path.replace(target)
            continue
        if answers.is_file() and path.parent == review:
            path.with_name(path.name + ".review.txt").unlink(missing_ok=True)
            if path not in problems:
                moved = _free_name(archive / answers.name)
                moved.parent.mkdir(parents=True, exist_ok=True)
                answers.replace(moved)
        if path in problems:
            target = _free_name(rejected / path.name)
            report = target.with_name(target.name + ".errors.txt")
            write_atomically(
                report, f"{path.name} was not imported.\n\n{problems[path]}\n".encode()
            )
        else:
            target = _free_name(archive / path.name)
            if path in guesses:
                # Accepted, but the reader guessed: the officer can check each guess.
                lines = "".join(f"{line}\n" for line in guesses[path])
                write_atomically(
                    target.with_name(target.name + ".warnings.txt"),
                    f"{path.name} was imported; the reader guessed:\n\n{lines}".encode(),
                )
        target.parent.mkdir(parents=True, exist_ok=True)
        path.replace(target)


def _free_name(path: Path) -> Path:
    """``path``, or ``name.2.ext``, ``name.3.ext``, ... when a file of that name is there."""
    candidate, number = path, 1
    while candidate.exists():
        number += 1
        candidate = path.with_name(f"{path.stem}.{number}{path.suffix}")
    return candidate


def _write_exports(
    engine: Engine,
    options: MonthlyOptions,
    period: str,
    published: Publication | None,
    staged: StagedRankings,
) -> list[Path]:
    """The period's list in every format, and its statistics, in ``publish_dir/period/``: the
    files written while the list was stored put in place, else from the entries this run
    computed and published, else from the list read back."""
    return write_list_files(
        engine,
        options.publish_dir,
        period,
        options.lists.rounding,
        published=published,
        staged=staged,
    )
