"""The import job: read and check files, match players, and write everything in one transaction.

Either every file of a call is imported, or nothing is (SPEC 4.4): all problems of all files are
collected first, and the database is only written when there are none.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path

import polars as pl
from sqlalchemy.engine import Connection, Engine

from importers.crosstables import parse_crosstable
from importers.formats import IMPORT_FORMATS, results_table, table_format_of
from importers.from_crosstable import EventOptions, results_from_crosstable, undated_problems
from importers.limits import table_limits
from importers.matching import Known, Matched, match_players
from importers.results import ResultsFile, read_results
from importers.tabular import MAX_INPUT_BYTES, read_file_bytes
from jobs.options import MatchOptions
from ratings.errors import Candidate, InputError, Problem, ReviewError, Uncertain
from ratings.formula import BUCHHOLZ_SCALE
from ratings.storage import players
from ratings.storage import tournaments as stored_tournaments


@dataclass(frozen=True, slots=True)
class NewPlayer:
    """A player the import creates, with the known players closest to it (for the dry run)."""

    federation_id: str
    name: str
    country: str | None
    closest: tuple[Candidate, ...]


@dataclass(frozen=True, slots=True)
class ImportReport:
    files: int
    tournaments_new: int
    tournaments_replaced: int
    results: int
    players_new: int
    dry_run: bool
    warnings: tuple[Problem, ...] = ()
    """Where a reader had to guess (file, line, column, value, the guess) or clean a value
    (control characters removed from a name), in file order; then the external ids not stored
    because they disagree with the stored ones, for the officer to review."""
    new_players: tuple[NewPlayer, ...] = ()
    uncertain: tuple[Uncertain, ...] = ()
    """Names a real import would stop at for review (dry run only: a real import raises)."""


"""``--format`` names of crosstables → the crosstable reader's own names."""


@dataclass(frozen=True, slots=True)
class Checked:
    """One checked input file: its results, and its games when it is a crosstable."""

    file: ResultsFile
    games: pl.DataFrame | None
    warnings: tuple[Problem, ...] = ()
    """The reader's guesses (``Crosstable.warnings``); shown, never a reason to refuse."""


def read_file(
    path: Path,
    fmt: str | None = None,
    event: EventOptions | None = None,
    limit: int = MAX_INPUT_BYTES,
) -> Checked:
    """Read and check one file of any accepted kind (``fmt`` forces the kind), of at most
    ``limit`` bytes.

    The file is read once: the bytes hashed for the tournament's source record are the bytes
    parsed, even when the file changes while the job runs.
    """
    data = read_file_bytes(path, limit)
    table = results_table(path.name, data) if fmt is None else None
    if fmt == "results" or table is not None:
        file = read_results(data, path.name, table or table_format_of(path), table_limits(limit))
        return Checked(file, None, file.warnings)
    forced = IMPORT_FORMATS[fmt] if fmt else None
    options = event or EventOptions()
    try:
        crosstable = parse_crosstable(data, path.name, forced)
    except InputError as error:
        # Every problem at once: the missing date too, not only after the others are fixed.
        raise InputError(
            [*error.problems, *undated_problems(data, path.name, options, forced)]
        ) from None
    file, games = results_from_crosstable(crosstable, data, options)
    return Checked(file, games, (*crosstable.warnings, *file.warnings))


def read_files(
    paths: Sequence[Path],
    fmt: str | None = None,
    event: EventOptions | None = None,
    limit: int = MAX_INPUT_BYTES,
) -> list[Checked]:
    """Read and check every file; one InputError lists the problems of all of them."""
    checked: list[Checked] = []
    problems: list[Problem] = []
    for path in paths:
        try:
            checked.append(read_file(path, fmt, event, limit))
        except InputError as error:
            problems.extend(error.problems)
    problems.extend(_repeated_keys([c.file for c in checked]))
    if problems:
        raise InputError(problems)
    return checked


def _repeated_keys(files: Sequence[ResultsFile]) -> list[Problem]:
    seen: dict[str, str] = {}
    problems = []
    for file in files:
        for key, line in file.tournaments.select("key", "line").iter_rows():
            if key in seen:
                problems.append(
                    Problem(
                        file.source, line, "tournament", key,
                        f"the same tournament is also in {seen[key]}",
                    )
                )  # fmt: skip
            else:
                seen[key] = file.source
    return problems


def import_files(
    engine: Engine,
    paths: Sequence[Path],
    *,
    replace: bool = False,
    dry_run: bool = False,
    fmt: str | None = None,
    event: EventOptions | None = None,
    imported_by: str,
    now: datetime,
    limit: int = MAX_INPUT_BYTES,
    matching: MatchOptions | None = None,
) -> ImportReport:
    checked = read_files(paths, fmt, event, limit)
    with engine.begin() as connection:
        report = import_checked(
            connection,
            checked,
            replace=replace,
            dry_run=dry_run,
            imported_by=imported_by,
            now=now,
            matching=matching,
        )
        if dry_run:
            connection.rollback()
    return report


def import_checked(
    connection: Connection,
    checked: Sequence[Checked],
    *,
    replace: bool = False,
    dry_run: bool = False,
    imported_by: str,
    now: datetime,
    matching: MatchOptions | None = None,
) -> ImportReport:
    """Import checked files inside the caller's transaction (nothing is written on a dry run).

    Names the matching is not sure of raise a :class:`ReviewError` listing each with its
    candidates (a dry run reports them instead)."""
    matching = matching or MatchOptions()
    files = [c.file for c in checked]
    results = pl.concat(
        [
            f.results.with_columns(
                pl.lit(f.source).alias("source"), pl.lit(f.format).alias("scheme")
            )
            for f in files
        ],
        how="diagonal_relaxed",
    )
    if "position" not in results.columns:
        results = results.with_columns(pl.lit(None, dtype=pl.Int64).alias("position"))
    played = [c.games for c in checked if c.games is not None]
    tournaments = pl.concat(
        [
            f.tournaments.with_columns(
                pl.lit(f.source).alias("source_name"),
                pl.lit(f.sha256).alias("source_hash"),
                pl.lit(f.format).alias("source_format"),
            )
            for f in files
        ],
        how="vertical_relaxed",
    )
    known = Known(
        players.known_players(connection),
        players.identifiers(connection),
        players.aliases(connection),
    )
    matched = match_players(
        results,
        known,
        review_score=matching.review_score,
        answers=matching.answers,
        closest=dry_run,
    )
    problems = list(matched.problems)
    stored = stored_tournaments.tournaments_by_key(connection, tournaments["key"].to_list())
    tables = [c.file for c in checked if c.games is None]
    problems += _buchholz_differences(connection, tables, stored)
    if not replace:
        problems += [
            Problem(
                source, line, "tournament", key,
                "this tournament is already imported (use --replace to correct it)",
            )
            for key, line, source in tournaments.select("key", "line", "source_name").iter_rows()
            if key in stored
        ]  # fmt: skip
    if problems:
        problems.sort(key=lambda p: (p.file, p.line or 0))
        raise InputError(problems)
    uncertain = _with_last_events(connection, matched.uncertain)
    if uncertain and not dry_run:
        raise ReviewError(uncertain)
    report = ImportReport(
        files=len(files),
        tournaments_new=sum(1 for k in tournaments["key"] if k not in stored),
        tournaments_replaced=sum(1 for k in tournaments["key"] if k in stored),
        results=results.height,
        players_new=matched.new_players.height,
        dry_run=dry_run,
        warnings=(*(w for c in checked for w in c.warnings), *matched.warnings),
        new_players=_new_players(connection, matched) if dry_run else (),
        uncertain=uncertain,
    )
    if dry_run:
        return report
    _write(connection, tournaments, matched, stored, imported_by, now)
    if played:
        _write_games(connection, pl.concat(played), matched.results)
    return report


def _with_last_events(
    connection: Connection, uncertain: Sequence[Uncertain]
) -> tuple[Uncertain, ...]:
    last = players.last_events(connection, [c.player for u in uncertain for c in u.candidates])
    return tuple(
        replace(u, candidates=tuple(_with_last(c, last) for c in u.candidates)) for u in uncertain
    )


def _with_last(candidate: Candidate, last: Mapping[int, tuple[str, object]]) -> Candidate:
    event = last.get(candidate.player)
    return replace(candidate, last_event=f"{event[0]}" if event else None)


def _new_players(connection: Connection, matched: Matched) -> tuple[NewPlayer, ...]:
    closest = matched.closest or {}
    last = players.last_events(connection, [c.player for cs in closest.values() for c in cs])
    return tuple(
        NewPlayer(fid, name, country, tuple(_with_last(c, last) for c in closest.get(fid, ())))
        for fid, name, country in matched.new_players.select(
            "federation_id", "name", "country"
        ).rows()
    )


def _write_games(connection: Connection, games: pl.DataFrame, results: pl.DataFrame) -> None:
    """Store the games of crosstable imports, players as database ids."""
    keys = stored_tournaments.tournament_ids(connection, games["key"].unique().to_list())
    ids = players.player_ids(connection, results["federation_id"].unique().to_list())
    who = results.filter(pl.col("position").is_not_null()).select(
        "key",
        "position",
        pl.col("federation_id").replace_strict(ids, return_dtype=pl.Int64).alias("_id"),
    )
    rows = (
        games.join(who.rename({"position": "player", "_id": "player_id"}), on=["key", "player"])
        .join(
            who.rename({"position": "opponent", "_id": "opponent_id"}),
            on=["key", "opponent"],
            how="left",
        )
        .with_columns(pl.col("key").replace_strict(keys, return_dtype=pl.Int64).alias("tournament"))
        .select(
            "tournament", "round", pl.col("player_id").alias("player"),
            pl.col("opponent_id").alias("opponent"), "kind", "outcome", "color", "handicap",
        )
    )  # fmt: skip
    stored_tournaments.insert_games(connection, rows)


def _buchholz_differences(
    connection: Connection,
    files: Sequence[ResultsFile],
    stored: dict[str, stored_tournaments.StoredTournament],
) -> list[Problem]:
    """A results table (``files`` holds only those: a crosstable brings its games and is checked
    as a crosstable) for an event imported from its crosstable must agree with the Buchholz
    values computed from the games; every difference is reported."""
    long_files = list(files)
    keys = [k for f in long_files for k in f.tournaments["key"].to_list() if k in stored]
    if not keys:
        return []
    from_games = stored_tournaments.tournaments_with_games(connection, keys)
    if not from_games:
        return []
    computed = stored_tournaments.stored_buchholz(connection, sorted(from_games))
    problems = []
    for file in long_files:
        given = file.results.filter(
            pl.col("key").is_in(list(from_games)) & pl.col("player_id").is_not_null()
        )
        joined = given.join(
            computed.rename({"federation_id": "player_id", "buchholz": "computed"}),
            on=["key", "player_id"],
            how="left",
        ).filter(pl.col("computed").is_null() | (pl.col("computed") != pl.col("buchholz")))
        for line, value, expected, key in joined.select(
            "line", "buchholz", "computed", "key"
        ).iter_rows():
            text = (
                "no such player in the crosstable"
                if expected is None
                else (
                    f"differs from the Buchholz computed from the crosstable of {key!r} "
                    f"({expected / BUCHHOLZ_SCALE:g})"
                )
            )
            problems.append(
                Problem(file.source, line, "buchholz", f"{value / BUCHHOLZ_SCALE:g}", text)
            )
    return problems


def _write(
    connection: Connection,
    tournaments: pl.DataFrame,
    matched: Matched,
    stored: dict[str, stored_tournaments.StoredTournament],
    imported_by: str,
    now: datetime,
) -> None:
    players.insert_players(connection, matched.new_players, now)
    ids = players.player_ids(connection, matched.results["federation_id"].unique().to_list())
    if matched.identifiers is not None:
        players.insert_identifiers(
            connection,
            matched.identifiers.select(
                pl.col("federation_id").replace_strict(ids, return_dtype=pl.Int64).alias("player"),
                "scheme",
                "value",
            ),
        )
    if matched.aliases is not None:
        players.insert_aliases(
            connection,
            matched.aliases.select(
                "scheme",
                "spelling",
                pl.col("federation_id").replace_strict(ids, return_dtype=pl.Int64).alias("player"),
            ),
            imported_by,
            now,
        )
    meta = tournaments.with_columns(
        pl.lit(now).alias("imported_at"), pl.lit(imported_by).alias("imported_by")
    )
    fresh = meta.filter(~pl.col("key").is_in(list(stored)))
    stored_tournaments.insert_tournaments(connection, fresh)
    for row in meta.filter(pl.col("key").is_in(list(stored))).iter_rows(named=True):
        values = {
            c: row[c]
            for c in (
                "name", "start_date", "end_date", "tier", "source_name", "source_hash",
                "source_format", "imported_at", "imported_by",
            )
        }  # fmt: skip
        stored_tournaments.replace_tournament(connection, stored[row["key"]], values)
    keys = stored_tournaments.tournament_ids(connection, tournaments["key"].to_list())
    rows = matched.results.with_columns(
        pl.col("key").replace_strict(keys, return_dtype=pl.Int64).alias("tournament"),
        pl.col("federation_id").replace_strict(ids, return_dtype=pl.Int64).alias("player"),
    )
    stored_tournaments.insert_results(connection, rows)
    dates = (
        rows.join(meta.select("key", "end_date"), on="key")
        .group_by("player")
        .agg(pl.col("end_date").min().alias("first_seen"))
    )
    players.set_first_seen(connection, dates)
    titled = rows.filter(pl.col("title") == "GM").join(meta.select("key", "end_date"), on="key")
    _record_titles(connection, titled)


def _record_titles(connection: Connection, titled: pl.DataFrame) -> None:
    """A ``GM`` in a results file: the player holds the title, at the latest from that event on."""
    if titled.height == 0:
        return
    earliest = titled.group_by("player").agg(pl.col("end_date").min())
    current = players.player_titles(connection, earliest["player"].to_list())
    updates = []
    for pid, day in earliest.iter_rows():
        title, since = current.get(pid, (None, None))
        if title != "GM" or (since is not None and day < since):
            updates.append((pid, "GM", day))
    players.update_players(connection, updates, ["title", "title_date"])
