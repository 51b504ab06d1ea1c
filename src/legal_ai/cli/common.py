"""Helpers every `legal-ai` command module shares."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Annotated, Any

import typer

from ..accounts import check_chair_token
from ..app import App
from ..auth import cli_principal
from ..config import Settings

JsonFlag = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]


def _settings() -> Settings:
    return Settings()


def _app():
    """The App acting for whoever runs the command: the chair when LEGAL_AI_CHAIR_TOKEN is in
    the environment and is her registered token (`legal-ai user set-token chair`; any other
    value is refused with exit code 6 before anything runs), an agent when an agent token is,
    else the operator (never the chair)."""
    settings = _settings()
    principal = cli_principal(settings)
    legal = App(settings, principal=principal)
    if principal.is_chair:
        try:
            check_chair_token(legal, settings.chair_token or "")
        except BaseException:
            legal.close()
            raise
    return legal


def _print_json(data: Any) -> None:
    typer.echo(json.dumps(data, ensure_ascii=False, indent=2, default=str))


def print_rows(
    result: dict, key: str, line: Callable[[dict], str], *, as_json: bool, none: str
) -> None:
    """A list's answer: one JSON object, or a line per row of `result[key]` (`none` when it has
    no row)."""
    if as_json:
        _print_json(result)
        return
    for row in result[key]:
        typer.echo(line(row))
    if not result[key]:
        typer.echo(none)


def print_one(data: Any, line: Callable[[Any], str], *, as_json: bool) -> None:
    """One item's answer: one JSON object, or its line."""
    _print_json(data) if as_json else typer.echo(line(data))
