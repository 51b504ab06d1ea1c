"""`legal-ai doctor`: checks the deployment and says what to fix, a line per check
(ops/doctor)."""

from __future__ import annotations

from collections import Counter
from typing import Annotated

import typer

from ..ops import doctor as checks
from .common import _print_json, _settings


def doctor(
    as_json: Annotated[
        bool,
        typer.Option("--json", help="Print a JSON list of {check, status, message, fix}."),
    ] = False,
    offline: Annotated[
        bool,
        typer.Option("--offline", help="Call no model or embedding API (keys are still checked)."),
    ] = False,
) -> None:
    """Check the deployment, a line per check with what to fix; exit code 1 on any error.

    Checks the database (reachable, PostgreSQL 15+), pgvector (0.8+), the roles in force, TLS on
    a network URL, the tokens, the chair's desk password, each configured model (one tiny call
    through its adapter), the embedder, Tesseract and its languages, pdftotext, hspell, the disk
    under LEGAL_AI_HOME, migrations pending and the newest backup's age. Each line is ok, info,
    skip, warn or error. Reads only: it migrates, creates and grants nothing."""
    findings = checks.run(_settings(), offline=offline)
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
