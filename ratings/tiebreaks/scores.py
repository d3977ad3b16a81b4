"""Each player's score round by round, the base every tie-break is built on.

Score (SPEC 5) = initial score + points from rounds with an opponent + the credit of missed rounds.
The initial score is 0 in Swiss and the initial McMahon score in McMahon (seed 000: "jeder Spieler
bekommt zu Beginn des Turniers einen MacMahonScore"); the credit of missed rounds is what the
:class:`~ratings.tiebreaks.policy.MissedRounds` member says.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from ratings.crosstable import Cell, CellKind, Crosstable, CrosstablePlayer, Outcome
from ratings.errors import Problem
from ratings.tiebreaks.policy import FIDE_RULES, MissedRounds, Policy

ZERO = Fraction(0)
HALF = Fraction(1, 2)
POINTS = {Outcome.WIN: Fraction(1), Outcome.DRAW: HALF, Outcome.LOSS: ZERO}
"""``Outcome.points`` as a table: the engine looks it up for every round of every player."""


def has_opponent(cell: Cell, policy: Policy) -> bool:
    """Whether the round counts as played against a real opponent under ``policy``.

    OpenGotha (and the Go conventions) treat a game decided by default as paired; FIDE (2009:
    "results by forfeit"; 2023 and 2026: art. 16) counts only games played over the board.
    """
    if policy.missed_rounds in FIDE_RULES:
        return cell.kind is CellKind.GAME
    return cell.kind in (CellKind.GAME, CellKind.FORFEIT) and cell.opponent is not None


def is_voluntarily_unplayed(cell: Cell) -> bool:
    """FIDE 2023 art. 16: requested byes, absences, forfeit losses; not byes or forfeit wins."""
    if cell.kind in (CellKind.REQUESTED_BYE, CellKind.ABSENT):
        return True
    return cell.kind is CellKind.FORFEIT and cell.outcome is Outcome.LOSS


@dataclass(frozen=True, slots=True)
class Progress:
    """One player's score before every round and at the end."""

    initial: Fraction
    after: tuple[Fraction, ...]
    """``after[r]`` is the score after ``r`` rounds: ``after[0]`` is the initial score,
    ``after[-1]`` the final one, ``after[r - 1]`` the score with which round ``r`` was paired."""

    @property
    def final(self) -> Fraction:
        return self.after[-1]


def _credit(missed: list[Cell], recorded: Fraction, policy: Policy) -> Fraction:
    """Credit of the ``missed`` rounds so far; ``recorded`` is the points the file gave them."""
    if policy.missed_rounds in (MissedRounds.ONE_PER_TWO, MissedRounds.SELF_OPPONENT):
        # Seed 003: one point per two missed rounds / winning every even-numbered game against
        # himself both give ⌊missed/2⌋ after each round.
        return Fraction(len(missed) // 2)
    credit = HALF * len(missed) if policy.missed_rounds is MissedRounds.HALF_POINT else recorded
    if policy.round_down_missed:
        # OpenGotha rounds the absent/bye points accumulated up to each round, not each round.
        return Fraction(math.floor(credit))
    return credit


def progress(player: CrosstablePlayer, initial: Fraction, policy: Policy) -> Progress:
    """Score after each round, with the missed-round credit of ``policy``."""
    after = [initial]
    from_games = ZERO
    recorded = ZERO
    missed: list[Cell] = []
    for cell in player.cells:
        if has_opponent(cell, policy):
            from_games += POINTS[cell.outcome]
        else:
            # FIDE counts unplayed rounds (forfeits included) with the points they gave.
            missed.append(cell)
            recorded += POINTS[cell.outcome]
        after.append(initial + from_games + _credit(missed, recorded, policy))
    return Progress(initial, tuple(after))


def initial_scores(
    crosstable: Crosstable, policy: Policy, mcmahon: bool
) -> tuple[list[Fraction], list[Problem]]:
    """Initial score of every player: 0 in Swiss, the initial McMahon score in McMahon."""
    if not mcmahon:
        return [ZERO] * len(crosstable.players), []
    scores: list[Fraction] = []
    problems: list[Problem] = []
    for player in crosstable.players:
        if player.initial_mms is not None:
            scores.append(player.initial_mms)
            continue
        unread = player.unread_rank
        if player.rank is None and unread is not None:
            problems.append(
                Problem(
                    crosstable.source,
                    unread.line,
                    unread.column,
                    unread.text,
                    f"{player.name}: rank {unread.text} has no k/d, and the file gives no "
                    "initial McMahon score to use instead: the rank is needed, and kyu or dan "
                    f"is not guessed (write it as {unread.text}k or {unread.text}d)",
                )
            )
            scores.append(ZERO)
            continue
        from_rank = None
        if policy.mcmahon is not None and player.rank is not None:
            from_rank = policy.mcmahon.initial(player.rank)
        if from_rank is None:
            problems.append(
                Problem(
                    crosstable.source,
                    player.line,
                    "rank",
                    player.rank,
                    f"{player.name}: the file gives no initial McMahon score; give the "
                    "event's McMahon bar and floor (--bar, --floor) to derive it from the rank",
                )
            )
            from_rank = 0
        scores.append(Fraction(from_rank))
    return scores, problems
