"""Treatment: what became of a ruling, in the library's later rulings (docs/verification.md
"Treatment").

- `read_ruling(conn, id)`: what a ruling or decision of the library says of the rulings it names
  (text/treatment.read: the decision it attacks, with the outcome of its operative words, and the
  others it cites, each with its sentence), each linked to the library's item by the one matching
  (learning/library/links.match, by the whole case number), stored in `treatments` (migration
  0037) read by `rule`. A reading that changes goes back to unconfirmed (the database).
- On arrival (learning/arrival/upkeep.on_arrival, in the ingest's transaction): the arriving ruling is
  read, and the readings of the later rulings that name its number/year are linked again — so a
  petition ingested before the committee decision it attacked is linked when that decision
  arrives. `recompute_all` reads every ruling again (the nightly upkeep, arrival.resolve_all).
- `treatment_for(conn, doc_id)`: what the draft check shows for a ruling it finds — the latest
  petition or appeal against it that the chair has not rejected: {"kind", "by", "by_doc_id",
  "decided_on", "confirmed", "review", "read_by", "sentence"}, or None.
- `history(app, doc_id | case_number)`: a ruling's `treatment`, every attack read (`treatments`)
  and `cited_by` (the later decisions that cite it, each with its sentence) — HTTP and MCP.
- Her gate (INV-LRN1): `review(app, id, confirm|reject|reopen)` through learning/gate.Gated; the
  database refuses anyone but the chair's role, and audits her decision.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict

from ...errors import InvalidInput, NotFound
from ...paging import Page
from ...store import jsonable
from ...store import treatments as store
from ...store.rows import Conn
from ...text import citations as text_citations
from ...text import treatment as rules
from ...text.case_numbers import case_id
from ..gate import Gated
from .links import match, match_identity

if TYPE_CHECKING:
    from ...context import Context

RULE = "rule"  # who read a row that the rules of text/treatment.py read
STATUSES = ("unconfirmed", "confirmed", "rejected")
DECISIONS = {"confirm": "confirmed", "reject": "rejected", "reopen": "unconfirmed"}
CITED_BY_MAX = 200  # later decisions listed under a ruling's cited_by


def _number(ref: str) -> str | None:
    found = case_id(ref)
    return found.number if found else None


def read_ruling(conn: Conn, case_law_id: int) -> int:
    """Read ruling `case_law_id` again and store what it says of the rulings it names (see the
    module). Returns the rows inserted, changed or deleted."""
    row = store.ruling(conn, case_law_id)
    if row is None:
        return 0
    own = case_id(row["case_number"])
    cites = [
        c
        for c in text_citations.extract(row["content"] or "")
        if c.kind in ("ruling", "reporter") and (own is None or c.ref != own.key)
    ]
    readings = rules.read(row["content"] or "", row["ruling_proceeding"], cites)
    stored = []
    for reading in readings:
        found = match(conn, reading.citation, {case_law_id})
        stored.append(
            {
                "cited_ref": reading.citation.ref,
                "cited_number": _number(reading.citation.ref),
                "cited_text": reading.citation.text,
                "case_law_id": found.target,
                "relation": reading.relation,
                "kind": reading.kind,
                "read_by": RULE,
                "sentence": reading.sentence,
                "char_start": reading.start,
                "char_end": reading.end,
            }
        )
    return store.save(conn, case_law_id, stored)


def relink_number(conn: Conn, number: str) -> int:
    """Link again the readings naming a ruling of this number/year (one arrived, or left)."""
    changed = 0
    for row in store.naming_number(conn, number):
        cited = [c for c in text_citations.extract(row["cited_text"]) if c.ref == row["cited_ref"]]
        target = match(conn, cited[0], {row["by_case_law_id"]}).target if cited else None
        changed += store.set_link(conn, row["id"], target)
    return changed


def on_arrival(conn: Conn, case_law_id: int, case_number: str | None) -> int:
    """A ruling or decision arrived (in its ingest's transaction): read it, and link the later
    rulings' readings that name its number. Returns the rows changed."""
    changed = read_ruling(conn, case_law_id)
    identity = case_id(case_number)
    if identity is not None:
        changed += relink_number(conn, identity.number)
    return changed


def recompute_all(conn: Conn) -> int:
    """Read every ruling and decision of the library again (idempotent)."""
    return sum(read_ruling(conn, i) for i in store.ruling_ids(conn))


# -- what a ruling's reader is shown ------------------------------------------------------------


def _iso(value):
    return value.isoformat() if value is not None else None


class Treatment(TypedDict):
    """A petition or appeal against a ruling, as the draft check (a citation's `treatment`,
    DESIGN §10) and a ruling's history show it: what it decided (`kind`), the later ruling
    (`by`, `by_doc_id`, `by_court`, `decided_on`), her review and who read it, and the
    sentence read (at `char_start`..`char_end` of the later ruling)."""

    id: int
    kind: rules.Kind
    by: str | None
    by_doc_id: str
    by_court: str | None
    decided_on: str | None
    confirmed: bool
    review: str
    read_by: str
    sentence: str
    char_start: int
    char_end: int


def _treatment(row: dict) -> Treatment:
    return {
        "id": row["id"],
        "kind": row["kind"],
        "by": row["by_case_number"],
        "by_doc_id": row["by_doc_id"],
        "by_court": row["by_court"],
        "decided_on": _iso(row["by_decided_on"]),
        "confirmed": row["review_status"] == "confirmed",
        "review": row["review_status"],
        "read_by": row["read_by"],
        "sentence": row["sentence"],
        "char_start": row["char_start"],
        "char_end": row["char_end"],
    }


def _current(rows: list[dict]) -> Treatment | None:
    """The treatment shown: the latest attack she has not rejected (one she confirmed first)."""
    standing = [r for r in rows if r["review_status"] != "rejected"]
    if not standing:
        return None
    confirmed = [r for r in standing if r["review_status"] == "confirmed"]
    return _treatment((confirmed or standing)[0])


def treatment_for(conn: Conn, doc_id: str) -> Treatment | None:
    """What became of the library's ruling `doc_id`: its latest petition or appeal the chair
    has not rejected — {"kind", "by", "by_doc_id", "decided_on", "confirmed", "review",
    "read_by", "sentence", ...} — or None (none in the library). For the draft check."""
    ruling = store.ruling_by_doc_id(conn, doc_id)
    if ruling is None:
        return None
    return _current(store.of_ruling(conn, ruling["id"], "attacked"))


def _cited_by(row: dict) -> dict:
    return {
        "doc_id": row["by_doc_id"],
        "case_number": row["by_case_number"],
        "court": row["by_court"],
        "decided_on": _iso(row["by_decided_on"]),
        "corpus": row["by_corpus"],
        "relation": row["relation"],
        "sentence": row["sentence"],
        "char_start": row["char_start"],
        "char_end": row["char_end"],
    }


def history(app: Context, doc_id: str | None = None, case_number: str | None = None) -> dict:
    """A ruling's later history in the library: `treatment` (as treatment_for), `treatments`
    (every petition or appeal against it read, with her review) and `cited_by` (every later
    decision naming it, with the sentence around the citation), by its doc_id or case number."""
    if bool(doc_id) == bool(case_number):
        raise InvalidInput(
            "give the ruling's doc_id or its case number (one of them)", code="treatment.target"
        )
    with app.store.connection() as conn:
        if doc_id:
            ruling = store.ruling_by_doc_id(conn, doc_id)
        else:
            identity = case_id(case_number)
            if identity is None:
                raise InvalidInput(
                    f"{case_number!r} names no case number (e.g. ערר (תל אביב) 1212/19)"
                )
            found = match_identity(conn, identity).target
            ruling = store.ruling_by_id(conn, found) if found else None
        if ruling is None:
            raise NotFound(
                f"no ruling or decision {doc_id or case_number!r} in the library"
                "; search for it with search_precedent_library or search_internal_decisions"
            )
        rows = store.of_ruling(conn, ruling["id"])
    attacks = [r for r in rows if r["relation"] == "attacked"]
    return {
        "doc_id": ruling["doc_id"],
        "case_number": ruling["case_number"],
        "title": ruling["title"],
        "treatment": _current(attacks),
        "treatments": [_treatment(r) for r in attacks],
        "cited_by": [_cited_by(r) for r in rows[:CITED_BY_MAX]],
        "cited_by_count": len(rows),
    }


# -- her gate -----------------------------------------------------------------------------------


def _shape(row: dict) -> dict:
    return jsonable(
        {
            "id": row["id"],
            "status": row["review_status"],
            "kind": row["kind"],
            "read_by": row["read_by"],
            "doc_id": row["doc_id"],
            "case_number": row["case_number"],
            "title": row["title"],
            "by": row["by_case_number"],
            "by_doc_id": row["by_doc_id"],
            "decided_on": row["by_decided_on"],
            "sentence": row["sentence"],
            "char_start": row["char_start"],
            "char_end": row["char_end"],
            "reviewed_by": row["reviewed_by"],
            "reviewed_at": row["reviewed_at"],
            "review_reason": row["review_reason"],
        }
    )


TREATMENT = Gated(
    noun="treatment",
    key="treatments",
    statuses=STATUSES,
    decisions=DECISIONS,
    rows=store.list_attacked,
    get=store.get,
    shape=_shape,
    where="; list them with GET /api/treatments",
)


def list_treatments(app: Context, status: str | None = None, page: Page | None = None) -> dict:
    """The readings of petitions and appeals against the library's rulings, by id."""
    return TREATMENT.list(app, status, page)


def show(app: Context, treatment_id: int) -> dict:
    return TREATMENT.show(app, treatment_id)


def review(
    app: Context,
    treatment_id: int,
    decision: str,
    reason: str | None = None,
    expected_status: str | None = None,
) -> dict:
    """The chair confirms a reading (it is then shown as hers), rejects it (no longer shown as
    the ruling's treatment) or reopens it. Only her role may: the database refuses any other."""

    def decide(conn, row: dict, status: str, reason: str | None) -> dict | None:
        if row["review_status"] == status:
            return None
        if row["case_law_id"] is None or row["relation"] != "attacked":
            raise InvalidInput(
                f"treatment {treatment_id} names no ruling of the library: nothing to confirm",
                code="treatment.no_ruling",
            )
        store.decide(conn, treatment_id, status, reason)
        return None

    return TREATMENT.review(app, treatment_id, decision, reason, expected_status, decide)
