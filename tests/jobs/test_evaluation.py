"""The per-game expectation beside MELO's, property-tested against the plain formula, and the
pieces of the evaluation that need no database: the sweep's grid and the evaluation of a small
history written by hand."""

from __future__ import annotations

from datetime import date

import numpy as np
import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from jobs.evaluation import event_expectations
from ratings.evaluation import History, default_grid, evaluate, game_expectation
from ratings.formula import RATING_SCALE, MeloParams
from ratings.storage.frames import EVENT_GAMES_SCHEMA, EVENT_RESULTS_SCHEMA

RATING = st.integers(min_value=0, max_value=4000 * RATING_SCALE)


def plain(r: int, opponent: int) -> float:
    return 1 / (1 + 10 ** ((opponent / RATING_SCALE - r / RATING_SCALE) / 400))


@given(st.lists(st.tuples(RATING, RATING), min_size=1, max_size=40))
def test_the_per_game_expectation_is_the_plain_formula(pairs: list[tuple[int, int]]) -> None:
    mine = np.array([r for r, _ in pairs], dtype=np.int64)
    theirs = np.array([o for _, o in pairs], dtype=np.int64)
    e = game_expectation(mine, theirs)
    back = game_expectation(theirs, mine)
    for (r, o), value, other in zip(pairs, e.tolist(), back.tolist(), strict=True):
        assert abs(value - plain(r, o)) <= 1e-12
        # Both sides of a game expect one point between them.
        assert abs(value + other - 1) <= 1e-12
        assert (value > 0.5) == (r > o) or r == o


OUTCOMES = st.sampled_from(["+", "=", "-"])


@st.composite
def events(draw: st.DrawFn) -> tuple[list[int], list[tuple[int, int, str]], int]:
    """Ratings of a few players, the games they played (any pairs, any number of times) and k."""
    size = draw(st.integers(min_value=2, max_value=8))
    ratings = draw(st.lists(RATING, min_size=size, max_size=size))
    pair = st.tuples(st.integers(0, size - 1), st.integers(0, size - 1)).filter(
        lambda p: p[0] != p[1]
    )
    games = draw(st.lists(st.tuples(pair, OUTCOMES), max_size=30))
    k = draw(st.integers(min_value=0, max_value=60))
    return ratings, [(a, b, o) for (a, b), o in games], k


FLIP = {"+": "-", "-": "+", "=": "="}


@settings(max_examples=150, deadline=None)
@given(events())
def test_an_events_expectations_are_the_sums_over_its_games(
    event: tuple[list[int], list[tuple[int, int, str]], int],
) -> None:
    ratings, played, k = event
    n = len(ratings)
    rows = []
    for number, (a, b, outcome) in enumerate(played, start=1):
        rows += [
            (number, str(a), str(b), outcome, None, 0, "game", f"P{b}"),
            (number, str(b), str(a), FLIP[outcome], None, 0, "game", f"P{a}"),
        ]
    # A bye and a forfeit are not games: they add nothing.
    rows += [
        (99, "0", None, "+", None, 0, "bye", None),
        (98, "0", "1", "+", None, 0, "forfeit", "P1"),
    ]
    games = pl.DataFrame(rows, schema=EVENT_GAMES_SCHEMA, orient="row")
    wins = [
        sum(1 for g in rows if g[1] == str(i) and g[6] == "game" and g[3] == "+") for i in range(n)
    ]
    draws = [
        sum(1 for g in rows if g[1] == str(i) and g[6] == "game" and g[3] == "=") for i in range(n)
    ]
    losses = [
        sum(1 for g in rows if g[1] == str(i) and g[6] == "game" and g[3] == "-") for i in range(n)
    ]
    results = pl.DataFrame(
        [
            (str(i), f"P{i}", None, wins[i], draws[i], losses[i], 0, wins[i] + draws[i] + losses[i],
             0, ratings[i], ratings[i])
            for i in range(n)
        ],
        schema=EVENT_RESULTS_SCHEMA,
        orient="row",
    )  # fmt: skip
    found = event_expectations(results, games, k)
    assert found["federation_id"].to_list() == [str(i) for i in range(n)]
    for i, row in enumerate(found.iter_rows(named=True)):
        sums = sum(
            plain(ratings[a], ratings[b]) if a == i else plain(ratings[b], ratings[a])
            for a, b, _ in played
            if i in (a, b)
        )
        points = wins[i] + draws[i] / 2
        assert abs(row["expected_by_games"] - sums) <= 1e-9
        assert abs(row["change_by_games"] - k * (points - sums)) <= 1e-9
    # Over the event, both sides of every game share one point: the sums add up to the games.
    assert abs(found["expected_by_games"].sum() - len(played)) <= 1e-9


def test_an_event_without_games_or_not_rated_has_no_per_game_figures() -> None:
    results = pl.DataFrame(
        [("1", "A", None, 1, 0, 0, 0, 1, 5 * 10**9, 10**13, 10**13 + 10**10),
         ("2", "B", None, 0, 0, 1, 0, 1, 5 * 10**9, 10**13, 10**13 - 10**10)],
        schema=EVENT_RESULTS_SCHEMA, orient="row",
    )  # fmt: skip
    empty = pl.DataFrame(schema=EVENT_GAMES_SCHEMA)
    found = event_expectations(results, empty, 5)
    assert found["expected_by_games"].null_count() == 2
    assert found["change"].to_list() == [10**10, -(10**10)]
    unrated = results.with_columns(pl.lit(None, dtype=pl.Int64).alias("rating_before"))
    games = pl.DataFrame(
        [(1, "1", "2", "+", None, 0, "game", "B"), (1, "2", "1", "-", None, 0, "game", "A")],
        schema=EVENT_GAMES_SCHEMA, orient="row",
    )  # fmt: skip
    assert event_expectations(unrated, games, None)["change_by_games"].null_count() == 2


def test_the_sweeps_grid_runs_from_half_to_twice_todays_k() -> None:
    for k in (1, 2, 5, 10, 20, 30, 47):
        grid = default_grid(k)
        assert k in grid
        assert min(grid) <= k / 2
        assert max(grid) >= 2 * k
        assert grid == sorted(set(grid))
        assert len(grid) <= 9
    assert default_grid(20) == [10, 11, 14, 16, 20, 24, 29, 34, 40]
    assert default_grid(0) == [0]


def test_a_small_history_by_hand() -> None:
    """Two players, two one-game events: the figures worked out on paper."""
    before = np.array([1000, 1000, 1005, 995], dtype=np.int64) * RATING_SCALE
    params = MeloParams(k_regular=10)
    # Event one: A beats B at 1000 each, k 10: E = 0.5, change ±5.
    # Event two: A (1005) and B (995) draw; MELO takes the event's mean, 1000, as A's opponent:
    # E_A = 1 / (1 + 10^(-5/400)), where game by game A expects 1 / (1 + 10^(-10/400)).
    e2 = 1 / (1 + 10 ** (-5 / 400))
    game = 1 / (1 + 10 ** (-10 / 400))
    change2 = round(10 * (0.5 - e2) * RATING_SCALE)
    after = np.array(
        [1005 * RATING_SCALE, 995 * RATING_SCALE, 1005 * RATING_SCALE + change2,
         995 * RATING_SCALE - change2],
        dtype=np.int64,
    )  # fmt: skip
    expected = np.array(
        [RATING_SCALE // 2, RATING_SCALE // 2, round(e2 * RATING_SCALE),
         round((1 - e2) * RATING_SCALE)],
        dtype=np.int64,
    )  # fmt: skip
    history = History(
        end_dates=[date(2024, 1, 6), date(2024, 2, 3)],
        tier=np.array([0, 0], dtype=np.int64),
        k=np.array([10, 10], dtype=np.int64),
        offsets=np.array([0, 2, 4], dtype=np.int64),
        player=np.array([0, 1, 0, 1], dtype=np.int64),
        player_ids=np.array([7, 9], dtype=np.int64),
        wins=np.array([1, 0, 0, 0], dtype=np.int64),
        draws=np.array([0, 0, 1, 1], dtype=np.int64),
        losses=np.array([0, 1, 0, 0], dtype=np.int64),
        buchholz=np.zeros(4, dtype=np.int64),
        before=before,
        after=after,
        expected=expected,
        game_result=np.array([0, 1, 2, 3], dtype=np.int64),
        game_opponent=np.array([1, 0, 3, 2], dtype=np.int64),
        game_score_x2=np.array([2, 0, 1, 1], dtype=np.int64),
    )
    f = evaluate(history, params, grid={"regular": [5, 10, 20]}, pair_games=2).figures
    assert (f["results"], f["games"]) == (4, 4)
    squares = (
        2 * 0.25 + (0.5 - expected[2] / RATING_SCALE) ** 2 + (0.5 - expected[3] / RATING_SCALE) ** 2
    )
    assert abs(f["score_mse"] - squares / 4) <= 1e-12
    brier = (2 * 0.25 + (0.5 - game) ** 2 + (0.5 - (1 - game)) ** 2) / 4
    assert abs(f["game_brier"] - brier) <= 1e-12
    assert f["game_count"] == 2
    changes = f["change_by_games"]
    assert changes["results"] == 4
    by_games = [5.0, 5.0, 10 * (0.5 - game), 10 * (0.5 - game)]
    melo = [5.0, 5.0, change2 / RATING_SCALE, change2 / RATING_SCALE]
    assert (
        abs(changes["mean_absolute_difference"] - np.mean(np.abs(np.subtract(melo, by_games))))
        <= 1e-12
    )
    assert [b["games"] for b in f["calibration"]] == [0, 0, 0, 0, 1, 3, 0, 0, 0, 0]
    assert f["by_tier"] == {"regular": {"results": 4, "games": 4, "score_mse": f["score_mse"]}}
    sweep = {row["k"]: row["score_mse"] for row in f["k_sweep"]}
    assert sorted(sweep) == [5, 10, 20]
    assert abs(sweep[10] - f["score_mse"]) <= 1e-12
    assert f["suggested_k"] == {"regular": min(sweep, key=lambda k: (sweep[k], k))}
    months = f["claims"]["pool_mean"]["months"]
    assert [(m["month"], m["players"]) for m in months] == [("2024-01", 2), ("2024-02", 2)]
    assert all(abs(m["drift"]) <= 1e-12 for m in months)
    # A gained 5 - 10 (0.5 - e2) in all, all of it from B, over two games: a pair.
    (pair,) = f["claims"]["thousand_games"]["pairs"]
    assert (pair["player"], pair["opponent"], pair["games"], pair["score"]) == (7, 9, 2, 1.5)
    assert abs(pair["total_gain"] - (5 + change2 / RATING_SCALE)) <= 1e-9
    # Only one side of the window: the second month alone.
    f2 = evaluate(history, params, date_from=date(2024, 2, 1), grid={"regular": [10]}).figures
    assert (f2["results"], f2["game_count"]) == (2, 1)
    assert [m["month"] for m in f2["claims"]["pool_mean"]["months"]] == ["2024-02"]
