"""`legal-ai health` and the desk's /health: what the database holds (database_health.found, as
App.health answers: searchability, embeddings, isolation, roles, OCR, upkeep) with the scheduler's part beside it —
the scheduled jobs whose last run failed and the standing evaluation's drops beyond its tolerance
(ops/scheduler.py; docs/deployment.md "Scheduled jobs") — and the backups' (ops/backups.py: the
last run of nightly-backup and the newest backup it proved), `reranker`: the configured reranker
asked to order two passages within its budget (a failing one is a warning: searches keep the
fused order), and `rechecked`: what it re-checks
of the rows only the system writes, each a named check with its counts (ops/rechecks.py)."""

from __future__ import annotations

from typing import Any, TypedDict

from ..context import Context
from ..providers.rerankers import probe
from . import backups, rechecks, scheduler
from .cron import schedule_zone
from .database_health import AppHealth, found


class RerankerState(TypedDict):
    """The configured reranker, and why it does not rerank now (None: it answered)."""

    by: str
    warning: str | None


class Health(AppHealth):
    """`legal-ai health --json` (and the desk's /health): App.health's answer (AppHealth)
    with the scheduler's, the backups', the reranker's and the re-checks' parts."""

    scheduler: scheduler.SchedulerHealth
    backup: dict[str, Any]
    reranker: RerankerState | None
    rechecked: dict[str, dict[str, Any]]


def report(app: Context, model_within: float = 0) -> Health:
    """database_health.found (App.health) with `scheduler` ({"failed_jobs", "eval_drops"}), `backup` ({"last_run",
    "last_proven"}), `reranker` and `rechecked` ({check: {"checked", "found", ...}}:
    ops/rechecks.py) after it. `model_within`: seconds within which the model's answer for a
    text is reused by the embedding re-check (rechecks.run)."""
    state = found(app)
    with app.store.connection() as conn:
        jobs = scheduler.health(conn)
        backup = backups.health(conn, schedule_zone(app))
    return {
        **state,
        "scheduler": jobs,
        "backup": backup,
        "reranker": reranker(app),
        "rechecked": rechecks.run(app, model_within),
    }


def reranker(app: Context) -> RerankerState | None:
    """None when LEGAL_AI_RERANKER is unset; else {"by", "warning"}: warning is why it does not
    rerank now (one line; None: it answered)."""
    built = app.reranker
    if built is None:
        return None
    return {"by": built.name, "warning": probe(built, app.settings.rerank_budget_ms)}
