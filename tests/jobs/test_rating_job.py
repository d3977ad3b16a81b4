"""The rating job on a real database (SQLite and PostgreSQL): chronological order, late and
corrected tournaments, merges and title changes all end exactly where an in-order run ends."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import func, select
from sqlalchemy.engine import Engine

from jobs import rating as rating_job
from jobs.importing import import_files
from jobs.players import import_registry, merge_players
from jobs.rating import run_ratings
from ratings.errors import MergeError
from ratings.formula import BUCHHOLZ_SCALE, MeloParams
from ratings.melo_reference import Entry, Event, rate_events
from ratings.storage import players as player_rows
from ratings.storage import totals
from ratings.storage.database import open_engine
from ratings.storage.schema import player_totals, players, rating_changes, results, tournaments
from tests.support import histories
from tests.support.histories import Row

NOW = datetime(2026, 11, 1, tzinfo=UTC)
PARAMS = MeloParams()


def load(engine: Engine, path: Path, replace: bool = False) -> None:
    import_files(engine, [path], replace=replace, imported_by="test", now=NOW)


def ratings_of(engine: Engine) -> dict[str, int]:
    with engine.connect() as connection:
        rows = connection.execute(
            select(players.c.federation_id, player_totals.c.rating)
            .select_from(
                players.outerjoin(player_totals, player_totals.c.player_id == players.c.id)
            )
            .where(players.c.merged_into.is_(None))
        ).all()
    return {fid: rating for fid, rating in rows if rating is not None}


def changes_of(engine: Engine) -> list[tuple[Any, ...]]:
    """Every rating change, by tournament key and federation id, in rating order."""
    with engine.connect() as connection:
        rows = connection.execute(
            select(
                rating_changes.c.seq,
                tournaments.c.key,
                players.c.federation_id,
                tournaments.c.k,
                rating_changes.c.rating_before,
                rating_changes.c.rating_after,
                rating_changes.c.expected,
                tournaments.c.m_avg,
                tournaments.c.b_avg,
            )
            .join(tournaments, tournaments.c.id == rating_changes.c.tournament_id)
            .join(players, players.c.id == rating_changes.c.player_id)
            .order_by(rating_changes.c.seq, players.c.federation_id)
        ).all()
    return [tuple(r) for r in rows]


def unmatched(engine: Engine) -> tuple[int, int]:
    """Rating changes without their result, and results of rated tournaments without their change:
    rating_changes has no foreign keys of its own, so the jobs must keep it matched."""
    with engine.connect() as connection:
        orphans = connection.execute(
            select(func.count())
            .select_from(rating_changes)
            .outerjoin(
                results,
                (results.c.tournament_id == rating_changes.c.tournament_id)
                & (results.c.player_id == rating_changes.c.player_id),
            )
            .where(results.c.tournament_id.is_(None))
        ).scalar_one()
        missing = connection.execute(
            select(func.count())
            .select_from(results)
            .join(tournaments, tournaments.c.id == results.c.tournament_id)
            .outerjoin(
                rating_changes,
                (results.c.tournament_id == rating_changes.c.tournament_id)
                & (results.c.player_id == rating_changes.c.player_id),
            )
            .where(tournaments.c.status == "rated", rating_changes.c.seq.is_(None))
        ).scalar_one()
    return orphans, missing


def totals_true(engine: Engine, *, rated: bool = True) -> bool:
    """The per-player totals the rating job keeps equal the aggregate over every rating change,
    and, when the ratings are up to date (``rated``), so does what a list cut off at each
    tournament's end date takes from them."""
    with engine.connect() as connection:
        kept = totals.read_totals(connection).sort("player")
        if not kept.equals(totals.from_changes(connection).sort("player")):
            return False
        if not rated:
            return True
        ends = connection.execute(
            select(tournaments.c.end_date, tournaments.c.seq)
            .where(tournaments.c.seq.is_not(None))
            .order_by(tournaments.c.seq)
        ).all()
        for end, seq in ends:
            # the position of the last tournament ending that day
            last = max(s for e, s in ends if e <= end)
            assert last >= seq
            if (
                not totals.totals_at(connection, end)
                .sort("player")
                .equals(totals.from_changes(connection, last).sort("player"))
            ):
                return False
    return True


def reference(events: list[list[Row]]) -> dict[str, int]:
    """The plain implementation, events sorted as SPEC 2 says: end date, start date, key."""
    ordered = sorted(events, key=lambda e: (e[0].end_date, e[0].start_date, e[0].tournament_id))
    plain = []
    for event in ordered:
        tier = event[0].tier
        gm = any(r.title == "GM" and r.wins + r.draws + r.losses > 0 for r in event)
        entries = tuple(
            Entry(r.player_id, r.wins, r.draws, r.losses, round(r.buchholz * BUCHHOLZ_SCALE))
            for r in event
        )
        plain.append(Event(PARAMS.k_for(tier, gm), entries))
    return rate_events(plain)


def fresh_run(tmp_path: Path, events: list[list[Row]], name: str) -> Engine:
    engine = open_engine(f"sqlite:///{tmp_path / (name + '.sqlite')}")
    load(engine, histories.write_csv(events, tmp_path / f"{name}.csv"))
    run_ratings(engine, PARAMS, now=NOW)
    return engine


def test_a_history_rated_in_order_matches_the_reference(engine: Engine, tmp_path: Path) -> None:
    events = histories.history(events=40)
    load(engine, histories.write_csv(events, tmp_path / "all.csv"))
    report = run_ratings(engine, PARAMS, now=NOW)
    assert report.tournaments == 40
    assert ratings_of(engine) == reference(events)
    assert totals_true(engine)
    assert run_ratings(engine, PARAMS, now=NOW).start is None


def test_k_follows_tier_and_grandmasters(engine: Engine, tmp_path: Path) -> None:
    events = histories.history(events=40)
    load(engine, histories.write_csv(events, tmp_path / "all.csv"))
    run_ratings(engine, PARAMS, now=NOW)
    with engine.connect() as connection:
        stored = dict(connection.execute(select(tournaments.c.key, tournaments.c.k)).all())
    for event in events:
        gm = any(r.player_id == "1" for r in event)
        assert stored[event[0].tournament_id] == PARAMS.k_for(event[0].tier, gm)


def test_late_tournaments_give_what_an_in_order_run_gives(engine: Engine, tmp_path: Path) -> None:
    events = histories.history(events=36)
    early, late, recent = events[:20], events[20:24], events[24:]
    # The "late" events arrive last but are dated in the middle of the first batch.
    moved = [
        [
            Row(
                **{
                    **r.__dict__,
                    "end_date": r.end_date - timedelta(weeks=15),
                    "start_date": r.start_date - timedelta(weeks=15),
                }
            )
            for r in e
        ]
        for e in late
    ]
    load(engine, histories.write_csv(early, tmp_path / "a.csv"))
    run_ratings(engine, PARAMS, now=NOW)
    load(engine, histories.write_csv(recent, tmp_path / "b.csv"))
    run_ratings(engine, PARAMS, now=NOW)
    load(engine, histories.write_csv(moved, tmp_path / "c.csv"))
    report = run_ratings(engine, PARAMS, now=NOW)
    assert 4 < report.tournaments < 36
    assert totals_true(engine)
    incremental = changes_of(engine)
    assert ratings_of(engine) == reference(early + recent + moved)
    run_ratings(engine, PARAMS, now=NOW, full=True)
    assert changes_of(engine) == incremental
    in_order = fresh_run(tmp_path, early + moved + recent, "in_order")
    assert changes_of(in_order) == incremental


def test_a_correction_re_rates_everything_after_it(engine: Engine, tmp_path: Path) -> None:
    events = histories.history(events=30)
    load(engine, histories.write_csv(events, tmp_path / "all.csv"))
    run_ratings(engine, PARAMS, now=NOW)
    event = events[5]
    # Swap the results of two players and move the event three weeks later.
    a, b = event[0], event[1]
    fixed = histories.with_result(
        event, 0, wins=b.wins, draws=b.draws, losses=b.losses, buchholz=b.buchholz
    )
    fixed = histories.with_result(
        fixed, 1, wins=a.wins, draws=a.draws, losses=a.losses, buchholz=a.buchholz
    )
    fixed = [Row(**{**r.__dict__, "end_date": r.end_date + timedelta(weeks=3)}) for r in fixed]
    load(engine, histories.write_csv([fixed], tmp_path / "fix.csv"), replace=True)
    report = run_ratings(engine, PARAMS, now=NOW)
    assert report.start == 5
    corrected = [*events[:5], fixed, *events[6:]]
    assert ratings_of(engine) == reference(corrected)
    assert unmatched(engine) == (0, 0)
    assert totals_true(engine)
    assert changes_of(engine) == changes_of(fresh_run(tmp_path, corrected, "fresh"))


def test_a_correction_that_takes_a_result_from_a_player_leaves_no_change_behind(
    engine: Engine, tmp_path: Path
) -> None:
    events = histories.history(events=20)
    load(engine, histories.write_csv(events, tmp_path / "all.csv"))
    run_ratings(engine, PARAMS, now=NOW)
    # The last result of event 7 was entered under the wrong player.
    *kept, wrong = events[7]
    fixed = [*kept, Row(**{**wrong.__dict__, "player_id": "999", "name": "Player 999"})]
    load(engine, histories.write_csv([fixed], tmp_path / "fix.csv"), replace=True)
    run_ratings(engine, PARAMS, now=NOW)
    corrected = [*events[:7], fixed, *events[8:]]
    assert unmatched(engine) == (0, 0)
    assert totals_true(engine)
    assert changes_of(engine) == changes_of(fresh_run(tmp_path, corrected, "fresh"))


def test_a_player_whose_only_result_is_taken_back_is_unrated_again(
    engine: Engine, tmp_path: Path
) -> None:
    """A player's rating is their totals': once a correction takes back the one result they had,
    they have no rating change, no totals and no rating, and stay in the registry."""
    events = histories.history(events=20)
    *kept, last = events[7]
    newcomer = [*kept, Row(**{**last.__dict__, "player_id": "888", "name": "Player 888"})]
    load(engine, histories.write_csv([*events[:7], newcomer, *events[8:]], tmp_path / "a.csv"))
    run_ratings(engine, PARAMS, now=NOW)
    assert "888" in ratings_of(engine)
    load(engine, histories.write_csv([events[7]], tmp_path / "fix.csv"), replace=True)
    run_ratings(engine, PARAMS, now=NOW)
    with engine.connect() as connection:
        player = player_rows.player_by_federation_id(connection, "888")
    assert player is not None
    assert player.rating is None
    assert "888" not in ratings_of(engine)
    assert totals_true(engine)
    assert changes_of(engine) == changes_of(fresh_run(tmp_path, events, "fresh"))


def test_merging_a_duplicate_re_rates_the_history(engine: Engine, tmp_path: Path) -> None:
    events = histories.history(events=30)
    # Player 3 appears under a second id (103) in a few events, as a typo would make them.
    split = [
        [
            Row(**{**r.__dict__, "player_id": "103", "name": "Player Three"})
            if r.player_id == "3" and i % 2
            else r
            for r in e
        ]
        for i, e in enumerate(events)
    ]
    load(engine, histories.write_csv(split, tmp_path / "split.csv"))
    run_ratings(engine, PARAMS, now=NOW)
    assert "103" in ratings_of(engine)
    merge_players(engine, "3", "103", by="test", now=NOW)
    assert totals_true(engine, rated=False)
    run_ratings(engine, PARAMS, now=NOW)
    assert totals_true(engine)
    merged = ratings_of(engine)
    assert "103" not in merged
    assert merged == reference(events)
    assert unmatched(engine) == (0, 0)
    with pytest.raises(MergeError, match="player 103 is already merged"):
        merge_players(engine, "3", "103", by="test", now=NOW)


def test_players_who_met_cannot_be_merged(engine: Engine, tmp_path: Path) -> None:
    events = histories.history(events=5)
    load(engine, histories.write_csv(events, tmp_path / "all.csv"))
    a, b = events[0][0].player_id, events[0][1].player_id
    with pytest.raises(MergeError, match=f"players {a} and {b} both played in T000"):
        merge_players(engine, a, b, by="test", now=NOW)


def test_a_new_grandmaster_title_re_rates_with_the_new_k(engine: Engine, tmp_path: Path) -> None:
    events = [
        [Row(**{**r.__dict__, "title": None}) for r in e] for e in histories.history(events=20)
    ]
    load(engine, histories.write_csv(events, tmp_path / "all.csv"))
    run_ratings(engine, PARAMS, now=NOW)
    titled_on = events[10][0].end_date
    registry = tmp_path / "players.csv"
    registry.write_text(f"player_id,name,title,title_date\n2,Player 2,GM,{titled_on}\n")
    import_registry(engine, registry, now=NOW)
    run_ratings(engine, PARAMS, now=NOW)
    assert totals_true(engine)
    expected = [
        [
            Row(
                **{
                    **r.__dict__,
                    "title": "GM" if r.player_id == "2" and r.end_date >= titled_on else None,
                }
            )
            for r in e
        ]
        for e in events
    ]
    assert ratings_of(engine) == reference(expected)


def test_the_same_history_gives_the_same_digits_on_sqlite_and_postgresql(
    postgres_url: str, tmp_path: Path
) -> None:
    # Four years of weekly events, with late arrivals and a correction on the way.
    events = histories.history(events=200, pool=60, seed=11)
    digits = []
    for url in (f"sqlite:///{tmp_path / 'a.sqlite'}", postgres_url):
        engine = open_engine(url)
        load(engine, histories.write_csv(events[::2], tmp_path / "even.csv"))
        run_ratings(engine, PARAMS, now=NOW)
        load(engine, histories.write_csv(events[1::2], tmp_path / "odd.csv"))
        run_ratings(engine, PARAMS, now=NOW)
        digits.append((ratings_of(engine), changes_of(engine)))
        engine.dispose()
    assert digits[0] == digits[1]
    assert digits[0][0] == reference(events)


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(order=st.permutations(range(6)), runs=st.lists(st.booleans(), min_size=6, max_size=6))
def test_files_imported_in_any_order_give_the_in_order_list(
    tmp_path: Path, order: list[int], runs: list[bool]
) -> None:
    events = histories.history(events=24, pool=14, seed=3)
    chunks = [events[i::6] for i in range(6)]
    folder = tmp_path / uuid.uuid4().hex
    folder.mkdir()
    engine = open_engine(f"sqlite:///{folder / 'db.sqlite'}")
    for step, index in enumerate(order):
        load(engine, histories.write_csv(chunks[index], folder / f"{index}.csv"))
        if runs[step]:
            run_ratings(engine, PARAMS, now=NOW)
    run_ratings(engine, PARAMS, now=NOW)
    assert ratings_of(engine) == reference(events)
    engine.dispose()


def test_nothing_to_do_is_reported(engine: Engine) -> None:
    report = run_ratings(engine, PARAMS, now=NOW)
    assert (report.start, report.tournaments) == (None, 0)


def test_first_seen_is_the_first_tournament(engine: Engine, tmp_path: Path) -> None:
    events = histories.history(events=10)
    load(engine, histories.write_csv(events[5:], tmp_path / "late.csv"))
    load(engine, histories.write_csv(events[:5], tmp_path / "early.csv"))
    with engine.connect() as connection:
        seen = dict(connection.execute(select(players.c.federation_id, players.c.first_seen)).all())
    for fid, day in seen.items():
        assert day == min(r.end_date for e in events for r in e if r.player_id == fid)
    assert isinstance(next(iter(seen.values())), date)


def test_only_a_large_window_loads_the_compiled_kernels_ahead(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A window likely rated in plain Python (a month's few hundred tournaments) does not load
    # numba beside its reads: the loading holds the interpreter's lock for most of its time.
    loaded: list[int] = []
    monkeypatch.setattr(rating_job, "_load_kernels", lambda: loaded.append(1))
    rating_job._loading_kernels(rating_job.PRELOAD_FROM - 1)()
    assert loaded == []
    rating_job._loading_kernels(rating_job.PRELOAD_FROM)()
    assert loaded == [1]
