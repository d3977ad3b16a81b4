"""No stale list: a merge, a title change, a correction or changed rating parameters leave a
re-rating pending; publishing refuses until it is done, and the monthly job does it first."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine

from jobs.importing import import_files
from jobs.monthly import run_monthly
from jobs.options import ListOptions, MonthlyOptions
from jobs.players import import_registry, merge_players
from jobs.publishing import publish_list
from jobs.queries import stale_ratings
from jobs.rating import run_ratings
from ratings.errors import StaleRatingsError
from ratings.formula import MeloParams
from ratings.storage import lists
from tests.support import histories

NOW = datetime(2026, 11, 1, tzinfo=UTC)
PARAMS = MeloParams()
PERIOD = "2022-09"
CUTOFF = date(2022, 8, 31)


@pytest.fixture
def rated(engine: Engine, tmp_path: Path) -> Engine:
    path = histories.write_csv(histories.split_history(), tmp_path / "split.csv")
    import_files(engine, [path], imported_by="t", now=NOW)
    run_ratings(engine, PARAMS, now=NOW)
    return engine


def publish(engine: Engine, params: MeloParams = PARAMS, **options: object) -> lists.ListInfo:
    return publish_list(
        engine, PERIOD, ListOptions(), by="officer", now=NOW, params=params,
        **options,  # type: ignore[arg-type]
    ).info  # fmt: skip


def listed(engine: Engine, info: lists.ListInfo) -> dict[str, int]:
    with engine.connect() as connection:
        entries = lists.list_entries_of(connection, info.id)
    return dict(zip(entries["federation_id"], entries["rating"], strict=True))


def live(engine: Engine) -> dict[str, int]:
    with engine.connect() as connection:
        ranking = lists.ranking(connection, CUTOFF)
    return dict(zip(ranking["federation_id"], ranking["rating"], strict=True))


def test_a_merge_blocks_publication_until_the_re_rating(rated: Engine) -> None:
    merge_players(rated, "3", "103", by="officer", now=NOW)
    with pytest.raises(
        StaleRatingsError,
        match=r"^ratings must be re-rated \(player 103 was merged into 3\): run `ratings run` first$",
    ):
        publish(rated)
    with rated.connect() as connection:
        assert stale_ratings(connection, PARAMS) is not None
    run_ratings(rated, PARAMS, now=NOW)
    info = publish(rated)
    frozen = listed(rated, info)
    assert "103" not in frozen
    assert frozen == live(rated)


def test_a_title_change_blocks_publication(rated: Engine, tmp_path: Path) -> None:
    registry = tmp_path / "players.csv"
    registry.write_text("player_id,name,title,title_date\n2,Player 2,GM,2022-03-01\n")
    import_registry(rated, registry, now=NOW)
    with pytest.raises(StaleRatingsError, match=r"the registry changed the title of 2\)"):
        publish(rated)
    run_ratings(rated, PARAMS, now=NOW)
    assert listed(rated, publish(rated)) == live(rated)


def test_several_reasons_are_named(rated: Engine, tmp_path: Path) -> None:
    merge_players(rated, "3", "103", by="officer", now=NOW)
    registry = tmp_path / "players.csv"
    registry.write_text("player_id,name,title,title_date\n2,Player 2,GM,2022-03-01\n")
    import_registry(rated, registry, now=NOW)
    with pytest.raises(
        StaleRatingsError,
        match=r"\(player 103 was merged into 3; the registry changed the title of 2\)",
    ):
        publish(rated)


def test_changed_parameters_block_publication_until_a_full_re_rating(rated: Engine) -> None:
    changed = MeloParams(k_regular=6, scale=380.0)
    with pytest.raises(
        StaleRatingsError,
        match=r"^the rating parameters changed since the last rating \(k_regular 5 -> 6, "
        r"scale 400.0 -> 380.0\): run `ratings run --full` first$",
    ):
        publish(rated, changed)
    # A rating run with the new parameters rates everything again, as --full does.
    report = run_ratings(rated, changed, now=NOW)
    assert report.start == 0
    info = publish(rated, changed)
    frozen = listed(rated, info)
    assert frozen == live(rated)
    with rated.connect() as connection:
        assert stale_ratings(connection, changed) is None
        assert stale_ratings(connection, PARAMS) is not None


def test_the_monthly_job_re_rates_before_it_publishes(rated: Engine, tmp_path: Path) -> None:
    merge_players(rated, "3", "103", by="officer", now=NOW)
    options = MonthlyOptions(
        inbox_dir=tmp_path / "inbox", publish_dir=tmp_path / "publish", imported_by="officer"
    )
    report = run_monthly(rated, options, today=date(2022, 9, 2), clock=lambda: NOW)
    assert report.published_version == 1
    with rated.connect() as connection:
        info = lists.latest_list(connection, PERIOD)
        assert info is not None
        assert stale_ratings(connection, PARAMS) is None
    frozen = listed(rated, info)
    assert "103" not in frozen
    assert frozen == live(rated)
