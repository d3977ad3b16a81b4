"""The import's review on the command line: the dry run's list, the stop, and ``--map``."""

from __future__ import annotations

import types
from pathlib import Path

import pytest
from click.testing import CliRunner

from ratings.errors import Candidate, ReviewError, Uncertain
from service.cli.results import ask
from tests.jobs.test_identities import LONG, REGISTRY


def test_a_close_name_stops_the_import_until_mapped(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    registry = tmp_path / "players.csv"
    registry.write_text(REGISTRY, encoding="utf-8")
    assert run("players", "import", str(registry))[0] == 0
    club = tmp_path / "club.csv"
    club.write_text(LONG + "Club Night,2025-03-20,Zoltan Nagy,HU,1,0,1,1\n", encoding="utf-8")

    code, out, err = run("import", "--dry-run", str(club))
    assert code == 0, err
    assert out.splitlines() == [
        "would import 1 new and 0 corrected tournaments, 3 results, 1 new player from 1 file",
        "matched by name alone: club.csv, line 2: 'Dupont Jean Pierre' (FRA) is P0000005 "
        "Jean-Pierre Dupont (FRA)",
        "new player 1: Zoltan Nagy (HUN)",
        "needs review: club.csv, line 3: 'Ann Berg' (DEU): known players have a close name",
        "       94.1  P0000004  Anna Berg  DEU  no event yet",
    ]

    code, _, err = run("import", str(club))
    assert code == 1
    assert err.splitlines()[:3] == [
        "error: 1 name needs a review before import; answer with --map FILE (lines: "
        "name,player_id or name,new):",
        "  club.csv, line 3: 'Ann Berg' (DEU): known players have a close name",
        "       94.1  P0000004  Anna Berg  DEU  no event yet",
    ]

    answers = tmp_path / "answers.csv"
    answers.write_text("name,player_id\nAnn Berg,P0000004\n", encoding="utf-8")
    code, out, err = run("import", "--map", str(answers), str(club))
    assert code == 0, err
    assert out.splitlines()[0] == (
        "imported 1 new and 0 corrected tournaments, 3 results, 1 new player from 1 file"
    )


def test_a_review_answered_at_the_terminal_imports_the_file_read_once(
    run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    """On a terminal the import asks for the name it is not sure of and goes on with the answer,
    from the file as it was read the first time: it is not read again for each round."""
    from jobs import reading
    from service.cli import results

    registry = tmp_path / "players.csv"
    registry.write_text(REGISTRY, encoding="utf-8")
    assert run("players", "import", str(registry))[0] == 0
    club = tmp_path / "club.csv"
    club.write_text(LONG + "Club Night,2025-03-20,Zoltan Nagy,HU,1,0,1,1\n", encoding="utf-8")
    reads: list[Path] = []
    read_bytes = reading.read_file_bytes

    def counted(path: Path, *args: object) -> bytes:
        reads.append(path)
        return read_bytes(path, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(reading, "read_file_bytes", counted)
    terminal = types.SimpleNamespace(isatty=lambda: True)
    monkeypatch.setattr(results, "sys", types.SimpleNamespace(stdin=terminal, stdout=terminal))
    monkeypatch.setattr(results, "ask", lambda _review: {"Ann Berg": "P0000004"})
    code, out, err = run("import", str(club))
    assert code == 0, err
    assert out.splitlines()[0] == (
        "imported 1 new and 0 corrected tournaments, 3 results, 1 new player from 1 file"
    )
    assert reads == [club]


def test_the_prompt_takes_a_number_an_id_or_new_and_stop_keeps_the_error() -> None:
    review = ReviewError(
        [
            Uncertain(
                "club.csv", 3, "Ann Berg", "DEU", "known players have a close name",
                (Candidate(94.1, 4, "P0000004", "Anna Berg", "DEU"),),
            ),
            Uncertain("club.csv", 4, "Zed", None, "known players have a close name", ()),
            Uncertain("club.csv", 5, "Bo", None, "known players have a close name", ()),
        ]
    )  # fmt: skip
    with CliRunner().isolation(input="1\nnew\nP0000009\n"):
        assert ask(review) == {"Ann Berg": "P0000004", "Zed": "new", "Bo": "P0000009"}
    with CliRunner().isolation(input="stop\n"), pytest.raises(ReviewError):
        ask(review)


def test_players_search_and_show(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    registry = tmp_path / "players.csv"
    registry.write_text(REGISTRY, encoding="utf-8")
    assert run("players", "import", str(registry))[0] == 0
    code, out, _ = run("players", "search", "KLEIN, Klaus")
    assert code == 0
    assert out.splitlines()[0] == "100.0  P0000001  Klaus Klein  DEU  no event yet"
    code, out, _ = run("players", "search", "12345678")
    assert out.splitlines()[0] == "100.0  P0000002  Dirk de Vries  NLD  no event yet"
    code, out, _ = run("players", "search", "Luczak", "--country", "PL")
    assert [line.split()[1] for line in out.splitlines()] == ["P0000003"]
    code, out, _ = run("players", "show", "P0000003")
    assert code == 0
    assert out.splitlines() == [
        "P0000003  Paweł Łuczak",
        "country: POL  club: -",
        "title: -",
        "rating: unrated",
        "last event: -",
        "id: fide 1100001",
    ]
    code, _, err = run("players", "show", "P9")
    assert (code, err.strip()) == (1, "error: no player has the id P9")


def test_review_and_search_find_a_name_with_a_lost_first_letter_alike(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """'?uczak Jakub' is Jakub Łuczak to both, at one score, named with his last event."""
    registry = tmp_path / "players.csv"
    registry.write_text(REGISTRY + "P0000009,Jakub Łuczak,POL,,\n", encoding="utf-8")
    assert run("players", "import", str(registry))[0] == 0
    played = tmp_path / "played.csv"
    played.write_text(
        "tournament,end_date,player_id,wins,draws,losses,buchholz\n"
        "Warsaw Open,2025-02-09,P0000009,1,0,0,0\nWarsaw Open,2025-02-09,P0000001,0,0,1,1\n",
        encoding="utf-8",
    )
    assert run("import", str(played))[0] == 0
    garbled = tmp_path / "garbled.csv"
    garbled.write_text(
        "tournament,end_date,name,country,wins,draws,losses,buchholz\n"
        "Krakow Cup,2025-03-20,?uczak Jakub,POL,1,0,0,0\n"
        "Krakow Cup,2025-03-20,Paweł Łuczak,POL,0,0,1,1\n",
        encoding="utf-8",
    )
    candidate = "       91.7  P0000009  Jakub Łuczak  POL  last played Warsaw Open (2025-02-09)"
    code, out, err = run("import", "--dry-run", str(garbled))
    assert code == 0, err
    lines = out.splitlines()
    review = lines.index(
        "needs review: garbled.csv, line 2: '?uczak Jakub' (POL): the name has a letter lost to "
        "a wrong encoding"
    )
    assert lines[review + 1] == candidate

    code, out, _ = run("players", "search", "?uczak Jakub")
    assert code == 0
    assert out.splitlines()[0] == candidate[6:]
    code, out, _ = run("players", "show", "P0000009")
    assert "last event: Warsaw Open (2025-02-09)" in out.splitlines()
    # A surname alone, or its start, finds every player holding it, at the review's score.
    code, out, _ = run("players", "search", "Łucz")
    assert [line.split()[1] for line in out.splitlines()] == ["P0000003", "P0000009"]
    assert run("players", "search", "Klein")[1].splitlines() == [
        " 62.5  P0000001  Klaus Klein  DEU  last played Warsaw Open (2025-02-09)"
    ]


LICHESS = """\
tournament,end_date,name,wins,draws,losses,buchholz
Lichess Arena,2025-04-06,Klaus_Klein,1,0,0,0
Lichess Arena,2025-04-06,Zoltan Nagy,0,0,1,1
"""


def test_a_match_by_name_alone_is_listed_and_a_handle_without_country_asked(
    run, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    registry = tmp_path / "players.csv"
    registry.write_text(REGISTRY, encoding="utf-8")
    assert run("players", "import", str(registry))[0] == 0
    arena = tmp_path / "arena.csv"
    arena.write_text(LICHESS, encoding="utf-8")
    asked = [
        "arena.csv, line 2: 'Klaus_Klein' (no country): matched by the name alone, written as "
        "a handle",
        "      100.0  P0000001  Klaus Klein  DEU  no event yet",
    ]
    code, out, err = run("import", "--dry-run", str(arena))
    assert code == 0, err
    assert out.splitlines()[-2:] == [f"needs review: {asked[0]}", asked[1]]
    code, _, err = run("import", str(arena))
    assert code == 1
    assert err.splitlines()[1:3] == [f"  {asked[0]}", asked[1]]

    answers = tmp_path / "answers.csv"
    answers.write_text("name,player_id\nKlaus_Klein,P0000001\n", encoding="utf-8")
    assert run("import", "--map", str(answers), str(arena))[0] == 0
    # The answer is remembered: the next file written so matches without a question or a line.
    again = tmp_path / "again.csv"
    again.write_text(LICHESS.replace("Arena", "Blitz"), encoding="utf-8")
    code, out, err = run("import", str(again))
    assert code == 0, err
    assert "matched by name alone" not in out

    club = tmp_path / "club.csv"
    club.write_text(
        "tournament,end_date,name,country,wins,draws,losses,buchholz\n"
        'Club Night,2025-05-02,"BERG, Anna",DE,1,0,0,0\n'
        "Club Night,2025-05-02,Marco Rossi,IT,0,0,1,1\n",
        encoding="utf-8",
    )
    code, out, err = run("import", str(club))
    assert code == 0, err
    assert out.splitlines()[1:3] == [
        "matched by name alone: club.csv, line 2: 'BERG, Anna' (DEU) is P0000004 Anna Berg (DEU)",
        "matched by name alone: club.csv, line 3: 'Marco Rossi' (ITA) is P0000008 Marco Rossi "
        "(ITA)",
    ]


MIXED = """\
tournament,end_date,name,country,wins,draws,losses,buchholz
Open de Rennes,2025-06-01,"Whalley, Anthony",GB,1,0,0,0
Open de Rennes,2025-06-01,EVAIN Andéol,FR,1,0,0,1
Open de Rennes,2025-06-01,Le_Flochmoen Eric,FR,1,0,1,1
Open de Rennes,2025-06-01,Pham Minh_Quang,VN,0,0,1,1
Open de Rennes,2025-06-01,"KLEIN, Klaus",DE,0,0,1,0
"""


def test_new_players_get_one_display_form_and_the_next_file_still_matches(
    run, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    registry = tmp_path / "players.csv"
    registry.write_text(REGISTRY, encoding="utf-8")
    assert run("players", "import", str(registry))[0] == 0
    rennes = tmp_path / "rennes.csv"
    rennes.write_text(MIXED, encoding="utf-8")
    code, out, err = run("import", "--dry-run", str(rennes))
    assert code == 0, err
    assert [line for line in out.splitlines() if line.startswith("new player")] == [
        "new player 1: Andéol Evain (FRA)",
        "new player 2: Anthony Whalley (GBR)",
        "new player 3: Eric Le Flochmoen (FRA)",
        "new player 4: Minh Quang Pham (VNM)",
    ]
    code, out, err = run("import", str(rennes))
    assert code == 0, err
    code, out, _ = run("players", "show", "2")
    assert out.splitlines()[0] == "2  Anthony Whalley"
    assert "alias: 'Whalley, Anthony' in csv files" in out.splitlines()
    # A registered name is not changed by the file's spelling of it.
    assert run("players", "show", "P0000001")[1].splitlines()[0] == "P0000001  Klaus Klein"

    later = tmp_path / "later.csv"
    later.write_text(MIXED.replace("Open de Rennes", "Open de Brest"), encoding="utf-8")
    code, out, err = run("import", str(later))
    assert code == 0, err
    assert out.splitlines() == [
        "imported 1 new and 0 corrected tournaments, 5 results, 0 new players from 1 file",
        "matched by name alone: later.csv, line 6: 'KLEIN, Klaus' (DEU) is P0000001 Klaus Klein "
        "(DEU)",
        "run `ratings run` to rate them",
    ]


def test_the_officer_renames_a_player_and_the_old_name_still_matches(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    registry = tmp_path / "players.csv"
    registry.write_text(REGISTRY, encoding="utf-8")
    assert run("players", "import", str(registry))[0] == 0

    code, out, err = run("players", "rename", "P0000004", "Anna-Lena  Berg")
    assert (code, err) == (0, "")
    assert out == (
        "renamed P0000004: 'Anna Berg' -> 'Anna-Lena Berg'; the old name is kept as a spelling "
        "of the player\n"
    )
    code, out, _ = run("players", "show", "P0000004")
    assert out.splitlines()[0] == "P0000004  Anna-Lena Berg"
    assert "alias: 'Anna Berg' in all files" in out.splitlines()
    # Only the form changes: how the name compares does not, and nothing more is kept.
    assert run("players", "rename", "P0000001", "KLEIN, Klaus")[1] == (
        "renamed P0000001: 'Klaus Klein' -> 'KLEIN, Klaus'\n"
    )
    assert run("players", "rename", "P0000001", "KLEIN, Klaus")[1] == (
        "P0000001 is already named 'KLEIN, Klaus'\n"
    )

    club = tmp_path / "club.csv"
    club.write_text(
        "tournament,end_date,name,country,wins,draws,losses,buchholz\n"
        "Club Night,2025-05-02,Anna Berg,DE,1,0,0,0\nClub Night,2025-05-02,Marco Rossi,IT,0,0,1,1\n",
        encoding="utf-8",
    )
    code, out, err = run("import", str(club))
    assert code == 0, err
    assert "0 new players" in out.splitlines()[0]
    assert "'Anna Berg'" not in out

    assert run("players", "rename", "P9", "Anna Berg") == (
        1, "", "error: no player has the id P9\n"
    )  # fmt: skip
    assert run("players", "rename", "P0000004", " \t ") == (
        1, "", "error: cannot rename player P0000004 to ' \\t ': the name is empty\n"
    )  # fmt: skip
