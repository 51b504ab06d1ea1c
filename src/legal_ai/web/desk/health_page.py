"""/health: the system's health for the chair, in plain Hebrew — is the background work
running (ops/alarms.py, the banner's own finding), when the last backup was proven
(ops/backups.health), what work waits or stopped (jobqueue.open_work), and what to tell
whoever runs the server, in sentences she can pass on. The maintainer's page (searchability,
embeddings, isolation, OCR, the jobs' errors) is one link away: /health/technical (pages.py)."""

from typing import Any

from markupsafe import Markup

from ...jobqueue import open_work
from ...ops import backups
from ...ops.cron import schedule_zone
from . import labels


def _names(jobs: list[str]) -> str:
    return ", ".join(labels.label(j, "job") for j in jobs)


def _at(value: Any) -> Markup:
    """A moment on Israel's clock, kept on one line."""
    return Markup('<span class="when"><bdi>{}</bdi></span>').format(labels.when(value))


def state(view: Any, alarm: dict | None) -> dict:
    """Her page's sections: {running, backup, work, tell} — each problem a Hebrew sentence,
    `tell` the ones to pass on to whoever runs the server (empty: nothing to tell)."""
    with view.store.connection() as conn:
        backup = backups.health(conn, schedule_zone(view))
    work = open_work(view)
    alarm = alarm or {}
    stopped = []
    if alarm.get("failed"):
        stopped.append(Markup("נכשלה בריצתה האחרונה: {}").format(_names(alarm["failed"])))
    if alarm.get("overdue"):
        stopped.append(Markup("לא רצה בזמן: {}").format(_names(alarm["overdue"])))
    run, proven = backup["last_run"], backup["last_proven"]
    backup_problem = None
    if run and run["outcome"] == "failed":
        backup_problem = Markup("{} ({})").format(
            "הגיבוי נכתב אך שחזורו לבדיקה נכשל"
            if run["step"] == "proof"
            else "הגיבוי הלילי האחרון נכשל",
            _at(run["at"]),
        )
    elif alarm.get("backup") == "never":
        backup_problem = Markup("טרם נלקח גיבוי שנבדק ושוחזר בהצלחה")
    elif alarm.get("backup") == "stale":
        backup_problem = Markup("הגיבוי האחרון שנבדק ישן מיממה ({})").format(_at(proven["at"]))
    failed_work = [w for w in work if w["failed"]]
    tell = [*stopped]
    if backup_problem:
        tell.append(backup_problem)
    tell += [
        Markup("{} — משימות שנכשלו בשבוע האחרון: <bdi>{}</bdi>").format(
            labels.label(w["kind"], "work_kind"), w["failed"]
        )
        for w in failed_work
    ]
    return {
        "stopped": stopped,
        "backup": backup,
        "backup_problem": backup_problem,
        "work": [w for w in work if w["queued"] or w["waiting"] or w["failed"]],
        "tell": tell,
    }
