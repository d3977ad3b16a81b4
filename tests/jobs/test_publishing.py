"""Publishing monthly lists: frozen snapshots, republication, diffs and every export format."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path

import openpyxl
import polars as pl
import pytest
from sqlalchemy import func, select, text, update
from sqlalchemy.engine import Connection, Engine

from exporters.documents import write_history, write_ranking
from jobs import publishing
from jobs.importing import import_files
from jobs.options import ListOptions
from jobs.players import import_registry
from jobs.publishing import _insert_computed, publish_into, publish_list, with_page_columns
from jobs.queries import list_diff, live_ranking, player_history, published_ranking
from jobs.rating import run_ratings
from ratings.errors import EmptyListError, ListExistsError, NotRatedError, UnknownListError
from ratings.formula import MeloParams
from ratings.storage import list_pages, list_partitions, lists, statistics
from ratings.storage.bulk import list_columns
from ratings.storage.database import open_engine
from ratings.storage.schema import declared_on, list_entries, player_totals, players
from ratings.storage.write_ahead import ends_with_process
from tests.support import histories
from tests.support.db import snapshot
from tests.support.histories import Row
from tests.support.prepared import PreparedDatabases

NOW = datetime(2026, 11, 1, tzinfo=UTC)
PARAMS = MeloParams()


def load(engine: Engine, events: list[list[Row]], path: Path, replace: bool = False) -> None:
    import_files(
        engine, [histories.write_csv(events, path)], replace=replace, imported_by="t", now=NOW
    )
    run_ratings(engine, PARAMS, now=NOW)


def publish(engine: Engine, period: str, **options: object) -> lists.ListInfo:
    return publish_list(
        engine, period, ListOptions(), by="officer", now=NOW, **options,  # type: ignore[arg-type]
    ).info  # fmt: skip


@pytest.fixture
def rated(database_url: str, prepared: PreparedDatabases) -> Iterator[Engine]:
    """A generated history of 40 events, imported and rated (built once per session)."""

    def build(url: str) -> None:
        engine = open_engine(url)
        load(engine, histories.history(events=40), prepared.folder / "h.csv")
        engine.dispose()

    prepared.fill(database_url, "history-40-rated", build)
    engine = open_engine(database_url)
    yield engine
    engine.dispose()


def test_a_list_freezes_the_ratings_at_the_cutoff(rated: Engine) -> None:
    info = publish(rated, "2022-06")
    assert (info.period, info.version, info.cutoff) == ("2022-06", 1, date(2022, 5, 31))
    with rated.connect() as connection:
        entries = lists.list_entries_of(connection, info.id)
        expected = lists.ranking(connection, date(2022, 5, 31))
    assert dict(zip(entries["federation_id"], entries["rating"], strict=True)) == dict(
        zip(expected["federation_id"], expected["rating"], strict=True)
    )
    assert info.players == entries.height
    assert info.mean_rating == round(sum(entries["rating"]) / entries.height)


def test_a_published_list_never_changes(rated: Engine, tmp_path: Path) -> None:
    info = publish(rated, "2022-06")
    with rated.connect() as connection:
        frozen = lists.list_entries_of(connection, info.id)
    # A tournament arriving late, dated before the cut-off, changes the live ratings only.
    late = histories.history(events=1, seed=99, start=date(2022, 3, 5))
    late = [[Row(**{**r.__dict__, "tournament_id": "LATE"}) for r in late[0]]]
    load(rated, late, tmp_path / "late.csv")
    with rated.connect() as connection:
        assert lists.list_entries_of(connection, info.id).equals(frozen)
        live = lists.ranking(connection, date(2022, 5, 31))
    assert dict(zip(live["federation_id"], live["rating"], strict=True)) != dict(
        zip(frozen["federation_id"], frozen["rating"], strict=True)
    )
    with pytest.raises(ListExistsError, match=r"the 2022-06 list is already published \(version 1"):
        publish(rated, "2022-06")
    second = publish(rated, "2022-06", republish=True)
    assert (second.version, second.replaces_id) == (2, info.id)
    with rated.connect() as connection:
        assert lists.list_entries_of(connection, info.id).equals(frozen)
        diff = list_diff(connection, "2022-06@1", "2022-06@2", rounding="half_up", exact=True)
    late_players = {r.player_id for r in late[0]}
    assert late_players <= set(diff["player_id"])
    assert set(diff["status"]) <= {"changed", "entered", "left"}


def test_a_ranking_read_as_columns_is_the_one_read_through_the_driver(
    rated: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A federation's list is read for its ranking as Arrow columns (a second connection), a
    small one through the job's driver: the same document either way."""
    publish(rated, "2022-06")
    publish(rated, "2022-09")
    documents = {}
    for label, threshold in (("driver", 10**9), ("columns", 0)):
        monkeypatch.setattr(list_columns, "COLUMNAR_FROM", threshold)
        with rated.connect() as connection:
            documents[label] = [
                published_ranking(connection, "2022-09", everyone=everyone, rounding="half_up")
                for everyone in (False, True)
            ]
    for driver, columns in zip(documents["driver"], documents["columns"], strict=True):
        assert driver.rows.height > 0
        assert driver.rows.equals(columns.rows)
        assert (driver.title, driver.subtitle, driver.stats) == (
            columns.title,
            columns.subtitle,
            columns.stats,
        )


def test_change_since_the_previous_list(rated: Engine) -> None:
    publish(rated, "2022-06")
    publish(rated, "2022-09")
    with rated.connect() as connection:
        june = published_ranking(connection, "2022-06", everyone=True, rounding="half_up").rows
        september = published_ranking(connection, "2022-09", everyone=True, rounding="half_up").rows
    before = dict(zip(june["player_id"], june["rating"], strict=True))
    for player, rating, change in september.select("player_id", "rating", "change").iter_rows():
        assert change == (rating - before[player] if player in before else None)


def test_unrated_tournaments_before_the_cutoff_block_publication(
    engine: Engine, tmp_path: Path
) -> None:
    import_files(
        engine,
        [histories.write_csv(histories.history(events=5), tmp_path / "h.csv")],
        imported_by="t",
        now=NOW,
    )
    with pytest.raises(
        NotRatedError, match=r"5 tournaments ending by 2022-12-31 are not rated yet \(T000, T001"
    ):
        publish(engine, "2023-01")


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("2022-13", "a list period is written YYYY-MM, not '2022-13'"),
        ("2030-01", "no list 2030-01 has been published"),
        ("2022-06@x", "a list version is a number"),
    ],
)
def test_unknown_lists(rated: Engine, name: str, message: str) -> None:
    publish(rated, "2022-06")
    with rated.connect() as connection, pytest.raises(UnknownListError, match=message):
        published_ranking(connection, name, everyone=False, rounding="half_up")


def test_inactive_players_are_flagged_not_dropped(rated: Engine) -> None:
    info = publish_list(rated, "2022-09", ListOptions(active_months=1), by="o", now=NOW).info
    assert 0 < info.active_players < info.players
    with rated.connect() as connection:
        shown = published_ranking(connection, "2022-09", everyone=False, rounding="half_up").rows
        full = published_ranking(connection, "2022-09", everyone=True, rounding="half_up").rows
    assert shown.height == info.active_players
    assert full.height == info.players
    assert full["active"].sum() == info.active_players


RISKY = ['=HYPERLINK("http://x","y")', "+1", "-2", "@x", "=1+1"]


@pytest.fixture
def risky(engine: Engine, tmp_path: Path) -> Engine:
    """Players whose names a spreadsheet would take for formulas."""
    events = histories.history(events=6, pool=8)
    names = {str(i + 1): name for i, name in enumerate(RISKY)}
    events = [
        [Row(**{**r.__dict__, "name": names.get(r.player_id, r.name)}) for r in e] for e in events
    ]
    load(engine, events, tmp_path / "risky.csv")
    publish(engine, "2022-03")
    return engine


def test_formulas_arrive_as_text_in_csv_and_xlsx(risky: Engine, tmp_path: Path) -> None:
    with risky.connect() as connection:
        document = published_ranking(connection, "2022-03", everyone=True, rounding="half_up")
    names = set(document.rows["name"])
    assert set(RISKY) & names
    buffer = io.BytesIO()
    write_ranking(document, "csv", buffer)
    exact = document.rows["rating_exact"].cast(pl.String).to_list()
    rows = list(csv.DictReader(io.StringIO(buffer.getvalue().decode())))
    for row in rows:
        assert not row["name"].startswith(("=", "+", "-", "@"))
        assert row["name"].lstrip("'") in names
    assert [row["rating_exact"] for row in rows] == exact
    path = tmp_path / "list.xlsx"
    with path.open("wb") as stream:
        write_ranking(document, "xlsx", stream)
    sheet = openpyxl.load_workbook(path).active
    header = [c.value for c in sheet[1]]
    column = header.index("name") + 1
    cells = [sheet.cell(row=r, column=column) for r in range(2, sheet.max_row + 1)]
    assert {c.value for c in cells} == names
    assert all(c.data_type == "s" for c in cells)
    exact = [
        sheet.cell(row=r, column=header.index("rating_exact") + 1)
        for r in range(2, sheet.max_row + 1)
    ]
    assert all(c.data_type == "n" for c in exact)
    assert [f"{c.value:.10f}" for c in exact] == document.rows["rating_exact"].cast(
        pl.String
    ).to_list()


def test_json_and_html_exports(risky: Engine) -> None:
    with risky.connect() as connection:
        document = published_ranking(connection, "2022-03", everyone=False, rounding="half_up")
    buffer = io.BytesIO()
    write_ranking(document, "json", buffer)
    rows = json.loads(buffer.getvalue())
    assert [r["rating_exact"] for r in rows] == document.rows["rating_exact"].cast(
        pl.String
    ).to_list()
    page = io.BytesIO()
    write_ranking(document, "html", page)
    html = page.getvalue().decode()
    assert "<title>World ranking 2022-03</title>" in html
    assert html.count("<tr>") == document.rows.height + 1
    assert "=HYPERLINK(&#34;http://x&#34;,&#34;y&#34;)" in html
    assert 'class="histogram"' in html
    assert "<script src" not in html
    assert "<link" not in html


def test_history_in_every_format(rated: Engine, tmp_path: Path) -> None:
    with rated.connect() as connection:
        document = player_history(connection, "3")
    assert document.rows.height == len(document.days) - 1
    outputs = {}
    for fmt in ("csv", "json", "html", "svg", "png", "xlsx", "text"):
        buffer = io.BytesIO()
        write_history(document, fmt, buffer)
        outputs[fmt] = buffer.getvalue()
    assert outputs["png"].startswith(b"\x89PNG")
    assert b"<svg" in outputs["svg"]
    assert b"<svg" in outputs["html"]
    assert b"Player 3" in outputs["html"]
    history = json.loads(outputs["json"])
    assert (
        history[-1]["rating_after"]
        == f"{document.ratings[-1]:.10f}"[: len(history[-1]["rating_after"])]
    )
    table = pl.read_csv(io.BytesIO(outputs["csv"]), infer_schema=False)
    assert table["rating_after"].to_list() == [h["rating_after"] for h in history]


def test_a_list_of_nobody_is_never_published(engine: Engine, tmp_path: Path) -> None:
    """Nobody rated, in an empty database, a registry without results, or by a cut-off before
    every rated tournament (the list computed, not built from the totals): no list."""
    registry = tmp_path / "players.csv"
    registry.write_text("player_id,name,country\nP1,Anna Klein,DEU\n")
    for step in ("empty", "registry", "rated"):
        if step == "registry":
            import_registry(engine, registry, now=NOW, limit=1 << 20)
        elif step == "rated":
            load(engine, histories.history(events=4), tmp_path / "h.csv")
        before = snapshot(engine)
        with pytest.raises(EmptyListError) as raised:
            publish(engine, "2021-06")
        assert str(raised.value) == (
            "the 2021-06 list would have no player: nobody is rated by its cut-off 2021-05-31"
            " (import results and rate them first, or check that database_url is the"
            " federation's database)"
        )
        assert snapshot(engine) == before
    assert publish(engine, "2022-06").players > 0


def test_live_ranking_statistics(rated: Engine) -> None:
    with rated.connect() as connection:
        document, pending = live_ranking(
            connection, as_of=date(2022, 12, 31), everyone=False, options=ListOptions()
        )
    assert pending == 0
    assert dict(document.stats)["players"] == str(document.rows.height)


@pytest.mark.parametrize("name", ["2022-06@²", "2022-06@99999999999999999999", "2022-06@-1"])
def test_odd_versions_are_unknown_lists_not_crashes(rated: Engine, name: str) -> None:
    publish(rated, "2022-06")
    with (
        rated.connect() as connection,
        pytest.raises(UnknownListError, match="a list version is a number"),
    ):
        published_ranking(connection, name, everyone=False, rounding="half_up")


def _stored(connection: Connection, list_id: int) -> pl.DataFrame:
    """Every column of a list's entries but the list's id, by player."""
    e = list_entries.c
    columns = [c for c in list_entries.columns if c.name != "list_id"]
    rows = connection.execute(select(*columns).where(e.list_id == list_id)).all()
    return pl.DataFrame(
        [tuple(r) for r in rows], schema=[c.name for c in columns], orient="row"
    ).sort("player_id")


def test_the_database_builds_the_entries_the_computed_way_gives(rated: Engine) -> None:
    """A list cut off after the newest rated tournament is built by the database from the stored
    totals; a list cut off earlier is computed. Both ways store the same entries, ranks, name
    forms and figures for the same list, a previous list, a renamed player and shared names."""
    publish(rated, "2022-06")
    with rated.begin() as connection:
        ids = connection.execute(select(players.c.id).order_by(players.c.id)).scalars().all()
        renamed = {
            ids[0]: "Zoë Ünal-Łuczak",
            ids[1]: "Dirk van der Berg",
            ids[2]: "Dirk van der Berg",
        }
        for player, name in renamed.items():
            connection.execute(update(players).where(players.c.id == player).values(name=name))
    with rated.begin() as connection:
        assert lists.totals_hold_list(connection, date(2029, 12, 31))
        assert not lists.totals_hold_list(connection, date(2022, 5, 31))
        built = publish_into(connection, "2030-01", ListOptions(), by="o", now=NOW).info
        previous = lists.latest_list(connection, "2022-06")
        assert previous is not None
        info = {
            "period": "2030-01", "version": 2, "cutoff": built.cutoff, "created_at": NOW,
            "created_by": "o", "initial_rating": built.initial_rating,
            "active_months": built.active_months, "previous_id": previous.id,
            "replaces_id": built.id,
        }  # fmt: skip
        computed_id, _ = _insert_computed(connection, info, "2030-01", built.cutoff, ListOptions())
        computed = lists.list_by_id(connection, computed_id)
        by_database, by_frame = _stored(connection, built.id), _stored(connection, computed_id)
    assert by_database.equals(by_frame)
    assert (built.players, built.active_players, built.mean_rating) == (
        computed.players, computed.active_players, computed.mean_rating,
    )  # fmt: skip
    assert by_database["previous_rating"].null_count() < by_database.height
    assert by_database.filter(pl.col("player_id") == ids[0])["name_key"].to_list() == [
        "zoe unal-luczak"
    ]
    shared = by_database.filter(pl.col("player_id").is_in(ids[1:3]))["name_id"]
    assert shared.n_unique() == 1
    assert by_database["name_id"].null_count() == 0


def test_the_database_ranks_ties_and_the_active_as_rank_does(rated: Engine) -> None:
    """The database ranks each entry from one window (one more than the players rated strictly
    higher): ties share the best place and the next place skips, among everyone and among the
    active players, exactly as ranking the stored ratings does."""
    with rated.begin() as connection:
        ids = connection.execute(select(player_totals.c.player_id)).scalars().all()
        tied = connection.execute(
            select(player_totals.c.rating).order_by(player_totals.c.rating.desc()).limit(1)
        ).scalar_one()
        for i, player in enumerate(ids):
            values: dict[str, object] = {"last_played": date(2029, 6, 1) if i % 2 else None}
            if i % 3 == 0:
                values["rating"] = tied
            connection.execute(
                update(player_totals).where(player_totals.c.player_id == player).values(**values)
            )
        built = publish_into(connection, "2030-01", ListOptions(), by="o", now=NOW).info
        stored = _stored(connection, built.id)
    assert stored["active"].any()
    assert not stored["active"].all()
    assert stored["rating"].value_counts()["count"].max() > 1  # type: ignore[operator]
    expected = with_page_columns(stored.drop("rank", "rank_all"))
    assert stored.select("player_id", "rank", "rank_all").equals(
        expected.select("player_id", "rank", "rank_all")
    )
    assert (built.players, built.active_players) == (
        stored.height, stored["rank"].drop_nulls().len(),
    )  # fmt: skip


def test_each_list_is_read_through_list_entries_and_on_postgresql_stored_apart(
    rated: Engine,
) -> None:
    """The site reads each list, usual or computed, through list_entries; on PostgreSQL every
    list is written into a table of its own, attached under list_entries with the parent's
    indexes (SQLite has one table)."""
    first = publish(rated, "2022-06")
    second = publish(rated, "2030-01")
    with rated.begin() as connection:
        # A list cut off earlier is computed here and written through list_entries.
        info = {
            "period": "2030-01", "version": 2, "cutoff": date(2022, 5, 31), "created_at": NOW,
            "created_by": "o", "initial_rating": second.initial_rating,
            "active_months": second.active_months, "previous_id": first.id,
            "replaces_id": second.id,
        }  # fmt: skip
        third, _ = _insert_computed(connection, info, "2030-01", info["cutoff"], ListOptions())  # type: ignore[arg-type]
    with rated.connect() as connection:
        for list_id in (first.id, second.id, third):
            page = list_pages.list_page(connection, list_id, list_pages.ListQuery(everyone=True))
            assert page.height == lists.list_by_id(connection, list_id).players
        if rated.dialect.name != "postgresql":
            return
        parts = connection.execute(
            text(
                "SELECT c.relname, (SELECT count(*) FROM pg_index x WHERE x.indrelid = c.oid)"
                " FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid"
                " WHERE i.inhparent = 'list_entries'::regclass ORDER BY c.relname"
            )
        ).all()
        indexes = sum(declared_on(i, "postgresql") for i in list_entries.indexes) + 1
        assert [tuple(p) for p in parts] == [
            (f"entries_{i}", indexes) for i in sorted([first.id, second.id, third])
        ]
        # A list's table is ordered without the list, which each index carries along so that a
        # query naming the list is answered from the index alone.
        games = connection.execute(
            text("SELECT indexdef FROM pg_indexes WHERE indexname = :name"),
            {"name": f"entries_{third}_games"},
        ).scalar_one()
        assert games.endswith("(games, player_id, rank) INCLUDE (list_id)")
        # A list published is vacuumed once committed: its pages are all-visible, so the site
        # reads its indexes alone. The list computed by hand above was not.
        for list_id, settled in ((first.id, True), (second.id, True), (third, False)):
            pages, visible = connection.execute(
                text(
                    "SELECT relpages, relallvisible FROM pg_class"
                    f" WHERE oid = 'list_parts.entries_{list_id}'::regclass"
                )
            ).one()
            assert pages > 0
            assert (visible == pages) is settled, (list_id, pages, visible)


def test_each_players_place_in_their_country_is_counted_on_the_list(rated: Engine) -> None:
    """The place among the players of one's country, read with the player's other places in one
    query: one more than those of the same country ranked ahead overall (ties share a place)."""
    info = publish(rated, "2022-06")
    e = list_entries.c
    with rated.connect() as connection:
        rows = connection.execute(
            select(e.player_id, e.country, e.rank_all).where(e.list_id == info.id)
        ).all()
        found = {
            player: list_pages.player_on_lists(connection, player, [info.id])["rank_country"][0]
            for player, _, _ in rows
        }
    expected = {
        player: None
        if country is None
        else 1 + sum(1 for _, other, ahead in rows if other == country and ahead < rank_all)
        for player, country, rank_all in rows
    }
    assert len({country for _, country, _ in rows}) < len(rows) // 2
    assert max(v or 0 for v in expected.values()) > 3
    assert found == expected


def test_a_list_cut_off_before_rated_tournaments_is_shown_before_it_is_stored(
    rated: Engine,
) -> None:
    """A list computed here (cut off before tournaments already rated) is handed to ``shown``, as
    the monthly job's files are written from it while the database stores it: the list as it is
    committed, and its entries as the publication holds them, handed over before any of them is
    stored."""
    handed: list[tuple[lists.ListInfo, pl.DataFrame, int]] = []
    with rated.begin() as connection:
        assert not lists.totals_hold_list(connection, date(2022, 5, 31))

        def shown(info: lists.ListInfo, entries: pl.DataFrame) -> None:
            stored = connection.execute(
                select(func.count())
                .select_from(list_entries)
                .where(list_entries.c.list_id == info.id)
            ).scalar_one()
            handed.append((info, entries, stored))

        done = publish_into(
            connection, "2022-06", ListOptions(), by="officer", now=NOW, shown=shown
        )
    assert done.entries is not None
    [(info, entries, stored)] = handed
    assert stored == 0
    with rated.connect() as connection:
        assert info == lists.latest_list(connection, "2022-06")
        read_back = lists.list_entries_of(connection, info.id)
    assert entries.sort("player").equals(read_back.sort("player"))
    assert entries.equals(done.entries)
    assert entries.height == info.players > 0


@pytest.mark.parametrize(("aside_from", "deferred"), [(1, True), (None, False)])
def test_a_command_analyses_a_large_list_after_its_commit(
    rated: Engine, monkeypatch: pytest.MonkeyPatch, aside_from: int | None, deferred: bool
) -> None:
    """On PostgreSQL a command leaves the analysis of a list's partition of
    ``statistics.ASIDE_FROM`` entries or more to a process of its own after the commit, and
    analyses a smaller one in its transaction; SQLite analyses in the transaction."""
    if aside_from is not None:
        monkeypatch.setattr(statistics, "ASIDE_FROM", aside_from)
    handed: list[list[str]] = []
    monkeypatch.setattr(
        publishing, "analyse_aside", lambda engine, tables: handed.append(list(tables))
    )
    info = publish(ends_with_process(rated), "2022-06")
    postgres = rated.dialect.name == "postgresql"
    partition = list_partitions.partition_table(info.id)
    assert handed == [[partition] if postgres and deferred else []]
    if postgres:
        with rated.connect() as connection:
            analysed = connection.execute(
                text(
                    "SELECT count(*) FROM pg_stats"
                    " WHERE schemaname || '.' || tablename = :partition"
                ),
                {"partition": partition},
            ).scalar_one()
        assert (analysed > 0) is not deferred
