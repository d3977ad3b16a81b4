"""The long-format results reader (SPEC 4.1) and every kind of bad input it rejects (SPEC 4.4)."""

from __future__ import annotations

import io
import json

import polars as pl
import pytest

from importers.results import read_results
from ratings.errors import InputError

HEADER = (
    "tournament,start_date,end_date,tier,player_id,name,country,title,wins,draws,losses,buchholz"
)
GOOD = [
    "Spring Open,2024-04-13,2024-04-14,regular,,Anna Müller,GER,GM,2,1,0,3.5",
    "Spring Open,2024-04-13,2024-04-14,regular,,Ben Okafor,NGA,,1,1,1,4",
    "Spring Open,2024-04-13,2024-04-14,regular,,Chloé Martin,FRA,,0,0,2,5",
    "Cup,2024-05-01,2024-05-01,national,77,Dario Rossi,ITA,,1,0,0,0",
    "Cup,2024-05-01,2024-05-01,national,78,Eva Nowak,POL,,0,0,1,1",
]


def csv(*rows: str, header: str = HEADER) -> bytes:
    return ("\n".join([header, *rows]) + "\n").encode()


def problems(data: bytes, fmt: str = "csv") -> list[str]:
    with pytest.raises(InputError) as caught:
        read_results(data, "results.csv", fmt)
    return [str(p) for p in caught.value.problems]


def test_a_good_file_gives_tournaments_and_results() -> None:
    checked = read_results(csv(*GOOD), "results.csv", "csv")
    assert checked.tournaments["key"].to_list() == ["Spring Open 2024-04-14", "Cup 2024-05-01"]
    assert checked.tournaments["tier"].to_list() == ["regular", "national"]
    assert checked.results["buchholz"].to_list() == [35_000, 40_000, 50_000, 0, 10_000]
    assert checked.results["line"].to_list() == [2, 3, 4, 5, 6]
    assert checked.results["name_key"][0] == "anna muller"
    assert checked.results["title"].to_list() == ["GM", None, None, None, None]


def test_tournament_id_is_the_key_and_start_date_defaults_to_end_date() -> None:
    header = "tournament,tournament_id,end_date,name,wins,draws,losses,buchholz"
    data = csv(
        "Club night,CN-17,2024-01-09,Ann,1,0,0,0",
        "Club night,CN-17,2024-01-09,Bob,0,0,1,1",
        header=header,
    )
    checked = read_results(data, "r.csv", "csv")
    row = checked.tournaments.row(0, named=True)
    assert (row["key"], str(row["start_date"]), row["tier"]) == ("CN-17", "2024-01-09", "regular")


def frame_of(data: bytes) -> pl.DataFrame:
    return pl.read_csv(io.BytesIO(data), infer_schema=False)


def test_every_format_reads_the_same() -> None:
    reference = read_results(csv(*GOOD), "r.csv", "csv").results
    semicolon = ("\ufeff" + csv(*GOOD).decode().replace(",", ";")).encode()
    frame = frame_of(csv(*GOOD))
    xlsx = io.BytesIO()
    frame.write_excel(xlsx)
    parquet = io.BytesIO()
    frame.write_parquet(parquet)
    records = json.dumps(frame.to_dicts()).encode()
    for data, fmt in [
        (semicolon, "csv"),
        (xlsx.getvalue(), "xlsx"),
        (parquet.getvalue(), "parquet"),
        (records, "json"),
    ]:
        got = read_results(data, f"r.{fmt}", fmt).results
        assert got.drop("line").equals(reference.drop("line")), fmt


def test_semicolon_files_may_use_a_decimal_comma() -> None:
    data = csv(*GOOD).decode().replace(",", ";").replace(";3.5", ";3,5").encode()
    assert read_results(data, "r.csv", "csv").results["buchholz"][0] == 35_000


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (
            HEADER.replace("wins,", ""),
            "results.csv, line 1, column 'wins': this column is required",
        ),
        (
            HEADER + ",rating",
            "results.csv, line 1, column 'rating': unknown column (expected: tournament,",
        ),
        (
            HEADER.replace("player_id,name,", ""),
            "results.csv, line 1, column 'player_id': a player_id or a name column is required",
        ),
    ],
)
def test_columns(header: str, expected: str) -> None:
    rows = [",".join(r.split(",")[: header.count(",") + 1]) for r in GOOD]
    assert any(p.startswith(expected) for p in problems(csv(*rows, header=header)))


def replace_cell(row: int, column: str, value: str) -> bytes:
    rows = [r.split(",") for r in GOOD]
    rows[row][HEADER.split(",").index(column)] = value
    return csv(*(",".join(r) for r in rows))


@pytest.mark.parametrize(
    ("row", "column", "value", "expected"),
    [
        (0, "wins", "two", "line 2, column 'wins': value 'two': expected a whole number"),
        (0, "wins", "-1", "line 2, column 'wins': value '-1': must not be negative"),
        (
            0,
            "draws",
            "1.5",
            "line 2, column 'draws': value '1.5': expected a whole number of games",
        ),
        (0, "buchholz", "3.5x", "line 2, column 'buchholz': value '3.5x': expected a number"),
        (0, "buchholz", "-3", "line 2, column 'buchholz': value '-3': must not be negative"),
        (
            0,
            "buchholz",
            "3.12345",
            "line 2, column 'buchholz': value '3.12345': at most 4 decimal places",
        ),
        (
            0,
            "end_date",
            "14.04.2024",
            "line 2, column 'end_date': value '14.04.2024': expected a date as YYYY-MM-DD",
        ),
        (
            0,
            "start_date",
            "2024-02-30",
            "line 2, column 'start_date': value '2024-02-30': not a real calendar date",
        ),
        (
            3,
            "tier",
            "club",
            "line 5, column 'tier': value 'club': expected one of regular, national, international",
        ),
        (3, "tournament", "", "line 5, column 'tournament': a value is required"),
        (3, "wins", "", "line 5, column 'wins': a value is required"),
    ],
)
def test_bad_cells(row: int, column: str, value: str, expected: str) -> None:
    found = problems(replace_cell(row, column, value))
    assert any(expected in p for p in found), found


def test_end_before_start() -> None:
    found = problems(
        replace_cell(3, "start_date", "2024-05-02").replace(
            b"2024-05-01,2024-05-01,national,78", b"2024-05-02,2024-05-01,national,78"
        )
    )
    assert found == [
        "results.csv, line 5, column 'start_date': value '2024-05-02': the tournament cannot start after its end date"
    ]


def test_rows_of_one_tournament_must_agree() -> None:
    data = replace_cell(4, "tier", "international")
    assert problems(data) == [
        "results.csv, line 6, column 'tier': value 'international': differs from the first row "
        "of tournament 'Cup 2024-05-01' (national)"
    ]


def test_no_player_id_and_no_name() -> None:
    data = csv(*GOOD[:3], "Cup,2024-05-01,2024-05-01,national,,,ITA,,1,0,0,0", GOOD[4])
    assert any(
        "line 5, column 'name': a player_id or a name is required" in p for p in problems(data)
    )


def test_a_player_twice_in_one_tournament() -> None:
    twice = "Spring Open,2024-04-13,2024-04-14,regular,,anna MULLER,GER,,0,0,0,0"
    found = problems(csv(*GOOD, twice))
    assert found == [
        "results.csv, line 7, column 'name': value 'anna MULLER': the player appears twice in "
        "tournament 'Spring Open 2024-04-14'"
    ]


def test_totals_of_wins_losses_and_draws() -> None:
    found = problems(replace_cell(0, "wins", "3"))
    assert "total wins (4) must equal total losses (3)" in found[0]
    found = problems(replace_cell(1, "draws", "2"))
    assert any("the total of draws must be even" in p for p in found)


def test_buchholz_larger_than_possible() -> None:
    # Ben: 3 games. Nobody played more than 3, so the event had at most 4 rounds counting a bye;
    # the best anyone could have is Anna's 2.5 plus a bye: 3.5, so at most 3 × 3.5 = 10.5.
    assert read_results(replace_cell(1, "buchholz", "10.5"), "results.csv", "csv")
    found = problems(replace_cell(1, "buchholz", "10.75"))
    assert found == [
        "results.csv, line 3, column 'buchholz': value '10.75': larger than possible: "
        "3 games × the best score anyone could have (3.5, byes included) = 10.5"
    ]


def test_every_problem_is_listed_not_just_the_first() -> None:
    rows = [r.split(",") for r in GOOD]
    rows[0][8] = "x"
    rows[2][11] = "-1"
    rows[3][3] = "open"
    data = csv(*(",".join(r) for r in rows))
    lines = [p.split(",")[1] for p in problems(data)]
    assert lines == [" line 2", " line 4", " line 5"], problems(data)


@pytest.mark.parametrize(
    ("data", "fmt", "expected"),
    [
        (b"", "csv", "results.csv: the file is empty"),
        (b"   \n\n", "csv", "results.csv: the file is empty"),
        (HEADER.encode() + b"\n", "csv", "results.csv: the file has a header but no rows"),
        (
            # 0x81 is neither UTF-8 nor a letter of Windows-1252.
            csv(GOOD[0]).replace("ü".encode(), b"\x81"),
            "csv",
            "results.csv, line 2, column 'name': value 'Anna M\\\\x81ller': the file is neither "
            "UTF-8 nor Windows-1252 text",
        ),
        (b"PK\x03\x04 not really a workbook", "xlsx", "results.csv: not a readable XLSX workbook"),
        (b"not parquet at all", "parquet", "results.csv: not a readable Parquet file"),
        (b'{"tournament": 1}', "json", "results.csv: expected a JSON array of objects"),
        (b"[1, 2", "json", "results.csv, line 1: not valid JSON"),
    ],
)
def test_unreadable_files(data: bytes, fmt: str, expected: str) -> None:
    found = problems(data, fmt)
    assert found[0].startswith(expected), found


def test_rows_without_a_tournament_key_are_reported_not_compared() -> None:
    # Two rows whose end date is missing have no key: they name different tournaments, which must
    # not be taken for one tournament whose name differs (that message has no key to print).
    found = problems(
        csv(
            "Cup,,2024-01-01,regular,,Ann,,,1,0,0,0",
            "Cup,,2024-01-01,regular,,Bob,,,0,0,1,0",
            "x,,,,,,,,,,,",
            "Cup,,,regular,,Cid,,,0,0,0,0",
            header="tournament,start_date,end_date,tier,player_id,name,country,title,wins,draws,losses,buchholz",
        )
    )
    assert "results.csv, line 5, column 'end_date': a value is required" in found
    assert "results.csv, line 4, column 'end_date': a value is required" in found
    assert not [p for p in found if "differs from the first row" in p]


@pytest.mark.parametrize(
    ("body", "line", "expected"),
    [
        ("Open,2024-01-05,Bob,GER,0,0,1,1,9\n", 3, "this line has 9 cells where the header has 8"),
        ('Open,2024-01-05,"Bob,GER,0,0,1,1\n', 3, "a quote is not closed"),
        ('Open,2024-01-05,"Bob"by,GER,0,0,1,1\n', 3, "a quote is not closed, or is followed by"),
    ],
)
def test_an_unreadable_row_is_named_by_its_line(body: str, line: int, expected: str) -> None:
    """The CSV reader refuses a row with more cells than the header, or a broken quote, without
    saying where: the problem names the line, in a Windows-1252 file too."""
    good = "Open,2024-01-05,Ann,GER,1,0,0,0\n"
    for encoding in ("utf-8", "cp1252"):
        header = "tournament,end_date,name,country,wins,draws,losses,buchholz\n"
        data = (header + good + body).replace("Ann", "Jürgen").encode(encoding)
        with pytest.raises(InputError) as refused:
            read_results(data, "results.csv", "csv")
        (problem,) = refused.value.problems
        assert problem.line == line, encoding
        assert expected in problem.expected, encoding
