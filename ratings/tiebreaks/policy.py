"""The options a tie-break computation is run with: one frozen value, chosen per event.

Go and chess disagree on what a round without a game is worth, both to the player who missed it and
to the players who met him. Each convention found in the seeds (``000``–``003``), in OpenGotha
and in FIDE's tie-break rules of 2009, 2023 and 2026 is one :class:`MissedRounds` member; the
FIDE members carry the year the rule came into force.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from ratings.go import McMahonScale


class MissedRounds(enum.Enum):
    """What a round without an opponent (bye, absence, not paired) is worth in tie-breaks.

    Each member fixes three things: the credit the round adds to the player's own score, the value
    it adds to the player's own SOS (a "virtual opponent"), and the value it adds to his SOSOS.
    """

    HALF_POINT = "half_point"
    """½ point per missed round in the player's score (seed 003, "award 0.5 points per missed
    game"), whatever the file recorded; the player's own SOS gets his initial score (0 in Swiss),
    his SOSOS initial score × rounds."""

    ONE_PER_TWO = "one_per_two"
    """1 point per two missed rounds (seed 003), i.e. ⌊missed/2⌋; SOS and SOSOS as HALF_POINT."""

    OWN_MMS = "own_mms"
    """EGF rule as OpenGotha applies it: the missed round keeps the points the file recorded for it
    (OpenGotha: absent ½, bye 1, optionally rounded down); the player's own SOS gets his initial
    McMahon score for it (0 in Swiss) and his SOSOS initial MMS × rounds. Games decided by default
    count as paired rounds."""

    FIDE_2009 = "fide_2009"
    """FIDE's rule of 2009 (Congress 2009; Handbook C.02 art. 13.15.2-3, in force until C.07 of
    2023): an own unplayed round is a game against a virtual opponent who had the player's score
    before the round, took the opposite of the player's result in it and drew every later round,
    ``Svon = SPR + (1 - SfPR) + 0.5 (n - R)``; for the players who met him, every round the player
    did not play (byes, forfeits either way, absences) counts as a draw. Used for Buchholz and, as
    Vega and the programs of the time do, for Sonneborn-Berger (virtual opponent × own points).
    No unplayed round is cut first. Vega and Swiss-Manager printed these values until 2023."""

    FIDE_2023 = "fide_2023"
    """FIDE tie-break regulations 2023, art. 16: every round without a game over the board
    (forfeit either way, pairing bye, requested bye, absence) is unplayed; an own unplayed round
    counts as a dummy opponent with the player's own final score; an opponent's score counts his
    voluntarily unplayed rounds (requested byes, absences, forfeit losses) after his last available
    round as ½ each; Cut-1 removes voluntarily unplayed rounds first."""

    FIDE_2026 = "fide_2026"
    """FIDE tie-break regulations C.07 in force from 1 March 2026, art. 16.4: as FIDE_2023, but
    the dummy opponent's score is capped: for a forfeit (won or lost) by the scheduled opponent's
    adjusted score (16.4.1), for every other unplayed round by half a point times the rounds of
    the event (16.4.2)."""

    SELF_OPPONENT = "self_opponent"
    """Seed 003: each missed round is a game "against himself, winning every even-numbered game":
    the score gains ⌊missed/2⌋, the own SOS gets the player's own final score and the own SOSOS his
    own SOS for each missed round."""


FIDE_RULES = (MissedRounds.FIDE_2009, MissedRounds.FIDE_2023, MissedRounds.FIDE_2026)
"""The FIDE members: only games over the board count as played, unplayed rounds keep their points."""


@dataclass(frozen=True, slots=True)
class Policy:
    """How an event computes its tie-breaks. Defaults give the plain sums chess and Go agree on."""

    missed_rounds: MissedRounds = MissedRounds.OWN_MMS
    """Missed-round convention (see :class:`MissedRounds`). Default OWN_MMS: in a Swiss event it
    is the plain Buchholz (a missed round adds 0), in a McMahon event the EGF/OpenGotha rule."""

    handicap_in_sos: bool = False
    """Seed 003, "the sum of the handicap you give ... should be added": OpenGotha adds the
    handicap to the opponent's score when the player had White and subtracts it when he had Black.
    Applies to McMahon scores only; Swiss-point sums never include handicap."""

    round_down_missed: bool = False
    """OpenGotha's "round down NBW and MMS scores": the credit of missed rounds, summed up to each
    round, is rounded down to a whole point (so two absences at ½ give 1, one gives 0)."""

    mcmahon: McMahonScale | None = None
    """Scale for the initial McMahon score of players whose file gives only a rank (EGD ``.h9``)."""

    @classmethod
    def opengotha(
        cls, *, round_down_missed: bool = True, mcmahon: McMahonScale | None = None
    ) -> Policy:
        """OpenGotha's MMS, SOSM, SOSOSM: own MMS for missed rounds, handicap in SOS."""
        return cls(
            missed_rounds=MissedRounds.OWN_MMS,
            handicap_in_sos=True,
            round_down_missed=round_down_missed,
            mcmahon=mcmahon,
        )
