"""`legal-ai jobs ...`: the scheduled jobs (README "Running it as a service" →
"Scheduled jobs"): list them with their schedule, next run and last outcome, run one now, read
the recorded runs and the stale-case reminder list. `legal-ai worker` runs them on schedule."""

from __future__ import annotations

from typing import Annotated

import typer

from ..ops import scheduler as schedule
from ..ops.tasks import reminders as listed
from .common import JsonFlag, _app, _print_json, _system_app

jobs_app = typer.Typer(
    help="The scheduled jobs: list, run on demand, runs, reminders.", no_args_is_help=True
)


def _when(value: str | None) -> str:
    return value.replace("T", " ")[:16] if value else "-"


@jobs_app.command("list")
def list_(as_json: JsonFlag = False) -> None:
    """Each job with its schedule (cron, in Asia/Jerusalem), next run and last outcome."""
    with _app() as legal:
        result = schedule.list_jobs(legal)
    if as_json:
        _print_json(result)
        return
    for job in result["jobs"]:
        last = job["last_outcome"] or "never run"
        if job["last_outcome"]:
            last += f" at {_when(job['last_finished_at'])}"
        detail = job["last_error"] if job["last_outcome"] == "failed" else job["last_summary"]
        running = " [running now]" if job["running"] else ""
        typer.echo(
            f"{job['name']:<25} {job['cron']:<13} next {_when(job['next_run_at'])}  "
            f"last: {last}{running}" + (f" — {detail}" if detail else "")
        )
    typer.echo(f"(times in {result['timezone']}; `legal-ai worker` runs them when due)")


@jobs_app.command("run")
def run(
    name: Annotated[str, typer.Argument(help="The job, as `jobs list` names it.")],
    as_json: JsonFlag = False,
) -> None:
    """Run one job now, on demand (recorded as a manual run); exits 1 when it failed or another
    process is running it."""
    with _system_app() as legal:
        report = schedule.run_now(legal, name)
    if as_json:
        _print_json(report)
    else:
        typer.echo(schedule.run_line(report))
    if report["outcome"] in ("failed", "busy"):
        raise typer.Exit(1)


@jobs_app.command("runs")
def runs(
    name: Annotated[str | None, typer.Argument(help="One job (default: all).")] = None,
    limit: Annotated[int, typer.Option(help="How many, newest first.")] = 20,
    as_json: JsonFlag = False,
) -> None:
    """The recorded runs, newest first: trigger, slot, start, end, outcome, what it did."""
    with _app() as legal:
        result = schedule.runs(legal, name, limit)
    if as_json:
        _print_json(result)
        return
    for r in result["runs"]:
        slot = f"for {_when(r['scheduled_for'])}" if r["scheduled_for"] else "on demand"
        missed = f", caught up {r['missed']} missed" if r["missed"] else ""
        detail = r["error"] or (r["result"] or {}).get("summary") or ""
        typer.echo(
            f"#{r['id']} {r['name']} {slot}{missed}: {r['outcome']} "
            f"({_when(r['started_at'])} → {_when(r['finished_at'])}, by "
            f"{r['requested_by']})" + (f" — {detail}" if detail else "")
        )
    if not result["runs"]:
        typer.echo("no runs recorded")


@jobs_app.command("reminders")
def reminders(as_json: JsonFlag = False) -> None:
    """The stale-case reminder list: cases whose ledger has not moved for
    LEGAL_AI_STALE_CASE_DAYS (30) days, longest idle first."""
    with _app() as legal:
        result = listed(legal)
    if as_json:
        _print_json(result)
        return
    for case in result["cases"]:
        typer.echo(
            f"{case['case_number']}: idle {case['idle_days']} days ({case['status']}; "
            f"last moved {_when(case['last_moved_at'])})"
        )
    if not result["cases"]:
        typer.echo(f"no case idle {result['idle_days']}+ days")


def register(app: typer.Typer) -> None:
    app.add_typer(jobs_app, name="jobs")
