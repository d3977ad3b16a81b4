"""Small h9 files of ``tests/data/made/`` through ``ratings standings`` and ``ratings import``:
what a director's file shows that the golden files do not (see ``tests/data/SOURCES.md``)."""

from __future__ import annotations

from click.testing import CliRunner
from sqlalchemy.engine import Engine

from service.cli import cli
from tests.support.data import DATA

MADE = DATA / "made"
REVERSED = MADE / "h9-dates-reversed.h9"
JOINED = MADE / "opengotha-joined-names.h9"


def test_standings_of_an_event_whose_dates_are_reversed_warn_and_print() -> None:
    result = CliRunner().invoke(cli, ["standings", str(REVERSED), "--format", "csv"])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[1].startswith("1,Ardent Alice,1")
    assert (
        "warning: h9-dates-reversed.h9, line 3, column 'DT': value '2025-07-19,2025-06-20': an end date "
        "before the start date: no date is used for standings; an import needs --end-date"
    ) in result.stderr


def test_the_import_refuses_reversed_dates_and_asks_for_an_end_date(engine: Engine) -> None:
    runner = CliRunner(env={"RATINGS_DATABASE_URL": str(engine.url)})
    refused = runner.invoke(cli, ["import", "--dry-run", str(REVERSED)])
    assert refused.exit_code == 1
    assert (
        "h9-dates-reversed.h9, column 'end_date': value '2025-06-20': an end date on or after "
        "the start date (2025-07-19): the file's dates are the wrong way round; give --end-date"
    ) in refused.stderr
    dated = runner.invoke(cli, ["import", "--dry-run", "--end-date", "2025-07-19", str(REVERSED)])
    assert dated.exit_code == 0, dated.output
    assert "would import 1 new and 0 corrected tournaments, 2 results" in dated.stdout


def test_a_header_with_names_run_together_is_read_with_a_warning(engine: Engine) -> None:
    standings = CliRunner().invoke(cli, ["standings", str(JOINED), "--format", "csv"])
    assert standings.exit_code == 0, standings.output
    assert [line.split(",")[1] for line in standings.stdout.splitlines()[1:]] == [
        "Ardent Alice",
        "Brun Bastien",
        "Coste Chloe",
    ]
    assert (
        "line 10, column 'criteria': value 'SOSSOSOS': names run together in the column line"
    ) in standings.stderr
    runner = CliRunner(env={"RATINGS_DATABASE_URL": str(engine.url)})
    imported = runner.invoke(cli, ["import", "--dry-run", str(JOINED)])
    assert imported.exit_code == 0, imported.output
    assert "3 results, 3 new players" in imported.stdout
