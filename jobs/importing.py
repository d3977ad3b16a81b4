"""The import job: read and check files, match players, and write everything in one transaction.

Either every file of a call is imported, or nothing is (SPEC 4.4): all problems of all files are
collected first, and the database is only written when there are none.

A large results table is read, checked and stored in slices of whole tournaments
(``importers.results.SlicedResults``): between reading and storing, only the compact form of its
rows is held (numbers, and each row's tournament and player as a row number), and the players
are matched once per distinct way the file writes them rather than once per row.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path, PurePath

import numpy as np
import polars as pl
from numpy.typing import NDArray
from sqlalchemy.engine import Connection, Engine

from importers.crosstables import parse_crosstable
from importers.formats import IMPORT_FORMATS, results_table, table_format_of
from importers.from_crosstable import EventOptions, results_from_crosstable, undated_problems
from importers.limits import table_limits
from importers.matching import (
    ALIASES,
    Known,
    Matched,
    empty_known,
    match_players,
    next_ids,
    spellings_kept,
)
from importers.results import SLICE_ROWS, SlicedResults, compact, read_results_sliced
from importers.tabular import MAX_INPUT_BYTES, read_file_bytes
from jobs.options import MatchOptions
from ratings.errors import Candidate, InputError, Problem, ReviewError, Uncertain
from ratings.names import display_names
from ratings.parameters import BUCHHOLZ_SCALE
from ratings.storage import bulk, players
from ratings.storage import tournaments as stored_tournaments
from ratings.storage.bulk import indexes_rebuilt, keys_checked_once
from ratings.storage.schema import games as stored_games
from ratings.storage.schema import player_aliases, player_identifiers
from ratings.storage.schema import players as stored_players
from ratings.storage.schema import results as stored_results
from ratings.storage.schema import tournaments as tournaments_table


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


WRITTEN = (
    stored_players, player_identifiers, player_aliases, tournaments_table, stored_results,
    stored_games,
)  # fmt: skip
"""The tables an import writes."""

"""``--format`` names of crosstables → the crosstable reader's own names."""


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
    # its keys checked once before the commit rather than row by row (``bulk.keys_checked_once``).
    large = (
        not replace
        and not dry_run
        and sum(c.file.rows for c in checked) >= bulk.REBUILD_INDEXES_FROM
    )
    with (
        engine.connect() as connection,
        keys_checked_once(connection, large, WRITTEN) as check_keys,
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
        twice = _twice(files, matched)
        if twice.height:
            matched, apart = _kept_apart(twice, matched, known)
            problems += _one_player_twice(_twice(files, matched), matched, known)
    stored = stored_tournaments.tournaments_by_key(connection, tournaments["key"].to_list())
    tables = [c.file for c in checked if c.games is None]
    problems += _buchholz_differences(connection, tables, stored)
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
            *_copies(connection, files, tournaments, matched, stored),
        ),
        new_players=_new_players(connection, matched) if dry_run else (),
        uncertain=uncertain,
        by_name=_by_name(matched),
    )
    if dry_run:
        return report
    ids = _write(connection, files, tournaments, matched, stored, imported_by, now)
    if played:
        crosstables = [i for i, c in enumerate(checked) if c.games is not None]
        _write_games(connection, pl.concat(played), files, crosstables, ids)
    return report


def _twice(files: Sequence[SlicedResults], matched: Matched) -> pl.DataFrame:
    """The rows of ``files`` (matched from their players as written, in order) whose player
    another row of their tournament has too, ordered by tournament, player and line: source,
    key, line, and the player as written and as matched (player_id, name, id_value, id_scheme,
    federation_id, player).

    Every row is compared by numbers only (its file, tournament and player's code); only the
    rows found twice are given their texts."""
    code = matched.results["federation_id"].rank("dense").cast(pl.UInt32)
    frames = []
    offset = 0
    for number, file in enumerate(files):
        codes = code.slice(offset, file.players.height)
        for part in file.slices:
            frames.append(
                part.select(
                    pl.lit(number, dtype=pl.UInt32).alias("_file"),
                    "tournament",
                    pl.col("line").cast(pl.Int64),
                    (pl.col("who").cast(pl.Int64) + offset).alias("_written"),
                    codes.gather(part["who"]).alias("_code"),
                )
            )
        offset += file.players.height
    columns = ["player_id", "name", "id_value", "id_scheme", "federation_id", "player"]
    if not frames:
        return pl.DataFrame(
            schema={"source": pl.String, "key": pl.String, "line": pl.Int64}
        ).hstack(matched.results.clear().select(columns))
    twice = (
        pl.concat(frames)
        .filter(pl.col("_code").is_not_null() & (pl.len().over("_file", "tournament", "_code") > 1))
        .sort("_file", "tournament", "_code", "line")
    )
    sources = pl.Series([f.source for f in files], dtype=pl.String)
    keys = [f.tournaments["key"] for f in files]
    return pl.DataFrame(
        {
            "source": sources.gather(twice["_file"]),
            "key": pl.Series(
                [keys[f][t] for f, t in twice.select("_file", "tournament").iter_rows()],
                dtype=pl.String,
            ),
            "line": twice["line"],
        }
    ).hstack(matched.results.select(columns).gather(twice["_written"]))


def _kept_apart(
    twice: pl.DataFrame, matched: Matched, known: Known
) -> tuple[Matched, list[Problem]]:
    """Two entries of one tournament written differently whose names fold alike ("Parity Three"
    and "Three Parity"), both new and found by name alone, are two new players: each further
    spelling gets a player of its own wherever the import writes it, with a warning. Anything
    else matched twice in a tournament is left for ``_one_player_twice`` to refuse."""
    twice = twice.with_columns(pl.len().over("source", "key", "federation_id").alias("_rows"))
    new_by_name = pl.col("player").is_null() & pl.col("player_id").is_null()
    # Only where every row of the player in that tournament is such a one.
    by_name = twice.filter(new_by_name).filter(
        pl.len().over("source", "key", "federation_id") == pl.col("_rows")
    )
    # The spelling a new player was created with keeps it; each other spelling gets its own.
    # As the file wrote it: a new player's name is its display form, its spelling the file's.
    created = dict(matched.new_players.select("federation_id", "spelling").iter_rows())
    spellings: dict[tuple[str, str], str] = {}
    warnings: list[Problem] = []
    for (source, key, fid), rows in by_name.group_by(
        "source", "key", "federation_id", maintain_order=True
    ):
        ids = rows["id_value"].drop_nulls()
        if ids.len() != ids.n_unique():
            continue  # one external id on both: not two people for sure, refused
        kept = rows.filter(pl.col("name") == created.get(fid))
        first = (kept if kept.height else rows).row(0, named=True)
        first_line, first_name = first["line"], first["name"]
        for line, name in rows.select("line", "name").unique("name", maintain_order=True).rows():
            if name == first_name:
                continue
            spellings.setdefault((str(fid), name), "")
            warnings.append(
                Problem(
                    str(source), line, "name", name,
                    f"folds to the name of another player of tournament {key!r} ({first_name!r}, "
                    f"line {first_line}): a new player of its own (merge the two if they are "
                    "one person)",
                )
            )  # fmt: skip
    if not spellings:
        return matched, []
    in_use = pl.concat(
        [
            known.players["federation_id"],
            matched.results["federation_id"].drop_nulls(),
            matched.new_players["federation_id"],
        ]
    )
    for pair, fresh in zip(list(spellings), next_ids(in_use, len(spellings)), strict=True):
        spellings[pair] = fresh
    pairs = pl.DataFrame(
        {
            "federation_id": [fid for fid, _ in spellings],
            "name": [name for _, name in spellings],
            "_apart": list(spellings.values()),
        },
        schema={"federation_id": pl.String, "name": pl.String, "_apart": pl.String},
    )
    results = matched.results.join(
        pairs, on=["federation_id", "name"], how="left", maintain_order="left"
    ).with_columns(pl.coalesce("_apart", "federation_id").alias("federation_id"))
    # Each new player takes the scheme (the file's format) of the player it was split from.
    schemes = pairs.select("_apart", pl.col("federation_id").alias("_from")).join(
        matched.new_players.select(pl.col("federation_id").alias("_from"), "scheme"), on="_from"
    )
    added = (
        results.filter(pl.col("_apart").is_not_null())
        .unique("_apart", keep="first", maintain_order=True)
        .select("_apart", "name", "name_key", "country", "club")
        .join(schemes.drop("_from"), on="_apart", how="left", maintain_order="left")
        .select(
            pl.col("_apart").alias("federation_id"),
            pl.col("name").map_batches(display_names, return_dtype=pl.String),
            "name_key",
            "country",
            "club",
            "scheme",
            pl.col("name").alias("spelling"),
        )
    )
    aliases = matched.aliases
    if aliases is not None:
        aliases = aliases.join(
            pairs.rename({"name": "spelling"}),
            on=["federation_id", "spelling"],
            how="left",
            maintain_order="left",
        ).select(
            "scheme", "spelling", pl.coalesce("_apart", "federation_id").alias("federation_id")
        )
    identifiers = matched.identifiers
    if identifiers is not None:
        moved = results.filter(pl.col("_apart").is_not_null() & pl.col("id_value").is_not_null())
        identifiers = identifiers.join(
            moved.select(
                pl.col("id_scheme").alias("scheme"), pl.col("id_value").alias("value"), "_apart"
            ).unique(["scheme", "value"]),
            on=["scheme", "value"],
            how="left",
            maintain_order="left",
        ).select(pl.coalesce("_apart", "federation_id").alias("federation_id"), "scheme", "value")
    return (
        replace(
            matched,
            results=results.drop("_apart"),
            identifiers=identifiers,
            new_players=pl.concat(
                [
                    matched.new_players,
                    added.select(matched.new_players.columns).cast(matched.new_players.schema),
                ]
            ),
            aliases=aliases,
        ),
        sorted(warnings, key=lambda p: (p.file, p.line or 0)),
    )


def _one_player_twice(twice: pl.DataFrame, matched: Matched, known: Known) -> list[Problem]:
    """Two rows of one tournament matched to one player (one player id, external id or
    remembered spelling, or names folding alike): refused before anything is written, each row
    after the first named with the first (``twice``, as ``_twice`` finds them)."""
    names = dict(zip(known.players["id"].to_list(), known.players["name"].to_list(), strict=True))
    names_new = dict(
        zip(
            matched.new_players["federation_id"].to_list(),
            matched.new_players["name"].to_list(),
            strict=True,
        )
    )
    problems = []
    for (source, key, fid), rows in twice.group_by(
        "source", "key", "federation_id", maintain_order=True
    ):
        first = rows.row(0, named=True)
        who = (
            f"player {fid} ({names.get(first['player'])!r})"
            if first["player"] is not None
            else f"the new player {fid} ({names_new.get(fid)!r})"
        )
        for row in rows.slice(1).iter_rows(named=True):
            column, value = (
                ("player_id", row["player_id"]) if row["player_id"] else ("name", row["name"])
            )
            problems.append(
                Problem(
                    str(source), row["line"], column, value,
                    f"this entry and the one on line {first['line']} ({first['name']!r}) of "
                    f"tournament {key!r} would both be {who}: two entries of "
                    "one tournament are two people; give each its own player id, or correct "
                    "the name",
                )
            )  # fmt: skip
    return problems


SAME_ROWS = 0.8
"""An event is taken for a copy of another with the same start and end dates when at least this
share of the rows of the larger of the two are equal in both: the same player with the same wins,
draws and losses ("Herbstblitz Bern" and "Winterblitz Bern", 9 of 10 rows equal)."""


def _copies(
    connection: Connection,
    files: Sequence[SlicedResults],
    tournaments: pl.DataFrame,
    matched: Matched,
    stored: Mapping[str, stored_tournaments.StoredTournament],
) -> list[Problem]:
    """A warning for each event of the import that looks like a copy of another: one already
    stored or one of the import, with the same dates and mostly the same rows (``SAME_ROWS``).
    Only events whose dates another event has are compared, and their rows only where a player
    has the same outcome on the same dates twice: one hash per row, then a join of the few
    rows whose hashes repeat."""
    events = (
        tournaments.select(
            "key", "name", "start_date", "end_date", "line", pl.col("source_name").alias("source")
        )
        .with_row_index("event")
        .with_columns(pl.col("event").cast(pl.Int64))
    )
    ending = events["end_date"].unique().to_list()
    # A stored event the import replaces is the import's own, not another.
    held = stored_tournaments.tournaments_ending_on(connection, ending).filter(
        ~pl.col("key").is_in(list(stored))
    )
    dates = ["start_date", "end_date"]
    shared = pl.concat([events.select(dates), held.select(dates).unique()])
    shared = shared.filter(pl.struct(dates).is_duplicated()).unique()
    candidates = events.join(shared, on=dates, how="semi")
    if candidates.height == 0:
        return []
    held = held.join(candidates.select(dates).unique(), on=dates, how="semi")
    # Each player of the import as one number: the database id of a known player, a negative
    # one for a new player (the same in every file that writes them).
    who = matched.results.select(
        pl.coalesce("player", -pl.col("federation_id").rank("dense").cast(pl.Int64)).alias("player")
    )["player"]
    rows = []
    offset = 0
    first = 0
    for file in files:
        players_of = who.slice(offset, file.players.height)
        offset += file.players.height
        local = (
            candidates.filter(
                (pl.col("event") >= first) & (pl.col("event") < first + file.tournaments.height)
            )["event"]
            - first
        )
        wanted = local.cast(pl.UInt32).implode()
        ends = file.tournaments["end_date"].cast(pl.Int32).cast(pl.Int64)
        for part in file.slices:
            some = part.filter(pl.col("tournament").is_in(wanted))
            if some.height:
                rows.append(
                    pl.DataFrame(
                        {
                            "event": some["tournament"].cast(pl.Int64) + first,
                            "player": players_of.gather(some["who"]),
                            "_day": ends.gather(some["tournament"]),
                        }
                    ).hstack(some.select(pl.col("wins", "draws", "losses").cast(pl.Int64)))
                )
        first += file.tournaments.height
    if held.height:
        ids = {tid: -1 - i for i, tid in enumerate(held["id"].to_list())}
        ended = dict(zip(held["id"], held["end_date"].cast(pl.Int32).cast(pl.Int64), strict=True))
        rows.append(
            stored_tournaments.outcomes(connection, list(ids)).select(
                pl.col("tournament_id").replace_strict(ids, return_dtype=pl.Int64).alias("event"),
                "player",
                pl.col("tournament_id").replace_strict(ended, return_dtype=pl.Int64).alias("_day"),
                "wins", "draws", "losses",
            )
        )  # fmt: skip
    # Stored events are numbered -1, -2, ... in the order of ``held``.
    every = pl.concat(
        [
            events.select("event", *dates).with_columns(pl.col("event").cast(pl.Int64)),
            held.with_row_index("_i").select(
                (-1 - pl.col("_i").cast(pl.Int64)).alias("event"), *dates
            ),
        ]
    )
    if not rows:
        return []
    table = pl.concat(rows)
    # Stored events are numbered from -held.height: counted in a bin of their own each.
    counts = np.bincount(table["event"].to_numpy() + held.height)
    present = np.flatnonzero(counts)
    sizes = pl.DataFrame(
        {"event": present.astype(np.int64) - held.height, "rows": counts[present]},
        schema={"event": pl.Int64, "rows": pl.Int64},
    )
    # A player and an end date as one number first (a player ends one event on a day, mostly):
    # only the rows whose number repeats are compared further. Sorting the numbers once finds
    # them in a fraction of what hashing every row took.
    table = table.filter(_repeated((table["player"] * 100_000 + table["_day"]).to_numpy()))
    repeated = table.join(every, on="event").select(
        "event", pl.struct("player", "wins", "draws", "losses", *dates).hash().alias("_row")
    )
    pairs = (
        repeated.join(repeated, on="_row", suffix="_other")
        # Each pair once, an event of the import first (stored events are not compared).
        .filter((pl.col("event") > pl.col("event_other")) & (pl.col("event") >= 0))
        .group_by("event", "event_other")
        .len("equal")
        .join(sizes, on="event")
        .join(sizes.rename({"event": "event_other", "rows": "rows_other"}), on="event_other")
        .filter(pl.col("equal") >= SAME_ROWS * pl.max_horizontal("rows", "rows_other"))
        .sort("event", "event_other")
    )
    if pairs.height == 0:
        return []
    named = pl.concat([pairs["event"], pairs["event_other"]]).implode()
    names = {row[0]: row for row in events.filter(pl.col("event").is_in(named)).rows()}
    others = {-1 - i: row for i, row in enumerate(held.rows())}
    warnings = []
    for event, other, equal, size, other_size in pairs.select(
        "event", "event_other", "equal", "rows", "rows_other"
    ).rows():
        _, key, name, start, end, line, source = names[event]
        if other >= 0:
            where = f"in {names[other][6]}, line {names[other][5]}"
            other_name, other_key = names[other][2], names[other][1]
        else:
            where = "already imported"
            other_name, other_key = others[other][2], others[other][1]
        days = str(end) if start == end else f"{start} to {end}"
        warnings.append(
            Problem(
                source, line, "tournament", key,
                f"{name!r} may be a copy of {other_name!r} ({other_key}, {where}): the same dates "
                f"({days}) and {equal} of {max(size, other_size)} rows equal (player and result); "
                "imported all the same (delete one if they are one event)",
            )
        )  # fmt: skip
    return warnings


def _repeated(values: NDArray[np.int64]) -> NDArray[np.bool_]:
    """Whether each value occurs more than once."""
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    same = ordered[1:] == ordered[:-1]
    marked = np.zeros(len(values), dtype=bool)
    marked[1:] |= same
    marked[:-1] |= same
    repeated = np.empty_like(marked)
    repeated[order] = marked
    return repeated


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


def _buchholz_differences(
    connection: Connection,
    files: Sequence[SlicedResults],
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
        wanted = file.tournaments.with_row_index("_i").filter(pl.col("key").is_in(list(from_games)))
        rows = [
            file.expanded(part.filter(pl.col("tournament").is_in(wanted["_i"].implode())))
            for part in file.slices
        ]
        given = pl.concat(rows).filter(pl.col("player_id").is_not_null())
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
    files: Sequence[SlicedResults],
    tournaments: pl.DataFrame,
    matched: Matched,
    stored: dict[str, stored_tournaments.StoredTournament],
    imported_by: str,
    now: datetime,
) -> list[pl.Series]:
    """Store the players, tournaments and results; the database ids of each file's players
    (in the order of its ``players``) are returned.

    The ids of new players and tournaments are taken before they are written
    (``bulk.reserve_ids``), and a new player is written with the first date it played: nothing
    written is read back, and only known players' first dates are updated."""
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
    new_ids = players.insert_players(
        connection,
        matched.new_players.join(
            first_seen.select("federation_id", "first_seen"),
            on="federation_id",
            how="left",
            maintain_order="left",
        ),
        now,
    )
    ids = dict(zip(matched.new_players["federation_id"].to_list(), new_ids.to_list(), strict=True))
    known_ids = first_seen.filter(pl.col("player").is_not_null())
    ids.update(
        zip(known_ids["federation_id"].to_list(), known_ids["player"].to_list(), strict=True)
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
    meta = tournaments.with_columns(
        pl.lit(now).alias("imported_at"), pl.lit(imported_by).alias("imported_by")
    )
    if "standings" not in meta.columns:
        meta = meta.with_columns(pl.lit(None, dtype=pl.String).alias("standings"))
    fresh = meta.filter(~pl.col("key").is_in(list(stored)))
    fresh_ids = stored_tournaments.insert_tournaments(connection, fresh)
    keys = dict(zip(fresh["key"].to_list(), fresh_ids.to_list(), strict=True))
    for row in meta.filter(pl.col("key").is_in(list(stored))).iter_rows(named=True):
        values = {
            c: row[c]
            for c in (
                "name", "start_date", "end_date", "tier", "source_name", "source_hash",
                "source_format", "imported_at", "imported_by", "standings",
            )
        }  # fmt: skip
        stored_tournaments.replace_tournament(connection, stored[row["key"]], values)
        keys[row["key"]] = stored[row["key"]].id
    player_of = matched.results["federation_id"].replace_strict(ids, return_dtype=pl.Int64)
    by_file: list[pl.Series] = []
    titled: list[pl.DataFrame] = []
    total = sum(f.rows for f in files)
    with (
        indexes_rebuilt(connection, stored_results, total),
        stored_tournaments.results_writer(connection, total) as write_results,
    ):
        for file, ends in zip(files, events, strict=True):
            who = player_of.slice(sum(s.len() for s in by_file), file.players.height)
            by_file.append(who)
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
                write_results(rows)
                titled.append(rows.filter(pl.col("title") == "GM").select("player", "end_date"))
    # A known player's first date moves only when an earlier event is imported.
    earlier = known_ids.filter(pl.col("first_seen").is_not_null())
    if earlier.height:
        players.set_first_seen(
            connection, earlier.select(pl.col("player").cast(pl.Int64), "first_seen")
        )
    if titled:
        _record_titles(connection, pl.concat(titled))
    return by_file


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
