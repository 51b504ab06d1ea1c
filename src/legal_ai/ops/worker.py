"""The worker loop (`legal-ai worker`): one process that drains every job kind in turn — the
learning stage of uploaded finals (learning/jobs.py), scans read by OCR (ingest/ocr_jobs.py),
the principles of rulings that arrived (learning/principle_jobs.py), the enrichment of internal
decisions (learning/enrichment.py), canonical synthesis, voice documents — and then the
scheduled jobs that are due (ops/scheduler.py). The model stages run as the system's own
principals (auth.system_principal), never as a request's."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping

from ..app import App
from ..errors import AppError
from ..ingest import ocr_jobs
from ..jobqueue import worker_id
from ..knowledge import curator, voice
from ..learning import distill, enrichment, panel, principle_jobs, synthesis
from ..learning import jobs as learning_jobs
from ..learning.jobs import Stages
from ..store import synthesis as synthesis_store
from ..store import voice as voice_store
from . import scheduler

# The learning job's stages (learning/jobs.py runs them in order; tests pass their own).
STAGES = Stages(distill=distill.distill, vote=panel.vote, curate=curator.curate)


def work(
    app: App,
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
    `once`, after one pass. Returns how many jobs it settled."""
    worker = worker_id()
    echo(f"worker {worker}: started")
    settled = 0
    while True:
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
        # Then the scheduled jobs that are due (ops/scheduler.py: each once, one process at a time).
        settled += _scheduled(app, worker, echo)
        if once or should_stop():
            break
        deadline = time.monotonic() + poll
        while time.monotonic() < deadline and not should_stop():
            time.sleep(min(0.2, poll))
        if should_stop():
            break
    waiting = [
        p
        for p in report["pending"] + extracted["pending"] + scanned["pending"]
        if p["status"] == "waiting"
    ]
    if waiting:
        echo(f"{len(waiting)} job(s) waiting: {waiting[0]['reason']}")
    echo(f"worker {worker}: stopped after {settled} job(s)")
    return settled


def _synthesize(app: App, echo: Callable[[str], None]) -> int:
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


def _voice(app: App, echo: Callable[[str], None]) -> int:
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


def _scheduled(app: App, worker: str, echo: Callable[[str], None]) -> int:
    """The scheduled jobs due now (ops/scheduler.py), run one after another; a failing job is
    recorded and retried later and never stops the worker."""
    return scheduler.worker_pass(app, worker=worker, echo=echo)
