"""Scheduled jobs (docs/deployment.md "Scheduled jobs") and the reminders.

Jobs are operations: they propose, reconcile and re-index, and run as the agent `scheduler`
whoever asks. Running one on demand is the chair's (403 for an agent), and it is handed to the
worker (scheduler.request_run): nothing runs in the request."""

from typing import Annotated, Any

from fastapi import APIRouter, Depends

from ...errors import Conflict
from ...ops import scheduler
from ...ops.tasks import reminders as listed
from ..deps import Acting, Limit, Offset, Paged, chair

router = APIRouter()


@router.get("/api/jobs")
def list_jobs(view: Acting) -> dict:
    return dict(scheduler.list_jobs(view))


@router.post("/api/jobs/{name}/run", status_code=202)
def run_job(name: str, view: Annotated[Any, Depends(chair("running a scheduled job"))]) -> dict:
    report = scheduler.request_run(view, name)
    if report["outcome"] == "busy":
        raise Conflict(report["note"])
    return report


@router.get("/api/jobs/runs")
def job_runs(view: Acting, name: str | None = None, limit: Limit = 20, offset: Offset = 0) -> dict:
    return scheduler.runs(view, name, limit, offset)


@router.get("/api/reminders")
def reminders(view: Acting, paged: Paged) -> dict:
    return listed(view, page=paged)
