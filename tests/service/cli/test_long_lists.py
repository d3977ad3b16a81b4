"""Long lists on the command line: the first twenty items and a count, ``--all`` for every one,
for a file's problems, its warnings, the names to review, a dry run's new players and the
tournaments of a merge refused."""

from __future__ import annotations

from pathlib import Path

from ratings.errors import MAX_SHOWN
from tests.service.cli.conftest import Invoke

SURNAMES = (
    "Abelson", "Brandt", "Castellano", "Dimitrov", "Eriksen", "Fontaine", "Gallagher", "Horvath",
    "Ivanova", "Jansen", "Kowalski", "Lindqvist", "Moreau", "Novak", "Oliveira", "Petersen",
    "Quintana", "Rasmussen", "Schneider", "Tanaka", "Urban", "Villanueva", "Weber", "Xavier",
    "Yilmaz",
)  # fmt: skip
HEADER = "tournament,end_date,name,country,wins,draws,losses,buchholz"


def test_problems_of_many_files_are_paged_and_all_lists_them(run: Invoke, tmp_path: Path) -> None:
    files = []
    for n in range(25):
        path = tmp_path / f"event-{n:02}.csv"
        path.write_text(f"{HEADER}\nNight {n},2025-13-01,Ann Abelson,DE,0,0,0,0\n")
        files.append(str(path))
    code, out, err = run("import", *files)
    assert (code, out) == (1, "")
    lines = err.splitlines()
    assert lines[0] == "error: 25 problems found:"
    assert len(lines) == 1 + MAX_SHOWN + 2
    assert lines[-2:] == ["  ... and 5 more", "--all lists every one"]
    code, _, err = run("import", "--all", *files)
    assert code == 1
    lines = err.splitlines()
    assert len(lines) == 1 + 25
    assert lines[-1].startswith("  event-24.csv, line 2, column 'end_date'")


def _close_names(run: Invoke, tmp_path: Path) -> Path:
    """25 registered players and a file naming each with a close spelling."""
    registry = tmp_path / "players.csv"
    registry.write_text(
        "player_id,name,country\n"
        + "".join(f"P{n:07d},Anna {s},DEU\n" for n, s in enumerate(SURNAMES, 1))
    )
    assert run("players", "import", str(registry))[0] == 0
    club = tmp_path / "club.csv"
    rows = [f"Club Night,2025-03-20,Ann {s},DE,0,1,0,0.5" for s in SURNAMES]
    club.write_text("\n".join([HEADER, *rows, "Club Night,2025-03-20,Zed Zulu,DE,0,1,0,0.5"]))
    return club


def test_a_review_list_is_paged_and_all_lists_it(run: Invoke, tmp_path: Path) -> None:
    club = _close_names(run, tmp_path)
    code, _, err = run("import", str(club))
    assert code == 1
    assert err.startswith("error: 25 names need a review before import")
    assert err.count("known players have a close name") == MAX_SHOWN
    assert err.splitlines()[-2:] == ["  ... and 5 more names", "--all lists every one"]
    code, _, err = run("import", "--all", str(club))
    assert code == 1
    assert err.count("known players have a close name") == 25
    assert "more names" not in err
    # The dry run's list of names to review is paged the same way.
    code, out, _ = run("import", "--dry-run", str(club))
    assert code == 0
    assert out.count("needs review:") == MAX_SHOWN
    assert out.splitlines()[-1] == "... and 5 more names to review (--all lists every one)"
    code, out, _ = run("import", "--dry-run", "--all", str(club))
    assert out.count("needs review:") == 25


def test_warnings_and_new_players_are_paged(run: Invoke, tmp_path: Path) -> None:
    path = tmp_path / "warned.csv"
    rows = [f"Club Night,2025-03-21,Zora Player{n},Q{chr(65 + n)},0,1,0,0.5" for n in range(24)]
    path.write_text("\n".join([HEADER, *rows]) + "\n")
    code, out, err = run("import", "--dry-run", str(path))
    assert code == 0, err
    warnings = err.splitlines()
    assert len(warnings) == MAX_SHOWN + 1
    assert warnings[-1] == "... and 3 more warnings (--all lists every one)"
    assert out.count("\nnew player ") == MAX_SHOWN
    assert "... and 4 more new players (--all lists every one)" in out
    code, out, err = run("import", "--dry-run", "--all", str(path))
    assert err.count("not a country code") == 23
    assert out.count("\nnew player ") == 24


def test_a_merge_refused_for_many_shared_tournaments_names_twenty(
    run: Invoke, tmp_path: Path
) -> None:
    path = tmp_path / "met.csv"
    ids = [f"T{n:03}" for n in range(1, 26)]
    path.write_text(
        "tournament,tournament_id,end_date,player_id,name,country,wins,draws,losses,buchholz\n"
        + "".join(
            f"Match {t},{t},2025-01-{n:02},1,Anna One,DEU,1,0,0,0\n"
            f"Match {t},{t},2025-01-{n:02},2,Bert Two,DEU,0,0,1,1\n"
            for n, t in enumerate(ids, 1)
        )
    )
    assert run("import", str(path))[0] == 0
    code, _, err = run("players", "merge", "1", "2", "--yes")
    assert code == 1
    more = len(ids) - MAX_SHOWN
    assert err.splitlines() == [
        f"error: players 1 and 2 both played in {len(ids)} tournaments, "
        f"{', '.join(ids[:MAX_SHOWN])} and {more} more: they cannot be one person",
        "--all lists every one",
    ]
    code, _, err = run("players", "merge", "1", "2", "--yes", "--all")
    assert (
        err
        == f"error: players 1 and 2 both played in {', '.join(ids)}: they cannot be one person\n"
    )
