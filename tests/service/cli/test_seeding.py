"""`ratings seed` end to end: participants matched to the database, every output format."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import openpyxl
import pytest

from tests.service.cli.conftest import Invoke
from tests.support import histories


@pytest.fixture
def run(run: Invoke, tmp_path: Path) -> Invoke:
    """The command line on a database holding a rated history."""
    run("import", str(histories.write_csv(EVENTS, tmp_path / "h.csv")))
    run("run")
    return run


EVENTS = histories.history(events=12)
PLAYED = sorted({r.player_id for e in EVENTS for r in e}, key=int)


@pytest.fixture
def participants(tmp_path: Path) -> Path:
    a, b, c, d, e = PLAYED[:5]
    country = {p: ("GER" if int(p) % 2 else "AUT") for p in (c, d)}
    path = tmp_path / "participants.csv"
    path.write_text(
        "player_id,name,country,rating,bye\n"
        f"{a},,,,\n{b},,,,\n,Player {c},{country[c]},,\n,Player {d},{country[d]},,\n{e},,,,yes\n"
        ",Newcomer Nina,NOR,1210,\n,Newcomer Ole,NOR,,\n"
    )
    return path


def test_swiss_seed_list_csv(run, participants: Path) -> None:  # type: ignore[no-untyped-def]
    code, out, err = run("seed", str(participants), "--system", "swiss", "--format", "csv")
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert list(rows[0]) == [
        "seed",
        "player_id",
        "name",
        "country",
        "rating",
        "rating_exact",
        "class",
    ]
    assert [int(r["seed"]) for r in rows] == list(range(1, 8))
    exact = [float(r["rating_exact"]) for r in rows]
    assert exact == sorted(exact, reverse=True)
    newcomers = {r["name"]: r for r in rows if r["player_id"] == ""}
    assert newcomers["Newcomer Nina"]["rating_exact"] == "1210.0000000000"
    assert newcomers["Newcomer Ole"]["rating_exact"] == "1000.0000000000"


def test_swiss_pairing_csv_and_xlsx(run, participants: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run(
        "seed", str(participants), "--system", "swiss", "--pairings", "--format", "csv"
    )
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert list(rows[0]) == [
        "board",
        "white_seed",
        "white_id",
        "white_name",
        "black_seed",
        "black_id",
        "black_name",
    ]
    # Seven participants, one asked for a bye: six paired, three boards, plus the requested bye.
    games = [r for r in rows if r["black_name"]]
    assert len(games) == 3
    _, listing, _ = run("seed", str(participants), "--system", "swiss", "--format", "json")
    paired = [str(r["seed"]) for r in json.loads(listing) if not r["bye"]]
    # Top half against bottom half, the higher seed White on board 1, colours alternating.
    expected = [(paired[0], paired[3]), (paired[4], paired[1]), (paired[2], paired[5])]
    assert [(r["white_seed"], r["black_seed"]) for r in games] == expected
    target = tmp_path / "pairing.xlsx"
    code, _, _ = run(
        "seed", str(participants), "--system", "swiss", "--pairings", "-o", str(target)
    )
    assert code == 0
    sheet = openpyxl.load_workbook(target).active
    assert sheet.cell(row=1, column=1).value == "board"


def test_mcmahon_needs_a_sensible_bar_and_floor(run, participants: Path) -> None:  # type: ignore[no-untyped-def]
    runner_code, _, err = run(
        "seed",
        str(participants),
        "--system",
        "mcmahon",
        "--mms-from",
        "rating",
        "--bar",
        "20k",
        "--floor",
        "2d",
    )
    assert runner_code == 2
    assert "the bar (20k) must not be below the floor (2d)" in err
    code, out, _ = run(
        "seed", str(participants), "--system", "mcmahon", "--mms-from", "rating", "--format", "csv"
    )
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    # McMahon's own columns, not the Swiss strength class.
    assert list(rows[0]) == [
        "seed", "player_id", "name", "country", "rating", "rating_exact", "rank", "mms", "group",
    ]  # fmt: skip
    scores = [int(r["mms"]) for r in rows]
    assert scores == sorted(scores, reverse=True)


def test_html_pairing_cards(run, participants: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    target = tmp_path / "cards.html"
    code, _, _ = run(
        "seed", str(participants), "--system", "swiss", "--pairings", "-o", str(target)
    )
    assert code == 0
    page = target.read_text()
    assert page.count('class="card"') == 4
    assert "Board 1" in page
    assert "Result:" in page


def test_bad_participant_files(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "bad.csv"
    path.write_text("player_id,name\n999,\n")
    code, _, err = run("seed", str(path), "--system", "swiss")
    assert code == 1
    assert "bad.csv, line 2, column 'player_id': value '999'" in err


def test_a_handicap_event_prints_each_games_handicap(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    go = tmp_path / "go.csv"
    go.write_text("name,country,rank\nAki,JPN,3d\nBea,FRA,1k\nCem,TUR,5k\nDan,POL,12k\n")
    seed = ("seed", str(go), "--system", "mcmahon", "--pairings")
    code, out, err = run(*seed, "--handicap", "9", "--format", "json")
    assert code == 0, err
    assert [(b["white_name"], b["black_name"], b["handicap"]) for b in json.loads(out)] == [
        ("Aki", "Bea", 2),
        ("Cem", "Dan", 6),
    ]
    target = tmp_path / "cards.html"
    assert run(*seed, "--handicap", "9", "-o", str(target))[0] == 0
    assert "Handicap: 6 stones" in target.read_text()
    code, out, _ = run(*seed, "--format", "json")
    assert "handicap" not in json.loads(out)[0]
    code, _, err = run(*seed, "--handicap", "12")
    assert code == 2
    assert "12 is not in the range 0<=x<=9" in err


KLEINS = (
    "player_id,name,country\n"
    "K1,Klaus Klein,DEU\nK2,Stefan Klein,DEU\nK3,Tobias Klein,AUT\nK4,Eva Schmid,CHE\n"
)
"""Registered players without a rated game: three Kleins a surname alone may be."""


def test_a_name_several_players_may_have_is_asked_about_and_no_list_written(  # type: ignore[no-untyped-def]
    run, tmp_path: Path
) -> None:
    registry = tmp_path / "kleins.csv"
    registry.write_text(KLEINS)
    assert run("players", "import", str(registry))[0] == 0
    entries = tmp_path / "entries.csv"
    entries.write_text("name,country\nKlein,\nEva Schmidt,CHE\nNina Neu,NOR\n")
    target = tmp_path / "seeds.csv"
    code, out, err = run("seed", str(entries), "--system", "swiss", "-o", str(target))
    assert code == 1
    assert not target.exists()
    assert out == ""
    assert err == (
        "error: 2 participants may be players of the rating list: give each one player_id in "
        "the file (or new for a newcomer); candidates as id, name, country, rating:\n"
        "  entries.csv, line 2: 'Klein' (no country): no player of the rating list has this "
        "name, but it is part of or close to the name of 3 players\n"
        "      K1  Klaus Klein  DEU  unrated\n"
        "      K2  Stefan Klein  DEU  unrated\n"
        "      K3  Tobias Klein  AUT  unrated\n"
        "  entries.csv, line 3: 'Eva Schmidt' (CHE): no player of the rating list has this "
        "name, but it is part of or close to the name of 1 player\n"
        "      K4  Eva Schmid  CHE  unrated\n"
    )
    # The director's answer in the file: an id, or new for a newcomer.
    entries.write_text("player_id,name,country\nK2,,\nnew,Eva Schmidt,CHE\n,Nina Neu,NOR\n")
    code, out, err = run("seed", str(entries), "--system", "swiss", "--format", "csv")
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    # Three players without a rating, seeded at the initial rating, by name.
    assert [(r["player_id"], r["name"]) for r in rows] == [
        ("", "Eva Schmidt"), ("", "Nina Neu"), ("K2", "Stefan Klein"),
    ]  # fmt: skip


def test_flags_print_as_words_in_text_and_as_values_in_csv_and_json(  # type: ignore[no-untyped-def]
    run, participants: Path
) -> None:
    code, out, err = run("seed", str(participants), "--system", "swiss", "--format", "text")
    assert code == 0, err
    assert "True" not in out
    assert "False" not in out
    header, _, *lines = out.splitlines()[2:]
    bye = header.index("bye")
    assert sorted({line[bye:].strip() for line in lines}) == ["no", "yes"]
    code, out, _ = run("seed", str(participants), "--system", "swiss", "--format", "json")
    assert sorted({r["bye"] for r in json.loads(out)}) == [False, True]
    code, out, _ = run("ranking", "--all", "--format", "text")
    header, _, *lines = out.splitlines()
    assert header.split()[-1] == "active"
    assert {line.split()[-1] for line in lines} <= {"yes", "no"}
    code, out, _ = run("ranking", "--all", "--format", "csv")
    assert {r["active"] for r in csv.DictReader(io.StringIO(out))} <= {"true", "false"}


def test_control_characters_are_taken_out_of_a_name_with_a_warning(  # type: ignore[no-untyped-def]
    run, tmp_path: Path
) -> None:
    entries = tmp_path / "entries.json"
    entries.write_text('[{"name": "Nina\\u0000 Neu"}, {"name": "Ole Berg"}]')
    code, out, err = run("seed", str(entries), "--system", "swiss", "--format", "json")
    assert code == 0, err
    assert [r["name"] for r in json.loads(out)] == ["Nina Neu", "Ole Berg"]
    assert err == (
        "warning: entries.json, line 1, column 'name': value 'Nina\\x00 Neu': control "
        "characters removed: read as 'Nina Neu'\n"
    )


def test_a_country_that_names_none_is_a_warning(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    go = tmp_path / "go.csv"
    go.write_text("name,country,rank\nAki,JPN,3d\nBea,???,1k\nCem,TUR,5k\nDan,POL,12k\n")
    code, out, err = run("seed", str(go), "--system", "mcmahon", "--format", "json")
    assert code == 0, err
    assert err == (
        "warning: go.csv, line 3, column 'country': value '???': not a country code (ISO 3166, "
        "FIDE/IOC or a historic one): stored as unknown\n"
    )
    assert [row["country"] for row in json.loads(out)] == ["JPN", None, "TUR", "POL"]


def test_unrated_players_seeded_last_with_unrated_last(run, participants: Path) -> None:  # type: ignore[no-untyped-def]
    code, out, err = run("seed", str(participants), "--system", "swiss", "--format", "csv")
    assert code == 0, err
    default = list(csv.DictReader(io.StringIO(out)))
    # By default Ole, who has no rating, sits at the initial rating, 1000, among the rated.
    assert default[-1]["name"] != "Newcomer Ole"
    code, out, err = run(
        "seed", str(participants), "--system", "swiss", "--unrated", "last", "--format", "csv"
    )
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["seed"] for r in rows] == [str(n) for n in range(1, 8)]
    assert (rows[-1]["name"], rows[-1]["rating"], rows[-1]["class"]) == ("Newcomer Ole", "", "")
    # Nina's rating comes from the file: she is rated, and stays among the rated.
    nina = next(r for r in rows if r["name"] == "Newcomer Nina")
    assert nina["rating_exact"] == "1210.0000000000"
    exact = [float(r["rating_exact"]) for r in rows[:-1]]
    assert exact == sorted(exact, reverse=True)


def test_unrated_last_is_refused_for_mcmahon_and_a_value_it_does_not_know(  # type: ignore[no-untyped-def]
    run, participants: Path
) -> None:
    code, _, err = run("seed", str(participants), "--system", "mcmahon", "--unrated", "last")
    assert code == 2
    assert (
        "unrated last orders a Swiss seed list; a McMahon event is seeded by its initial scores"
        in err
    )
    code, _, err = run("seed", str(participants), "--system", "swiss", "--unrated", "first")
    assert code == 2
    assert "'first' is not one of 'initial', 'last'" in err
