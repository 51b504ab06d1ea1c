"""Helpers every `legal-ai` command module shares."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from ..app import App
from ..auth import cli_principal
from ..config import Settings

JsonFlag = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]


def _settings() -> Settings:
    return Settings()


def _app():
    """The App acting for whoever runs the command: the chair when LEGAL_AI_CHAIR_TOKEN is in
    the environment, an agent when an agent token is, else the operator (never the chair)."""
    settings = _settings()
    return App(settings, principal=cli_principal(settings))


def _print_json(data: Any) -> None:
    typer.echo(json.dumps(data, ensure_ascii=False, indent=2, default=str))
