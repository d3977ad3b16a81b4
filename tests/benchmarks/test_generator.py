"""The synthetic histories: importer checks, Swiss pairing rules, determinism, sizes, samples.

The checks on results are the ones the importer enforces (SPEC 4.4); the Swiss tests replay one
small event by hand from its games.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from datetime import date, timedelta
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import polars as pl
import pytest
from numpy.typing import NDArray
from polars.testing import assert_frame_equal

from benchmarks import generator
from benchmarks.events import field_size_weights
from benchmarks.generator import (
    GENERATOR_VERSION,
    REGISTRY_SCHEMA,
    RESULT_SCHEMA,
    SIZES,
    History,
    Size,
    generate_history,
    load_or_generate,
)
from benchmarks.make_samples import check_unique_names, fold, write_samples
from benchmarks.names import COUNTRIES, Country
from benchmarks.swiss import play_swiss

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
START = date(2019, 1, 1)
YEARS = 4.0


@pytest.fixture(scope="module")
def history() -> History:
    return generate_history(600, 240, seed=11, start=START, years=YEARS)


@pytest.fixture(scope="module")
def per_event(history: History) -> pl.DataFrame:
    games = pl.col("wins") + pl.col("draws") + pl.col("losses")
    return history.results.group_by("tournament_id").agg(
        pl.col("wins").sum().alias("wins"),
        pl.col("draws").sum().alias("draws"),
        pl.col("losses").sum().alias("losses"),
        pl.len().alias("players"),
        pl.col("player_id").n_unique().alias("distinct"),
        games.max().alias("most_games"),
        (pl.col("wins") + pl.col("draws") / 2).max().alias("best"),
        pl.col("start_date").n_unique().alias("starts"),
        pl.col("end_date").n_unique().alias("ends"),
        pl.col("start_date").first(),
        pl.col("end_date").first(),
        pl.col("tier").first(),
        pl.col("country").n_unique().alias("countries"),
        (pl.col("country") == pl.col("country").mode().first()).mean().alias("home_share"),
    )


# --- importer checks (SPEC 4.4) -------------------------------------------------------------


def test_columns_and_types_are_the_long_format(history: History) -> None:
    assert history.results.schema == pl.Schema(RESULT_SCHEMA)
    assert history.registry.schema == pl.Schema(REGISTRY_SCHEMA)


def test_wins_match_losses_and_draws_pair_up(per_event: pl.DataFrame) -> None:
    assert (per_event["wins"] == per_event["losses"]).all()
    assert (per_event["draws"] % 2 == 0).all()


def test_no_player_twice_in_a_tournament(per_event: pl.DataFrame) -> None:
    assert (per_event["players"] == per_event["distinct"]).all()


def test_buchholz_is_possible(history: History, per_event: pl.DataFrame) -> None:
    r = history.results.join(per_event.select("tournament_id", "best"), on="tournament_id")
    games = r["wins"] + r["draws"] + r["losses"]
    assert (r["buchholz"] >= 0).all()
    assert (r["buchholz"] <= games * r["best"]).all()
    assert ((r["buchholz"] * 2) % 1 == 0).all()


def _stat(frame: pl.DataFrame, expr: pl.Expr) -> Any:
    return frame.select(expr).item()


def test_field_sizes_and_rounds(per_event: pl.DataFrame) -> None:
    assert _stat(per_event, pl.col("players").min()) >= 6
    assert _stat(per_event, pl.col("players").max()) <= 60
    # Everyone plays every round but at most one bye, so the longest record is 4..9 games.
    assert _stat(per_event, pl.col("most_games").min()) >= 4
    assert _stat(per_event, pl.col("most_games").max()) <= 9
    assert 18 <= _stat(per_event, pl.col("players").mean()) <= 26


def test_dates_are_ordered_and_inside_the_history(per_event: pl.DataFrame) -> None:
    assert (per_event["starts"] == 1).all()
    assert (per_event["ends"] == 1).all()
    assert (per_event["end_date"] >= per_event["start_date"]).all()
    assert _stat(per_event, pl.col("start_date").min()) >= START
    assert _stat(per_event, pl.col("end_date").max()) < START + timedelta(
        days=round(YEARS * 365.25)
    )
    by_id = per_event.sort("tournament_id")
    assert by_id.select(pl.struct("end_date", "start_date").is_sorted()).item()
    years = by_id["end_date"].dt.year().unique().sort().to_list()
    assert years == [2019, 2020, 2021, 2022]


def test_tiers(per_event: pl.DataFrame) -> None:
    tiers = Counter(per_event["tier"].to_list())
    assert set(tiers) == {"regular", "national", "international"}
    assert tiers["regular"] > 0.8 * per_event.height
    international = per_event.filter(pl.col("tier") == "international")
    assert sorted(international["end_date"].dt.year().to_list()) == [2019, 2020, 2021, 2022]
    assert (international["countries"] > 3).all()
    assert (per_event.filter(pl.col("tier") == "national")["countries"] == 1).all()


def test_regular_events_are_mostly_local(per_event: pl.DataFrame) -> None:
    regular = per_event.filter(pl.col("tier") == "regular")
    assert _stat(regular, pl.col("home_share").mean()) > 0.75


def test_players_agree_with_the_registry(history: History) -> None:
    registry = history.registry
    assert registry["player_id"].is_unique().all()
    assert registry["country"].str.len_chars().eq(3).all()
    seen = history.results.select("player_id", "name", "country", "club").unique()
    joined = seen.join(registry, on="player_id", how="left", suffix="_reg")
    assert joined.height == seen.height
    assert (joined["name"] == joined["name_reg"]).all()
    assert (joined["country"] == joined["country_reg"]).all()
    assert joined.select((pl.col("club").eq_missing(pl.col("club_reg"))).all()).item()


def test_titles_are_held_from_their_date_on(history: History) -> None:
    registry = history.registry
    gms = registry.filter(pl.col("title") == "GM")
    assert 3 <= gms.height <= 300
    assert gms["title_date"].null_count() == 0
    assert registry.filter(pl.col("title").is_null())["title_date"].null_count() == (
        registry.height - gms.height
    )
    r = history.results.join(registry.select("player_id", "title_date"), on="player_id")
    should = r["title_date"].is_not_null() & (r["title_date"] <= r["end_date"])
    assert (r["title"].is_not_null() == should).all()
    assert set(r["title"].drop_nulls().unique()) <= {"GM"}


def test_players_come_and_go(history: History) -> None:
    span = history.results.group_by("player_id").agg(
        pl.col("end_date").min().alias("first"), pl.col("end_date").max().alias("last")
    )
    late = span.filter(pl.col("first") > START + timedelta(days=365))
    gone = span.filter(pl.col("last") < START + timedelta(days=3 * 365))
    assert late.height > 0.2 * span.height
    assert gone.height > 0.1 * span.height


def test_same_seed_same_history() -> None:
    a = generate_history(150, 40, seed=3, years=2.0)
    b = generate_history(150, 40, seed=3, years=2.0)
    c = generate_history(150, 40, seed=4, years=2.0)
    assert_frame_equal(a.results, b.results)
    assert_frame_equal(a.registry, b.registry)
    assert not a.results.equals(c.results)


@pytest.mark.parametrize(
    ("players", "tournaments", "years", "message"),
    [
        (5, 10, 1.0, "players must be at least 6 to fill a tournament, not 5"),
        (50, 0, 1.0, "tournaments must be at least 1, not 0"),
        (50, 10, 0.0, "years must be positive, not 0.0"),
    ],
)
def test_bad_arguments(players: int, tournaments: int, years: float, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        generate_history(players, tournaments, years=years)


def test_field_size_mean() -> None:
    sizes = np.arange(6, 61)
    assert float(field_size_weights(22.0) @ sizes) == pytest.approx(22.0)
    with pytest.raises(ValueError, match="mean field size must lie between 6 and 60, not 70"):
        field_size_weights(70)


# --- sizes and cache ------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "results"), [("S", 20_000), ("M", 1_000_000), ("L", 10_000_000)])
def test_sizes_aim_at_their_result_counts(name: str, results: int) -> None:
    size = SIZES[name]
    assert size.tournaments * size.mean_field == pytest.approx(results, rel=0.15)


def test_size_s_counts() -> None:
    s = SIZES["S"]
    h = generate_history(s.players, s.tournaments, mean_field=s.mean_field)
    assert h.registry.height == 2_000
    assert h.results["tournament_id"].n_unique() == 1_000
    assert h.results.height == pytest.approx(20_000, rel=0.1)
    assert h.results["player_id"].n_unique() > 0.85 * 2_000


def test_cache_round_trip(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(SIZES, "XS", Size("XS", players=80, tournaments=12))
    calls: list[int] = []
    real = generator.generate_history

    def counting(players: int, tournaments: int, **kwargs: Any) -> History:
        calls.append(1)
        return real(players, tournaments, **kwargs)

    monkeypatch.setattr(generator, "generate_history", counting)
    first = load_or_generate("XS", tmp_path)
    second = load_or_generate("XS", tmp_path)
    assert len(calls) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        f"XS-seed0-v{GENERATOR_VERSION}-registry.parquet",
        f"XS-seed0-v{GENERATOR_VERSION}-results.parquet",
    ]
    assert_frame_equal(first.results, second.results)
    assert_frame_equal(first.registry, second.registry)


def test_unknown_size() -> None:
    with pytest.raises(ValueError, match="size must be one of S, M, M18, L, not 'XL'"):
        load_or_generate("XL")


# --- Swiss pairing --------------------------------------------------------------------------


def _clear_favourites(n: int) -> NDArray[np.float64]:
    """Strengths 2000 points apart: the stronger player wins every game."""
    return np.array([[20_000.0 - 2_000.0 * i for i in range(n)]])


def test_first_rounds_follow_the_swiss_rules() -> None:
    batch = play_swiss(_clear_favourites(9), 3, np.random.default_rng(0), draw_share=0.0)
    opp = batch.opponents[:, 0, :]
    # Round 1: seed 9 gets the bye, top half meets bottom half in order.
    assert opp[0].tolist() == [4, 5, 6, 7, 0, 1, 2, 3, -1]
    # Round 2: winners 1-4 and the bye (5 players on one point) above the four losers. The lowest
    # player without a bye (seed 8) sits out; 1 meets 3, 2 meets 4, seed 9 floats down to the
    # top of the losers' group, and the remaining two losers meet.
    assert opp[1].tolist() == [2, 3, 0, 1, 8, 6, 5, -1, 4]


class Table(NamedTuple):
    wins: list[int]
    draws: list[int]
    losses: list[int]
    score: list[float]
    buchholz: list[float]
    byes: list[int]


def _replay(opponents: NDArray[np.int16], points: NDArray[np.int8]) -> Table:
    """Recompute one event's table from its games alone, as a tournament director would."""
    rounds, n = opponents.shape
    games: list[tuple[int, int, float]] = []
    byes: list[int] = []
    for r in range(rounds):
        for p in range(n):
            o = int(opponents[r, p])
            if o < 0:
                byes.append(p)
            elif p < o:
                games.append((p, o, int(points[r, p]) / 2))
    final = [0.0] * n
    wins, draws, losses = [0] * n, [0] * n, [0] * n
    for a, b, pa in games:
        final[a] += pa
        final[b] += 1 - pa
        for p, pts in ((a, pa), (b, 1 - pa)):
            if pts == 1:
                wins[p] += 1
            elif pts == 0.5:
                draws[p] += 1
            else:
                losses[p] += 1
    for p in byes:
        final[p] += 1  # the bye is a point, not a game
    buchholz = [0.0] * n
    for a, b, _ in games:
        buchholz[a] += final[b]
        buchholz[b] += final[a]
    return Table(wins, draws, losses, final, buchholz, [byes.count(p) for p in range(n)])


@pytest.mark.parametrize(("n", "rounds"), [(7, 5), (12, 6), (23, 7)])
def test_a_small_event_replays_from_its_games(n: int, rounds: int) -> None:
    rng = np.random.default_rng(n)
    strength = np.sort(rng.normal(1500, 250, (1, n)))[:, ::-1].copy()
    batch = play_swiss(strength, rounds, rng, draw_share=0.4)
    opp, pts = batch.opponents[:, 0, :], batch.points[:, 0, :]
    table = _replay(opp, pts)
    assert batch.wins[0].tolist() == table.wins
    assert batch.draws[0].tolist() == table.draws
    assert batch.losses[0].tolist() == table.losses
    assert (batch.score[0] / 2).tolist() == table.score
    assert (batch.buchholz[0] / 2).tolist() == table.buchholz
    for r in range(rounds):
        paired = opp[r][opp[r] >= 0]
        assert (opp[r][paired] == np.flatnonzero(opp[r] >= 0)).all()  # both sides agree
        assert (opp[r] < 0).sum() == n % 2  # a bye only when the count is odd
    assert max(table.byes) <= 1
    for p in range(n):
        met = opp[:, p][opp[:, p] >= 0].tolist()
        assert len(met) == len(set(met)), f"player {p} met someone twice: {met}"


def test_events_of_different_sizes_share_a_batch() -> None:
    rng = np.random.default_rng(5)
    size = np.array([6, 9, 14, 20])
    strength = np.sort(rng.normal(1500, 250, (4, 20)), axis=1)[:, ::-1].copy()
    batch = play_swiss(strength, 5, rng, 0.3, size)
    for g, n in enumerate(size):
        assert not batch.games[:, g, n:].any()
        table = _replay(batch.opponents[:, g, :n], batch.points[:, g, :n])
        assert (batch.buchholz[g, :n] / 2).tolist() == table.buchholz
        assert sum(table.wins) == sum(table.losses)


def test_draws_and_upsets_follow_the_strengths() -> None:
    rng = np.random.default_rng(1)
    even = play_swiss(np.full((2_000, 10), 1500.0), 5, rng, draw_share=0.3)
    games = even.games.sum()
    assert even.draws.sum() / games == pytest.approx(0.3, abs=0.02)
    gap = np.tile([1690.0, 1500.0], (20_000, 1))  # 190 points: about 3 of 4 points
    strong = play_swiss(gap, 1, rng, draw_share=0.3)
    assert strong.score[:, 0].mean() / 2 == pytest.approx(0.75, abs=0.01)


@pytest.mark.parametrize(
    ("players", "rounds", "draw", "size", "message"),
    [
        (
            1,
            3,
            0.3,
            None,
            r"strength must be an \(events, 2..64 players\) array, not shape \(2, 1\)",
        ),
        (8, 0, 0.3, None, "rounds must be at least 1, not 0"),
        (8, 3, 0.7, None, r"draw_share must lie between 0 and 0.5, not 0.7..0.7"),
        (8, 3, 0.3, [8, 9], r"size must give 2..8 players for each of the 2 events"),
    ],
)
def test_swiss_bad_arguments(
    players: int, rounds: int, draw: float, size: list[int] | None, message: str
) -> None:
    seats = None if size is None else np.array(size)
    with pytest.raises(ValueError, match=message):
        play_swiss(np.zeros((2, players)), rounds, np.random.default_rng(0), draw, seats)


# --- names and samples ----------------------------------------------------------------------


def _folded(names: tuple[str, ...]) -> list[str]:
    return [
        "".join(
            c for c in unicodedata.normalize("NFKD", n.casefold()) if not unicodedata.combining(c)
        )
        for n in names
    ]


@pytest.mark.parametrize("country", COUNTRIES, ids=lambda c: c.code)
def test_name_lists_stay_distinct_without_accents(country: Country) -> None:
    for names in (country.male + country.female, country.surnames, country.female_surnames or ()):
        folded = _folded(names)
        assert len(folded) == len(set(folded))


def test_names_carry_accents() -> None:
    every = {n for c in COUNTRIES for n in c.male + c.female + c.surnames}
    assert {"Müller", "Łukasz", "José", "Dvořák", "Søren"} <= every
    assert sum(c.weight for c in COUNTRIES) == pytest.approx(1.0)


def test_samples_are_up_to_date(tmp_path: Path) -> None:
    write_samples(tmp_path)
    for name in ("players.csv", "participants.csv", "results-2023.csv", "results-2024.csv"):
        assert (tmp_path / name).read_bytes() == (SAMPLES / name).read_bytes(), name
    assert_frame_equal(
        pl.read_excel(tmp_path / "results-2025.xlsx"), pl.read_excel(SAMPLES / "results-2025.xlsx")
    )


def test_sample_files_read_back() -> None:
    comma = pl.read_csv(SAMPLES / "results-2023.csv", try_parse_dates=True)
    assert (SAMPLES / "results-2024.csv").read_bytes().startswith(b"\xef\xbb\xbf")
    semicolon = pl.read_csv(SAMPLES / "results-2024.csv", separator=";", try_parse_dates=True)
    workbook = pl.read_excel(SAMPLES / "results-2025.xlsx")
    for frame, year in ((comma, 2023), (semicolon, 2024), (workbook, 2025)):
        assert frame.columns == list(RESULT_SCHEMA)
        assert (frame["end_date"].dt.year() == year).all()
    registry = pl.read_csv(SAMPLES / "players.csv", try_parse_dates=True)
    assert registry.columns == list(REGISTRY_SCHEMA)
    assert registry.height == 300
    assert registry["title"].drop_nulls().len() >= 3
    check_unique_names(registry)


def test_participants_mix_ids_names_and_newcomers() -> None:
    registry = pl.read_csv(SAMPLES / "players.csv")
    entries = pl.read_csv(SAMPLES / "participants.csv", schema_overrides={"rating": pl.Int64})
    assert entries.columns == ["player_id", "name", "country", "rating"]
    assert entries.height == 40
    by_id = entries.filter(pl.col("player_id").is_not_null())
    by_name = entries.filter(pl.col("player_id").is_null())
    assert set(by_id["player_id"]) <= set(registry["player_id"])
    known = {(fold(n), c) for n, c in registry.select("name", "country").iter_rows()}
    newcomers = [
        row
        for row in by_name.iter_rows(named=True)
        if (fold(row["name"]), row["country"]) not in known
    ]
    assert len(newcomers) == 3
    assert len(by_name) - 3 > 5
    assert len(by_id) > 5
    assert entries["rating"].drop_nulls().to_list() == [1150]
    assert [r["rating"] for r in newcomers].count(1150) == 1
