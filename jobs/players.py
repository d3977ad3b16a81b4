"""Player jobs: importing the registry, merging duplicates and undoing a merge. Each is one
transaction."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import polars as pl
from sqlalchemy.engine import Connection, Engine

from importers.formats import table_format_of
from importers.limits import table_limits
from importers.names import name_key_expr
from importers.registry import ID_COLUMNS, Registry, read_registry
from importers.tabular import MAX_INPUT_BYTES, read_file_bytes
from ratings.errors import (
    AlreadyMergedError,
    DifferentIdsError,
    NotMergedError,
    OtherMergeError,
    PlayerNameError,
    Problem,
    SelfMergeError,
    SharedTournamentsError,
    UnknownPlayerError,
    UnrecordedMergeError,
)
from ratings.names import ANY_SCHEME, name_key
from ratings.storage import players, window

FIELDS = ("name", "country", "club", "title", "title_date")
"""The registry's fields of a player, in the order a change is shown."""


@dataclass(frozen=True, slots=True)
class FieldChange:
    """One field of one known player that a registry file changes."""

    player_id: str
    name: str
    field: str
    old: str | None
    new: str | None

    def __str__(self) -> str:
        def shown(value: str | None) -> str:
            return "(empty)" if value is None else repr(value)

        return f"{self.player_id} {self.name}: {self.field} {shown(self.old)} → {shown(self.new)}"


@dataclass(frozen=True, slots=True)
class RegistryReport:
    created: int
    updated: int
    """Known players of the file with at least one field changed."""
    titles_changed: int
    warnings: tuple[Problem, ...] = ()
    """Names the reader had to clean (control characters removed) and the countries it stored
    as unknown, then external ids not stored because they disagree with the stored ones (for
    the officer to review)."""
    changes: tuple[FieldChange, ...] = ()
    """Every field changed of a known player, in the file's order."""
    new_players: tuple[tuple[str, str], ...] = ()
    """(player_id, name) of each player created."""
    unchanged: int = 0
    """Known players of the file whose fields all stay as they are."""
    dry_run: bool = False


def import_registry(
    engine: Engine,
    path: Path,
    *,
    now: datetime,
    limit: int = MAX_INPUT_BYTES,
    clear_empty: bool = False,
    dry_run: bool = False,
) -> RegistryReport:
    """Create unknown players and update known ones, field by field: a column the file does not
    have is never touched, and an empty cell leaves the stored value unless ``clear_empty``. A
    changed GM title or title date can change the k of past tournaments, so the history is
    re-rated from the player's first tournament. A dry run changes nothing and reports the
    same (every field it would change)."""
    data = read_file_bytes(path, limit)
    registry = read_registry(data, path.name, table_format_of(path), table_limits(limit))
    with engine.connect() as connection, connection.begin() as transaction:
        report = _import_registry(connection, registry, now, clear_empty, dry_run)
        if dry_run:
            transaction.rollback()
    return report


def _import_registry(
    connection: Connection, registry: Registry, now: datetime, clear_empty: bool, dry_run: bool
) -> RegistryReport:
    ids = players.player_ids(connection, registry.players["player_id"].to_list())
    fresh = registry.players.filter(~pl.col("player_id").is_in(list(ids)))
    new_ids = players.insert_players(connection, fresh.rename({"player_id": "federation_id"}), now)
    players.update_fields(
        connection,
        fresh.with_columns(new_ids.alias("id"))
        .filter(pl.col("title").is_not_null())
        .select("id", "title", "title_date"),
    )
    known = registry.players.join(
        pl.DataFrame(
            {"player_id": list(ids), "id": list(ids.values())},
            schema={"player_id": pl.String, "id": pl.Int64},
        ),
        on="player_id",
        maintain_order="left",
    )
    stored = players.registry_fields(connection, known["id"].to_list())
    updated = _updated(known, stored, registry.columns, clear_empty)
    changes = _changes(updated)
    players.update_fields(
        connection,
        updated.filter(pl.col("_changed")).select(
            "id", "name", name_key_expr("name").alias("name_key"), *FIELDS[1:]
        ),
    )
    retitled = updated.filter(
        pl.col("title").ne_missing(pl.col("_old_title"))
        | pl.col("title_date").ne_missing(pl.col("_old_title_date"))
    )
    changed = retitled["id"].unique().to_list()
    # The players created have the ids they were given (no second look-up of every player).
    ids.update(zip(fresh["player_id"].to_list(), new_ids.to_list(), strict=True))
    disputed = _store_identifiers(connection, registry, ids)
    first = window.earliest_seq(connection, changed) if changed else None
    if first is not None:
        named = ", ".join(sorted(retitled["player_id"].unique().to_list())[:3])
        more = f" and {len(changed) - 3} more" if len(changed) > 3 else ""
        window.mark_rerate(connection, first, f"the registry changed the title of {named}{more}")
    touched = updated.filter(pl.col("_changed")).height
    return RegistryReport(
        fresh.height,
        touched,
        len(changed),
        (*registry.warnings, *disputed),
        changes,
        tuple(fresh.select("player_id", "name").rows()),
        updated.height - touched,
        dry_run,
    )


def _updated(
    known: pl.DataFrame, stored: pl.DataFrame, columns: frozenset[str], clear_empty: bool
) -> pl.DataFrame:
    """The known players of the file (one row per stored player, the file's last), each field
    as it will be, beside the stored one (``_old_FIELD``) and whether anything changes
    (``_changed``). A field stays as stored where the file has no such column, and where its
    cell is empty unless ``clear_empty``; a new title without a date clears the stored date
    (it was the old title's)."""
    frame = known.unique("id", keep="last", maintain_order=True).join(
        stored.rename({f: f"_old_{f}" for f in FIELDS}), on="id", how="left"
    )

    def taken(field: str) -> pl.Expr:
        given, old = pl.col(field), pl.col(f"_old_{field}")
        if field not in columns:
            return old
        if field == "country":
            # A code that names no country is no reason to drop the one stored.
            keep = pl.col("country_unknown") | (given.is_null() & (not clear_empty))
            return pl.when(keep).then(old).otherwise(given)
        return pl.when(given.is_not_null() | clear_empty).then(given).otherwise(old)

    frame = frame.with_columns(taken(f).alias(f) for f in FIELDS[:-1])
    date = taken("title_date")
    frame = frame.with_columns(
        pl.when(pl.col("title").ne_missing(pl.col("_old_title")) & pl.col("title_date").is_null())
        .then(None)
        .otherwise(date)
        .alias("title_date")
    )
    return frame.with_columns(
        pl.any_horizontal(pl.col(f).ne_missing(pl.col(f"_old_{f}")) for f in FIELDS).alias(
            "_changed"
        )
    )


def _changes(updated: pl.DataFrame) -> tuple[FieldChange, ...]:
    """Every changed field of ``updated``, player by player in the file's order."""
    changed = updated.filter(pl.col("_changed"))
    found = []
    for row in changed.iter_rows(named=True):
        for field in FIELDS:
            old, new = row[f"_old_{field}"], row[field]
            if old != new:
                found.append(
                    FieldChange(
                        row["player_id"], row["_old_name"] or row["name"], field,
                        None if old is None else str(old), None if new is None else str(new),
                    )
                )  # fmt: skip
    return tuple(found)


def _store_identifiers(
    connection: Connection, registry: Registry, ids: dict[str, int]
) -> list[Problem]:
    """Store the registry's external ids the database does not hold yet. One held by another
    player, or another id of a scheme than the player holds, is never moved nor added: it is a
    warning for the officer to review (merge the two, or correct the file)."""
    given = registry.identifiers.with_columns(
        pl.col("player_id").replace_strict(ids, return_dtype=pl.Int64).alias("player")
    )
    held = players.identifiers(connection)
    line = dict(registry.players.select("player_id", "line").iter_rows())
    column = {scheme: column for column, scheme in ID_COLUMNS.items()}
    label = {"fide": "FIDE id", "egd": "EGD PIN"}
    clashes = given.join(held.rename({"player": "_holder"}), on=["scheme", "value"]).filter(
        pl.col("_holder") != pl.col("player")
    )
    names = players.federation_ids(connection, clashes["_holder"].to_list())
    warnings = [
        Problem(
            registry.source, line.get(fid), column[scheme], value,
            f"this {label.get(scheme, scheme)} belongs to player {names[holder]}: not stored "
            "(review, and merge if they are one person)",
        )
        for fid, scheme, value, holder in clashes.select(
            "player_id", "scheme", "value", "_holder"
        ).rows()
    ]  # fmt: skip
    fresh = given.join(held, on=["scheme", "value"], how="anti")
    other = fresh.join(held.rename({"value": "_held"}), on=["player", "scheme"])
    warnings += [
        Problem(
            registry.source, line.get(fid), column[scheme], value,
            f"player {fid} has the {label.get(scheme, scheme)} {stored}: this one is not stored "
            "(review)",
        )
        for fid, scheme, value, stored in other.select(
            "player_id", "scheme", "value", "_held"
        ).rows()
    ]  # fmt: skip
    players.insert_identifiers(
        connection,
        fresh.join(other.select("player", "scheme"), on=["player", "scheme"], how="anti").select(
            "player", "scheme", "value"
        ),
    )
    return sorted(warnings, key=lambda p: p.line or 0)


def merge_players(engine: Engine, keep: str, duplicate: str, *, by: str, now: datetime) -> None:
    """Merge ``duplicate`` into ``keep``: one player, one history, re-rated from its start."""
    with engine.begin() as connection:
        kept, dup = check_merge(connection, keep, duplicate)
        first = window.earliest_seq(connection, [kept.id, dup.id])
        players.record_merge(connection, kept.id, dup.id, by, now)
        players.reassign_player(connection, kept.id, dup.id)
        if first is not None:
            window.mark_rerate(connection, first, f"player {duplicate} was merged into {keep}")


def check_merge(
    connection: Connection, keep: str, duplicate: str
) -> tuple[players.PlayerRow, players.PlayerRow]:
    """The two players of a merge, or the reason they cannot be merged: one of them unknown or
    merged already, both in one tournament, or different ids of one scheme (two people)."""
    if keep == duplicate:
        raise SelfMergeError(keep)
    kept = players.player_by_federation_id(connection, keep)
    dup = players.player_by_federation_id(connection, duplicate)
    for fid, row in ((keep, kept), (duplicate, dup)):
        if row is None:
            raise UnknownPlayerError(fid)
    assert kept is not None
    assert dup is not None
    if kept.merged_into is not None:
        raise AlreadyMergedError(keep, kept=True)
    if dup.merged_into is not None:
        raise AlreadyMergedError(duplicate, kept=False)
    both = players.shared_tournaments(connection, kept.id, dup.id)
    if both:
        raise SharedTournamentsError(keep, duplicate, both)
    held = players.identifiers(connection)
    ours = dict(held.filter(pl.col("player") == kept.id).select("scheme", "value").rows())
    for scheme, value in held.filter(pl.col("player") == dup.id).select("scheme", "value").rows():
        if scheme in ours and ours[scheme] != value:
            raise DifferentIdsError(keep, duplicate, scheme, (ours[scheme], value))
    return kept, dup


@dataclass(frozen=True, slots=True)
class UnmergeReport:
    duplicate: str
    kept: str
    """The player the duplicate was merged into."""
    tournaments: int
    """Tournaments whose results went back to the duplicate."""
    rerate: bool
    """Whether rated history changed, so a re-rating is pending."""


def unmerge_player(
    engine: Engine, duplicate: str, *, kept: str | None = None, by: str, now: datetime
) -> UnmergeReport:
    """Undo the merge of ``duplicate``: it is a player again, with the results and games the
    merge moved (and the players once merged into it); its ids and spellings stayed its own.
    Everything rated from the first of those tournaments on waits for a re-rating. ``kept``,
    when given, must be whom the duplicate was merged into."""
    with engine.begin() as connection:
        dup, merge, into = check_unmerge(connection, duplicate, kept)
        assert dup.merged_into is not None
        moved = players.merged_tournaments(connection, merge.id)
        first = window.earliest_position(connection, moved)
        players.undo_merge(connection, merge, dup.id, dup.merged_into, moved, by, now)
        if first is not None:
            window.mark_rerate(
                connection, first, f"player {duplicate} was separated from {into.federation_id}"
            )
    return UnmergeReport(duplicate, into.federation_id, len(moved), first is not None)


def check_unmerge(
    connection: Connection, duplicate: str, kept: str | None = None
) -> tuple[players.PlayerRow, players.MergeRow, players.PlayerRow]:
    """The merged player, its merge and whom it was merged into (``kept`` if given: another is
    an error); or why it cannot be undone."""
    dup = players.player_by_federation_id(connection, duplicate)
    if dup is None:
        raise UnknownPlayerError(duplicate)
    merge = players.standing_merge(connection, dup.id) if dup.merged_into is not None else None
    if merge is None:
        raise NotMergedError(duplicate)
    into = players.player_by_id(connection, merge.kept_id)
    if kept is not None and kept != into.federation_id:
        if players.player_by_federation_id(connection, kept) is None:
            raise UnknownPlayerError(kept)
        raise OtherMergeError(duplicate, kept, into.federation_id)
    if not merge.results_recorded:
        raise UnrecordedMergeError(duplicate, into.federation_id, merge.merged_at)
    return dup, merge, into


@dataclass(frozen=True, slots=True)
class Renamed:
    federation_id: str
    old: str
    new: str
    alias: bool
    """Whether the old name is kept as a spelling of the player."""


NAME_LENGTH = 200
"""The longest name the registry keeps (``players.name``)."""
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def rename_player(
    engine: Engine, federation_id: str, name: str, *, by: str, now: datetime
) -> Renamed:
    """Give a player the name the officer chose (spaces as one, control characters removed).
    The old name is kept as a spelling of the player in files of every format
    (``ANY_SCHEME``), so a file that still writes it matches him; the published lists
    print the new name from the next list on. A name that folds the same (``Klein, Klaus`` →
    ``Klaus Klein``) changes nothing in how files match."""
    new = " ".join(_CONTROL.sub("", name).split())
    if not new:
        raise PlayerNameError(federation_id, name, "the name is empty")
    if len(new) > NAME_LENGTH:
        raise PlayerNameError(federation_id, name, f"longer than {NAME_LENGTH} characters")
    with engine.begin() as connection:
        player = players.player_by_federation_id(connection, federation_id)
        if player is None:
            raise UnknownPlayerError(federation_id)
        if player.merged_into is not None:
            raise UnknownPlayerError(federation_id, merged=True)
        if player.name != new:
            players.rename(connection, player.id, new, name_key(new))
        alias = name_key(player.name) != name_key(new)
        if alias:
            players.insert_aliases(
                connection,
                pl.DataFrame(
                    {"scheme": [ANY_SCHEME], "spelling": [player.name], "player": [player.id]}
                ),
                by,
                now,
            )
    return Renamed(federation_id, player.name, new, alias)
