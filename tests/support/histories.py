"""Small, consistent tournament histories for job tests.

Every event is a round robin among a few players of a pool, with seeded random results, so wins,
draws, losses and Buchholz (sum of the opponents' final scores) are consistent by construction.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from datetime import date, timedelta
from pathlib import Path

import polars as pl

COLUMNS = [
    "tournament", "tournament_id", "start_date", "end_date", "tier", "player_id", "name",
    "country", "title", "wins", "draws", "losses", "buchholz",
]  # fmt: skip


@dataclass(frozen=True)
class Row:
    tournament: str
    tournament_id: str
    start_date: date
    end_date: date
    tier: str
    player_id: str
    name: str
    country: str
    title: str | None
    wins: int
    draws: int
    losses: int
    buchholz: float


def round_robin(
    key: str, day: date, players: list[str], rng: random.Random, tier: str = "regular"
) -> list[Row]:
    n = len(players)
    wins = [0] * n
    draws = [0] * n
    losses = [0] * n
    opponents: list[list[int]] = [[] for _ in range(n)]
    for a in range(n):
        for b in range(a + 1, n):
            roll = rng.random()
            if roll < 0.4:
                wins[a] += 1
                losses[b] += 1
            elif roll < 0.7:
                draws[a] += 1
                draws[b] += 1
            else:
                wins[b] += 1
                losses[a] += 1
            opponents[a].append(b)
            opponents[b].append(a)
    score = [wins[i] + draws[i] / 2 for i in range(n)]
    return [
        Row(
            tournament=f"Event {key}",
            tournament_id=key,
            start_date=day - timedelta(days=1),
            end_date=day,
            tier=tier,
            player_id=p,
            name=f"Player {p}",
            country="GER" if int(p) % 2 else "AUT",
            title="GM" if p == "1" else None,
            wins=wins[i],
            draws=draws[i],
            losses=losses[i],
            buchholz=sum(score[j] for j in opponents[i]),
        )
        for i, p in enumerate(players)
    ]


def history(
    events: int = 30, pool: int = 24, seed: int = 7, start: date = date(2022, 1, 8)
) -> list[list[Row]]:
    """``events`` tournaments a week apart, each of 4 to 8 players of the pool."""
    rng = random.Random(seed)
    out = []
    for i in range(events):
        size = rng.randint(4, 8)
        players = [str(p) for p in rng.sample(range(1, pool + 1), size)]
        tier = rng.choice(["regular"] * 6 + ["national", "international"])
        out.append(round_robin(f"T{i:03d}", start + timedelta(weeks=i), players, rng, tier))
    return out


def frame(events: list[list[Row]]) -> pl.DataFrame:
    rows = [r for event in events for r in event]
    return pl.DataFrame([r.__dict__ for r in rows]).select(COLUMNS)


def write_csv(events: list[list[Row]], path: Path) -> Path:
    frame(events).write_csv(path)
    return path


def with_result(event: list[Row], index: int, **changes: object) -> list[Row]:
    """A copy of ``event`` with one row changed (for corrections)."""
    return [replace(r, **changes) if i == index else r for i, r in enumerate(event)]  # type: ignore[arg-type]


def split_history(events: int = 30) -> list[list[Row]]:
    """``events`` events in which player 3 appears as 103 in every other one, as a typo in the
    files would make him: two players who are one person, to merge."""
    return [
        [
            replace(r, player_id="103", name="Player Three") if r.player_id == "3" and i % 2 else r
            for r in event
        ]
        for i, event in enumerate(history(events=events))
    ]
