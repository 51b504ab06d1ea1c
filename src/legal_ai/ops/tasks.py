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
- `nightly_upkeep`: re-index what is stale (App.reindex), resolve missing precedents and digest
  pointers (learning/arrival.resolve_all; learning/finals.link_library where that is absent),
  synthesize pending canonical statements (LEGAL_AI_SYNTHESIZER), delete the logged searches
  past their retention (telemetry.prune), and run the standing evaluation on the gold sets of
  LEGAL_AI_STANDING_EVAL, recording hybrid nDCG@10 per day; each step runs even when an earlier
  one failed.
"""

from __future__ import annotations

import datetime as dt
import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

from ..errors import AppError, InvalidInput, ProviderError, Scrubber
from ..evaluation.datasets import load_dataset
from ..evaluation.harness import evaluate, sample_corpus, sample_queries
from ..ingest import ocr_jobs
from ..knowledge import exemplars
from ..learning import copy_policy, feedback, lessons, synthesis
from ..learning.arrival import resolve_all
from ..paging import Page, cut
from ..store import schedule as store
from ..store import synthesis as synthesis_store
from ..telemetry import prune
from ..text.blocks import BLOCK_LABELS

if TYPE_CHECKING:
    from ..app import App

POST_TIMEOUT_S = 10.0
EVAL_TOLERANCE = 0.01  # as the CI gate's (evaluation/baseline.py)
EVAL_WINDOW_DAYS = 30  # a day's nDCG@10 is compared with the best of the 30 days before it
MAX_EXAMPLE_CHARS = 300

# The lesson category a recurring feedback category is proposed under. Content, facts and what
# cannot be told are substance: only the chair approves those (the database's gate).
LESSON_CATEGORY = {"style": "style", "wrong_tone": "style", "wrong_structure": "structure",
                   "missing_content": "lessons_document", "factual_error": "fact",
                   "other": "lessons_document"}  # fmt: skip
FEEDBACK_HE = {"missing_content": "תוכן חסר", "wrong_tone": "טון שגוי",
               "wrong_structure": "מבנה שגוי", "factual_error": "טעות עובדתית",
               "style": "סגנון", "other": "אחר"}  # fmt: skip
STATUS_HE = {"open": "טרם נכתבה טיוטה", "draft_done": "הטיוטה נכתבה, ממתין להחלטה הסופית",
             "final_received": "התקבלה ההחלטה הסופית", "analyzed": "נותח, ממתין לקיפול הלקחים",
             "lessons_folded": "הושלם"}  # fmt: skip


def _tz(app: App) -> ZoneInfo:
    return ZoneInfo(app.settings.schedule_timezone)


# -- posting JSON -------------------------------------------------------------------------------


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Follow no redirect: a 3xx stays the answer (urllib then raises it as an HTTPError), so
    the body and the bearer token never go to an address the operator did not set."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


_OPENER = urllib.request.build_opener(_NoRedirect)


def _origin(url: str) -> str:
    """scheme://host[:port] of `url` (no credentials, path or query), for a message."""
    parts = urlsplit(url or "")
    try:
        port = parts.port
    except ValueError:
        port = None
    return f"{parts.scheme}://{parts.hostname or '?'}" + (f":{port}" if port else "")


def post_json(url: str, payload: Any, *, what: str, token: str | None = None,
              timeout: float = POST_TIMEOUT_S) -> int:  # fmt: skip
    """POST `payload` as JSON to `url` (http or https only); the HTTP status when 2xx, else
    ProviderError saying what answered how (the URL's query and credentials left out).
    Redirects are never followed (a 3xx is a failure naming the host, the status and where it
    pointed), so the token goes to `url`'s host and nowhere else."""
    parts = urlsplit(url or "")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InvalidInput(f"{what} must be an http(s) URL")
    shown = _origin(url)
    body = json.dumps(payload, ensure_ascii=False, default=str).encode("utf-8")
    request = urllib.request.Request(url, data=body, method="POST", headers={
        "Content-Type": "application/json; charset=utf-8", "User-Agent": "legal-ai"})  # fmt: skip
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with _OPENER.open(request, timeout=timeout) as response:  # http(s) only: checked above
            return response.status
    except urllib.error.HTTPError as exc:
        exc.close()
        if 300 <= exc.code < 400:
            location = exc.headers.get("Location") if exc.headers else None
            to = f" to {_origin(location)}" if location and urlsplit(location).hostname else ""
            raise ProviderError(
                f"{what} ({shown}) answered HTTP {exc.code}, a redirect{to}: redirects are not "
                f"followed (nothing was sent there); set {what} to the final address"
            ) from None
        raise ProviderError(f"{what} ({shown}) answered HTTP {exc.code}") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise ProviderError(f"{what} ({shown}) could not be reached: {reason}") from None


# -- weekly-feedback-analysis -------------------------------------------------------------------


def _lesson_text(group: dict, since: dt.datetime, until: dt.datetime) -> str:
    where = f' בבלוק "{BLOCK_LABELS.get(group["block"], group["block"])}"' if group["block"] else ""
    examples = "; ".join(
        f"«{e if len(e) <= MAX_EXAMPLE_CHARS else e[:MAX_EXAMPLE_CHARS] + '…'}»"
        for e in group["examples"]
    )  # fmt: skip
    return (f"{_feedback_source(group)} ({group['count']} פעמים בשבוע "
            f"{since:%d.%m}–{until:%d.%m.%Y}): "
            f"{FEEDBACK_HE.get(group['category'], group['category'])}{where}. "
            f"דוגמאות: {examples}")  # fmt: skip


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
        return {"skipped": "no chair feedback this week", "total": 0,
                "since": summary["since"], "until": summary["until"],
                "summary": "no chair feedback this week"}  # fmt: skip
    since = dt.datetime.fromisoformat(summary["since"]).astimezone(_tz(app))
    until = dt.datetime.fromisoformat(summary["until"]).astimezone(_tz(app))
    proposed = []
    for group in summary["groups"]:
        if group["count"] < 2:
            continue
        category = LESSON_CATEGORY[group["category"]]
        row = lessons.propose(app, None, category, _lesson_text(group, since, until),
                              source="curator", block=group["block"])  # fmt: skip
        proposed.append({"lesson_id": row["id"], "created": row["created"],
                         "review_status": row["review_status"], "category": category,
                         "feedback_category": group["category"], "block": group["block"],
                         "count": group["count"], "feedback_ids": group["feedback_ids"]})  # fmt: skip
    new = sum(p["created"] for p in proposed)
    return {
        "since": summary["since"], "until": summary["until"], "total": summary["total"],
        "by_category": summary["by_category"], "by_block": summary["by_block"],
        "groups": [{k: g[k] for k in ("category", "block", "count")} for g in summary["groups"]],
        "proposed_lessons": proposed,
        "summary": f"{summary['total']} feedback item(s) this week; {len(proposed)} recurring, "
                   f"{new} lesson(s) proposed to the chair",
    }  # fmt: skip


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
    cases = [{"case_number": r["case_number"], "title": r["title"],
              "appeal_type": r["appeal_type"], "status": r["status"],
              "status_he": STATUS_HE[r["status"]], "last_moved_at": r["last_moved_at"].isoformat(),
              "idle_days": (now - r["last_moved_at"]).days} for r in rows]  # fmt: skip
    count = len(cases)
    cases, info = cut(page, cases)
    return {
        "as_of": now.isoformat(), "idle_days": days, "count": count, "cases": cases, **info,
        "last_run": {"finished_at": last["last_finished_at"].isoformat()
                     if last and last["last_finished_at"] else None,
                     "outcome": last["last_outcome"] if last else None,
                     "error": Scrubber.of(app.settings)(last["last_error"])
                     if last and last["last_error"] else None},
    }  # fmt: skip


def stale_case_reminder(app: App, now: dt.datetime) -> dict:
    listed = reminders(app, now)
    result = {"idle_days": listed["idle_days"], "count": listed["count"],
              "cases": listed["cases"], "webhook": None}  # fmt: skip
    result["summary"] = f"{listed['count']} case(s) idle {listed['idle_days']}+ days"
    url = app.settings.reminder_webhook
    if url and listed["cases"]:
        payload = {"event": "stale-case-reminder", "as_of": listed["as_of"],
                   "idle_days": listed["idle_days"], "cases": listed["cases"]}  # fmt: skip
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
        "changed": [{"case_number": r["case_number"], "from": r["recorded"], "to": r["ledger"]}
                    for r in changed],  # fmt: skip
        "pushed": 0, "tracker": bool(app.settings.tracker_url),
    }  # fmt: skip
    result["summary"] = f"{len(rows)} case(s), {len(changed)} status change(s)"
    url = app.settings.tracker_url
    if not url:
        return result
    with app.store.connection() as conn:
        pending = store.unpushed(conn)
    if not pending:
        result["summary"] += "; nothing new for the tracker"
        return result
    payload = {"source": "legal-ai", "as_of": now.isoformat(), "changes": [
        {"case_number": r["case_number"], "status": r["status"],
         "previous": r["pushed_status"], "changed_at": r["changed_at"].isoformat()}
        for r in pending]}  # fmt: skip
    try:
        post_json(url, payload, what="LEGAL_AI_TRACKER_URL", token=app.settings.tracker_token)
    except AppError as exc:
        result["summary"] += f"; {len(pending)} change(s) not pushed"
        return {**result, "unpushed": len(pending), "error": str(exc)}
    with app.store.transaction() as conn:
        result["pushed"] = store.mark_pushed(conn, pending, now)
    result["summary"] += f"; {result['pushed']} pushed to the tracker"
    return result


# -- nightly-upkeep -----------------------------------------------------------------------------


def _resolve(app: App) -> dict:
    """Missing precedents and digest pointers: arrival's resolver (issue 15 item 3)."""
    return resolve_all(app)


def _synthesize(app: App) -> dict:
    if not (app.settings.synthesizer or "").strip():
        return {"skipped": "LEGAL_AI_SYNTHESIZER is not set"}
    with app.store.connection() as conn:
        if not synthesis_store.pending(conn):
            return {"attempted": 0}
    return synthesis.synthesize(app)


def _cut_finals(app: App) -> dict:
    """The chair's finals not yet cut into block exemplars (stored before migration 0018, or
    their text or the analyzer changed), cut and embedded; the templates measured again when
    the finals changed (knowledge/exemplars.refresh, as `legal-ai exemplars --refresh`)."""
    return exemplars.refresh(app)


def _take_fingerprints(app: App) -> dict:
    """The copy check's fingerprints of the finals and decisions that lack them (after the
    upgrade: all), taken here rather than inside the next draft's transaction."""
    with app.store.transaction() as conn:
        return {"taken": copy_policy.refresh_fingerprints(conn)}


def _queue_stored_scans(app: App) -> dict:
    return ocr_jobs.queue_stored(app)


def _prune_telemetry(app: App, now: dt.datetime) -> dict:
    """Searches logged longer ago than LEGAL_AI_TELEMETRY_RETENTION_DAYS (telemetry.prune)."""
    return prune(app, now)


def load_manifest(path: Path) -> list[dict]:
    """The gold sets of a standing-evaluation manifest: {"sets": [{"name", "corpus", "queries",
    "qrels", optional "fields", "sample_queries", "sample_docs"}]}, paths relative to the
    manifest's folder."""
    try:
        manifest = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise InvalidInput(f"LEGAL_AI_STANDING_EVAL: cannot read {path} ({exc})") from None
    sets = manifest.get("sets") if isinstance(manifest, dict) else None
    if not isinstance(sets, list) or not sets:
        raise InvalidInput(f'LEGAL_AI_STANDING_EVAL: {path} lists no gold sets under "sets"')
    base = Path(path).parent
    out = []
    for entry in sets:
        if not isinstance(entry, dict) or not all(
            isinstance(entry.get(k), str) and entry[k] for k in ("name", "corpus", "queries", "qrels")
        ):  # fmt: skip
            raise InvalidInput(f"LEGAL_AI_STANDING_EVAL: {path}: each set needs a name, corpus, "
                               "queries and qrels")  # fmt: skip
        out.append({**entry, **{k: (base / entry[k]).resolve()
                                for k in ("corpus", "queries", "qrels")}})  # fmt: skip
    return out


def standing_eval(app: App, now: dt.datetime) -> dict:
    """Run the manifest's gold sets (hybrid mode, the CI gate's slices) and record each set's
    nDCG@10 for today (in the schedule's time zone); sets whose files are absent are skipped
    and said. Returns the day, each set's figures and the drops beyond the tolerance."""
    if app.settings.standing_eval is None:
        return {"skipped": "LEGAL_AI_STANDING_EVAL is not set (e.g. eval/standing.json)"}
    day = now.astimezone(_tz(app)).date()
    sets = []
    for entry in load_manifest(app.settings.standing_eval):
        absent = [str(entry[k]) for k in ("corpus", "queries", "qrels") if not entry[k].is_file()]
        if absent:
            sets.append({"name": entry["name"], "skipped": f"absent: {', '.join(absent)}"})
            continue
        fields = tuple(entry["fields"]) if entry.get("fields") else None
        dataset = load_dataset(entry["corpus"], entry["queries"], entry["qrels"], fields=fields,
                               name=entry["name"])  # fmt: skip
        if entry.get("sample_queries"):
            dataset = sample_queries(dataset, int(entry["sample_queries"]))
        if entry.get("sample_docs"):
            dataset = sample_corpus(dataset, int(entry["sample_docs"]))
        report = evaluate(app.settings, dataset, modes=("hybrid",))
        hybrid = report["modes"]["hybrid"]
        with app.store.transaction() as conn:
            store.record_eval(conn, {
                "dataset": entry["name"], "day": day, "fingerprint": dataset.fingerprint,
                "ndcg_at_10": hybrid["ndcg@10"], "recall_at_100": hybrid.get("recall@100"),
                "n_queries": report["n_queries"], "n_docs": report["n_docs"],
                "config": report.get("config") or {}, "recorded_at": now,
            })  # fmt: skip
        sets.append({"name": entry["name"], "ndcg@10": hybrid["ndcg@10"],
                     "recall@100": hybrid.get("recall@100"), "n_queries": report["n_queries"],
                     "n_docs": report["n_docs"]})  # fmt: skip
    with app.store.connection() as conn:
        drops = [dict(r) for r in store.eval_drops(conn, EVAL_TOLERANCE, EVAL_WINDOW_DAYS)]
    return {"day": day.isoformat(), "sets": sets, "drops": drops, "tolerance": EVAL_TOLERANCE}


def nightly_upkeep(app: App, now: dt.datetime) -> dict:
    steps: dict[str, Any] = {}
    errors = []
    for name, step in (("reindex", lambda: app.reindex()), ("resolve", lambda: _resolve(app)),
                       ("synthesis", lambda: _synthesize(app)),
                       ("scans", lambda: _queue_stored_scans(app)),
                       ("exemplars", lambda: _cut_finals(app)),
                       ("fingerprints", lambda: _take_fingerprints(app)),
                       ("telemetry", lambda: _prune_telemetry(app, now)),
                       ("standing_eval", lambda: standing_eval(app, now))):  # fmt: skip
        try:
            steps[name] = step()
        except AppError as exc:
            steps[name] = {"error": str(exc)}
            errors.append(f"{name}: {exc}")
        except Exception as exc:  # one step's bug or outage: the other steps still run
            steps[name] = {"error": f"{type(exc).__name__}: {exc}"}
            errors.append(f"{name}: internal error ({type(exc).__name__}: {exc})")
    reindex = steps["reindex"]
    parts = []
    if "error" not in reindex:
        parts.append(f"re-embedded {reindex['reembedded']}, re-analyzed {reindex['reanalyzed']}")
    resolved = steps["resolve"]
    if "error" not in resolved:
        parts.append(f"{resolved.get('precedents_resolved', 0)} precedent(s) resolved")
    cut = steps["exemplars"]
    if cut.get("finals_cut"):
        parts.append(f"{cut['finals_cut']} final(s) cut into block exemplars")
    if steps["fingerprints"].get("taken"):
        parts.append(f"{steps['fingerprints']['taken']} text(s) cut for the copy check")
    scans = steps["scans"]
    if scans.get("queued"):
        parts.append(f"{len(scans['queued'])} stored scan(s) queued for OCR")
    if scans.get("not_found"):
        parts.append(f"{scans['not_found']} stored scan(s) without their file (ingest again)")
    if steps["telemetry"].get("deleted"):
        parts.append(f"{steps['telemetry']['deleted']} logged search(es) past retention deleted")
    synthesized = steps["synthesis"]
    if "attempted" in synthesized:
        parts.append(f"{synthesized['attempted']} canonical statement(s) synthesized")
    evaluated = steps["standing_eval"]
    for s in evaluated.get("sets") or []:
        if "ndcg@10" in s:
            parts.append(f"{s['name']} nDCG@10 {s['ndcg@10']:.4f}")
    for d in evaluated.get("drops") or []:
        parts.append(f"{d['dataset']} dropped {d['drop']:.4f}")
    result: dict[str, Any] = {"steps": steps, "summary": "; ".join(parts) or "nothing to do"}
    if errors:
        result["error"] = "; ".join(errors)
    return result
