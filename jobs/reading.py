"""Reading and checking the files of an import, which needs no database: what
:mod:`jobs.importing` then matches and writes. ``ratings import`` reads its files once, before it
opens the database, however many times the officer answers a review."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePath

import polars as pl

from importers.crosstables import parse_crosstable
from importers.formats import IMPORT_FORMATS, results_table, table_format_of
from importers.from_crosstable import EventOptions, results_from_crosstable, undated_problems
from importers.limits import table_limits
from importers.results import SLICE_ROWS, SlicedResults, compact, read_results_sliced
from importers.tabular import MAX_INPUT_BYTES, read_file_bytes
from ratings.errors import InputError, Problem


@dataclass(frozen=True, slots=True)
class Checked:
    """One checked input file: its results, and its games when it is a crosstable."""

    file: SlicedResults
    games: pl.DataFrame | None
    warnings: tuple[Problem, ...] = ()
    """The reader's guesses (``Crosstable.warnings``); shown, never a reason to refuse."""


def read_file(
    path: Path,
    fmt: str | None = None,
    event: EventOptions | None = None,
    limit: int = MAX_INPUT_BYTES,
    slice_rows: int | None = SLICE_ROWS,
) -> Checked:
    """Read and check one file of any accepted kind (``fmt`` forces the kind), of at most
    ``limit`` bytes; a results table in slices of about ``slice_rows`` rows.

    The file is read once: the bytes hashed for the tournament's source record are the bytes
    parsed, even when the file changes while the job runs.
    """
    return read_data(read_file_bytes(path, limit), path.name, fmt, event, limit, slice_rows)


def read_data(
    data: bytes,
    name: str,
    fmt: str | None = None,
    event: EventOptions | None = None,
    limit: int = MAX_INPUT_BYTES,
    slice_rows: int | None = SLICE_ROWS,
) -> Checked:
    """Read and check the bytes of a file called ``name`` (an upload, or a file's), as
    :func:`read_file` does."""
    table = results_table(name, data) if fmt is None else None
    if fmt == "results" or table is not None:
        fmt_name = table or table_format_of(PurePath(name))
        sliced = read_results_sliced(data, name, fmt_name, slice_rows, table_limits(limit))
        return Checked(sliced, None, sliced.warnings)
    forced = IMPORT_FORMATS[fmt] if fmt else None
    options = event or EventOptions()
    try:
        crosstable = parse_crosstable(data, name, forced)
    except InputError as error:
        # Every problem at once: the missing date too, not only after the others are fixed.
        raise InputError(
            [*error.problems, *undated_problems(data, name, options, forced)]
        ) from None
    file, games = results_from_crosstable(crosstable, data, options)
    return Checked(compact(file), games, (*crosstable.warnings, *file.warnings))


def read_files(
    paths: Sequence[Path],
    fmt: str | None = None,
    event: EventOptions | None = None,
    limit: int = MAX_INPUT_BYTES,
    slice_rows: int | None = SLICE_ROWS,
) -> list[Checked]:
    """Read and check every file; one InputError lists the problems of all of them."""
    checked: list[Checked] = []
    problems: list[Problem] = []
    for path in paths:
        try:
            checked.append(read_file(path, fmt, event, limit, slice_rows))
        except InputError as error:
            problems.extend(error.problems)
    problems.extend(_repeated_keys(checked))
    if problems:
        raise InputError(problems)
    return checked


def _repeated_keys(checked: Sequence[Checked]) -> list[Problem]:
    seen: dict[str, str] = {}
    problems = []
    for one in checked:
        file = one.file
        for key, line in file.tournaments.select("key", "line").iter_rows():
            if key in seen:
                problems.append(
                    Problem(
                        file.source, line, "tournament", key,
                        f"the same tournament is also in {seen[key]}: {key_advice(one)}",
                    )
                )  # fmt: skip
            else:
                seen[key] = file.source
    return problems


def key_advice(checked: Checked) -> str:
    """What tells tournaments apart, and what the officer can do when two events are taken for
    one: sections of an event often share its name and dates (four TRF files of one weekend, each
    ``012 Bunratty 2011``)."""
    if checked.games is None:
        return (
            "a tournament is known by its tournament_id, else by its name and end date; give "
            "each event a tournament_id of its own"
        )
    return (
        "a tournament is known by its key, which is its name and end date unless --key gives "
        "one; if it is another event (a section of the same name and dates), import it on its "
        "own with --key or --name (such as 'Bunratty 2011 Masters'), or give its file a name of "
        "its own (the 012 line of a TRF)"
    )
