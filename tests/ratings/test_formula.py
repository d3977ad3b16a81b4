"""The MELO formula (seed 004): the worked example, the seed's sanity figures, every rule of
SPEC 2, and properties checked with Hypothesis against the plain reference implementation."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ratings import formula, kernels
from ratings.formula import (
    I64,
    RATING_SCALE,
    MeloParams,
    format_exact,
    rate_sequence,
    rate_tournament,
    to_units,
    wide_levels,
)
from ratings.melo_reference import Entry, Event, expected_score, rate_events
from ratings.rounding import published


def i64(values: list[int]) -> np.ndarray:
    return np.array(values, dtype=np.int64)


def felix(field_average: int) -> tuple[float, float]:
    """Seed 004, section 3: Felix Muster, 1115, 18 games (6 wins, 10 draws, 2 losses), k = 10,
    Buchholz equal to the tournament average. The field is Felix plus one player who makes the
    average ``field_average``; both have the same Buchholz, so B_A / B_avg = 1."""
    other = 2 * field_average - 1115
    result = rate_tournament(
        i64([1115 * RATING_SCALE, other * RATING_SCALE]),
        wins=i64([6, 2]),
        draws=i64([10, 10]),
        losses=i64([2, 6]),
        buchholz=i64([90_000, 90_000]),
        k=10,
    )
    return result.expected[0] / RATING_SCALE, result.after[0] / RATING_SCALE


def test_worked_example_of_the_seed() -> None:
    expected, new = felix(1025)
    assert round(expected, 2) == 11.28
    # The seed prints two of the ten decimals (1112.1941653...).
    assert round(new, 2) == 1112.19


def test_worked_example_with_a_stronger_field() -> None:
    expected, new = felix(1050)
    assert round(expected, 2) == 10.66
    assert round(new, 2) == 1118.36


@pytest.mark.parametrize(("gap", "games", "share"), [(190, 4, 3), (382, 10, 9)])
def test_calibration_figures_of_the_seed(gap: int, games: int, share: int) -> None:
    # Seed 004, section 2, point 9: 190 points ahead expects about 3 of 4, 382 about 9 of 10.
    expected = expected_score(games, 1000.0 + gap, 1000.0, 1.0, 400.0)
    assert expected == pytest.approx(share, abs=0.02)


def test_buchholz_factor_moves_the_opponent_estimate() -> None:
    # M_opp = M_avg * (1 + (B_A / B_avg - 1) / 2): a Buchholz twice the average means opponents
    # rated 1.5 times the tournament average.
    assert expected_score(1, 1500.0, 1000.0, 2.0, 400.0) == pytest.approx(0.5)


def test_nobody_with_a_buchholz_value_is_not_a_division_by_zero() -> None:
    result = rate_tournament(
        i64([1100 * RATING_SCALE, 900 * RATING_SCALE]),
        wins=i64([1, 0]),
        draws=i64([0, 0]),
        losses=i64([0, 1]),
        buchholz=i64([0, 0]),
        k=5,
    )
    # Factor 1: M_opp = M_avg = 1000.
    assert result.expected[0] / RATING_SCALE == pytest.approx(1 / (1 + 10 ** (-100 / 400)))
    assert result.b_avg.tolist() == [0, 0]


def test_a_player_without_a_game_keeps_the_rating_and_is_not_averaged() -> None:
    ratings = i64([1200 * RATING_SCALE, 1000 * RATING_SCALE, 800 * RATING_SCALE])
    result = rate_tournament(
        ratings,
        wins=i64([1, 0, 0]),
        draws=i64([0, 0, 0]),
        losses=i64([0, 1, 0]),
        buchholz=i64([10_000, 10_000, 40_000]),
        k=10,
    )
    assert result.after[2] == ratings[2]
    assert result.expected[2] == 0
    assert result.m_avg[0] == 1100 * RATING_SCALE
    assert result.b_avg[0] == RATING_SCALE


@pytest.mark.parametrize(
    ("tier", "grandmaster", "k"),
    [
        ("regular", False, 5),
        ("regular", True, 10),
        ("national", False, 20),
        ("national", True, 20),
        ("international", True, 30),
    ],
)
def test_k_by_tier_and_grandmaster(tier: str, grandmaster: bool, k: int) -> None:
    assert MeloParams().k_for(tier, grandmaster) == k


def test_k_values_come_from_the_parameters() -> None:
    params = MeloParams(k_regular=1, k_grandmaster=2, k_national=3, k_international=4)
    assert [params.k_for(t, g) for t, g in [("regular", False), ("regular", True)]] == [1, 2]
    assert [params.k_for("national", True), params.k_for("international", False)] == [3, 4]


def test_unknown_tier_is_refused() -> None:
    with pytest.raises(
        ValueError, match="tier must be regular, national or international, not 'open'"
    ):
        MeloParams().k_for("open", False)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"k_regular": -1}, "k_regular must not be negative, not -1"),
        ({"scale": 0.0}, "scale must be positive, not 0.0"),
    ],
)
def test_bad_parameters(kwargs: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        MeloParams(**kwargs)  # type: ignore[arg-type]


def test_bad_arrays_are_refused() -> None:
    with pytest.raises(ValueError, match=r"wins must have one entry per result \(2\), not 1"):
        rate_sequence(
            i64([0, 0]), i64([0, 2]), i64([5]), i64([0, 1]), i64([1]), i64([0, 0]), i64([0, 1]),
            i64([0, 0]),
        )  # fmt: skip
    with pytest.raises(ValueError, match=r"player numbers must lie in 0..1"):
        rate_sequence(
            i64([0, 0]), i64([0, 2]), i64([5]), i64([0, 2]), i64([1, 0]), i64([0, 0]),
            i64([0, 1]), i64([0, 0]),
        )  # fmt: skip
    with pytest.raises(ValueError, match="draws must not be negative, not -1"):
        rate_sequence(
            i64([0, 0]), i64([0, 2]), i64([5]), i64([0, 1]), i64([1, 0]), i64([0, -1]),
            i64([0, 1]), i64([0, 0]),
        )  # fmt: skip


def test_formatting_of_exact_and_published_ratings() -> None:
    assert format_exact(to_units("1112.1941653")) == "1112.1941653000"
    assert format_exact(-5) == "-0.0000000005"
    assert published(to_units("1499.5")) == 1500
    assert published(to_units("1499.4999999999")) == 1499
    assert published(to_units("1499.9"), "truncate") == 1499
    assert published(to_units("-3.5")) == -3
    assert published(to_units("-3.5"), "truncate") == -3
    with pytest.raises(ValueError, match="rounding must be half_up or truncate, not 'up'"):
        published(0, "up")


# --- properties -------------------------------------------------------------------------------


@st.composite
def tournaments(draw: st.DrawFn, pool: int = 12, max_events: int = 8) -> list[Event]:
    """Tournaments over a pool of players with consistent totals (wins = losses, even draws)."""
    events = []
    for _ in range(draw(st.integers(1, max_events))):
        size = draw(st.integers(2, min(pool, 8)))
        players = draw(st.permutations(range(pool)))[:size]
        wins = [0] * size
        draws = [0] * size
        losses = [0] * size
        for _game in range(draw(st.integers(0, 3 * size))):
            a, b = draw(st.lists(st.integers(0, size - 1), min_size=2, max_size=2, unique=True))
            outcome = draw(st.sampled_from("wdl"))
            if outcome == "w":
                wins[a] += 1
                losses[b] += 1
            elif outcome == "l":
                wins[b] += 1
                losses[a] += 1
            else:
                draws[a] += 1
                draws[b] += 1
        entries = tuple(
            Entry(f"p{p}", wins[i], draws[i], losses[i], draw(st.integers(0, 600_000)))
            for i, p in enumerate(players)
        )
        events.append(Event(draw(st.sampled_from([5, 10, 20, 30])), entries))
    return events


def kernel(
    events: list[Event], start: dict[str, int] | None = None, *, compiled_from: int = 0
) -> dict[str, int]:
    names = sorted({e.player for ev in events for e in ev.entries} | set(start or {}))
    index = {name: i for i, name in enumerate(names)}
    ratings = np.array([(start or {}).get(n, 1000 * RATING_SCALE) for n in names], dtype=np.int64)
    flat = [e for ev in events for e in ev.entries]
    offsets = np.cumsum([0, *(len(ev.entries) for ev in events)]).astype(np.int64)
    result = rate_sequence(
        ratings,
        offsets,
        i64([ev.k for ev in events]),
        i64([index[e.player] for e in flat]),
        i64([e.wins for e in flat]),
        i64([e.draws for e in flat]),
        i64([e.losses for e in flat]),
        i64([e.buchholz for e in flat]),
        compiled_from=compiled_from,
    )
    return {name: int(result.ratings[i]) for name, i in index.items()}


@settings(max_examples=150, deadline=None)
@given(tournaments())
def test_kernel_gives_the_same_digits_as_the_plain_reference(events: list[Event]) -> None:
    expected = rate_events(events)
    assert kernel(events) == expected
    assert kernel(events, compiled_from=10**9) == expected  # rated in plain Python


@settings(max_examples=100, deadline=None)
@given(tournaments(pool=16, max_events=2))
def test_tournaments_without_a_common_player_commute(events: list[Event]) -> None:
    if len(events) < 2:
        return
    first, second = events
    second_players = {e.player for e in second.entries}
    first = Event(first.k, tuple(e for e in first.entries if e.player not in second_players))
    assert kernel([first, second]) == kernel([second, first])


@settings(max_examples=200, deadline=None)
@given(
    rating=st.integers(0, 3000),
    others=st.lists(st.integers(0, 3000), min_size=1, max_size=6),
    games=st.integers(1, 12),
    buchholz=st.integers(0, 1_000_000),
    k=st.sampled_from([5, 10, 20, 30]),
    data=st.data(),
)
def test_more_points_never_give_a_lower_new_rating(
    rating: int, others: list[int], games: int, buchholz: int, k: int, data: st.DataObject
) -> None:
    wins = data.draw(st.integers(0, games))
    draws = data.draw(st.integers(0, games - wins))
    losses = games - wins - draws

    def after(w: int, d: int, lo: int) -> int:
        n = len(others) + 1
        return int(
            rate_tournament(
                i64([rating * RATING_SCALE] + [o * RATING_SCALE for o in others]),
                wins=i64([w] + [0] * (n - 1)),
                draws=i64([d] + [0] * (n - 1)),
                losses=i64([lo] + [1] * (n - 1)),
                buchholz=i64([buchholz] * n),
                k=k,
            ).after[0]
        )

    base = after(wins, draws, losses)
    if losses:
        assert after(wins, draws + 1, losses - 1) >= base
    if draws:
        assert after(wins + 1, draws - 1, losses) >= base


@settings(max_examples=200, deadline=None)
@given(
    ratings=st.lists(st.integers(-(10**15), 10**16), min_size=1, max_size=8),
    data=st.data(),
)
def test_no_nan_or_infinity_for_any_valid_input(ratings: list[int], data: st.DataObject) -> None:
    n = len(ratings)
    counts = st.lists(st.integers(0, 50), min_size=n, max_size=n)
    result = rate_tournament(
        i64(ratings),
        wins=i64(data.draw(counts)),
        draws=i64(data.draw(counts)),
        losses=i64(data.draw(counts)),
        buchholz=i64(data.draw(st.lists(st.integers(0, 10**9), min_size=n, max_size=n))),
        k=data.draw(st.sampled_from([0, 5, 30, 1000])),
    )
    # Integers cannot hold NaN; a NaN or infinity on the way would show as the int64 minimum.
    for array in (result.after, result.expected, result.m_avg, result.b_avg):
        assert np.all(array != np.iinfo(np.int64).min)
    assert np.all(result.expected >= 0)


# --- one thread or two ----------------------------------------------------------------------------


def random_history(seed: int) -> tuple[list[I64], list[Event]]:
    """A history of 400 tournaments of 2 to 20 players among 2,000: many levels, most holding
    several tournaments; as the kernel's arrays and as the reference's events."""
    rng = np.random.default_rng(seed)
    players = 2_000
    sizes = rng.integers(2, 21, 400)
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    player = np.concatenate([rng.choice(players, n, replace=False) for n in sizes]).astype(np.int64)
    wins, draws, losses = (rng.integers(0, 6, len(player)).astype(np.int64) for _ in range(3))
    wins[::7] = draws[::7] = losses[::7] = 0  # some players without a game
    buchholz = rng.integers(0, 400_000, len(player)).astype(np.int64)
    k = rng.choice(np.array([5, 10, 20, 30], dtype=np.int64), len(sizes))
    ratings = rng.integers(800, 1600, players).astype(np.int64) * RATING_SCALE
    arrays = [ratings, offsets, k, player, wins, draws, losses, buchholz]
    events = [
        Event(
            int(k[t]),
            tuple(
                Entry(str(player[i]), int(wins[i]), int(draws[i]), int(losses[i]), int(buchholz[i]))
                for i in range(offsets[t], offsets[t + 1])
            ),
        )
        for t in range(len(sizes))
    ]
    return arrays, events


FIELDS = ("ratings", "before", "after", "expected", "tournament_m_avg", "tournament_b_avg", "sizes")


@pytest.mark.parametrize("seed", [1, 2])
def test_one_thread_and_two_give_the_same_bits(seed: int) -> None:
    arrays, events = random_history(seed)
    serial = rate_sequence(*arrays, compiled_from=0, serial_below=10**9)
    order, starts = kernels.schedule(arrays[1], arrays[3], len(arrays[0]))
    assert len(starts) - 1 < len(order) // 2  # levels hold several tournaments to share out
    median = int(np.median(np.add.reduceat(np.diff(arrays[1])[order], starts[:-1])))
    for serial_below, chunk in ((0, 0), (0, 37), (median, 0), (median, 37)):
        both = rate_sequence(*arrays, compiled_from=0, serial_below=serial_below, chunk=chunk)
        for field in FIELDS:
            assert np.array_equal(getattr(both, field), getattr(serial, field)), field
    start = {str(p): int(r) for p, r in enumerate(arrays[0])}
    expected = rate_events(events, start=start)
    assert {p: int(serial.ratings[int(p)]) for p in expected} == expected


def test_levels_below_the_threshold_are_narrow() -> None:
    # Tournaments of 3, 2, 4 and 1 results; levels {0, 1}, {2} and {3}: 5, 4 and 1 results.
    offsets, order, starts = i64([0, 3, 5, 9, 10]), i64([0, 1, 2, 3]), i64([0, 2, 3, 4])
    assert wide_levels(offsets, order, starts, 4).tolist() == [True, True, False]
    assert wide_levels(offsets, order, starts, 5).tolist() == [True, False, False]
    assert wide_levels(offsets, order, starts, 0).tolist() == [True, True, True]
    assert wide_levels(i64([0]), i64([]), i64([0]), 1).tolist() == []


def test_a_history_without_a_wide_level_never_enters_the_parallel_kernel(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    arrays, _ = random_history(3)
    expected = rate_sequence(*arrays, compiled_from=0)

    def refused(*_args: object) -> None:
        raise AssertionError("this kernel must not run")

    monkeypatch.setattr(kernels, "rate_levels", refused)
    assert np.array_equal(
        rate_sequence(*arrays, compiled_from=0, chunk=50).ratings, expected.ratings
    )
    monkeypatch.undo()
    monkeypatch.setattr(kernels, "rate_levels_serial", refused)
    assert np.array_equal(
        rate_sequence(*arrays, compiled_from=0, serial_below=1).ratings, expected.ratings
    )
    with pytest.raises(AssertionError, match="must not run"):
        rate_sequence(*arrays, compiled_from=0, serial_below=formula.SERIAL_BELOW)


def test_every_kernel_has_one_compiled_form_whatever_arrays_it_is_given() -> None:
    # Read-only columns (polars shares its memory), writable ones (it copied), a strided view:
    # each kind would be another compilation of seconds; the kernels see them all alike, in
    # the one form compile_kernels puts in the cache.
    compiled_kernels = (kernels.schedule, kernels.rate_levels_serial, kernels.rate_levels)
    formula.compile_kernels()
    compiled = [kernel.signatures for kernel in compiled_kernels]
    arrays, _ = random_history(4)
    expected = rate_sequence(*arrays, compiled_from=0, serial_below=0)
    frozen = [a.copy() for a in arrays]
    for array in frozen:
        array.flags.writeable = False
    strided = [np.repeat(a, 2)[::2] for a in arrays]
    for kind in (frozen, strided):
        for serial_below in (0, formula.SERIAL_BELOW):
            rated = rate_sequence(*kind, compiled_from=0, serial_below=serial_below)
            for field in FIELDS:
                assert np.array_equal(getattr(rated, field), getattr(expected, field)), field
    assert [kernel.signatures for kernel in compiled_kernels] == compiled


def test_loading_the_kernels_leaves_the_ratings_as_they_are() -> None:
    arrays, _ = random_history(5)
    expected = rate_sequence(*arrays, compiled_from=0)
    formula.load_kernels()
    assert np.array_equal(rate_sequence(*arrays, compiled_from=0).ratings, expected.ratings)


@pytest.mark.parametrize("seed", [6, 7])
def test_a_few_results_are_rated_in_python_to_the_kernels_bits(seed: int) -> None:
    arrays, _ = random_history(seed)
    assert len(arrays[3]) < formula.COMPILED_FROM
    compiled = rate_sequence(*arrays, compiled_from=0)
    steps: list[tuple[int, int]] = []
    plain = rate_sequence(*arrays, progress=lambda done, total: steps.append((done, total)))
    for field in FIELDS:
        assert np.array_equal(getattr(plain, field), getattr(compiled, field)), field
    assert steps[-1] == (400, 400)


def test_a_month_is_rated_without_loading_numba() -> None:
    # A fresh interpreter: numba is loaded (or not) once per process.
    script = (
        "import sys\n"
        "import numpy as np\n"
        "from ratings.formula import rate_sequence\n"
        "one = np.ones(4, dtype=np.int64)\n"
        "rate_sequence(one * 10**13, np.array([0, 4]), np.array([20]), np.arange(4), one, 0 * one,"
        " one, one)\n"
        "print('numba' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "False"
