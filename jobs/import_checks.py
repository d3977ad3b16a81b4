"""What an import refuses or warns of beyond each file's own checks, once its players are
matched: two entries of one tournament taken for one player, an event that looks like a copy of
another, and a results table's Buchholz values against an event's crosstable."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
import polars as pl
from numpy.typing import NDArray
from sqlalchemy.engine import Connection

from importers.matching import Known, Matched, next_ids
from importers.results import SlicedResults
from ratings.errors import Problem
from ratings.names import display_names
from ratings.parameters import BUCHHOLZ_SCALE
from ratings.storage import tournaments as stored_tournaments


def entries_twice(files: Sequence[SlicedResults], matched: Matched) -> pl.DataFrame:
    """The rows of ``files`` (matched from their players as written, in order) whose player
    another row of their tournament has too, ordered by tournament, player and line: source,
    key, line, and the player as written and as matched (player_id, name, id_value, id_scheme,
    federation_id, player).

    Every row is compared by numbers only (its file, tournament and player's code); only the
    rows found twice are given their texts."""
    code = matched.results["federation_id"].rank("dense").cast(pl.UInt32)
    frames: list[pl.DataFrame] = []
    offset = events = 0
    for number, file in enumerate(files):
        codes = code.slice(offset, file.players.height)
        frames.extend(
            part.select(
                pl.lit(number, dtype=pl.UInt32).alias("_file"),
                "tournament",
                # The tournament among those of every file.
                (pl.col("tournament").cast(pl.UInt64) + events).alias("_event"),
                pl.col("line").cast(pl.Int64),
                (pl.col("who").cast(pl.Int64) + offset).alias("_written"),
                codes.gather(part["who"]).alias("_code"),
            )
            for part in file.slices
        )
        offset += file.players.height
        events += file.tournaments.height
    columns = ["player_id", "name", "id_value", "id_scheme", "federation_id", "player"]
    if not frames:
        return pl.DataFrame(
            schema={"source": pl.String, "key": pl.String, "line": pl.Int64}
        ).hstack(matched.results.clear().select(columns))
    every = pl.concat(frames)
    # One pass over the rows' (tournament, player) as one number says whether any is there
    # twice (the usual file has none): the grouping that finds them took 0.1 s of 800,000 rows.
    entry = pl.col("_event") * pl.lit(1 << 32, dtype=pl.UInt64) + pl.col("_code").cast(pl.UInt64)
    pairs = every.select(pl.col("_code").is_not_null().sum(), entry.drop_nulls().n_unique()).row(0)
    twice = (
        every.filter(pl.col("_code").is_not_null() & (pl.len().over("_event", "_code") > 1)).sort(
            "_event", "_code", "line"
        )
        if pairs[0] != pairs[1]
        else every.clear()
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


def kept_apart(
    twice: pl.DataFrame, matched: Matched, known: Known
) -> tuple[Matched, list[Problem]]:
    """Two entries of one tournament written differently whose names fold alike ("Parity Three"
    and "Three Parity"), both new and found by name alone, are two new players: each further
    spelling gets a player of its own wherever the import writes it, with a warning. Anything
    else matched twice in a tournament is left for ``one_player_twice`` to refuse."""
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
    spellings = dict(zip(list(spellings), next_ids(in_use, len(spellings)), strict=True))
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


def one_player_twice(twice: pl.DataFrame, matched: Matched, known: Known) -> list[Problem]:
    """Two rows of one tournament matched to one player (one player id, external id or
    remembered spelling, or names folding alike): refused before anything is written, each row
    after the first named with the first (``twice``, as :func:`entries_twice` finds them)."""
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


def buchholz_differences(
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


SAME_ROWS = 0.8
"""An event is taken for a copy of another with the same start and end dates when at least this
share of the rows of the larger of the two are equal in both: the same player with the same wins,
draws and losses ("Herbstblitz Bern" and "Winterblitz Bern", 9 of 10 rows equal)."""


@dataclass(frozen=True, slots=True)
class StoredAlike:
    """What :func:`copies_among` needs of the database, read before the import writes: the import's
    events (numbered in order), those whose dates another event has (``candidates``), the stored
    events with those dates (``held``) and their rows (``outcomes``, when there are any)."""

    events: pl.DataFrame
    candidates: pl.DataFrame
    held: pl.DataFrame
    outcomes: pl.DataFrame | None


def stored_alike(
    connection: Connection,
    tournaments: pl.DataFrame,
    stored: Mapping[str, stored_tournaments.StoredTournament],
) -> StoredAlike:
    """What :func:`copies_among` needs of the database for the import's ``tournaments``."""
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
    if candidates.height:
        held = held.join(candidates.select(dates).unique(), on=dates, how="semi")
    else:
        held = held.clear()
    outcomes = (
        stored_tournaments.outcomes(connection, held["id"].to_list()) if held.height else None
    )
    return StoredAlike(events, candidates, held, outcomes)


def copies_among(
    alike: StoredAlike, files: Sequence[SlicedResults], matched: Matched
) -> list[Problem]:
    """A warning for each event of the import that looks like a copy of another: one already
    stored or one of the import, with the same dates and mostly the same rows (``SAME_ROWS``).
    Only events whose dates another event has are compared, and their rows only where a player
    has the same outcome on the same dates twice: one hash per row, then a join of the few
    rows whose hashes repeat. The database is read before (:func:`stored_alike`, ``alike``) and
    nothing more here, so that the comparison may run beside the import's writes."""
    events, candidates, held = alike.events, alike.candidates, alike.held
    dates = ["start_date", "end_date"]
    if candidates.height == 0:
        return []
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
    if alike.outcomes is not None:
        ids = {tid: -1 - i for i, tid in enumerate(held["id"].to_list())}
        ended = dict(zip(held["id"], held["end_date"].cast(pl.Int32).cast(pl.Int64), strict=True))
        rows.append(
            alike.outcomes.select(
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
