"""Real TRF files (``tests/data/corpus/trf/``, see ``tests/data/SOURCES.md``) through the commands a
new user runs: ``ratings standings`` and ``ratings import --dry-run``.

Every file is read, except one whose own records disagree (a hand-made TRF-2026 fixture that prints
0.5 points for two draws) and those saved before round 1 was paired (an empty event); a file
saved after a round was paired and before its results were entered gives the standings of the
rounds before it, and is imported only with ``--rounds``. Files without any date are refused by
``import`` with the one message asking for ``--end-date``, and accepted with it. Where a file
prints its players' points, the standings must give the same points.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest
from click.testing import CliRunner

from importers.trf_dates import read_date
from service.cli import cli
from tests.support.data import DATA
from tests.support.db import created
from tests.support.settings import empty_settings_file

CORPUS = DATA / "corpus" / "trf"
FILES = sorted(p.name for p in CORPUS.glob("*.trf"))
REFUSED = {
    "chesspairing-trf2026-team.trf": (
        "line 37, column 'points (columns 81-84)': value '0.5': the sum of the round results, 1.0"
    ),
    "sharly-team-bye.trf": (
        "sharly-team-bye.trf, column 'rounds': games or byes: an empty event (players registered, "
        "no game played)"
    ),
    "sharly-team-informative-score.trf": (
        "sharly-team-informative-score.trf, column 'rounds': games or byes: an empty event "
        "(players registered, no game played)"
    ),
}
"""The files refused, each with its one problem: records that disagree, an empty event."""
UNFINISHED = {"sharlychess-trf26-team-import-test.trf": 1}
"""Files saved after a round was paired and before its results were entered (the games are
written with a blank result): the standings after the last complete round; ``import`` only with
``--rounds``."""
NOT_COMPARED = {
    "sharlychess-trf26-team-import-test.trf": (
        "record 162 scores a pairing-allocated bye 5 (for the team); the 001 records print 0 "
        "points for the players of a team that had it"
    ),
}
"""Files whose printed points follow a scoring of their own: not compared with the rounds."""
WITHOUT_DATES = {
    "bbp-dutch-2025-c5.trf",
    "dechamps-kd-4-javafo-half-point-byes.trf",
    "bbp-issue-15.trf",
    "bbp-issue-7.trf",
    "dechamps-half-point-bye-in-round-2.trf",
    "sharly-dutch-2025-c9.trf",
    "sharly-indiv-299-bonus.trf",
    "sharly-indiv-299-penalty.trf",
    "sharly-team-299-forfeit.trf",
    "sharly-team-330-forfeit.trf",
}
ABNORMAL = {
    "sharly-indiv-299-bonus.trf": {("P4", Fraction(2)): ("P4", Fraction(0))},
    "sharly-indiv-299-penalty.trf": {("P2", Fraction(0)): ("P2", Fraction(1, 2))},
}
"""Printed points that include abnormal points (record 299): the standings count the rounds only."""
_LINES = re.compile(r"\r\n|\r|\n")


@pytest.fixture
def runner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.setenv("RATINGS_DATABASE_URL", created(f"sqlite:///{tmp_path / 'ratings.db'}"))
    monkeypatch.setenv("RATINGS_CONFIG", empty_settings_file(tmp_path))
    return CliRunner()


def printed_points(path: Path) -> Counter[tuple[str, Fraction]]:
    """(name, points) of every 001 record that prints points."""
    data = path.read_bytes().removeprefix(b"\xef\xbb\xbf")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("cp1252")
    found: Counter[tuple[str, Fraction]] = Counter()
    for line in _LINES.split(text):
        if line.startswith("001 ") and line[80:84].strip():
            found[(line[14:47].strip(), Fraction(line[80:84].strip()))] += 1
    return found


def test_the_corpus_is_there() -> None:
    assert len(FILES) == 38
    assert all(b"001 " in CORPUS.joinpath(name).read_bytes() for name in FILES)


@pytest.mark.parametrize("name", FILES)
def test_standings(runner: CliRunner, name: str) -> None:
    path = CORPUS / name
    result = runner.invoke(cli, ["standings", "--format", "json", "--all", str(path)])
    if name in REFUSED:
        assert result.exit_code != 0
        assert "error: 1 problem found" in result.stderr
        assert REFUSED[name] in result.stderr
        return
    assert result.exit_code == 0, result.stderr
    # Warnings go to stderr only, each in the one form every problem has.
    for line in result.stderr.splitlines():
        assert line.startswith(f"warning: {name}, line ")
    if name in UNFINISHED:
        after = UNFINISHED[name]
        assert "an unfinished event: " in result.stderr
        assert f"read as it stood after round {after}" in result.stderr
    rows = json.loads(result.stdout)
    computed = Counter((row["name"], Fraction(row["points"])) for row in rows)
    printed = printed_points(path)
    for before, after in ABNORMAL.get(name, {}).items():
        printed[after] += printed.pop(before)
    if printed and name not in NOT_COMPARED:
        assert computed == printed


@pytest.mark.parametrize("name", FILES)
def test_import_dry_run(runner: CliRunner, name: str) -> None:
    path = CORPUS / name
    result = runner.invoke(cli, ["import", "--dry-run", str(path)])
    if name in REFUSED:
        assert result.exit_code != 0
        assert REFUSED[name] in result.stderr
        return
    if name in UNFINISHED:
        rounds = UNFINISHED[name]
        assert result.exit_code != 0
        assert "1 problem found" in result.stderr
        assert f"an unfinished event cannot be rated (give --rounds {rounds} or fewer" in (
            result.stderr
        )
        result = runner.invoke(cli, ["import", "--dry-run", "--rounds", str(rounds), str(path)])
    if name in WITHOUT_DATES:
        assert result.exit_code != 0
        assert "1 problem found" in result.stderr
        assert "the file gives no end date: give --end-date" in result.stderr
        result = runner.invoke(cli, ["import", "--dry-run", "--end-date", "2025-06-01", str(path)])
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("would import 1 new and 0 corrected tournaments")


def test_warnings_leave_standard_output_alone(runner: CliRunner) -> None:
    """The ICU's bunratty file: the guessed byes are warned on stderr, the standings unchanged."""
    path = CORPUS / "icu-bunratty-masters-2011.trf"
    # Without --all the first twenty warnings and a count, as for every long list.
    paged = runner.invoke(cli, ["standings", str(path)]).stderr.splitlines()
    assert len(paged) == 21
    assert paged[-1] == "... and 8 more warnings (--all lists every one)"
    result = runner.invoke(cli, ["standings", "--all", str(path)])
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning: ")]
    # The federation columns hold the players' Irish clubs (KIL, COR, ...), which name no
    # country: each is stored as unknown, with a warning of its own.
    clubs = [line for line in warnings if "not a country code" in line]
    assert len(clubs) == 22
    assert (
        "warning: icu-bunratty-masters-2011.trf, line 17, column '54-56': value 'ENN': not a "
        "country code (ISO 3166, FIDE/IOC or a historic one): stored as unknown" in clubs
    )
    assert len(warnings) - len(clubs) == 6
    assert (
        "warning: icu-bunratty-masters-2011.trf, line 29, column 'round 4 (columns 122-129)': "
        "value '       -  ': a half-point bye" in result.stderr
    )
    assert "warning" not in result.stdout


def test_import_lists_the_warnings(runner: CliRunner) -> None:
    path = CORPUS / "icu-armstrong-2011.trf"
    result = runner.invoke(cli, ["import", "--dry-run", str(path)])
    assert result.exit_code == 0
    assert result.stderr.splitlines() == [
        "warning: icu-armstrong-2011.trf, line 4, column '5-14': value '10.09.13': 2010-09-13 "
        "(two-digit date read year first, YY.MM.DD)",
        "warning: icu-armstrong-2011.trf, line 5, column '5-14': value '11.03.13': 2011-03-13 "
        "(two-digit date read year first, YY.MM.DD)",
        "warning: icu-armstrong-2011.trf, line 15, column '1-3': value '013': a team event (team "
        "composition, record 013): the team records are not read; each player's results are "
        "read from his own record (001)",
    ]


def test_end_date_overrides_an_unreadable_date(runner: CliRunner, tmp_path: Path) -> None:
    data = (CORPUS / "icu-utf-8.trf").read_bytes()
    bad = tmp_path / "bad-date.trf"
    bad.write_bytes(re.sub(rb"042 [^\r\n]*", b"042 the spring", data))
    assert read_date("the spring") == (None, None)
    refused = runner.invoke(cli, ["import", "--dry-run", str(bad)])
    assert "the file gives no end date: give --end-date" in refused.stderr
    result = runner.invoke(cli, ["import", "--dry-run", "--end-date", "2008-06-07", str(bad)])
    assert result.exit_code == 0, result.stderr
    assert "not a date that can be read" in result.stderr


def _undated(tmp_path: Path, second: str) -> Path:
    """A two-player TRF without any date (no 042, 052 or 132), Beta's round as ``second``."""
    lines = [
        "012 Undated Open",
        f"001    1      {'Alpha, A':<33} 2000 {'':<3} {'':>11} {'':<10}  1.0          2 w 1",
        f"001    2      {'Beta, B':<33} 1900 {'':<3} {'':>11} {'':<10}  0.0     {second}",
    ]
    path = tmp_path / "undated.trf"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_an_undated_file_is_told_its_date_with_its_other_problems(
    runner: CliRunner, tmp_path: Path
) -> None:
    # The two sides of the game disagree, and the file gives no date: both at once.
    path = _undated(tmp_path, "     1 b 1")
    result = runner.invoke(cli, ["import", "--dry-run", str(path)])
    assert result.exit_code == 1
    assert "error: 3 problems found" in result.stderr
    assert "the two sides disagree on the result" in result.stderr
    assert "undated.trf, column 'end_date': the file gives no end date: give --end-date" in (
        result.stderr
    )
    # --end-date answers the date; the disagreement stays, alone with its points.
    result = runner.invoke(cli, ["import", "--dry-run", "--end-date", "2025-06-01", str(path)])
    assert "error: 2 problems found" in result.stderr
    assert "end_date" not in result.stderr


def test_an_undated_file_is_imported_with_an_end_date(runner: CliRunner, tmp_path: Path) -> None:
    path = _undated(tmp_path, "     1 b 0")
    refused = runner.invoke(cli, ["import", "--dry-run", str(path)])
    assert refused.exit_code == 1
    assert refused.stderr.splitlines() == [
        "error: 1 problem found:",
        "  undated.trf, column 'end_date': the file gives no end date: give --end-date",
    ]
    result = runner.invoke(cli, ["import", "--dry-run", "--end-date", "2025-06-01", str(path)])
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("would import 1 new and 0 corrected tournaments")
