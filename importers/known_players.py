"""What the database knows of its players, as the player matching reads it: the players, their
external ids and their remembered spellings (:class:`Known`), and the frames every step of
:func:`importers.matching.match_players` derives from them once (:class:`KnownPlayers`)."""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl


@dataclass(frozen=True, slots=True)
class Known:
    """What the database knows: players (``KNOWN_SCHEMA``), their external ids (player, scheme,
    value) and remembered spellings (scheme, spelling, player)."""

    players: pl.DataFrame
    identifiers: pl.DataFrame
    aliases: pl.DataFrame


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


def with_optional(frame: pl.DataFrame, *names: str) -> pl.DataFrame:
    """``frame`` with each of ``names`` it lacks as a column of nulls."""
    return frame.with_columns(
        pl.lit(None, dtype=pl.String).alias(n) for n in names if n not in frame.columns
    )


@dataclass(frozen=True, slots=True)
class KnownPlayers:
    """The known players as the steps of :func:`match_players` read them."""

    known: Known
    everyone: pl.DataFrame
    """Every player, a merged one with ``_target`` (whom it was merged into) and its fields."""
    live: pl.DataFrame
    """The players not merged into another."""
    holders: pl.DataFrame
    """_target, federation_id, name, country of each live player."""
    ids_held: pl.DataFrame
    """_candidate, id_scheme, value: the external ids each player holds."""
    schemes_held: pl.DataFrame
    """_candidate, id_scheme: the schemes each player holds an id of."""
    review_score: float


def known_players(known: Known | pl.DataFrame, review_score: float) -> KnownPlayers:
    """What the steps read of ``known`` (or of a frame of players alone)."""
    if isinstance(known, pl.DataFrame):
        base = empty_known()
        known = Known(
            with_optional(known, "name").select(base.players.columns),
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
    # A known player who holds another id of the row's scheme than the row gives is never the
    # row's player by its name: a different FIDE id or EGD PIN is a different person, however
    # alike the names (steps 3 and 5).
    ids_held = known.identifiers.join(
        everyone.select(pl.col("id").alias("player"), "_target"), on="player"
    ).select(pl.col("_target").alias("_candidate"), pl.col("scheme").alias("id_scheme"), "value")
    return KnownPlayers(
        known, everyone, live,
        live.select("_target", "federation_id", "name", "country").unique("_target"),
        ids_held, ids_held.select("_candidate", "id_scheme").unique(), review_score,
    )  # fmt: skip
