"""Tie-break values of every player of a crosstable (SPEC 5, seeds 000–003, FIDE 2009/2023/2026).

Every criterion is a sum over the player's rounds of one value per round, so the computation first
builds, for each player and round, the value that round contributes to SOS (the opponent's score,
or the virtual opponent of a missed round), then adds up what each criterion needs.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from ratings.crosstable import Cell, CellKind, Color, Crosstable, Outcome, System
from ratings.errors import InputError, Problem
from ratings.tiebreaks.policy import FIDE_RULES, MissedRounds, Policy
from ratings.tiebreaks.scores import (
    HALF,
    POINTS,
    ZERO,
    Progress,
    has_opponent,
    initial_scores,
    is_voluntarily_unplayed,
    progress,
)
from ratings.tiebreaks.validation import validate


@dataclass(frozen=True, slots=True)
class Standing:
    """One player's score and tie-break values, exact."""

    index: int
    """Position of the player in ``Crosstable.players``."""
    name: str
    points: Fraction
    """Swiss points as the file recorded them (every round's points)."""
    mms: Fraction | None
    """Final McMahon score (initial MMS + points + missed-round credit); None in a Swiss event."""
    score: Fraction
    """The score the tie-breaks were computed from: ``mms`` in McMahon, else Swiss points with the
    policy's missed-round credit."""
    sos: Fraction
    """Sum of opponents' scores (Buchholz), seed 003."""
    sos_cut1: Fraction
    """SOS without the lowest round (Buchholz Cut-1); FIDE 2023 cuts unplayed rounds first."""
    median: Fraction
    """SOS without the highest and the lowest round (Median Buchholz)."""
    sodos: Fraction
    """Sum of defeated opponents' scores, half of those drawn (seed 001); real opponents only."""
    sosos: Fraction
    """Sum of opponents' SOS (seed 000, seed 001)."""
    cuss: Fraction
    """Sum of the opponents' scores at the moment each round was paired (seed 001)."""
    mdos: Fraction
    """SODOS / wins, a draw counting half a win (seed 002); 0 without a win or draw."""
    sb: Fraction
    """Sonneborn-Berger: every round's points × that round's SOS value, missed rounds included."""
    wins: int
    """Rounds won against an opponent (over the board or by default)."""


@dataclass(frozen=True, slots=True)
class _RoundValue:
    value: Fraction
    """What the round adds to SOS."""
    vur: bool
    """Voluntarily unplayed round (FIDE 2023: cut first)."""
    opponent: int | None
    """Index of the real opponent whose score ``value`` is, None for a virtual one."""


def _is_mcmahon(crosstable: Crosstable) -> bool:
    return crosstable.system is System.MCMAHON


def _fide_adjusted(progress_: Progress, cells: tuple[Cell, ...]) -> Fraction:
    """FIDE 2023 art. 16: after an opponent's last available round (a withdrawal), his rounds
    without an opponent (requested byes, absences) count ½ each; a forfeit loss there keeps its
    real score (0), as FIDE's exercise and Vega's published values both show. Earlier rounds
    count as scored."""
    last_available = 0
    for cell in cells:
        if not is_voluntarily_unplayed(cell):
            last_available = cell.round
    later = cells[last_available:]
    return progress_.after[last_available] + sum(
        (HALF if cell.opponent is None else cell.outcome.points for cell in later), Fraction(0)
    )


def _fide_2009_seen(cells: tuple[Cell, ...]) -> Fraction:
    """FIDE 2009 (C.02 13.15.3): for his opponents, a player's unplayed rounds are all draws."""
    return sum((cell.outcome.points if cell.played else HALF for cell in cells), ZERO)


def _virtual_opponent(own: Progress, cell: Cell, rounds: int) -> Fraction:
    """FIDE 2009 (C.02 13.15.2): Svon = SPR + (1 - SfPR) + 0.5 (n - R), the virtual opponent's
    score after the ``rounds`` rounds computed."""
    return own.after[cell.round - 1] + (1 - POINTS[cell.outcome]) + HALF * (rounds - cell.round)


def _round_values(
    crosstable: Crosstable, policy: Policy, scores: list[Progress], handicap: bool
) -> list[list[_RoundValue]]:
    rule = policy.missed_rounds
    if rule is MissedRounds.FIDE_2009:
        seen_by_opponents = [_fide_2009_seen(player.cells) for player in crosstable.players]
    elif rule in FIDE_RULES:
        seen_by_opponents = [
            _fide_adjusted(p, player.cells)
            for p, player in zip(scores, crosstable.players, strict=True)
        ]
    else:
        seen_by_opponents = [p.final for p in scores]
    # C.07 (2023, 2026) cuts voluntarily unplayed rounds first; the 2009 rule knew no such thing.
    vur_first = rule in (MissedRounds.FIDE_2023, MissedRounds.FIDE_2026)
    cap = HALF * crosstable.rounds
    values: list[list[_RoundValue]] = []
    for index, player in enumerate(crosstable.players):
        own = scores[index]
        row: list[_RoundValue] = []
        for cell in player.cells:
            if has_opponent(cell, policy) and cell.opponent is not None:
                value = seen_by_opponents[cell.opponent]
                if handicap and cell.color is Color.WHITE:
                    # Seed 003 and OpenGotha: handicap given (White) added, received subtracted.
                    value += cell.handicap
                elif handicap and cell.color is Color.BLACK:
                    value -= cell.handicap
                row.append(_RoundValue(value, False, cell.opponent))
            elif rule is MissedRounds.FIDE_2009:
                row.append(
                    _RoundValue(_virtual_opponent(own, cell, crosstable.rounds), False, None)
                )
            elif rule is MissedRounds.FIDE_2026:
                # C.07 2026 art. 16.4: the dummy has the player's own score, capped by the
                # scheduled opponent's adjusted score for a forfeit (16.4.1), else by a draw's
                # points times the rounds of the event (16.4.2).
                if cell.kind is CellKind.FORFEIT and cell.opponent is not None:
                    dummy = min(own.final, seen_by_opponents[cell.opponent])
                else:
                    dummy = min(own.final, cap)
                row.append(_RoundValue(dummy, is_voluntarily_unplayed(cell), None))
            elif rule in (MissedRounds.FIDE_2023, MissedRounds.SELF_OPPONENT):
                # FIDE 2023 dummy opponent / seed 003 self-opponent: the player's own final score.
                row.append(
                    _RoundValue(own.final, vur_first and is_voluntarily_unplayed(cell), None)
                )
            else:
                # EGF/OpenGotha: the player's own initial score for a round without opponent.
                row.append(_RoundValue(own.initial, False, None))
        values.append(row)
    return values


def _cut(row: list[_RoundValue], lowest: int, highest: int) -> Fraction:
    """SOS without its ``lowest`` lowest and ``highest`` highest rounds (FIDE: VURs lowest)."""
    if lowest + highest >= len(row):
        return ZERO
    ranked = sorted(row, key=lambda v: (not v.vur, v.value))
    kept = ranked[lowest:]
    if highest:
        kept = sorted(kept, key=lambda v: v.value)[: len(kept) - highest]
    return sum((v.value for v in kept), ZERO)


def _points(cell: Cell) -> Fraction:
    return POINTS[cell.outcome]


def _compute(crosstable: Crosstable, policy: Policy, mcmahon: bool) -> tuple[Standing, ...]:
    problems: list[Problem] = validate(crosstable)
    initial, initial_problems = initial_scores(crosstable, policy, mcmahon)
    problems.extend(initial_problems)
    if problems:
        raise InputError(problems)
    scores = [
        progress(player, start, policy)
        for player, start in zip(crosstable.players, initial, strict=True)
    ]
    handicap = mcmahon and policy.handicap_in_sos
    values = _round_values(crosstable, policy, scores, handicap)
    sos = [sum((v.value for v in row), ZERO) for row in values]
    rounds = crosstable.rounds

    standings: list[Standing] = []
    for index, player in enumerate(crosstable.players):
        row = values[index]
        own = scores[index]
        sodos = ZERO
        won = ZERO
        sb = ZERO
        sosos = ZERO
        cuss = ZERO
        for cell, value in zip(player.cells, row, strict=True):
            sb += _points(cell) * value.value
            if value.opponent is not None:
                # Seed 001 SODOS / seed 002 MDOS: a win adds the opponent's score, a draw half.
                sodos += _points(cell) * value.value
                won += _points(cell)
                sosos += sos[value.opponent]
                # Seed 001 CuSS: the opponent's score when the round was paired, never updated.
                cuss += scores[value.opponent].after[cell.round - 1]
            elif policy.missed_rounds in (*FIDE_RULES, MissedRounds.SELF_OPPONENT):
                # Seed 003's self-opponent (and FIDE's dummy, whose score is the player's own):
                # the virtual opponent's SOS is the player's own, his score at pairing time too.
                sosos += sos[index]
                cuss += own.after[cell.round - 1]
            else:
                # OpenGotha's SOSOSM: initial MMS × rounds for each round without opponent.
                sosos += own.initial * rounds
                cuss += own.initial
        standings.append(
            Standing(
                index=index,
                name=player.name,
                points=sum((_points(c) for c in player.cells), ZERO),
                mms=own.final if mcmahon else None,
                score=own.final,
                sos=sos[index],
                sos_cut1=_cut(row, 1, 0),
                median=_cut(row, 1, 1),
                sodos=sodos,
                sosos=sosos,
                cuss=cuss,
                mdos=sodos / won if won else ZERO,
                sb=sb,
                wins=sum(
                    1 for c in player.cells if c.opponent is not None and c.outcome is Outcome.WIN
                ),
            )
        )
    return tuple(standings)


def compute(crosstable: Crosstable, policy: Policy | None = None) -> tuple[Standing, ...]:
    """Score and tie-breaks of every player, in the order of ``crosstable.players``.

    The score is the McMahon score in a McMahon event and Swiss points otherwise (SPEC 5). Raises
    :class:`~ratings.errors.InputError` when the crosstable is inconsistent or a McMahon player's
    initial score is unknown.
    """
    return _compute(crosstable, policy or Policy(), _is_mcmahon(crosstable))


def melo_buchholz(crosstable: Crosstable, policy: Policy | None = None) -> tuple[Fraction, ...]:
    """Buchholz for the MELO rating (SPEC 5): Swiss-point SOS with the event's missed-round policy.

    Swiss points even in a McMahon event: MELO compares results, not McMahon groups.
    """
    return tuple(s.sos for s in _compute(crosstable, policy or Policy(), mcmahon=False))
