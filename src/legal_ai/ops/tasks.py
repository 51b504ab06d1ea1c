"""What the scheduled jobs do (schedule.py defines them and when they run). Each function takes
the App acting as the agent `scheduler` and the scheduler's clock `now`, and returns what it did
as JSON values with a one-line `summary`; `skipped` (why) or `error` (what failed, the rest of
the result kept) set the run's outcome.

- `weekly_feedback_analysis`: the week's chair feedback by category and block
  (feedback.weekly_summary); feedback that recurs (same category and block, twice or more) is
  proposed as a lesson through the lessons' gate (lessons.propose, source `curator`, as the
  agent: proposed, never approved); no feedback that week: skipped.
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
from ..learning import feedback, lessons
from ..paging import Page, cut
from ..store import schedule as store
from ..text.blocks import BLOCK_LABELS
from .backups import nightly_backup as nightly_backup
from .cron import schedule_zone
from .upkeep import nightly_upkeep as nightly_upkeep
from .webhooks import post_json

if TYPE_CHECKING:
    from ..app import App

MAX_EXAMPLE_CHARS = 300

# The lesson category a recurring feedback category is proposed under. Content, facts and what
# cannot be told are substance: only the chair approves those (the database's gate).
LESSON_CATEGORY = {
    "style": "style",
    "wrong_tone": "style",
    "wrong_structure": "structure",
    "missing_content": "lessons_document",
    "factual_error": "fact",
    "other": "lessons_document",
}
FEEDBACK_HE = feedback.CATEGORY_LABELS
STATUS_HE = {
    "open": "טרם נכתבה טיוטה",
    "draft_done": "הטיוטה נכתבה, ממתין להחלטה הסופית",
    "final_received": "התקבלה ההחלטה הסופית",
    "analyzed": "נותח, ממתין לקיפול הלקחים",
    "lessons_folded": "הושלם",
}


# -- weekly-feedback-analysis -------------------------------------------------------------------


def _lesson_text(group: dict, since: dt.datetime, until: dt.datetime) -> str:
    where = f' בבלוק "{BLOCK_LABELS.get(group["block"], group["block"])}"' if group["block"] else ""
    examples = "; ".join(
        f"«{e if len(e) <= MAX_EXAMPLE_CHARS else e[:MAX_EXAMPLE_CHARS] + '…'}»"
        for e in group["examples"]
    )
    return (
        f"{_feedback_source(group)} ({group['count']} פעמים בשבוע "
        f"{since:%d.%m}–{until:%d.%m.%Y}): "
        f"{FEEDBACK_HE.get(group['category'], group['category'])}{where}. "
        f"דוגמאות: {examples}"
    )


def _feedback_source(group: dict) -> str:
    """Whose recurring feedback it is: the chair's own, relayed by agents, or both (an agent's
    entry is never presented as hers)."""
    agents = ", ".join(a.removeprefix("agent:") for a in group.get("relayed_by") or [])
    own = group.get("from_chair", group["count"])
    if own == group["count"]:
        return 'משוב חוזר של היו"ר'
    if own == 0:
        return f'משוב חוזר שהעבירו סוכנים ({agents}), לא נכתב בידי היו"ר'
    return f'משוב חוזר: {own} מהיו"ר, {group["count"] - own} שהעבירו סוכנים ({agents})'


def weekly_feedback_analysis(app: App, now: dt.datetime) -> dict:
    summary = feedback.weekly_summary(app, days=7, now=now)
    if not summary["total"]:
        return {
            "skipped": "no chair feedback this week",
            "total": 0,
            "since": summary["since"],
            "until": summary["until"],
            "summary": "no chair feedback this week",
        }
    since = dt.datetime.fromisoformat(summary["since"]).astimezone(schedule_zone(app))
    until = dt.datetime.fromisoformat(summary["until"]).astimezone(schedule_zone(app))
    proposed = []
    for group in summary["groups"]:
        if group["count"] < 2:
            continue
        category = LESSON_CATEGORY[group["category"]]
        row = lessons.propose(
            app,
            None,
            category,
            _lesson_text(group, since, until),
            source="curator",
            block=group["block"],
        )
        proposed.append(
            {
                "lesson_id": row["id"],
                "created": row["created"],
                "review_status": row["review_status"],
                "category": category,
                "feedback_category": group["category"],
                "block": group["block"],
                "count": group["count"],
                "feedback_ids": group["feedback_ids"],
            }
        )
    new = sum(p["created"] for p in proposed)
    return {
        "since": summary["since"],
        "until": summary["until"],
        "total": summary["total"],
        "by_category": summary["by_category"],
        "by_block": summary["by_block"],
        "groups": [{k: g[k] for k in ("category", "block", "count")} for g in summary["groups"]],
        "proposed_lessons": proposed,
        "summary": f"{summary['total']} feedback item(s) this week; {len(proposed)} recurring, "
        f"{new} lesson(s) proposed to the chair",
    }


# -- stale-case-reminder ------------------------------------------------------------------------


def reminders(app: App, now: dt.datetime | None = None, page: Page | None = None) -> dict:
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


def stale_case_reminder(app: App, now: dt.datetime) -> dict:
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


def sync_case_status(app: App, now: dt.datetime) -> dict:
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
