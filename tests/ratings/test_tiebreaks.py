"""Unit tests of the tie-break engine: every criterion and every missed-round policy on small
crosstables whose values are worked out by hand in the comments."""

from __future__ import annotations

import dataclasses
from fractions import Fraction as F

import pytest

from ratings.crosstable import Crosstable
from ratings.errors import InputError
from ratings.go import rank_value
from ratings.tiebreaks import (
    McMahonScale,
    MissedRounds,
    Policy,
    Standing,
    compute,
    melo_buchholz,
    ordered,
)
from tests.ratings.builder import build

# Swiss, 4 players, 3 rounds; players 1 and 4 absent in round 3.
# Points: 1 → 2, 2 → 1, 3 → ½, 4 → 1½.
SWISS = build(
    [
        ("One", "+2 +3 ABS"),
        ("Two", "-1 -4 +3"),
        ("Three", "=4 -1 -2"),
        ("Four", "=3 +2 ABS"),
    ]
)
# Swiss, 3 players, 3 rounds, many absences: missed rounds 2, 1, 2.
SPARSE = build([("One", "+2 ABS ABS"), ("Two", "-1 ABS -3"), ("Three", "ABS ABS +2")])
# McMahon (initial 10, 9, 8), absent rounds recorded as ½ the way OpenGotha records them.
MCMAHON = build([("One", "+2 ABS="), ("Two", "-1 +3"), ("Three", "ABS= -2")], initial=[10, 9, 8])


def values(crosstable: Crosstable, policy: Policy, field: str) -> list[F | int | None]:
    return [getattr(s, field) for s in compute(crosstable, policy)]


class TestOwnMms:
    """EGF/OpenGotha: own initial score for a missed round (0 in Swiss), recorded credit."""

    policy = Policy(missed_rounds=MissedRounds.OWN_MMS)

    def test_swiss_scores_and_sos(self) -> None:
        assert values(SWISS, self.policy, "score") == [2, 1, F(1, 2), F(3, 2)]
        # One: Two 1 + Three ½ + 0; Two: 2 + 1½ + ½; Three: 1½ + 2 + 1; Four: ½ + 1 + 0.
        assert values(SWISS, self.policy, "sos") == [F(3, 2), 4, F(9, 2), F(3, 2)]
        assert values(SWISS, self.policy, "mms") == [None] * 4

    def test_cut1_and_median(self) -> None:
        # One's rounds are worth 1, ½, 0; Two's 2, 1½, ½.
        assert values(SWISS, self.policy, "sos_cut1")[:2] == [F(3, 2), F(7, 2)]
        assert values(SWISS, self.policy, "median")[:2] == [F(1, 2), F(3, 2)]

    def test_sodos_mdos_sb_wins(self) -> None:
        # One beat Two (1) and Three (½); Three drew Four (½ × 1½); Four drew Three, beat Two.
        assert values(SWISS, self.policy, "sodos") == [F(3, 2), F(1, 2), F(3, 4), F(5, 4)]
        assert values(SWISS, self.policy, "mdos") == [F(3, 4), F(1, 2), F(3, 2), F(5, 6)]
        assert values(SWISS, self.policy, "sb") == values(SWISS, self.policy, "sodos")
        assert values(SWISS, self.policy, "wins") == [2, 1, 0, 1]

    def test_sosos(self) -> None:
        # One: SOS(Two) 4 + SOS(Three) 4½ + 0 × 3; Two: 1½ + 1½ + 4½.
        assert values(SWISS, self.policy, "sosos")[:2] == [F(17, 2), F(15, 2)]

    def test_cuss_uses_scores_at_pairing_time(self) -> None:
        # Seed 001: One met Two at 0 (round 1) and Three at ½ (round 2): 0 + ½ + 0 for round 3.
        # Two met One at 0, Four at ½, Three at ½; Three met Four 0, One 1, Two 0.
        assert values(SWISS, self.policy, "cuss") == [F(1, 2), 1, 1, 0]

    def test_mcmahon_own_initial_for_missed_rounds(self) -> None:
        # MMS: One 10 + 1 + ½, Two 9 + 1, Three 8 + ½.
        assert values(MCMAHON, self.policy, "mms") == [F(23, 2), 10, F(17, 2)]
        # SOS: One = Two 10 + own 10; Two = 11½ + 8½; Three = own 8 + Two 10.
        assert values(MCMAHON, self.policy, "sos") == [20, 20, 18]
        # OpenGotha's SOSOS: SOS of the opponent, initial MMS × rounds for a missed round.
        assert values(MCMAHON, self.policy, "sosos") == [20 + 10 * 2, 20 + 18, 8 * 2 + 20]

    def test_round_down_missed(self) -> None:
        policy = dataclasses.replace(self.policy, round_down_missed=True)
        # OpenGotha's "absent = ½ rounded down": one absence adds nothing.
        assert values(MCMAHON, policy, "mms") == [11, 10, 8]
        assert values(MCMAHON, policy, "sos")[1] == 11 + 8


class TestHalfPointAndOnePerTwo:
    """Seed 003: ½ point per missed round, or 1 point per two missed rounds."""

    def test_half_point(self) -> None:
        policy = Policy(missed_rounds=MissedRounds.HALF_POINT)
        # One and Four get ½ for round 3: 2½ and 2.
        assert values(SWISS, policy, "score") == [F(5, 2), 1, F(1, 2), 2]
        assert values(SWISS, policy, "sos") == [F(3, 2), 5, F(11, 2), F(3, 2)]
        assert values(SPARSE, policy, "score") == [2, F(1, 2), 2]

    def test_half_point_ignores_recorded_bye_value(self) -> None:
        byes = build([("One", "+2 BYE"), ("Two", "-1 ABS")])
        policy = Policy(missed_rounds=MissedRounds.HALF_POINT)
        assert values(byes, policy, "score") == [F(3, 2), F(1, 2)]

    def test_one_per_two(self) -> None:
        policy = Policy(missed_rounds=MissedRounds.ONE_PER_TWO)
        # Two missed rounds give 1, one gives 0.
        assert values(SPARSE, policy, "score") == [2, 0, 2]
        assert values(SPARSE, policy, "sos") == [0, 4, 0]
        assert values(SWISS, policy, "score") == values(SWISS, Policy(), "score")


class TestSelfOpponent:
    """Seed 003: a missed round is a game against himself, won every even-numbered time."""

    policy = Policy(missed_rounds=MissedRounds.SELF_OPPONENT)

    def test_score_and_sos(self) -> None:
        assert values(SPARSE, self.policy, "score") == [2, 0, 2]
        # One: Two 0 + himself 2 + himself 2; Two: One 2 + himself 0 + Three 2.
        assert values(SPARSE, self.policy, "sos") == [4, 4, 4]

    def test_sosos_counts_own_sos(self) -> None:
        # One: SOS(Two) 4 + own SOS 4 twice.
        assert values(SPARSE, self.policy, "sosos") == [12, 12, 12]
        own_sos = compute(SWISS, self.policy)[0].sos
        # One: SOS(Two) 4 + SOS(Three) 4½ + his own SOS for round 3.
        assert values(SWISS, self.policy, "sosos")[0] == 4 + F(9, 2) + own_sos


class TestFide2023:
    policy = Policy(missed_rounds=MissedRounds.FIDE_2023)

    def test_withdrawn_opponent_counts_half_points(self) -> None:
        # One was last available in round 1: seen by opponents as 1 + ½ + ½ = 2.
        # Two: One 2 + dummy (own score 0) + Three (available in round 3, score 1).
        assert values(SPARSE, self.policy, "sos")[1] == 3

    def test_cut1_removes_voluntarily_unplayed_first(self) -> None:
        # One's rounds: Two seen as 0 (played in round 3), dummies 1 and 1 for two absences.
        # The plain lowest value is 0, but an absence is cut first.
        assert values(SPARSE, self.policy, "sos")[0] == 2
        assert values(SPARSE, self.policy, "sos_cut1")[0] == 1

    def test_forfeit_win_is_a_dummy_opponent(self) -> None:
        table = build([("One", "F+2 +3"), ("Two", "F-1 ABS"), ("Three", "ABS -1")])
        # One: forfeit win → dummy with One's score 2, then Three seen as ½ + 0 → ... Three's
        # last available round is 2 (a game), so Three counts 0.
        assert values(table, self.policy, "sos")[0] == 2 + 0
        assert values(table, Policy(), "sos")[0] == 0 + 0
        # Sonneborn-Berger counts the dummy too: 1 × 2 + 1 × 0.
        assert values(table, self.policy, "sb")[0] == 2


class TestHandicap:
    # One (initial 10) gives two stones with White and wins against Two (initial 8).
    table = build([("One", "+2w2"), ("Two", "-1b2")], initial=[10, 8])

    def test_handicap_added_for_white_subtracted_for_black(self) -> None:
        policy = Policy(handicap_in_sos=True)
        assert values(self.table, policy, "sos") == [8 + 2, 11 - 2]

    def test_handicap_ignored(self) -> None:
        assert values(self.table, Policy(), "sos") == [8, 11]

    def test_melo_buchholz_is_swiss_points_without_handicap(self) -> None:
        assert melo_buchholz(self.table, Policy(handicap_in_sos=True)) == (F(0), F(1))


def test_melo_buchholz_in_a_mcmahon_event() -> None:
    # Swiss points One 1½ (the recorded ½ for the absence), Two 1, Three ½.
    assert melo_buchholz(MCMAHON, Policy()) == (F(1), F(2), F(1))


class TestKaniukCase:
    """Seed 002: Alan (1d) and Juliet (1k), SODOS and MDOS in the UK and the European scale.

    Rounds: Alan lost to Bob and beat Cath and Dave; Juliet beat Karen, Lionel and Martin. The
    other games give the opponents the final scores of the seed's tables (fillers X1–X6).
    """

    ROWS = (
        ("Alan", "-2 +3 +4"),
        ("Bob", "+1 +6 -14"),
        ("Cath", "-7 -1 +6"),
        ("Dave", "+9 +11 -1"),
        ("Juliet", "+6 +7 +8"),
        ("Karen", "-5 -2 -3"),
        ("Lionel", "+3 -5 +13"),
        ("Martin", "+10 +12 -5"),
        ("X1", "-4 ABS ABS"),
        ("X2", "-8 ABS ABS"),
        ("X3", "ABS -4 ABS"),
        ("X4", "ABS -8 ABS"),
        ("X5", "ABS ABS -7"),
        ("X6", "ABS ABS +2"),
    )
    UK = (0, -1, 0, -1, -1, 0, -1, -1, -5, -5, -5, -5, -5, -5)

    def standings(self, shift: int) -> tuple[Standing, ...]:
        table = build(self.ROWS, initial=[i + shift for i in self.UK])
        return compute(table, Policy(missed_rounds=MissedRounds.OWN_MMS))

    def test_opponents_final_scores_as_in_the_seed(self) -> None:
        uk = self.standings(0)
        assert [uk[i].mms for i in (1, 2, 3, 5, 6, 7)] == [1, 1, 1, 0, 1, 1]

    def test_uk_scale(self) -> None:
        alan, juliet = self.standings(0)[0], self.standings(0)[4]
        assert (alan.mms, alan.sodos, alan.mdos) == (F(2), F(2), F(1))
        assert (juliet.mms, juliet.sodos, juliet.mdos) == (F(2), F(2), F(2, 3))

    def test_european_scale(self) -> None:
        alan, juliet = self.standings(20)[0], self.standings(20)[4]
        assert (alan.mms, alan.sodos, alan.mdos) == (F(22), F(42), F(21))
        assert (juliet.mms, juliet.sodos, juliet.mdos) == (F(22), F(62), F(62, 3))

    def test_mdos_order_is_the_same_in_both_scales(self) -> None:
        for shift in (0, 20):
            alan, juliet = self.standings(shift)[0], self.standings(shift)[4]
            assert alan.mdos > juliet.mdos


class TestOrdered:
    def test_shared_places(self) -> None:
        table = build([("A", "+2 =3"), ("B", "-1 =4"), ("C", "+4 =1"), ("D", "-3 =2")])
        placed = ordered(compute(table), ("score",))
        assert [(p.place, p.standing.name, p.shared) for p in placed] == [
            (1, "A", True),
            (1, "C", True),
            (3, "B", True),
            (3, "D", True),
        ]

    def test_tie_broken_by_later_criteria(self) -> None:
        placed = ordered(compute(SWISS), ("score", "sos"))
        assert [p.standing.name for p in placed] == ["One", "Four", "Two", "Three"]

    def test_unknown_criterion(self) -> None:
        with pytest.raises(ValueError, match="unknown criterion 'elo'"):
            ordered(compute(SWISS), ("elo",))

    def test_mms_in_a_swiss_event(self) -> None:
        with pytest.raises(ValueError, match="'mms' does not apply"):
            ordered(compute(SWISS), ("mms",))


class TestInitialMcMahonScore:
    def test_scale_from_rank(self) -> None:
        # Seed 000: 20 kyu = 0, 19 kyu = 1, ...; OpenGotha's bar and floor clamp.
        scale = McMahonScale(bar="4d", floor="20k", zero="20k")
        assert [scale.initial(r) for r in ("20k", "19k", "25k", "1d", "4d", "7d")] == [
            0,
            1,
            0,
            20,
            23,
            23,
        ]
        assert scale.initial("3x") is None
        assert rank_value("30k") == -30
        assert rank_value("9d") == 8
        assert rank_value("31k") is None

    def test_rank_without_scale_is_a_problem(self) -> None:
        table = dataclasses.replace(
            MCMAHON,
            players=tuple(
                dataclasses.replace(p, initial_mms=None, rank="3k") for p in MCMAHON.players
            ),
        )
        with pytest.raises(InputError, match=r"test, line 1, column 'rank'.*initial McMahon score"):
            compute(table)
        scaled = compute(table, Policy(mcmahon=McMahonScale(bar="1d", floor="20k", zero="20k")))
        # 3 kyu is 17 on seed 000's scale.
        assert [s.mms for s in scaled] == [17 + 1 + F(1, 2), 17 + 1, 17 + F(1, 2)]


def test_inconsistent_crosstable_is_refused() -> None:
    table = build([("One", "+2"), ("Two", "+1")])
    with pytest.raises(InputError, match="disagree on the result"):
        compute(table)
