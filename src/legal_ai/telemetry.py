"""Search telemetry (03-retrieval §3 `log_search`): every search made through
an interface — `legal-ai search` / `similar`, the MCP tools, the HTTP API, the desk — is one row
of `search_log` (migration 0022), written by `App.search` (app.py), the one place every search passes.

- What a row holds: corpus, tool, query (cleaned like every stored text: no NUL, zero-width or
  bidi characters; at most 2000 characters), filters (cleaned, each at most 200 characters),
  mode, k, the hits returned (rank, doc_id, unit kind and id), latency, the caller (the
  authenticated principal's actor and kind — never a name from a request) and the surface.
- Which searches: those of an App given a surface (`App(..., surface=)`, `acting_as(...,
  surface=)`, `on_surface()`); the evaluation harness and benchmarks search without one and
  are not logged. LEGAL_AI_TELEMETRY=false logs nothing.
- It never fails a search: an error while logging is logged (warning) and the search returns.
  Its cost is one INSERT (docs/benchmarks.md).
- The chair's clicks (she opened a hit's source) and "useful" marks on the desk are recorded
  against the search (`search_marks`); `export` turns the marked searches into a BEIR gold set
  (queries.jsonl + qrels.tsv, the layout `legal-ai eval` reads).
- Retention: `prune(app, now)` deletes what is older than LEGAL_AI_TELEMETRY_RETENTION_DAYS
  (`legal-ai telemetry prune`; the scheduler's job calls the same function). Nothing of it
  leaves the machine (docs/security.md)."""

from __future__ import annotations

import csv
import dataclasses
import datetime as dt
import json
import logging
from pathlib import Path
from typing import Any

from .corpora import SEARCHABLE
from .errors import InvalidInput, NotFound
from .store import request_ids
from .store import review_queue as desk_store
from .store import search_log as sql_log
from .text.hebrew import clean_text, clean_value

SURFACES = ("cli", "mcp", "api", "desk")
MARKS = ("click", "useful")
MAX_QUERY_CHARS = 2000
MAX_FILTER_CHARS = 200
MAX_ACTOR_CHARS = 200
QRELS_HEADER = ("query_id", "doc_id", "relevance")

log = logging.getLogger(__name__)


def request_id_recorded(ctx: Any, request_id: str) -> bool:
    """Whether a request with this id ran before, whoever sent it: the rows a request writes
    carry its id (the audit, the search log, the model calls: migration 0031). The web app
    takes a caller's X-Request-ID only when it is not (web/request_ids.py)."""
    with ctx.store.connection() as conn:
        return request_ids.recorded(conn, request_id)


def bounded_text(value: Any, limit: int) -> str:
    """`value` as text safe to store: cleaned (no NUL, control, zero-width or bidi characters),
    stripped, at most `limit` characters."""
    text = value if isinstance(value, str) else str(value)
    return clean_text(text[: 4 * limit]).strip()[:limit]


def clean_filters(filters: Any) -> dict[str, str]:
    """The filters given, as stored and compared: each value cleaned like a filter value and
    bounded; unset ones left out."""
    if filters is None:
        return {}
    values = (
        dataclasses.asdict(filters)
        if dataclasses.is_dataclass(filters) and not isinstance(filters, type)
        else dict(filters)
    )
    out = {}
    for name, value in values.items():
        if value is None:
            continue
        text = clean_value(value if isinstance(value, str) else str(value))[:MAX_FILTER_CHARS]
        if text:
            out[bounded_text(name, 50)] = text
    return out


def _hits(result: Any) -> list[dict]:
    out = []
    for rank, hit in enumerate(result.hits, start=1):
        kind = hit.get("kind")
        unit = {
            "chunk": hit.get("chunk_id"),
            "principle": hit.get("principle_id"),
            "precedent": hit.get("precedent_id"),
        }.get(kind)
        out.append({"rank": rank, "doc_id": hit.get("doc_id"), "unit_kind": kind, "unit_id": unit})
    return out


def enabled(app: Any) -> bool:
    return bool(app.settings.telemetry) and getattr(app, "surface", None) in SURFACES


def log_search(
    app: Any,
    *,
    corpus: str,
    query: str,
    filters: Any,
    mode: str,
    limit: int,
    result: Any,
    latency_ms: float,
    tool: str | None = None,
    by_example: bool = False,
) -> int | None:
    """Record one search made by `app` (its principal, its surface); the row's id, or None when
    telemetry is off, the Context has no surface, or logging failed (a warning, never an error)."""
    if not enabled(app):
        return None
    try:
        principal = app.principal
        row = {
            "surface": app.surface,
            "actor": bounded_text(principal.actor, MAX_ACTOR_CHARS) or "unknown",
            "actor_kind": principal.kind,
            "corpus": bounded_text(corpus, 50),
            "tool": bounded_text(tool, 100) if tool else None,
            "query": bounded_text(query, MAX_QUERY_CHARS),
            "by_example": bool(by_example),
            "filters": clean_filters(filters),
            "mode": bounded_text(mode, 20),
            "k": max(1, int(limit)),
            "hits": _hits(result),
            "latency_ms": max(0.0, round(float(latency_ms), 3)),
        }
        with app.store.transaction() as conn:
            return sql_log.insert(conn, row)
    except Exception:  # telemetry never fails a search
        log.warning("search telemetry: the search was not logged", exc_info=True)
        return None


# -- the chair's marks ----------------------------------------------------------------------------
def _hit_at(row: dict, rank: int) -> dict:
    if isinstance(rank, bool) or not isinstance(rank, int) or not 1 <= rank <= len(row["hits"]):
        raise InvalidInput(
            f"search {row['id']} has no hit at rank {rank}", code="search.no_hit", field="rank"
        )
    return row["hits"][rank - 1]


def mark(
    app: Any,
    search_id: int,
    rank: int,
    kind: str = "useful",
    *,
    on: bool = True,
    doc_id: str | None = None,
) -> dict:
    """Record (or, `on=False`, take back) the chair's `kind` mark on the hit at `rank` of search
    `search_id`. `doc_id`, when given, must be the hit's (a click names what was opened).
    The database's gate lets only the chair's role mark."""
    if kind not in MARKS:
        raise InvalidInput(
            f"unknown mark {kind!r}; marks: {', '.join(MARKS)}", code="choice.unknown", field="mark"
        )
    with app.store.transaction() as conn:
        row = sql_log.get(conn, search_id)
        if row is None:
            raise NotFound(f"no logged search {search_id}")
        hit = _hit_at(row, rank)
        if doc_id is not None and hit["doc_id"] != doc_id:
            raise InvalidInput(
                f"the hit at rank {rank} of search {search_id} is not {doc_id!r}",
                code="search.no_hit",
                field="rank",
            )
        if on:
            changed = sql_log.add_mark(conn, search_id, rank, kind, hit, app.principal.actor)
        else:
            changed = sql_log.remove_mark(conn, search_id, rank, kind)
    return {
        "search_id": search_id,
        "rank": rank,
        "kind": kind,
        "on": on,
        "changed": changed,
        "doc_id": hit["doc_id"],
    }


def record_click(app: Any, search_id: int, rank: int, doc_id: str) -> bool:
    """The chair opened the hit at `rank`: recorded once; any failure is logged, never raised
    (opening the source must not depend on telemetry)."""
    if not app.settings.telemetry:
        return False
    try:
        return mark(app, search_id, rank, "click", doc_id=doc_id)["changed"]
    except Exception:
        log.warning("search telemetry: a click was not recorded", exc_info=True)
        return False


def search_row(app: Any, search_id: int) -> dict | None:
    with app.store.connection() as conn:
        row = sql_log.get(conn, search_id)
        if row is not None:
            row["marks"] = sql_log.marks_of(conn, search_id)
    return row


# -- export: marked searches -> a BEIR gold set ---------------------------------------------------
def export(
    app: Any,
    qrels: Path,
    queries: Path,
    *,
    since: dt.date | None = None,
    clicks: bool = False,
    corpus: Path | None = None,
) -> dict:
    """Write the searches the chair marked as a BEIR gold set: `queries` (JSON lines: _id, text,
    corpus, filters, searches) and `qrels` (query_id, doc_id, relevance; a header line). A
    document she marked useful is relevant (1); with `clicks`, a clicked one counts too
    (useful 2, clicked 1) and searches with clicks only are included. The same query in the
    same corpus with the same filters is one query (marks merged, highest grade kept);
    searches by a case's own text (find_similar_cases by case number) are left out. `corpus`,
    when given, receives the judged documents' stored text (doc_id, title, text) so the set
    runs with `legal-ai eval` on its own. Files are written even when nothing is marked (then
    the qrels file holds its header only)."""
    kinds = ["useful", "click"] if clicks else ["useful"]
    start = dt.datetime.combine(since, dt.time()).astimezone() if since else None
    with app.store.connection() as conn:
        rows = sql_log.marked(conn, kinds, start)
    merged = _merged(rows, clicks)
    for path in (qrels, queries, corpus):
        if path is not None and path.parent and not path.parent.exists():
            raise InvalidInput(f"{path.parent}: no such folder")
    entries = list(merged.values())
    with queries.open("w", encoding="utf-8") as handle:
        for e in entries:
            record = {k: e[k] for k in ("_id", "text", "corpus", "filters", "searches")}
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    with qrels.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, delimiter="\t", lineterminator="\n")
        writer.writerow(QRELS_HEADER)
        for e in entries:
            for doc_id, grade in sorted(e["judged"].items()):
                writer.writerow((e["_id"], doc_id, grade))
    result = {
        "queries": len(entries),
        "judgments": sum(len(e["judged"]) for e in entries),
        "searches": len(rows),
        "qrels_file": str(qrels),
        "queries_file": str(queries),
    }
    if corpus is not None:
        result["corpus_file"] = str(corpus)
        result["documents"], result["missing_documents"] = _write_corpus(app, corpus, entries)
    return result


def _merged(rows: list[dict], clicks: bool) -> dict[tuple, dict]:
    """The marked searches as queries: one per corpus, query and filters, with its searches and
    each judged document's highest grade."""
    merged: dict[tuple, dict] = {}
    for row in rows:
        key = (row["corpus"], row["query"], json.dumps(row["filters"], sort_keys=True))
        entry = merged.setdefault(
            key,
            {
                "_id": f"s{row['id']}",
                "text": row["query"],
                "corpus": row["corpus"],
                "filters": row["filters"],
                "searches": [],
                "judged": {},
            },
        )
        entry["searches"].append(row["id"])
        for m in row["marks"]:
            grade = (2 if clicks else 1) if m["kind"] == "useful" else 1
            judged = entry["judged"]
            judged[m["doc_id"]] = max(grade, judged.get(m["doc_id"], 0))
    return merged


def _write_corpus(app: Any, path: Path, entries: list[dict]) -> tuple[int, list[str]]:
    wanted: dict[str, str] = {}
    for e in entries:
        for doc_id in e["judged"]:
            wanted.setdefault(doc_id, e["corpus"])
    written, missing = 0, []
    with app.store.connection() as conn, path.open("w", encoding="utf-8") as handle:
        for doc_id, corpus_key in wanted.items():
            target = SEARCHABLE.get(corpus_key)
            if target is not None and target.item_table is None:  # a citation, not a document
                target = SEARCHABLE.get("external")
            item = desk_store.item_text(conn, target, doc_id) if target is not None else None
            if not item or not (item.get("content") or "").strip():
                missing.append(doc_id)
                continue
            record = {
                "doc_id": doc_id,
                "title": item.get("title") or doc_id,
                "text": item["content"],
            }
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            written += 1
    return written, missing


# -- figures and retention ----------------------------------------------------------------------
def _ms(value: Any) -> float | None:
    return None if value is None else round(float(value), 1)


def stats(app: Any, *, since: dt.date | None = None) -> dict:
    """Searches per surface and corpus, the zero-hit rate, latency p50/p95 (ms) and the marks."""
    start = dt.datetime.combine(since, dt.time()).astimezone() if since else None
    with app.store.connection() as conn:
        raw = sql_log.stats(conn, start)
    total = raw["total"]

    def rate(zero: int, n: int) -> float | None:
        return round(zero / n, 4) if n else None

    def group(rows: list[dict]) -> dict:
        return {
            r["key"]: {
                "searches": r["searches"],
                "zero_hit_rate": rate(r["zero_hit"], r["searches"]),
                "p50_ms": _ms(r["p50"]),
            }
            for r in rows
        }

    return {
        "enabled": bool(app.settings.telemetry),
        "retention_days": app.settings.telemetry_retention_days,
        "since": since.isoformat() if since else None,
        "searches": total["searches"],
        "zero_hit_rate": rate(total["zero_hit"], total["searches"]),
        "latency_ms": {"p50": _ms(total["p50"]), "p95": _ms(total["p95"])},
        "first": total["first"].isoformat() if total["first"] else None,
        "last": total["last"].isoformat() if total["last"] else None,
        "by_surface": group(raw["groups"]["surface"]),
        "by_corpus": group(raw["groups"]["corpus"]),
        "clicks": raw["marks"]["clicks"],
        "useful": raw["marks"]["useful"],
        "marked_searches": raw["marks"]["marked_searches"],
    }


def prune(app: Any, now: dt.datetime | None = None, *, days: int | None = None) -> dict:
    """Delete the searches (and their marks) logged more than the retention
    (LEGAL_AI_TELEMETRY_RETENTION_DAYS, or `days`) before `now`. The scheduler's job calls
    this with its clock."""
    days = app.settings.telemetry_retention_days if days is None else days
    if isinstance(days, bool) or not isinstance(days, int) or days < 1:
        raise InvalidInput("the retention is a whole number of days, at least 1")
    now = now or dt.datetime.now(dt.UTC)
    if now.tzinfo is None:
        raise InvalidInput("prune: give `now` with its time zone")
    before = now - dt.timedelta(days=days)
    with app.store.transaction() as conn:
        deleted = sql_log.prune(conn, before)
    return {"deleted": deleted, "before": before.isoformat(), "retention_days": days}
