"""The ``ratings`` command, driven through click's runner as a user would drive it."""

from __future__ import annotations

import csv
import io
import json
import logging
import os
import subprocess
import sys
import threading
from pathlib import Path

import click
import pytest

from ratings.storage.database import head
from service.cli import cli
from service.settings import Settings
from tests.support import histories
from tests.support.settings import empty_settings_file

SAMPLES = Path(__file__).resolve().parents[3] / "samples"
"""The bundled samples a new user tries first (``make demo``)."""


def all_commands(group: click.Group, prefix: str = "") -> list[tuple[str, click.Command]]:
    found = []
    for name, command in group.commands.items():
        found.append((f"{prefix}{name}", command))
        if isinstance(command, click.Group):
            found += all_commands(command, f"{prefix}{name} ")
    return found


@pytest.mark.parametrize(("name", "command"), all_commands(cli))
def test_every_command_has_help_text(name: str, command: click.Command) -> None:
    assert len((command.help or "").strip()) > 20, f"`ratings {name}` has no help text"


def test_import_run_ranking_and_history(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    events = histories.history(events=12)
    path = histories.write_csv(events, tmp_path / "results.csv")
    code, out, _ = run("import", str(path))
    assert code == 0
    assert "imported 12 new and 0 corrected tournaments" in out
    code, out, err = run("ranking", "--as-of", "2022-06-01")
    assert code == 0
    assert "note: 12 tournaments are imported but not rated yet" in err
    code, out, _ = run("run")
    results = sum(len(e) for e in events)
    players = len({r.player_id for e in events for r in e})
    assert (code, out.strip()) == (0, f"rated 12 tournaments, {results} results, {players} players")
    code, out, _ = run("ranking", "--as-of", "2022-06-01", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert list(rows[0]) == [
        "rank", "player_id", "name", "country", "rating", "rating_exact", "games",
        "tournaments", "last_played",
    ]  # fmt: skip
    exact = [float(r["rating_exact"]) for r in rows]
    assert exact == sorted(exact, reverse=True)
    assert all(len(r["rating_exact"].split(".")[1]) == 10 for r in rows)
    assert all(int(r["rating"]) == int(float(r["rating_exact"]) + 0.5) for r in rows)
    assert [int(r["rank"]) for r in rows] == list(range(1, len(rows) + 1))
    output = tmp_path / "out" / "ranking.json"
    code, _, err = run("ranking", "--as-of", "2022-06-01", "--all", "-o", str(output))
    assert code == 0
    assert f"wrote {len(rows)} players to {output}" in err
    assert json.loads(output.read_text())[0]["active"] is True
    top = rows[0]["player_id"]
    code, out, _ = run("player", top)
    assert code == 0
    assert out.splitlines()[0].startswith(f"{top} Player {top}")
    top_exact = rows[0]["rating_exact"]
    two = f"{float(top_exact):.2f}"
    assert out.splitlines()[1].endswith(f"; rating {rows[0]['rating']} (exact {two})")
    code, out, _ = run("player", top, "--format", "json")
    history = json.loads(out)
    assert history[-1]["rating_after"] == rows[0]["rating_exact"]
    assert {"expected", "points", "k", "rating_before"} <= set(history[0])


def test_inactive_players_leave_the_default_list(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = histories.write_csv(histories.history(events=6), tmp_path / "r.csv")
    run("import", str(path))
    run("run")
    _, out, _ = run("ranking", "--format", "csv", "--as-of", "2030-01-01")
    assert (
        out.strip()
        == "rank,player_id,name,country,rating,rating_exact,games,tournaments,last_played"
    )
    _, out, _ = run("ranking", "--format", "csv", "--as-of", "2030-01-01", "--all")
    assert len(out.strip().splitlines()) > 1
    assert out.splitlines()[1].endswith(",false")


def test_errors_are_one_message_and_exit_code_one(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "bad.csv"
    bad.write_text(
        "tournament,end_date,name,wins,draws,losses,buchholz\nCup,2024-01-01,Ann,x,0,0,0\n"
    )
    code, _out, err = run("import", str(bad))
    assert code == 1
    assert err.startswith(
        "error: 1 problem found:\n  bad.csv, line 2, column 'wins': value 'x': expected a whole number"
    )
    code, _, err = run("player", "nobody")
    assert (code, err.strip()) == (1, "error: no player has the id nobody")
    code, _, err = run("players", "merge", "7", "7")
    assert (code, err.strip()) == (1, "error: cannot merge player 7 into itself")


def test_dry_run_and_replace(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    events = histories.history(events=3)
    path = histories.write_csv(events, tmp_path / "r.csv")
    code, out, _ = run("import", "--dry-run", str(path))
    results = sum(len(e) for e in events)
    players = len({r.player_id for e in events for r in e})
    assert (code, out.splitlines()[0]) == (
        0,
        f"would import 3 new and 0 corrected tournaments, {results} results, "
        f"{players} new players from 1 file",
    )
    code, _, _ = run("import", str(path))
    assert code == 0
    code, _, err = run("import", str(path))
    assert code == 1
    assert "use --replace if this file corrects it" in err
    code, out, _ = run("import", "--replace", str(path))
    assert code == 0
    assert "0 new and 3 corrected" in out


def test_db_upgrade(run) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run("db", "upgrade")
    assert code == 0
    assert out.strip() == f"schema at revision {head()} (newest {head()})"


def test_nothing_to_rate(run) -> None:  # type: ignore[no-untyped-def]
    assert run("run")[1].strip() == "nothing to rate"


def test_monthly_and_jobs_commands(run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    histories.write_csv(histories.history(events=6), inbox / "october.csv")
    (inbox / "broken.csv").write_text("nonsense\n")
    monkeypatch.setenv("RATINGS_INBOX_DIR", str(inbox))
    monkeypatch.setenv("RATINGS_PUBLISH_DIR", str(tmp_path / "publish"))
    code, out, err = run("monthly", "--period", "2022-04")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "1 file imported, 1 rejected"
    assert lines[1].startswith("  rejected: broken.csv (see ")
    assert "published 2022-04 version 1" in out
    code, out, _ = run("jobs")
    assert code == 0
    assert out.splitlines()[2].split()[1:2] == ["monthly"]
    assert " succeeded " in out.splitlines()[2]


def test_a_progress_bar_only_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    from service.cli import base as module

    written = io.StringIO()
    monkeypatch.setattr(module.sys, "stderr", written)
    with module.ProgressBar("rating") as progress:
        progress(10, module.ProgressBar.MIN_TOURNAMENTS * 2)
    assert written.getvalue() == ""

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    terminal = Terminal()
    monkeypatch.setattr(module.sys, "stderr", terminal)
    total = module.ProgressBar.MIN_TOURNAMENTS * 2
    with module.ProgressBar("rating") as progress:
        progress(total // 2, total)
        progress(total, total)
    assert "rating" in terminal.getvalue()
    assert "100%" in terminal.getvalue()


def test_a_bug_is_logged_with_its_traceback_and_exits_with_two(
    run, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:  # type: ignore[no-untyped-def]
    import jobs.queries

    def bug(*_args: object) -> None:
        raise ValueError("a bug\nwith a second line")

    monkeypatch.setattr(jobs.queries, "published_lists", bug)
    with caplog.at_level(logging.ERROR, logger="ratings.cli"):
        code, out, err = run("lists")
    assert (code, out, err) == (2, "", "internal error: ValueError: a bug\n")
    (record,) = [r for r in caplog.records if r.name == "ratings.cli"]
    assert record.getMessage() == "internal error in `ratings lists`"
    assert record.exc_info is not None
    assert record.exc_info[0] is ValueError


def test_usage_errors_are_reported_as_click_does(run) -> None:  # type: ignore[no-untyped-def]
    code, _, err = run("ranking", "--top", "0")
    assert code == 2
    assert "Error: Invalid value for '--top'" in err
    assert "internal error" not in err


def test_a_bad_setting_is_a_users_error(run, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("RATINGS_ACTIVE_MONTHS", "0")
    code, _, err = run("lists")
    assert (code, err) == (
        1,
        "error: bad settings: active_months = '0' (from environment RATINGS_ACTIVE_MONTHS): "
        "Input should be greater than or equal to 1\n",
    )


def test_the_command_line_logs_errors_as_text_on_standard_error(tmp_path: Path) -> None:
    # A real process: the handler main() sets up, not pytest's.
    environment = {
        **os.environ,
        "RATINGS_DATABASE_URL": "sqlite:///:memory:",
        "RATINGS_CONFIG": empty_settings_file(tmp_path),
    }
    script = (
        "import sys, jobs.queries\n"
        "def bug(*args): raise KeyError('boom')\n"
        "jobs.queries.published_lists = bug\n"
        "sys.argv = ['ratings', 'lists']\n"
        "from service.cli import main\n"
        "main()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], env=environment, capture_output=True, text=True,
        timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    lines = done.stderr.splitlines()
    assert lines[0] == "ERROR ratings.cli: internal error in `ratings lists`"
    assert lines[1] == "Traceback (most recent call last):"
    assert "KeyError: 'boom'" in lines
    assert lines[-1] == "internal error: KeyError: 'boom'"


@pytest.mark.parametrize(
    ("url", "message"),
    [
        (
            "postgres://postgres@127.0.0.1/ratings",
            "error: database_url postgres://postgres@127.0.0.1/ratings: use a "
            "postgresql+psycopg:// URL, postgresql+psycopg://postgres@127.0.0.1/ratings",
        ),
        (
            "postgresql+psycopg://postgres@127.0.0.1:5433/ratings",
            "error: cannot connect to the database server at 127.0.0.1:5433: connection refused "
            "(is the server running, and is this its port?)",
        ),
    ],
)
def test_a_database_that_cannot_be_opened_is_one_line(
    run, monkeypatch: pytest.MonkeyPatch, url: str, message: str
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("RATINGS_DATABASE_URL", url)
    for command in (["lists"], ["run"]):
        assert run(*command) == (1, "", message + "\n")


def test_only_db_upgrade_creates_a_database(
    run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "elsewhere" / "ratings.sqlite"
    monkeypatch.setenv("RATINGS_DATABASE_URL", f"sqlite:///{path}")
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    results = histories.write_csv(histories.history(events=3), inbox / "results.csv")
    message = (
        f"error: the database {path} does not exist: create it with `ratings db upgrade` "
        "(or set database_url to the right file)\n"
    )
    for command in (
        ["import", str(results)],
        ["import", "--replace", str(results)],
        ["import", "--dry-run", str(results)],
        ["players", "import", str(SAMPLES / "players.csv")],
        ["players", "merge", "P0000001", "P0000002", "--yes"],
        ["players", "unmerge", "P0000002", "--yes"],
        ["tournaments", "delete", "E1", "--yes"],
        ["run"],
        ["run", "--full"],
        ["publish", "2026-07"],
        ["monthly", "--period", "2026-07"],
        ["ranking"],
        ["lists"],
        ["player", "7"],
        ["jobs"],
        ["diff", "2026-01", "2026-02"],
        ["players", "search", "Klein"],
        ["players", "show", "P0000001"],
        ["tournaments", "list"],
        ["tournaments", "show", "E1"],
        ["tournaments", "deleted"],
    ):
        assert run(*command) == (1, "", message), command
    assert not path.parent.exists()
    assert results.is_file()
    assert run("db", "upgrade")[0] == 0
    assert run("lists")[0] == 0


def test_an_import_reports_its_file_before_a_database_that_does_not_exist(
    run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    """The database is opened while the file is read: a file with a problem is still what the
    officer hears of first, and no database is made."""
    path = tmp_path / "elsewhere" / "ratings.sqlite"
    monkeypatch.setenv("RATINGS_DATABASE_URL", f"sqlite:///{path}")
    bad = histories.write_csv(histories.history(events=2), tmp_path / "results.csv")
    header, first, *rest = list(csv.reader(io.StringIO(bad.read_text(encoding="utf-8"))))
    first[header.index("wins")] = "many"
    with bad.open("w", newline="", encoding="utf-8") as stream:
        csv.writer(stream).writerows([header, first, *rest])
    code, out, err = run("import", str(bad))
    assert (code, out) == (1, "")
    assert "results.csv" in err
    assert "'many'" in err
    assert "does not exist" not in err
    assert not path.parent.exists()


def test_the_database_an_import_opens_while_reading_is_closed_after_it(
    run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    """Opened in a thread of its own while the file is read, and closed when the command ends,
    whether it imported or refused the file."""
    from service.cli import base

    opened: list[tuple[str, list[int]]] = []
    real = base._opened

    def spied(url: str):  # type: ignore[no-untyped-def]
        engine = real(url)
        disposed: list[int] = []
        dispose = engine.dispose
        engine.dispose = lambda *a, **k: (disposed.append(1), dispose(*a, **k))[1]  # type: ignore[method-assign]
        opened.append((threading.current_thread().name, disposed))
        return engine

    monkeypatch.setattr(base, "_opened", spied)
    good = histories.write_csv(histories.history(events=2), tmp_path / "good.csv")
    bad = tmp_path / "bad.csv"
    bad.write_text("tournament,name\nX,Y\n", encoding="utf-8")
    assert run("import", str(good))[0] == 0
    assert run("import", str(bad))[0] == 1
    assert [(name.startswith("open-database"), disposed) for name, disposed in opened] == [
        (True, [1]),
        (True, [1]),
    ]


def test_a_relative_database_that_does_not_exist_is_named_with_its_folder(
    run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    """The default, ``ratings.sqlite``, read by a cron line without ``cd``: the message says
    which folder it looked in."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.chdir(home)
    monkeypatch.setenv("RATINGS_DATABASE_URL", "sqlite:///ratings.sqlite")
    assert run("monthly", "--period", "2026-07") == (
        1,
        "",
        f"error: the database {home / 'ratings.sqlite'} does not exist: create it with "
        "`ratings db upgrade` (or set database_url to the right file)\n",
    )
    assert list(home.iterdir()) == []


def test_in_an_empty_folder_nothing_is_created(tmp_path: Path) -> None:
    """Run as a cron line without `cd` runs it: the default settings, in a folder of nothing."""
    folder = tmp_path / "empty"
    folder.mkdir()
    environment = {
        key: value for key, value in os.environ.items() if not key.startswith("RATINGS_")
    }
    environment["XDG_CONFIG_HOME"] = str(tmp_path / "no-user-settings")
    command = [sys.executable, "-m", "service.cli"]
    missing = (
        f"error: the database {folder / 'ratings.sqlite'} does not exist: create it with "
        "`ratings db upgrade` (or set database_url to the right file)\n"
    )
    for args in (
        ["monthly", "--period", "2026-07"],
        ["import", "--replace", str(SAMPLES / "results-2023.csv")],
        ["serve"],
    ):
        done = subprocess.run(
            [*command, *args], cwd=folder, env=environment, capture_output=True, text=True,
            timeout=120, check=False,
        )  # fmt: skip
        assert done.returncode == 1, done.stderr
        assert done.stderr.endswith(missing)
        if args[0] != "serve":  # which also logs the event, as JSON on the line before
            assert done.stderr == missing
        assert list(folder.iterdir()) == []


def test_config_says_where_each_setting_comes_from(
    run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    settings = tmp_path / "settings.toml"
    settings.write_text('rounding = "truncate"\n')
    monkeypatch.setenv("RATINGS_CONFIG", str(settings))
    monkeypatch.setenv("RATINGS_K_REGULAR", "6")
    code, out, _ = run("config")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("# user settings file: ")
    assert 'rounding = "truncate"  # ' + str(settings) in lines
    assert "k_regular = 6  # environment RATINGS_K_REGULAR" in lines
    assert "active_months = 24  # default" in lines
    assert len(lines) == 1 + len(Settings.model_fields)


def test_config_never_prints_a_password(
    run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    settings = tmp_path / "settings.toml"
    settings.write_text('smtp_password = "hunter2-mail"\n')
    monkeypatch.setenv("RATINGS_CONFIG", str(settings))
    monkeypatch.setenv(
        "RATINGS_DATABASE_URL", "postgresql+psycopg://officer:hunter2-db@db.example/ratings"
    )
    code, out, _ = run("config")
    assert code == 0
    assert "hunter2" not in out
    lines = out.splitlines()
    assert 'smtp_password = "***"  # ' + str(settings) in lines
    assert (
        'database_url = "postgresql+psycopg://officer:***@db.example/ratings"'
        "  # environment RATINGS_DATABASE_URL"
    ) in lines


def test_the_mail_password_is_held_as_a_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    from service.settings import load

    monkeypatch.setenv("RATINGS_SMTP_PASSWORD", "hunter2-mail")
    mail = load().mail
    assert "hunter2" not in repr(mail)
    assert "hunter2" not in str(mail)
    assert mail.password.get_secret_value() == "hunter2-mail"


def test_cleaned_names_are_warnings_and_big_files_one_line(
    run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "r.csv"
    path.write_text(
        "tournament,end_date,name,wins,draws,losses,buchholz\n"
        "Open,2024-01-05,\x1b]0;pwned\x07Ann,1,0,0,0\nOpen,2024-01-05,Bob,0,0,1,1\n"
    )
    code, out, err = run("import", str(path))
    assert code == 0
    assert err == (
        "warning: r.csv, line 2, column 'name': value '\\x1b]0;pwned\\x07Ann': "
        "control characters removed: read as 'Ann'\n"
    )
    monkeypatch.setenv("RATINGS_INPUT_LIMIT_BYTES", "100")
    code, out, err = run("import", "--replace", str(path))
    assert (code, out, err) == (
        1, "",
        "error: 1 problem found:\n"
        "  r.csv: larger than the input limit of 100 bytes (setting input_limit_bytes)\n",
    )  # fmt: skip
