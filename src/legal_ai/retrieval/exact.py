"""Exact identifiers in a query: the sections of a law and the case numbers it names, whether
the corpus holds each, and the units the reference leg found for them, placed first.

Fusion stays Reciprocal Rank Fusion (INV-RET3): the units the reference leg found (an item whose
statute eId or case number is exactly the one named — `סעיף 152` is `point_152`, never
`point_152א` or `point_255כ`) are lifted out of the fused list, in the reference leg's own order,
as a separate "exact match" group ahead of it; the rest keeps its fused order. Every identifier
the query names is reported with `found` — false when no item of the corpus (within the
search's filters) carries it, so a case number that does not exist is said plainly rather than
answered by whatever resembles it."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..text import citations
from ..text.case_numbers import case_id, normalize_case_number
from . import legs
from .contract import Identifier
from .fusion import Fused

REFERENCE_LEG = "reference"  # the chunk source's reference leg (search_legs._leg_name)


@dataclass(frozen=True)
class Named:
    """One identifier a query names: its kind (`section` | `case_number` | `citation`), the
    text an answer names it by, and the exact lookup that finds it."""

    kind: str
    text: str
    reference: legs.Reference


def named(query: str, limit: int | None = None) -> list[Named]:
    """The identifiers of `query`, exactly those the reference leg looks up (same order)."""
    return [_named(query, c, r) for c, r in legs.named_references(query, limit)]


def _named(query: str, citation: citations.Citation | None, reference: legs.Reference) -> Named:
    if citation is None:  # the query is a bare number/year
        return Named("case_number", normalize_case_number(query), reference)
    if citation.kind == "statute":
        where = citation.schedule or citation.law
        text = f"סעיף {citation.section}" + (f" ל{where.removeprefix('ל')}" if where else "")
        return Named("section", text, reference)
    if citation.kind == "ruling":
        return Named("case_number", citation.ref, reference)
    return Named("citation", citation.ref, reference)


def matches(name: Named, row: dict) -> bool:
    """Whether a hit's item (its provenance row) is the one `name` names — in Python the very
    conditions the reference leg's statement applies (retrieval/legs.reference)."""
    ref = name.reference
    if ref.column == "eid":
        return bool(
            re.search(ref.pattern, row.get("eid") or "")
            and re.search(ref.law_pattern, row.get("law_title") or "")
        )
    if ref.column == "case_number":
        return bool(re.search(ref.pattern, row.get("case_number") or ""))
    if ref.column == "ruling":
        found = case_id(row.get("case_number"))
        return (
            found is not None
            and found.number == ref.pattern
            and (found.proceeding or ref.proceeding) == ref.proceeding
            and (not ref.district or (found.district or ref.district) == ref.district)
        )
    return True  # an alias: the reference leg's own match (the row does not carry aliases)


def first(fused: list[Fused], head: int, exact_ids: list[int]) -> tuple[list[Fused], int]:
    """The fused list with the reference leg's units first, in that leg's order; `head` (the
    entries whose order is already fixed: the reranked ones) grown by them."""
    if not exact_ids:
        return fused, head
    order = {("chunk", unit_id): n for n, unit_id in enumerate(exact_ids)}
    lifted = sorted((f for f in fused if f.key in order), key=lambda f: order[f.key])
    rest = [f for f in fused if f.key not in order]
    kept_head = sum(1 for f in fused[:head] if f.key not in order)
    return lifted + rest, len(lifted) + kept_head


def report(names: list[Named], rows: list[dict]) -> list[Identifier]:
    """Each identifier with whether any unit the reference leg found is its item."""
    return [
        {"identifier": n.text, "kind": n.kind, "found": any(matches(n, r) for r in rows)}
        for n in names
    ]
