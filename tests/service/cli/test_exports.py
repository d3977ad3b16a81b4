"""What the commands write for an officer: numbers as numbers, diffs in whole points, a player's
history in whole and two-decimal ratings, and counts in words."""

from __future__ import annotations

import csv
import io
import re
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import openpyxl

from ratings.formula import format_hundredths
from tests.support import histories

EXACT_TEXT = re.compile(r"^-?[0-9]+\.[0-9]{10}$")


def _published(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Twelve events rated, the 2022-03 list published, then six more and the 2022-06 list."""
    events = histories.history(events=18)
    first = histories.write_csv(events[:12], tmp_path / "first.csv")
    second = histories.write_csv(events[12:], tmp_path / "second.csv")
    assert run("import", str(first))[0] == 0
    assert run("run")[0] == 0
    assert run("publish", "2022-04")[0] == 0
    assert run("import", str(second))[0] == 0
    assert run("run")[0] == 0
    assert run("publish", "2022-06")[0] == 0


def test_a_history_csv_and_xlsx_hold_numbers_not_text(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _published(run, tmp_path)
    falls = 0
    for player in ("1", "2", "3", "4"):
        code, out, _ = run("player", player, "--format", "csv")
        assert code == 0
        rows = list(csv.DictReader(io.StringIO(out)))
        assert not [v for r in rows for v in r.values() if v.startswith("'")]
        for name in ("expected", "m_avg", "b_avg", "rating_before", "rating_after", "change"):
            assert all(EXACT_TEXT.match(r[name]) for r in rows)
        falls += sum(r["change"].startswith("-") for r in rows)
        target = tmp_path / f"player-{player}.xlsx"
        assert run("player", player, "-o", str(target))[0] == 0
        sheet = openpyxl.load_workbook(target).active
        header = [c.value for c in sheet[1]]
        for cells, written in zip(sheet.iter_rows(min_row=2), rows, strict=True):
            change = cells[header.index("change")]
            assert change.data_type == "n"
            assert f"{change.value:.10f}" == written["change"]
            assert cells[header.index("tournament")].data_type == "s"
    assert falls


def test_diff_counts_whole_points_unless_exact(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _published(run, tmp_path)
    code, out, _ = run("diff", "2022-04", "2022-06", "--format", "csv")
    assert code == 0
    whole = list(csv.DictReader(io.StringIO(out)))
    code, out, _ = run("diff", "2022-04", "2022-06", "--exact", "--format", "csv")
    assert code == 0
    exact = {r["player_id"]: r for r in csv.DictReader(io.StringIO(out))}
    assert whole
    assert {r["player_id"] for r in whole} <= set(exact)
    for row in whole:
        assert re.match(r"^-?[0-9]*$", row["change"])
        assert re.match(r"^-?[0-9]+$", row["rating_new"])
        if row["status"] == "changed":
            assert int(row["change"]) == int(row["rating_new"]) - int(row["rating_old"]) != 0
    for row in exact.values():
        assert row["change"] == "" or EXACT_TEXT.match(row["change"])
    # A player whose exact rating moved but whose whole rating did not is in the exact diff only.
    hidden = {p for p, r in exact.items() if r["status"] == "changed"} - {
        r["player_id"] for r in whole
    }
    for player in hidden:
        row = exact[player]
        assert round(float(row["rating_old"])) == round(float(row["rating_new"]))
    target = tmp_path / "diff.csv"
    assert run("diff", "2022-04", "2022-06", "--exact", "-o", str(target))[0] == 0
    assert "'" not in target.read_text()


def test_player_text_shows_whole_ratings_and_two_decimals(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _published(run, tmp_path)
    code, out, _ = run("player", "3", "--format", "csv")
    history = list(csv.DictReader(io.StringIO(out)))
    current = Decimal(history[-1]["rating_after"])
    code, out, _ = run("player", "3")
    assert code == 0
    lines = out.splitlines()
    whole = int(current.quantize(Decimal(1), ROUND_HALF_UP))
    two = current.quantize(Decimal("0.01"), ROUND_HALF_UP)
    assert lines[1].endswith(f"; rating {whole} (exact {two})")
    assert lines[2].split() == [
        "date", "tournament", "tier", "k", "games", "wins", "draws", "losses", "points",
        "expected", "before", "after", "change", "rating",
    ]  # fmt: skip
    table = lines[4:]
    assert len(table) == len(history)
    for line, row in zip(table, history, strict=True):
        *_, expected, before, after, change, rating = line.split()
        for shown, exact in ((before, "rating_before"), (after, "rating_after"),
                             (expected, "expected")):  # fmt: skip
            assert shown == str(Decimal(row[exact]).quantize(Decimal("0.01"), ROUND_HALF_UP))
        moved = Decimal(row["change"])
        assert change.lstrip("+") == format_hundredths(int(moved.scaleb(10)))
        assert change.startswith("+") == (moved >= Decimal("0.005"))
        assert int(rating) == int(Decimal(row["rating_after"]).quantize(Decimal(1), ROUND_HALF_UP))
        assert len(line) <= 140


def test_counts_of_one_are_singular(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # One file with one tournament: its first row alone is one result of one player.
    event = histories.history(events=1)[0]
    path = histories.write_csv([event], tmp_path / "one.csv")
    code, out, _ = run("import", str(path))
    assert code == 0
    assert f"imported 1 new and 0 corrected tournaments, {len(event)} results, " in out
    assert "from 1 file\n" in out
    assert "file(s)" not in out
    code, out, _ = run("run")
    players = len({r.player_id for r in event})
    assert out.strip() == f"rated 1 tournament, {len(event)} results, {players} players"
    code, out, _ = run("tournaments", "list")
    key = out.splitlines()[2].split()[0]
    code, out, _ = run("tournaments", "show", key)
    assert code == 0
    assert f"\n{len(event)} results:" in out
