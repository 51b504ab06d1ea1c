"""The worker loop (`legal-ai worker`): one process that drains every job kind in turn — the
learning stage of uploaded finals (learning/engine/jobs.py), scans read by OCR (ingest/ocr_jobs.py),
the principles of rulings that arrived (learning/principles/jobs.py), the enrichment of internal
decisions (learning/arrival/enrichment.py), canonical synthesis, voice documents — and then the
scheduled jobs that are due (ops/scheduler.py). The model stages run as the system's own
principals (auth.system_principal), never as a request's."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping

from ..auth import system_principal
from ..context import Context
from ..errors import AppError, StoreError
from ..ingest import ocr_jobs
from ..jobqueue import worker_id
from ..knowledge import curator, voice
from ..learning.arrival import enrichment
from ..learning.engine import Stages, configured
from ..learning.engine import jobs as learning_jobs
from ..learning.lessons import distill, panel
from ..learning.lessons import proposal_review as fingerprint_review
from ..learning.pairs import scanned_decisions
from ..learning.principles import jobs as principle_jobs
from ..learning.principles import synthesis
from ..store import synthesis as synthesis_store
from ..store import voice as voice_store
from ..store.db import connection_lost
from . import scheduler

logger = logging.getLogger(__name__)

RETRY_FIRST_S = 1.0  # after a lost database: the first probe, then twice as long each time ...
RETRY_MAX_S = 30.0  # ... up to this pause between probes
PROBE_S = 2.0  # how long a probe waits for the database to answer

# The learning job's stages (learning/engine/jobs.py runs them in order; tests pass their own).
STAGES = Stages(distill=distill.distill, vote=panel.vote, curate=curator.curate)


def work(
    app: Context,
    *,
    once: bool = False,
    poll: float = 5.0,
    echo: Callable[[str], None] = print,
    should_stop: Callable[[], bool] = lambda: False,
    stages: Stages | None = None,
    environ: Mapping[str, str] | None = None,
) -> int:
    """The worker loop (`legal-ai worker`): a pass over the ready jobs, then a pause of `poll`
    seconds, until `should_stop()` (SIGTERM/SIGINT: the job in hand is settled first) or, with
    `once`, after one pass. Returns how many jobs it settled.

    The database out of reach (a restart, a crash: store.db.connection_lost) ends the pass, not
    the worker: one warning line, then a probe after 1 s, 2 s, 4 s ... (at most RETRY_MAX_S
    apart) until it answers, one line when it does, and the passes go on. The job in hand stays
    `running` under its lease and is claimable again when the lease ends (LEGAL_AI_JOB_LEASE_S).
    With `once` the outage is a StoreError instead (one line, exit 4)."""
    worker = worker_id()
    echo(f"worker {worker}: started")
    settled = 0
    pending: list[dict] = []
    while True:
        try:
            done, pending = _pass(app, worker, echo, should_stop, stages, environ)
            settled += done
        except Exception as exc:
            if not connection_lost(exc):
                raise
            if once:
                raise StoreError(f"the database was lost during the pass: {_reason(exc)}") from None
            if not _wait_out(app, exc, should_stop):
                break
            continue  # reachable again: a pass at once
        if once or should_stop():
            break
        if not _pause(poll, should_stop):
            break
    waiting = [p for p in pending if p["status"] == "waiting"]
    if waiting:
        echo(f"{len(waiting)} job(s) waiting: {waiting[0]['reason']}")
    echo(f"worker {worker}: stopped after {settled} job(s)")
    return settled


def _pass(
    app: Context,
    worker: str,
    echo: Callable[[str], None],
    should_stop: Callable[[], bool],
    stages: Stages | None,
    environ: Mapping[str, str] | None,
) -> tuple[int, list[dict]]:
    """One pass over every queue and the due scheduled jobs: (jobs settled, jobs still open)."""
    settled = 0
    report = learning_jobs.run(
        app, stages=stages or STAGES, worker=worker, should_stop=should_stop, environ=environ
    )
    for job in report["jobs"]:
        settled += 1
        echo(learning_jobs.job_line(job))
    # Then the scans that arrived, read by OCR (ingest/ocr_jobs): a ruling read this way
    # queues its principles, extracted just below.
    scanned = ocr_jobs.run(app, worker=worker, should_stop=should_stop)
    for job in scanned["jobs"]:
        settled += 1
        echo(ocr_jobs.job_line(job))
    # A draft or final uploaded as a scan, its scan now read: stored as a text upload would be.
    decisions = scanned_decisions.run(app)
    settled += len(decisions["done"]) + len(decisions["failed"])
    said = scanned_decisions.line(decisions)
    if said:
        echo(said)
    # Then the principles of rulings and decisions that arrived (learning/principle_jobs).
    extracted = principle_jobs.run(app, worker=worker, should_stop=should_stop, environ=environ)
    for job in extracted["jobs"]:
        settled += 1
        echo(principle_jobs.job_line(job))
    # The headnote, summary and tags of internal decisions that arrived (learning/enrichment).
    settled += enrichment.work_pass(
        app, worker=worker, should_stop=should_stop, environ=environ, echo=echo
    )
    settled += _synthesize(app, echo)
    settled += _voice(app, echo)
    settled += _fingerprint(app, echo)
    # Then the scheduled jobs that are due (ops/scheduler.py: each once, one process at a time).
    settled += _scheduled(app, worker, echo)
    return settled, report["pending"] + extracted["pending"] + scanned["pending"]


def _pause(seconds: float, should_stop: Callable[[], bool]) -> bool:
    """Sleep `seconds` unless asked to stop meanwhile; whether to go on."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not should_stop():
        time.sleep(min(0.2, seconds))
    return not should_stop()


def _wait_out(app: Context, exc: BaseException, should_stop: Callable[[], bool]) -> bool:
    """An outage: one line when it starts, probes with a doubling pause (RETRY_FIRST_S up to
    RETRY_MAX_S), one line when the database answers. False: asked to stop meanwhile."""
    lost = time.monotonic()
    logger.warning(
        "database unreachable (%s): waiting for it, retrying every %g s up to every %g s; "
        "a job in hand is claimable again when its lease ends",
        _reason(exc),
        RETRY_FIRST_S,
        RETRY_MAX_S,
        extra={"fields": {"event": "database_lost"}},
    )
    delay = RETRY_FIRST_S
    while _pause(delay, should_stop):
        if app.store.reachable(PROBE_S):
            down = time.monotonic() - lost
            logger.info(
                "database reachable again after %.0f s; the worker goes on",
                down,
                extra={"fields": {"event": "database_back", "outage_s": round(down, 1)}},
            )
            return True
        delay = min(delay * 2, RETRY_MAX_S)
    return False


def _reason(exc: BaseException) -> str:
    """What the driver said, its last line (no traceback), with the error's kind."""
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text.splitlines()[-1]}" if text else type(exc).__name__


def _synthesize(app: Context, echo: Callable[[str], None]) -> int:
    """The canonical statements pending synthesis, when LEGAL_AI_SYNTHESIZER is set (the worker
    keeps them from waiting for a person); a failure is reported and left for the next pass."""
    if not (app.settings.synthesizer or "").strip():
        return 0
    with app.store.connection() as conn:
        if not synthesis_store.pending(conn):
            return 0
    try:
        report = synthesis.synthesize(app)
    except AppError as exc:
        echo(f"canonical synthesis: {exc}")
        return 0
    echo(
        f"canonical synthesis: attempted {report['attempted']}, accepted {report['accepted']}, "
        f"abstained {report['abstained']}, drift rejected {report['drift_rejected']}"
    )
    return report["attempted"]


def _voice(app: Context, echo: Callable[[str], None]) -> int:
    """The voice documents of the cases the chair marked exemplary, when LEGAL_AI_VOICE_WRITER
    is set (knowledge/voice.py); a model that fails leaves its case queued for the next pass."""
    if not (app.settings.voice_writer or "").strip():
        return 0
    with app.store.connection() as conn:
        if not voice_store.queued(conn):
            return 0
    try:
        report = voice.run(app)
    except AppError as exc:
        echo(f"voice documents: {exc}")
        return 0
    note = report["missing"] or report["deferred"]  # what to set, or until when it waits
    echo(
        f"voice documents: written {len(report['written'])}, refused {len(report['refused'])}, "
        f"failed {len(report['failed'])}" + (f" — {note}" if note else "")
    )
    return len(report["written"]) + len(report["refused"])


def _scheduled(app: Context, worker: str, echo: Callable[[str], None]) -> int:
    """The scheduled jobs due now (ops/scheduler.py), run one after another; a failing job is
    recorded and retried later and never stops the worker."""
    return scheduler.worker_pass(app, worker=worker, echo=echo)


def _fingerprint(app: Context, echo: Callable[[str], None]) -> int:
    """The voice-fingerprint proposal the chair asked for on the desk
    (learning/lessons/proposal_review.py), when LEGAL_AI_DISTILLER is set; without it the request
    waits and her page says what to set."""
    if fingerprint_review.request_state(app)["requested"] is None:
        return 0
    engine = app.acting_as(system_principal("learning-engine"))
    try:
        model = configured(engine).distiller
    except AppError as exc:
        echo(f"voice fingerprint: {exc}")
        return 0
    if model is None:
        return 0
    result = fingerprint_review.run_requested(engine, model)
    if result is None:
        return 0
    if "failed" in result:
        echo(f"voice fingerprint: {result['failed']}")
    else:
        echo(f"voice fingerprint: proposal written to {result['markdown_path']}")
    return 1
