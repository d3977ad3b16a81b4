"""The known players whose names are close to a name (SPEC 4.1, player matching): the import
asks about a new player when a known one is close, a dry run shows the closest, and
``players search`` finds its names so."""

from __future__ import annotations

from typing import Any

import polars as pl

from ratings.errors import Candidate
from ratings.names import (
    BLOCK_PREFIX,
    LOST_LETTER,
    block_keys,
    similarities,
    word_patterns,
    word_range,
)

DISPLAY_SCORE = 60.0
"""Closest players shown with a new player on a dry run, from this score up."""


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


def candidates_by(
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
