"""Each error builds its sentence from the values it is given, the same wherever it is raised."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from ratings.errors import (
    AlreadyMergedError,
    BarBelowFloorError,
    ConfigurationError,
    DifferentIdsError,
    EmptyListError,
    EmptyTableError,
    JobLockedError,
    ListExistsError,
    ListVersionError,
    MergeError,
    NamelessOptionError,
    NotRatedError,
    OptionValueError,
    PeriodError,
    RatingsError,
    ScheduleError,
    SeedingOptionError,
    SelfMergeError,
    SharedTournamentsError,
    TableBoundError,
    TableLabelError,
    TableOrderError,
    TimeZoneError,
    UnknownListError,
    UnknownPlayerError,
)

CASES = [
    (UnknownPlayerError("P7"), "no player has the id P7"),
    (UnknownPlayerError("P7", merged=True), "player P7 was merged into another player"),
    (UnknownListError("2026-01@3"), "no list 2026-01@3 has been published"),
    (PeriodError("2026-13"), "a list period is written YYYY-MM, not '2026-13'"),
    (ListVersionError("2026-01", "x"), "a list version is a number, as in 2026-01@2, not 'x'"),
    (
        ListExistsError("2026-01", 2, datetime(2026, 1, 1, 3, 0)),
        "the 2026-01 list is already published (version 2, 2026-01-01 03:00); use --republish "
        "to publish a new version",
    ),
    (
        NotRatedError(date(2025, 12, 31), ["T1", "T2"]),
        "2 tournaments ending by 2025-12-31 are not rated yet (T1, T2): run `ratings run` first",
    ),
    (
        NotRatedError(date(2025, 12, 31), [f"T{i}" for i in range(6)]),
        "6 tournaments ending by 2025-12-31 are not rated yet (T0, T1, T2, T3, T4 ...): run "
        "`ratings run` first",
    ),
    (
        EmptyListError("2026-07", date(2026, 6, 30)),
        "the 2026-07 list would have no player: nobody is rated by its cut-off 2026-06-30 (import"
        " results and rate them first, or check that database_url is the federation's database)",
    ),
    (SelfMergeError("P1"), "cannot merge player P1 into itself"),
    (AlreadyMergedError("P1", kept=True), "player P1 was itself merged into another player"),
    (AlreadyMergedError("P2", kept=False), "player P2 is already merged"),
    (
        SharedTournamentsError("P1", "P2", ["Open", "Cup"]),
        "players P1 and P2 both played in Open, Cup: they cannot be one person",
    ),
    (
        JobLockedError(0.0),
        "another job is running on this database; try again when it has finished",
    ),
    (
        JobLockedError(0.5),
        "another job is running on this database (waited 0.5 s); try again when it has finished",
    ),
    (
        TimeZoneError("Mars/Base"),
        "timezone must be an IANA time zone such as Europe/Zurich, not 'Mars/Base'",
    ),
    (ScheduleError("* *", "too short"), "schedule '* *' is not a cron expression: too short"),
    (
        OptionValueError("rounding", "up", "half_up or truncate"),
        "rounding must be half_up or truncate, not 'up'",
    ),
    (NamelessOptionError("the lowest class"), "the lowest class needs a name, not an empty string"),
    (EmptyTableError("class table"), "the class table needs at least one row, not none"),
    (TableBoundError("class table", 1.5), "the class table needs whole ratings as bounds, not 1.5"),
    (
        TableLabelError("class table", 1200, "", "a class name"),
        "the class table needs a class name for 1200, not ''",
    ),
    (
        TableOrderError("class table", (1100, "B"), (1200, "A")),
        "the class table must go from the highest bound down: 1200 (A) comes after 1100 (B)",
    ),
    (BarBelowFloorError(3, "2k"), "the bar (score 3) must not be below the floor (2k)"),
    (
        DifferentIdsError("P1", "P2", "fide", ("4600001", "4600002")),
        "players P1 and P2 have different fide ids (4600001 and 4600002): they cannot be one person",
    ),
]


@pytest.mark.parametrize(("error", "message"), CASES)
def test_the_message_comes_from_the_values(error: RatingsError, message: str) -> None:
    assert str(error) == message


def test_families_keep_their_place_in_the_hierarchy() -> None:
    # The web service maps a family to a status: an unreadable list name is still "not found".
    assert isinstance(PeriodError("x"), UnknownListError)
    assert isinstance(ListVersionError("2026-01", "x"), UnknownListError)
    assert isinstance(SharedTournamentsError("a", "b", ["T"]), MergeError)
    assert isinstance(ScheduleError("x", "y"), ConfigurationError)
    assert isinstance(TableOrderError("t", (2, "a"), (1, "b")), SeedingOptionError)
    assert not isinstance(OptionValueError("x", 1, "y"), ValueError)


def test_long_lists_stop_at_twenty_and_listed_none_gives_every_item() -> None:
    from ratings.errors import MAX_SHOWN, InputError, Problem, ReviewError, Uncertain

    uncertain = [Uncertain("f.csv", n, f"Name {n}", None, "known players have a close name", ())
                 for n in range(2, 27)]  # fmt: skip
    review = ReviewError(uncertain)
    assert str(review).count("(no known player is close)") == MAX_SHOWN
    assert str(review).endswith("  ... and 5 more names")
    assert review.listed(None).count("(no known player is close)") == 25
    assert review.listed(3).endswith("  ... and 22 more names")
    problems = InputError([Problem("f.csv", n, "x", "v", "a number") for n in range(2, 32)])
    assert str(problems).splitlines()[-1] == "  ... and 10 more"
    assert len(problems.listed(None).splitlines()) == 31
    shared = SharedTournamentsError("P1", "P2", [f"T{n}" for n in range(25)])
    assert str(shared) == (
        "players P1 and P2 both played in 25 tournaments, "
        + ", ".join(f"T{n}" for n in range(20))
        + " and 5 more: they cannot be one person"
    )
    assert shared.listed(None).count("T") == 25
