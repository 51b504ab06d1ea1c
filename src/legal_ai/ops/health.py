"""`legal-ai health` and the desk's /health: what the composition root reports (App.health:
searchability, embeddings, isolation, roles, OCR, upkeep) with the scheduler's part beside it —
the scheduled jobs whose last run failed and the standing evaluation's drops beyond its tolerance
(ops/scheduler.py; docs/deployment.md "Scheduled jobs")."""

from __future__ import annotations

from ..app import App
from . import scheduler


def report(app: App) -> dict:
    """App.health() with `scheduler` ({"failed_jobs", "eval_drops"}) after `roles_enforced`."""
    found = app.health()
    with app.store.connection() as conn:
        jobs = scheduler.health(conn)
    out: dict = {}
    for key, value in found.items():
        out[key] = value
        if key == "roles_enforced":
            out["scheduler"] = jobs
    return out
