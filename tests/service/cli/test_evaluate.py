"""``ratings evaluate`` and ``ratings tournaments show --format csv|json`` against a plain replay
written here: the inputs read back from the imported tables with plain SQL, MELO replayed event
by event with Python numbers, and every figure computed again in a few loops. On generated
histories (a results table and crosstables of a shared pool) and on the real crosstables of
``tests/data``; every figure must agree to 1e-9. On SQLite and PostgreSQL."""

from __future__ import annotations

import csv
import io
import json
import math
from collections import defaultdict
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, text

from tests.service.cli.conftest import Invoke
from tests.support import crosstables, histories
from tests.support.data import GOLDEN

TOLERANCE = 1e-9
SCALE = 10**10
INITIAL = 1000 * SCALE
K = {"regular": 5, "grandmaster": 10, "national": 20, "international": 30}
BAND = 25


@dataclass
class Result:
    event: int
    player: int
    wins: int
    draws: int
    losses: int
    buchholz: int
    title: str | None

    @property
    def n(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def p(self) -> float:
        return self.wins + self.draws / 2


@dataclass
class Event:
    id: int
    key: str
    start: date
    end: date
    tier: str
    results: list[Result]


def _day(value: Any) -> date:
    return value if isinstance(value, date) else date.fromisoformat(str(value)[:10])


def inputs(url: str) -> tuple[list[Event], list[tuple[int, int, int, float]], dict[int, str]]:
    """The imported events in rating order with their results, the games played over the board
    (event, player, opponent, points) and each player's federation id, by plain SQL."""
    engine = create_engine(url)
    with engine.connect() as connection:
        events = {
            row[0]: Event(row[0], row[1], _day(row[2]), _day(row[3]), row[4], [])
            for row in connection.execute(
                text("SELECT id, key, start_date, end_date, tier FROM tournaments")
            )
        }
        for row in connection.execute(
            text(
                "SELECT tournament_id, player_id, wins, draws, losses, buchholz, title FROM results"
            )
        ):
            events[row[0]].results.append(Result(*row))
        points = {"+": 1.0, "=": 0.5, "-": 0.0}
        games = [
            (row[0], row[1], row[2], points[row[3]])
            for row in connection.execute(
                text(
                    "SELECT tournament_id, player_id, opponent_id, outcome FROM games "
                    "WHERE kind = 'game'"
                )
            )
        ]
        ids = dict(connection.execute(text("SELECT id, federation_id FROM players")).all())
    engine.dispose()
    ordered = sorted(events.values(), key=lambda e: (e.end, e.start, e.key))
    return ordered, games, {int(k): str(v) for k, v in ids.items()}


def rated_tier(event: Event) -> str:
    if event.tier == "regular" and any(r.title == "GM" and r.n for r in event.results):
        return "grandmaster"
    return event.tier


def replay(events: list[Event], k: dict[str, int]) -> dict[tuple[int, int], tuple[int, float, int]]:
    """MELO, event by event: each result's (rating before, E, rating after)."""
    ratings: dict[int, int] = {}
    out = {}
    for event in events:
        for r in event.results:
            ratings.setdefault(r.player, INITIAL)
        playing = [r for r in event.results if r.n]
        n = len(playing)
        sum_m = sum(ratings[r.player] for r in playing)
        sum_b = sum(r.buchholz for r in playing)
        new = {}
        for r in event.results:
            before = ratings[r.player]
            if not r.n:
                out[(event.id, r.player)] = (before, 0.0, before)
                continue
            m_avg = float(sum_m) / n / SCALE
            ratio = float(r.buchholz * n) / float(sum_b) if sum_b > 0 else 1.0
            m_opp = m_avg * (1 + (ratio - 1) / 2)
            e = r.n / (1 + 10 ** ((m_opp - before / SCALE) / 400))
            new[r.player] = before + round(k[rated_tier(event)] * (r.p - e) * SCALE)
            out[(event.id, r.player)] = (before, e, new[r.player])
        ratings.update(new)
    return out


def per_game(r: int, opponent: int) -> float:
    return 1 / (1 + 10 ** ((opponent / SCALE - r / SCALE) / 400))


def score_mse(
    events: list[Event], rated: dict[tuple[int, int], tuple[int, float, int]], window: Any
) -> float:
    rows = [
        (r.p, rated[(e.id, r.player)][1], r.n)
        for e in events
        if window(e)
        for r in e.results
        if r.n
    ]
    return sum((p - x) ** 2 / n for p, x, n in rows) / sum(n for _, _, n in rows)


def plain_figures(
    url: str, start: date | None, end: date | None, pair_games: int
) -> dict[str, Any]:
    """Every figure of the evaluation, computed plainly."""
    events, games, ids = inputs(url)

    def window(e: Event) -> bool:
        return (start is None or e.end >= start) and (end is None or e.end <= end)

    rated = replay(events, K)
    counted = [(e, r) for e in events if window(e) for r in e.results if r.n]
    figures: dict[str, Any] = {
        "results": len(counted),
        "games": sum(r.n for _, r in counted),
        "score_mse": score_mse(events, rated, window),
    }
    bins = []
    for i in range(10):
        low, high = i / 10, (i + 1) / 10
        inside = [
            (e, r) for e, r in counted
            if low <= rated[(e.id, r.player)][1] / r.n < high
            or (i == 9 and rated[(e.id, r.player)][1] / r.n == 1.0)
        ]  # fmt: skip
        g = sum(r.n for _, r in inside)
        bins.append(
            {
                "low": low,
                "high": high,
                "games": g,
                "expected": sum(rated[(e.id, r.player)][1] for e, r in inside) / g if g else None,
                "actual": sum(r.p for _, r in inside) / g if g else None,
            }
        )
    figures["calibration"] = bins
    by_tier: dict[str, list[tuple[Event, Result]]] = defaultdict(list)
    for e, r in counted:
        by_tier[rated_tier(e)].append((e, r))
    figures["by_tier"] = {
        tier: {
            "results": len(rows),
            "games": sum(r.n for _, r in rows),
            "score_mse": sum((r.p - rated[(e.id, r.player)][1]) ** 2 / r.n for e, r in rows)
            / sum(r.n for _, r in rows),
        }
        for tier, rows in by_tier.items()
    }
    by_id = {e.id: e for e in events}
    played = [g for g in games if window(by_id[g[0]])]
    before = {key: value[0] for key, value in rated.items()}
    squares = [(s - per_game(before[(t, a)], before[(t, b)])) ** 2 for t, a, b, s in played]
    figures["game_brier"] = sum(squares) / len(squares) if squares else None
    figures["game_count"] = len(played) // 2

    sweep = {}
    for tier in by_tier:
        for k in range(max(0, K[tier] // 2 - 1), 2 * K[tier] + 2):
            sweep[(tier, k)] = None  # filled for the values the command reports
    figures["sweep"] = sweep

    # The pool: everyone with a result so far, after the last counted event of each month.
    current: dict[int, int] = {}
    months: dict[str, tuple[int, float]] = {}
    for e in events:
        for r in e.results:
            current[r.player] = rated[(e.id, r.player)][2]
        if window(e) and e.results:
            mean = sum(current.values()) / len(current) / SCALE
            months[e.end.strftime("%Y-%m")] = (len(current), mean)
    figures["months"] = months

    with_games = {(t, a) for t, a, _, _ in games}
    claims = []
    for difference in (190, 382):
        low, high = difference - BAND, difference + BAND
        scored = expected = weight = 0.0
        for t, a, b, s in played:
            lead = (before[(t, a)] - before[(t, b)]) / SCALE
            if low <= lead <= high:
                scored, expected, weight = (
                    scored + s,
                    expected + per_game(before[(t, a)], before[(t, b)]),
                    weight + 1,
                )
        for e, r in counted:
            if (e.id, r.player) in with_games:
                continue
            x = rated[(e.id, r.player)][1] / r.n
            share = r.p / r.n
            lead = 400 * math.log10(x / (1 - x))
            if lead < 0:
                lead, x, share = -lead, 1 - x, 1 - share
            if low <= lead <= high:
                scored, expected, weight = scored + share * r.n, expected + x * r.n, weight + r.n
        claims.append(
            (
                difference,
                weight,
                scored / weight if weight else None,
                expected / weight if weight else None,
            )
        )
    figures["claims"] = claims

    gains: dict[tuple[int, int], list[float]] = defaultdict(lambda: [0, 0.0, 0.0])
    for t, a, b, s in played:
        event = by_id[t]
        if rated_tier(event) == "grandmaster":
            continue
        row = gains[(a, b)]
        row[0] += 1
        row[1] += s
        row[2] += K[rated_tier(event)] * (s - per_game(before[(t, a)], before[(t, b)]))
    total: dict[int, float] = defaultdict(float)
    for e, r in counted:
        b, _, a = rated[(e.id, r.player)]
        total[r.player] += (a - b) / SCALE
    figures["pairs"] = sorted(
        (ids[a], ids[b], int(g), s, gain, total[a])
        for (a, b), (g, s, gain) in gains.items()
        if g >= pair_games and gain > 0 and total[a] > 0 and gain > total[a] / 2
    )
    figures["replay"] = (events, rated)
    return figures


def close(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= TOLERANCE


def check(
    found: dict[str, Any],
    url: str,
    start: date | None = None,
    end: date | None = None,
    pair_games: int = 20,
) -> None:
    plain = plain_figures(url, start, end, pair_games)
    assert (found["results"], found["games"]) == (plain["results"], plain["games"])
    assert close(found["score_mse"], plain["score_mse"])
    assert len(found["calibration"]) == 10
    for mine, theirs in zip(found["calibration"], plain["calibration"], strict=True):
        assert (mine["low"], mine["high"], mine["games"]) == (
            theirs["low"],
            theirs["high"],
            theirs["games"],
        )
        assert close(mine["expected"], theirs["expected"])
        assert close(mine["actual"], theirs["actual"])
    assert set(found["by_tier"]) == set(plain["by_tier"])
    for tier, theirs in plain["by_tier"].items():
        mine = found["by_tier"][tier]
        assert (mine["results"], mine["games"]) == (theirs["results"], theirs["games"])
        assert close(mine["score_mse"], theirs["score_mse"])
    assert close(found["game_brier"], plain["game_brier"])
    assert found["game_count"] == plain["game_count"]

    events, _ = plain["replay"]

    def window(e: Event) -> bool:
        return (start is None or e.end >= start) and (end is None or e.end <= end)

    tiers = {row["tier"] for row in found["k_sweep"]}
    assert tiers == set(plain["by_tier"])
    for tier in tiers:
        ks = [row["k"] for row in found["k_sweep"] if row["tier"] == tier]
        assert min(ks) <= K[tier] / 2
        assert max(ks) >= 2 * K[tier]
        assert K[tier] in ks
        best = None
        for row in (r for r in found["k_sweep"] if r["tier"] == tier):
            expected = score_mse(events, replay(events, {**K, tier: row["k"]}), window)
            assert close(row["score_mse"], expected), (tier, row["k"])
            best = min(best or (expected, row["k"]), (expected, row["k"]))
        assert best is not None
        assert found["suggested_k"][tier] == best[1]

    pool = found["claims"]["pool_mean"]
    assert [m["month"] for m in pool["months"]] == list(plain["months"])
    for m in pool["months"]:
        players, mean = plain["months"][m["month"]]
        assert m["players"] == players
        assert close(m["mean"], mean)
        assert close(m["drift"], mean - 1000)
    for mine, (difference, weight, observed, formula) in zip(
        found["claims"]["score_at_difference"], plain["claims"], strict=True
    ):
        assert (mine["difference"], mine["games"]) == (difference, weight)
        assert close(mine["observed"], observed)
        assert close(mine["formula"], formula)
    pairs = found["claims"]["thousand_games"]["pairs"]
    got = sorted(
        (
            p["player"],
            p["opponent"],
            p["games"],
            p["score"],
            p["gain_from_each_other"],
            p["total_gain"],
        )
        for p in pairs
    )
    assert [g[:4] for g in got] == [p[:4] for p in plain["pairs"]]
    for mine_pair, plain_pair in zip(got, plain["pairs"], strict=True):
        assert close(mine_pair[4], plain_pair[4])
        assert close(mine_pair[5], plain_pair[5])


def check_events(run: Invoke, url: str) -> int:
    """``tournaments show --format csv`` of every event against the replay; the events with games
    checked."""
    events, games, ids = inputs(url)
    rated = replay(events, K)
    by_event: dict[int, list[tuple[int, int, float]]] = defaultdict(list)
    for t, a, b, s in games:
        by_event[t].append((a, b, s))
    checked = 0
    for event in events:
        code, out, err = run("tournaments", "show", event.key, "--format", "csv")
        assert (code, err) == (0, "")
        rows = {row["player_id"]: row for row in csv.DictReader(io.StringIO(out))}
        assert set(rows) == {ids[r.player] for r in event.results}
        k = K[rated_tier(event)]
        for r in event.results:
            row = rows[ids[r.player]]
            before, e, after = rated[(event.id, r.player)]
            assert abs(float(row["rating_before"]) - before / SCALE) <= TOLERANCE
            assert abs(float(row["expected"]) - e) <= TOLERANCE
            assert abs(float(row["change"]) - (after - before) / SCALE) <= TOLERANCE
            if event.id not in by_event:
                assert row["expected_by_games"] == row["change_by_games"] == ""
                continue
            sums = sum(
                per_game(before, rated[(event.id, b)][0])
                for a, b, _ in by_event[event.id]
                if a == r.player
            )
            assert abs(float(row["expected_by_games"]) - sums) <= TOLERANCE
            assert abs(float(row["change_by_games"]) - k * (r.p - sums)) <= TOLERANCE
        checked += event.id in by_event
    return checked


def evaluated(run: Invoke, *args: str) -> dict[str, Any]:
    code, out, err = run("evaluate", "--format", "json", *args)
    assert (code, err) == (0, "")
    found: dict[str, Any] = json.loads(out)
    return found


def test_evaluate_agrees_with_a_plain_replay_of_a_generated_history(
    run: Invoke, database_url: str, tmp_path: Path
) -> None:
    table = histories.write_csv(histories.history(events=30), tmp_path / "results.csv")
    assert run("import", str(table))[0] == 0
    for event in crosstables.history(tmp_path, events=28):
        options = event.options
        code, _, err = run(
            "import", str(event.path), "--name", str(options.name), "--end-date",
            str(options.end_date), "--tier", options.tier,
        )  # fmt: skip
        assert code == 0, err
    assert run("run")[0] == 0
    found = evaluated(run, "--pair-games", "12")
    check(found, database_url, pair_games=12)
    # Every band, tier and figure is met: the check above compared something.
    assert set(found["by_tier"]) == set(K)
    assert found["claims"]["score_at_difference"][0]["from_games"] > 0
    assert found["claims"]["score_at_difference"][0]["from_results"] > 0
    assert [p["player"] for p in found["claims"]["thousand_games"]["pairs"]] == ["2"]
    assert found["game_count"] > 0
    assert found["parameters"]["rated_with_other_k"] is False
    # A window of dates: ratings still come from the whole history before it.
    start, end = date(2022, 3, 1), date(2023, 4, 30)
    check(evaluated(run, "--from", str(start), "--to", str(end)), database_url, start, end)
    assert check_events(run, database_url) == 28


def test_evaluate_agrees_with_a_plain_replay_of_the_real_crosstables(
    run: Invoke, database_url: str
) -> None:
    go = GOLDEN / "go_opengotha"
    for args in (
        [str(go / "juvisy2019.xml")],
        # The same event again under another key: its players now have ratings apart.
        [str(go / "juvisy2019.h9"), "--key", "juvisy-again", "--end-date", "2019-11-30"],
        [str(go / "egc2013.h9")],
        [str(go / "ioct_20_02.h9")],
        [str(GOLDEN / "chess_trf_samples" / "bbp_dutch_2025_C5.trf"), "--end-date", "2025-03-02",
         "--tier", "national"],
    ):  # fmt: skip
        assert run("import", *args)[0] == 0
    assert run("run")[0] == 0
    found = evaluated(run)
    check(found, database_url)
    assert found["game_count"] > 2000
    assert check_events(run, database_url) == 5


def test_the_text_csv_and_html_carry_the_figures(run: Invoke, tmp_path: Path) -> None:
    table = histories.write_csv(histories.history(events=12), tmp_path / "results.csv")
    assert run("import", str(table))[0] == 0
    assert run("run")[0] == 0
    found = evaluated(run)
    code, out, _ = run("evaluate")
    assert code == 0
    assert f"{found['score_mse']:.6f}" in out
    assert "k sweep" in out
    assert "calibration" in out
    code, out, _ = run("evaluate", "--format", "csv")
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["figure", "key", "value"]
    assert ["score_mse", "", repr(found["score_mse"])] in rows
    sweep = [r for r in rows if r[0] == "k_sweep.score_mse"]
    assert len(sweep) == len(found["k_sweep"])
    code, _, err = run("evaluate", "-o", str(tmp_path / "evaluation.html"))
    assert code == 0
    assert "wrote the evaluation of" in err
    page = (tmp_path / "evaluation.html").read_text()
    assert page.count("<svg") == 4
    assert "How good is the list" in page


def test_evaluate_refuses_what_it_cannot_read(run: Invoke) -> None:
    code, _, err = run("evaluate", "--from", "2024-02-01", "--to", "2024-01-01")
    assert code == 2
    assert "--to" in err
    assert "before --from 2024-02-01" in err
    code, _, err = run("evaluate", "--from", "1 May")
    assert code == 2
    assert "expected a date as YYYY-MM-DD" in err
    code, _, err = run("evaluate", "--pair-games", "0")
    assert code == 2
    assert "--pair-games" in err
    code, _, err = run("tournaments", "show", "nothing-here", "--format", "csv")
    assert (code, err) == (1, "error: no tournament has the key nothing-here\n")


def test_an_empty_history_evaluates_to_nothing(run: Invoke) -> None:
    found = evaluated(run)
    assert (found["results"], found["games"], found["score_mse"], found["game_brier"]) == (
        0,
        0,
        None,
        None,
    )
    assert found["k_sweep"] == []
    assert found["by_tier"] == {}
    assert all(b["games"] == 0 and b["expected"] is None for b in found["calibration"])
    code, out, _ = run("evaluate")
    assert code == 0
    assert "results (N >= 1)" in out
