"""What a run of the learning queue reports (`legal-ai learning run`, `legal-ai worker`): the
totals of the jobs it ran, the jobs still open and why (waiting for a model's configuration,
deferred by a role's daily budget, retried after an error), the roles' budgets today, and a
settled job's line."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypedDict

from ...store import job_queue as store
from ...store import jsonable
from . import budgets

if TYPE_CHECKING:
    from ...context import Context
    from .models import Models


class Pending(TypedDict):
    """An open job and why it has not finished (`reason`)."""

    case_number: str
    job_id: int
    status: str
    reason: str


class Failed(TypedDict):
    """A job that failed in this run, or was failed as abandoned."""

    case_number: str
    job_id: int
    error: str | None


# The tokens the run's model calls read (`in`) and wrote (`out`): "in" is a keyword, so the
# functional form names it.
Tokens = TypedDict("Tokens", {"in": int, "out": int})


class JobOutcome(TypedDict):
    """One job this run took: how it ended and what each stage did (`ran`)."""

    id: int
    case_number: str
    status: str
    attempt: int
    ran: dict[str, Any]
    error: str | None
    waiting_for: str | None


class LearningRun(TypedDict):
    """`legal-ai learning run --json` (DESIGN §10): the cases whose jobs ran, the lessons
    proposed and how the panel decided them, the jobs still open and why, the model calls and
    their tokens (by stage), what is not configured, the failed jobs, each job's outcome, notes
    for her, and each role's daily budget today."""

    cases: list[str]
    proposed: int
    auto_approved: int
    needs_chair: int
    rejected: int
    pending: list[Pending]
    model_calls: int
    tokens: Tokens
    calls_by_stage: dict[str, Any]
    missing: list[str]
    failed: list[Failed]
    jobs: list[JobOutcome]
    notes: list[str]
    budgets: list[dict[str, Any]]


def reason(job: dict) -> str:
    """Why an open job has not finished, in one line."""
    status = job["status"]
    if status == "waiting":
        if deferred := budgets.deferral(job["waiting_for"]):
            return deferred
        return f"waiting for configuration: {job['waiting_for']}"
    if status == "running":
        return (
            f"running on worker {job['worker']} (attempt {job['attempts']} of "
            f"{job['max_attempts']}; lease until {job['lease_until']:%Y-%m-%d %H:%M:%S})"
        )
    if job["error"]:
        return (
            f"retry {job['attempts'] + 1} of {job['max_attempts']} after "
            f"{job['run_after']:%Y-%m-%d %H:%M:%S}; last error: {job['error']}"
        )
    return "queued: run `legal-ai learning run` or start `legal-ai worker`"


def _failed(outcomes: list[dict], abandoned: list[dict]) -> list[Failed]:
    """The jobs that failed in this run, then those failed as abandoned (their lease ended on
    their last attempt)."""
    failed: list[Failed] = [
        {"case_number": o["case_number"], "job_id": o["id"], "error": o["error"]}
        for o in outcomes
        if o["status"] == "failed"
    ]
    failed += [
        {"case_number": j["case_number"], "job_id": j["id"], "error": j["error"]} for j in abandoned
    ]
    return failed


def report(
    app: Context,
    case: str | None,
    probe: Models,
    outcomes: list[dict],
    abandoned: list[dict],
    since,
    at=None,
) -> LearningRun:
    """What `learning run` reports (jobs.run's docstring); `budgets` is each role with a daily
    budget, its spending today (clock `at`) and the jobs it defers."""

    def total(stage: str, key: str) -> int:
        return sum(int((o["ran"].get(stage) or {}).get(key) or 0) for o in outcomes)

    with app.store.connection() as conn:
        calls = store.call_totals(conn, [o["id"] for o in outcomes], since=since)
        open_jobs = store.open_jobs(conn, case)
        known = bool(store.list_jobs(conn, case)) if case else True
    failed = _failed(outcomes, abandoned)
    notes = []
    if case and not known:
        notes.append(f"no learning job for {case}: it is queued when the case's final is uploaded")
    return {
        "cases": sorted({o["case_number"] for o in outcomes if o["ran"]}),
        "proposed": sum(
            len((o["ran"].get("distill") or {}).get("proposed") or []) for o in outcomes
        ),
        "auto_approved": total("panel", "auto_approved"),
        "needs_chair": total("panel", "needs_chair") + total("distill", "routed_to_chair"),
        "rejected": total("panel", "rejected"),
        "pending": [
            {
                "case_number": j["case_number"],
                "job_id": j["id"],
                "status": j["status"],
                "reason": reason(j),
            }
            for j in open_jobs
        ],
        "model_calls": calls["calls"],
        "tokens": {"in": calls["tokens_in"], "out": calls["tokens_out"]},
        "calls_by_stage": calls["stages"],
        "missing": probe.missing,
        "failed": failed,
        "jobs": [
            {
                "id": o["id"],
                "case_number": o["case_number"],
                "status": o["status"],
                "attempt": o["attempt"],
                "ran": o["ran"],
                "error": o["error"],
                "waiting_for": o["waiting_for"],
            }
            for o in outcomes
        ],
        "notes": notes,
        "budgets": [jsonable(b) for b in budgets.overview(app, at)],
    }


def job_line(job: JobOutcome) -> str:
    ran = job["ran"]
    parts = []
    if "distill" in ran:
        parts.append(f"proposed {len(ran['distill'].get('proposed') or [])}")
    if "panel" in ran:
        panel = ran["panel"]
        parts.append(
            f"panel {panel.get('auto_approved', 0)} approved / "
            f"{panel.get('needs_chair', 0)} to the chair / "
            f"{panel.get('rejected', 0)} rejected"
        )
    if "curator" in ran:
        parts.append("curator done")
    detail = ", ".join(parts) or "no stage ran"
    tail = job["waiting_for"] or job["error"] or ""
    return f"job {job['id']} {job['case_number']}: {job['status']} ({detail})" + (
        f" — {tail}" if tail else ""
    )
