"""`legal-ai doctor`: is this deployment right, and what to fix — one finding per check, each
`ok`, `info`, `skip`, `warn` or `error` with the fix in one line (docs/deployment.md "Checking a
deployment").

In order: every `LEGAL_AI_*` variable a setting and well-formed (environment.py), the database
reachable (PostgreSQL 15+), pgvector's version (0.8+), the roles in force (or the embedded
server's superuser caveat), TLS on a network URL, the tokens set and distinct (what `legal-ai
serve` needs), what the worker needs (no token: one there is ignored), the chair's desk
password, each configured model per role answering a one-token call through its adapter
(`offline`: not called), the embedder, the reranker, Tesseract with its languages, pdftotext,
LibreOffice (optional: info without it), hspell, Chromium (not needed: info), disk free under the
data folder, migrations pending, the newest backup's age. Every check is a small function
returning a `Finding` (environment.py, database.py,
host.py, models.py); the doctor reads and never writes: it does not migrate, create or grant
anything.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from ...config import Settings
from . import database, environment, host, models
from .finding import STATUSES, Finding, FindingLine

UNITS = ("serve", "worker")


def run(
    settings: Settings,
    *,
    offline: bool = False,
    environ: Mapping[str, str] | None = None,
    first: tuple[Finding, ...] = (),
    unit: str | None = None,
) -> list[Finding]:
    """Every check, in the order above, after `first` (the `settings` finding of
    environment.settings). `environ`: where the model SDKs find their keys and libpq its PG*
    defaults (the process's environment, or the units' file). `unit`: check what that unit
    needs only (serve: the tokens; worker: none); None: both."""
    environ = os.environ if environ is None else environ
    db = {f.check: f for f in database.checks(settings, environ)}
    machine = {f.check: f for f in host.host_checks(settings)}
    units = [
        *([host.tokens(settings)] if unit in (None, "serve") else []),
        *([environment.worker(settings)] if unit in (None, "worker") else []),
    ]
    return [
        *first,
        db["database"],
        db["pgvector"],
        db["roles"],
        db["tls"],
        *units,
        db["desk_password"],
        *models.model_checks(settings, offline=offline, environ=environ),
        models.embedder(settings, offline=offline),
        models.reranker(settings, offline=offline),
        *(
            machine[name]
            for name in ("tesseract", "pdftotext", "office", "hspell", "chromium", "disk")
        ),
        db["migrations"],
        machine["backup"],
    ]


def failed(findings: list[Finding]) -> bool:
    """Whether any finding is an error (the command's exit code is then 1)."""
    return any(f.status == "error" for f in findings)


__all__ = ["STATUSES", "UNITS", "Finding", "FindingLine", "environment", "failed", "run"]
