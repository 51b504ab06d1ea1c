"""The learning stage's job queue (issue 11): a final upload enqueues one job per (case, final
text); `legal-ai learning run [CASE]` and `legal-ai worker` drain it. The worker drains the
principle-extraction jobs too (kind `principles`, learning/principle_jobs.py).

A job runs, as the agent `learning-engine` (never as the chair), the model-driven stages of its
case in order — distillation (`distill.distill`) → the style panel (`panel.vote`) → the curator
(`curator.curate`) — and records what each did in `jobs.result`, stage by stage, so that a job
resumed after a crash, a stop or a wait does not repeat a stage that finished. Each stage is
idempotent anyway (distillation dedupes, the panel votes only on lessons without verdicts, the
curator's findings dedupe).

- A stage whose model is not configured (or whose key is absent) does not fail the job: the job
  runs what it can and then waits (`waiting`, with `waiting_for` = what to set); every pass
  re-checks waiting jobs and queues again those whose configuration changed.
- A stage that fails is retried with backoff up to the job's `max_attempts`, then the job is
  `failed` with the error. A worker that dies leaves its job `running` under a lease; when the
  lease ends the job is claimable again (a last attempt that dies fails the job).
- A job is completed once: the completion is guarded by the claim (worker and attempt), so a
  worker whose lease ran out and whose job another worker took changes nothing.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..auth import system_principal
from ..errors import AppError, Scrubber
from ..jobqueue import backoff, worker_id
from ..store import engine as store
from ..store import jsonable
from ..store import learning as learning_store
from . import vocabulary as vocab
from .engine import Lease, Models, configured

if TYPE_CHECKING:
    from collections.abc import Mapping

    from ..context import Context

logger = logging.getLogger(__name__)

KIND = "learning"
ENGINE = system_principal("learning-engine")
STAGE_ORDER = ("distill", "panel", "curator")
MODEL_OF = {"distill": "distiller", "panel": "style_panel", "curator": "curator"}
NO_VOTES = {"auto_approved": 0, "needs_chair": 0, "rejected": 0}


@dataclass(frozen=True)
class Stages:
    """The stage functions a job calls. The real ones (ops/worker.py `STAGES`: distillation,
    the style panel, the curator of the brief in knowledge/) are passed in by the interface
    that runs the jobs; this module imports none of them."""

    distill: Callable[..., dict]  # (app, case, model, *, job_id) -> {"proposed": [ids], ...}
    vote: Callable[..., dict]  # (app, lesson_ids, panel) -> {"auto_approved", "needs_chair", ...}
    curate: Callable[..., dict]  # (app, case, model) -> {...}


def job_key(case: str, final_hash: str) -> str:
    """One learning job per case and final text: the same final uploaded again adds none."""
    return f"{KIND}:{case}:{final_hash}"


def enqueue(conn, case: str, final_hash: str) -> dict | None:
    """Queue the learning stage of `case` for the final whose text hashes to `final_hash`, in the
    caller's transaction (the final upload's). None when this final already has its job."""
    return store.enqueue(conn, KIND, case, job_key(case, final_hash))


def _engine(app: Context) -> Context:
    return app if app.principal == ENGINE else app.acting_as(ENGINE)


def _plain(value: Any) -> Any:
    """A stage's result as plain JSON values (dates as strings)."""
    return json.loads(json.dumps(value, ensure_ascii=False, default=str))


def _distillable(app: Context, case: str) -> bool:
    """Whether the case's pair has the block alignment of our draft and her final (a final
    without our draft has nothing to distill from)."""
    with app.store.connection() as conn:
        pair = learning_store.get_pair(conn, case)
    return bool(pair and pair.get("analysis"))


def _blocked(stages: dict, distillable: bool, models: Models) -> list[str]:
    """What to set before the stages not yet done can run (empty: nothing blocks them)."""
    reasons: list[str] = []
    for stage in STAGE_ORDER:
        if stage in stages or (stage != "curator" and not distillable):
            continue
        if stage == "panel" and "distill" in stages and not stages["distill"].get("proposed"):
            continue  # nothing proposed: no panel is needed
        reason = models.reasons.get(MODEL_OF[stage])
        if reason and reason not in reasons:
            reasons.append(reason)
    return reasons


def _call(
    stages: Stages, stage: str, app: Context, case: str, models: Models, ids: list[int], job: dict
) -> dict:
    if stage == "distill":
        return stages.distill(app, case, models.distiller, job_id=job["id"])
    if stage == "panel":
        return stages.vote(app, ids, models.panel)
    return stages.curate(app, case, models.curator)


_NOT_RUN = object()  # a stage that does not run now (done, or waiting for its model or input)


def _stage_result(
    stage: str,
    done: dict,
    distillable: bool,
    stages: Stages,
    engine: Context,
    case: str,
    models: Models,
    job: dict,
) -> Any:
    """What one stage of the job returns, run now; _NOT_RUN when it is not to run."""
    if stage in done or (stage != "curator" and not distillable):
        return _NOT_RUN
    if stage == "panel" and "distill" not in done:
        return _NOT_RUN  # nothing distilled yet (its model is missing): the job will wait
    ids = list(done["distill"].get("proposed") or []) if stage == "panel" else []
    if stage == "panel" and not ids:
        return dict(NO_VOTES)  # nothing proposed: no vote, no model needed
    if MODEL_OF[stage] in models.reasons:
        return _NOT_RUN  # its model is missing: the job will wait for it
    return _call(stages, stage, engine, case, models, ids, job)


def _retry_or_fail(
    app: Context, engine: Context, job: dict, worker: str, exc: Exception, done: dict, outcome: dict
) -> dict | None:
    """A stage failed (called in the handler): the error scrubbed into `outcome` and the job
    retried with backoff, or failed at its last attempt; its row (None: taken over)."""
    attempt = job["attempts"]
    if isinstance(exc, AppError):
        error = Scrubber.of(app.settings)(str(exc))  # stored in jobs.error: scrubbed
    else:
        logger.exception("job %s (%s): stage failed", job["id"], job["case_number"])
        error = f"internal error in the learning stage ({type(exc).__name__})"
    outcome["error"] = error
    with engine.store.transaction() as conn:
        return store.retry_or_fail(
            conn, job["id"], worker, attempt, error, {"stages": done}, backoff(attempt)
        )


def _settled(
    engine: Context, job: dict, worker: str, done: dict, reasons: list[str], outcome: dict
) -> tuple[str, dict | None]:
    """Every stage that could run ran: the job waits for what `reasons` name (`outcome` says
    what), or it is done; its status and row (None: taken over), in one transaction."""
    attempt = job["attempts"]
    with engine.store.transaction() as conn:
        if reasons:
            outcome["waiting_for"] = "; ".join(reasons)
            row = store.wait(
                conn, job["id"], worker, attempt, outcome["waiting_for"], {"stages": done}
            )
            return "waiting", row
        row = store.complete(conn, job["id"], worker, attempt, {"stages": done})
    return "done", row


def process(
    app: Context,
    job: dict,
    *,
    worker: str,
    stages: Stages,
    should_stop: Callable[[], bool] | None = None,
    environ: Mapping[str, str] | None = None,
) -> dict:
    """Run the stages of a claimed job and settle it (done, waiting, retried or failed).
    Returns {"id", "case_number", "status", "ran": {stage: result}, "error", "waiting_for"}."""
    engine = _engine(app)
    case = job["case_number"]
    attempt = job["attempts"]
    lease = Lease(job["id"], worker, attempt, app.settings.job_lease_s)
    models = configured(engine, case=case, job_id=job["id"], lease=lease, environ=environ)
    done: dict[str, dict] = dict((job.get("result") or {}).get("stages") or {})
    ran: dict[str, dict] = {}
    outcome = {
        "id": job["id"],
        "case_number": case,
        "attempt": attempt,
        "ran": ran,
        "error": None,
        "waiting_for": None,
    }

    def settle(status: str, row: dict | None) -> dict:
        outcome["status"] = status if row is not None else "lost"
        if row is None:
            logger.warning(
                "job %s was taken over by another worker; its result is not kept", job["id"]
            )
        return outcome

    try:
        distillable = _distillable(engine, case)
        for stage in STAGE_ORDER:
            result = _stage_result(stage, done, distillable, stages, engine, case, models, job)
            if result is _NOT_RUN:
                continue
            done[stage] = ran[stage] = _plain(result)
            with engine.store.transaction() as conn:
                mine = store.save_progress(
                    conn, job["id"], worker, attempt, {"stages": done}, app.settings.job_lease_s
                )
            if not mine or lease.lost:
                return settle("lost", None)
            if should_stop is not None and should_stop() and stage != STAGE_ORDER[-1]:
                with engine.store.transaction() as conn:
                    row = store.release(conn, job["id"], worker, attempt, {"stages": done})
                return settle("released", row)
    except Exception as exc:  # a stage failed: retried with backoff, or failed at the last
        row = _retry_or_fail(app, engine, job, worker, exc, done, outcome)
        return settle(row["status"] if row else "lost", row)

    reasons = _blocked(done, distillable, models)
    return settle(*_settled(engine, job, worker, done, reasons, outcome))


def _recheck_waiting(conn, models: Models, case: str | None) -> list[int]:
    """Queue again the waiting jobs whose reasons changed with the configuration."""
    again = []
    for job in store.waiting_jobs(conn, case):
        stages = (job["result"] or {}).get("stages") or {}
        pair = learning_store.get_pair(conn, job["case_number"])
        now = "; ".join(_blocked(stages, bool(pair and pair.get("analysis")), models))
        if now != (job["waiting_for"] or ""):
            again.append(job["id"])
    if again:
        store.requeue(conn, again)
    return again


def _reason(job: dict) -> str:
    status = job["status"]
    if status == "waiting":
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


def run(
    app: Context,
    case: str | None = None,
    *,
    stages: Stages,
    worker: str | None = None,
    should_stop: Callable[[], bool] | None = None,
    environ: Mapping[str, str] | None = None,
) -> dict:
    """Drain the ready learning jobs (all, or `case`'s) in this process and report:
    {"cases", "proposed", "auto_approved", "needs_chair", "rejected", "pending":
    [{"case_number", "reason"}], "model_calls", "tokens", "missing", "failed", "jobs", "notes"}."""
    engine = _engine(app)
    case = vocab.case_number(case) if case else None
    worker = worker or worker_id()
    probe = configured(engine, environ=environ)  # what is missing, and a malformed spec refused
    with engine.store.transaction() as conn:
        since = store.clock(conn)
        abandoned = store.fail_abandoned(conn, case)
        _recheck_waiting(conn, probe, case)
    outcomes: list[dict] = []
    while not (should_stop and should_stop()):
        with engine.store.transaction() as conn:
            job = store.claim(conn, worker, app.settings.job_lease_s, case_number=case)
        if job is None:
            break
        outcomes.append(
            process(
                engine, job, worker=worker, stages=stages, should_stop=should_stop, environ=environ
            )
        )
    return _report(engine, case, probe, outcomes, abandoned, since)


def _failed(outcomes: list[dict], abandoned: list[dict]) -> list[dict]:
    """The jobs that failed in this run, then those failed as abandoned (their lease ended on
    their last attempt)."""
    failed = [
        {"case_number": o["case_number"], "job_id": o["id"], "error": o["error"]}
        for o in outcomes
        if o["status"] == "failed"
    ]
    failed += [
        {"case_number": j["case_number"], "job_id": j["id"], "error": j["error"]} for j in abandoned
    ]
    return failed


def _report(
    app: Context,
    case: str | None,
    probe: Models,
    outcomes: list[dict],
    abandoned: list[dict],
    since,
) -> dict:
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
                "reason": _reason(j),
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
    }


def jobs(app: Context, case: str | None = None) -> dict:
    """Every learning job (all, or `case`'s), oldest first."""
    case = vocab.case_number(case) if case else None
    with app.store.connection() as conn:
        rows = store.list_jobs(conn, case)
    return {"jobs": [jsonable(r) for r in rows]}


def job_line(job: dict) -> str:
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
