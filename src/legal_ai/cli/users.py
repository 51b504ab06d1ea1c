"""`legal-ai user`: who signs in to the chair's desk."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from ..accounts import set_password
from ..errors import InvalidInput
from .common import _app

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


def register(app: typer.Typer) -> None:
    app.add_typer(user_app, name="user")
