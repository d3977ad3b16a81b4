"""What an event's standings need beyond its games, kept with the event when it is imported.

The stored games hold every round of a crosstable (games, forfeits, byes, absences, colours,
handicaps), but not the rest of what ``ratings standings`` computes the standings from: whether
the event is Swiss or McMahon, its tie-break policy, each player's initial McMahon score and the
name as the file wrote it. :class:`StandingsRecord` holds exactly that, written as one JSON text
(``tournaments.standings``), so that the event's standings can be computed again from storage by
the same code as from the file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from fractions import Fraction

from ratings.crosstable import Crosstable, CrosstablePlayer, System
from ratings.tiebreaks.policy import MissedRounds, Policy


@dataclass(frozen=True, slots=True)
class RecordedPlayer:
    line: int | None
    """The player's line in the file, which the stored result keeps: how the two are paired."""
    name: str
    """The name as the file wrote it, as ``ratings standings`` prints it."""
    initial: Fraction | None = None
    """The initial McMahon score (None in a Swiss event, or where the file gave none)."""


@dataclass(frozen=True, slots=True)
class StandingsRecord:
    system: System
    policy: Policy
    """The policy the standings are computed with; no McMahon scale, the initial scores being
    resolved into ``players``."""
    players: tuple[RecordedPlayer, ...]
    """In the crosstable's order, which breaks ties in the standings."""

    def to_text(self) -> str:
        return json.dumps(
            {
                "system": self.system.value,
                "missed_rounds": self.policy.missed_rounds.value,
                "handicap_in_sos": self.policy.handicap_in_sos,
                "round_down_missed": self.policy.round_down_missed,
                "players": [
                    [p.line, p.name, None if p.initial is None else str(p.initial)]
                    for p in self.players
                ],
            },
            ensure_ascii=False,
            separators=(",", ":"),
        )

    @classmethod
    def from_text(cls, text: str) -> StandingsRecord:
        data = json.loads(text)
        policy = Policy(
            missed_rounds=MissedRounds(data["missed_rounds"]),
            handicap_in_sos=bool(data["handicap_in_sos"]),
            round_down_missed=bool(data["round_down_missed"]),
        )
        players = tuple(
            RecordedPlayer(line, name, None if initial is None else Fraction(initial))
            for line, name, initial in data["players"]
        )
        return cls(System(data["system"]), policy, players)


def standings_record(crosstable: Crosstable, policy: Policy) -> StandingsRecord:
    """The record of a crosstable read with ``policy``. A McMahon player's initial score is
    resolved as the standings take it (the file's, else from the rank by the policy's scale);
    where neither is known it stays None, and the standings computed from the record report it
    as ``ratings standings`` does."""
    mcmahon = crosstable.system is System.MCMAHON
    players = tuple(
        RecordedPlayer(player.line, player.name, _initial(player, policy) if mcmahon else None)
        for player in crosstable.players
    )
    kept = Policy(
        missed_rounds=policy.missed_rounds,
        handicap_in_sos=policy.handicap_in_sos,
        round_down_missed=policy.round_down_missed,
    )
    return StandingsRecord(crosstable.system, kept, players)


def _initial(player: CrosstablePlayer, policy: Policy) -> Fraction | None:
    # The rule of ratings.tiebreaks.scores.initial_scores, which reports what it cannot resolve.
    if player.initial_mms is not None:
        return player.initial_mms
    if player.rank is None or policy.mcmahon is None:
        return None
    score = policy.mcmahon.initial(player.rank)
    return None if score is None else Fraction(score)
