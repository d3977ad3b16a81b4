"""How well the list predicts: the per-game expectation beside MELO's, the walk-forward error of
the rated results, calibration, a k-factor sweep and the seed's own claims, measured on a rated
history. Pure: arrays in, figures out; the history is re-rated in memory by the formula's kernel
(:func:`ratings.formula.rate_sequence`) and nothing is written.

Definitions (the README's section "How good is the list" gives them with the formulas):

- a *counted result* is a rated result with N = wins + draws + losses >= 1 whose tournament
  ended within the evaluation's dates; P = wins + draws / 2, E the stored expected score (the
  audit row), both in points;
- the per-game expectation of a game is ``e = 1 / (1 + 10 ** ((R_opp - R) / 400))`` with both
  players' ratings before the event, and a result's ``expected_by_games`` is the sum of ``e``
  over its games;
- ``score_mse = sum((P - E) ** 2 / N) / sum(N)`` over the counted results.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any

import numpy as np
import numpy.typing as npt

from ratings.formula import RATING_SCALE, MeloParams, rate_sequence

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]

RATED_TIERS: tuple[str, ...] = ("regular", "grandmaster", "national", "international")
"""The tiers as rated, by their code (the index): a regular event in which a grandmaster played
a game is rated, and counted, as ``grandmaster``."""
K_FIELDS: tuple[str, ...] = ("k_regular", "k_grandmaster", "k_national", "k_international")
"""The parameter holding each rated tier's k."""
CLAIMS: tuple[tuple[int, float], ...] = ((190, 0.75), (382, 0.9))
"""The seed's calibration (section 2, point 9): a lead of 190 points expects 3 of 4 points, of
382 points 9 of 10."""
BAND = 25
"""Half the width, in rating points, of the band of differences around each claimed one."""
PAIR_GAMES = 20
"""How many games against each other make a pair of the "1000 games problem" (by default)."""
BINS = 10
"""Calibration bins of E/N: tenths."""


def game_expectation(rating: I64, opponent: I64, scale: float = 400.0) -> F64:
    """Per-game expected score ``1 / (1 + 10 ** ((R_opp - R) / scale))`` of exact ratings (1e-10
    points): the Elo expectation of each single game, both ratings as before the event."""
    difference = (np.asarray(opponent, dtype=np.int64) - np.asarray(rating, dtype=np.int64)) / (
        RATING_SCALE * scale
    )
    return 1.0 / (1.0 + np.power(10.0, difference))


def default_grid(k: int) -> list[int]:
    """Today's ``k`` and eight more around it, from half to twice it on a geometric scale
    (rounded outwards to whole numbers, so the ends are at most ``k // 2`` and at least
    ``2 * k``; fewer when small values coincide)."""
    values = {math.floor(k * 2 ** (i / 4)) for i in range(-4, 1)}
    values |= {math.ceil(k * 2 ** (i / 4)) for i in range(0, 5)}
    return sorted(values)


@dataclass(frozen=True, slots=True)
class History:
    """A rated history in rating order, as the kernel takes it, with what was stored of it.

    Tournament ``t`` owns results ``offsets[t]:offsets[t + 1]``; games are rows, one per player
    and game (each game twice), naming the result of the player and of the opponent."""

    end_dates: Sequence[date]
    tier: I64
    """Each tournament's tier as rated (an index of :data:`RATED_TIERS`)."""
    k: I64
    """Each tournament's k as stored."""
    offsets: I64
    player: I64
    """Each result's player, numbered densely from 0."""
    player_ids: I64
    """The database id of each dense player number."""
    wins: I64
    draws: I64
    losses: I64
    buchholz: I64
    before: I64
    after: I64
    expected: I64
    game_result: I64 = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    game_opponent: I64 = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    game_score_x2: I64 = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    @property
    def tournament_of(self) -> I64:
        return np.repeat(np.arange(len(self.k), dtype=np.int64), np.diff(self.offsets))


@dataclass(frozen=True, slots=True)
class Evaluation:
    """The figures (JSON-ready: numbers, texts, lists, dictionaries) and the points of the chart
    of MELO's change against the per-game change."""

    figures: dict[str, Any]
    change: F64
    change_by_games: F64


def by_games(history: History) -> tuple[F64, npt.NDArray[np.bool_], F64]:
    """Per result: ``expected_by_games`` (the sum of the per-game expectation over its games),
    whether it has games, and each game row's expectation."""
    count = len(history.player)
    e = game_expectation(history.before[history.game_result], history.before[history.game_opponent])
    expected: F64 = np.bincount(history.game_result, weights=e, minlength=count).astype(np.float64)
    has_games = np.bincount(history.game_result, minlength=count) > 0
    return expected, has_games, e


def evaluate(
    history: History,
    params: MeloParams,
    *,
    date_from: date | None = None,
    date_to: date | None = None,
    grid: Mapping[str, Sequence[int]] | None = None,
    pair_games: int = PAIR_GAMES,
    threads: int | None = None,
) -> Evaluation:
    """Every figure of ``ratings evaluate`` for the results of tournaments ending from
    ``date_from`` to ``date_to`` (both included; None: open), judged from the ratings before
    each event; ``grid`` (a tier's name to its k values, today's added) sweeps only the tiers it
    names, instead of every tier with results over :func:`default_grid`."""
    t_of = history.tournament_of
    ends = np.array(history.end_dates, dtype="datetime64[D]")
    in_dates = np.ones(len(history.k), dtype=np.bool_)
    if date_from is not None:
        in_dates &= ends >= np.datetime64(date_from, "D")
    if date_to is not None:
        in_dates &= ends <= np.datetime64(date_to, "D")
    n = history.wins + history.draws + history.losses
    counted = in_dates[t_of] & (n > 0)
    points = history.wins + 0.5 * history.draws
    expected = history.expected / RATING_SCALE
    tiers = history.tier[t_of]

    figures: dict[str, Any] = {
        "from": None if date_from is None else date_from.isoformat(),
        "to": None if date_to is None else date_to.isoformat(),
        "results": int(counted.sum()),
        "games": int(n[counted].sum()),
        "score_mse": _score_mse(points, expected, n, counted),
        "calibration": _calibration(points, expected, n, counted),
    }
    present = [code for code in range(len(RATED_TIERS)) if (counted & (tiers == code)).any()]
    figures["by_tier"] = {
        RATED_TIERS[code]: {
            "results": int((counted & (tiers == code)).sum()),
            "games": int(n[counted & (tiers == code)].sum()),
            "score_mse": _score_mse(points, expected, n, counted & (tiers == code)),
        }
        for code in present
    }

    ebg, has_games, e = by_games(history)
    game_in = in_dates[t_of[history.game_result]]
    s = history.game_score_x2 / 2.0
    rows = int(game_in.sum())
    figures["game_brier"] = float(np.mean((s[game_in] - e[game_in]) ** 2)) if rows else None
    figures["game_count"] = rows // 2
    shown = counted & has_games
    k_result = history.k[t_of].astype(np.float64)
    change = (history.after[shown] - history.before[shown]) / RATING_SCALE
    change_by_games = k_result[shown] * (points[shown] - ebg[shown])
    figures["change_by_games"] = {
        "results": int(shown.sum()),
        "mean_absolute_difference": (
            float(np.mean(np.abs(change - change_by_games))) if shown.any() else None
        ),
    }

    sweep, suggested = _sweep(history, params, present, grid, points, n, counted, threads)
    figures["parameters"] = {
        "k": {
            tier: getattr(params, name) for tier, name in zip(RATED_TIERS, K_FIELDS, strict=True)
        },
        "initial_rating": params.initial_rating / RATING_SCALE,
        "scale": params.scale,
        "rated_with_other_k": bool((history.k != _k_of(params)[history.tier]).any()),
    }
    figures["k_sweep"] = sweep
    figures["suggested_k"] = suggested
    figures["claims"] = {
        "pool_mean": _pool_mean(history, params, in_dates),
        "score_at_difference": _at_differences(
            history, params, counted, has_games, e, s, game_in, points, expected, n
        ),
        "thousand_games": _pairs(history, game_in, e, s, counted, pair_games),
    }
    return Evaluation(figures, change, change_by_games)


def _score_mse(points: F64, expected: F64, n: I64, mask: npt.NDArray[np.bool_]) -> float | None:
    games = int(n[mask].sum())
    if games == 0:
        return None
    return float(np.sum((points[mask] - expected[mask]) ** 2 / n[mask]) / games)


def _calibration(
    points: F64, expected: F64, n: I64, counted: npt.NDArray[np.bool_]
) -> list[dict[str, Any]]:
    """Bins [0, 0.1), [0.1, 0.2), ..., [0.9, 1.0] of E/N: games, and the N-weighted means of E/N
    and P/N (null for a bin without games)."""
    ratio = expected[counted] / n[counted]
    edges = np.arange(1, BINS) / BINS
    where = np.searchsorted(edges, ratio, side="right")
    games = np.bincount(where, weights=n[counted], minlength=BINS)
    e_sum = np.bincount(where, weights=expected[counted], minlength=BINS)
    p_sum = np.bincount(where, weights=points[counted], minlength=BINS)
    return [
        {
            "low": i / BINS,
            "high": (i + 1) / BINS,
            "games": int(games[i]),
            "expected": float(e_sum[i] / games[i]) if games[i] else None,
            "actual": float(p_sum[i] / games[i]) if games[i] else None,
        }
        for i in range(BINS)
    ]


def _k_of(params: MeloParams) -> I64:
    return np.array([getattr(params, name) for name in K_FIELDS], dtype=np.int64)


def _sweep(
    history: History,
    params: MeloParams,
    present: list[int],
    grid: Mapping[str, Sequence[int]] | None,
    points: F64,
    n: I64,
    counted: npt.NDArray[np.bool_],
    threads: int | None,
) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """The whole history re-rated from the initial rating with one tier's k replaced at a time,
    each run's ``score_mse`` over the counted results; the k of the least for each tier."""
    initial = np.full(len(history.player_ids), params.initial_rating, dtype=np.int64)
    runs: dict[tuple[int, ...], float | None] = {}
    wanted: list[tuple[int, int]] = []
    # An explicit grid sweeps the tiers it names (that have results), the default every tier.
    swept = [c for c in present if grid is None or RATED_TIERS[c] in grid]
    for code in swept:
        name = RATED_TIERS[code]
        today = getattr(params, K_FIELDS[code])
        values = list(grid[name]) if grid is not None else default_grid(today)
        wanted += [(code, k) for k in sorted(set(values) | {today})]

    def rated(ks: tuple[int, ...]) -> float | None:
        k = np.array(ks, dtype=np.int64)[history.tier]
        result = rate_sequence(
            initial, history.offsets, k, history.player, history.wins, history.draws,
            history.losses, history.buchholz, scale=params.scale,
        )  # fmt: skip
        return _score_mse(points, result.expected / RATING_SCALE, n, counted)

    keys = []
    for code, k in wanted:
        ks = replace(params, **{K_FIELDS[code]: k})
        keys.append(tuple(int(v) for v in _k_of(ks)))
    distinct = list(dict.fromkeys(keys))
    workers = max(1, min(threads or os.cpu_count() or 1, len(distinct) or 1))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        runs.update(zip(distinct, pool.map(rated, distinct), strict=True))
    rows: list[dict[str, Any]] = [
        {"tier": RATED_TIERS[code], "k": k, "score_mse": runs[key]}
        for (code, k), key in zip(wanted, keys, strict=True)
    ]
    suggested: dict[str, int] = {}
    for code in swept:
        mine = [
            (value, k)
            for (c, k), key in zip(wanted, keys, strict=True)
            if c == code and (value := runs[key]) is not None
        ]
        if mine:
            # The least error; of equal ones, the smallest k.
            suggested[RATED_TIERS[code]] = min(mine)[1]
    return rows, suggested


def _pool_mean(
    history: History, params: MeloParams, in_dates: npt.NDArray[np.bool_]
) -> dict[str, Any]:
    """The mean exact rating of everyone with a rating change so far, after the last counted
    tournament of each month in which one ended, and its drift from the initial rating."""
    initial = params.initial_rating
    count = len(history.player)
    months: list[dict[str, Any]] = []
    if count:
        order = np.argsort(history.player, kind="stable")
        deviation = history.after[order] - initial
        first = np.ones(count, dtype=np.bool_)
        first[1:] = history.player[order][1:] != history.player[order][:-1]
        previous = np.zeros(count, dtype=np.int64)
        previous[1:] = deviation[:-1]
        previous[first] = 0
        delta = np.empty(count, dtype=np.int64)
        delta[order] = deviation - previous
        new = np.empty(count, dtype=np.int64)
        new[order] = first
        total = np.cumsum(delta)
        players = np.cumsum(new)
        last_of_month: dict[str, int] = {}
        for t in np.flatnonzero(in_dates).tolist():
            if history.offsets[t + 1] > history.offsets[t]:
                last_of_month[history.end_dates[t].strftime("%Y-%m")] = (
                    int(history.offsets[t + 1]) - 1
                )
        for month, i in last_of_month.items():
            drift = int(total[i]) / int(players[i]) / RATING_SCALE
            months.append(
                {
                    "month": month,
                    "players": int(players[i]),
                    "mean": initial / RATING_SCALE + drift,
                    "drift": drift,
                }
            )
    drifts = [m["drift"] for m in months]
    return {
        "initial": initial / RATING_SCALE,
        "months": months,
        "last_drift": drifts[-1] if drifts else None,
        "largest_drift": max(drifts, key=abs) if drifts else None,
    }


def _at_differences(
    history: History,
    params: MeloParams,
    counted: npt.NDArray[np.bool_],
    has_games: npt.NDArray[np.bool_],
    e: F64,
    s: F64,
    game_in: npt.NDArray[np.bool_],
    points: F64,
    expected: F64,
    n: I64,
) -> list[dict[str, Any]]:
    """For each claimed lead, the score the stronger side made where the lead was within
    :data:`BAND` points of it: from each game's two ratings where the games are known, else
    from a result's E/N (the lead MELO assumed, ``400 log10(x / (1 - x))``), weighted by N."""
    lead = (
        history.before[history.game_result] - history.before[history.game_opponent]
    ) / RATING_SCALE
    rest = counted & ~has_games
    x = expected[rest] / n[rest]
    with np.errstate(divide="ignore"):
        implied = params.scale * np.log10(x / (1.0 - x))
    share = points[rest] / n[rest]
    flip = implied < 0
    implied = np.abs(implied)
    share = np.where(flip, 1.0 - share, share)
    x = np.where(flip, 1.0 - x, x)
    weight = n[rest]
    out = []
    for difference, claimed in CLAIMS:
        low, high = difference - BAND, difference + BAND
        g = game_in & (lead >= low) & (lead <= high)
        r = (implied >= low) & (implied <= high)
        games = int(g.sum()) + int(weight[r].sum())
        scored = float(s[g].sum() + (share[r] * weight[r]).sum())
        formula = float(e[g].sum() + (x[r] * weight[r]).sum())
        out.append(
            {
                "difference": difference,
                "low": low,
                "high": high,
                "claimed": claimed,
                "games": games,
                "from_games": int(g.sum()),
                "from_results": int(r.sum()),
                "observed": scored / games if games else None,
                "formula": formula / games if games else None,
            }
        )
    return out


def _pairs(
    history: History,
    game_in: npt.NDArray[np.bool_],
    e: F64,
    s: F64,
    counted: npt.NDArray[np.bool_],
    pair_games: int,
) -> dict[str, Any]:
    """Pairs who played each other at least ``pair_games`` times outside grandmaster events,
    where one of them gained from those games (k (s - e) a game) more than half of the rating
    they gained in all the counted results."""
    t_of = history.tournament_of
    grandmaster = RATED_TIERS.index("grandmaster")
    rows = game_in & (history.tier[t_of[history.game_result]] != grandmaster)
    me = history.player[history.game_result[rows]]
    other = history.player[history.game_opponent[rows]]
    k = history.k[t_of[history.game_result[rows]]].astype(np.float64)
    gain = k * (s[rows] - e[rows])
    found: list[dict[str, Any]] = []
    if me.size:
        players = np.int64(len(history.player_ids))
        key = me * players + other
        keys, where = np.unique(key, return_inverse=True)
        games = np.bincount(where)
        scored = np.bincount(where, weights=s[rows])
        gained = np.bincount(where, weights=gain)
        change = np.where(counted, history.after - history.before, 0)
        total_units = np.zeros(len(history.player_ids), dtype=np.int64)
        np.add.at(total_units, history.player, change)
        total = total_units / RATING_SCALE
        last = np.full(len(history.player_ids), -1, dtype=np.int64)
        last[history.player[counted]] = np.flatnonzero(counted)
        for j in np.flatnonzero(games >= pair_games).tolist():
            a, b = divmod(int(keys[j]), int(players))
            if gained[j] > 0 and total[a] > 0 and gained[j] > total[a] / 2:
                found.append(
                    {
                        "player": int(history.player_ids[a]),
                        "opponent": int(history.player_ids[b]),
                        "games": int(games[j]),
                        "score": float(scored[j]),
                        "gain_from_each_other": float(gained[j]),
                        "total_gain": float(total[a]),
                        "rating": int(history.after[last[a]]) / RATING_SCALE,
                    }
                )
        found.sort(key=lambda p: (-p["gain_from_each_other"], p["player"], p["opponent"]))
    return {"min_games": pair_games, "pairs": found}
