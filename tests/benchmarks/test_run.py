"""The benchmark harness on a tiny history, so that it keeps working; its figures are not checked
(speed belongs in the benchmark's output, not in tests), only that every step ran and agreed."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from benchmarks import run


def test_the_scenario_splits_the_last_month_and_corrects_an_event_a_year_back() -> None:
    plan = run.scenario(run.load(run.TINY).results)
    assert plan.month.height > 0
    assert plan.history["end_date"].max() < plan.month["end_date"].min()
    corrected = plan.correction["tournament_id"].unique().to_list()
    assert len(corrected) == 1
    original = plan.history.filter(plan.history["tournament_id"] == corrected[0])
    assert (original["buchholz"] - plan.correction["buchholz"]).to_list().count(0.5) == 1
    assert plan.next_period > plan.period


def test_one_database_run_measures_every_step(tmp_path: Path) -> None:
    run.prepare(run.TINY, tmp_path)
    row = run.measure(run.TINY, "sqlite", tmp_path)
    steps = row["seconds"]
    for name in (
        "import", "rate", "rate.load", "rate.compute", "rate.persist", "publish", "export",
        *(f"export.{fmt}" for fmt in run.EXPORT_FORMATS),
        "month", "month.import", "month.rate", "month.publish", "month.commit", "month.export",
        "month.read_back", "late.import", "late.rate", "rerate", "rerate.load",
        "rerate.compute", "rerate.persist", "import.read", "publish.floor", "retuned",
        "retuned.load", "retuned.compute", "retuned.persist",
    ):  # fmt: skip
        assert steps[name] >= 0, name
    # The floors keep nothing: the list's copy was rolled back.
    with sqlite3.connect(tmp_path / "bench.sqlite") as db:
        tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master")}
    assert not {t for t in tables if t.startswith("floor")}
    assert "list_entries" in tables
    assert row["rated_tournaments"] == row["tournaments"]
    assert row["month_tournaments"] > 0
    # The monthly job's parts are its whole.
    parts = sum(
        steps[f"month.{part}"] for part in ("import", "rate", "publish", "commit", "export")
    )
    assert parts == pytest.approx(steps["month"], abs=0.05)
    # The correction re-rates what follows it, never the whole history.
    assert 0 < row["late_tournaments"] < row["all_tournaments"]
    assert row["ranked_players"] > 0
    table = run.database_table([row])
    assert f"| late correction: re-rated of all | {row['late_tournaments']} of " in table
    # `run --full` rates every tournament again, the month's included.
    assert row["rerated_tournaments"] == row["all_tournaments"]
    assert row["retuned_tournaments"] == row["all_tournaments"]
    assert "| full re-rating, `run --full` (s) |" in table
    assert "| full re-rating after a parameter change, every rating changed (s) |" in table


def test_the_kernel_agrees_with_the_reference_to_ten_decimals() -> None:
    row = run.kernel_check(run.TINY)
    assert row["equal_to_10_decimals"] is True
    assert row["differing_players"] == 0
    # The first call includes the kernel's own work, so it is never cheaper than the best run.
    assert row["first_over_kernel_s"] > -0.01
    # The plain script reads, rates with the reference and writes: more than the rating alone.
    assert row["plain_script_s"] > row["reference_s"]
    assert "| yes |" in run.kernel_table([row])


@pytest.mark.slow
def test_the_command_runs_each_size_in_a_child_and_prints_the_tables(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run.main(["--sizes", run.TINY, "--databases", "sqlite"]) == 0
    out = capsys.readouterr().out
    assert "## Kernel against the row-at-a-time reference" in out
    assert "| step | XS sqlite |" in out


def test_an_unknown_size_is_refused() -> None:
    with pytest.raises(SystemExit):
        run.main(["--sizes", "XXL"])
