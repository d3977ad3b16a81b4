"""External ids (FIDE id, EGD PIN) in the player matching: step 4 of
:func:`importers.matching.match_players` (a row's id a known player holds), the candidates an id
rules out, and the ids an import stores or only warns about."""

from __future__ import annotations

import polars as pl

from importers.known_players import KnownPlayers
from ratings.errors import Candidate, Problem, Uncertain
from ratings.names import fits_initials, fits_lost_letters, similarities

SCHEME_NAMES = {"fide": "FIDE id", "egd": "EGD PIN", "national": "national id"}
SCHEME_COLUMNS = {"fide": "fide_id", "egd": "egd_pin"}
"""The column of a results table or registry that carries each scheme's ids."""


def by_external_id(
    by_name: pl.DataFrame, players: KnownPlayers
) -> tuple[pl.DataFrame, pl.DataFrame, list[Uncertain]]:
    """Step 4, an external id a player holds, when the names agree; the rows whose id a player
    of another name holds (``disputed``) are asked about."""
    held = players.known.identifiers.join(
        players.everyone.select(
            pl.col("id").alias("player"), "_target", "_target_key", "_target_name"
        ),
        on="player",
    ).select(
        pl.col("scheme").alias("id_scheme"),
        pl.col("value").alias("id_value"),
        pl.col("_target").alias("_holder"),
        pl.col("_target_key").alias("_holder_key"),
        pl.col("_target_name").alias("_holder_name"),
    )
    by_name = by_name.join(held, on=["id_scheme", "id_value"], how="left")
    review_score = players.review_score
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
    for source, line, name, country, scheme, value, holder in disputed.select(
        "source", "line", "name", "country", "id_scheme", "id_value", "_holder"
    ).rows():
        found = players.holders.filter(pl.col("_target") == holder).row(0, named=True)
        uncertain.append(
            Uncertain(
                source, line, name, country,
                f"its {SCHEME_NAMES.get(scheme, scheme)} {value} belongs to {found['name']} "
                f"({found['federation_id']})",
                (Candidate(0.0, holder, found["federation_id"], found["name"], found["country"]),),
            )
        )  # fmt: skip
    return by_name, disputed, uncertain


def identifiers_to_store(
    both: pl.DataFrame, id_matches: pl.DataFrame, players: KnownPlayers
) -> tuple[pl.DataFrame, list[Problem]]:
    """External ids to store: each new (scheme, value) once, for a row's player; and the
    warnings about those not stored."""
    warnings, disputed_ids = _disputed_ids(id_matches, players)
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
            f"this {SCHEME_NAMES.get(scheme, scheme)} is given to {count} players in the "
            "files: not stored (review the files)",
        )
        for scheme, value, count, source, line in shared.rows()
    ]  # fmt: skip
    given = given.join(shared.select("id_scheme", "id_value"), on=["id_scheme", "id_value"],
                       how="anti")  # fmt: skip
    identifiers = (
        given
        .select("federation_id", pl.col("id_scheme").alias("scheme"), pl.col("id_value").alias("value"))
        .join(
            players.known.identifiers.select("scheme", "value"), on=["scheme", "value"], how="anti"
        )
        .unique(["scheme", "value"], keep="first", maintain_order=True)
    )  # fmt: skip
    return identifiers, warnings


def _disputed_ids(
    id_matches: pl.DataFrame, players: KnownPlayers
) -> tuple[list[Problem], pl.Series]:
    """Rows matched by their player_id whose external id disagrees with what is stored: the id
    belongs to another player, or the player holds another id of the scheme. Each is a warning
    and the id is not stored (never moved, never a second id of one scheme); the rows (``_row``)
    whose ids are kept out are returned too."""
    rows = id_matches.filter(pl.col("id_value").is_not_null())
    held = players.known.identifiers.join(
        players.everyone.select(pl.col("id").alias("player"), "_target"), on="player"
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
        found = players.holders.filter(pl.col("_target") == holder).row(0, named=True)
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


def _agree(keys: pl.Series, known: pl.Series, review_score: float) -> pl.Series:
    scores = similarities(keys, known)
    fits = [
        k is not None and h is not None and (fits_lost_letters(k, h) or fits_initials(k, h))
        for k, h in zip(keys.to_list(), known.to_list(), strict=True)
    ]
    return (scores >= review_score) | pl.Series(fits, dtype=pl.Boolean)


def other_person_dropped(pairs: pl.DataFrame, schemes_held: pl.DataFrame) -> pl.DataFrame:
    """``pairs`` (a row's ``_row``, ``id_scheme``, ``id_value`` and a ``_candidate``) without the
    candidates who hold an id of the row's scheme. The row's own id is held by nobody here (its
    holder was found before), so such a candidate holds another one: another person."""
    other = pairs.filter(pl.col("id_value").is_not_null()).join(
        schemes_held, on=["_candidate", "id_scheme"], how="semi"
    )
    return pairs.join(other.select("_row", "_candidate"), on=["_row", "_candidate"], how="anti")
