"""Crosstables through the import job and the standings command (SPEC 4.3 and 5)."""

from __future__ import annotations

import csv
import io
import re
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import func, select
from sqlalchemy.engine import Engine

from importers.crosstables import read_crosstable
from jobs.importing import import_files
from jobs.rating import run_ratings
from ratings.errors import InputError
from ratings.formula import BUCHHOLZ_SCALE, MeloParams
from ratings.storage.schema import games, players, results, tournaments
from ratings.tiebreaks import melo_buchholz
from service.cli import cli
from tests.support.data import GOLDEN
from tests.support.db import snapshot

NOW = datetime(2026, 11, 1, tzinfo=UTC)
GO = GOLDEN / "go_opengotha"
TRF = GOLDEN / "chess_trf_samples"


def test_an_opengotha_file_is_rated_from_its_games(engine: Engine) -> None:
    # Source: OpenGotha's "Tournoi de Juvisy" (tests/data/SOURCES.md), 19 players, 4 rounds.
    report = import_files(engine, [GO / "juvisy2019.xml"], imported_by="t", now=NOW)
    assert (report.tournaments_new, report.results) == (1, 19)
    crosstable = read_crosstable(GO / "juvisy2019.xml")
    with engine.connect() as connection:
        rows = connection.execute(
            select(
                players.c.name,
                results.c.wins,
                results.c.draws,
                results.c.losses,
                results.c.buchholz,
            ).join(results, results.c.player_id == players.c.id)
        ).all()
        stored_games = connection.execute(select(func.count()).select_from(games)).scalar_one()
        event = connection.execute(select(tournaments.c.start_date, tournaments.c.end_date)).one()
    by_name = {r.name: r for r in rows}
    from importers.opengotha import policy_for

    for player, buchholz in zip(
        crosstable.players, melo_buchholz(crosstable, policy_for(crosstable)), strict=True
    ):
        row = by_name[player.name]
        assert (row.wins, row.draws, row.losses) == (player.wins, player.draws, player.losses)
        assert row.buchholz == buchholz * BUCHHOLZ_SCALE
    assert stored_games == sum(len(p.cells) for p in crosstable.players)
    assert event == (date(2019, 10, 26), date(2019, 10, 28))
    assert run_ratings(engine, MeloParams(), now=NOW).tournaments == 1


def test_a_crosstable_without_dates_needs_them_from_the_officer(
    engine: Engine, tmp_path: Path
) -> None:
    before = snapshot(engine)
    with pytest.raises(
        InputError,
        match=r"bbp_dutch_2025_C5\.trf, column 'end_date': the file gives no end date: give --end-date",
    ):
        import_files(engine, [TRF / "bbp_dutch_2025_C5.trf"], imported_by="t", now=NOW)
    assert snapshot(engine) == before
    from importers.from_crosstable import EventOptions

    event = EventOptions(name="Club Swiss", end_date=date(2025, 3, 2), tier="national")
    import_files(engine, [TRF / "bbp_dutch_2025_C5.trf"], event=event, imported_by="t", now=NOW)
    with engine.connect() as connection:
        stored = connection.execute(select(tournaments.c.key, tournaments.c.tier)).one()
    assert tuple(stored) == ("Club Swiss 2025-03-02", "national")


def test_a_results_table_must_agree_with_the_crosstable(engine: Engine, tmp_path: Path) -> None:
    from importers.from_crosstable import EventOptions

    event = EventOptions(key="C5", end_date=date(2025, 3, 2))
    import_files(engine, [TRF / "bbp_dutch_2025_C5.trf"], event=event, imported_by="t", now=NOW)
    with engine.connect() as connection:
        rows = connection.execute(
            select(
                players.c.federation_id,
                players.c.name,
                results.c.wins,
                results.c.draws,
                results.c.losses,
                results.c.buchholz,
            )
            .join(results, results.c.player_id == players.c.id)
            .order_by(players.c.federation_id)
        ).all()
    table = tmp_path / "c5.csv"
    lines = ["tournament,tournament_id,end_date,player_id,name,wins,draws,losses,buchholz"]
    for i, r in enumerate(rows):
        buchholz = r.buchholz / BUCHHOLZ_SCALE + (0.5 if i == 0 else 0)
        lines.append(
            f"C5,C5,2025-03-02,{r.federation_id},{r.name},{r.wins},{r.draws},{r.losses},{buchholz:g}"
        )
    table.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError) as caught:
        import_files(engine, [table], replace=True, imported_by="t", now=NOW)
    messages = [str(p) for p in caught.value.problems]
    assert len(messages) == 1
    assert messages[0].startswith("c5.csv, line 2, column 'buchholz'")
    assert "differs from the Buchholz computed from the crosstable of 'C5'" in messages[0]


def test_standings_command_prints_every_tie_break() -> None:
    result = CliRunner().invoke(cli, ["standings", str(GO / "juvisy2019.xml"), "--format", "csv"])
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert list(rows[0]) == [
        "place",
        "name",
        "points",
        "mms",
        "sos",
        "sos_1",
        "median",
        "sodos",
        "sosos",
        "cuss",
        "mdos",
        "sb",
        "wins",
    ]
    # OpenGotha's own export of the same event prints MMS, SOS and SOSOS (juvisy2019.h9).
    printed = {p.name: p.printed for p in read_crosstable(GO / "juvisy2019.h9").players}
    for row in rows:
        expected = printed[row["name"]]
        assert (row["mms"], row["sos"], row["sosos"]) == tuple(
            str(int(expected[k])) for k in ("MMS", "SOS", "SOSOS")
        )
    assert [r["place"] for r in rows][:2] == ["1", "2"]


def test_standings_of_a_swiss_event_leave_mms_empty() -> None:
    result = CliRunner().invoke(
        cli, ["standings", str(TRF / "bbp_dutch_2025_C5.trf"), "--format", "csv"]
    )
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert all(r["mms"] == "" for r in rows)
    points = [float(r["points"]) for r in rows]
    assert points == sorted(points, reverse=True)


def test_standings_of_an_h9_file_take_the_initial_mms_from_the_printed_mms() -> None:
    # Like `import`, `standings` needs no --bar/--floor when the file prints MMS.
    result = CliRunner().invoke(cli, ["standings", str(GO / "juvisy2019.h9"), "--format", "csv"])
    assert result.exit_code == 0, result.output
    first = next(csv.DictReader(io.StringIO(result.stdout)))
    assert (first["name"], first["mms"], first["sos"], first["sosos"]) == (
        "Minieri Davide",
        "36",
        "128",
        "503",
    )
    assert "round down NBW and MMS" in result.stderr


def test_an_unfinished_event_is_rated_only_up_to_a_named_round(
    engine: Engine, tmp_path: Path
) -> None:
    xml = (GO / "juvisy2019.xml").read_text(encoding="utf-8")
    last = xml.rindex('roundNumber="4"')
    start = xml.rindex("RESULT_", 0, last)
    unfinished = tmp_path / "juvisy.xml"
    unfinished.write_text(
        xml[:start] + "RESULT_UNKNOWN" + xml[xml.index('"', start) :], encoding="utf-8"
    )
    runner = CliRunner(env={"RATINGS_DATABASE_URL": str(engine.url)})
    before = snapshot(engine)
    result = runner.invoke(cli, ["import", str(unfinished)])
    assert result.exit_code == 1
    assert "an unfinished event cannot be rated (give --rounds 3 or fewer" in result.stderr
    assert snapshot(engine) == before
    result = runner.invoke(cli, ["standings", str(unfinished), "--format", "csv"])
    assert result.exit_code == 0, result.output
    assert "read as it stood after round 3" in result.stderr
    result = runner.invoke(cli, ["import", "--dry-run", "--rounds", "3", str(unfinished)])
    assert result.exit_code == 0, result.output
    result = runner.invoke(cli, ["import", "--dry-run", "--rounds", "4", str(unfinished)])
    assert result.exit_code == 1
    assert "a round from 1 to 3" in result.stderr


def test_standings_as_a_page_show_the_tie_breaks_that_apply_and_the_crosstable() -> None:
    result = CliRunner().invoke(
        cli, ["standings", str(TRF / "bbp_dutch_2025_C5.trf"), "--format", "html"]
    )
    assert result.exit_code == 0, result.output
    page = result.output
    headings = re.findall(r'<th scope="col" class="[^"]*">([^<]+)</th>', page)
    assert headings[:4] == ["Place", "Name", "Points", "SOS"]
    # A Swiss event has no MMS; nothing is left over from the list page.
    assert "MMS" not in headings
    assert "<figure" not in page
    assert "Rating distribution" not in page
    assert 'type="search"' not in page
    assert "<h2>Crosstable</h2>" in page
    assert re.search(r'<td class="num">\d+[wb][-+=]</td>', page)
    assert 'class="num">1</td>' in page


def test_a_corrected_crosstable_csv_replaces_its_event(engine: Engine, tmp_path: Path) -> None:
    # A crosstable CSV and a results table share the .csv suffix; a corrected crosstable is
    # checked as a crosstable, not against the Buchholz of the games it replaces.
    from importers.from_crosstable import EventOptions

    source = Path(__file__).parents[1] / "importers" / "fixtures" / "club_championship.csv"
    event = EventOptions(key="CC", end_date=date(2025, 3, 2))
    import_files(engine, [source], event=event, imported_by="t", now=NOW)
    corrected = tmp_path / "club_championship.csv"
    # Round 4, Kowalski against Dubois: Dubois wins instead (points 3 -> 2 and 1 -> 2).
    text = source.read_text(encoding="utf-8")
    text = text.replace(",IM,3,4w+,2b+,3w-,5b+", ",IM,2,4w+,2b+,3w-,5b-")
    text = text.replace(",,1950,,1,2w=,4b=,-BYE,1w-", ",,1950,,2,2w=,4b=,-BYE,1w+")
    corrected.write_text(text, encoding="utf-8")
    report = import_files(engine, [corrected], event=event, replace=True, imported_by="t", now=NOW)
    assert report.tournaments_replaced == 1
    with engine.connect() as connection:
        wins = connection.execute(
            select(results.c.wins)
            .join(players, results.c.player_id == players.c.id)
            # Created from the file's "Dubois, Claire", shown given name first.
            .where(players.c.name == "Claire Dubois")
        ).scalar_one()
    assert wins == 1


# The smallest h9 files with ranks written without k/d (as some in the EGD archive have them).
BARE_RANKS = """\
; EV[Club Cup]
; DT[2024-03-02,2024-03-02]
; Pl Name                Rk Co Club  NBW  SOS
   1 Alpha Anna          12 FR Club    2    1    2+/w0    3+/b0   |11111111
   2 Beta Bob             3 FR Club    1    2    1-/b0    0+      |22222222
   3 Gamma Carl           5 DE Bonn    0    2    0=       1-/w0   |33333333
"""
BARE_MCMAHON = """\
; EV[Club McMahon]
; DT[2024-03-02,2024-03-02]
; CM[Generated by Pairgoth 0.20]
; Pl Name                            Rk Co Club      MMS    SOS
   1 Alpha Anna                       3 FR Club       32     60    2+/b    3+/w1   |12345678
   2 Beta Bob                         2 FR Club       31     61    1-/w    0=      |
   3 Gamma Carl                       1 FR Club       30     62    0=      1-/b1   |87654321
"""


def test_an_h9_file_with_ranks_without_k_or_d_is_imported_with_warnings(
    engine: Engine, tmp_path: Path
) -> None:
    path = tmp_path / "cup.h9"
    path.write_text(BARE_RANKS, encoding="iso8859_15")
    report = import_files(engine, [path], imported_by="t", now=NOW)
    assert (report.tournaments_new, report.results) == (1, 3)
    assert [str(w) for w in report.warnings] == [
        f"cup.h9, line {line}, column 'Rk': value '{rank}': rank {rank} has no k/d: the rank is "
        "not used"
        for line, rank in ((4, "12"), (5, "3"), (6, "5"))
    ]
    with engine.connect() as connection:
        stored = connection.execute(
            select(players.c.name, results.c.wins)
            .join(results, results.c.player_id == players.c.id)
            .order_by(players.c.name)
        ).all()
    assert [tuple(r) for r in stored] == [("Alpha Anna", 2), ("Beta Bob", 0), ("Gamma Carl", 0)]


def test_standings_use_no_rank_without_k_or_d_and_refuse_where_one_is_needed(
    tmp_path: Path,
) -> None:
    swiss = tmp_path / "cup.h9"
    swiss.write_text(BARE_RANKS, encoding="iso8859_15")
    result = CliRunner().invoke(cli, ["standings", str(swiss), "--format", "csv"])
    assert result.exit_code == 0, result.output
    assert "warning: cup.h9, line 4, column 'Rk': value '12': rank 12 has no k/d" in result.stderr
    assert "Alpha Anna" in result.stdout
    mcmahon = tmp_path / "mcmahon.h9"
    mcmahon.write_text(BARE_MCMAHON, encoding="iso8859_15")
    result = CliRunner().invoke(cli, ["standings", str(mcmahon), "--format", "csv"])
    assert result.exit_code == 0, result.output  # the printed MMS give the initial scores
    unfinished = tmp_path / "unfinished.h9"
    unfinished.write_text(BARE_MCMAHON.replace("3+/w1", "3?/w1").replace("1-/b1", "1?/b1"))
    for extra in ([], ["--bar", "9d", "--floor", "30k"]):
        result = CliRunner().invoke(cli, ["standings", str(unfinished), *extra])
        assert result.exit_code == 1
        assert "Traceback" not in result.output
        assert (
            "unfinished.h9, line 5, column 'Rk': value '3': Alpha Anna: rank 3 has no k/d, and "
            "the file gives no initial McMahon score to use instead" in result.stderr
        )
