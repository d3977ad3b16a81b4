"""The plain script the medium benchmark measures the commands against, and the harness itself
on a tiny history: the script must rate as the service does (its ratios would mean nothing
otherwise), and every step of the harness must run; the figures themselves are not checked."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from benchmarks import medium, plain_script, run, startup
from ratings.parameters import MeloParams
from tests.support import histories


def test_the_plain_script_orders_tournaments_and_picks_k_as_the_seed_says(tmp_path: Path) -> None:
    events = histories.history(events=6)
    # Written last first: the script orders tournaments by their dates, not by the file.
    path = histories.write_csv(list(reversed(events)), tmp_path / "results.csv")
    read = plain_script.read_events(path, MeloParams())
    assert [e.entries[0].player for e in read] == [e[0].player_id for e in events]
    params = MeloParams()
    for event, rows in zip(read, events, strict=True):
        played_gm = any(r.title == "GM" and r.wins + r.draws + r.losses for r in rows)
        assert event.k == params.k_for(rows[0].tier, played_gm)
        assert [e.buchholz for e in event.entries] == [round(r.buchholz * 10_000) for r in rows]


def test_the_harness_runs_every_step_and_the_script_equals_the_service(tmp_path: Path) -> None:
    meta = medium.prepare(tmp_path, run.TINY)
    plain = medium.timed(
        [
            "-m",
            "benchmarks.plain_script",
            str(tmp_path / "history.csv"),
            str(tmp_path / "plain.csv"),
        ]
    )
    with (tmp_path / "plain.csv").open(newline="") as stream:
        rated = list(csv.DictReader(stream))
    assert len(rated) > 10
    assert all(len(r["rating"].split(".")[1]) == 10 for r in rated)
    row = medium.run_database("sqlite", tmp_path, meta)
    # Every player the service ranks, with the plain script's exact rating.
    assert row["differing"] == 0
    assert row["players"] == len(rated)
    for step in ("import", "rate", "publish", "month", "full"):
        assert row[step] > 0, step
    table = medium.table(plain, meta, [row])
    assert "| ratings equal to the plain script's, 10 decimals | yes |" in table
    assert "| plain script ÷ monthly job (target ≥ 4×) |" in table


def test_rounds_are_told_by_their_medians_and_each_ratios_range() -> None:
    steps = ("import", "rate", "publish", "month", "full")
    rounds = [
        {"database": "sqlite", "differing": 0, "plain": 8.0, **dict.fromkeys(steps, 4.0)},
        {"database": "sqlite", "differing": 2, "plain": 6.0, **dict.fromkeys(steps, 2.0)},
        {"database": "sqlite", "differing": 0, "plain": 9.0, **dict.fromkeys(steps, 3.0)},
    ]
    row = medium.medians(rounds)
    assert (row["import"], row["plain"], row["differing"]) == (3.0, 8.0, 2)
    # 8/4, 6/2 and 9/3: the ratio of each round, with its own plain script.
    assert row["ranges"]["month"] == (2.0, 3.0)
    table = medium.table(row["plain"], {"results": 10, "month_results": 1}, [row])
    assert "| plain script ÷ import (target ≥ 2×) | 2.67× |" in table
    assert "| the same ratio, round by round: lowest – highest (import) | 2.00× – 3.00× |" in table
    assert "| ratings equal to the plain script's, 10 decimals | NO (2 differ) |" in table


def test_the_startup_table_compares_each_command_with_a_bare_interpreter() -> None:
    seconds = {label: [0.5, 0.4] for label, _, _ in startup.COMMANDS}
    seconds["python -c pass"] = [0.05, 0.1]
    table = startup.table(seconds)
    assert "| `ratings --help` | 0.400 | 0.450 | 0.350 | 0.375 | ≤ 0.35 | - |" in table
    assert "| `python -c pass` | 0.050 | 0.075 | 0.000 | 0.000 | - | - |" in table


def test_a_command_that_warns_of_the_generator_s_clean_file_stops_the_benchmark() -> None:
    """The import of the generator's file must say nothing on stderr: a warning there (a country
    code taken for none) is a reader's mistake, not a figure to print."""
    medium.timed(["-c", "print('report')"], silent=True)
    with pytest.raises(RuntimeError, match="warned of the generator's clean file: warning: x"):
        medium.timed(["-c", "import sys; print('warning: x', file=sys.stderr)"], silent=True)
    medium.timed(["-c", "import sys; print('warning: x', file=sys.stderr)"])
