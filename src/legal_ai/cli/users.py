"""`legal-ai user`: who signs in to the chair's desk."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from ..accounts import set_chair_token, set_password
from ..app import App
from ..auth import OPERATOR, agent_tokens
from ..errors import InvalidInput
from .common import _app, _settings

user_app = typer.Typer(help="Who signs in to the chair's desk.", no_args_is_help=True)


@user_app.command("set-password")
def user_set_password(
    name: Annotated[str, typer.Argument(help="The desk user: chair.")],
    password_stdin: Annotated[
        bool, typer.Option("--password-stdin", help="Read the password from standard input.")
    ] = False,
) -> None:
    """Set the desk password of NAME (asked twice, not echoed; or one line on stdin). Every
    session of NAME ends."""
    from getpass import getpass

    if password_stdin:
        password = sys.stdin.readline().rstrip("\r\n")
    else:
        password = getpass(f"new desk password for {name}: ")
        if getpass("the same again: ") != password:
            raise InvalidInput("the two passwords differ; nothing was changed")
    with _app() as legal:
        set_password(legal, name, password)
    typer.echo(f"password of {name} set; every earlier session of {name} ended")


@user_app.command("set-token")
def user_set_token(
    name: Annotated[str, typer.Argument(help="Whose token: chair.")],
    token_stdin: Annotated[
        bool, typer.Option("--token-stdin", help="Read the token from standard input.")
    ] = False,
) -> None:
    """Register the chair's token for the CLI: a command acts as her only when its
    LEGAL_AI_CHAIR_TOKEN is this one (its argon2id hash is kept). The token is read from
    standard input (--token-stdin) or else from LEGAL_AI_CHAIR_TOKEN (the server's)."""
    if name.strip().lower() != "chair":
        raise InvalidInput(f"unknown user {name!r}: the one token registered here is the chair's")
    settings = _settings()
    token = sys.stdin.readline().rstrip("\r\n") if token_stdin else settings.chair_token
    if not token:
        raise InvalidInput("no token: pass --token-stdin or set LEGAL_AI_CHAIR_TOKEN")
    if token.strip() in agent_tokens(settings):
        raise InvalidInput("the chair's token must differ from every agent token")
    with App(settings, principal=OPERATOR) as legal:
        set_chair_token(legal, token)
    typer.echo("the chair's token is registered: the CLI acts as the chair with it only")


def register(app: typer.Typer) -> None:
    app.add_typer(user_app, name="user")
