"""The citation graph's links to the library, by one identity per ruling.

A citation names a ruling by its whole identity (text/case_numbers: proceeding, district,
number/year), a statute section by its eId and law, a reporter citation by the aliases the
library's rulings carry. `match` is the one place that decides what a citation names; every path
goes through it: a final's citations and their missing precedents (finals.py), the rulings that
arrive (arrival.py), digests' pointers, the copy check (citation_check.py). A citation that fits
several rulings is ambiguous: never linked, its candidates kept on the authority and listed
(`legal-ai citations ambiguous`, GET /api/citations/ambiguous, the desk's cases page), where the
chair picks one (`pick`: her role only, held by the database and audited there).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

from ...auth import require_chair
from ...errors import InvalidInput, NotFound
from ...retrieval import legs
from ...store import citations as store
from ...store import jsonable
from ...store.rows import Conn
from ...text import citations as text_citations
from ...text.case_numbers import ALIAS, CHAIR, EXACT, CaseId, Resolution, case_id, resolve

if TYPE_CHECKING:
    from ...context import Context


def match(
    conn: Conn, citation: text_citations.Citation, exclude: Collection[int] = ()
) -> Resolution:
    """What the library holds for `citation` (never one of `exclude`: the decisions citing it)."""
    if citation.kind == "statute":
        lookup = legs.reference_for(citation)
        target = store.find_section(conn, lookup.pattern, lookup.law_pattern)
        return (
            Resolution(target, EXACT)
            if target is not None and target not in exclude
            else Resolution()
        )
    if citation.kind == "reporter":
        return _by_alias(conn, citation.ref, exclude)
    if citation.kind != "ruling":
        return Resolution()  # a plan is not in the library
    identity = citation.identity
    if identity is None:
        return Resolution()
    found = match_identity(conn, identity, exclude)
    if found.target is None and not found.ambiguous and citation.reporter:
        return _by_alias(conn, citation.reporter, exclude)
    return found


def match_identity(conn: Conn, identity: CaseId, exclude: Collection[int] = ()) -> Resolution:
    """The library's item of this identity (text/case_numbers.resolve over its number's items)."""
    items = [
        (r["id"], CaseId(r["ruling_proceeding"], r["ruling_district"], r["ruling_number"]))
        for r in store.rulings_numbered(conn, identity.number)
        if r["id"] not in exclude
    ]
    return resolve(identity, items)


def _by_alias(conn: Conn, alias: str, exclude: Collection[int]) -> Resolution:
    ids = [i for i in store.rulings_aliased(conn, alias) if i not in exclude]
    if len(ids) == 1:
        return Resolution(ids[0], ALIAS)
    return Resolution(candidates=tuple(ids)) if ids else Resolution()


def _written(authority: dict) -> text_citations.Citation | None:
    """The authority's citation: a ruling's or reporter's parsed from its ref (the identity),
    a statute's from its text as written (the ref alone loses the law and schedule)."""
    source = authority["text"] if authority["kind"] == "statute" else authority["ref"]
    cited = [c for c in text_citations.extract(source or "") if c.ref == authority["ref"]]
    return cited[0] if cited else None


def link_library(conn: Conn, number: str | None = None) -> dict:
    """Decide again the links of every authority not linked by its whole identity or by the
    chair (or only those of a ruling numbered `number`): linked, ambiguous (candidates kept) or
    unlinked — never to a decision that cites it; then refresh missing precedents and
    corroboration. The caller holds store.lock_citations. Returns {"linked", "ambiguous",
    "changed"}."""
    counts = {"linked": 0, "ambiguous": 0, "changed": 0}
    for authority in store.relinkable_authorities(conn, number):
        cited = _written(authority)
        found = match(conn, cited, set(authority["citing"])) if cited else Resolution()
        counts["linked"] += found.target is not None
        counts["ambiguous"] += found.ambiguous
        counts["changed"] += store.set_link(
            conn, authority["id"], found.target, found.basis, list(found.candidates)
        )
    store.refresh_missing_and_corroboration(conn)
    return counts


def pointer(points_to: str | None) -> CaseId | None:
    """The identity a digest's pointer names (`עע"מ 1234/05 פלוני נ' הוועדה`, `1234/05`)."""
    if not points_to or not points_to.strip():
        return None
    cited = [c for c in text_citations.extract(points_to) if c.kind == "ruling"]
    return cited[0].identity if cited else case_id(points_to)


# -- the chair's pick ---------------------------------------------------------------------------


def ambiguous(app: Context) -> dict:
    """Citations that fit several rulings of the library, each with its candidates."""
    with app.store.connection() as conn:
        rows = store.ambiguous_authorities(conn)
    return {"ambiguous": [jsonable(r) for r in rows]}


def pick(app: Context, authority_id: int, case_law_id: int) -> dict:
    """The chair links an ambiguous citation to one of its candidates (or moves a link that
    went without its district). Only her role may (the database refuses anyone else)."""
    require_chair(app.principal, "picking the ruling a citation names")
    with app.store.transaction() as conn:
        store.lock_citations(conn)
        row = store.authority(conn, authority_id)
        if row is None or row["kind"] == "statute":
            raise NotFound(f"no citation {authority_id} of a ruling; reload the list")
        allowed = set(row["candidates"]) | ({row["case_law_id"]} if row["case_law_id"] else set())
        if case_law_id not in allowed:
            raise InvalidInput(
                f"ruling {case_law_id} is not a candidate of this citation; pick one of "
                + (", ".join(str(c) for c in sorted(allowed)) or "none (nothing to pick)"),
                code="citation.not_candidate",
            )
        picked = store.pick_link(conn, authority_id, case_law_id)
        if picked is None:
            raise NotFound(f"no citation {authority_id} of a ruling; reload the list")
        store.refresh_missing_and_corroboration(conn)
    return {**jsonable(picked), "link_basis": CHAIR}


def authority(conn: Conn, authority_id: int) -> dict | None:
    """One authority of the citation graph (its ref, kind, link and candidates), or None."""
    return store.authority(conn, authority_id)
