"""What the scheduled jobs do (schedule.py defines them and when they run). Each function takes
the Context acting as the agent `scheduler` and the scheduler's clock `now`, and returns what it did
as JSON values with a one-line `summary`; `skipped` (why) or `error` (what failed, the rest of
the result kept) set the run's outcome.

- `weekly_feedback_analysis`: the week's chair feedback by category and block
  (feedback.weekly_summary); every item that names a block or a category is proposed as a
  lesson, items that recur (same category and block) grouped into one, each proposal carrying
  her words verbatim as its evidence (learning/lessons/feedback_lessons.py: source `curator`, proposed,
  never approved; an item proposed once, ever); an item naming neither is said in the report;
  no feedback that week: skipped.
- `stale_case_reminder`: the cases whose ledger has not moved for LEGAL_AI_STALE_CASE_DAYS days
  (`reminders`, which the CLI, the API and the desk read too), POSTed as JSON to
  LEGAL_AI_REMINDER_WEBHOOK when set and the list is not empty.
- `sync_case_status`: each case's status (its pair's ledger status; `open` before our draft)
  reconciled into case_status; with LEGAL_AI_TRACKER_URL, the statuses the tracker has not been
  told are POSTed to it (bearer LEGAL_AI_TRACKER_TOKEN) and marked pushed once it accepts them.
- `nightly_upkeep` (ops/upkeep.py, importable from here as the scheduler reads it): re-index
  what is stale, resolve missing precedents, synthesize pending canonical statements, prune the
  logged searches and run the standing evaluation; each step runs even when an earlier one
  failed.
- `nightly_backup` (ops/backups.py): a backup into LEGAL_AI_BACKUP_DIR, proven by a restore into
  a scratch database, the newest LEGAL_AI_BACKUP_KEEP kept.

The JSON is POSTed by ops/webhooks.py.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any

from ..errors import AppError, Scrubber
from ..learning.lessons import feedback, feedback_lessons
from ..paging import Page, cut
from ..store import schedule as store
from .backups import nightly_backup as nightly_backup
from .cron import schedule_zone
from .upkeep import nightly_upkeep as nightly_upkeep
from .webhooks import post_json

if TYPE_CHECKING:
    from ..context import Context

STATUS_HE = {
    "open": "טרם נכתבה טיוטה",
    "draft_done": "הטיוטה נכתבה, ממתין להחלטה הסופית",
    "final_received": "התקבלה ההחלטה הסופית",
    "analyzed": "נותח, ממתין לקיפול הלקחים",
    "lessons_folded": "הושלם",
}


# -- weekly-feedback-analysis -------------------------------------------------------------------


def weekly_feedback_analysis(app: Context, now: dt.datetime) -> dict:
    """The week's feedback by category and block, and a lesson proposed from every item of it
    that names a block or a category and was not proposed from before (grouped when they recur;
    learning/lessons/feedback_lessons.py), run as the system's worker whoever asked."""
    summary = feedback.weekly_summary(app, days=7, now=now)
    if not summary["total"]:
        return {
            "skipped": "no chair feedback this week",
            "total": 0,
            "since": summary["since"],
            "until": summary["until"],
            "summary": "no chair feedback this week",
        }
    since = dt.datetime.fromisoformat(summary["since"])
    until = dt.datetime.fromisoformat(summary["until"])
    done = feedback_lessons.propose(app, since, until, schedule_zone(app))
    proposed, unnamed = done["proposed"], done["not_proposed"]
    new = sum(p["created"] for p in proposed)
    said = [
        f"{summary['total']} feedback item(s) this week",
        f"{len(proposed)} proposal(s) to the chair ({new} new lesson(s))",
    ]
    if unnamed:
        said.append(f"{len(unnamed)} item(s) not proposed: {feedback_lessons.UNNAMED}")
    if done["already_proposed"]:
        said.append(f"{len(done['already_proposed'])} item(s) proposed from before")
    return {
        "since": summary["since"],
        "until": summary["until"],
        "total": summary["total"],
        "by_category": summary["by_category"],
        "by_block": summary["by_block"],
        "groups": [{k: g[k] for k in ("category", "block", "count")} for g in summary["groups"]],
        "proposed_lessons": proposed,
        "not_proposed": unnamed,
        "already_proposed": done["already_proposed"],
        "summary": "; ".join(said),
    }


# -- stale-case-reminder ------------------------------------------------------------------------


def reminders(app: Context, now: dt.datetime | None = None, page: Page | None = None) -> dict:
    """The cases whose ledger has not moved for LEGAL_AI_STALE_CASE_DAYS days as of `now`
    (longest idle first), with when the reminder job last ran. `page`: one page of the cases
    with its `page` object (paging.py); `count` stays the number of every idle case."""
    now = now or dt.datetime.now(dt.UTC)
    days = app.settings.stale_case_days
    with app.store.connection() as conn:
        rows = store.idle_cases(conn, now - dt.timedelta(days=days))
        last = store.last_run(conn, "stale-case-reminder")
    cases = [
        {
            "case_number": r["case_number"],
            "title": r["title"],
            "appeal_type": r["appeal_type"],
            "status": r["status"],
            "status_he": STATUS_HE[r["status"]],
            "last_moved_at": r["last_moved_at"].isoformat(),
            "idle_days": (now - r["last_moved_at"]).days,
        }
        for r in rows
    ]
    count = len(cases)
    cases, info = cut(page, cases)
    return {
        "as_of": now.isoformat(),
        "idle_days": days,
        "count": count,
        "cases": cases,
        **info,
        "last_run": {
            "finished_at": last["last_finished_at"].isoformat()
            if last and last["last_finished_at"]
            else None,
            "outcome": last["last_outcome"] if last else None,
            "error": Scrubber.of(app.settings)(last["last_error"])
            if last and last["last_error"]
            else None,
        },
    }


def stale_case_reminder(app: Context, now: dt.datetime) -> dict:
    listed = reminders(app, now)
    result = {
        "idle_days": listed["idle_days"],
        "count": listed["count"],
        "cases": listed["cases"],
        "webhook": None,
    }
    result["summary"] = f"{listed['count']} case(s) idle {listed['idle_days']}+ days"
    url = app.settings.reminder_webhook
    if url and listed["cases"]:
        payload = {
            "event": "stale-case-reminder",
            "as_of": listed["as_of"],
            "idle_days": listed["idle_days"],
            "cases": listed["cases"],
        }
        try:
            status = post_json(url, payload, what="LEGAL_AI_REMINDER_WEBHOOK")
        except AppError as exc:
            return {**result, "webhook": {"sent": False}, "error": str(exc)}
        result["webhook"] = {"sent": True, "status": status}
        result["summary"] += "; sent to the webhook"
    return result


# -- sync-case-status ---------------------------------------------------------------------------


def sync_case_status(app: Context, now: dt.datetime) -> dict:
    with app.store.transaction() as conn:
        rows = store.ledger_statuses(conn)
        changed = [r for r in rows if r["ledger"] != r["recorded"]]
        for r in changed:
            store.set_status(conn, r["case_number"], r["ledger"], now)
    result: dict[str, Any] = {
        "cases": len(rows),
        "changed": [
            {"case_number": r["case_number"], "from": r["recorded"], "to": r["ledger"]}
            for r in changed
        ],
        "pushed": 0,
        "tracker": bool(app.settings.tracker_url),
    }
    result["summary"] = f"{len(rows)} case(s), {len(changed)} status change(s)"
    url = app.settings.tracker_url
    if not url:
        return result
    with app.store.connection() as conn:
        pending = store.unpushed(conn)
    if not pending:
        result["summary"] += "; nothing new for the tracker"
        return result
    payload = {
        "source": "legal-ai",
        "as_of": now.isoformat(),
        "changes": [
            {
                "case_number": r["case_number"],
                "status": r["status"],
                "previous": r["pushed_status"],
                "changed_at": r["changed_at"].isoformat(),
            }
            for r in pending
        ],
    }
    try:
        post_json(url, payload, what="LEGAL_AI_TRACKER_URL", token=app.settings.tracker_token)
    except AppError as exc:
        result["summary"] += f"; {len(pending)} change(s) not pushed"
        return {**result, "unpushed": len(pending), "error": str(exc)}
    with app.store.transaction() as conn:
        result["pushed"] = store.mark_pushed(conn, pending, now)
    result["summary"] += f"; {result['pushed']} pushed to the tracker"
    return result
