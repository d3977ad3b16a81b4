"""The load tool of ``benchmarks/load.py`` on the tiny size: a few readers for a few seconds
against a real ``ratings serve`` on SQLite. It checks the tool, not the figures."""

from __future__ import annotations

import random

import pytest

from benchmarks import load


def test_the_page_mix_asks_for_every_kind_of_page() -> None:
    known = {"players": [str(n) for n in range(500)], "countries": ["AUT"], "period": "2030-01"}
    rng = random.Random(1)
    kinds = {load.pick(rng, known)[0] for _ in range(200)}
    assert kinds == {"list", "search", "player"}


def test_a_short_run_reports_every_kind_and_the_health_probe(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(load, "THINK", (0.1, 0.3))
    assert (
        load.main(["--size", "XS", "--readers", "4", "--seconds", "3", "--databases", "sqlite"])
        == 0
    )
    out = capsys.readouterr().out
    assert "sqlite, size XS" in out
    for kind in ("list", "search", "player", "all"):
        row = next(line for line in out.splitlines() if line.startswith(f"| {kind} |"))
        asked, errors = int(row.split("|")[2]), int(row.split("|")[-2])
        assert asked > 0
        assert errors == 0
    assert "chart images after player pages: 200:" in out
    assert "/health:" in out
    assert "0 errors" in out
