"""Generated crosstable histories: events of a shared pool of players, written as plain crosstable
CSV files (``importers.crosstable_csv``), so that the games, and the ratings of both players of
each game, are known.

Each player has a hidden strength; a game is won, drawn or lost with the Elo odds of the two
strengths, so that ratings spread out and every band of rating differences is met. Some events
have a grandmaster (player ``1``), some are championships, some rounds are byes or forfeits (not
games for the rating), and two middling players (``2`` and ``3``) meet often in duels that ``2``
mostly wins: the "1000 games problem" the MELO document warns of.
"""

from __future__ import annotations

import csv
import random
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

from importers.from_crosstable import EventOptions


@dataclass(frozen=True)
class Event:
    path: Path
    options: EventOptions


def _strengths(pool: int, rng: random.Random) -> dict[int, float]:
    return {p: rng.gauss(0.0, 250.0) for p in range(1, pool + 1)}


def _result(a: float, b: float, rng: random.Random) -> str:
    """``+``, ``=`` or ``-`` for the player of strength ``a`` against ``b``."""
    win = 1.0 / (1.0 + 10 ** ((b - a) / 400.0))
    draw = 0.2 * (1.0 - abs(2 * win - 1.0))
    roll = rng.random()
    if roll < win - draw / 2:
        return "+"
    if roll < win + draw / 2:
        return "="
    return "-"


FLIP = {"+": "-", "-": "+", "=": "="}


def _write(path: Path, players: list[int], rounds: list[dict[int, str]]) -> None:
    numbers = {p: n for n, p in enumerate(players, start=1)}
    with path.open("w", newline="", encoding="utf-8") as stream:
        out = csv.writer(stream)
        out.writerow(
            ["no", "name", "player_id", "title", *(f"r{i}" for i in range(1, len(rounds) + 1))]
        )
        for p in players:
            cells = []
            for pairing in rounds:
                cell = pairing.get(p, "")
                if cell and cell[0].isdigit():
                    opponent, result = cell.split(":")
                    cell = f"{numbers[int(opponent)]}{result}"
                cells.append(cell)
            title = "GM" if p == 1 else ""
            out.writerow([numbers[p], f"Player {p}", str(p), title, *cells])


def round_robin(
    players: list[int], strength: dict[int, float], rng: random.Random
) -> list[dict[int, str]]:
    """Every pair once (circle method), an odd player out with a bye; now and then a forfeit."""
    seats = list(players) + ([0] if len(players) % 2 else [])
    rounds = []
    for _ in range(len(seats) - 1):
        pairing: dict[int, str] = {}
        for i in range(len(seats) // 2):
            a, b = seats[i], seats[-1 - i]
            if 0 in (a, b):
                pairing[a or b] = "+"
                continue
            if rng.random() < 0.04:
                pairing[a], pairing[b] = f"{b}:+F", f"{a}:-F"
                continue
            result = _result(strength[a], strength[b], rng)
            pairing[a], pairing[b] = f"{b}:{result}", f"{a}:{FLIP[result]}"
        rounds.append(pairing)
        seats = [seats[0], seats[-1], *seats[1:-1]]
    return rounds


def duel(rounds: int, rng: random.Random) -> list[dict[int, str]]:
    """Players 2 and 3 alone, ``rounds`` games, 2 winning about four in five."""
    out = []
    for _ in range(rounds):
        result = "+" if rng.random() < 0.8 else rng.choice("=-")
        out.append({2: f"3:{result}", 3: f"2:{FLIP[result]}"})
    return out


def history(
    folder: Path,
    events: int = 24,
    pool: int = 16,
    seed: int = 11,
    start: date = date(2023, 1, 14),
) -> list[Event]:
    """``events`` crosstables a week apart (a duel of 2 and 3 every fourth week)."""
    rng = random.Random(seed)
    strength = _strengths(pool, rng)
    out = []
    for i in range(events):
        day = start + timedelta(weeks=i)
        if i % 4 == 3:
            players, rounds, tier = [2, 3], duel(8, rng), "regular"
        else:
            size = rng.randint(4, 9)
            players = rng.sample(range(1 if i % 3 == 0 else 2, pool + 1), size)
            rounds = round_robin(players, strength, rng)
            tier = rng.choice(["regular"] * 5 + ["national", "international"])
        path = folder / f"event-{i:03d}.csv"
        _write(path, players, rounds)
        out.append(Event(path, EventOptions(name=f"Event {i:03d}", end_date=day, tier=tier)))
    return out
