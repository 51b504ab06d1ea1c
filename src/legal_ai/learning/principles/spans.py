"""A principle's span kept true (DESIGN INV-RET5; migration 0039).

A principle points at the words of its ruling that ground it: its supporting quote at a
character span and page, with the hash of the text the span reads (`span_hash`). When the
ruling's text changes (re-ingested, a final uploaded again), `reanchor` runs in the ingest's
transaction: each live principle's quote is found again in the new text (verbatim after folding,
as extraction found it: learning/lessons/distill.find_span) and its span, page and hash move there; a
quote no longer in the text sends the principle back to the chair with the reason (it leaves
search; her decision through the gate answers it, the system never decides it).

`repair` is what `legal-ai reindex` does with what health found changed outside ingest
(store/spans.changed_principles): a span that no longer reads its text is found again the same
way; a rule whose text no longer hashes to what was approved goes back to her (the rule was
hers to approve: nothing in the system may put a wording back)."""

from __future__ import annotations

from typing import Any, TypedDict

from ...paging import Listing
from ...providers.embedders import text_hash
from ...store import spans as store
from ..lessons import find_span

QUOTE_GONE = "its supporting quote is no longer in the text of its ruling (the text changed)"
RULE_CHANGED = "its rule was changed outside the gate (its text no longer has its hash)"


def _page(page_starts: list[int] | None, start: int) -> int | None:
    if not page_starts:
        return None
    return sum(1 for offset in page_starts if offset <= start)


def _anchor(conn, item: dict, principle: dict) -> str:
    """`kept`, `moved` or `returned`: the principle's quote found again in its item's text."""
    span = find_span(item["content"], principle["supporting_quote"])
    if span is None:
        store.return_to_chair(conn, principle["id"], QUOTE_GONE)
        return "returned"
    where = (span["start"], span["end"], text_hash(span["text"]))
    if where == (principle["char_start"], principle["char_end"], principle["span_hash"]):
        return "kept"
    store.move_span(
        conn, principle["id"], *where[:2], _page(item["page_starts"], span["start"]), where[2]
    )
    return "moved"


def reanchor(conn, case_law_id: int) -> dict:
    """Every live principle of an item whose text changed, found again in the new text, in the
    caller's transaction: {"moved": n, "kept": n, "returned": [{principle_id, doc_id, reason}]}
    (the ingest report carries it)."""
    out: dict[str, Any] = {"moved": 0, "kept": 0, "returned": []}
    item = store.item_text(conn, case_law_id)
    if item is None:
        return out
    for principle in store.principles_of(conn, case_law_id):
        done = _anchor(conn, item, principle)
        if done == "returned":
            out["returned"].append(
                {"principle_id": principle["id"], "doc_id": item["doc_id"], "reason": QUOTE_GONE}
            )
        else:
            out[done] += 1
    return out


def repair(conn) -> dict:
    """What health found of the live principles (store/spans.changed_principles), repaired in
    the caller's transaction: a span found again (`moved`), or the principle returned to the
    chair with the reason (`returned`: its quote gone, or its rule changed)."""
    out: dict[str, Any] = {"moved": 0, "returned": []}
    for row in store.changed_principles(conn):
        [principle] = store.principles_of(conn, ids=[row["id"]])
        if row["rule_changed"]:
            store.return_to_chair(conn, row["id"], RULE_CHANGED)
            out["returned"].append(
                {"principle_id": row["id"], "doc_id": row["doc_id"], "reason": RULE_CHANGED}
            )
            continue
        item = store.item_text(conn, principle["case_law_id"])
        if item is None or _anchor(conn, item, principle) == "returned":
            out["returned"].append(
                {"principle_id": row["id"], "doc_id": row["doc_id"], "reason": QUOTE_GONE}
            )
        else:
            out["moved"] += 1
    return out


class ChangedPrinciple(TypedDict):
    """A live principle whose rule or span changed outside the gate."""

    principle_id: int
    doc_id: str
    rule_changed: bool
    span_changed: bool
    reason: str


class ChangedCanonical(TypedDict):
    """A canonical statement not the one its gate hashed."""

    ref: str
    canonical_id: int
    status: str
    reason: str


class ReturnedPrinciple(TypedDict):
    """A principle returned to the chair, with the reason."""

    principle_id: int
    doc_id: str
    status: str
    reason: str


class PrincipleHealth(TypedDict):
    """What `legal-ai health` lists of the principles and canonical statements."""

    principles_changed: Listing[ChangedPrinciple]
    canonicals_changed: Listing[ChangedCanonical]
    returned_to_chair: Listing[ReturnedPrinciple]


def health(conn) -> PrincipleHealth:
    """What health reports: `principles_changed` (live principles whose rule or span no longer
    holds: `reindex` finds the span again or returns them to the chair), `canonicals_changed`
    (canonical statements not the one their gate hashed: hers to restore, on the desk) and
    `returned_to_chair` (principles waiting for her decision, with the reason)."""
    changed: list[ChangedPrinciple] = []
    for row in store.changed_principles(conn):
        what = (["its rule"] if row["rule_changed"] else []) + (
            ["its span (the text it points at)"] if row["span_changed"] else []
        )
        changed.append(
            {
                "principle_id": row["id"],
                "doc_id": row["doc_id"],
                "rule_changed": row["rule_changed"],
                "span_changed": row["span_changed"],
                "reason": f"principle {row['id']} changed outside the gate: {', '.join(what)};"
                " run `legal-ai reindex`",
            }
        )
    canonicals: list[ChangedCanonical] = [
        {
            "ref": f"canonical {row['id']}",
            "canonical_id": row["id"],
            "status": row["status"],
            "reason": "its statement was changed outside the gate: restore it on the desk"
            " (its versions keep what was approved)",
        }
        for row in store.changed_canonicals(conn)
    ]
    returned: list[ReturnedPrinciple] = [
        {
            "principle_id": row["id"],
            "doc_id": row["doc_id"],
            "status": row["review_status"],
            "reason": f"principle {row['id']}: {row['returned_reason']}",
        }
        for row in store.returned(conn)
    ]
    return {
        "principles_changed": {"count": len(changed), "items": changed},
        "canonicals_changed": {"count": len(canonicals), "items": canonicals},
        "returned_to_chair": {"count": len(returned), "items": returned},
    }
