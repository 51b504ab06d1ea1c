"""`legal-ai doctor`: checks the deployment and says what to fix, a line per check
(ops/doctor)."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path
from typing import Annotated

import typer

from .. import config_env
from ..errors import InvalidInput
from ..ops import doctor as checks
from .common import _print_json


def doctor(
    as_json: Annotated[
        bool,
        typer.Option("--json", help="Print a JSON list of {check, status, message, fix}."),
    ] = False,
    offline: Annotated[
        bool,
        typer.Option("--offline", help="Call no model or embedding API (keys are still checked)."),
    ] = False,
    env_file: Annotated[
        Path | None,
        typer.Option(
            "--env-file",
            help="Check the settings of this environment file, read as systemd's "
            "EnvironmentFile= reads it (e.g. /etc/legal-ai/env), not this shell's.",
        ),
    ] = None,
    unit: Annotated[
        str | None,
        typer.Option(help="Check what one unit needs: serve (the tokens) | worker (no token)."),
    ] = None,
) -> None:
    """Check the deployment, a line per check with what to fix; exit code 1 on any error.

    Checks the settings (every LEGAL_AI_* variable a setting, each value well-formed), the
    database (reachable, PostgreSQL 15+), pgvector (0.8+), the roles in force, TLS on a network
    URL, the tokens (what serve needs; the worker needs none), the chair's desk password, each
    configured model (one tiny call through its adapter), the embedder, Tesseract and its
    languages, pdftotext, hspell, the disk under LEGAL_AI_HOME, migrations pending and the
    newest backup's age. Each line is ok, info, skip, warn or error. Reads only: it migrates,
    creates and grants nothing."""
    if unit is not None and unit not in checks.UNITS:
        raise InvalidInput(f"--unit takes {' or '.join(checks.UNITS)}, not {unit!r}")
    parsed = None
    environ: dict[str, str] = dict(os.environ)
    if env_file is not None:
        try:
            environ, parsed = config_env.service_environ(env_file)
        except OSError as exc:
            raise InvalidInput(f"--env-file {env_file}: {exc.strerror or exc}") from None
        except UnicodeDecodeError:
            raise InvalidInput(f"--env-file {env_file}: not UTF-8 (systemd reads UTF-8)") from None
    settings, read = checks.environment.settings(environ, parsed, str(env_file or ""))
    findings = checks.run(settings, offline=offline, environ=environ, first=(read,), unit=unit)
    if as_json:
        _print_json([f.as_dict() for f in findings])
    else:
        width = max(len(f.check) for f in findings)
        for f in findings:
            fix = f" — fix: {f.fix}" if f.fix else ""
            typer.echo(f"{f.status:<5}  {f.check:<{width}}  {f.message}{fix}")
        counts = Counter(f.status for f in findings)
        typer.echo(", ".join(f"{counts[s]} {s}" for s in checks.STATUSES if counts[s]))
    if checks.failed(findings):
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("doctor")(doctor)
