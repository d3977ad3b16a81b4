"""Swiss seed list and round-1 pairing (SPEC 7, Swiss).

Participants are seeded by exact rating, then title (GM first), then name; round 1 pairs the top half
of the seeds against the bottom half in order. Participants who asked for a round-1 bye keep their
seed number but are not paired. With ``unrated="last"`` participants without a rating come after
every rated one, by title then name, their rating and class left empty.
"""

from __future__ import annotations

import polars as pl

from exporters.seeding import SeedingOptions, check_seed_list, ordered, pair_groups

SEED_COLUMNS = (
    "seed", "player_id", "name", "country", "title", "rating", "rating_exact", "class", "bye",
)  # fmt: skip
"""``rating`` is the published whole number, ``rating_exact`` the exact value with 10 decimals;
a newcomer has no player_id."""


def swiss_seed_list(matched: pl.DataFrame, options: SeedingOptions | None = None) -> pl.DataFrame:
    """The seed list of a Swiss event from :func:`~exporters.seeding.match_participants`' frame."""
    options = options or SeedingOptions()
    if options.unrated == "last":
        rows = ordered(matched, options, pl.col("unrated"))
        hidden = pl.col("unrated")
        rows = rows.with_columns(
            *(
                pl.when(hidden).then(None).otherwise(pl.col(c)).alias(c)
                for c in ("rating_shown", "rating_exact", "class")
            )
        )
    else:
        rows = ordered(matched, options)
    return rows.with_columns(pl.col("rating_shown").alias("rating")).select(SEED_COLUMNS)


def swiss_pairings(seed_list: pl.DataFrame, options: SeedingOptions | None = None) -> pl.DataFrame:
    """Round 1 of a Swiss event: seed 1 against the first seed of the bottom half, and so on; the
    last seed gets the bye when an odd number is to be paired. Columns of
    :data:`~exporters.seeding.PAIRING_COLUMNS`."""
    options = options or SeedingOptions()
    check_seed_list(seed_list, ("seed", "player_id", "name", "bye"))
    rows = seed_list.sort("seed")
    playing = rows.filter(~pl.col("bye")).to_dicts()
    requested = rows.filter(pl.col("bye")).to_dicts()
    return pair_groups([playing] if playing else [], requested, options)
