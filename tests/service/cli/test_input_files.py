"""Input files as officers make them, and as nobody should: through the commands.

The hostile shapes of ``benchmarks/hostile.py`` at a few kilobytes, with the input limit lowered
where it scales what is allowed: each is refused with one short problem and exit 1, nothing
stored. Then what a spreadsheet gives: headings as people type them, and Windows-1252.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.service.cli.conftest import Invoke

SCREEN = 120 * 102
"""Most characters an error of these files may take: a hundred problems and a count, each on a
line of at most 120 characters when the values are cut."""
RESULTS_HEADER = b"tournament,end_date,name,wins,draws,losses,buchholz\n"


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def refused(run: Invoke, *arguments: str) -> str:
    code, out, err = run(*arguments)
    assert (code, out) == (1, "")
    assert len(err) < SCREEN
    assert max(len(line) for line in err.splitlines()) < 400
    return err


def test_a_table_of_separators_is_refused_by_its_cells(
    run: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RATINGS_INPUT_LIMIT_BYTES", str(64 * 1024))
    path = write(tmp_path, "empty.csv", RESULTS_HEADER + b",,,,,,\n" * 9000)
    assert refused(run, "import", str(path)) == (
        "error: 1 problem found:\n  empty.csv: has 9,001 lines of 7 columns: more than the limit "
        "of 4,096 cells, one for every 16 bytes of the limit of 64 KB (setting "
        "input_limit_bytes)\n"
    )
    assert run("tournaments", "list")[1] == "no tournament found\n"


def test_a_crosstable_of_newlines_is_refused_by_its_lines(run: Invoke, tmp_path: Path) -> None:
    path = write(tmp_path, "cross.csv", b"no,name,r1\n1,A,\n" + b"\n" * 100_000)
    assert refused(run, "import", str(path)) == (
        "error: 1 problem found:\n  cross.csv: has more than 100,000 rows, the limit for this "
        "kind of file\n"
    )


def test_a_sparse_json_table_is_refused_before_it_is_built(
    run: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RATINGS_INPUT_LIMIT_BYTES", str(64 * 1024))
    path = write(tmp_path, "sparse.json", b"[" + b"{}," * 1000 + b"{}]")
    assert refused(run, "import", str(path)) == (
        "error: 1 problem found:\n  sparse.json: has 1,001 rows: more than the limit of 128 of a "
        "JSON table, one for every 512 bytes of the limit of 64 KB (setting input_limit_bytes)\n"
    )
    blanks = write(tmp_path, "blank.json", b"[{" + b" " * 50_000 + b'"a":' + b"[" * 40 + b"]" * 40)
    assert "nested more than 32 levels deep" in refused(run, "import", str(blanks))


def test_a_csv_on_one_line_is_refused_by_its_header(run: Invoke, tmp_path: Path) -> None:
    path = write(tmp_path, "one-line.csv", b"no,name,r1," + b"x" * 200_000)
    assert refused(run, "import", str(path)) == (
        "error: 1 problem found:\n  one-line.csv: has a header line of 200,011 bytes, more than "
        "the 100,000 of 1,000 columns of 100 bytes (is each row on a line of its own?)\n"
    )


def test_a_long_cell_is_refused_and_shown_by_its_start(run: Invoke, tmp_path: Path) -> None:
    # Line ends of CR alone: the cell is the second line's.
    data = RESULTS_HEADER.replace(b"\n", b"\r") + b"x" * 5000 + b"\r"
    path = write(tmp_path, "long.csv", data)
    assert refused(run, "import", str(path)) == (
        "error: 1 problem found:\n  long.csv, line 2, column 'tournament': value "
        f"'{'x' * 60}… (5,000 characters)': at most 4,096 characters\n"
    )


def test_a_line_longer_than_its_cells_can_be_is_refused_before_it_is_read(
    run: Invoke, tmp_path: Path
) -> None:
    data = RESULTS_HEADER + b"Cup,2024-01-01,Ann,1,0,0,0\n" + b"x" * 100_000 + b"\n"
    path = write(tmp_path, "long.csv", data)
    assert refused(run, "import", str(path)) == (
        "error: 1 problem found:\n  long.csv, line 3: a line of 100,000 bytes, longer than 7 "
        "cells of at most 4,096 characters can be\n"
    )


def test_many_bad_rows_are_named_a_screen_at_most(run: Invoke, tmp_path: Path) -> None:
    rows = b"".join(b"Cup,,P%d,%d,0,%d,0\n" % (i, i % 2, 1 - i % 2) for i in range(300))
    path = write(tmp_path, "bad.csv", RESULTS_HEADER + rows)
    err = refused(run, "import", str(path))
    lines = err.splitlines()
    assert lines[0] == "error: 20 problems found:"
    assert lines[1:3] == [
        "  bad.csv, line 2, column 'end_date': a value is required",
        "  bad.csv, line 3, column 'end_date': a value is required",
    ]
    assert lines[-1] == (
        "  bad.csv, line 21, column 'end_date': a value is required (and 280 more rows like "
        "this after it)"
    )


def test_a_large_table_wrong_from_its_start_is_refused_unchecked_after_it(
    run: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("importers.results.SLICE_ROWS", 50)
    path = write(tmp_path, "bad.csv", RESULTS_HEADER + b"Cup,2024-13-01,Ann,w,0,0,0\n" * 200)
    lines = refused(run, "import", str(path)).splitlines()
    assert lines[:2] == [
        "error: 41 problems found:",
        "  bad.csv, line 52: the rows from here on are not checked: fix the problems of those "
        "before first",
    ]
    assert (
        lines[2]
        == "  bad.csv, line 2, column 'end_date': value '2024-13-01': not a real calendar date"
    )


HEADINGS = (
    "Event,Start Date,Date,Player ID,Name,Fed,W,D,L,BH,FIDE-ID\n"
    "Spring Open,2024-04-12,2024-04-14,A1,Anna Berg,SWE,2,0,0,1,4600001\n"
    "Spring Open,2024-04-12,2024-04-14,B2,Bo Lind,SWE,0,0,2,2,\n"
)


def test_headings_as_people_type_them(run: Invoke, tmp_path: Path) -> None:
    path = write(tmp_path, "spring.csv", HEADINGS.encode())
    code, out, err = run("import", str(path))
    assert (code, err) == (0, "")
    assert "imported 1 new" in out
    code, out, _ = run("tournaments", "list")
    assert "Spring Open" in out


def test_a_misspelt_heading_gets_a_did_you_mean(run: Invoke, tmp_path: Path) -> None:
    path = write(tmp_path, "spring.csv", HEADINGS.replace("Player ID", "Player IDD").encode())
    assert refused(run, "import", str(path)) == (
        "error: 1 problem found:\n  spring.csv, line 1, column 'player idd': unknown column "
        "(expected: tournament, end_date, wins, draws, losses, buchholz, tournament_id, "
        "start_date, tier, player_id, name, country, club, title, fide_id, egd_pin); did you "
        "mean 'player_id'?\n"
    )


def test_a_registry_in_swiss_manager_headings(run: Invoke, tmp_path: Path) -> None:
    data = "ID;Name;Fed;Club/City;FIDE-ID\r\n101;Jürgen Groß;GER;SK Bären;4600002\r\n"
    path = write(tmp_path, "Spieler.csv", data.encode())
    code, out, err = run("players", "import", str(path))
    assert (code, err) == (0, "")
    code, out, _ = run("players", "show", "101")
    assert "Jürgen Groß" in out
    assert "4600002" in out


WARNING = (
    "warning: {}: not UTF-8 text: read as Windows-1252, the encoding of a spreadsheet saved as "
    "CSV in Western Europe (save it as 'CSV UTF-8' to be sure of its letters)\n"
)


def test_a_windows_1252_results_table_is_read_with_a_warning(run: Invoke, tmp_path: Path) -> None:
    data = (
        "Turnier;Datum;Name;Land;Gewinne;Remis;Verluste;Buchholz\r\n"
        "Schnellschach Köln;2024-05-04;Jürgen Groß;GER;1;0;0;0\r\n"
        "Schnellschach Köln;2024-05-04;Hélène Dubois;FRA;0;0;1;1\r\n"
    )
    path = write(tmp_path, "Köln.csv", data.encode("cp1252"))
    code, out, err = run("import", str(path))
    assert "unknown column" in err
    aliased = data.replace("Turnier;Datum", "Event;Date").replace("Gewinne;Remis;Verluste", "W;D;L")
    path.write_bytes(aliased.encode("cp1252"))
    code, out, err = run("import", str(path))
    assert (code, err) == (0, WARNING.format("Köln.csv"))
    code, out, _ = run("players", "search", "Groß")
    assert "Jürgen Groß" in out
    code, out, _ = run("players", "search", "Dubois")
    assert "Hélène Dubois" in out


def test_a_windows_1252_registry_is_read_with_a_warning(run: Invoke, tmp_path: Path) -> None:
    data = "player_id;name;country;club\r\n7;Zoë Straße;AUT;Schachfreunde Ähnlich\r\n"
    path = write(tmp_path, "register.csv", data.encode("cp1252"))
    code, _, err = run("players", "import", str(path))
    assert code == 0
    assert WARNING.format("register.csv") in err
    assert "Zoë Straße" in run("players", "show", "7")[1]
