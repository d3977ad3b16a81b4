"""The tournament calendar of a synthetic federation and who plays in each event.

Most events are regular club tournaments whose players come from one city, with a few guests from
elsewhere in the country; that locality is what leaves most pairs of tournaments without a common
player. National championships gather a country's strongest active players, the yearly
international championship the world's, and a few regular "international opens" mix a region's
countries.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import numpy as np
import polars as pl
from numpy.typing import NDArray

from benchmarks.names import COUNTRIES, INTERNATIONAL_CHAMPIONSHIP, INTERNATIONAL_OPENS
from benchmarks.population import DAYS_PER_YEAR, Population

REGULAR, NATIONAL, INTERNATIONAL = 0, 1, 2
"""Tier codes of the plan: positions in :data:`ratings.tiers.TIERS`."""
MIN_FIELD, MAX_FIELD = 6, 60
MIN_ROUNDS, MAX_ROUNDS = 5, 9
OPEN_SHARE = 0.03
"""Regular events that invite a whole region (or the world) rather than one city."""
NATIONALS_PER_EVENT = 0.1
"""National championships a country holds per year, per regular event it hosts in a year."""
CHUNK_EVENTS = 20_000
"""Events whose fields are drawn together; bounds the memory of the candidate arrays."""

# Where the players of an event come from, slot by slot: city, country, group, world.
_LOCAL_MIX = np.array([0.80, 0.17, 0.03, 0.0])
_OPEN_MIX = np.array([0.0, 0.15, 0.60, 0.25])


@dataclass(frozen=True)
class Events:
    """Tournaments in rating order (end day, start day), with their fields."""

    start: NDArray[np.int32]
    end: NDArray[np.int32]
    tier: NDArray[np.int8]
    rounds: NDArray[np.int8]
    name: pl.Series
    offsets: NDArray[np.int64]
    """Event ``i`` has players ``players[offsets[i]:offsets[i + 1]]``."""
    players: NDArray[np.int64]

    @property
    def size(self) -> NDArray[np.int64]:
        return np.diff(self.offsets)


@dataclass(frozen=True)
class _Plan:
    start: NDArray[np.int32]
    end: NDArray[np.int32]
    tier: NDArray[np.int8]
    city: NDArray[np.int32]
    """Host city (for championships: the host country's first city)."""
    want: NDArray[np.int32]
    """Field size the organiser hopes for."""
    is_open: NDArray[np.bool_]
    name: NDArray[np.object_]


def field_size_weights(mean: float, sigma: float = 0.45) -> NDArray[np.float64]:
    """Probabilities of field sizes 6..60: a log-normal shape whose mean is ``mean``."""
    if not MIN_FIELD < mean < MAX_FIELD:
        raise ValueError(
            f"mean field size must lie between {MIN_FIELD} and {MAX_FIELD}, not {mean}"
        )
    sizes = np.arange(MIN_FIELD, MAX_FIELD + 1, dtype=np.float64)

    def weights(mu: float) -> NDArray[np.float64]:
        w = np.exp(-((np.log(sizes) - mu) ** 2) / (2 * sigma**2)) / sizes
        result: NDArray[np.float64] = w / w.sum()
        return result

    lo, hi = 0.0, 6.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if float(weights(mid) @ sizes) < mean:
            lo = mid
        else:
            hi = mid
    return weights((lo + hi) / 2)


def build_events(
    pop: Population,
    tournaments: int,
    first_day: date,
    span_days: int,
    mean_field: float,
    rng: np.random.Generator,
) -> Events:
    """Plan ``tournaments`` events over ``span_days`` days from ``first_day`` and draw their fields."""
    plan = _plan(pop, tournaments, first_day, span_days, mean_field, rng)
    event_of, players = _fields(pop, plan, span_days, rng)
    size = np.bincount(event_of, minlength=plan.start.size)
    # Only a very small or very short history can leave an event without enough players.
    kept = size >= MIN_FIELD
    rounds = _rounds(plan.tier, size, rng)
    tiebreak = rng.permutation(plan.start.size)
    order = np.lexsort((tiebreak, plan.start, plan.end))
    order = order[kept[order]]
    rank = np.full(plan.start.size, -1, dtype=np.int64)
    rank[order] = np.arange(order.size)
    new_event = rank[event_of]
    rows = np.flatnonzero(new_event >= 0)
    rows = rows[np.argsort(new_event[rows], kind="stable")]
    return Events(
        start=plan.start[order],
        end=plan.end[order],
        tier=plan.tier[order],
        rounds=rounds[order],
        name=_unique(plan.name[order]),
        offsets=np.concatenate(([0], np.cumsum(size[order]))).astype(np.int64),
        players=players[rows],
    )


def _plan(
    pop: Population,
    tournaments: int,
    first_day: date,
    span_days: int,
    mean_field: float,
    rng: np.random.Generator,
) -> _Plan:
    per_year = tournaments / (span_days / DAYS_PER_YEAR)
    champ_day: list[int] = []
    champ_tier: list[int] = []
    champ_country: list[int] = []
    champ_name: list[str] = []
    last_day = date.fromordinal(first_day.toordinal() + span_days - 1)
    for year in range(first_day.year, last_day.year + 1):
        # Championships of a calendar year, finishing within the history (they last up to 5 days).
        lo = max(0, date(year, 1, 1).toordinal() - first_day.toordinal())
        hi = min(span_days, date(year + 1, 1, 1).toordinal() - first_day.toordinal()) - 5
        if hi <= lo:
            continue
        day = int(rng.integers(lo, hi))
        champ_day.append(day)
        champ_tier.append(INTERNATIONAL)
        champ_country.append(int(rng.integers(len(COUNTRIES))))
        champ_name.append(INTERNATIONAL_CHAMPIONSHIP.format(year=_year(first_day, day)))
        for ci, c in enumerate(COUNTRIES):
            held = min(len(c.championships), round(NATIONALS_PER_EVENT * per_year * c.weight))
            for title in c.championships[:held]:
                day = int(rng.integers(lo, hi))
                champ_day.append(day)
                champ_tier.append(NATIONAL)
                champ_country.append(ci)
                champ_name.append(f"{title} {_year(first_day, day)}")
    champs = np.arange(len(champ_day))
    if champs.size > tournaments // 4:
        # A tiny history keeps its international championships and a sample of the national ones.
        intl = champs[np.array(champ_tier, dtype=np.int64) == INTERNATIONAL]
        nat = champs[np.array(champ_tier, dtype=np.int64) == NATIONAL]
        room = max(0, tournaments // 4 - intl.size)
        champs = np.sort(np.concatenate((intl[: tournaments // 4], rng.permutation(nat)[:room])))
    c_tier = np.array(champ_tier, dtype=np.int8)[champs]
    c_start = np.array(champ_day, dtype=np.int32)[champs]
    c_country = np.array(champ_country, dtype=np.int64)[champs]
    intl = c_tier == INTERNATIONAL
    c_dur = np.where(intl, rng.integers(3, 6, champs.size), rng.integers(2, 4, champs.size))
    c_want = np.where(intl, rng.integers(40, 61, champs.size), rng.integers(12, 41, champs.size))

    regular = max(0, tournaments - champs.size)
    per_city = np.bincount(pop.city, minlength=len(pop.cities.name)).astype(np.float64)
    r_city = rng.choice(per_city.size, size=regular, p=per_city / per_city.sum())
    r_dur = rng.choice(np.array([1, 2, 3]), size=regular, p=[0.6, 0.3, 0.1])
    r_start = rng.integers(0, np.maximum(span_days - r_dur + 1, 1)).astype(np.int64)
    # Most club events are held at the weekend: a three-day event from Friday, others from
    # Saturday (Sunday for some one-day events), when that still fits in the history.
    weekday = (first_day.weekday() + r_start) % 7
    opening = np.where(r_dur == 3, 4, 5 + (r_dur == 1) * (rng.random(regular) < 0.3))
    moved = r_start + (opening - weekday) % 7
    weekend = (rng.random(regular) < 0.75) & (moved + r_dur <= span_days)
    r_start = np.where(weekend, moved, r_start)
    r_want = MIN_FIELD + rng.choice(
        MAX_FIELD - MIN_FIELD + 1, size=regular, p=field_size_weights(mean_field)
    )

    r_open = rng.random(regular) < OPEN_SHARE
    r_name = _regular_names(pop, first_day, r_city, r_start, r_open, rng)

    start = np.concatenate((c_start, r_start)).astype(np.int32)
    dur = np.concatenate((c_dur, r_dur))
    host_city = pop.cities.country_range[c_country, 0]
    return _Plan(
        start=start,
        end=(start + dur - 1).astype(np.int32),
        tier=np.concatenate((c_tier, np.zeros(regular, dtype=np.int8))),
        city=np.concatenate((host_city, r_city)).astype(np.int32),
        want=np.concatenate((c_want, r_want)).astype(np.int32),
        is_open=np.concatenate((np.zeros(champs.size, bool), r_open)),
        name=np.concatenate((np.array(champ_name, dtype=object)[champs], r_name)),
    )


def _year(first_day: date, day: int) -> int:
    return date.fromordinal(first_day.toordinal() + day).year


def _regular_names(
    pop: Population,
    first_day: date,
    city: NDArray[np.intp],
    start: NDArray[np.int64],
    is_open: NDArray[np.bool_],
    rng: np.random.Generator,
) -> NDArray[np.object_]:
    epoch = first_day.toordinal() - date(1970, 1, 1).toordinal()
    years = pl.Series(start + epoch, dtype=pl.Int32).cast(pl.Date).dt.year().to_numpy()
    country = pop.cities.country[city]
    pick = rng.random(city.size)
    names = np.empty(city.size, dtype=object)
    city_names = pop.cities.name
    for i in range(city.size):
        patterns = INTERNATIONAL_OPENS if is_open[i] else COUNTRIES[country[i]].events
        pattern = patterns[int(pick[i] * len(patterns))]
        names[i] = pattern.format(city=city_names[city[i]], year=years[i])
    return names


def _unique(names: NDArray[np.object_]) -> pl.Series:
    """Number repeated names, in calendar order: the second "Open Bern 2019" is "Open Bern 2019 (2)"."""
    frame = pl.DataFrame({"name": pl.Series(names.tolist(), dtype=pl.String)})
    seen = pl.int_range(pl.len()).over("name")
    return frame.select(
        pl.when(seen > 0)
        .then(pl.format("{} ({})", pl.col("name"), seen + 1))
        .otherwise(pl.col("name"))
        .alias("tournament")
    ).to_series()


def _rounds(
    tier: NDArray[np.int8], size: NDArray[np.int64], rng: np.random.Generator
) -> NDArray[np.int8]:
    """5–9 rounds: enough to separate the field, more at championships; never more than n − 1."""
    log_size = np.ceil(np.log2(np.maximum(size, 2)))
    regular = np.clip(log_size + rng.integers(0, 3, size.size), MIN_ROUNDS, MAX_ROUNDS)
    national = rng.integers(7, MAX_ROUNDS + 1, size.size)
    rounds = np.select([tier == NATIONAL, tier == INTERNATIONAL], [national, MAX_ROUNDS], regular)
    capped: NDArray[np.int8] = np.minimum(rounds, np.maximum(size - 1, 1)).astype(np.int8)
    return capped


class _Pool:
    """Players by (period, city), weighted by appetite, for drawing event fields in bulk.

    Rows are sorted by period then city number; since a country's and a group's cities are
    contiguous, any city, country, group or the whole world in one period is one run of rows, and a
    weighted draw is a binary search in the running total of the weights.
    """

    def __init__(self, pop: Population, span_days: int) -> None:
        self.period = max(60, span_days // 20)
        self.cities = len(pop.cities.name)
        last_day = max(span_days - 1, 0)
        first = np.clip(pop.entry, 0, last_day) // self.period
        last = np.clip(np.minimum(pop.exit, span_days) - 1, 0, last_day) // self.period
        playing = (pop.entry < span_days) & (pop.exit > np.maximum(pop.entry, 0))
        count = np.where(playing, last - first + 1, 0)
        player = np.repeat(np.arange(count.size, dtype=np.int32), count)
        within = np.arange(player.size) - np.repeat(np.cumsum(count) - count, count)
        key = (first[player] + within).astype(np.int64) * self.cities + pop.city[player]
        order = np.argsort(key, kind="stable")
        self.key = key[order]
        self.player = player[order]
        self.total = np.concatenate(([0.0], np.cumsum(pop.activity[self.player])))

    def draw(
        self,
        day: NDArray[np.int64],
        city_lo: NDArray[np.int64],
        city_hi: NDArray[np.int64],
        u: NDArray[np.float64],
    ) -> NDArray[np.int64]:
        """One player per entry from cities ``[city_lo, city_hi)`` in ``day``'s period; -1 if none."""
        base = (day // self.period) * self.cities
        lo = np.searchsorted(self.key, base + city_lo)
        hi = np.searchsorted(self.key, base + city_hi)
        x = self.total[lo] + u * (self.total[hi] - self.total[lo])
        row = np.clip(np.searchsorted(self.total, x, side="right") - 1, lo, np.maximum(hi - 1, lo))
        found = np.where(hi > lo, self.player[np.minimum(row, self.player.size - 1)], -1)
        return found.astype(np.int64)


def _scope(
    pop: Population, city: NDArray[np.int64], level: NDArray[np.int64]
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """City range of each candidate's level: 0 home city, 1 its country, 2 its group, 3 the world."""
    country = pop.cities.country[city]
    c_range = pop.cities.country_range[country]
    g_range = pop.cities.group_range[pop.cities.group_of_country[country]]
    lo = np.select([level == 0, level == 1, level == 2], [city, c_range[:, 0], g_range[:, 0]], 0)
    hi = np.select(
        [level == 0, level == 1, level == 2],
        [city + 1, c_range[:, 1], g_range[:, 1]],
        len(pop.cities.name),
    )
    return lo.astype(np.int64), hi.astype(np.int64)


def _keep(
    need: NDArray[np.int64],
    event: NDArray[np.int64],
    player: NDArray[np.int64],
    priority: NDArray[np.int64],
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Per event, drop repeated players and keep the ``need`` of lowest priority (< 2**20)."""
    # One integer sort key instead of lexsort: (event, player, priority), then (event, priority).
    key = ((event * (int(player.max(initial=0)) + 1) + player) << 20) | priority
    order = np.argsort(key, kind="stable")
    pair = key[order] >> 20
    first = np.ones(order.size, dtype=bool)
    first[1:] = pair[1:] != pair[:-1]
    order = order[first]
    order = order[np.argsort((event[order] << 20) | priority[order], kind="stable")]
    event, player = event[order], player[order]
    counts = np.bincount(event, minlength=need.size)
    rank = np.arange(event.size) - np.repeat(np.cumsum(counts) - counts, counts)
    kept = rank < need[event]
    return event[kept], player[kept]


def _fields(
    pop: Population, plan: _Plan, span_days: int, rng: np.random.Generator
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Every event's players as parallel arrays (event number in the plan, player number)."""
    pool = _Pool(pop, span_days)
    regular = np.flatnonzero(plan.tier == REGULAR)
    events: list[NDArray[np.int64]] = []
    players: list[NDArray[np.int64]] = []
    for lo in range(0, regular.size, CHUNK_EVENTS):
        chunk = regular[lo : lo + CHUNK_EVENTS]
        e, p = _regular_fields(pop, pool, plan, chunk, rng)
        events.append(chunk[e])
        players.append(p)
    for ev in np.flatnonzero(plan.tier != REGULAR):
        p = _championship_field(pop, plan, int(ev), rng)
        events.append(np.full(p.size, ev, dtype=np.int64))
        players.append(p)
    if not events:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return np.concatenate(events), np.concatenate(players)


def _regular_fields(
    pop: Population, pool: _Pool, plan: _Plan, chunk: NDArray[np.int64], rng: np.random.Generator
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    need = plan.want[chunk].astype(np.int64)
    day = plan.start[chunk].astype(np.int64)
    city = plan.city[chunk].astype(np.int64)
    got_event = np.zeros(0, dtype=np.int64)
    got_player = np.zeros(0, dtype=np.int64)
    # First the mixed draw; then whoever is still short widens the net: country, group, world.
    for level in (-1, 1, 2, 3):
        missing = need - np.bincount(got_event, minlength=chunk.size)
        short = np.flatnonzero(missing > 0)
        if short.size == 0:
            break
        tries = np.where(level < 0, 5 * need[short] // 2 + 4, 3 * missing[short] + 4)
        cand = np.repeat(short, tries)
        if level < 0:
            mix = np.where(plan.is_open[chunk[cand]][:, None], _OPEN_MIX, _LOCAL_MIX)
            lvl = (rng.random(cand.size)[:, None] > np.cumsum(mix, axis=1)).sum(axis=1)
        else:
            lvl = np.full(cand.size, level)
        c_lo, c_hi = _scope(pop, city[cand], np.minimum(lvl, 3).astype(np.int64))
        player = pool.draw(day[cand], c_lo, c_hi, rng.random(cand.size))
        safe = np.maximum(player, 0)
        ok = (player >= 0) & (pop.entry[safe] <= day[cand]) & (pop.exit[safe] > day[cand])
        cand, player = cand[ok], player[ok]
        # Players already in the field keep their place (priority 0 sorts first).
        fresh = rng.integers(1, 1 << 20, cand.size)
        priority = np.concatenate((np.zeros(got_event.size, dtype=np.int64), fresh))
        got_event, got_player = _keep(
            need, np.concatenate((got_event, cand)), np.concatenate((got_player, player)), priority
        )
    return got_event, got_player


def _championship_field(
    pop: Population, plan: _Plan, event: int, rng: np.random.Generator
) -> NDArray[np.int64]:
    """The strongest active players of the country (or world), with some who cannot come."""
    day = int(plan.start[event])
    if plan.tier[event] == INTERNATIONAL:
        eligible = np.flatnonzero((pop.entry <= day) & (pop.exit > day))
    else:
        country = pop.cities.country[plan.city[event]]
        lo, hi = pop.cities.country_range[country]
        eligible = np.flatnonzero(
            (pop.entry <= day) & (pop.exit > day) & (pop.city >= lo) & (pop.city < hi)
        )
    days = np.full(eligible.size, day, dtype=np.int32)
    # Gumbel top-k: a weighted draw without replacement in one vectorised step.
    key = (
        pop.strength(eligible, days) / 100.0
        + 0.5 * np.log(pop.activity[eligible])
        + rng.gumbel(size=eligible.size)
    )
    take = min(int(plan.want[event]), eligible.size)
    return eligible[np.argsort(-key, kind="stable")[:take]].astype(np.int64)
