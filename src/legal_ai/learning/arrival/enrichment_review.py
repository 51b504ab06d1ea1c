"""The chair's view of enrichment proposals, through the one pattern of gated items
(learning/gate.py): the lists and one proposal, and her review. Only the chair approves or
rejects a proposal pending review, and reverts one the system applied (learning/arrival/metadata.py: the
fields it wrote go back to what they were); the database refuses any other role. On approval its
fields are written with
store/items.update_fields, the metadata path of an ingest (no new text version in item_versions;
the database's completeness contract re-evaluates the item), under the item's ingest lock; a
proposal whose decision's text changed since it was written is not approved."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...corpora import get_corpus
from ...errors import Conflict
from ...paging import Page
from ...store import enrichment as store
from ...store import items as sql_items
from ...store import jsonable
from ...store.rows import Conn
from ..gate import Gated
from . import metadata

if TYPE_CHECKING:
    from ...context import Context

STATUSES = ("pending_review", "applied", "approved", "rejected", "reverted", "edited", "superseded")
DECISIONS = {"approve": "approved", "reject": "rejected", "revert": "reverted"}


def _shape(row: dict, *, full: bool = False) -> dict:
    keys = [
        "id",
        "case_law_id",
        "doc_id",
        "case_number",
        "title",
        "status",
        "headnote",
        "summary",
        "tags",
        "model",
        "job_id",
        "written_by",
        "created_at",
        "reviewed_by",
        "reviewed_at",
        "review_reason",
        "text_changed",
        "ungrounded",
    ]
    if full:
        keys += [
            "content_hash",
            "sentences",
            "previous",
            "item_headnote",
            "item_summary",
            "item_tags",
        ]
    return jsonable({k: row[k] for k in keys})


ENRICHMENT = Gated(
    noun="enrichment",
    key="enrichments",
    statuses=STATUSES,
    decisions=DECISIONS,
    rows=store.list_all,
    get=store.get,
    shape=_shape,
    detail=lambda conn, row: _shape(row, full=True),
    where="; list them with `legal-ai enrich list`",
)


def list_enrichments(app: Context, status: str | None = None, page: Page | None = None) -> dict:
    """By id; one `page` with its `page` object (paging.py), or all when `page` is None."""
    return ENRICHMENT.list(app, status, page)


def show(app: Context, enrichment_id: int) -> dict:
    return ENRICHMENT.show(app, enrichment_id)


def applied(app: Context, limit: int) -> list[dict]:
    """The newest `limit` enrichments the system applied and the chair has neither reverted nor
    edited, in full, each with `holds`: whether the decision still holds what it wrote (only
    then is it reverted: metadata.still_holds)."""
    with app.store.connection() as conn:
        rows = store.list_all(conn, "applied", limit=limit, newest_first=True)
    return [{**_shape(row, full=True), "holds": metadata.still_holds(row)} for row in rows]


def review(
    app: Context,
    enrichment_id: int,
    decision: str,
    reason: str | None = None,
    expected_status: str | None = None,
) -> dict:
    """The chair approves a proposal (its headnote, summary and tags are written into the
    decision) or rejects it (nothing is written), or reverts one the system applied.
    `expected_status`: the status she saw; when it is no longer that, read under the row lock,
    nothing changes (Stale)."""
    corpus = get_corpus("internal")

    def decide(conn, row: dict, status: str, reason: str | None) -> dict | None:
        if row["status"] == status:
            return _shape(row, full=True)
        if status == "reverted":
            _revert(conn, app, row, reason)
            return None
        if row["status"] != "pending_review":
            raise Conflict(
                f"enrichment {enrichment_id} is {row['status']}: only a "
                "proposal pending review is approved or rejected",
                code="enrichment.not_pending",
            )
        if status == "rejected":
            store.decide(conn, enrichment_id, status, app.principal.actor, reason, None)
            return None
        sql_items.lock_item(conn, corpus, row["doc_id"])  # no ingest writes it meanwhile
        item = store.item(conn, row["case_law_id"])
        if item is None or item["content_hash"] != row["content_hash"]:
            raise Conflict(
                f"the text of {row['doc_id']} changed after enrichment {enrichment_id} "
                "was written; reject it (the new text has its own job)",
                code="enrichment.text_changed",
            )
        previous = {
            "headnote": item["headnote"],
            "summary": item["summary"],
            "tags": list(item["tags"] or []),
        }
        store.decide(conn, enrichment_id, status, app.principal.actor, reason, previous)
        sql_items.update_fields(
            conn,
            corpus,
            item["id"],
            {
                "headnote": row["headnote"],
                "summary": row["summary"],
                "tags": list(row["tags"] or []),
            },
        )
        metadata.fold_metadata(app, conn, item["id"])
        return None

    return ENRICHMENT.review(app, enrichment_id, decision, reason, expected_status, decide)


def _revert(conn, app: Context, row: dict, reason: str | None) -> None:
    """An applied enrichment reverted: the fields it wrote back to what they were."""
    if row["status"] != "applied":
        raise Conflict(
            f"enrichment {row['id']} is {row['status']}: only an enrichment the system "
            "applied is reverted",
            code="enrichment.not_applied",
        )
    sql_items.lock_item(conn, get_corpus("internal"), row["doc_id"])
    item = store.item(conn, row["case_law_id"])
    if item is None or metadata.revert(conn, row, item) is None:
        raise Conflict(
            f"the decision {row['doc_id']} no longer holds what enrichment {row['id']} wrote "
            "(its text or a field changed since); write the fields yourself instead",
            code="enrichment.replaced",
        )
    metadata.fold_metadata(app, conn, row["case_law_id"])
    store.decide(conn, row["id"], "reverted", app.principal.actor, reason, row["previous"])
    return None


def item(conn: Conn, case_law_id: int) -> dict | None:
    """A decision as its enrichment reads it (its text and its three fields), or None."""
    return store.item(conn, case_law_id)


def awaiting(conn: Conn, limit: int) -> tuple[int, list[dict]]:
    """Internal decisions still waiting for enrichment: (how many, the first `limit`, each with
    its job and proposal)."""
    return store.awaiting(conn, limit)
