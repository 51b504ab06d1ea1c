"""The chair's gate for canonical principles (migration 0017).

A canonical principle gathers the occurrences of one principle across rulings and decisions of
one corpus. Its statement is the source wording (the first occurrence's rule) until the
synthesizer (learning/principles/synthesis.py) or the chair writes another; every statement it has had is a
version (canonical_statement_versions, written by the database), so the chair can see them and
revert to any. Approving or rejecting a canonical principle, editing or reverting its statement
are the chair's alone: the services refuse anyone else, and the database refuses any other role.

What the chair decides here is the canonical statement; whether a principle is searchable is
decided on each occurrence (`principles review`): only approved occurrences are searched, and an
approved canonical's statement is shown with them in search hits.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ...auth import require_chair
from ...errors import Conflict, InvalidInput, NotFound, refused_by_gate
from ...paging import Page
from ...retrieval.terms import (
    canonical_term,
    principle_shown_term,
    shown_status,
    shown_term,
)
from ...store import jsonable
from ...store import synthesis as store
from ..gate import Gated
from ..vocabulary import free_text

if TYPE_CHECKING:
    from ...context import Context

STATUSES = ("pending_synthesis", "pending_review", "approved", "rejected")
DECISIONS = {"approve": "approved", "reject": "rejected"}


def _shape(row: dict) -> dict:
    return jsonable(
        {
            "id": row["id"],
            "corpus": "external" if row["source_kind"] == "external_upload" else "internal",
            "statement": row["statement"],
            "source_wording": row["rule_text"],
            # הלכה / כלל פרשני / עיקרון: the strongest of its live occurrences' rulings, once the
            # chair approved the statement; "הצעת הפאנל" until then (terms.shown_term).
            **shown_term(canonical_term(row.get("sources") or []), row["status"] == "approved"),
            "status": row["status"],
            "grounded": row["grounded"],
            "statement_by": row["statement_by"],
            "version": row["version"],
            "occurrences": row["occurrences"],
            "approved_occurrences": row["approved_occurrences"],
            "corroboration": row["corroboration"],
            "reviewed_by": row["reviewed_by"],
            "review_reason": row["review_reason"],
            "updated_at": row["updated_at"],
        }
    )


def _detail(conn, row: dict) -> dict:
    """A canonical principle with its occurrences (term, quote, page, the panel's votes) and
    every version of its statement."""
    occurrences = store.occurrence_rows(conn, row["id"])
    versions = store.versions(conn, row["id"])
    return {
        **_shape(row),
        "occurrences": [
            jsonable(
                {
                    "principle_id": o["id"],
                    **principle_shown_term(o),
                    "rule_text": o["rule_text"],
                    "supporting_quote": o["supporting_quote"],
                    "page": o["page"],
                    "votes": o["votes"],
                    "score": o["score"],
                    "models": o["models"],
                    "review_status": shown_status(o["review_status"]),
                    "doc_id": o["doc_id"],
                    "case_number": o["case_number"],
                }
            )
            for o in occurrences
        ],
        "versions": [jsonable(v) for v in versions],
    }


CANONICAL = Gated(
    noun="canonical principle",
    key="canonical_principles",
    statuses=STATUSES,
    decisions=DECISIONS,
    rows=store.list_canonicals,
    get=store.get_canonical,
    shape=_shape,
    detail=_detail,
)


def list_canonicals(app: Context, status: str | None = None, page: Page | None = None) -> dict:
    """Every canonical principle (or those of one status), with its statement, how many
    occurrences it has and how often the rulings it comes from are cited; one `page` of them
    by id with its `page` object (paging.py), or all when `page` is None."""
    return CANONICAL.list(app, status, page)


def show(app: Context, canonical_id: int) -> dict:
    """One canonical principle with its occurrences and every version of its statement."""
    return CANONICAL.show(app, canonical_id)


def _gated(app: Context, canonical_id: int, what: str, change) -> dict:
    """The chair's change of a canonical principle's statement, under its row lock."""
    require_chair(app.principal, what)
    with refused_by_gate():
        with app.store.transaction() as conn:
            change(conn, CANONICAL.locked(conn, canonical_id))
    return show(app, canonical_id)


def review(
    app: Context,
    canonical_id: int,
    decision: str,
    reason: str | None = None,
    expected_status: str | None = None,
) -> dict:
    """The chair approves or rejects a canonical principle's statement. `expected_status`: the
    status she saw; when it is no longer that, read under the row lock, nothing changes (Stale)."""

    def decide(conn, row: dict, status: str, reason: str | None) -> None:
        if row["status"] == "pending_synthesis" and status == "approved":
            raise Conflict(
                f"canonical principle {canonical_id} is still pending synthesis; run "
                "`legal-ai principles synthesize`, or write its statement yourself "
                "(`legal-ai principles canonical edit`)",
                code="canonical.pending_synthesis",
            )
        if row["status"] != status:
            store.decide(conn, canonical_id, status, app.principal.actor, reason)

    return CANONICAL.review(app, canonical_id, decision, reason, expected_status, decide)


def _embedded(app: Context, text: str) -> tuple[np.ndarray, str]:
    vector = np.asarray(app.embedder.embed_passages([text])[0], dtype=np.float32)
    return vector, app.embedder.id


def edit(app: Context, canonical_id: int, statement: str, reason: str | None = None) -> dict:
    """The chair's own wording of the statement: stored with its embedding in one transaction,
    recorded as a new version. A pending canonical moves to pending_review (she wrote it; she
    still approves it explicitly); an approved one stays approved."""
    statement = free_text(statement, "statement", max_chars=4000)
    reason = free_text(reason, "reason", max_chars=2000) if reason else None
    vector, embedder = _embedded(app, statement)

    def change(conn, row: dict) -> None:
        if row["statement"] == statement:
            return
        store.set_statement(
            conn,
            canonical_id,
            statement,
            author=app.principal.actor,
            reason=reason or "the chair's wording",
            embedding=vector,
            embedder=embedder,
        )
        if row["status"] == "pending_synthesis":
            store.to_review(conn, canonical_id)

    return _gated(app, canonical_id, f"editing canonical principle {canonical_id}", change)


def revert(
    app: Context, canonical_id: int, version: int | None = None, reason: str | None = None
) -> dict:
    """Restore an earlier statement (`version`; default: the one before the current), as a new
    version. Version 1 is the source wording."""
    reason = free_text(reason, "reason", max_chars=2000) if reason else None
    with app.store.connection() as conn:
        history = store.versions(conn, canonical_id)
    if not history:
        raise NotFound(f"no canonical principle {canonical_id}")
    current = history[-1]["version"]
    target = current - 1 if version is None else version
    chosen = next((v for v in history if v["version"] == target), None)
    if chosen is None or target == current:
        raise InvalidInput(
            f"canonical principle {canonical_id} has versions 1-{current} (current {current}); "
            "name an earlier one with --version"
        )
    text = chosen["statement"]
    vector, embedder = _embedded(app, text)

    def change(conn, row: dict) -> None:
        statement = None if text == row["rule_text"] else text
        store.set_statement(
            conn,
            canonical_id,
            statement,
            author=app.principal.actor,
            reason=reason or f"revert to version {target}",
            embedding=vector,
            embedder=embedder,
        )

    return _gated(app, canonical_id, f"reverting canonical principle {canonical_id}", change)


def history(app: Context, canonical_id: int) -> dict:
    with app.store.connection() as conn:
        rows = store.versions(conn, canonical_id)
    if not rows:
        raise NotFound(f"no canonical principle {canonical_id}")
    return {"canonical_id": canonical_id, "versions": [jsonable(r) for r in rows]}
