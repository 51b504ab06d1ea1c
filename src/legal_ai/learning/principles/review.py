"""The chair's view of principles: the lists (of a status; `to_confirm`, what the panel approved
and she has not confirmed) with each principle's term, who approved it and whether it reaches
what the writer reads; and her decision on one (approve, reject, confirm, revert, reopen) through
the one pattern of gated items (learning/gate.py)."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, NotRequired, TypedDict

from ...auth import require_chair
from ...errors import InvalidInput, NotFound
from ...paging import Page, PageInfo, window
from ...retrieval.terms import (
    ShownTerm,
    approved_by,
    chair_confirmed,
    principle_shown_term,
    shown_status,
)
from ...store import items as sql_items
from ...store import review_queue
from ..gate import Gated

if TYPE_CHECKING:
    from ...context import Context


class ListedPrinciple(ShownTerm):
    """One principle of `legal-ai principles list --json` (and GET /api/principles): its
    term as shown (ShownTerm), its rule and quote, the panel's record, who approved it, and
    its canonical's occurrences and the ruling's corroboration."""

    id: int
    rule_text: str
    supporting_quote: str
    page: int | None
    votes: int | None
    score: float | None
    review_status: str
    reviewed_by: str | None
    approved_by: str | None
    confirmed: bool
    review_reason: str | None
    returned_reason: str | None
    returned_at: dt.datetime | None
    doc_id: str
    case_number: str | None
    models: str | None
    canonical_id: int | None
    occurrences: int
    corroboration: int


class PrincipleList(TypedDict):
    """`legal-ai principles list --json`: the principles by id, and the `page` when paged."""

    principles: list[ListedPrinciple]
    page: NotRequired[PageInfo]


def list_principles(
    app: Context, status: str | None = None, page: Page | None = None
) -> PrincipleList:
    """Every principle (or those of one status; `to_confirm`: what the panel approved and the
    chair has not confirmed yet; `returned`: those returned to her because their source changed,
    which a list of one status leaves out) with its term (הלכה / כלל פרשני / עיקרון, from its source),
    who approved it (`approved_by`: chair, panel 3/3, panel 2/3 · 0.91), whether it reaches
    what the writer reads (`confirmed`), the panel's votes and score, and its canonical's
    occurrences; one `page` of them by id with its `page` object (paging.py), or all when
    `page` is None."""
    statuses = {
        "proposed",
        "pending_review",
        "approved",
        "rejected",
        "vetoed",
        "to_confirm",
        "returned",
    }
    if status is not None and status not in statuses:
        raise InvalidInput(
            f"unknown status {status!r}; choose {', '.join(sorted(statuses))}",
            code="choice.unknown",
            field="status",
        )
    unconfirmed = status == "to_confirm"
    # `returned`: those sent back to her because their source changed (out of search until she
    # decides); the other lists of live principles leave them out.
    returned = True if status == "returned" else False if status is not None else None
    if status == "pending_review":
        status = "proposed"
    elif unconfirmed:
        status = "approved"
    elif status == "returned":
        status = None
    limit, offset = window(page)
    with app.store.connection() as conn:
        rows = sql_items.list_principles(
            conn,
            status,
            limit=limit,
            offset=offset,
            unconfirmed=unconfirmed,
            returned=returned,
        )
    shown, info = page.cut(rows) if page is not None else (rows, None)
    principles: list[ListedPrinciple] = [
        {
            "id": r["id"],
            **principle_shown_term(r),
            "rule_text": r["rule_text"],
            "supporting_quote": r["supporting_quote"],
            "page": r["page"],
            "votes": r["votes"],
            "score": r["score"],
            "review_status": shown_status(r["review_status"]),
            "reviewed_by": r["reviewed_by"],
            "approved_by": approved_by(
                r["review_status"], r["reviewed_by"], r["votes"], r["score"]
            ),
            "confirmed": chair_confirmed(r["review_status"], r["reviewed_by"], r["confirmed_by"]),
            "review_reason": r["review_reason"],
            "returned_reason": r["returned_reason"],
            "returned_at": r["returned_at"],
            "doc_id": r["doc_id"],
            "case_number": r["case_number"],
            "models": r["models"],
            "canonical_id": r["canonical_id"],
            "occurrences": r["occurrences"],
            "corroboration": r["corroboration"],
        }
        for r in shown
    ]
    if info is None:
        return {"principles": principles}
    return {"principles": principles, "page": info}


# -- the chair's decision ---------------------------------------------------------------------------

# A principle's statuses as the lists, the API and the pages name them (terms.shown_status).
STATUSES = ("pending_review", "approved", "rejected", "vetoed")
DECISIONS = {
    "approve": "approved",
    "confirm": "approved",
    "reject": "rejected",
    "revert": "vetoed",
    "veto": "vetoed",
    "reopen": "proposed",
}
PRINCIPLES = Gated(
    noun="principle",
    key="principles",
    statuses=STATUSES,
    decisions=DECISIONS,
    rows=sql_items.list_principles,
    get=sql_items.get_principle,
    shown_status=lambda row: shown_status(row["review_status"]),
)


def review(
    app: Context,
    principle_id: int,
    decision: str,
    reason: str | None = None,
    expected_status: str | None = None,
) -> dict:
    """The chair's decision on a principle: approve, reject, confirm (what the panel approved:
    it then reaches what the writer reads; `approve` of such a principle is the same), revert
    (withdraw an approved one from search at once; also called veto) or reopen (back to her
    queue). `expected_status`: the status she saw (pending_review, approved, ...): when the
    principle is no longer in it, read under its row lock, nothing changes (errors.Stale)."""

    def decide(conn, row: dict, status: str, reason: str | None) -> dict:
        now = row["review_status"]
        by_panel = now == "approved" and row["reviewed_by"] == "panel"
        if decision == "confirm" and not by_panel:
            raise InvalidInput(
                f"principle {principle_id} is {shown_status(now)}"
                f"{' by the chair' if now == 'approved' else ''}: only what the panel "
                "approved is confirmed",
                code="principle.not_decidable",
            )
        if by_panel and status == "approved" and row["confirmed_by"] is None:
            return dict(sql_items.confirm_principle(conn, principle_id))
        if now == status:
            return {k: row[k] for k in ("id", "review_status", "reviewed_by", "confirmed_by")}
        return dict(
            sql_items.set_principle_review(conn, principle_id, status, app.principal.actor, reason)
        )

    expected = shown_status(expected_status) if expected_status else expected_status
    return PRINCIPLES.review(app, principle_id, decision, reason, expected, decide)


# -- many at once -----------------------------------------------------------------------------------

# A bulk decision and the status each principle must still be in (what the page showed).
BULK_FROM = {
    "confirm": "approved",
    "revert": "approved",
    "approve": "pending_review",
    "reject": "pending_review",
}
BULK_MAX = 500


def bulk_review(app: Context, ids: list[int], decision: str, reason: str | None = None) -> dict:
    """The chair's decision on many principles at once (those she picked on the desk after
    filtering the list by words): confirm or withdraw (revert) what the panel approved, approve
    or reject those pending her review. Each principle is decided alone, as `review` decides one
    — audited with the signed-in chair as the actor, the database's gate refusing any other role
    — in its own transaction, so one refusal undoes nothing else; one no longer in the status
    the page showed, unknown or refused is skipped with the reason. Returns {"decided": [...],
    "skipped": [{"id", "reason"}]}, which between them hold every id given, once."""
    expected = BULK_FROM.get(decision)
    if expected is None:
        raise InvalidInput(
            f"decision {decision!r} is not a bulk action; choose one of: {', '.join(BULK_FROM)} "
            "(reopen, the undo, is one principle at a time)",
            code="bulk.decision",
            field="decision",
        )
    require_chair(app.principal, f"bulk {decision} of principles")
    if not isinstance(ids, list | tuple) or not all(
        isinstance(i, int) and not isinstance(i, bool) for i in ids
    ):
        raise InvalidInput(
            "give the principles as a list of principle ids (integers)",
            code="bulk.ids",
            field="ids",
        )
    unique = list(dict.fromkeys(ids))
    if not unique or len(unique) > BULK_MAX:
        raise InvalidInput(
            f"a bulk action takes 1 to {BULK_MAX} principles; got {len(unique)}", code="bulk.size"
        )
    decided, skipped = [], []
    for principle_id in unique:
        try:
            decided.append(review(app, principle_id, decision, reason, expected))
        except (InvalidInput, NotFound) as exc:
            skipped.append({"id": principle_id, "reason": str(exc)})
    return {"decided": decided, "skipped": skipped}


def panel_votes(app: Context, principle_ids: list[int]) -> list[dict]:
    """The principle panel's votes on these principles, each model's with its reason (migration
    0048), by principle and model."""
    if not principle_ids:
        return []
    with app.store.connection() as conn:
        return [dict(v) for v in review_queue.principle_votes(conn, principle_ids)]


def votes(app: Context, principle_id: int) -> dict:
    """One principle's panel: {principle_id, rule_text, votes: [{model, voted, score, reason}]}
    — each model's vote with its reason as the desk shows it; NotFound for no such principle."""
    with app.store.connection() as conn:
        principle = sql_items.get_principle(conn, principle_id)
    if principle is None:
        raise NotFound(f"no principle #{principle_id}")
    shown = [
        {key: vote[key] for key in ("model", "voted", "score", "reason")}
        for vote in panel_votes(app, [principle_id])
    ]
    return {"principle_id": principle_id, "rule_text": principle["rule_text"], "votes": shown}
