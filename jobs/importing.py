"""The import job: read and check files, match players, and write everything in one transaction.

Either every file of a call is imported, or nothing is (SPEC 4.4): all problems of all files are
collected first, and the database is only written when there are none.

A large results table is read, checked and stored in slices of whole tournaments
(``importers.results.SlicedResults``): between reading and storing, only the compact form of its
rows is held (numbers, and each row's tournament and player as a row number), and the players
are matched once per distinct way the file writes them rather than once per row.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import TypeVar

import polars as pl
from sqlalchemy.engine import Connection, Engine

from importers.from_crosstable import EventOptions
from importers.matching import (
    ALIASES,
    Known,
    Matched,
    empty_known,
    match_players,
    spellings_kept,
)
from importers.results import SLICE_ROWS, SlicedResults
from importers.tabular import MAX_INPUT_BYTES
from jobs import import_checks as checks
from jobs.options import MatchOptions
from jobs.reading import Checked, key_advice, read_files
from ratings.aside import aside
from ratings.errors import Candidate, InputError, Problem, ReviewError, Uncertain
from ratings.storage import imports as stored_imports
from ratings.storage import players
from ratings.storage import tournaments as stored_tournaments
from ratings.storage.statistics import analyse_aside, analyses_deferred
from ratings.storage.write_ahead import checkpoint_deferred, copy_log


@dataclass(frozen=True, slots=True)
class NewPlayer:
    """A player the import creates, with the known players closest to it (for the dry run)."""

    federation_id: str
    name: str
    country: str | None
    closest: tuple[Candidate, ...]


@dataclass(frozen=True, slots=True)
class NameMatch:
    """A player of a file taken for a known player by the name alone (no id, no remembered
    spelling, no external id): told in every report, for the officer to check."""

    source: str
    line: int | None
    name: str
    country: str | None
    federation_id: str
    known_name: str
    known_country: str | None

    def __str__(self) -> str:
        where = f"{self.source}, line {self.line}" if self.line is not None else self.source
        return (
            f"{where}: {self.name!r} ({self.country or 'no country'}) is {self.federation_id} "
            f"{self.known_name} ({self.known_country or 'no country'})"
        )


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
    by_name: tuple[NameMatch, ...] = ()
    """Players of the files matched to known players by the name alone."""


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
    slice_rows: int | None = SLICE_ROWS,
) -> ImportReport:
    return import_read(
        engine, read_files(paths, fmt, event, limit, slice_rows), replace=replace,
        dry_run=dry_run, imported_by=imported_by, now=now, matching=matching,
    )  # fmt: skip


def import_read(
    engine: Engine,
    checked: Sequence[Checked],
    *,
    replace: bool = False,
    dry_run: bool = False,
    imported_by: str,
    now: datetime,
    matching: MatchOptions | None = None,
) -> ImportReport:
    """Import files read and checked already (:func:`read_data`), in one transaction."""
    # A large import that replaces nothing (so deletes no row that another row points to) has
    # its keys checked once before the commit rather than row by row.
    large = (
        not replace and not dry_run and stored_imports.is_large(sum(c.file.rows for c in checked))
    )
    # On SQLite its commit syncs the write-ahead log alone; the copy into the database file
    # is left to a checkpoint after it, in a process of its own when the log is large. On
    # PostgreSQL a command leaves the analyses of the tables it filled to a process of its own.
    analyses: list[str] = []
    with (
        engine.connect() as connection,
        checkpoint_deferred(connection) if large else nullcontext(),
        analyses_deferred(connection, analyses) if large else nullcontext(),
        stored_imports.keys_checked(connection, large) as check_keys,
        connection.begin() as transaction,
    ):
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
            transaction.rollback()
        else:
            check_keys()
    if large:
        copy_log(engine)
        analyse_aside(engine, analyses)
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
    # Each file's players as it writes them (first line of each), matched once each.
    written = pl.concat(
        [
            f.players.with_columns(
                pl.lit(f.source).alias("source"), pl.lit(f.format).alias("scheme")
            )
            for f in files
        ],
        how="diagonal_relaxed",
    )
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
        # A crosstable's tournament carries its standings record, a results table's has none.
        how="diagonal_relaxed",
    )
    known = _known(connection, written, matching, dry_run)
    matched = match_players(
        written,
        known,
        review_score=matching.review_score,
        answers=matching.answers,
        closest=dry_run,
    )
    if matched.problems or matched.uncertain:
        # Some of these are told row by row: the rows are matched again, each on its own, for
        # the officer to see every line (the file is refused or held, so nothing is written).
        matched = match_players(
            _every_row(files),
            known,
            review_score=matching.review_score,
            answers=matching.answers,
            closest=dry_run,
        )
    problems = list(matched.problems)
    apart: list[Problem] = []
    if not (matched.problems or matched.uncertain):
        # Two entries of one tournament are two people: never stored as one player.
        twice = checks.entries_twice(files, matched)
        if twice.height:
            matched, apart = checks.kept_apart(twice, matched, known)
            problems += checks.one_player_twice(
                checks.entries_twice(files, matched), matched, known
            )
    stored = stored_tournaments.tournaments_by_key(connection, tournaments["key"].to_list())
    tables = [c.file for c in checked if c.games is None]
    problems += checks.buchholz_differences(connection, tables, stored)
    if not replace:
        by_source = {c.file.source: c for c in checked}
        problems += [
            Problem(
                source, line, "tournament", key,
                "this tournament is already imported (use --replace if this file corrects it); "
                + key_advice(by_source[source]),
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
        results=sum(f.rows for f in files),
        players_new=matched.new_players.height,
        dry_run=dry_run,
        warnings=(
            *(w for c in checked for w in c.warnings),
            *matched.warnings,
            *apart,
        ),
        new_players=_new_players(connection, matched) if dry_run else (),
        uncertain=uncertain,
        by_name=_by_name(matched),
    )

    def with_copies() -> Callable[[], ImportReport]:
        alike = checks.stored_alike(connection, tournaments, stored)
        found: Callable[[], list[Problem]]
        if stored_imports.writes_on_server(connection):
            found = aside("copies", checks.copies_among, alike, files, matched).result
        else:
            copies = checks.copies_among(alike, files, matched)
            found = lambda: copies  # noqa: E731
        return lambda: dataclasses.replace(report, warnings=(*report.warnings, *found()))

    if dry_run:
        return with_copies()()
    # The copies are looked for in the database before the import writes to it. Their rows are
    # compared while the import writes: on a database server by a thread of their own, as the
    # import mostly waits on the server; on SQLite here, while a large import's results are
    # made by a thread of their own, which a third would slow.
    ids, reported = _write(
        connection, files, tournaments, matched, stored, imported_by, now, first=with_copies
    )
    if played:
        crosstables = [i for i, c in enumerate(checked) if c.games is not None]
        _write_games(connection, pl.concat(played), files, crosstables, ids)
    return reported()


def _known(
    connection: Connection, written: pl.DataFrame, matching: MatchOptions, dry_run: bool
) -> Known:
    """What the matching needs of the database. When every player is written with a
    player_id and nothing else (no external id, no answers, not a dry run, which shows the
    closest known names), the player_id decides every match: only those players are read,
    not the whole registry (a month's file names tens of thousands of a million)."""
    by_id_only = (
        not dry_run
        and not matching.answers
        and written.height > 0
        and written["player_id"].null_count() == 0
        and written["id_value"].null_count() == written.height
    )
    if by_id_only:
        return Known(
            players.known_players(connection, among=written["player_id"].to_list()),
            empty_known().identifiers,
            players.aliases(connection),
        )
    return Known(
        players.known_players(connection),
        players.identifiers(connection),
        players.aliases(connection),
    )


def _every_row(files: Sequence[SlicedResults]) -> pl.DataFrame:
    """Every row of ``files`` with what the matching reads of it."""
    return pl.concat(
        [
            f.expanded(part).with_columns(
                pl.lit(f.source).alias("source"), pl.lit(f.format).alias("scheme")
            )
            for f in files
            for part in f.slices
        ],
        how="diagonal_relaxed",
    )


def _with_last_events(
    connection: Connection, uncertain: Sequence[Uncertain]
) -> tuple[Uncertain, ...]:
    last = players.last_events(connection, [c.player for u in uncertain for c in u.candidates])
    return tuple(
        replace(u, candidates=tuple(_with_last(c, last) for c in u.candidates)) for u in uncertain
    )


def _with_last(candidate: Candidate, last: Mapping[int, players.LastEvent]) -> Candidate:
    event = last.get(candidate.player)
    return replace(candidate, last_event=str(event) if event else None)


def _by_name(matched: Matched) -> tuple[NameMatch, ...]:
    if matched.by_name is None:
        return ()
    return tuple(
        NameMatch(*row) for row in matched.by_name.sort("source", "line", nulls_last=True).rows()
    )


def _new_players(connection: Connection, matched: Matched) -> tuple[NewPlayer, ...]:
    closest = matched.closest or {}
    last = players.last_events(connection, [c.player for cs in closest.values() for c in cs])
    return tuple(
        NewPlayer(fid, name, country, tuple(_with_last(c, last) for c in closest.get(fid, ())))
        for fid, name, country in matched.new_players.select(
            "federation_id", "name", "country"
        ).rows()
    )


def _write_games(
    connection: Connection,
    games: pl.DataFrame,
    files: Sequence[SlicedResults],
    crosstables: Sequence[int],
    ids: Sequence[pl.Series],
) -> None:
    """Store the games of crosstable imports (``crosstables``: their places in ``files``),
    players as database ids (``ids``: each file's players' database ids)."""
    keys = stored_tournaments.tournament_ids(connection, games["key"].unique().to_list())
    who = pl.concat(
        [
            part.filter(pl.col("position").is_not_null()).select(
                files[i].tournaments["key"].gather(part["tournament"]).alias("key"),
                "position",
                ids[i].gather(part["who"]).alias("_id"),
            )
            for i in crosstables
            for part in files[i].slices
        ]
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


_T = TypeVar("_T")


def _write(
    connection: Connection,
    files: Sequence[SlicedResults],
    tournaments: pl.DataFrame,
    matched: Matched,
    stored: dict[str, stored_tournaments.StoredTournament],
    imported_by: str,
    now: datetime,
    first: Callable[[], _T],
) -> tuple[list[pl.Series], _T]:
    """Store the players, tournaments and results; the database ids of each file's players
    (in the order of its ``players``) are returned, with what ``first`` returns: it is called
    before anything is written, once the results' write has begun (on SQLite, a large one in a
    thread of its own: ``storage.imports.results_ahead``).

    The ids of new players and tournaments are taken before they are written, and a new player
    is written with the first date it played: nothing written is read back, and only known
    players' first dates are updated."""
    events = [
        f.tournaments.select("key", "end_date")
        .with_row_index("tournament")
        .with_columns(pl.col("tournament").cast(pl.UInt32))
        for f in files
    ]
    # The first event of each player as written, then of each player (a player may be written
    # several ways, and in several files).
    first_played = pl.concat(
        [_first_played(file, ends) for file, ends in zip(files, events, strict=True)]
    )
    written = matched.results.select("federation_id", "player").with_columns(first_played)
    first_seen = written.group_by("federation_id").agg(
        pl.col("player").first(), pl.col("first_seen").min()
    )
    # The ids of new players and tournaments are taken first, so that a large write of the
    # results can begin while the players and tournaments are written.
    new_ids = stored_imports.new_player_ids(connection, matched.new_players.height)
    ids = _player_ids(matched, first_seen, new_ids)
    meta = tournaments.with_columns(
        pl.lit(now).alias("imported_at"), pl.lit(imported_by).alias("imported_by")
    )
    if "standings" not in meta.columns:
        meta = meta.with_columns(pl.lit(None, dtype=pl.String).alias("standings"))
    keys = stored_imports.tournament_ids_taken(connection, meta, stored)
    player_of = matched.results["federation_id"].replace_strict(ids, return_dtype=pl.Int64)
    by_file = _by_file(files, player_of)
    titled: list[pl.DataFrame] = []
    slices = _result_slices(files, events, by_file, keys, titled)
    with stored_imports.results_ahead(connection, sum(f.rows for f in files), slices):
        before = first()
        _write_players(connection, matched, first_seen, imported_by, now, new_ids, ids)
        stored_imports.store_tournaments(connection, meta, stored, keys)
    # A known player's first date moves only when an earlier event is imported.
    earlier = first_seen.filter(pl.col("player").is_not_null() & pl.col("first_seen").is_not_null())
    if earlier.height:
        players.set_first_seen(
            connection, earlier.select(pl.col("player").cast(pl.Int64), "first_seen")
        )
    if titled:
        stored_imports.record_titles(connection, pl.concat(titled))
    return by_file, before


def _player_ids(matched: Matched, first_seen: pl.DataFrame, new_ids: pl.Series) -> dict[str, int]:
    """The database id of every player of the import by its federation id: the new players'
    ``new_ids`` (in the order of ``matched.new_players``), the known players' own."""
    ids = dict(zip(matched.new_players["federation_id"].to_list(), new_ids.to_list(), strict=True))
    known_ids = first_seen.filter(pl.col("player").is_not_null())
    ids.update(
        zip(known_ids["federation_id"].to_list(), known_ids["player"].to_list(), strict=True)
    )
    return ids


def _write_players(
    connection: Connection,
    matched: Matched,
    first_seen: pl.DataFrame,
    imported_by: str,
    now: datetime,
    new_ids: pl.Series,
    ids: Mapping[str, int],
) -> None:
    """Store the new players (with the ids taken for them, ``new_ids``, and each with the first
    date it played, from ``first_seen``), the external ids and the spellings the import learnt
    (``ids``: every player's database id by federation id)."""
    players.insert_players(
        connection,
        matched.new_players.join(
            first_seen.select("federation_id", "first_seen"),
            on="federation_id",
            how="left",
            maintain_order="left",
        ),
        now,
        ids=new_ids,
    )
    if matched.identifiers is not None:
        players.insert_identifiers(
            connection,
            matched.identifiers.select(
                pl.col("federation_id").replace_strict(ids, return_dtype=pl.Int64).alias("player"),
                "scheme",
                "value",
            ),
        )
    answered = matched.aliases if matched.aliases is not None else pl.DataFrame(schema=ALIASES)
    # The spellings of the new players (a remembered one matches, unless the row's id says the
    # player is another person: then it stays remembered as it was), then the officer's
    # answers, which replace what they name.
    kept = spellings_kept(matched.new_players, matched.remembered).join(
        answered, on=["scheme", "spelling"], how="anti"
    )
    for frame, replacing in ((kept, False), (answered, True)):
        players.insert_aliases(
            connection,
            frame.select(
                "scheme",
                "spelling",
                pl.col("federation_id").replace_strict(ids, return_dtype=pl.Int64).alias("player"),
            ),
            imported_by,
            now,
            replacing=replacing,
        )


def _by_file(files: Sequence[SlicedResults], player_of: pl.Series) -> list[pl.Series]:
    """The database ids of each file's players (in the order of its ``players``), from
    ``player_of``: those of every file's players, one file after the other."""
    starts = itertools.accumulate((f.players.height for f in files), initial=0)
    return [
        player_of.slice(start, file.players.height)
        for start, file in zip(starts, files, strict=False)
    ]


def _result_slices(
    files: Sequence[SlicedResults],
    events: Sequence[pl.DataFrame],
    by_file: Sequence[pl.Series],
    keys: Mapping[str, int],
    titled: list[pl.DataFrame],
) -> Iterator[pl.DataFrame]:
    """The results of ``files`` slice by slice, as they are stored (``events``: each file's
    tournaments' keys and end dates; ``by_file``: the database ids of each file's players;
    ``keys``: each tournament's database id), each in key order. The player and end date of
    each result showing a ``GM`` are added to ``titled`` as the slices are made."""
    for file, ends, who in zip(files, events, by_file, strict=True):
        event_ids = ends["key"].replace_strict(keys, return_dtype=pl.Int64)
        for part in file.slices:
            rows = pl.DataFrame(
                {
                    "tournament": event_ids.gather(part["tournament"]),
                    "player": who.gather(part["who"]),
                    "end_date": ends["end_date"].gather(part["tournament"]),
                }
            ).hstack(
                part.select(
                    pl.col("line").cast(pl.Int64),
                    "wins",
                    "draws",
                    "losses",
                    "buchholz",
                    pl.col("title").cast(pl.String),
                )
            )
            # In key order: the (tournament, player) key grows at its end only.
            rows = rows.sort("tournament", "player")
            titled.append(rows.filter(pl.col("title") == "GM").select("player", "end_date"))
            yield rows


def _first_played(file: SlicedResults, ends: pl.DataFrame) -> pl.Series:
    """The end date of the first event of each player of ``file`` as written (its ``players``
    in order), from the end dates of its tournaments (``ends``, in the order of its
    ``tournaments``)."""
    played = [part.select("tournament", "who") for part in file.slices]
    firsts = (
        pl.concat(played)
        .join(ends.select("tournament", "end_date"), on="tournament")
        .group_by("who")
        .agg(pl.col("end_date").min().alias("first_seen"))
        if played
        else pl.DataFrame(schema={"who": pl.UInt32, "first_seen": pl.Date})
    )
    return (
        pl.DataFrame({"who": pl.int_range(file.players.height, dtype=pl.UInt32, eager=True)})
        .join(firsts, on="who", how="left", maintain_order="left")
        .get_column("first_seen")
    )
