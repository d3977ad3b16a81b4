"""Synthetic federation histories for benchmarks, demos and tests.

A history is a few years of a federation's life: players with hidden strengths who join, improve
and leave; clubs that hold weekend Swiss tournaments, mostly among their own city's players; national
championships and one international championship a year. Every event is paired round by round and
played out from the hidden strengths (``benchmarks.swiss``), and only what a federation stores is
kept: per player and tournament the wins, draws, losses and Buchholz (SPEC 4.1), plus the player
registry (SPEC 4.2). The same arguments and seed always give the same tables.

Buchholz convention: the sum of the final Swiss points of the opponents actually met; a bye is a
point for the player but neither a game nor an opponent, so it adds nothing to anyone's Buchholz.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import numpy as np
import polars as pl
from numpy.typing import NDArray

from benchmarks.events import Events, build_events
from benchmarks.names import COUNTRIES
from benchmarks.population import DAYS_PER_YEAR, NO_TITLE, Population, build_population
from benchmarks.swiss import play_swiss
from ratings.tiers import TIERS

GENERATOR_VERSION = 2
"""Part of the cache file names: bump it whenever the same seed would give different tables."""
FORM_SPREAD = 35.0
"""Day-to-day form around a player's hidden strength, in rating points."""
SEED_SPREAD = 50.0
"""How far the organiser's seeding list is from the hidden strengths."""
MIN_BATCH_EVENTS = 1_500
"""Events of neighbouring sizes are merged into one Swiss batch until it has this many."""
SLOTS_PER_BATCH = 1 << 22
"""Events × players × rounds per Swiss batch; bounds its memory."""

RESULT_SCHEMA: dict[str, pl.DataType] = {
    "tournament": pl.String(),
    "tournament_id": pl.String(),
    "start_date": pl.Date(),
    "end_date": pl.Date(),
    "tier": pl.String(),
    "player_id": pl.String(),
    "name": pl.String(),
    "country": pl.String(),
    "club": pl.String(),
    "title": pl.String(),
    "wins": pl.Int64(),
    "draws": pl.Int64(),
    "losses": pl.Int64(),
    "buchholz": pl.Float64(),
}
REGISTRY_SCHEMA: dict[str, pl.DataType] = {
    "player_id": pl.String(),
    "name": pl.String(),
    "country": pl.String(),
    "club": pl.String(),
    "title": pl.String(),
    "title_date": pl.Date(),
}


@dataclass(frozen=True)
class Size:
    """A named benchmark size."""

    name: str
    players: int
    tournaments: int
    mean_field: float = 22.0
    """Mean players per tournament, chosen so the sizes give their advertised result counts."""


SIZES: dict[str, Size] = {
    s.name: s
    for s in (
        Size("S", players=2_000, tournaments=1_000, mean_field=20.0),
        Size("M", players=50_000, tournaments=45_000, mean_field=22.0),
        # M's federation with the smaller fields of weekend events, as a CSV history the size of
        # the issue "speed a person feels" measured (about 810,000 results; this seed: 814,845).
        Size("M18", players=50_000, tournaments=45_000, mean_field=18.0),
        Size("L", players=1_000_000, tournaments=400_000, mean_field=25.0),
    )
}
"""S ≈ 20 thousand results, M ≈ 1 million (M18 ≈ 815 thousand), L ≈ 10 million."""


@dataclass(frozen=True)
class History:
    """Results in the long import format and the player registry."""

    results: pl.DataFrame
    registry: pl.DataFrame


def generate_history(
    players: int,
    tournaments: int,
    *,
    seed: int = 0,
    start: date = date(2015, 1, 1),
    years: float = 10.0,
    mean_field: float = 22.0,
) -> History:
    """Generate ``tournaments`` rated events among ``players`` players over ``years`` from ``start``.

    ``mean_field`` is the mean field size hoped for (6–60 players); small federations may fall a
    little short of it. Players who never play still appear in the registry.
    """
    if players < 6:
        raise ValueError(f"players must be at least 6 to fill a tournament, not {players}")
    if tournaments < 1:
        raise ValueError(f"tournaments must be at least 1, not {tournaments}")
    if not years > 0:
        raise ValueError(f"years must be positive, not {years}")
    span_days = max(7, round(years * DAYS_PER_YEAR))
    rng_pop, rng_events, rng_games = (
        np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(3)
    )
    pop = build_population(players, span_days, rng_pop)
    events = build_events(pop, tournaments, start, span_days, mean_field, rng_events)
    return _tables(pop, events, start, _play(pop, events, rng_games))


@dataclass(frozen=True)
class _Played:
    """Per field row (events in order, players by seed): the player and their result."""

    player: NDArray[np.int64]
    seed: NDArray[np.int64]
    wins: NDArray[np.int16]
    draws: NDArray[np.int16]
    losses: NDArray[np.int16]
    score: NDArray[np.int16]
    buchholz: NDArray[np.int16]
    """Half-points."""


def _play(pop: Population, events: Events, rng: np.random.Generator) -> _Played:
    size = events.size
    event_of = np.repeat(np.arange(size.size), size)
    day = events.start[event_of]
    hidden = pop.strength(events.players, day) + rng.normal(0.0, FORM_SPREAD, event_of.size)
    seeding = hidden + rng.normal(0.0, SEED_SPREAD, event_of.size)
    order = np.lexsort((-seeding, event_of))
    player = events.players[order].astype(np.int64)
    hidden = hidden[order]
    rows = event_of.size
    wins, draws, losses, score, buchholz = (np.zeros(rows, dtype=np.int16) for _ in range(5))

    for rounds, group, n in _batches(size, events.rounds):
        seats = size[group]
        idx = events.offsets[group][:, None] + np.arange(n)
        present = np.arange(n) < seats[:, None]
        strength = np.where(present, hidden[np.minimum(idx, rows - 1)], 0.0)
        # Strong fields draw more often, as in the real game where best play is a draw.
        mean = strength.sum(axis=1) / seats
        share = np.clip(0.30 + 0.25 * (mean - 1450.0) / 400.0, 0.1, 0.5)
        batch = play_swiss(strength, rounds, rng, share, seats)
        at = idx[present]
        wins[at] = batch.wins[present]
        draws[at] = batch.draws[present]
        losses[at] = batch.losses[present]
        score[at] = batch.score[present]
        buchholz[at] = batch.buchholz[present]
    seed = np.arange(rows) - np.repeat(events.offsets[:-1], size)
    return _Played(player, seed, wins, draws, losses, score, buchholz)


def _batches(
    size: NDArray[np.int64], rounds: NDArray[np.int8]
) -> list[tuple[int, NDArray[np.int64], int]]:
    """Events grouped for ``play_swiss``: (rounds, event numbers, seats per event).

    Events of one length share a batch; neighbouring field sizes are merged (the smaller events
    get empty seats) until a batch is big enough that numpy's per-call overhead stops mattering,
    and a batch is cut when its arrays would grow past ``SLOTS_PER_BATCH``.
    """
    out: list[tuple[int, NDArray[np.int64], int]] = []
    for r in np.unique(rounds):
        same = np.flatnonzero(rounds == r)
        same = same[np.argsort(size[same], kind="stable")]
        sizes = size[same]
        lo = 0
        while lo < same.size:
            hi = lo
            while hi < same.size and (hi - lo < MIN_BATCH_EVENTS or sizes[hi] == sizes[hi - 1]):
                hi += 1
            n = int(sizes[hi - 1])
            step = max(1, SLOTS_PER_BATCH // (n * int(r)))
            out.extend((int(r), same[cut : min(cut + step, hi)], n) for cut in range(lo, hi, step))
            lo = hi
    return out


def _dates(first: date, days: NDArray[np.int32] | NDArray[np.int64]) -> pl.Series:
    epoch = first.toordinal() - date(1970, 1, 1).toordinal()
    return pl.Series(np.asarray(days, dtype=np.int64) + epoch).cast(pl.Int32).cast(pl.Date)


def _tables(pop: Population, events: Events, start: date, played: _Played) -> History:
    n_players = pop.base.size
    player_id = pl.format("P{}", pl.int_range(1, n_players + 1).cast(pl.String).str.zfill(7))
    country_codes = pl.Series([c.code for c in COUNTRIES], dtype=pl.String)
    has_title = pop.title_day != NO_TITLE
    title_date = (
        _dates(start, np.where(has_title, pop.title_day, 0))
        .dt.truncate("1mo")
        .scatter(np.flatnonzero(~has_title), None)
    )
    registry = pl.DataFrame(
        {
            "name": pop.names,
            "country": country_codes.gather(pop.country),
            "club": pop.club,
            "title_date": title_date,
        }
    ).select(
        player_id.alias("player_id"),
        "name",
        "country",
        "club",
        pl.when(pl.col("title_date").is_not_null()).then(pl.lit("GM")).alias("title"),
        "title_date",
    )

    size = events.size
    event_of = np.repeat(np.arange(size.size, dtype=np.int64), size)
    # Standings order inside each event: score, then Buchholz, then seed.
    key = (event_of << 24) | ((255 - played.score.astype(np.int64)) << 16)
    key |= (np.int64(255) - played.buchholz) << 8
    key |= played.seed
    order = np.argsort(key, kind="stable")
    event_of = event_of[order]
    player = played.player[order]

    tournament_id = pl.select(
        pl.format("T{}", pl.int_range(1, size.size + 1).cast(pl.String).str.zfill(7))
    ).to_series()
    start_date = _dates(start, events.start)
    end_date = _dates(start, events.end)
    tiers = pl.Series(TIERS, dtype=pl.String)
    people = registry.select("name", "country", "club", "title_date", "player_id")
    results = pl.DataFrame(
        {
            "tournament": events.name.gather(event_of),
            "tournament_id": tournament_id.gather(event_of),
            "start_date": start_date.gather(event_of),
            "end_date": end_date.gather(event_of),
            "tier": tiers.gather(events.tier.astype(np.int64)).gather(event_of),
            "player_id": people["player_id"].gather(player),
            "name": people["name"].gather(player),
            "country": people["country"].gather(player),
            "club": people["club"].gather(player),
            "title_date": people["title_date"].gather(player),
            "wins": played.wins[order].astype(np.int64),
            "draws": played.draws[order].astype(np.int64),
            "losses": played.losses[order].astype(np.int64),
            "buchholz": played.buchholz[order] / 2.0,
        }
    )
    results = results.with_columns(
        pl.when(pl.col("title_date") <= pl.col("end_date")).then(pl.lit("GM")).alias("title")
    ).select(list(RESULT_SCHEMA))
    return History(results=results, registry=registry.select(list(REGISTRY_SCHEMA)))


def load_or_generate(
    size_name: str, cache_dir: Path = Path("benchmarks/.cache"), *, seed: int = 0
) -> History:
    """The history of a named size, from the Parquet cache when it was generated before."""
    try:
        size = SIZES[size_name]
    except KeyError:
        raise ValueError(f"size must be one of {', '.join(SIZES)}, not {size_name!r}") from None
    stem = f"{size.name}-seed{seed}-v{GENERATOR_VERSION}"
    results_path = cache_dir / f"{stem}-results.parquet"
    registry_path = cache_dir / f"{stem}-registry.parquet"
    if results_path.exists() and registry_path.exists():
        return History(pl.read_parquet(results_path), pl.read_parquet(registry_path))
    history = generate_history(
        size.players, size.tournaments, seed=seed, mean_field=size.mean_field
    )
    cache_dir.mkdir(parents=True, exist_ok=True)
    for frame, path in ((history.results, results_path), (history.registry, registry_path)):
        # Write beside the target and rename, so an interrupted run never leaves half a cache.
        partial = path.with_suffix(f".{os.getpid()}.partial")
        frame.write_parquet(partial)
        partial.replace(path)
    return history
