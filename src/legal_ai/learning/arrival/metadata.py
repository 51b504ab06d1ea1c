"""An internal decision's headnote, summary and tags — without which it is not searchable (the
completeness contract, INV-RET2; migration 0030) — and who wrote them.

- The enricher's grounded proposal is applied at once (`settle`, in the enrichment job's
  transaction, as the worker's role): the fields still empty, or still the model's own from an
  earlier text, take the proposal's; the row (`applied`) keeps who wrote it, when, and what it
  replaced. Fields a person set are never overwritten: a proposal with none left to fill, and an
  ungrounded one, wait for the chair (`pending_review`).
- The chair reverts an applied enrichment (learning/arrival/enrichment_review.py, decision `revert`) or
  writes the three fields herself (`set_fields`, the desk's one screen); nobody else does (the
  service asks for the chair, the database's gates for her role).
- `awaiting` is what `legal-ai health` lists: the decisions awaiting metadata, where their
  enrichment stands and what to set; `to_fill` the same with what each holds now (the desk's
  screen, /training/metadata, prefills its form); `state_of` the same for one decision (the final
  upload's report), `saved` one decision as the desk reports it after she wrote its fields.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypedDict

from ...auth import require_chair
from ...corpora import get_corpus
from ...errors import InvalidInput, NotFound, StoreError
from ...ingest import metadata_fold
from ...paging import HEALTH_ROWS, Listing
from ...store import enrichment as store
from ...store import items as sql_items
from ...store.rows import Conn
from ..engine import budgets
from ..vocabulary import free_text

if TYPE_CHECKING:
    from ...context import Context

FIELDS = ("headnote", "summary", "tags")
VARIABLE = "LEGAL_AI_ENRICHER"
MAX_HEADNOTE = 600
MAX_SUMMARY = 6000
MAX_TAGS = 12
MAX_TAG = 40  # characters of one tag
DESK = "/training/metadata"


def _current(item: dict) -> dict:
    return {
        "headnote": item["headnote"],
        "summary": item["summary"],
        "tags": list(item["tags"] or []),
    }


def is_empty(value) -> bool:
    return not value or (isinstance(value, str) and not value.strip())


def open_fields(conn: Conn, item: dict) -> list[str]:
    """The fields the system may fill: empty, or still what its last applied enrichment wrote."""
    model = store.applied(conn, item["id"])
    current = _current(item)
    return [
        f
        for f in FIELDS
        if is_empty(current[f]) or (model is not None and current[f] == _field(model, f))
    ]


def _field(row: dict, name: str):
    return list(row[name] or []) if name == "tags" else row[name]


def settle(
    conn: Conn, corpus_item: dict, proposal: dict, ungrounded: str | None
) -> tuple[int, bool]:
    """Store the model's proposal for the decision (in the caller's transaction, under the
    item's ingest lock): applied at once to the fields still open when grounded, pending the
    chair's review otherwise. Returns (its id, whether it was applied)."""
    sql_items.lock_item(conn, get_corpus("internal"), corpus_item["doc_id"])
    item = store.item(conn, corpus_item["id"])
    if item is None:  # locked just above
        raise StoreError(f"{corpus_item['doc_id']} is no longer stored")
    fields = open_fields(conn, item) if ungrounded is None else []
    if not fields:
        return store.insert(conn, {**proposal, "ungrounded": ungrounded}), False
    before = _current(item)
    enrichment_id = store.insert(
        conn, {**proposal, "status": "applied", "previous": {**before, "applied": fields}}
    )
    sql_items.update_fields(
        conn, get_corpus("internal"), item["id"], {f: _field(proposal, f) for f in fields}
    )
    return enrichment_id, True


def applied_fields(row: dict) -> list[str]:
    """The fields an applied enrichment wrote (all three for a row without the record)."""
    return list((row.get("previous") or {}).get("applied") or FIELDS)


def still_holds(row: dict) -> bool:
    """Whether the decision still holds what an applied enrichment wrote (a row as
    store/enrichment lists it, with the item's fields beside its own): only then is it
    reverted."""
    if row["text_changed"]:
        return False
    current = {"headnote": row["item_headnote"], "summary": row["item_summary"]}
    current["tags"] = list(row["item_tags"] or [])
    return all(current[f] == _field(row, f) for f in applied_fields(row))


def revert(conn: Conn, row: dict, item: dict) -> dict | None:
    """The fields an applied enrichment wrote, back to what they were; None when the decision no
    longer holds what it wrote (its text or a field changed since)."""
    if item is None or item["content_hash"] != row["content_hash"]:
        return None
    fields = applied_fields(row)
    current = _current(item)
    if any(current[f] != _field(row, f) for f in fields):
        return None
    previous = row["previous"] or {}
    back = {f: previous.get(f) if f != "tags" else list(previous.get(f) or []) for f in fields}
    sql_items.update_fields(conn, get_corpus("internal"), item["id"], back)
    return back


def fold_metadata(app: Context, conn: Conn, case_law_id: int) -> None:
    """The decision's new fields into its first chunk, in the write's transaction (what the
    lexical and semantic legs find it by: ingest/metadata_fold.py)."""
    metadata_fold.fold(conn, app.analyzer, app.embedder, [case_law_id])


def _clean(headnote: object, summary: object, tags: Any) -> dict:
    tag_list = tags.split(",") if isinstance(tags, str) else list(tags or [])
    cleaned = []
    for tag in tag_list:
        text = free_text(tag, "tag", required=False, max_chars=MAX_TAG)
        if text and text not in cleaned:
            cleaned.append(text)
    return {
        "headnote": free_text(headnote, "headnote", max_chars=MAX_HEADNOTE),
        "summary": free_text(summary, "summary", max_chars=MAX_SUMMARY),
        "tags": cleaned[:MAX_TAGS],
    }


def set_fields(app: Context, doc_id: str, headnote: object, summary: object, tags: object) -> dict:
    """The chair writes a decision's headnote, summary and tags (the desk's screen): an
    enrichment the system applied to it is marked `edited`. Returns {doc_id, searchable,
    missing}."""
    require_chair(app.principal, "a decision's headnote, summary and tags")
    values = _clean(headnote, summary, tags)
    if not values["tags"]:
        raise InvalidInput(
            "the tags are empty; write at least one (comma-separated)",
            code="text.empty",
            field="tags",
        )
    corpus = get_corpus("internal")
    with app.store.transaction() as conn:
        sql_items.lock_item(conn, corpus, doc_id)
        found = sql_items.find_item(conn, corpus, doc_id)
        if found is None:
            raise NotFound(f"no internal decision {doc_id!r}")
        model = store.applied(conn, found["id"])
        if model is not None and model["content_hash"] == found["content_hash"]:
            store.decide(conn, model["id"], "edited", app.principal.actor, None, model["previous"])
        sql_items.update_fields(conn, corpus, found["id"], values)
        fold_metadata(app, conn, found["id"])
        status = sql_items.item_status(conn, corpus, found["id"])
    if status is None:  # locked and found above
        raise NotFound(f"no internal decision {doc_id!r}")
    return {"doc_id": doc_id, "searchable": status["searchable"], "missing": status["missing"]}


# -- where each decision stands ---------------------------------------------------------------


def job_state(
    status: str | None,
    waiting_for: str | None,
    error: str | None,
    attempts: int | None,
    max_attempts: int | None,
) -> str:
    """Where an enrichment job stands, in words (health, `enrich run`)."""
    if status == "waiting" and (deferred := budgets.deferral(waiting_for)):
        return deferred
    if status == "waiting":
        return f"waiting for configuration: {waiting_for}"
    if status == "failed":
        return f"failed after {attempts} attempt(s): {error}"
    if status == "running":
        return "running"
    if status == "queued" and error:
        return f"retry {(attempts or 0) + 1} of {max_attempts}; last error: {error}"
    if status == "queued":
        return "queued: run `legal-ai enrich run` or start `legal-ai worker`"
    return "not queued: stored before enrichment on arrival (the nightly upkeep queues it)"


def to_set(doc_id: str, fields: list[str]) -> str:
    """What to set so that the decision becomes searchable."""
    given = " ".join(f"{f}=…" for f in fields)
    return (
        f"give its {', '.join(fields)}: legal-ai ingest FILE --corpus internal --doc-id "
        f"{doc_id} --meta {given} (tags comma-separated; JSONL: the same fields), or fill them "
        f"on the desk ({DESK}); or set {VARIABLE} and run `legal-ai enrich run` (or "
        "`legal-ai worker`) for the model to write them"
    )


def _state(row: dict) -> str:
    status = row["enrichment_status"]
    if status == "pending_review":
        why = f" (not grounded: {row['ungrounded']})" if row["ungrounded"] else ""
        return (
            f"the model's proposal #{row['enrichment_id']} waits for the chair{why}: legal-ai "
            f"enrich review {row['enrichment_id']} approve|reject, or the desk"
        )
    if status == "reverted":
        return "the chair reverted the model's fields: she fills them on the desk"
    if status in ("rejected", "approved", "edited"):
        return f"the model's proposal was {status}; the fields are still incomplete"
    return job_state(
        row["job_status"], row["waiting_for"], row["error"], row["attempts"], row["max_attempts"]
    )


class AwaitingMetadata(TypedDict):
    """An internal decision not searchable for want of its headnote, summary or tags: what is
    missing, where its enrichment stands (`state`) and what to set (`set`)."""

    case_law_id: int
    doc_id: str
    case_number: str | None
    title: str | None
    missing: list[str]
    job_id: int | None
    job_status: str | None
    enrichment_id: int | None
    enrichment_status: str | None
    state: str
    set: str


def _entry(row: dict) -> AwaitingMetadata:
    fields = [f for f in FIELDS if f in (row["missing"] or [])]
    return {
        "case_law_id": row["case_law_id"],
        "doc_id": row["doc_id"],
        "case_number": row["case_number"],
        "title": row["title"],
        "missing": fields,
        "job_id": row["job_id"],
        "job_status": row["job_status"],
        "enrichment_id": row["enrichment_id"],
        "enrichment_status": row["enrichment_status"],
        "state": _state(row),
        "set": to_set(row["doc_id"], fields),
    }


def awaiting(conn: Conn, limit: int = HEALTH_ROWS) -> Listing[AwaitingMetadata]:
    """The internal decisions awaiting metadata (not searchable for want of their headnote,
    summary or tags), each with where its enrichment stands and what to set."""
    count, rows = store.awaiting_metadata(conn, limit)
    return {"count": count, "items": [_entry(r) for r in rows]}


def to_fill(app: Context, limit: int = HEALTH_ROWS) -> dict:
    """`awaiting` with each decision's date and what its three fields hold now (the desk's screen
    shows them in its form)."""
    with app.store.connection() as conn:
        count, rows = store.awaiting_metadata(conn, limit)
    items = [{**_entry(r), **_current(r), "decided_on": r["decided_on"]} for r in rows]
    return {"count": count, "items": items}


def saved(app: Context, doc_id: str) -> dict | None:
    """An internal decision's case number, title and whether it is searchable (what the desk
    says after she wrote its fields); None when there is none."""
    with app.store.connection() as conn:
        found = sql_items.find_item(conn, get_corpus("internal"), doc_id)
    if found is None:
        return None
    keys = ("doc_id", "case_number", "title", "searchable", "missing")
    return {k: found[k] for k in keys}


def state_of(conn: Conn, case_law_id: int) -> dict:
    """One decision's metadata: {"awaiting_metadata", "missing", "state", "set"} (the final
    upload's report)."""
    _, rows = store.awaiting_metadata(conn, HEALTH_ROWS, case_law_id=case_law_id)
    if not rows:
        return {"awaiting_metadata": False, "missing": [], "state": None, "set": None}
    entry = _entry(rows[0])
    return {"awaiting_metadata": True, **{k: entry[k] for k in ("missing", "state", "set")}}


def report_of(app: Context, case_law_id: int) -> dict:
    """`state_of` in a connection of its own (after the final upload's transaction)."""
    with app.store.connection() as conn:
        return state_of(conn, case_law_id)
