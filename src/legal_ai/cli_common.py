"""Helpers every `legal-ai` command module shares."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from .config import Settings

JsonFlag = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]


def _settings() -> Settings:
    return Settings()


def _app():
    from .services import App

    return App(_settings())


def _print_json(data: Any) -> None:
    typer.echo(json.dumps(data, ensure_ascii=False, indent=2, default=str))
