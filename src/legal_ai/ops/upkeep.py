"""The scheduled job `nightly-upkeep` (ops/tasks.py has the others; ops/scheduler.py says when
they run): re-index what is stale (`reindex`, as `legal-ai reindex`), resolve missing precedents and digest pointers
(learning/arrival/upkeep.resolve_all; learning/library/links.link_library where that is absent), synthesize
pending canonical statements (LEGAL_AI_SYNTHESIZER), cut the finals into block exemplars, take
the copy check's fingerprints, queue stored scans for OCR, delete the logged searches past their
retention (telemetry.prune), and run the standing evaluation on the gold sets of
LEGAL_AI_STANDING_EVAL and on the office's own set from the chair's citations
(learning/pairs/gold_set.py), recording hybrid nDCG@10 per day; each step runs even when an earlier
one failed."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from ..context import Context
from ..errors import AppError, InvalidInput
from ..evaluation.datasets import load_dataset
from ..evaluation.harness import evaluate, sample_corpus, sample_queries
from ..ingest import ocr_jobs
from ..ingest import reindex as reindexing
from ..knowledge import exemplars
from ..learning.arrival import resolve_all
from ..learning.checks import shingles
from ..learning.pairs import gold_set
from ..learning.principles import spans as principle_spans
from ..learning.principles import synthesis
from ..progress import QUIET, Progress
from ..store import gold as gold_store
from ..store import schedule as store
from ..store import synthesis as synthesis_store
from ..telemetry import prune
from .cron import schedule_zone

EVAL_TOLERANCE = 0.01  # as the CI gate's (evaluation/baseline.py)
EVAL_WINDOW_DAYS = 30  # a day's nDCG@10 is compared with the best of the 30 days before it


class AppReindex(reindexing.ReindexAnswer):
    """`legal-ai reindex --json` (App.reindex): the re-index's answer, with the finals cut again
    and the principles whose span was found again or returned to the chair."""

    exemplars_recut: list[str]
    principle_spans: dict


def reindex(ctx: Context, batch: int = 64, *, progress: Progress = QUIET) -> AppReindex:
    """What changed re-embedded and re-analyzed (ingest/reindex.py), then the principles
    whose span or rule changed outside the gate: spans found again, or returned to the
    chair (`principle_spans`: learning/principles/spans.repair). Her finals whose paragraphs
    changed outside their cut are cut again first (`exemplars_recut`)."""
    recut = exemplars.repair(ctx)  # before the re-index embeds what the cut left out
    done = reindexing.reindex(ctx, batch, progress=progress)
    with ctx.store.transaction() as conn:
        spans = principle_spans.repair(conn)
    return {**done, "exemplars_recut": recut, "principle_spans": spans}


def _resolve(app: Context) -> dict:
    """Missing precedents and digest pointers: arrival's resolver."""
    return resolve_all(app)


def _synthesize(app: Context) -> dict:
    if not (app.settings.synthesizer or "").strip():
        return {"skipped": "LEGAL_AI_SYNTHESIZER is not set"}
    with app.store.connection() as conn:
        if not synthesis_store.pending(conn):
            return {"attempted": 0}
    return dict(synthesis.synthesize(app))


def _cut_finals(app: Context) -> dict:
    """The chair's finals not yet cut into block exemplars (stored before migration 0018, or
    their text or the analyzer changed), cut and embedded; the templates measured again when
    the finals changed (knowledge/exemplars.refresh, as `legal-ai exemplars --refresh`)."""
    return exemplars.refresh(app)


def _take_fingerprints(app: Context) -> dict:
    """The copy check's fingerprints of the finals and decisions that lack them (after the
    upgrade: all), taken here rather than inside the next draft's transaction."""
    with app.store.transaction() as conn:
        return {"taken": shingles.refresh_fingerprints(conn)}


def _queue_stored_scans(app: Context) -> dict:
    return ocr_jobs.queue_stored(app)


def _prune_telemetry(app: Context, now: dt.datetime) -> dict:
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
            isinstance(entry.get(k), str) and entry[k]
            for k in ("name", "corpus", "queries", "qrels")
        ):
            raise InvalidInput(
                f"LEGAL_AI_STANDING_EVAL: {path}: each set needs a name, corpus, queries and qrels"
            )
        out.append(
            {**entry, **{k: (base / entry[k]).resolve() for k in ("corpus", "queries", "qrels")}}
        )
    return out


def _record(app: Context, name: str, dataset, day: dt.date, now: dt.datetime) -> dict:
    """Evaluate one gold set (hybrid mode), record its figures for `day` in eval_history, and
    return them."""
    report = evaluate(app.settings, dataset, modes=("hybrid",))
    hybrid = report["modes"]["hybrid"]
    with app.store.transaction() as conn:
        store.record_eval(
            conn,
            {
                "dataset": name,
                "day": day,
                "fingerprint": dataset.fingerprint,
                "ndcg_at_10": hybrid["ndcg@10"],
                "recall_at_100": hybrid.get("recall@100"),
                "n_queries": report["n_queries"],
                "n_docs": report["n_docs"],
                "config": report.get("config") or {},
                "recorded_at": now,
            },
        )
    return {
        "name": name,
        "ndcg@10": hybrid["ndcg@10"],
        "recall@100": hybrid.get("recall@100"),
        "n_queries": report["n_queries"],
        "n_docs": report["n_docs"],
    }


def _manifest_sets(app: Context, manifest: Path, day: dt.date, now: dt.datetime) -> list[dict]:
    """The sets of LEGAL_AI_STANDING_EVAL's `manifest`; those whose files are absent skipped."""
    sets = []
    for entry in load_manifest(manifest):
        absent = [str(entry[k]) for k in ("corpus", "queries", "qrels") if not entry[k].is_file()]
        if absent:
            sets.append({"name": entry["name"], "skipped": f"absent: {', '.join(absent)}"})
            continue
        fields = tuple(entry["fields"]) if entry.get("fields") else None
        dataset = load_dataset(
            entry["corpus"], entry["queries"], entry["qrels"], fields=fields, name=entry["name"]
        )
        if entry.get("sample_queries"):
            dataset = sample_queries(dataset, int(entry["sample_queries"]))
        if entry.get("sample_docs"):
            dataset = sample_corpus(dataset, int(entry["sample_docs"]))
        sets.append(_record(app, entry["name"], dataset, day, now))
    return sets


def _office_set(app: Context, day: dt.date, now: dt.datetime) -> dict:
    """The office's own gold set from the chair's citations (learning/pairs/gold_set.py), unless
    LEGAL_AI_STANDING_EVAL_OFFICE is false or no final cites what the library holds."""
    if not app.settings.standing_eval_office:
        return {"name": gold_set.NAME, "skipped": "LEGAL_AI_STANDING_EVAL_OFFICE is false"}
    gold = gold_set.of_office(app)
    if gold.empty:
        why = (
            "no final cites a ruling or section the library holds"
            if gold.finals
            else ("no finals in the style corpus")
        )
        return {"name": gold_set.NAME, "skipped": f"{why}: the office's gold set is empty"}
    result = _record(app, gold_set.NAME, gold.dataset(), day, now)
    return {**result, "left_out": gold.report()["left_out"]}


TREND_DAYS = 14  # the system page's trend: the office set's last 14 recorded days
TREND_STEADY = 0.01  # within this of the first day shown, the trend is "steady" (the tolerance)


def office_trend(app: Context) -> dict:
    """The office set's trend for the desk's system page: its last TREND_DAYS days (day,
    nDCG@10, queries) and its direction (`up`, `down`, `steady`; None with one day or none)."""
    with app.store.connection() as conn:
        rows = gold_store.trend(conn, gold_set.NAME, TREND_DAYS)
    points = [{"day": r["day"], "ndcg": r["ndcg_at_10"], "queries": r["n_queries"]} for r in rows]
    direction = None
    if len(points) > 1:
        change = points[-1]["ndcg"] - points[0]["ndcg"]
        direction = "steady" if abs(change) <= TREND_STEADY else ("up" if change > 0 else "down")
    return {"points": points, "direction": direction}


def standing_eval(app: Context, now: dt.datetime) -> dict:
    """Run the manifest's gold sets (LEGAL_AI_STANDING_EVAL; hybrid mode) and the office's own
    set from the chair's citations, recording each set's figures for today (in the schedule's
    time zone); a set that cannot run is skipped and said. Returns the day, each set's figures
    and the drops beyond the tolerance; `skipped` (why) when no set ran."""
    day = now.astimezone(schedule_zone(app)).date()
    manifest = app.settings.standing_eval
    sets = [] if manifest is None else _manifest_sets(app, manifest, day, now)
    sets.append(_office_set(app, day, now))
    with app.store.connection() as conn:
        drops = [dict(r) for r in store.eval_drops(conn, EVAL_TOLERANCE, EVAL_WINDOW_DAYS)]
    result = {"day": day.isoformat(), "sets": sets, "drops": drops, "tolerance": EVAL_TOLERANCE}
    if not any("ndcg@10" in s for s in sets):
        reasons = (
            []
            if app.settings.standing_eval is not None
            else ["LEGAL_AI_STANDING_EVAL is not set (e.g. eval/standing.json)"]
        )
        result["skipped"] = "; ".join(reasons + [f"{s['name']}: {s['skipped']}" for s in sets])
    return result


def nightly_upkeep(app: Context, now: dt.datetime) -> dict:
    steps: dict[str, Any] = {}
    errors = []
    for name, step in (
        ("reindex", lambda: reindex(app)),
        ("resolve", lambda: _resolve(app)),
        ("synthesis", lambda: _synthesize(app)),
        ("scans", lambda: _queue_stored_scans(app)),
        ("exemplars", lambda: _cut_finals(app)),
        ("fingerprints", lambda: _take_fingerprints(app)),
        ("telemetry", lambda: _prune_telemetry(app, now)),
        ("standing_eval", lambda: standing_eval(app, now)),
    ):
        try:
            steps[name] = step()
        except AppError as exc:
            steps[name] = {"error": str(exc)}
            errors.append(f"{name}: {exc}")
        except Exception as exc:  # one step's bug or outage: the other steps still run
            steps[name] = {"error": f"{type(exc).__name__}: {exc}"}
            errors.append(f"{name}: internal error ({type(exc).__name__}: {exc})")
    reindexed = steps["reindex"]
    parts = []
    if "error" not in reindexed:
        parts.append(
            f"re-embedded {reindexed['reembedded']}, re-analyzed {reindexed['reanalyzed']}"
        )
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
        elif s.get("name") == gold_set.NAME and "skipped" in s:
            parts.append(f"{s['name']} not evaluated ({s['skipped']})")
    for d in evaluated.get("drops") or []:
        parts.append(f"{d['dataset']} dropped {d['drop']:.4f}")
    result: dict[str, Any] = {"steps": steps, "summary": "; ".join(parts) or "nothing to do"}
    if errors:
        result["error"] = "; ".join(errors)
    return result
