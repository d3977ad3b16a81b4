"""Every Go file of the corpus through ``ratings standings`` and ``ratings import --dry-run``.

``tests/data/corpus/go/`` holds unchanged copies of real files written by OpenGotha (3.35 to
3.52), Pairgoth's test resources and MacMahon 3.9 (see ``tests/data/SOURCES.md``). Each file is
either read, or refused with the one message its real defect calls for: an unfinished event
(results missing) cannot be rated, an event without a complete round, players or games has no
standings, a MacMahon 3.9 file is named as such. Where the program printed tie-breaks (its h9
export), ours are compared with them.
"""

from __future__ import annotations

import csv
import io
import re
from collections import Counter
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import select
from sqlalchemy.engine import Engine

from importers.h9 import read_h9
from importers.opengotha import policy_for, read_opengotha
from ratings.storage.database import open_engine
from ratings.storage.schema import players as stored_players
from ratings.tiebreaks import compute
from service.cli import cli
from tests.support.data import DATA
from tests.support.db import counts

CORPUS = DATA / "corpus" / "go"

UNFINISHED = "an unfinished event cannot be rated"
NO_ROUND = "an unfinished event without one complete round has no standings"
REFUSED_BY_BOTH = {
    "mm39-sample-tournament.xml": "not this MacMahon 3.9 tournament file",
    "og-essai.h9": NO_ROUND,
    "og-test31c.h9": NO_ROUND,
    "og-tournoichinois.h9": NO_ROUND,
    "og-tournoichinois.xml": NO_ROUND,
    "pheek-clm2014.xml": "an empty event (players registered, no game played)",
    "pheek-essaiclubsgroups.xml": NO_ROUND,
    "pg-stage-ete-2021.xml": "an empty event (players registered, no game played)",
    "remote-ioct2003.xml": "an empty event (no Player element)",
}
REFUSED_BY_IMPORT = {
    "og-cdfo2020.xml": "--rounds 6",
    "pg-kpmc-splitbug.xml": "--rounds 1",
    "pg-malavasi-geobug.xml": "--rounds 1",
    "remote-essai15h01.xml": "--rounds 4",
    "remote-reedmcmahonround3.xml": "--rounds 1",
    "remote-vieuxdragons.xml": "--rounds 4",
}
INCONSISTENT = {
    "remote-round3.xml": (
        "34 problems found",
        "remote-round3.xml, line 21, column 'blackPlayer': value '6, 6, 6, 6': 1791 胡盛昊: one "
        "opponent per round, but 4 players (6, 6, 6, 6) say they played him (lines 21, 22, 23, 24)",
    )
}
"""A real file whose games disagree (one player in four games of a round): refused by both, every
problem named."""
FILES = sorted(p.name for p in CORPUS.iterdir())


def test_the_corpus_is_all_there() -> None:
    assert len(FILES) == 66
    assert set(REFUSED_BY_BOTH) | set(REFUSED_BY_IMPORT) | set(INCONSISTENT) <= set(FILES)


@pytest.mark.parametrize("name", FILES)
def test_standings(name: str) -> None:
    result = CliRunner().invoke(cli, ["standings", str(CORPUS / name), "--format", "csv"])
    if name in INCONSISTENT:
        assert result.exit_code == 1
        assert all(part in result.stderr for part in INCONSISTENT[name])
        return
    if name in REFUSED_BY_BOTH:
        assert result.exit_code == 1
        assert "error: 1 problem found" in result.stderr
        assert REFUSED_BY_BOTH[name] in result.stderr
        return
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert rows
    assert rows[0]["place"].rstrip("=") == "1"
    if name in REFUSED_BY_IMPORT:
        assert "an unfinished event" in result.stderr  # the standings say what they show


@pytest.fixture(scope="module")
def dry_runs(module_database_url: str) -> Iterator[Engine]:
    """One database for every dry run of the module: a dry run writes nothing, which each test
    checks (:func:`still_empty`)."""
    engine = open_engine(module_database_url)
    yield engine
    engine.dispose()


def still_empty(engine: Engine) -> None:
    assert counts(engine, "tournaments", "players") == {"tournaments": 0, "players": 0}


@pytest.mark.parametrize("name", FILES)
def test_import_dry_run(name: str, dry_runs: Engine) -> None:
    runner = CliRunner(env={"RATINGS_DATABASE_URL": str(dry_runs.url)})
    result = runner.invoke(cli, ["import", "--dry-run", str(CORPUS / name)])
    still_empty(dry_runs)
    if name in INCONSISTENT:
        assert result.exit_code == 1
        assert all(part in result.stderr for part in INCONSISTENT[name])
        return
    if name in REFUSED_BY_BOTH or name in REFUSED_BY_IMPORT:
        assert result.exit_code == 1
        assert "error: 1 problem found" in result.stderr
        expected = REFUSED_BY_BOTH.get(name) or f"{UNFINISHED} (give {REFUSED_BY_IMPORT[name]}"
        assert expected in result.stderr
        return
    assert result.exit_code == 0, result.output
    assert "would import 1 new" in result.stdout


@pytest.mark.parametrize("name", sorted(REFUSED_BY_IMPORT))
def test_an_unfinished_event_is_rated_up_to_the_named_round(name: str, dry_runs: Engine) -> None:
    runner = CliRunner(env={"RATINGS_DATABASE_URL": str(dry_runs.url)})
    rounds = REFUSED_BY_IMPORT[name].split()[-1]
    result = runner.invoke(cli, ["import", "--dry-run", "--rounds", rounds, str(CORPUS / name)])
    assert result.exit_code == 0, result.output
    still_empty(dry_runs)


def test_egc_2011_is_imported_with_its_two_parity_players(engine: Engine) -> None:
    # Parity Three (line 297) and Three Parity (line 616) fold to one name: two entries of one
    # tournament, so two players (tests/jobs/test_one_player_per_entry.py).
    runner = CliRunner(env={"RATINGS_DATABASE_URL": str(engine.url)})
    result = runner.invoke(cli, ["import", str(CORPUS / "rgf-egc2011.xml")])
    assert result.exit_code == 0, result.output
    assert "760 results, 760 new players" in result.stdout
    assert (
        "rgf-egc2011.xml, line 616, column 'name': value 'Three Parity': folds to the name of "
        "another player" in result.stderr
    )
    with engine.connect() as connection:
        parity = connection.execute(
            select(stored_players.c.name).where(
                stored_players.c.name.in_(["Parity Three", "Three Parity"])
            )
        ).scalars()
        assert sorted(parity) == ["Parity Three", "Three Parity"]


def _printed(name: str) -> list[dict[str, Fraction]]:
    with (CORPUS / name).open("rb") as stream:
        return [dict(p.printed) for p in read_h9(stream, name).players]


def test_juvisy_values_as_opengotha_printed_them_from_h9_and_xml() -> None:
    printed = _printed("og-juvisy-2019.h9")
    for name in ("og-juvisy-2019.h9", "og-juvisy-2019.xml"):
        result = CliRunner().invoke(cli, ["standings", str(CORPUS / name), "--format", "csv"])
        assert result.exit_code == 0, result.output
        rows = list(csv.DictReader(io.StringIO(result.stdout)))
        got = Counter((r["mms"], r["sos"], r["sosos"]) for r in rows)
        expected = Counter(tuple(str(int(p[k])) for k in ("MMS", "SOS", "SOSOS")) for p in printed)
        assert got == expected, name


def test_ioct_nbw_as_printed() -> None:
    printed = _printed("og-ioct-20-02.h9")
    result = CliRunner().invoke(
        cli, ["standings", str(CORPUS / "og-ioct-20-02.h9"), "--format", "csv"]
    )
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert [r["wins"] for r in rows] == [str(int(p["NBW"])) for p in printed]


def test_tournoi_chinois_declared_rounds_as_opengotha_printed_them() -> None:
    # OpenGotha 3.49 printed this event (1 round of 5 played, one game without result) with
    # SOS and SOSOS counted over the 5 declared rounds. With the open game decided (both lose,
    # as the printed MMS of its players show), the XML gives every other player's printed values.
    path = Path(CORPUS / "og-tournoichinois.xml")
    data = path.read_bytes().replace(b"RESULT_UNKNOWN", b"RESULT_BOTHLOSE")
    table = read_opengotha(io.BytesIO(data), path.name)
    assert table.rounds == 5
    unknown = {6, 7}  # the two players of the open game (lines 7 and 8 of the h9 file)
    game = re.search(rb"<Game [^>]*RESULT_UNKNOWN[^>]*>", path.read_bytes())
    assert game is not None
    keys = {k.decode() for k in re.findall(rb'(?:white|black)Player="([^"]+)"', game.group(0))}
    open_game = {i for i, p in enumerate(table.players) if _key(p.name) in keys}
    assert len(open_game) == 2
    computed = Counter(
        (s.mms, s.sos, s.sosos)
        for s in compute(table, policy_for(table))
        if s.index not in open_game
    )
    # The h9 file itself is refused (no complete round): its columns are read here by position
    # (name in 30 columns from column 6, then rank, country, club, MMS, SOS, SOSOS).
    lines = (CORPUS / "og-tournoichinois.h9").read_bytes().decode("iso8859_15").splitlines()
    players = [line for line in lines if line and not line.startswith(";")]
    printed = Counter(
        tuple(Fraction(v) for v in line[36:].split()[3:6])
        for i, line in enumerate(players)
        if i not in unknown
    )
    assert len(players) == 24
    assert computed == printed


def _key(name: str) -> str:
    return name.replace(" ", "").upper()


def _standings(name: str) -> list[dict[str, str]]:
    result = CliRunner().invoke(cli, ["standings", str(CORPUS / name), "--format", "csv"])
    assert result.exit_code == 0, result.output
    return list(csv.DictReader(io.StringIO(result.stdout)))


def test_values_opengotha_3_45_printed_over_20_declared_rounds() -> None:
    # 4 of 20 rounds played; OpenGotha printed SOSOS in a 4-character column, so values of five
    # digits lost their last one (11204 printed 1120).
    printed = _printed("og-testpartetlic.h9")
    rows = _standings("og-testpartetlic.h9")
    assert len(rows) == len(printed) == 22
    got = Counter((r["mms"], r["sos"], r["sosos"][:4]) for r in rows)
    expected = Counter(tuple(str(int(p[k])) for k in ("MMS", "SOS", "SOSOS")) for p in printed)
    assert got == expected
    assert max(int(r["sosos"]) for r in rows) == 11212


@pytest.mark.parametrize("name", ["og-levallois-2018.h9", "og-veterans.h9"])
def test_wins_as_printed(name: str) -> None:
    printed = _printed(name)
    rows = _standings(name)
    assert Counter(r["wins"] for r in rows) == Counter(str(int(p["NBW"])) for p in printed)


def test_keys_written_under_a_turkish_locale_are_read() -> None:
    text = (CORPUS / "remote-2020metusummer.xml").read_text(encoding="utf-8")
    assert "İ" in "".join(re.findall(r'(?:white|black)Player="([^"]*)"', text))
    rows = _standings("remote-2020metusummer.xml")
    assert len(rows) == text.count("<Player ")


def test_an_end_date_before_the_start_is_warned_and_import_takes_the_start(
    engine: Engine,
) -> None:
    runner = CliRunner(env={"RATINGS_DATABASE_URL": str(engine.url)})
    result = runner.invoke(cli, ["import", "--dry-run", str(CORPUS / "remote-gp2020.xml")])
    assert result.exit_code == 0, result.output
    assert (
        "warning: remote-gp2020.xml, line 100, column 'endDate': value '2020-01-03': an end date "
        "before the start date, 2020-12-12: the start date is taken as the end date"
    ) in result.stderr
    standings = CliRunner().invoke(cli, ["standings", str(CORPUS / "remote-gp2020.xml")])
    assert "an end date before the start date" in standings.stderr


def test_a_blank_line_before_the_declaration_is_warned() -> None:
    result = CliRunner().invoke(cli, ["standings", str(CORPUS / "remote-essai15h01.xml")])
    assert result.exit_code == 0, result.output
    assert (
        "warning: remote-essai15h01.xml, line 1, column 'character 1': value '\\r\\n': blank "
        "space before the XML declaration; left out"
    ) in result.stderr


def test_an_archived_file_without_column_line_gives_the_values_and_places_printed() -> None:
    # The EGD's archive copy of the Ukrainian Championship 2019 quarterfinal: no '; Pl Name'
    # line; after the club MMS, wins, SOS and SODOS, the players in the order of their places.
    name = "ufgo-t190420d.h9"
    lines = (CORPUS / name).read_bytes().decode("iso8859_15").splitlines()
    players = [line.split("|")[0].split() for line in lines if line and not line.startswith(";")]
    printed = [tuple(p[6:10]) for p in players]
    rows = _standings(name)
    assert len(rows) == len(printed) == 48
    assert [r["name"] for r in rows] == [" ".join(p[1:3]) for p in players]
    # Players with a round without opponent ('0=') are left out of the comparison: this archive
    # copy writes a bye (a point, a win in NBW) and an absence (½ or nothing) the same way, so
    # their printed values follow a rule the file does not say. Every other player's are ours.
    computed = [(r["mms"], r["wins"], r["sos"], r["sodos"]) for r in rows]
    full = [i for i, p in enumerate(players) if "0=" not in p]
    assert len(full) == 39
    assert [computed[i] for i in full] == [printed[i] for i in full]


def test_the_egds_own_export_of_the_egc_2023_gives_the_mms_printed() -> None:
    # European Go Congress 2023 as the EGD exports it: ';pl' column line, a bare '-' for every
    # round a player was not in (players of one week only), no handicap digit. The MMS printed
    # is every player's; SOS is not compared: the EGD's copy does not say what its program gave
    # a round a player was not in.
    name = "egd-egc2023-t230723b.h9"
    lines = (CORPUS / name).read_bytes().decode("iso8859_15").splitlines()
    players = [line.split("|")[0].split() for line in lines if line and not line.startswith(";")]
    printed: Counter[str] = Counter()
    for p in players:
        rank = next(i for i, t in enumerate(p) if re.fullmatch(r"\d{1,2}[kdp]", t))
        printed[p[rank + 3]] += 1
    rows = _standings(name)
    assert len(rows) == len(players) == 670
    assert sum("-" in p for p in players) == 32
    assert Counter(r["mms"] for r in rows) == printed
