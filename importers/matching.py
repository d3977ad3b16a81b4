"""Finding the player each result row belongs to (SPEC 4.1, player matching).

A row with a ``player_id`` is that player (an unknown id creates the player). A row with only a
name matches a known player by name, compared case- and accent-insensitively, and by country
when the row gives one. No match creates a new player with a new id; several matches are an error
that asks for the id. Pure: the caller passes the known players in and writes the outcome.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from ratings.errors import Problem


@dataclass(frozen=True, slots=True)
class Matched:
    results: pl.DataFrame
    """The input rows plus ``federation_id`` (known or newly given) and ``player`` (the database
    id of a known player, null for a new one)."""
    new_players: pl.DataFrame
    """federation_id, name, name_key, country, club: players to create."""
    problems: tuple[Problem, ...]


def next_ids(known_ids: pl.Series, count: int) -> list[str]:
    """``count`` fresh numeric federation ids after the largest numeric one in use."""
    numeric = known_ids.filter(known_ids.str.contains(r"^\d{1,18}$")).cast(pl.Int64)
    start = int(numeric.max() or 0) + 1 if numeric.len() else 1  # type: ignore[arg-type]
    return [str(start + i) for i in range(count)]


def match_players(results: pl.DataFrame, known: pl.DataFrame) -> Matched:
    """Match ``results`` (columns source, line, player_id, name, name_key, country, club) to
    ``known``, every stored player (columns of ``ratings.storage.frames.KNOWN_SCHEMA``)."""
    known = known.with_columns(pl.coalesce(pl.col("merged_into"), pl.col("id")).alias("_target"))
    targets = known.select("id", pl.col("federation_id").alias("_target_federation_id"))
    known = known.join(targets, left_on="_target", right_on="id", how="left")
    rows = results.with_row_index("_row")
    by_id = rows.filter(pl.col("player_id").is_not_null())
    by_name = rows.filter(pl.col("player_id").is_null())

    id_matches = by_id.join(
        known.select("federation_id", "_target", "_target_federation_id"),
        left_on="player_id",
        right_on="federation_id",
        how="left",
    )
    problems = [
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

    live = known.filter(pl.col("merged_into").is_null())
    candidates = by_name.join(
        live.select(
            pl.col("name_key"),
            pl.col("country").alias("_known_country"),
            pl.col("id").alias("_candidate"),
            pl.col("federation_id").alias("_candidate_federation_id"),
        ),
        on="name_key",
        how="left",
    ).filter(
        pl.col("_candidate").is_null()
        | pl.col("country").is_null()
        | (pl.col("country") == pl.col("_known_country"))
    )
    counted = candidates.group_by("_row").agg(
        pl.col("_candidate").drop_nulls().alias("_candidates"),
        pl.col("_candidate_federation_id").drop_nulls().alias("_candidate_ids"),
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
        pl.when(single).then(pl.col("_candidates").list.first()).otherwise(None).alias("player"),
        pl.when(single)
        .then(pl.col("_candidate_ids").list.first())
        .otherwise(None)
        .alias("federation_id"),
    )

    unknown_named = by_name.filter(
        pl.col("player").is_null() & ~pl.col("_row").is_in(ambiguous["_row"].implode())
    )
    fresh = (
        unknown_named.group_by("name_key", "country", maintain_order=True)
        .agg(pl.col("name").first(), pl.col("club").first())
        .sort("name_key", "country", nulls_last=True)
    )
    fresh = fresh.with_columns(
        pl.Series(
            "federation_id",
            next_ids(pl.concat([known["federation_id"], by_id["player_id"]]), fresh.height),
            dtype=pl.String,
        )
    )
    by_name = by_name.join(
        fresh.select("name_key", "country", pl.col("federation_id").alias("_fresh_id")),
        on=["name_key", "country"],
        how="left",
        nulls_equal=True,
    ).with_columns(pl.coalesce("federation_id", "_fresh_id").alias("federation_id"))

    new_by_id = (
        id_matches.filter(pl.col("player").is_null() & pl.col("name").is_not_null())
        .group_by("player_id", maintain_order=True)
        .agg(
            pl.col("name").first(),
            pl.col("name_key").first(),
            pl.col("country").first(),
            pl.col("club").first(),
        )
        .rename({"player_id": "federation_id"})
    )
    columns = ["federation_id", "name", "name_key", "country", "club"]
    new_players = pl.concat([new_by_id.select(columns), fresh.select(columns)])
    keep = [*results.columns, "federation_id", "player"]
    matched = (
        pl.concat(
            [
                id_matches.select("_row", *keep),
                by_name.select("_row", *keep),
            ],
            how="vertical_relaxed",
        )
        .sort("_row")
        .drop("_row")
    )
    return Matched(matched, new_players, tuple(problems))
