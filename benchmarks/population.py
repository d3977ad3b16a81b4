"""The players of a synthetic federation: who they are, how strong, and when they play.

Days are counted from the first day of the history (day 0) so that every array stays integer and
vectorised; dates are made only when the final tables are built.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl
from numpy.typing import NDArray

from benchmarks.names import COUNTRIES

DAYS_PER_YEAR = 365.25
FEMALE_SHARE = 0.12
CLUB_SHARE = 0.8
"""Players who belong to a club; the others play as individuals."""
FOUNDER_SHARE = 0.35
"""Players already active when the history starts."""
MEAN_CAREER_YEARS = 5.0
MAX_ACTIVITY = 12.0
"""Upper bound of a player's appetite for tournaments, relative to the median player."""
IMPROVEMENT_YEARS = 6.0
"""A player's drift stops after this many years of play: strength settles."""


@dataclass(frozen=True)
class Cities:
    """Every city of the world, numbered so that each country's and each group's are contiguous.

    A tournament then draws from a city, a country or a group of countries as one range of city
    numbers, which is what lets a single sorted table of players serve all three.
    """

    name: list[str]
    country: NDArray[np.int16]
    """Index into ``COUNTRIES``."""
    country_range: NDArray[np.int32]
    """``(countries, 2)``: first city number and one past the last."""
    group_range: NDArray[np.int32]
    """``(groups, 2)``: the same for each group of countries."""
    group_of_country: NDArray[np.int16]


@dataclass(frozen=True)
class Population:
    """Hidden and public facts about every player; arrays are indexed by player number."""

    cities: Cities
    names: pl.Series
    club: pl.Series
    """Club name or null."""
    city: NDArray[np.int32]
    base: NDArray[np.float64]
    """Hidden strength (rating points) on entry."""
    slope: NDArray[np.float64]
    """Drift in points per year, for the first ``IMPROVEMENT_YEARS`` of play."""
    entry: NDArray[np.int32]
    """First day the player may play (day 0 for players who were already active)."""
    exit: NDArray[np.int32]
    """Day the player stops playing (may lie after the end of the history)."""
    activity: NDArray[np.float64]
    """Relative appetite for tournaments."""
    title_day: NDArray[np.int32]
    """Day the GM title was awarded (negative: before the history), ``NO_TITLE`` for none."""

    @property
    def country(self) -> NDArray[np.int16]:
        return self.cities.country[self.city]

    def strength(
        self, player: NDArray[np.integer[Any]], day: NDArray[np.integer[Any]]
    ) -> NDArray[np.float64]:
        """Hidden strength of each player on the given day."""
        years = np.clip((day - self.entry[player]) / DAYS_PER_YEAR, 0.0, IMPROVEMENT_YEARS)
        result: NDArray[np.float64] = self.base[player] + self.slope[player] * years
        return result


NO_TITLE = np.iinfo(np.int32).max


def grandmaster_count(players: int) -> int:
    """The few hundred strongest players hold the title; fewer in a small federation."""
    return min(300, max(3, round(0.3 * math.sqrt(players))))


def build_cities() -> Cities:
    groups = list(dict.fromkeys(c.group for c in COUNTRIES))
    order = sorted(range(len(COUNTRIES)), key=lambda i: groups.index(COUNTRIES[i].group))
    name: list[str] = []
    country: list[int] = []
    country_range = np.zeros((len(COUNTRIES), 2), dtype=np.int32)
    group_range = np.zeros((len(groups), 2), dtype=np.int32)
    for ci in order:
        c = COUNTRIES[ci]
        gi = groups.index(c.group)
        if group_range[gi, 1] == 0:
            group_range[gi, 0] = len(name)
        country_range[ci, 0] = len(name)
        name.extend(c.cities)
        country.extend([ci] * len(c.cities))
        country_range[ci, 1] = group_range[gi, 1] = len(name)
    return Cities(
        name=name,
        country=np.array(country, dtype=np.int16),
        country_range=country_range,
        group_range=group_range,
        group_of_country=np.array([groups.index(c.group) for c in COUNTRIES], dtype=np.int16),
    )


def build_population(players: int, span_days: int, rng: np.random.Generator) -> Population:
    """Draw ``players`` players over a history of ``span_days`` days."""
    cities = build_cities()
    weights = np.array([c.weight for c in COUNTRIES])
    country = rng.choice(len(COUNTRIES), size=players, p=weights / weights.sum())
    city = np.empty(players, dtype=np.int32)
    for ci in range(len(COUNTRIES)):
        members = np.flatnonzero(country == ci)
        lo, hi = (int(v) for v in cities.country_range[ci])
        # Bigger cities (listed first) have more players, roughly Zipf-like.
        size = 1.0 / np.arange(1, hi - lo + 1) ** 0.8
        city[members] = lo + rng.choice(hi - lo, size=members.size, p=size / size.sum())

    founder = rng.random(players) < FOUNDER_SHARE
    entry = np.where(founder, 0, rng.integers(0, max(span_days, 1), size=players)).astype(np.int32)
    career = 60 + rng.exponential(MEAN_CAREER_YEARS * DAYS_PER_YEAR, size=players)
    exit_day = np.minimum(entry + career, np.iinfo(np.int32).max // 2).astype(np.int32)
    # Newcomers start weaker and improve; players already established drift little.
    base = np.where(founder, rng.normal(1500, 230, players), rng.normal(1350, 220, players))
    slope = np.where(founder, rng.normal(0, 20, players), rng.normal(15, 35, players))
    # Capped so that even the keenest players of a big city stay at a few dozen events a year.
    activity = np.minimum(rng.lognormal(0.0, 0.8, size=players), MAX_ACTIVITY)

    title_day = _titles(base, slope, entry, exit_day, founder, span_days, rng)
    names = _names(country, rng)
    club = _clubs(cities, city, rng)
    return Population(
        cities=cities,
        names=names,
        club=club,
        city=city,
        base=base,
        slope=slope,
        entry=entry,
        exit=exit_day,
        activity=activity,
        title_day=title_day,
    )


def _titles(
    base: NDArray[np.float64],
    slope: NDArray[np.float64],
    entry: NDArray[np.int32],
    exit_day: NDArray[np.int32],
    founder: NDArray[np.bool_],
    span_days: int,
    rng: np.random.Generator,
) -> NDArray[np.int32]:
    players = base.size
    last = np.minimum(exit_day, span_days)
    years = np.clip((last - entry) / DAYS_PER_YEAR, 0.0, IMPROVEMENT_YEARS)
    peak = base + np.maximum(slope, 0.0) * years
    # Only players with a real career within the history can earn the title in it.
    peak[(last - entry) < DAYS_PER_YEAR / 2] = -np.inf
    count = min(grandmaster_count(players), int(np.isfinite(peak).sum()))
    title_day = np.full(players, NO_TITLE, dtype=np.int32)
    if count == 0:
        return title_day
    gm = np.argsort(-peak, kind="stable")[:count]
    earned = entry[gm] + rng.uniform(0.1, 0.7, gm.size) * (last[gm] - entry[gm])
    before = founder[gm] & (rng.random(gm.size) < 0.5)
    title_day[gm] = np.where(before, -rng.integers(30, 8 * 365, gm.size), earned).astype(np.int32)
    return title_day


def _names(country: NDArray[np.intp], rng: np.random.Generator) -> pl.Series:
    """Names drawn so that, where the lists allow it, no two players of a country share one."""
    first_parts: list[pl.Series] = []
    rest_parts: list[pl.Series] = []
    positions: list[NDArray[np.intp]] = []
    female = rng.random(country.size) < FEMALE_SHARE
    for ci, c in enumerate(COUNTRIES):
        for is_female in (False, True):
            members = np.flatnonzero((country == ci) & (female == is_female))
            if members.size == 0:
                continue
            firsts = c.female if is_female else c.male
            surnames = c.female_surnames if (is_female and c.female_surnames) else c.surnames
            per_first = len(surnames) ** (2 if c.double_surname else 1)
            combos = len(firsts) * per_first
            pick = rng.choice(combos, size=members.size, replace=members.size > combos)
            first_idx, rest = np.divmod(pick, per_first)
            surname_table = pl.Series(surnames, dtype=pl.String)
            if c.double_surname:
                s1, s2 = np.divmod(rest, len(surnames))
                family = (surname_table.gather(s1) + " " + surname_table.gather(s2)).alias("s")
            else:
                family = surname_table.gather(rest)
            first_parts.append(pl.Series(firsts, dtype=pl.String).gather(first_idx))
            rest_parts.append(family)
            positions.append(members)
    full = pl.concat(first_parts) + " " + pl.concat(rest_parts)
    where = np.concatenate(positions)
    return full.gather(np.argsort(where, kind="stable")).alias("name")


def _clubs(cities: Cities, city: NDArray[np.int32], rng: np.random.Generator) -> pl.Series:
    club_names: list[str] = []
    first_club = np.zeros(len(cities.name) + 1, dtype=np.int32)
    for ci, cname in enumerate(cities.name):
        first_club[ci] = len(club_names)
        patterns = COUNTRIES[int(cities.country[ci])].clubs
        count = 1 + int(rng.random() < 0.5) if len(patterns) > 1 else 1
        club_names.extend(p.format(city=cname) for p in patterns[:count])
    first_club[-1] = len(club_names)
    per_city = first_club[1:] - first_club[:-1]
    choice = first_club[city] + (rng.random(city.size) * per_city[city]).astype(np.int32)
    has_club = rng.random(city.size) < CLUB_SHARE
    table = pl.Series(club_names, dtype=pl.String)
    return table.gather(choice).scatter(np.flatnonzero(~has_club), None).alias("club")
