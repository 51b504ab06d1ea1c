"""The copy check's citations (learning/copy_policy.py): every citation of a draft against the
library, by the one matching of learning/library_links.py (a ruling by its whole identity):
`found`, `ambiguous` (several rulings of the library fit it: none is guessed), `not_in_library` (a
missing precedent, or an invented one), or `quote_not_found` when a quotation set right before or
after the citation is not in the cited text (compared as comparison keys, each part between ellipses
in order)."""

from __future__ import annotations

import re

from ..store import learning as learning_store
from ..text import citations as text_citations
from ..text.hebrew import fold_quotes
from .library_links import match
from .shingles import fold
from .treatment import treatment_for

MIN_QUOTE_WORDS = 2  # a one-word "quotation" is a term, not a quotation to verify
QUOTE_GAP = 40  # characters between a quotation and the citation it is attributed to
# A quotation: an opening quote mark after a space, a bracket or punctuation (or at the start), a
# closing one not followed by a letter (the gershayim of an acronym, עע"מ, is neither).
_QUOTE = re.compile(r'(?:^|(?<=[\s(\[:;,\-–]))"(?=\S)(.{1,2000}?)(?<=\S)"(?![\w"])')
_ELLIPSIS = re.compile(r"\.\.\.|…|\[\s*\.\.\.\s*\]|\(\s*\.\.\.\s*\)")


def _quotes(text: str) -> list[tuple[int, int, str]]:
    folded = fold_quotes(text)
    return [(m.start(), m.end(), m.group(1)) for m in _QUOTE.finditer(folded)]


def _attributed(quotes: list[tuple[int, int, str]], cites: list, index: int) -> list[str]:
    """The quotations set right before or right after citation `index` (each quotation goes to
    the nearer citation; the text between holds no sentence end)."""
    out = []
    for q_start, q_end, quote in quotes:
        best, best_gap = None, QUOTE_GAP + 1
        for i, c in enumerate(cites):
            if q_end <= c.start:
                gap = c.start - q_end
            elif c.end <= q_start:
                gap = q_start - c.end
            else:
                continue  # overlapping: the citation is inside the quotation
            if gap < best_gap:
                best, best_gap = i, gap
        if best == index and best_gap <= QUOTE_GAP:
            out.append(quote)
    return out


def quote_in(quote: str, content: str) -> bool:
    """Whether a quotation is in a text: compared as comparison keys, each part between
    ellipses in order."""
    haystack = f" {fold(content)} "
    position = 0
    for part in _ELLIPSIS.split(quote):
        needle = fold(part)
        if not needle:
            continue
        at = haystack.find(f" {needle} ", position)
        if at < 0:
            return False
        position = at + len(needle)
    return True


def check_citations(conn, case: str, text: str) -> list[dict]:
    """Every citation of the draft against the library: found / ambiguous / not_in_library /
    quote_not_found (a quotation attributed to it that its text does not hold)."""
    cites = [c for c in text_citations.extract(text) if c.ref != case and c.kind != "plan"]
    quotes = [q for q in _quotes(text) if len(fold(q[2]).split()) >= MIN_QUOTE_WORDS]
    quotes = [q for q in quotes if not any(q[0] <= c.start < q[1] for c in cites)]
    out = []
    for index, citation in enumerate(cites):
        found = match(conn, citation)
        row = None
        if found.target is not None:
            row = learning_store.case_law_text(conn, found.target)
        status = "found" if row else "ambiguous" if found.ambiguous else "not_in_library"
        if row and any(not quote_in(q, row["content"]) for q in _attributed(quotes, cites, index)):
            status = "quote_not_found"
        out.append(
            {
                "text": citation.text,
                "ref": citation.ref,
                "status": status,
                "doc_id": row["doc_id"] if row else None,
                "treatment": treatment_for(conn, row["doc_id"]) if row else None,
            }
        )
    return out
