"""`ratings users`: accounts, passwords from standard input, API tokens kept only as hashes,
and the account audit, on both databases."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import select

from ratings.storage.database import open_engine
from ratings.storage.schema import account_tokens, accounts
from service.cli import cli
from tests.support.settings import empty_settings_file


@pytest.fixture
def users(database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    open_engine(database_url).dispose()
    monkeypatch.setenv("RATINGS_DATABASE_URL", database_url)
    monkeypatch.setenv("RATINGS_CONFIG", empty_settings_file(tmp_path))
    monkeypatch.setenv("RATINGS_IMPORTED_BY", "root-of-the-machine")
    runner = CliRunner()

    def invoke(*args: str, stdin: str | None = None) -> tuple[int, str, str]:
        result = runner.invoke(cli, ["users", *args], input=stdin, catch_exceptions=False)
        return result.exit_code, result.stdout, result.stderr

    return invoke


def test_accounts_are_added_listed_and_removed(users, database_url: str) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = users(
        "add", "olga", "--role", "officer", "--password-stdin", stdin="a long password\n"
    )
    assert (code, out) == (0, "added officer olga\n")
    code, _, _ = users(
        "add", "dan", "--role", "director", "--email", "dan@example.org", "--password-stdin",
        stdin="another long one\n",
    )  # fmt: skip
    assert code == 0
    assert users("list")[1] == "dan\tdirector\tdan@example.org\nolga\tofficer\t-\n"
    engine = open_engine(database_url)
    with engine.connect() as connection:
        stored = connection.execute(select(accounts.c.password_hash)).scalars().all()
    engine.dispose()
    # Only argon2 hashes are stored, never the password.
    assert all(h.startswith("$argon2id$") for h in stored)
    assert len(stored) == 2
    assert not any("long" in h for h in stored)
    assert users("remove", "dan")[0] == 0
    assert users("list")[1] == "olga\tofficer\t-\n"
    log = users("log")[1]
    assert "dan\tremoved\tby root-of-the-machine" in log
    assert "olga\tadded as officer\tby root-of-the-machine" in log


@pytest.mark.parametrize(
    ("args", "stdin", "message"),
    [
        (("add", "x", "--role", "director", "--password-stdin"), "short\n", "at least 10"),
        (("add", "x", "--role", "director", "--password-stdin"), "\n", "read no password"),
        (("add", "x y", "--role", "director", "--password-stdin"), "long enough pw\n", "name"),
        (("add", "x", "--role", "director"), None, "--password-stdin"),
        (("add", "x", "--role", "director", "--email", "nobody", "--password-stdin"),
         "long enough pw\n", "not a mail address"),
        (("remove", "ghost"), None, "no account is named 'ghost'"),
        (("token", "ghost"), None, "no account is named 'ghost'"),
        (("password", "ghost", "--password-stdin"), "long enough pw\n", "no account"),
    ],
)  # fmt: skip
def test_bad_input_is_one_line(users, args, stdin, message) -> None:  # type: ignore[no-untyped-def]
    code, _, err = users(*args, stdin=stdin)
    assert code == 1
    assert message in err
    assert err.count("\n") == 1
    assert "Traceback" not in err


def test_a_name_is_taken_once(users) -> None:  # type: ignore[no-untyped-def]
    assert (
        users("add", "olga", "--role", "officer", "--password-stdin", stdin="pw long enough\n")[0]
        == 0
    )
    code, _, err = users(
        "add", "olga", "--role", "director", "--password-stdin", stdin="pw long enough\n"
    )
    assert code == 1
    assert "exists already" in err


def test_tokens_are_shown_once_stored_as_hashes_and_revoked(users, database_url: str) -> None:  # type: ignore[no-untyped-def]
    users("add", "dan", "--role", "director", "--password-stdin", stdin="another long one\n")
    code, out, _ = users("token", "dan")
    assert code == 0
    token = out.strip().splitlines()[-1].split()[-1]
    assert len(token) >= 40
    engine = open_engine(database_url)
    with engine.connect() as connection:
        hashes = connection.execute(select(account_tokens.c.token_hash)).scalars().all()
    engine.dispose()
    assert len(hashes) == 1
    assert token not in hashes[0]
    from jobs.accounts import digest

    assert hashes[0] == digest(token)
    listed = users("tokens", "dan")[1]
    assert listed.startswith("1\t")
    assert "in use" in listed
    assert users("revoke", "dan", "1")[0] == 0
    assert "revoked" in users("tokens", "dan")[1]
    code, _, err = users("revoke", "dan", "1")
    assert code == 1
    assert "no token 1 in use" in err


def test_a_new_password_replaces_the_old(users, database_url: str) -> None:  # type: ignore[no-untyped-def]
    from datetime import UTC, datetime

    from jobs.accounts import log_in

    users("add", "dan", "--role", "director", "--password-stdin", stdin="the first password\n")
    assert users("password", "dan", "--password-stdin", stdin="the second password\n")[0] == 0
    engine = open_engine(database_url)
    now = datetime.now(UTC)
    assert log_in(engine, "dan", "the first password", address=None, now=now) is None
    assert log_in(engine, "dan", "the second password", address=None, now=now) is not None
    engine.dispose()


def test_config_shows_the_signing_key_only_as_set(
    database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RATINGS_CONFIG", empty_settings_file(tmp_path))
    monkeypatch.setenv("RATINGS_SIGNING_KEY", "a-secret-key-of-the-site")
    result = CliRunner().invoke(cli, ["config"], catch_exceptions=False)
    assert result.exit_code == 0
    assert 'signing_key = "***"  # environment RATINGS_SIGNING_KEY' in result.stdout
    assert "a-secret-key-of-the-site" not in result.stdout
