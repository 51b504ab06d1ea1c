"""Helpers every `legal-ai` command module shares."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Annotated, Any

import typer

from .. import config_env
from ..accounts import check_chair_token
from ..app import App
from ..auth import OPERATOR, cli_principal
from ..config import Settings

JsonFlag = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]

_warned: set[str] = set()  # the variables already warned about in this process


def _settings() -> Settings:
    """The settings of this process's environment. A `LEGAL_AI_*` variable that is no setting is
    a warning on stderr, once, naming the nearest real one; a malformed value is one line and
    exit code 2 (config_env.read)."""
    for name, nearest in config_env.unknown(os.environ):
        if name not in _warned:
            _warned.add(name)
            typer.echo(f"warning: {config_env.unknown_line(name, nearest)}", err=True)
    return config_env.read(os.environ)


def _system_app(settings: Settings | None = None) -> App:
    """The App of the system's own work run from the CLI — `legal-ai worker`, `jobs run`, and
    the stages it drains run by hand (`learning run`, `principles run|extract|synthesize`,
    `ocr run`, `enrich run`, `voice run`): always the operator, whatever token the environment
    holds. The worker's unit reads the same environment file as the server's, tokens included;
    they are the callers' credentials, and the worker is no caller (docs/deployment.md)."""
    return App(settings or _settings(), principal=OPERATOR)


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
