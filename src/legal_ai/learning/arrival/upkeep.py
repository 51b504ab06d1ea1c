"""Upkeep on arrival: what an item's ingest settles in its own transaction.

Every write of an item goes through ingest/pipeline.Ingestor.write_staged (`legal-ai ingest`,
the desk's and the CLI's final upload, the missing precedent's ruling uploaded at the desk), which
calls `on_arrival` before its transaction commits:

- a ruling or decision with a case number resolves the missing precedents that cite it (their
  authority linked to it, `missing_precedents.status` resolved) and links the digests that point
  at it (`digests.case_law_id`);
- a digest is linked at once when the ruling it points at (`digests.points_to`) is in the library,
  and stays unresolved otherwise (listed in `legal-ai health` as `unresolved_digests`);
- an internal decision whose text is new queues its enrichment (learning/arrival/enrichment.py);
- a ruling or decision is read for what it says of the rulings it names (learning/library/treatment.py:
  the decision it attacks, with the outcome, and the others it cites), and the later rulings'
  readings that name its number are linked to it (`treatments` counts the rows changed).

The matching is the citation graph's (learning/library/links.py): a ruling is named by its whole
identity — proceeding, district, number/year, as text/case_numbers spells it — so a decision of
one district never resolves a citation of another, and a citation that fits several is left
ambiguous for the chair. Arrival and the graph's own writers serialise on `store.lock_citations`,
so a ruling that arrives while a final citing it is uploaded is linked by one of the two.
`resolve_all(app)` runs the same matching over everything (idempotent): the nightly upkeep's
step, and the repair of items stored before this existed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypedDict

from ...paging import HEALTH_ROWS, Listing
from ...store import arrival as arrival_store
from ...store import citations as citation_store
from ...store import drafts_lessons as store
from ...store import jsonable
from ...store.rows import Conn
from ...text.case_numbers import case_id
from ..library import links as library_links
from ..library import treatment
from . import enrichment

if TYPE_CHECKING:
    from ...context import Context
    from ...corpora import Corpus


def ruling_key(text: str | None) -> str | None:
    """The identity a text names, as `normalize_case_number` spells it (`עע"מ 1234/05` for
    `עע"מ 1234-05 פלוני נ' הוועדה`): what a digest's pointer is keyed by. None when `text`
    names no case number."""
    identity = library_links.pointer(text)
    return identity.key if identity else None


# -- on arrival ---------------------------------------------------------------------------------


def on_arrival(
    conn: Conn,
    corpus: Corpus,
    item_id: int,
    values: dict[str, Any],
    *,
    text_changed: bool,
) -> dict:
    """What the write of item `item_id` (its column `values`) settles, in the caller's
    transaction: {"missing_precedents": resolved, "digests": linked, "digest_linked": bool|None,
    "enrichment_queued": bool, "treatments": rows changed}."""
    found: dict[str, Any] = {
        "missing_precedents": 0,
        "digests": 0,
        "digest_linked": None,
        "enrichment_queued": False,
        "treatments": 0,
    }
    doc_type = values.get("doc_type")
    if corpus.item_table == "case_law" and doc_type in ("ruling", "decision"):
        identity = case_id(values.get("case_number"))
        if identity is not None:
            store.lock_citations(conn)
            resolved, linked = _resolve_number(conn, identity.number)
            found.update(missing_precedents=resolved, digests=linked)
        found["treatments"] = treatment.on_arrival(conn, item_id, values.get("case_number"))
        if corpus.key == "internal" and text_changed:
            found["enrichment_queued"] = enrichment.enqueue_on_arrival(conn, item_id, values)
    elif corpus.item_table == "digests":
        store.lock_citations(conn)
        found["digest_linked"] = link_digest(conn, item_id, values.get("points_to"))
        found["digests"] = int(bool(found["digest_linked"]))
    return found


def _resolve_number(conn: Conn, number: str) -> tuple[int, int]:
    """Decide again the links of the authorities and digests naming a ruling of this
    number/year (one more item of it may link them, or make a citation without a district
    ambiguous). Returns (precedents resolved, digests linked)."""
    before = arrival_store.open_precedent_ids(conn)
    library_links.link_library(conn, number=number)
    resolved = len(before - arrival_store.open_precedent_ids(conn))
    linked = sum(
        link_digest(conn, row["id"], row["points_to"]) and row["case_law_id"] is None
        for row in arrival_store.digests_numbered(conn, number)
    )
    return resolved, linked


def link_digest(conn: Conn, digest_id: int, points_to: str | None) -> bool:
    """Key the digest's pointer by the identity it names and link it to that ruling when the
    library holds exactly one that fits (ambiguous: left unlinked)."""
    identity = library_links.pointer(points_to)
    target = library_links.match_identity(conn, identity).target if identity else None
    arrival_store.set_digest_link(conn, digest_id, identity.key if identity else None, target)
    return target is not None


# -- everything again ---------------------------------------------------------------------------


def resolve_all(app: Context) -> dict:
    """Run the matching over everything (idempotent; the nightly upkeep's step): link every
    authority not linked by its whole identity or the chair (library_links.link_library),
    reopen a resolved precedent whose ruling is gone, key every digest's pointer and link the
    unresolved ones, queue the enrichment of internal decisions that never had one, and read
    every ruling's treatment of the rulings it names again (learning/library/treatment.py). Returns
    what this run changed and what stays open."""
    with app.store.transaction() as conn:
        store.lock_citations(conn)
        before = _open_ids(conn)
        links = library_links.link_library(conn)
        reopened = arrival_store.reopen_precedents(conn)
        after = _open_ids(conn)
        keyed = linked = 0
        for row in arrival_store.digest_pointers(conn):
            was = (row["points_to_key"], row["case_law_id"])
            link_digest(conn, row["id"], row["points_to"])
            now = arrival_store.digest_pointer(conn, row["id"])
            keyed += now["points_to_key"] != was[0]
            linked += now["case_law_id"] is not None and was[1] is None
        queued = enrichment.enqueue_missing(conn)
        treatments = treatment.recompute_all(conn)
        report = upkeep(conn)
    return {
        "precedents_resolved": len(before - after),
        "precedents_reopened": reopened,
        "digests_linked": linked,
        "digests_keyed": keyed,
        "enrichment_queued": queued,
        "treatments_changed": treatments,
        "missing_precedents_open": report["missing_precedents"]["count"],
        "citations_ambiguous": links["ambiguous"],
        "unresolved_digests": report["unresolved_digests"]["count"],
    }


def _open_ids(conn: Conn) -> set[int]:
    return arrival_store.open_precedent_ids(conn)


# -- health -------------------------------------------------------------------------------------


class UnresolvedDigest(TypedDict):
    """A digest whose ruling is not in the library, and why."""

    doc_id: str
    title: str | None
    points_to: str | None
    key: str | None
    reason: str


class OpenPrecedent(TypedDict):
    """A ruling our decisions cite that the library lacks."""

    authority_id: int
    ref: str
    first_cited_in: str | None
    corroboration: int
    reason: str


class AmbiguousCitation(TypedDict):
    """A citation several rulings of the library fit (their case numbers): hers to pick."""

    authority_id: int
    ref: str
    first_cited_in: str | None
    candidates: list[str | None]  # their case numbers (None: a ruling recorded without one)
    reason: str


def unresolved_digests(conn: Conn, limit: int = HEALTH_ROWS) -> Listing[UnresolvedDigest]:
    """Digests whose ruling is not in the library: {"count", "items": [{doc_id, title, points_to,
    key, reason}]}."""
    count = arrival_store.count_unresolved_digests(conn)
    rows = arrival_store.unresolved_digests(conn, limit)
    items: list[UnresolvedDigest] = []
    for r in rows:
        key = r["points_to_key"] or ruling_key(r["points_to"])
        if not (r["points_to"] or "").strip():
            reason = "no points_to: say which ruling it summarises (--meta points_to=...)"
        elif key is None:
            reason = f"points_to {r['points_to']!r} names no case number"
        elif (pointed := library_links.pointer(key)) is not None and library_links.match_identity(
            conn, pointed
        ).ambiguous:
            reason = (
                f"several rulings of the library fit {key}: name its court and district in "
                "points_to (--meta points_to=...)"
            )
        else:
            reason = (
                f"no ruling {key} in the library: ingest it (legal-ai ingest FILE --corpus "
                "external ...) and the digest is linked"
            )
        items.append(
            {
                "doc_id": r["doc_id"],
                "title": r["title"],
                "points_to": r["points_to"],
                "key": key,
                "reason": reason,
            }
        )
    return {"count": count, "items": items}


def open_precedents(conn: Conn, limit: int = HEALTH_ROWS) -> Listing[OpenPrecedent]:
    """Open missing precedents (rulings our decisions cite that the library lacks)."""
    rows = store.missing_precedents(conn)
    return {
        "count": len(rows),
        "items": [
            {
                "authority_id": r["authority_id"],
                "ref": r["ref"],
                "first_cited_in": r["first_cited_in"],
                "corroboration": r["corroboration"],
                "reason": f"cited by {r['corroboration']} decision(s), first in {r['first_cited_in']}: "
                "ingest the ruling (legal-ai ingest FILE --corpus external ...)",
            }
            for r in map(jsonable, rows[:limit])
        ],
    }


class Upkeep(TypedDict):
    """What `legal-ai health` lists of the upkeep on arrival, each a `Listing`."""

    unresolved_digests: Listing[UnresolvedDigest]
    missing_precedents: Listing[OpenPrecedent]
    awaiting_enrichment: Listing[enrichment.AwaitingEnrichment]
    ambiguous_citations: Listing[AmbiguousCitation]


def upkeep(conn: Conn) -> Upkeep:
    """What `legal-ai health` lists of the upkeep on arrival: unresolved digests, open missing
    precedents, internal decisions still waiting for enrichment."""
    return {
        "unresolved_digests": unresolved_digests(conn),
        "missing_precedents": open_precedents(conn),
        "awaiting_enrichment": enrichment.awaiting(conn),
        "ambiguous_citations": ambiguous_citations(conn),
    }


def ambiguous_citations(conn: Conn, limit: int = HEALTH_ROWS) -> Listing[AmbiguousCitation]:
    """Citations that fit several rulings of the library: none is guessed; the chair picks
    (`legal-ai citations pick`, or the desk's cases page)."""
    rows = citation_store.ambiguous_authorities(conn)
    return {
        "count": len(rows),
        "items": [
            {
                "authority_id": r["authority_id"],
                "ref": r["ref"],
                "first_cited_in": r["first_cited_in"],
                "candidates": [c["case_number"] for c in r["candidates"]],
                "reason": f"{len(r['candidates'])} rulings of the library fit {r['ref']}: the "
                "chair picks one (legal-ai citations pick AUTHORITY CASE_LAW_ID)",
            }
            for r in rows[:limit]
        ],
    }
