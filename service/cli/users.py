"""Commands for the site's accounts: add, list and remove officers and tournament directors,
set a password, create, list and revoke API tokens, and read the account audit."""

from __future__ import annotations

import sys

import click

from ratings.errors import AccountError
from service.cli.base import State, attached_terminal, cli, pass_state


@cli.group("users")
def users() -> None:
    """The site's accounts: officers (everything) and directors (submit results, see their own
    submissions). The public reads the site without one."""


def _password(stdin: bool) -> str:
    """The password from one line of standard input, or asked twice on a terminal."""
    if stdin:
        line = sys.stdin.readline()
        password = line.rstrip("\r\n")
        if not password:
            raise AccountError("--password-stdin read no password from standard input")
        return password
    if not attached_terminal():
        raise AccountError(
            "a password is asked on a terminal; a script gives it with --password-stdin"
        )
    return str(click.prompt("password", hide_input=True, confirmation_prompt=True))


PASSWORD_STDIN = click.option(
    "--password-stdin", is_flag=True, help="Read the password from one line of standard input."
)


@users.command("add")
@click.argument("name")
@click.option("--role", type=click.Choice(["officer", "director"]), required=True)
@click.option("--email", help="Where the account's notices go (a rejected submission).")
@PASSWORD_STDIN
@pass_state
def users_add(state: State, name: str, role: str, email: str | None, password_stdin: bool) -> None:
    """Add an account NAME with a role; the password is asked twice on a terminal."""
    from jobs.accounts import add_user

    password = _password(password_stdin)
    add_user(
        state.engine, name, role=role, password=password, email=email,
        by=state.config.imported_by, now=state.clock(),
    )  # fmt: skip
    click.echo(f"added {role} {name}")


@users.command("list")
@pass_state
def users_list(state: State) -> None:
    """Every account: name, role, mail address."""
    from jobs.accounts import list_users

    found = list_users(state.reader)
    if not found:
        click.echo(
            "no accounts: add the first officer with `ratings users add NAME --role officer`"
        )
    for account in found:
        click.echo(f"{account.name}\t{account.role}\t{account.email or '-'}")


@users.command("remove")
@click.argument("name")
@pass_state
def users_remove(state: State, name: str) -> None:
    """Remove an account: it cannot log in, its tokens are revoked; its submissions stay."""
    from jobs.accounts import remove_user

    remove_user(state.engine, name, by=state.config.imported_by, now=state.clock())
    click.echo(f"removed {name}")


@users.command("password")
@click.argument("name")
@PASSWORD_STDIN
@pass_state
def users_password(state: State, name: str, password_stdin: bool) -> None:
    """Set a new password for NAME; the account's sessions on the site end."""
    from jobs.accounts import set_password

    password = _password(password_stdin)
    set_password(state.engine, name, password, by=state.config.imported_by, now=state.clock())
    click.echo(f"changed the password of {name}")


@users.command("token")
@click.argument("name")
@pass_state
def users_token(state: State, name: str) -> None:
    """Create an API token for NAME. It is printed once, as the last word of the last line:
    only its hash is kept."""
    from jobs.accounts import create_token

    token_id, token = create_token(
        state.engine, name, by=state.config.imported_by, now=state.clock()
    )
    click.echo(f"token {token_id} of {name}; it is shown only now, keep it safe:")
    click.echo(token)


@users.command("tokens")
@click.argument("name")
@pass_state
def users_tokens(state: State, name: str) -> None:
    """NAME's API tokens: number, created, last used, revoked."""
    from jobs.accounts import list_tokens

    for token in list_tokens(state.reader, name):
        used = f"{token.last_used_at:%Y-%m-%d %H:%M}" if token.last_used_at else "never used"
        revoked = f"revoked {token.revoked_at:%Y-%m-%d %H:%M}" if token.revoked_at else "in use"
        click.echo(f"{token.id}\tcreated {token.created_at:%Y-%m-%d %H:%M}\t{used}\t{revoked}")


@users.command("revoke")
@click.argument("name")
@click.argument("token_id", type=int)
@pass_state
def users_revoke(state: State, name: str, token_id: int) -> None:
    """Revoke NAME's API token TOKEN_ID (see `ratings users tokens NAME`)."""
    from jobs.accounts import revoke_token

    revoke_token(state.engine, name, token_id, by=state.config.imported_by, now=state.clock())
    click.echo(f"revoked token {token_id} of {name}")


@users.command("log")
@click.argument("name", required=False)
@click.option("--limit", type=click.IntRange(min=1), default=50, show_default=True)
@pass_state
def users_log(state: State, name: str | None, limit: int) -> None:
    """The account audit, newest first: logins (failed too, with the address) and changes."""
    from jobs.accounts import account_events

    for event in account_events(state.reader, name, limit):
        address = f" from {event.address}" if event.address else ""
        click.echo(
            f"{event.at:%Y-%m-%d %H:%M:%S}\t{event.account}\t{event.event}{address}\tby {event.by}"
        )
