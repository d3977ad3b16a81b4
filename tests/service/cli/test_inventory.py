"""The officer's inventory on the command line: merge (side by side, asked on a terminal),
unmerge, and the tournaments group; bad input is one line and exit 1. On SQLite and PostgreSQL."""

from __future__ import annotations

import csv
import hashlib
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from service.cli import base, cli
from tests.service.cli.conftest import Invoke
from tests.support import histories
from tests.support.data import GOLDEN
from tests.support.db import created
from tests.support.histories import Row, split_history
from tests.support.settings import empty_settings_file

NEEDS_YES = "needs a confirmation: run it on a terminal to be asked, or add --yes"


@pytest.fixture
def loaded(run: Invoke, tmp_path: Path) -> list[list[Row]]:
    events = split_history(20)
    assert run("import", str(histories.write_csv(events, tmp_path / "results.csv")))[0] == 0
    assert run("run")[0] == 0
    return events


def at_terminal(monkeypatch: pytest.MonkeyPatch, *args: str, answer: str) -> tuple[int, str, str]:
    """The command as an officer at a terminal runs it, answering the question."""
    monkeypatch.setattr(base, "attached_terminal", lambda: True)
    result = CliRunner().invoke(cli, list(args), input=answer, catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def test_a_merge_shows_both_players_and_needs_a_yes(
    run: Invoke, loaded: list[list[Row]], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, err = run("players", "merge", "3", "103")
    assert (code, err) == (1, f"error: merging 103 into 3 {NEEDS_YES}\n")
    lines = out.splitlines()
    assert lines[0].split() == ["keep", "duplicate"]
    assert lines[1].split() == ["id", "3", "103"]
    assert lines[2].split() == ["name", "Player", "3", "Player", "Three"]
    labels = [line.split()[0] for line in lines[1:]]
    assert labels == ["id", "name", "country", "club", "title", "external", "rating", "games",
                      "last"]  # fmt: skip
    played = sum(any(r.player_id == "103" for r in e) for e in loaded)
    assert played > 1
    assert lines[8].endswith(f"in {played} tournaments")
    # Still two players: nothing was merged.
    assert run("players", "show", "103")[0] == 0
    # At a terminal the officer is asked; "no" changes nothing.
    code, out, err = at_terminal(monkeypatch, "players", "merge", "3", "103", answer="n\n")
    assert (code, err) == (1, "nothing changed\n")
    assert "merge 103 into 3? [y/N]" in out
    assert run("players", "show", "103")[0] == 0
    code, out, _ = at_terminal(monkeypatch, "players", "merge", "3", "103", answer="y\n")
    assert code == 0
    assert out.endswith("merged 103 into 3: run `ratings run` to re-rate\n")
    assert run("players", "show", "103") == (
        1, "", "error: player 103 was merged into another player\n"
    )  # fmt: skip
    code, _, err = run("publish", "2022-03")
    assert (code, err) == (
        1,
        "error: ratings must be re-rated (player 103 was merged into 3): run `ratings run` first\n",
    )


def test_merge_refusals_are_one_line(run: Invoke, loaded: list[list[Row]]) -> None:
    both = next(e for e in loaded if len({r.player_id for r in e} & {"1", "2"}) == 2)
    for args, said in [
        (("3", "999"), "no player has the id 999"),
        (("3", "3"), "cannot merge player 3 into itself"),
        (("1", "2"), f"players 1 and 2 both played in {both[0].tournament_id}"),
    ]:
        code, out, err = run("players", "merge", *args, "--yes")
        assert code == 1, args
        assert out == ""
        assert err.startswith(f"error: {said}")
        assert err.count("\n") == 1


def test_an_unmerge_gives_the_player_back(
    run: Invoke, loaded: list[list[Row]], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, _ = run("player", "103", "--format", "csv")
    history_before = out
    assert run("players", "merge", "3", "103", "--yes")[0] == 0
    assert run("run")[0] == 0
    code, out, err = run("players", "unmerge", "103")
    assert (code, err) == (1, f"error: undoing the merge of 103 {NEEDS_YES}\n")
    played = sum(any(r.player_id == "103" for r in e) for e in loaded)
    assert out.startswith("103 was merged into 3 on ")
    assert out.endswith(f"; {played} tournaments go back to 103\n")
    code, out, err = at_terminal(monkeypatch, "players", "unmerge", "103", answer="y\n")
    assert code == 0
    assert out.endswith(
        f"separated 103 from 3: {played} tournaments went back to 103: run `ratings run` to "
        "re-rate\n"
    )
    code, _, err = run("publish", "2022-03")
    assert (code, err) == (
        1,
        "error: ratings must be re-rated (player 103 was separated from 3): run `ratings run` "
        "first\n",
    )
    assert run("run")[0] == 0
    assert run("player", "103", "--format", "csv")[1] == history_before
    assert run("publish", "2022-03")[0] == 0


def test_unmerge_refusals_are_one_line(run: Invoke, loaded: list[list[Row]]) -> None:
    assert run("players", "unmerge", "999", "--yes") == (
        1, "", "error: no player has the id 999\n"
    )  # fmt: skip
    assert run("players", "unmerge", "103", "--yes") == (
        1, "", "error: player 103 is not merged into another player\n"
    )  # fmt: skip
    # Without --yes the player is checked first: the error is the real one, not the question.
    assert run("players", "unmerge", "103") == (
        1, "", "error: player 103 is not merged into another player\n"
    )  # fmt: skip
    # As for the merge, the kept player may be named first; it must be the right one.
    assert run("players", "merge", "3", "103", "--yes")[0] == 0
    assert run("players", "unmerge", "1", "103", "--yes") == (
        1, "", "error: player 103 was merged into 3, not into 1\n"
    )  # fmt: skip
    assert run("players", "unmerge", "999", "103", "--yes") == (
        1, "", "error: no player has the id 999\n"
    )  # fmt: skip
    code, _, err = run("players", "unmerge", "3", "103", "4", "--yes")
    assert code == 2
    assert "give DUPLICATE, or KEEP DUPLICATE as for the merge" in err
    code, out, _ = run("players", "unmerge", "3", "103", "--yes")
    assert code == 0
    assert "separated 103 from 3" in out


def test_tournaments_list_filters_and_formats(
    run: Invoke, loaded: list[list[Row]], tmp_path: Path
) -> None:
    late = histories.history(events=22)[20:]
    assert run("import", str(histories.write_csv(late, tmp_path / "late.csv")))[0] == 0
    keys = [e[0].tournament_id for e in loaded + late]
    code, out, _ = run("tournaments", "list", "--format", "csv")
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["key"] for r in rows] == keys
    assert list(rows[0]) == [
        "key", "name", "start_date", "end_date", "tier", "status", "results", "source_format",
        "imported_at", "imported_by",
    ]  # fmt: skip
    assert [r["status"] for r in rows] == ["rated"] * 20 + ["pending"] * 2
    assert rows[0]["results"] == str(len(loaded[0]))
    code, out, _ = run("tournaments", "list", "--status", "pending")
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["key", "name", "start_date"]
    assert [line.split()[0] for line in lines[2:]] == keys[20:]
    ends = [e[0].end_date.isoformat() for e in loaded]
    code, out, _ = run("tournaments", "list", "--from", ends[2], "--to", ends[4], "--format", "csv")
    assert [r["key"] for r in csv.DictReader(io.StringIO(out))] == keys[2:5]
    code, out, _ = run("tournaments", "list", "--player", "103", "--format", "csv")
    played = [e[0].tournament_id for e in loaded if any(r.player_id == "103" for r in e)]
    assert [r["key"] for r in csv.DictReader(io.StringIO(out))] == played
    assert run("tournaments", "list", "--from", "2031-01-01") == (0, "no tournament found\n", "")
    assert run("tournaments", "deleted") == (0, "no tournament was deleted\n", "")
    assert run("tournaments", "list", "--player", "999") == (
        1, "", "error: no player has the id 999\n"
    )  # fmt: skip
    code, _, err = run("tournaments", "list", "--from", "1.2.2022")
    assert code == 2
    assert "expected a date as YYYY-MM-DD, not '1.2.2022'" in err
    code, _, err = run("tournaments", "list", "--status", "done")
    assert code == 2
    assert "'done' is not one of 'pending', 'rated'" in err


def test_tournaments_show_a_results_table(
    run: Invoke, loaded: list[list[Row]], tmp_path: Path
) -> None:
    event = loaded[3]
    key = event[0].tournament_id
    code, out, _ = run("tournaments", "show", key)
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == f"{key}  {event[0].tournament}"
    assert lines[1] == f"dates: {event[0].start_date} to {event[0].end_date}  tier: {event[0].tier}"
    assert lines[2].startswith("status: rated (k ")
    assert lines[3] == "source: results.csv (csv)"
    digest = hashlib.sha256((tmp_path / "results.csv").read_bytes()).hexdigest()
    assert lines[4] == f"sha256: {digest}"
    assert lines[5].startswith("imported: ")
    assert f"{len(event)} results:" in lines
    table = lines[lines.index(f"{len(event)} results:") + 1 :]
    assert table[0].split() == [
        "player_id", "name", "country", "wins", "draws", "losses", "buchholz", "before", "after"
    ]  # fmt: skip
    assert {line.split()[0] for line in table[2 : 2 + len(event)]} == {r.player_id for r in event}
    assert lines[-1] == "no games: it came as a results table"
    assert run("tournaments", "show", "NOPE") == (
        1, "", "error: no tournament has the key NOPE\n"
    )  # fmt: skip


def test_tournaments_show_the_games_of_a_crosstable(run: Invoke) -> None:
    path = GOLDEN / "go_opengotha" / "juvisy2019.xml"
    assert run("import", str(path))[0] == 0
    code, out, _ = run("tournaments", "list", "--format", "csv")
    key = next(csv.DictReader(io.StringIO(out)))["key"]
    code, out, _ = run("tournaments", "show", key)
    assert code == 0
    lines = out.splitlines()
    assert "status: pending" in lines
    assert "19 results:" in lines
    assert "76 games in 4 rounds:" in lines
    games = lines[lines.index("76 games in 4 rounds:") + 1 :]
    assert games[0].split() == ["round", "player_id", "opponent_id", "outcome", "color", "handicap"]
    assert len(games) == 2 + 76


def test_a_tournament_is_deleted_with_a_yes_and_recorded(
    run: Invoke, loaded: list[list[Row]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RATINGS_IMPORTED_BY", "tester")
    key = loaded[5][0].tournament_id
    code, out, err = run("tournaments", "delete", key)
    assert (code, err) == (1, f"error: deleting {key} {NEEDS_YES}\n")
    assert out.startswith(f"{key}  ")
    assert f"rated, {len(loaded[5])} results, from results.csv" in out
    code, _, err = at_terminal(monkeypatch, "tournaments", "delete", key, answer="\n")
    assert (code, err) == (1, "nothing changed\n")
    assert run("tournaments", "show", key)[0] == 0
    code, out, _ = run("tournaments", "delete", key, "--yes")
    assert code == 0
    assert out.endswith(
        f"deleted {key} and its {len(loaded[5])} results: run `ratings run` to re-rate what "
        "followed it\n"
    )
    code, _, err = run("publish", "2022-03")
    assert (code, err) == (
        1, f"error: ratings must be re-rated (tournament {key} was deleted): run `ratings run` first\n"
    )  # fmt: skip
    code, _, err = run("tournaments", "show", key)
    assert code == 1
    assert err.startswith(f"error: no tournament has the key {key}: it was deleted on ")
    assert err.endswith(" by tester\n")
    assert run("tournaments", "delete", "NOPE", "--yes") == (
        1, "", "error: no tournament has the key NOPE\n"
    )  # fmt: skip
    code, out, _ = run("tournaments", "deleted")
    lines = out.splitlines()
    assert lines[0].split() == [
        "key", "name", "end_date", "status", "results", "source_name", "deleted_at", "deleted_by"
    ]  # fmt: skip
    assert lines[2].startswith(f"{key}  ")
    assert lines[2].endswith(" tester")
    code, out, _ = run("tournaments", "deleted", "--format", "csv")
    (row,) = csv.DictReader(io.StringIO(out))
    assert (row["key"], row["results"], row["deleted_by"]) == (key, str(len(loaded[5])), "tester")
    assert run("run")[0] == 0
    assert run("publish", "2022-03")[0] == 0


def test_a_reader_that_stops_early_is_no_internal_error(tmp_path: Path) -> None:
    """`ratings tournaments show KEY | head`: the reader has gone before the output is written."""
    environment = {
        **os.environ,
        "RATINGS_DATABASE_URL": created(f"sqlite:///{tmp_path / 'pipe.sqlite'}"),
        "RATINGS_CONFIG": empty_settings_file(tmp_path),
        "RATINGS_PUBLISH_DIR": str(tmp_path / "publish"),
    }
    events = histories.history(events=3)
    path = histories.write_csv(events, tmp_path / "few.csv")
    command = [sys.executable, "-m", "service.cli"]
    subprocess.run([*command, "import", str(path)], env=environment, check=True,
                   capture_output=True)  # fmt: skip
    for args in (["tournaments", "show", events[0][0].tournament_id], ["tournaments", "list"]):
        process = subprocess.Popen(
            [*command, *args], env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        assert process.stdout is not None
        process.stdout.close()
        _, err = process.communicate(timeout=60)
        assert (process.returncode, err) == (1, b""), args


def test_an_external_id_that_disagrees_is_a_warning_on_standard_error(
    run: Invoke, tmp_path: Path
) -> None:
    registry = tmp_path / "players.csv"
    registry.write_text("player_id,name,fide_id\nP1,Anna Schmidt,4600001\nP4,Marco Rossi,\n")
    assert run("players", "import", str(registry)) == (
        0, "2 players created, 0 updated, 0 unchanged, 0 with a changed title\n", ""
    )  # fmt: skip
    update = tmp_path / "update.csv"
    update.write_text("player_id,name,fide_id\nP4,Marco Rossi,4600001\n")
    code, out, err = run("players", "import", str(update))
    assert (code, out) == (0, "0 players created, 0 updated, 1 unchanged, 0 with a changed title\n")
    assert err == (
        "warning: update.csv, line 2, column 'fide_id': value '4600001': this FIDE id belongs "
        "to player P1: not stored (review, and merge if they are one person)\n"
    )
    results = tmp_path / "open.csv"
    results.write_text(
        "tournament,end_date,player_id,name,fide_id,wins,draws,losses,buchholz\n"
        "Open,2025-03-01,P4,Marco Rossi,4600001,1,0,0,0\n"
        "Open,2025-03-01,,Anna Schmidt,4600001,0,0,1,1\n"
    )
    code, out, err = run("import", str(results))
    assert code == 0
    assert out.startswith("imported 1 new and 0 corrected tournaments, 2 results, 0 new players")
    assert err == (
        "warning: open.csv, line 2, column 'fide_id': value '4600001': this FIDE id belongs to "
        "Anna Schmidt (P1), not to player P4: not stored (review, and merge if they are one "
        "person)\n"
    )


def test_a_registry_dry_run_shows_each_field_it_would_change(run: Invoke, tmp_path: Path) -> None:
    registry = tmp_path / "players.csv"
    registry.write_text(
        "player_id,name,country,club\nP1,Anna Schmidt,GER,SK Bern\nP2,Marco Rossi,ITA,Torre\n"
    )
    run("players", "import", str(registry))
    titles = tmp_path / "titles.csv"
    titles.write_text(
        "player_id,name,country,title,title_date\nP1,Anna Schmidt,SUI,FM,2024-05-01\n"
        "P2,Marco Rossi,C.C,,\nP3,Eva Berg,NOR,,\n"
    )
    code, out, err = run("players", "import", "--dry-run", str(titles))
    assert (code, out) == (
        0,
        "new player: P3 Eva Berg\n"
        "change: P1 Anna Schmidt: country 'DEU' → 'CHE'\n"
        "change: P1 Anna Schmidt: title (empty) → 'FM'\n"
        "change: P1 Anna Schmidt: title_date (empty) → '2024-05-01'\n"
        "dry run, nothing written: 1 player would be created, 1 updated, 1 unchanged, "
        "1 with a changed title\n",
    )
    assert err.startswith("warning: titles.csv, line 3, column 'country': value 'C.C': ")
    assert run("players", "show", "P1")[1].splitlines()[1] == "country: DEU  club: SK Bern"
    code, out, err = run("players", "import", str(titles))
    assert out.startswith("1 player created, 1 updated, 1 unchanged, 1 with a changed title\n")
    # No club column: the clubs stay as they were.
    assert run("players", "show", "P1")[1].splitlines()[1] == "country: CHE  club: SK Bern"
    assert run("players", "show", "P2")[1].splitlines()[1] == "country: ITA  club: Torre"
