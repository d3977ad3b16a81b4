"""The officer's inventory: a merge undone and a tournament deleted end exactly where a history
without the merge, or without the tournament, ends; both wait for a re-rating that publishing
and the monthly job respect; both are recorded. On SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from sqlalchemy import func, select, update
from sqlalchemy.engine import Engine

from jobs.importing import import_files
from jobs.inventory import merge_preview, tournament_card, tournament_list, unmerge_preview
from jobs.monthly import run_monthly
from jobs.options import MonthlyOptions
from jobs.players import import_registry, merge_players, unmerge_player
from jobs.queries import stale_ratings
from jobs.rating import run_ratings
from jobs.tournaments import delete_tournament
from ratings.errors import (
    MergeError,
    NotMergedError,
    UnknownEventError,
    UnknownPlayerError,
    UnrecordedMergeError,
)
from ratings.storage import lists
from ratings.storage.schema import (
    games,
    player_aliases,
    player_identifiers,
    player_merges,
    players,
    rating_changes,
    results,
    tournament_deletions,
)
from tests.jobs.test_rating_job import (
    PARAMS,
    changes_of,
    fresh_run,
    ratings_of,
    totals_true,
    unmatched,
)
from tests.support import histories
from tests.support.data import GOLDEN
from tests.support.histories import Row, split_history

NOW = datetime(2026, 11, 1, tzinfo=UTC)
LATER = datetime(2026, 11, 2, 9, 30, tzinfo=UTC)


def load(engine: Engine, events: list[list[Row]], path: Path) -> None:
    import_files(engine, [histories.write_csv(events, path)], imported_by="td", now=NOW)
    run_ratings(engine, PARAMS, now=NOW)


def player_id(engine: Engine, federation_id: str) -> int:
    with engine.connect() as connection:
        return int(
            connection.execute(
                select(players.c.id).where(players.c.federation_id == federation_id)
            ).scalar_one()
        )


def results_of(engine: Engine, federation_id: str) -> int:
    with engine.connect() as connection:
        return int(
            connection.execute(
                select(func.count())
                .select_from(results)
                .where(results.c.player_id == player_id(engine, federation_id))
            ).scalar_one()
        )


# --- unmerge ----------------------------------------------------------------------------------


def test_an_unmerge_gives_back_results_ids_and_spellings_and_re_rates(
    engine: Engine, tmp_path: Path
) -> None:
    events = split_history()
    load(engine, events, tmp_path / "split.csv")
    registry = tmp_path / "players.csv"
    registry.write_text("player_id,name,fide_id\n103,Player Three,4600103\n")
    import_registry(engine, registry, now=NOW)
    duplicate = player_id(engine, "103")
    with engine.begin() as connection:
        connection.execute(
            player_aliases.insert().values(
                scheme="trf", spelling="Three, Player", player_id=duplicate,
                created_at=NOW, created_by="officer",
            )
        )  # fmt: skip
    before = ratings_of(engine)
    changes_before = changes_of(engine)
    own = results_of(engine, "103")
    assert own == sum(any(r.player_id == "103" for r in e) for e in events) > 1

    merge_players(engine, "3", "103", by="officer", now=NOW)
    run_ratings(engine, PARAMS, now=NOW)
    assert "103" not in ratings_of(engine)
    with engine.connect() as connection:
        preview = unmerge_preview(connection, "103")
    assert (preview.kept, preview.merged_by, preview.tournaments) == ("3", "officer", own)

    report = unmerge_player(engine, "103", by="second officer", now=LATER)
    assert (report.kept, report.tournaments, report.rerate) == ("3", own, True)
    assert results_of(engine, "103") == own
    with engine.connect() as connection:
        assert stale_ratings(connection, PARAMS) == (
            "ratings must be re-rated (player 103 was separated from 3): run `ratings run` first"
        )
        held = connection.execute(
            select(player_identifiers.c.scheme, player_identifiers.c.value).where(
                player_identifiers.c.player_id == duplicate
            )
        ).all()
        spellings = connection.execute(
            select(player_aliases.c.spelling).where(player_aliases.c.player_id == duplicate)
        ).all()
        audit = connection.execute(
            select(player_merges.c.merged_by, player_merges.c.undone_by, player_merges.c.undone_at)
        ).one()
    assert held == [("fide", "4600103")]
    assert spellings == [("Three, Player",)]
    assert audit[:2] == ("officer", "second officer")
    assert audit[2].replace(tzinfo=UTC) == LATER
    run_ratings(engine, PARAMS, now=NOW)
    # Exactly the history before the merge: every change, to the last digit.
    assert ratings_of(engine) == before
    assert changes_of(engine) == changes_before
    assert unmatched(engine) == (0, 0)
    assert totals_true(engine)
    # And a merge can be made again after it was undone.
    merge_players(engine, "3", "103", by="officer", now=LATER)
    run_ratings(engine, PARAMS, now=NOW)
    assert "103" not in ratings_of(engine)


def test_an_unmerge_brings_back_the_players_merged_into_the_duplicate(
    engine: Engine, tmp_path: Path
) -> None:
    events = histories.history(events=16)
    # Player 5 also appears as 105, 205 and 305, in different events.
    renamed = [
        [
            Row(**{**r.__dict__, "player_id": f"{i % 4}05"}) if r.player_id == "5" and i % 4 else r
            for r in event
        ]
        for i, event in enumerate(events)
    ]
    load(engine, renamed, tmp_path / "r.csv")
    before = changes_of(engine)
    names = ("5", "105", "205", "305")
    counts = {fid: results_of(engine, fid) for fid in names}
    assert all(counts.values())
    merge_players(engine, "205", "305", by="o", now=NOW)
    merge_players(engine, "105", "205", by="o", now=NOW)
    merge_players(engine, "5", "105", by="o", now=NOW)
    assert results_of(engine, "5") == sum(counts.values())
    unmerge_player(engine, "105", by="o", now=NOW)
    # 205 and 305 (merged into 205) follow 105 back; their results sit with 105, as before.
    into_105 = player_id(engine, "105")
    with engine.connect() as connection:
        merged_into = dict(
            connection.execute(
                select(players.c.federation_id, players.c.merged_into).where(
                    players.c.federation_id.in_(names)
                )
            ).all()
        )
    assert merged_into == {"5": None, "105": None, "205": into_105, "305": into_105}
    assert results_of(engine, "5") == counts["5"]
    assert results_of(engine, "105") == counts["105"] + counts["205"] + counts["305"]
    unmerge_player(engine, "305", by="o", now=NOW)
    unmerge_player(engine, "205", by="o", now=NOW)
    assert {fid: results_of(engine, fid) for fid in counts} == counts
    run_ratings(engine, PARAMS, now=NOW)
    assert changes_of(engine) == before


def test_games_follow_a_merge_and_come_back_with_the_unmerge(
    engine: Engine, tmp_path: Path
) -> None:
    import_files(engine, [GOLDEN / "go_opengotha" / "juvisy2019.xml"], imported_by="td", now=NOW)
    with engine.connect() as connection:
        key = tournament_list(connection)["key"].item()
        first = tournament_card(connection, key).results["federation_id"][0]
    registry = tmp_path / "players.csv"
    registry.write_text("player_id,name\nK1,Kept Player\n")
    import_registry(engine, registry, now=NOW)

    def games_of(federation_id: str) -> int:
        with engine.connect() as connection:
            return int(
                connection.execute(
                    select(func.count())
                    .select_from(games)
                    .where(games.c.player_id == player_id(engine, federation_id))
                ).scalar_one()
            )

    played = games_of(first)
    assert played == 4
    merge_players(engine, "K1", first, by="o", now=NOW)
    assert (games_of("K1"), games_of(first)) == (played, 0)
    with engine.connect() as connection:
        shown = tournament_card(connection, key).games
    assert shown.filter(pl_col_is("federation_id", "K1")).height == played
    assert shown.filter(pl_col_is("opponent_federation_id", first)).height == 0
    unmerge_player(engine, first, by="o", now=NOW)
    assert (games_of("K1"), games_of(first)) == (0, played)
    with engine.connect() as connection:
        shown = tournament_card(connection, key).games
    assert shown.filter(pl_col_is("opponent_federation_id", first)).height == played


def pl_col_is(column: str, value: str) -> object:
    import polars as pl

    return pl.col(column) == value


def test_an_unmerge_that_cannot_be_made_says_why(engine: Engine, tmp_path: Path) -> None:
    load(engine, split_history(), tmp_path / "split.csv")
    with pytest.raises(UnknownPlayerError, match=r"^no player has the id 999$"):
        unmerge_player(engine, "999", by="o", now=NOW)
    with pytest.raises(NotMergedError, match=r"^player 103 is not merged into another player$"):
        unmerge_player(engine, "103", by="o", now=NOW)
    merge_players(engine, "3", "103", by="o", now=NOW)
    unmerge_player(engine, "103", by="o", now=NOW)
    with pytest.raises(NotMergedError):
        unmerge_player(engine, "103", by="o", now=NOW)
    # A merge from before merges recorded what they moved is not guessed at.
    merge_players(engine, "3", "103", by="o", now=NOW)
    with engine.begin() as connection:
        connection.execute(
            update(player_merges)
            .where(player_merges.c.undone_at.is_(None))
            .values(results_recorded=None)
        )
    with pytest.raises(UnrecordedMergeError, match=r"^the merge of 103 into 3 \(2026-11-01\)"):
        unmerge_player(engine, "103", by="o", now=NOW)
    assert results_of(engine, "103") == 0


def test_a_merge_preview_shows_both_players_or_refuses(engine: Engine, tmp_path: Path) -> None:
    events = split_history()
    load(engine, events, tmp_path / "split.csv")
    played = results_games(engine, "103")
    with engine.connect() as connection:
        kept, duplicate = merge_preview(connection, "3", "103")
        assert (kept.player.federation_id, duplicate.player.federation_id) == ("3", "103")
        assert duplicate.tournaments == sum(any(r.player_id == "103" for r in e) for e in events)
        assert duplicate.games == played
        assert duplicate.last_event is not None
        last = max((e[0].end_date, e[0].tournament) for e in events
                   if any(r.player_id == "103" for r in e))  # fmt: skip
        assert duplicate.last_event == f"{last[1]} ({last[0]:%Y-%m-%d})"
        with pytest.raises(MergeError, match="cannot merge player 3 into itself"):
            merge_preview(connection, "3", "3")
        with pytest.raises(UnknownPlayerError, match="no player has the id 999"):
            merge_preview(connection, "3", "999")


def results_games(engine: Engine, federation_id: str) -> int:
    with engine.connect() as connection:
        return int(
            connection.execute(
                select(func.sum(results.c.wins + results.c.draws + results.c.losses)).where(
                    results.c.player_id == player_id(engine, federation_id)
                )
            ).scalar_one()
        )


# --- deleting a tournament ----------------------------------------------------------------------


@pytest.mark.parametrize("which", [0, 13, 29], ids=["first", "middle", "last"])
def test_a_deleted_tournament_leaves_the_history_as_if_never_imported(
    engine: Engine, tmp_path: Path, which: int
) -> None:
    events = histories.history(events=30)
    load(engine, events, tmp_path / "all.csv")
    key = events[which][0].tournament_id
    report = delete_tournament(engine, key, by="officer", now=LATER)
    assert (report.key, report.results, report.rerate) == (key, len(events[which]), True)
    with engine.connect() as connection:
        assert stale_ratings(connection, PARAMS) == (
            f"ratings must be re-rated (tournament {key} was deleted): run `ratings run` first"
        )
        audit = connection.execute(
            select(
                tournament_deletions.c.key, tournament_deletions.c.results,
                tournament_deletions.c.deleted_by, tournament_deletions.c.imported_by,
                tournament_deletions.c.source_name,
            )
        ).one()  # fmt: skip
    assert tuple(audit) == (key, len(events[which]), "officer", "td", "all.csv")
    run_ratings(engine, PARAMS, now=NOW)
    rest = [e for i, e in enumerate(events) if i != which]
    assert changes_of(engine) == changes_of(fresh_run(tmp_path, rest, "rest"))
    assert ratings_of(engine) == ratings_of(fresh_run(tmp_path, rest, "again"))
    assert unmatched(engine) == (0, 0)
    assert totals_true(engine)
    with engine.connect() as connection:
        assert stale_ratings(connection, PARAMS) is None
        left = connection.execute(select(func.count()).select_from(rating_changes)).scalar_one()
    assert left == sum(len(e) for e in rest)


def test_a_tournament_a_merge_moved_can_be_deleted_and_the_merge_undone(
    engine: Engine, tmp_path: Path
) -> None:
    events = split_history()
    load(engine, events, tmp_path / "split.csv")
    own = results_of(engine, "103")
    merge_players(engine, "3", "103", by="o", now=NOW)
    gone = next(i for i, e in enumerate(events) if any(r.player_id == "103" for r in e))
    delete_tournament(engine, events[gone][0].tournament_id, by="o", now=NOW)
    assert unmerge_player(engine, "103", by="o", now=NOW).tournaments == own - 1
    run_ratings(engine, PARAMS, now=NOW)
    rest = [e for i, e in enumerate(events) if i != gone]
    assert changes_of(engine) == changes_of(fresh_run(tmp_path, rest, "rest"))
    assert totals_true(engine)


def test_a_pending_tournament_is_deleted_without_a_re_rating(
    engine: Engine, tmp_path: Path
) -> None:
    events = histories.history(events=6)
    load(engine, events[:5], tmp_path / "first.csv")
    import_files(engine, [histories.write_csv(events[5:], tmp_path / "late.csv")],
                 imported_by="td", now=NOW)  # fmt: skip
    key = events[5][0].tournament_id
    report = delete_tournament(engine, key, by="officer", now=LATER)
    assert report.rerate is False
    with engine.connect() as connection:
        assert stale_ratings(connection, PARAMS) is None
        assert tournament_list(connection, status="pending").height == 0


def test_an_unknown_or_deleted_key_is_named(engine: Engine, tmp_path: Path) -> None:
    events = histories.history(events=4)
    load(engine, events, tmp_path / "all.csv")
    with pytest.raises(UnknownEventError, match=r"^no tournament has the key NOPE$"):
        delete_tournament(engine, "NOPE", by="officer", now=LATER)
    key = events[1][0].tournament_id
    delete_tournament(engine, key, by="officer", now=LATER)
    deleted = f"^no tournament has the key {key}: it was deleted on 2026-11-02 09:30 by officer$"
    with pytest.raises(UnknownEventError, match=deleted):
        delete_tournament(engine, key, by="officer", now=LATER)
    with engine.connect() as connection, pytest.raises(UnknownEventError, match=deleted):
        tournament_card(connection, key)


def test_the_monthly_job_re_rates_after_a_deletion_and_an_unmerge(
    engine: Engine, tmp_path: Path
) -> None:
    events = split_history()
    load(engine, events, tmp_path / "split.csv")
    merge_players(engine, "3", "103", by="officer", now=NOW)
    run_ratings(engine, PARAMS, now=NOW)
    unmerge_player(engine, "103", by="officer", now=NOW)
    delete_tournament(engine, events[20][0].tournament_id, by="officer", now=NOW)
    options = MonthlyOptions(
        inbox_dir=tmp_path / "inbox", publish_dir=tmp_path / "publish", imported_by="officer"
    )
    report = run_monthly(engine, options, today=date(2022, 9, 2), clock=lambda: NOW)
    assert report.published_version == 1
    with engine.connect() as connection:
        assert stale_ratings(connection, PARAMS) is None
        info = lists.latest_list(connection, "2022-09")
        assert info is not None
        entries = lists.list_entries_of(connection, info.id)
    frozen = dict(zip(entries["federation_id"], entries["rating"], strict=True))
    rest = [e for i, e in enumerate(events) if i != 20]
    assert frozen == ratings_of(fresh_run(tmp_path, rest, "rest"))


# --- the list of tournaments --------------------------------------------------------------------


def test_tournaments_are_listed_in_rating_order_and_filtered(
    engine: Engine, tmp_path: Path
) -> None:
    events = split_history()
    load(engine, events[:20], tmp_path / "first.csv")
    import_files(engine, [histories.write_csv(events[20:], tmp_path / "late.csv")],
                 imported_by="td", now=NOW)  # fmt: skip
    keys = [e[0].tournament_id for e in events]
    ends = [e[0].end_date for e in events]
    with engine.connect() as connection:
        everything = tournament_list(connection)
        assert everything["key"].to_list() == keys
        assert everything["results"].to_list() == [len(e) for e in events]
        assert set(everything["imported_by"]) == {"td"}
        assert tournament_list(connection, status="pending")["key"].to_list() == keys[20:]
        assert tournament_list(connection, status="rated")["key"].to_list() == keys[:20]
        ranged = tournament_list(connection, ends_from=ends[3], ends_to=ends[6])
        assert ranged["key"].to_list() == keys[3:7]
        # A merged player's tournaments are those of whom he was merged into.
        played_103 = [e[0].tournament_id for e in events if any(r.player_id == "103" for r in e)]
        assert tournament_list(connection, player="103")["key"].to_list() == played_103
    merge_players(engine, "3", "103", by="o", now=NOW)
    with engine.connect() as connection:
        played_3 = [
            e[0].tournament_id for e in events if any(r.player_id in ("3", "103") for r in e)
        ]
        assert tournament_list(connection, player="103")["key"].to_list() == played_3
        with pytest.raises(UnknownPlayerError, match=r"^no player has the id 999$"):
            tournament_list(connection, player="999")
        assert tournament_list(connection, ends_from=date(2030, 1, 1)).height == 0
