"""The learning stage's job queue: a final upload enqueues one job per (case, final
text); `legal-ai learning run [CASE]` and `legal-ai worker` drain it. The worker drains the
principle-extraction jobs too (kind `principles`, learning/principles/jobs.py).

A job runs, as the agent `learning-engine` (never as the chair), the model-driven stages of its
case in order — distillation (`distill.distill`) → the style panel (`panel.vote`) → the curator
(`curator.curate`) — and records what each did in `jobs.result`, stage by stage, so that a job
resumed after a crash, a stop or a wait does not repeat a stage that finished. Each stage is
idempotent anyway (distillation dedupes, the panel votes only on lessons without verdicts, the
curator's findings dedupe).

- A stage whose model is not configured (or whose key is absent) does not fail the job: the job
  runs what it can and then waits (`waiting`, with `waiting_for` = what to set); every pass
  re-checks waiting jobs and queues again those whose configuration changed.
- A stage whose role spent its daily token budget (LEGAL_AI_MODEL_BUDGETS) stops before its next
  call and the job is deferred, not failed (`waiting`, marked with the role; learning/engine/budgets.py):
  every pass queues it again once the role may spend (the next day, or the budget raised). A
  stage stopped midway (the panel after some lessons) keeps what it did (`partial`), and resumes
  by its own keys.
- A stage that fails is retried with backoff up to the job's `max_attempts`, then the job is
  `failed` with the error. A worker that dies leaves its job `running` under a lease; when the
  lease ends the job is claimable again (a last attempt that dies fails the job).
- A job is completed once: the completion is guarded by the claim (worker and attempt), so a
  worker whose lease ran out and whose job another worker took changes nothing.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ...auth import system_principal
from ...errors import AppError, BudgetReached, Scrubber
from ...jobqueue import backoff, worker_id
from ...store import drafts_lessons as learning_store
from ...store import job_queue as store
from ...store import jsonable
from ...store.db import connection_lost
from .. import vocabulary as vocab
from . import budgets
from .job_report import LearningRun, report
from .job_report import job_line as job_line  # the worker prints a settled job by it
from .models import Lease, Models, configured

if TYPE_CHECKING:
    from collections.abc import Mapping

    from ...context import Context

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


@dataclass
class _Run:
    """A claimed job in hand: its models, and what its result keeps — the stages done, and the
    pieces of a stage a budget stopped midway (`partial`: {stage: [its report so far, ...]},
    kept after the stage finishes: a stage resumed reports only what it did itself)."""

    engine: Context
    job: dict
    worker: str
    models: Models
    lease: Lease
    done: dict[str, dict]
    partial: dict[str, list]
    outcome: dict

    @property
    def result(self) -> dict:
        return {"stages": self.done, **({"partial": self.partial} if self.partial else {})}

    def settle(self, status: str, row: dict | None) -> dict:
        self.outcome["status"] = status if row is not None else "lost"
        if row is None:
            logger.warning(
                "job %s was taken over by another worker; its result is not kept", self.job["id"]
            )
        return self.outcome


def _retry_or_fail(run: _Run, exc: Exception) -> dict | None:
    """A stage failed (called in the handler): the error scrubbed into the outcome and the job
    retried with backoff, or failed at its last attempt; its row (None: taken over). The
    database out of reach is raised again: the job stays claimed until its lease ends."""
    if connection_lost(exc):
        raise exc
    job, attempt = run.job, run.job["attempts"]
    if isinstance(exc, AppError):
        error = Scrubber.of(run.engine.settings)(str(exc))  # stored in jobs.error: scrubbed
    else:
        logger.exception("job %s (%s): stage failed", job["id"], job["case_number"])
        error = f"internal error in the learning stage ({type(exc).__name__})"
    run.outcome["error"] = error
    with run.engine.store.transaction() as conn:
        return store.retry_or_fail(
            conn, job["id"], run.worker, attempt, error, run.result, backoff(attempt)
        )


def _deferred(run: _Run, stage: str, exc: BudgetReached) -> tuple[str, dict | None]:
    """A stage met its role's daily budget: what it did so far kept (`partial`), the job
    deferred until the role may spend again (learning/engine/budgets.py); its status and row."""
    if exc.partial is not None:
        piece = {**_plain(exc.partial), "stopped": "budget"}
        run.partial.setdefault(stage, []).append(piece)
        run.outcome["ran"][stage] = piece
    run.outcome["waiting_for"] = str(exc)
    with run.engine.store.transaction() as conn:
        return "waiting", budgets.defer(conn, run.job, run.worker, exc, run.result)


def _settled(run: _Run, reasons: list[str]) -> tuple[str, dict | None]:
    """Every stage that could run ran: the job waits for what `reasons` name (the outcome says
    what), or it is done; its status and row (None: taken over), in one transaction."""
    job, attempt = run.job, run.job["attempts"]
    with run.engine.store.transaction() as conn:
        if reasons:
            run.outcome["waiting_for"] = "; ".join(reasons)
            row = store.wait(
                conn, job["id"], run.worker, attempt, run.outcome["waiting_for"], run.result
            )
            return "waiting", row
        row = store.complete(conn, job["id"], run.worker, attempt, run.result)
    return "done", row


def _stages(
    run: _Run, stages: Stages, distillable: bool, should_stop: Callable[[], bool] | None
) -> dict | None:
    """Run the job's stages not done yet, in order, each kept as it finishes; the job settled
    when it stops early (taken over, released, deferred by a budget), else None."""
    job, attempt = run.job, run.job["attempts"]
    lease_s = run.engine.settings.job_lease_s
    for stage in STAGE_ORDER:
        try:
            result = _stage_result(
                stage,
                run.done,
                distillable,
                stages,
                run.engine,
                job["case_number"],
                run.models,
                job,
            )
        except BudgetReached as exc:
            return run.settle(*_deferred(run, stage, exc))
        if result is _NOT_RUN:
            continue
        run.done[stage] = run.outcome["ran"][stage] = _plain(result)
        with run.engine.store.transaction() as conn:
            mine = store.save_progress(conn, job["id"], run.worker, attempt, run.result, lease_s)
        if not mine or run.lease.lost:
            return run.settle("lost", None)
        if should_stop is not None and should_stop() and stage != STAGE_ORDER[-1]:
            with run.engine.store.transaction() as conn:
                row = store.release(conn, job["id"], run.worker, attempt, run.result)
            return run.settle("released", row)
    return None


def process(
    app: Context,
    job: dict,
    *,
    worker: str,
    stages: Stages,
    should_stop: Callable[[], bool] | None = None,
    environ: Mapping[str, str] | None = None,
    at: dt.datetime | None = None,
) -> dict:
    """Run the stages of a claimed job and settle it (done, waiting, deferred by a budget,
    retried or failed). Returns {"id", "case_number", "status", "ran": {stage: result},
    "error", "waiting_for"}. `at`: the budgets' clock (None: the database's)."""
    engine = _engine(app)
    case = job["case_number"]
    lease = Lease(job["id"], worker, job["attempts"], app.settings.job_lease_s)
    models = configured(engine, case=case, job_id=job["id"], lease=lease, environ=environ, at=at)
    kept = job.get("result") or {}
    outcome = {
        "id": job["id"],
        "case_number": case,
        "attempt": job["attempts"],
        "ran": {},
        "error": None,
        "waiting_for": None,
    }
    run = _Run(
        engine,
        job,
        worker,
        models,
        lease,
        dict(kept.get("stages") or {}),
        dict(kept.get("partial") or {}),
        outcome,
    )
    try:
        distillable = _distillable(engine, case)
        stopped = _stages(run, stages, distillable, should_stop)
    except Exception as exc:  # a stage failed: retried with backoff, or failed at the last
        row = _retry_or_fail(run, exc)
        return run.settle(row["status"] if row else "lost", row)
    if stopped is not None:
        return stopped
    return run.settle(*_settled(run, _blocked(run.done, distillable, models)))


def _recheck_waiting(
    conn, models: Models, case: str | None, may_run: Callable[[Any, dict], bool | None]
) -> list[int]:
    """Queue again the waiting jobs whose reasons changed with the configuration, and those a
    budget deferred once their role may spend again (a new day, a budget raised)."""
    again = []
    for job in store.waiting_jobs(conn, case):
        budget_allows = may_run(conn, job)
        if budget_allows is not None:
            if budget_allows:
                again.append(job["id"])
            continue
        stages = (job["result"] or {}).get("stages") or {}
        pair = learning_store.get_pair(conn, job["case_number"])
        now = "; ".join(_blocked(stages, bool(pair and pair.get("analysis")), models))
        if now != (job["waiting_for"] or ""):
            again.append(job["id"])
    if again:
        store.requeue(conn, again)
    return again


def run(
    app: Context,
    case: str | None = None,
    *,
    stages: Stages,
    worker: str | None = None,
    should_stop: Callable[[], bool] | None = None,
    environ: Mapping[str, str] | None = None,
    at: dt.datetime | None = None,
) -> LearningRun:
    """Drain the ready learning jobs (all, or `case`'s) in this process and report:
    {"cases", "proposed", "auto_approved", "needs_chair", "rejected", "pending":
    [{"case_number", "reason"}], "model_calls", "tokens", "missing", "failed", "jobs", "notes",
    "budgets"}. `at` is the clock of the roles' daily budgets (None: the database's; a test's
    controlled clock)."""
    engine = _engine(app)
    case = vocab.case_number(case) if case else None
    worker = worker or worker_id()
    probe = configured(engine, environ=environ)  # what is missing, and a malformed spec refused
    with engine.store.transaction() as conn:
        since = store.clock(conn)
        abandoned = store.fail_abandoned(conn, case)
        _recheck_waiting(conn, probe, case, budgets.resumable(engine, at))
    outcomes: list[dict] = []
    while not (should_stop and should_stop()):
        with engine.store.transaction() as conn:
            job = store.claim(conn, worker, app.settings.job_lease_s, case_number=case)
        if job is None:
            break
        outcomes.append(
            process(
                engine,
                job,
                worker=worker,
                stages=stages,
                should_stop=should_stop,
                environ=environ,
                at=at,
            )
        )
    return report(engine, case, probe, outcomes, abandoned, since, at)


def jobs(app: Context, case: str | None = None) -> dict:
    """Every learning job (all, or `case`'s), oldest first."""
    case = vocab.case_number(case) if case else None
    with app.store.connection() as conn:
        rows = store.list_jobs(conn, case)
    return {"jobs": [jsonable(r) for r in rows]}
