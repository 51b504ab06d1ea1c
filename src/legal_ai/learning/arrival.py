"""Upkeep on arrival (issue 15, item 3): what an item's ingest settles in its own transaction.

Every write of an item goes through ingest/pipeline.Ingestor.write_staged (`legal-ai ingest`,
the desk's and the CLI's final upload, the missing precedent's ruling uploaded at the desk), which
calls `on_arrival` before its transaction commits:

- a ruling or decision with a case number resolves the missing precedents that cite it (their
  authority linked to it, `missing_precedents.status` resolved) and links the digests that point
  at it (`digests.case_law_id`);
- a digest is linked at once when the ruling it points at (`digests.points_to`) is in the library,
  and stays unresolved otherwise (listed in `legal-ai health` as `unresolved_digests`);
- an internal decision whose text is new queues its enrichment (learning/enrichment.py).

The matching is the citation graph's (learning/finals.link_library): a ruling is named by the
number/year of its case number as `normalize_case_number` spells it (the one normalizer of case
numbers), and the library item a reference names is `store.find_ruling_by_number`'s (an
external ruling first). Arrival and the graph's own writers serialise on
`store.lock_citations`, so a ruling that arrives while a final citing it is uploaded is linked by
one of the two. `resolve_all(app)` runs the same matching over everything (idempotent): the
nightly upkeep's step, and the repair of items stored before this existed.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ..store import arrival as arrival_store
from ..store import jsonable
from ..store import learning as store
from ..text import citations as text_citations
from ..text.hebrew import normalize_case_number
from . import enrichment, finals

if TYPE_CHECKING:
    import psycopg

    from ..context import Context
    from ..corpora import Corpus

# number/year at the end of a case number (after `normalize_case_number`: no leading zeros).
_TAIL = re.compile(r"(?<![\d/])(\d{1,6})/(\d{2}(?:\d{2})?)$")
HEALTH_ROWS = 200  # rows of each upkeep list `legal-ai health` shows (the counts are whole)


def ruling_key(text: str | None) -> str | None:
    """The key a ruling is matched by: the number/year of the case number `text` names (`1234/05`
    for `עע"מ 1234/05 פלוני נ' הוועדה` and for `בג"ץ 1234-05`), as the citation graph keys it
    (Citation.case_number, legs.reference_for). None when `text` names no case number."""
    if not text or not text.strip():
        return None
    cited = [c for c in text_citations.extract(text) if c.kind == "ruling"]
    if cited:
        return cited[0].case_number
    found = _TAIL.search(normalize_case_number(text))
    return f"{int(found[1])}/{found[2]}" if found else None


def _pattern(key: str) -> str:
    """The regular expression legs.reference_for makes of a ruling citation with this key."""
    return f"(^|[^0-9]){re.escape(key)}$"


def _target(conn: psycopg.Connection, key: str) -> int | None:
    """The library item a reference with `key` names (what finals.link_library links)."""
    return store.find_ruling_by_number(conn, _pattern(key))


# -- on arrival ---------------------------------------------------------------------------------


def on_arrival(
    conn: psycopg.Connection,
    corpus: Corpus,
    item_id: int,
    values: dict[str, Any],
    *,
    text_changed: bool,
) -> dict:
    """What the write of item `item_id` (its column `values`) settles, in the caller's
    transaction: {"missing_precedents": resolved, "digests": linked, "digest_linked": bool|None,
    "enrichment_queued": bool}."""
    found: dict[str, Any] = {
        "missing_precedents": 0,
        "digests": 0,
        "digest_linked": None,
        "enrichment_queued": False,
    }
    doc_type = values.get("doc_type")
    if corpus.item_table == "case_law" and doc_type in ("ruling", "decision"):
        key = ruling_key(values.get("case_number"))
        if key is not None:
            store.lock_citations(conn)
            resolved, linked = _resolve_key(conn, key)
            found.update(missing_precedents=resolved, digests=linked)
        if corpus.key == "internal" and text_changed:
            found["enrichment_queued"] = enrichment.enqueue_on_arrival(conn, item_id, values)
    elif corpus.item_table == "digests":
        store.lock_citations(conn)
        found["digest_linked"] = _link_digest(conn, item_id, values.get("points_to"))
        found["digests"] = int(bool(found["digest_linked"]))
    return found


def _resolve_key(conn: psycopg.Connection, key: str) -> tuple[int, int]:
    """Link the unlinked ruling authorities and the unresolved digests with `key` to the item
    they name; resolve the missing precedents so linked. Returns (precedents resolved, digests
    linked)."""
    pattern = _pattern(key)
    candidates = arrival_store.unlinked_ruling_authorities(conn, pattern)
    waiting = arrival_store.digests_waiting(conn, key)
    if not candidates and not waiting:
        return 0, 0  # nothing names it: the library is not searched
    target = _target(conn, key)
    if target is None:
        return 0, 0
    # never linked to the citing decision itself (finals.link_library's `exclude`)
    citing = arrival_store.cited_by(conn, target, candidates)
    authorities = [a for a in candidates if a not in citing]
    for authority in authorities:
        store.link_authority(conn, authority, target)
    resolved = _resolve_linked(conn, authorities)
    linked = arrival_store.link_digests(conn, target, key)
    return resolved, linked


def _resolve_linked(conn: psycopg.Connection, authority_ids: list[int]) -> int:
    if not authority_ids:
        return 0
    return arrival_store.resolve_precedents(conn, authority_ids)


def _link_digest(conn: psycopg.Connection, digest_id: int, points_to: str | None) -> bool:
    """Key the digest's pointer and link it to the ruling when the library holds it."""
    key = ruling_key(points_to)
    target = _target(conn, key) if key else None
    arrival_store.set_digest_link(conn, digest_id, key, target)
    return target is not None


# -- everything again ---------------------------------------------------------------------------


def resolve_all(app: Context) -> dict:
    """Run the matching over everything (idempotent; the nightly upkeep's step): link every
    unlinked authority to the library and resolve its missing precedent (finals.link_library),
    reopen a resolved precedent whose ruling is gone, key every digest's pointer and link the
    unresolved ones, and queue the enrichment of internal decisions that never had one. Returns
    what this run changed and what stays open."""
    with app.store.transaction() as conn:
        store.lock_citations(conn)
        before = _open_ids(conn)
        finals.link_library(conn)
        reopened = arrival_store.reopen_precedents(conn)
        after = _open_ids(conn)
        keyed = linked = 0
        for row in arrival_store.digest_pointers(conn):
            key = ruling_key(row["points_to"])
            target = row["case_law_id"]
            if target is None and key is not None:
                target = _target(conn, key)
            if (key, target) != (row["points_to_key"], row["case_law_id"]):
                arrival_store.set_digest_link(conn, row["id"], key, target)
                keyed += key != row["points_to_key"]
                linked += target is not None and row["case_law_id"] is None
        queued = enrichment.enqueue_missing(conn)
        report = upkeep(conn)
    return {
        "precedents_resolved": len(before - after),
        "precedents_reopened": reopened,
        "digests_linked": linked,
        "digests_keyed": keyed,
        "enrichment_queued": queued,
        "missing_precedents_open": report["missing_precedents"]["count"],
        "unresolved_digests": report["unresolved_digests"]["count"],
    }


def _open_ids(conn: psycopg.Connection) -> set[int]:
    return arrival_store.open_precedent_ids(conn)


# -- health -------------------------------------------------------------------------------------


def unresolved_digests(conn: psycopg.Connection, limit: int = HEALTH_ROWS) -> dict:
    """Digests whose ruling is not in the library: {"count", "items": [{doc_id, title, points_to,
    key, reason}]}."""
    count = arrival_store.count_unresolved_digests(conn)
    rows = arrival_store.unresolved_digests(conn, limit)
    items = []
    for r in rows:
        key = r["points_to_key"] or ruling_key(r["points_to"])
        if not (r["points_to"] or "").strip():
            reason = "no points_to: say which ruling it summarises (--meta points_to=...)"
        elif key is None:
            reason = f"points_to {r['points_to']!r} names no case number"
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


def open_precedents(conn: psycopg.Connection, limit: int = HEALTH_ROWS) -> dict:
    """Open missing precedents (rulings our decisions cite that the library lacks)."""
    rows = store.missing_precedents(conn)
    return {
        "count": len(rows),
        "items": [
            {
                **{
                    k: jsonable(r)[k]
                    for k in ("authority_id", "ref", "first_cited_in", "corroboration")
                },
                "reason": f"cited by {r['corroboration']} decision(s), first in {r['first_cited_in']}: "
                "ingest the ruling (legal-ai ingest FILE --corpus external ...)",
            }
            for r in rows[:limit]
        ],
    }


def upkeep(conn: psycopg.Connection) -> dict:
    """What `legal-ai health` lists of the upkeep on arrival: unresolved digests, open missing
    precedents, internal decisions still waiting for enrichment."""
    return {
        "unresolved_digests": unresolved_digests(conn),
        "missing_precedents": open_precedents(conn),
        "awaiting_enrichment": enrichment.awaiting(conn),
    }
