"""Finding the player each result row belongs to (SPEC 4.1, player matching).

In order, the first that answers wins:

1. the officer's answer for this name (``--map``: a player id, or ``new``);
2. the row's ``player_id`` (an unknown id with a name creates the player);
3. a remembered spelling (an alias: in files of this scheme, this spelling is this player);
4. the row's external id (FIDE id, EGD PIN), when a player holds it and the names agree;
5. the folded name (:func:`ratings.names.name_key`), with the country when the row gives one.

A confident match is taken. A row none of them answers is a new player, unless a known player's
name is close (score at least ``review_score``), the name lost a letter to a wrong encoding, or
its external id belongs to a player of another name: such a row is *uncertain*, and the import
asks the officer instead of creating anyone. Pure: the caller passes the known players in and
writes the outcome.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import polars as pl

from ratings.errors import Candidate, Problem, Uncertain
from ratings.names import (
    ANY_SCHEME,
    BLOCK_PREFIX,
    HANDLE,
    LOST_LETTER,
    block_keys,
    display_names,
    fits_initials,
    fits_lost_letters,
    name_key,
    name_key_expr,
    similarities,
    word_patterns,
    word_range,
)

NEW = "new"
"""The answer that makes a name a new player."""

DISPLAY_SCORE = 60.0
"""Closest players shown with a new player on a dry run, from this score up."""

SCHEME_NAMES = {"fide": "FIDE id", "egd": "EGD PIN", "national": "national id"}
SCHEME_COLUMNS = {"fide": "fide_id", "egd": "egd_pin"}
"""The column of a results table or registry that carries each scheme's ids."""


@dataclass(frozen=True, slots=True)
class Known:
    """What the database knows: players (``KNOWN_SCHEMA``), their external ids (player, scheme,
    value) and remembered spellings (scheme, spelling, player)."""

    players: pl.DataFrame
    identifiers: pl.DataFrame
    aliases: pl.DataFrame


@dataclass(frozen=True, slots=True)
class Matched:
    results: pl.DataFrame
    """The input rows plus ``federation_id`` (known or newly given) and ``player`` (the database
    id of a known player, null for a new one)."""
    new_players: pl.DataFrame
    """federation_id, name, name_key, country, club, and spelling and scheme: players to create,
    each ``name`` in its display form (:func:`ratings.names.display_name`), ``spelling`` as the
    file wrote it, in a file of ``scheme`` (:func:`spellings_kept` says which are kept)."""
    problems: tuple[Problem, ...]
    uncertain: tuple[Uncertain, ...] = ()
    identifiers: pl.DataFrame | None = None
    """federation_id, scheme, value: external ids to store."""
    aliases: pl.DataFrame | None = None
    """scheme, spelling, federation_id: the officer's answers to remember."""
    closest: Mapping[str, tuple[Candidate, ...]] | None = None
    """federation id of each new player → the known players closest to it."""
    warnings: tuple[Problem, ...] = ()
    """External ids not stored because they disagree with what is stored (an id another player
    holds, another id of the scheme than the player holds) or with another row of the files:
    for the officer to review; the rows themselves are matched by their player_id."""
    by_name: pl.DataFrame | None = None
    """Rows matched to a known player by the name alone (no id, alias or external id), each
    way a file writes a player once: source, line, name, country, and the player's
    federation_id, known_name, known_country."""
    remembered: pl.DataFrame | None = None
    """scheme, spelling: the spellings remembered before for the players of the files. A new
    player written so is another person than the one the spelling remembers (another id of the
    scheme), and the spelling stays that one's."""


IDENTIFIERS = {"federation_id": pl.String, "scheme": pl.String, "value": pl.String}
ALIASES = {"scheme": pl.String, "spelling": pl.String, "federation_id": pl.String}
BY_NAME = {
    "source": pl.String, "line": pl.Int64, "name": pl.String, "country": pl.String,
    "federation_id": pl.String, "known_name": pl.String, "known_country": pl.String,
}  # fmt: skip


def spellings_kept(
    new_players: pl.DataFrame, remembered: pl.DataFrame | None = None
) -> pl.DataFrame:
    """The spellings of new players kept as aliases (scheme, spelling, federation_id): where the
    display form differs from the spelling, or a later file's row would otherwise be a match by
    the name alone that is asked about (no country, a handle), so that the next file written
    the same way matches the player without a question. A spelling two new players share in one
    scheme is kept for neither, and one ``remembered`` (scheme, spelling) for another player
    stays that player's."""
    if remembered is not None:
        new_players = new_players.join(
            remembered.select("scheme", "spelling"), on=["scheme", "spelling"], how="anti"
        )
    kept = new_players.filter(
        pl.col("scheme").is_not_null()
        & (
            (pl.col("spelling") != pl.col("name"))
            | pl.col("country").is_null()
            | pl.col("spelling").str.strip_chars().str.contains(HANDLE.pattern)
        )
    )
    return kept.filter(pl.struct("scheme", "spelling").is_unique()).select(
        "scheme", "spelling", "federation_id"
    )


def empty_known() -> Known:
    return Known(
        pl.DataFrame(
            schema={
                "id": pl.Int64, "federation_id": pl.String, "name": pl.String,
                "name_key": pl.String, "country": pl.String, "merged_into": pl.Int64,
            }
        ),
        pl.DataFrame(schema={"player": pl.Int64, "scheme": pl.String, "value": pl.String}),
        pl.DataFrame(schema={"scheme": pl.String, "spelling": pl.String, "player": pl.Int64}),
    )  # fmt: skip


def next_ids(known_ids: pl.Series, count: int) -> list[str]:
    """``count`` fresh numeric federation ids after the largest numeric one in use."""
    numeric = known_ids.filter(known_ids.str.contains(r"^\d{1,18}$")).cast(pl.Int64)
    start = int(numeric.max() or 0) + 1 if numeric.len() else 1  # type: ignore[arg-type]
    return [str(start + i) for i in range(count)]


def _optional(frame: pl.DataFrame, *names: str) -> pl.DataFrame:
    return frame.with_columns(
        pl.lit(None, dtype=pl.String).alias(n) for n in names if n not in frame.columns
    )


def match_players(
    results: pl.DataFrame,
    known: Known | pl.DataFrame,
    *,
    review_score: float = 85.0,
    answers: Mapping[str, str] | None = None,
    closest: bool = False,
) -> Matched:
    """Match ``results`` (columns source, line, player_id, name, name_key, country, club; and
    optionally id_scheme, id_value, the row's external id, and scheme, the file's format for
    aliases) to the ``known`` players. ``answers`` maps names as the officer wrote them to a
    federation id or ``new``; ``closest`` adds each new player's closest known players."""
    if isinstance(known, pl.DataFrame):
        base = empty_known()
        known = Known(
            _optional(known, "name").select(base.players.columns),
            base.identifiers,
            base.aliases,
        )
    everyone = known.players.with_columns(
        pl.coalesce(pl.col("merged_into"), pl.col("id")).alias("_target")
    )
    targets = everyone.select(
        pl.col("id").alias("_target"),
        pl.col("federation_id").alias("_target_federation_id"),
        pl.col("name").alias("_target_name"),
        pl.col("name_key").alias("_target_key"),
    )
    everyone = everyone.join(targets, on="_target", how="left")
    live = everyone.filter(pl.col("merged_into").is_null())
    rows = _optional(results, "id_scheme", "id_value", "scheme").with_row_index("_row")
    problems: list[Problem] = []

    # 1. The officer's answers, by folded name: an id becomes the row's player_id.
    answered = _answers(answers or {})
    rows = rows.join(answered, on="name_key", how="left").with_columns(
        pl.when(pl.col("player_id").is_null() & (pl.col("_answer") != NEW))
        .then(pl.col("_answer"))
        .otherwise(pl.col("player_id"))
        .alias("player_id"),
        (pl.col("_answer") == NEW).fill_null(False).alias("_new"),
    )
    unknown_answers = rows.filter(
        pl.col("_answer").is_not_null() & (pl.col("_answer") != NEW)
    ).join(
        everyone.select("federation_id"), left_on="_answer", right_on="federation_id", how="anti"
    )
    problems += [
        Problem(source, line, "name", name, f"the answer {answer!r} is no player id (nor 'new')")
        for source, line, name, answer in unknown_answers.select(
            "source", "line", "name", "_answer"
        )
        .unique(["name"], maintain_order=True)
        .rows()
    ]

    # 2. A player_id: that player (or whom it was merged into).
    by_id = rows.filter(pl.col("player_id").is_not_null())
    id_matches = by_id.join(
        everyone.select("federation_id", "_target", "_target_federation_id"),
        left_on="player_id",
        right_on="federation_id",
        how="left",
    )
    problems += [
        Problem(source, line, "player_id", player_id, "unknown player id and no name to create it")
        for source, line, player_id in id_matches.filter(
            pl.col("_target").is_null() & pl.col("name").is_null()
        )
        .select("source", "line", "player_id")
        .rows()
    ]
    id_matches = id_matches.with_columns(
        pl.coalesce("_target_federation_id", "player_id").alias("federation_id"),
        pl.col("_target").alias("player"),
    )

    by_name = rows.filter(pl.col("player_id").is_null()).with_columns(
        pl.lit(None, dtype=pl.Int64).alias("player")
    )
    # A known player who holds another id of the row's scheme than the row gives is never the
    # row's player by its name: a different FIDE id or EGD PIN is a different person, however
    # alike the names (steps 3 and 5).
    ids_held = known.identifiers.join(
        everyone.select(pl.col("id").alias("player"), "_target"), on="player"
    ).select(pl.col("_target").alias("_candidate"), pl.col("scheme").alias("id_scheme"), "value")
    schemes_held = ids_held.select("_candidate", "id_scheme").unique()
    # 3. A remembered spelling in this scheme.
    remembered = known.aliases.select(
        "scheme",
        name_key_expr("spelling").alias("name_key"),
        pl.col("player").alias("_alias"),
    ).unique(["scheme", "name_key"], keep="last")
    remembered = remembered.join(
        everyone.select(pl.col("id").alias("_alias"), pl.col("_target").alias("_alias_target")),
        on="_alias",
    ).drop("_alias")
    # A spelling of every format (a name the player had before a rename) answers where the
    # file's own format has none.
    anywhere = remembered.filter(pl.col("scheme") == ANY_SCHEME).select(
        "name_key", pl.col("_alias_target").alias("_any_target")
    )
    # A spelling remembered exactly as the row writes it comes first: two players whose names
    # fold alike (EGC 2011's "Parity Three" and "Three Parity") are each found by their own.
    spelled = (
        known.aliases.filter(pl.col("scheme") != ANY_SCHEME)
        .select("scheme", pl.col("spelling").alias("name"), pl.col("player").alias("_alias"))
        .unique(["scheme", "name"], keep="last")
        .join(
            everyone.select(pl.col("id").alias("_alias"), pl.col("_target").alias("_exact_target")),
            on="_alias",
        )
        .drop("_alias")
    )
    by_name = (
        by_name.join(
            remembered.filter(pl.col("scheme") != ANY_SCHEME),
            on=["scheme", "name_key"],
            how="left",
        )
        .join(spelled, on=["scheme", "name"], how="left")
        .join(anywhere, on="name_key", how="left")
        .with_columns(
            pl.when(~pl.col("_new"))
            .then(pl.coalesce("_exact_target", "_alias_target", "_any_target"))
            .alias("player")
        )
    )
    other_person = (
        by_name.filter(pl.col("player").is_not_null() & pl.col("id_value").is_not_null())
        .select("_row", "id_scheme", "id_value", pl.col("player").alias("_candidate"))
        .join(schemes_held, on=["_candidate", "id_scheme"], how="semi")
        .join(
            ids_held.rename({"value": "id_value"}),
            on=["_candidate", "id_scheme", "id_value"],
            how="anti",
        )
    )
    by_name = by_name.with_columns(
        pl.when(pl.col("_row").is_in(other_person["_row"].implode()))
        .then(None)
        .otherwise(pl.col("player"))
        .alias("player")
    )

    # 4. An external id a player holds, when the names agree.
    held = known.identifiers.join(
        everyone.select(pl.col("id").alias("player"), "_target", "_target_key", "_target_name"),
        on="player",
    ).select(
        pl.col("scheme").alias("id_scheme"),
        pl.col("value").alias("id_value"),
        pl.col("_target").alias("_holder"),
        pl.col("_target_key").alias("_holder_key"),
        pl.col("_target_name").alias("_holder_name"),
    )
    by_name = by_name.join(held, on=["id_scheme", "id_value"], how="left")
    # The names agree when they score as a confident match, differ only by lost letters or by
    # initials: an id is the better witness than a name a wrong encoding damaged.
    holder_agrees = pl.col("_holder").is_not_null() & (
        (pl.col("_holder_key") == pl.col("name_key"))
        | pl.struct("name_key", "_holder_key").map_batches(
            lambda s: _agree(
                s.struct.field("name_key"), s.struct.field("_holder_key"), review_score
            ),
            return_dtype=pl.Boolean,
        )
    )
    by_name = by_name.with_columns(
        pl.when(pl.col("player").is_null() & ~pl.col("_new") & holder_agrees)
        .then(pl.col("_holder"))
        .otherwise(pl.col("player"))
        .alias("player"),
    )
    uncertain: list[Uncertain] = []
    disputed = by_name.filter(
        pl.col("player").is_null() & ~pl.col("_new") & pl.col("_holder").is_not_null()
    )
    holders = live.select("_target", "federation_id", "name", "country").unique("_target")
    for source, line, name, country, scheme, value, holder in disputed.select(
        "source", "line", "name", "country", "id_scheme", "id_value", "_holder"
    ).rows():
        found = holders.filter(pl.col("_target") == holder).row(0, named=True)
        uncertain.append(
            Uncertain(
                source, line, name, country,
                f"its {SCHEME_NAMES.get(scheme, scheme)} {value} belongs to {found['name']} "
                f"({found['federation_id']})",
                (Candidate(0.0, holder, found["federation_id"], found["name"], found["country"]),),
            )
        )  # fmt: skip

    # 5. The folded name, and the country when the row gives one. A known player who holds
    # another id of the row's scheme is never its candidate (as in step 3).
    pending = (
        pl.col("player").is_null()
        & ~pl.col("_new")
        & ~pl.col("_row").is_in(disputed["_row"].implode())
    )
    candidates = (
        by_name.filter(pending)
        .select("_row", "name_key", "country", "name", "id_scheme", "id_value")
        .join(
            live.select(
                "name_key",
                pl.col("country").alias("_known_country"),
                pl.col("id").alias("_candidate"),
                pl.col("federation_id").alias("_candidate_federation_id"),
                pl.col("name").alias("_known_name"),
            ),
            on="name_key",
        )
        .filter(pl.col("country").is_null() | (pl.col("country") == pl.col("_known_country")))
    )
    candidates = _other_person_dropped(candidates, schemes_held)
    # Players whose names are the same words in another order (two entries of one event,
    # "Parity Three" and "Three Parity"): the one stored exactly as the row writes it is the
    # row's. Names that differ otherwise (an accent) stay ambiguous.
    exact = pl.col("_known_name") == pl.col("name")
    reordered = _words(pl.col("_known_name")) == _words(pl.col("name"))
    candidates = candidates.filter(
        exact | ~(exact.any().over("_row") & reordered.all().over("_row"))
    )
    counted = candidates.group_by("_row").agg(
        pl.col("_candidate").alias("_candidates"),
        pl.col("_candidate_federation_id").alias("_candidate_ids"),
    )
    by_name = by_name.join(counted, on="_row", how="left")
    ambiguous = by_name.filter(pl.col("_candidates").list.len() > 1)
    problems += [
        Problem(
            source,
            line,
            "name",
            name,
            f"{len(ids)} players match this name ({', '.join(sorted(ids))}): give the player_id",
        )
        for source, line, name, ids in ambiguous.select(
            "source", "line", "name", "_candidate_ids"
        ).rows()
    ]
    single = pl.col("_candidates").list.len() == 1
    by_name = by_name.with_columns(
        (pl.col("player").is_null() & single).fill_null(False).alias("_by_name")
    ).with_columns(
        pl.when(pl.col("_by_name"))
        .then(pl.col("_candidates").list.first())
        .otherwise(pl.col("player"))
        .alias("player")
    )
    settled = disputed["_row"].implode()

    # A match by the name alone is told; without a country to agree, or by a name written as a
    # handle (``Klaus_Klein``), it is asked about instead.
    named = by_name.filter(pl.col("_by_name") & pl.col("player").is_not_null()).join(
        holders.select(
            pl.col("_target").alias("player"),
            pl.col("federation_id").alias("_known_id"),
            pl.col("name").alias("_known_name"),
            pl.col("country").alias("_known_country"),
        ),
        on="player",
        how="left",
    )
    handle = pl.col("name").str.strip_chars().str.contains(HANDLE.pattern)
    unsure = named.filter(pl.col("country").is_null() | handle)
    for source, line, name, country, player, fid, known_name, known_country in (
        unsure.unique(["name", "country"], maintain_order=True)
        .select(
            "source", "line", "name", "country", "player", "_known_id", "_known_name",
            "_known_country",
        )
        .rows()
    ):  # fmt: skip
        reason = (
            "matched by the name alone, written as a handle"
            if HANDLE.search(name.strip())
            else "matched by the name alone, and the file gives no country"
        )
        uncertain.append(
            Uncertain(
                source, line, name, country, reason,
                (Candidate(100.0, player, fid, known_name, known_country),),
            )
        )  # fmt: skip
    by_name = by_name.with_columns(
        pl.when(pl.col("_row").is_in(unsure["_row"].implode()))
        .then(None)
        .otherwise(pl.col("player"))
        .alias("player")
    )
    asked_by_name = unsure["_row"].implode()
    by_name_alone = (
        named.filter(~pl.col("_row").is_in(asked_by_name))
        .unique(["source", "name", "country", "player"], maintain_order=True)
        .select(
            "source", pl.col("line").cast(pl.Int64), "name", "country",
            pl.col("_known_id").alias("federation_id"), pl.col("_known_name").alias("known_name"),
            pl.col("_known_country").alias("known_country"),
        )
    )  # fmt: skip

    # No match: a new player, unless a known one is close or the name lost a letter.
    unknown_named = by_name.filter(
        pl.col("player").is_null()
        & ~pl.col("_row").is_in(ambiguous["_row"].implode())
        & ~pl.col("_row").is_in(settled)
        & ~pl.col("_row").is_in(asked_by_name)
    )
    asked = unknown_named.filter(~pl.col("_new"))
    close = close_players(asked.select("name_key"), live, min_score=review_score)
    close_rows = _other_person_dropped(
        asked.select("_row", "name_key", "id_scheme", "id_value")
        .join(close, on="name_key", maintain_order="left_right")
        .rename({"candidate": "_candidate"}),
        schemes_held,
    ).rename({"_candidate": "candidate"})
    lost = asked.filter(pl.col("name").str.contains(LOST_LETTER.pattern)).select("_row")
    doubtful = pl.concat([close_rows.select("_row").unique(), lost]).unique()
    shown = live.select(pl.col("id").alias("candidate"), "federation_id", "name", "country")
    close_by_row = _candidates_by(close_rows, shown, "_row")
    for source, line, name, country, row in (
        unknown_named.filter(pl.col("_row").is_in(doubtful["_row"].implode()))
        .select("source", "line", "name", "country", "_row")
        .unique(["name", "country"], maintain_order=True)
        .rows()
    ):
        lost_letter = bool(LOST_LETTER.search(name))
        reason = (
            "the name has a letter lost to a wrong encoding"
            if lost_letter
            else "known players have a close name"
        )
        uncertain.append(Uncertain(source, line, name, country, reason, close_by_row.get(row, ())))
    unknown_named = unknown_named.filter(~pl.col("_row").is_in(doubtful["_row"].implode()))

    fresh = (
        unknown_named.group_by("name_key", "country", maintain_order=True)
        .agg(pl.col("name").first(), pl.col("club").first(), pl.col("scheme").first())
        .sort("name_key", "country", nulls_last=True)
    )
    fresh = fresh.with_columns(
        pl.Series(
            "federation_id",
            next_ids(pl.concat([everyone["federation_id"], by_id["player_id"]]), fresh.height),
            dtype=pl.String,
        )
    )
    by_name = (
        by_name.join(
            fresh.select("name_key", "country", pl.col("federation_id").alias("_fresh_id")),
            on=["name_key", "country"],
            how="left",
            nulls_equal=True,
        )
        .join(
            live.select(pl.col("id").alias("player"), pl.col("federation_id").alias("_known_id")),
            on="player",
            how="left",
        )
        .with_columns(
            pl.when(pl.col("_row").is_in(unknown_named["_row"].implode()))
            .then(pl.col("_fresh_id"))
            .otherwise(pl.col("_known_id"))
            .alias("federation_id")
        )
    )

    new_by_id = (
        id_matches.filter(pl.col("player").is_null() & pl.col("name").is_not_null())
        .group_by("player_id", maintain_order=True)
        .agg(
            pl.col("name").first(),
            pl.col("name_key").first(),
            pl.col("country").first(),
            pl.col("club").first(),
            pl.col("scheme").first(),
        )
        .rename({"player_id": "federation_id"})
    )
    columns = ["federation_id", "name", "name_key", "country", "club", "scheme"]
    new_players = pl.concat([new_by_id.select(columns), fresh.select(columns)]).with_columns(
        pl.col("name").alias("spelling"),
        pl.col("name").map_batches(display_names, return_dtype=pl.String),
    )
    keep = [*results.columns, "federation_id", "player"]
    extra = [c for c in ("id_scheme", "id_value", "scheme", "_answer") if c not in keep]
    both = pl.concat(
        [
            id_matches.select("_row", *keep, *extra),
            by_name.select("_row", *keep, *extra),
        ],
        how="vertical_relaxed",
    ).sort("_row")
    matched = both.select(keep)

    warnings, disputed_ids = _disputed_ids(id_matches, known, everyone, holders)
    # External ids to store: each new (scheme, value) once, for a row's player.
    given = both.filter(
        pl.col("id_value").is_not_null()
        & pl.col("federation_id").is_not_null()
        & ~pl.col("_row").is_in(disputed_ids.implode())
    )
    # One id given to two players in the files: neither is stored, the officer decides.
    shared = given.group_by("id_scheme", "id_value").agg(
        pl.col("federation_id").n_unique().alias("_players"),
        pl.col("source").first(), pl.col("line").first(),
    ).filter(pl.col("_players") > 1)  # fmt: skip
    warnings += [
        Problem(
            source, line, SCHEME_COLUMNS.get(scheme, "id"), value,
            f"this {SCHEME_NAMES.get(scheme, scheme)} is given to {players} players in the "
            "files: not stored (review the files)",
        )
        for scheme, value, players, source, line in shared.rows()
    ]  # fmt: skip
    given = given.join(shared.select("id_scheme", "id_value"), on=["id_scheme", "id_value"],
                       how="anti")  # fmt: skip
    identifiers = (
        given
        .select("federation_id", pl.col("id_scheme").alias("scheme"), pl.col("id_value").alias("value"))
        .join(
            known.identifiers.select("scheme", "value"), on=["scheme", "value"], how="anti"
        )
        .unique(["scheme", "value"], keep="first", maintain_order=True)
    )  # fmt: skip
    remembered_answers = (
        both.filter(pl.col("_answer").is_not_null() & pl.col("federation_id").is_not_null())
        .select(
            pl.col("scheme").fill_null(""),
            pl.col("name").alias("spelling"),
            "federation_id",
        )
        .unique(["scheme", "spelling"], keep="first", maintain_order=True)
    )
    nearest: dict[str, tuple[Candidate, ...]] = {}
    if closest and new_players.height:
        shown_close = close_players(
            new_players.select("name_key"), live, min_score=DISPLAY_SCORE, limit=3
        )
        by_key = _candidates_by(shown_close, shown, "name_key")
        nearest = {
            fid: by_key.get(key, ())
            for fid, key in new_players.select("federation_id", "name_key").rows()
        }
    return Matched(
        matched,
        new_players,
        tuple(problems),
        tuple(uncertain),
        identifiers.cast(IDENTIFIERS),  # type: ignore[arg-type]
        remembered_answers.cast(ALIASES),  # type: ignore[arg-type]
        nearest,
        tuple(sorted(warnings, key=lambda p: (p.file, p.line or 0))),
        by_name_alone.cast(BY_NAME),  # type: ignore[arg-type]
        known.aliases.select("scheme", "spelling").unique(),
    )


def _disputed_ids(
    id_matches: pl.DataFrame, known: Known, everyone: pl.DataFrame, holders: pl.DataFrame
) -> tuple[list[Problem], pl.Series]:
    """Rows matched by their player_id whose external id disagrees with what is stored: the id
    belongs to another player, or the player holds another id of the scheme. Each is a warning
    and the id is not stored (never moved, never a second id of one scheme); the rows (``_row``)
    whose ids are kept out are returned too."""
    rows = id_matches.filter(pl.col("id_value").is_not_null())
    held = known.identifiers.join(
        everyone.select(pl.col("id").alias("player"), "_target"), on="player"
    ).select(pl.col("scheme").alias("id_scheme"), pl.col("value").alias("id_value"),
             pl.col("_target").alias("_holder"))  # fmt: skip
    other_holder = rows.join(held, on=["id_scheme", "id_value"]).filter(
        pl.col("player").is_null() | (pl.col("_holder") != pl.col("player"))
    )
    problems = []
    for source, line, player_id, scheme, value, holder in (
        other_holder.unique(["id_scheme", "id_value", "player_id"], maintain_order=True)
        .select("source", "line", "player_id", "id_scheme", "id_value", "_holder")
        .rows()
    ):
        found = holders.filter(pl.col("_target") == holder).row(0, named=True)
        label = SCHEME_NAMES.get(scheme, scheme)
        problems.append(
            Problem(
                source, line, SCHEME_COLUMNS.get(scheme, "id"), value,
                f"this {label} belongs to {found['name']} ({found['federation_id']}), not to "
                f"player {player_id}: not stored (review, and merge if they are one person)",
            )
        )  # fmt: skip
    other_value = (
        rows.filter(pl.col("player").is_not_null())
        .join(held.rename({"id_value": "_held", "_holder": "player"}), on=["player", "id_scheme"])
        .filter(pl.col("_held") != pl.col("id_value"))
        .join(held, on=["id_scheme", "id_value"], how="anti")
    )
    for source, line, player_id, scheme, value, stored in (
        other_value.unique(["id_scheme", "id_value", "player"], maintain_order=True)
        .select("source", "line", "player_id", "id_scheme", "id_value", "_held")
        .rows()
    ):
        label = SCHEME_NAMES.get(scheme, scheme)
        problems.append(
            Problem(
                source, line, SCHEME_COLUMNS.get(scheme, "id"), value,
                f"player {player_id} has the {label} {stored}: this one is not stored (review)",
            )
        )  # fmt: skip
    return problems, pl.concat([other_holder["_row"], other_value["_row"]])


def _words(name: pl.Expr) -> pl.Expr:
    return name.str.to_lowercase().str.split(" ").list.sort()


def _answers(answers: Mapping[str, str]) -> pl.DataFrame:
    keyed: dict[str, str] = {}
    for name, answer in answers.items():
        keyed[name_key(name)] = answer.strip()
    return pl.DataFrame(
        {"name_key": list(keyed), "_answer": list(keyed.values())},
        schema={"name_key": pl.String, "_answer": pl.String},
    )


def _agree(keys: pl.Series, known: pl.Series, review_score: float) -> pl.Series:
    scores = similarities(keys, known)
    fits = [
        k is not None and h is not None and (fits_lost_letters(k, h) or fits_initials(k, h))
        for k, h in zip(keys.to_list(), known.to_list(), strict=True)
    ]
    return (scores >= review_score) | pl.Series(fits, dtype=pl.Boolean)


def close_players(
    queries: pl.DataFrame, live: pl.DataFrame, *, min_score: float, limit: int = 5
) -> pl.DataFrame:
    """The known players (``live``: id, name_key) whose name scores at least ``min_score`` against
    each query's ``name_key``, best first, at most ``limit`` each (frame: name_key, candidate,
    score).

    Only players sharing a bucket with the query are scored (:func:`ratings.names.block_keys`:
    a word plus the first letters of another; a one-word query, every name holding a word that
    starts with it; for
    a name with a lost letter, a word matching each of its words), never every pair: the registry
    is exploded into buckets only for the words the queries have. The score is
    :func:`ratings.names.similarities`; ``players search`` finds its names here too.
    """
    keys = queries["name_key"].drop_nulls().unique()
    empty = pl.DataFrame(schema={"name_key": pl.String, "candidate": pl.Int64, "score": pl.Float64})
    if keys.len() == 0 or live.height == 0:
        return empty
    wanted = pl.DataFrame({"name_key": keys})
    clean = wanted.filter(~pl.col("name_key").str.contains(LOST_LETTER.pattern))
    lost = wanted.filter(pl.col("name_key").str.contains(LOST_LETTER.pattern))
    pairs = []
    words = live.select(
        pl.col("id").alias("candidate"),
        pl.col("name_key").alias("_known"),
        pl.col("name_key").str.split(" ").alias("_words"),
    )
    if clean.height:
        blocks = clean.with_columns(
            pl.col("name_key")
            .map_elements(block_keys, return_dtype=pl.List(pl.String))
            .alias("block")
        ).explode("block")
        query_words = blocks["block"].str.split("|").list.first().unique().implode()
        spread = words.with_columns(
            pl.int_ranges(pl.col("_words").list.len()).alias("_pos"),
            pl.col("_words").list.len().alias("_n"),
        ).explode(["_words", "_pos"])
        sample = spread.filter(pl.col("_words").is_in(query_words))
        if sample.height:
            # Each candidate's buckets: every word it shares with a query, with the first letters of
            # each of its other words (a one-word name: the word alone).
            others = spread.filter(
                pl.col("candidate").is_in(sample["candidate"].unique().implode())
            ).select(
                "candidate", pl.col("_pos").alias("_other"),
                pl.col("_words").str.slice(0, BLOCK_PREFIX).alias("_initial"),
            )  # fmt: skip
            known_blocks = (
                sample.join(others, on="candidate")
                .filter((pl.col("_n") == 1) | (pl.col("_pos") != pl.col("_other")))
                .select(
                    "candidate",
                    "_known",
                    pl.when(pl.col("_n") == 1)
                    .then(pl.concat_str(pl.col("_words"), pl.lit("|")))
                    .otherwise(pl.concat_str(pl.col("_words"), pl.lit("|"), pl.col("_initial")))
                    .alias("block"),
                )
            )
            pairs.append(
                blocks.join(known_blocks, on="block").select("name_key", "candidate", "_known")
            )
        # A one-word query (a surname alone, or its start) is compared with every name holding
        # a word that starts with it: a range of the sorted words of the registry.
        single = clean.filter(~pl.col("name_key").str.contains(" "))["name_key"]
        if single.len():
            sorted_words = spread["_words"].unique().sort()
            starting = []
            for query in single.to_list():
                low, high = word_range(query)
                first = int(sorted_words.search_sorted(low, side="left"))
                last = int(sorted_words.search_sorted(high, side="left"))
                starting.append(
                    pl.DataFrame(
                        {"name_key": query, "_words": sorted_words.slice(first, last - first)},
                        schema={"name_key": pl.String, "_words": pl.String},
                    )
                )
            pairs.append(
                pl.concat(starting)
                .join(spread.select("_words", "candidate", "_known"), on="_words")
                .select("name_key", "candidate", "_known")
            )
    if lost.height:
        vocabulary = words.explode("_words").select("_words").unique()
        for key in lost["name_key"].to_list():
            matching = pl.concat(
                [vocabulary.filter(pl.col("_words").str.contains(p)) for p in word_patterns(key)]
            )["_words"].implode()
            hits = words.filter(
                pl.col("_words").list.eval(pl.element().is_in(matching)).list.any()
            ).select(pl.lit(key).alias("name_key"), "candidate", "_known")
            pairs.append(hits)
    if not pairs:
        return empty
    # A name with a lost letter scores low against the very name it lost the letter of: its
    # candidates are shown from the display score up.
    floor = (
        pl.when(pl.col("name_key").str.contains(LOST_LETTER.pattern))
        .then(pl.lit(min(min_score, DISPLAY_SCORE)))
        .otherwise(pl.lit(min_score))
    )
    # The score (2 x matching letters / both lengths) cannot pass the floor when the lengths
    # differ too much: such pairs are dropped before scoring, most of them at federation scale.
    short = pl.min_horizontal(pl.col("name_key").str.len_chars(), pl.col("_known").str.len_chars())
    total = pl.col("name_key").str.len_chars() + pl.col("_known").str.len_chars()
    scored = pl.concat(pairs).filter(200 * short >= floor * total).unique(["name_key", "candidate"])
    scored = scored.with_columns(score=similarities(scored["name_key"], scored["_known"]))
    return (
        scored.filter(pl.col("score") >= floor)
        .sort(["name_key", "score", "candidate"], descending=[False, True, False])
        .group_by("name_key", maintain_order=True)
        .head(limit)
        .select("name_key", "candidate", "score")
    )


def _candidates_by(
    close: pl.DataFrame, shown: pl.DataFrame, key: str
) -> dict[Any, tuple[Candidate, ...]]:
    """Each ``key`` value's candidates of ``close`` (candidate, score), in their order."""
    found: dict[Any, list[Candidate]] = {}
    joined = close.join(shown, on="candidate", how="left", maintain_order="left")
    for value, candidate, score, fid, name, country in joined.select(
        key, "candidate", "score", "federation_id", "name", "country"
    ).rows():
        found.setdefault(value, []).append(
            Candidate(round(score, 1), candidate, fid, name, country)
        )
    return {value: tuple(c) for value, c in found.items()}


def _other_person_dropped(pairs: pl.DataFrame, schemes_held: pl.DataFrame) -> pl.DataFrame:
    """``pairs`` (a row's ``_row``, ``id_scheme``, ``id_value`` and a ``_candidate``) without the
    candidates who hold an id of the row's scheme. The row's own id is held by nobody here (its
    holder was found before), so such a candidate holds another one: another person."""
    other = pairs.filter(pl.col("id_value").is_not_null()).join(
        schemes_held, on=["_candidate", "id_scheme"], how="semi"
    )
    return pairs.join(other.select("_row", "_candidate"), on=["_row", "_candidate"], how="anti")
