"""The copy check's citations (learning/checks/copy_policy.py): every citation of a draft against the
library, as a careful clerk checks it (docs/verification.md).

Each citation gets `status` (its most serious problem, by citation_states.SEVERITY; `found` when
it has none),
`problems` (all of them, each `{"kind", ...what was compared}`), `verified` (what was checked and
held: `number`, `parties`, `pinpoint`, `quote`, `law`, `section`), `unchecked` (what it writes
that the library cannot compare, with why), `in_quotation`, `support` and `attention`.

- The ruling by the one matching of learning/library/links.py (its whole identity): `ambiguous`
  (several rulings fit: none is guessed) or `not_in_library` (a missing precedent, or an invented
  one); a statute's section by its eId: `section_not_found` when the library holds the law but
  not the section (or subsection), `law_not_in_library` when it lacks the law itself
  (learning/checks/citation_sections.py).
- `name_mismatch`: the parties written with the number are not the library's
  (learning/checks/citation_names.py).
- `quote_not_found`: a quotation set right before or after the citation is not in its text
  (compared as comparison keys, each part between ellipses in order).
- `pinpoint_not_found` / `lookup_failed`: the paragraph or page written after it
  (learning/checks/citation_pinpoints.py); `lookup_failed` is also a citation the check could not run
  for, always with why.
- `support` and `attention`: learning/checks/citation_support.py; with a judge model (LEGAL_AI_VERIFIER,
  `legal-ai draft check` only), its word on the support as `support.judge`
  (learning/checks/citation_judge.py).

A draft's first MAX_CITATIONS citations are checked; `check_all` says where it stopped."""

from __future__ import annotations

import re
from typing import TypedDict

from ...store import drafts_lessons as learning_store
from ...text import citations as text_citations
from ...text.case_numbers import same_case
from ...text.hebrew import fold_quotes
from ..library import Treatment, match, treatment_for
from . import (
    citation_judge,
    citation_names,
    citation_pinpoints,
    citation_sections,
    citation_support,
)
from .citation_judge import JudgeAttention
from .citation_states import Problem, Status, Unchecked, status_of
from .citation_support import Support, WeakSupport
from .shingles import fold

MAX_CITATIONS = 500  # a decision cites tens, rarely 300; past this the check stops and says where
MIN_QUOTE_WORDS = 2  # a one-word "quotation" is a term, not a quotation to verify
QUOTE_GAP = 40  # characters between a quotation and the citation it is attributed to
# A quotation: an opening quote mark after a space, a bracket or punctuation (or at the start), a
# closing one not followed by a letter (the gershayim of an acronym, עע"מ, is neither).
_QUOTE = re.compile(r'(?:^|(?<=[\s(\[:;,\-–]))"(?=\S)(.{1,2000}?)(?<=\S)"(?![\w"])')


class CheckedCitation(TypedDict):
    """One citation of a draft as the check answers it (DESIGN §10, `draft check --json`'s
    `citations`; the module's docstring says what each key holds)."""

    text: str
    ref: str
    kind: str  # ruling | reporter | statute
    status: Status
    doc_id: str | None
    problems: list[Problem]
    verified: list[str]
    unchecked: list[Unchecked]
    in_quotation: bool
    support: Support | None
    attention: list[WeakSupport | JudgeAttention]
    treatment: Treatment | None


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


def _not_held(conn, citation, found) -> Problem:
    if found.ambiguous:
        return {"kind": "ambiguous", "candidates": len(found.candidates)}
    if citation.kind == "statute":
        return citation_sections.missing_law(conn, citation)
    if found.target is not None:
        return {"kind": "lookup_failed", "why": "the library item was removed during the check"}
    if citation.kind == "ruling" and citation.identity is None:
        return {"kind": "lookup_failed", "why": "its case number could not be read"}
    return {"kind": "not_in_library", "looked_for": citation.ref}


def _compare(citation, row: dict, quotes: list[str], pin, out: CheckedCitation) -> None:
    """What a held item is compared on: its parties, quotations, pinpoint, subsections."""
    problems, verified, unchecked = out["problems"], out["verified"], out["unchecked"]
    if citation.kind == "statute":
        problem = citation_sections.check_subsections(citation, row)
        problems.extend([problem] if problem else [])
        verified.extend(["law"] + ([] if problem else ["section"]))
        return
    verified.append("number")
    if citation.parties:
        held = citation_names.library_parties(row["title"], row["case_number"], row["content"])
        if held is None:
            unchecked.append({"what": "parties", "why": "the library records no parties"})
        elif citation_names.same_parties(citation.parties, held):
            verified.append("parties")
        else:
            problems.append({"kind": "name_mismatch", "written": citation.parties, "library": held})
    missing = [q for q in quotes if not quote_in(q, row["content"])]
    problems.extend({"kind": "quote_not_found", "quote": q} for q in missing)
    if quotes and not missing:
        verified.append("quote")
    if pin is not None:
        problem = citation_pinpoints.check(pin, row, quotes, quote_in)
        problems.extend([problem] if problem else [])
        verified.extend([] if problem else ["pinpoint"])


def check_all(
    conn,
    case: str,
    text: str,
    embedder=None,
    judge: citation_judge.Judge | None = None,
    *,
    treatment: bool = True,
) -> tuple[list[CheckedCitation], str | None]:
    """Every citation of the draft (its first MAX_CITATIONS) against the library, and a line
    saying where the check stopped (None when it checked them all). With an `embedder`, each
    ruling cited without a quotation gets the passage that best supports its sentence; with a
    `judge` too, the model's word on that support (`support.judge`). `treatment=False` leaves
    each citation's treatment null (bench/verify.py times the check without it)."""
    every = [
        c
        for c in text_citations.extract(text)
        if c.kind != "plan" and not (c.kind == "ruling" and same_case(c.ref, case))
    ]
    cites = every[:MAX_CITATIONS]
    stopped = None
    if len(every) > MAX_CITATIONS:
        stopped = (
            f"checked the first {MAX_CITATIONS} of {len(every)} citations; stopped at character "
            f"{every[MAX_CITATIONS].start} ({every[MAX_CITATIONS].text[:40]})"
        )
    # A quotation holding a citation (a ruling quoted with its own citations) is still the
    # quotation of the citation set beside it; the citation inside it is checked, unsupported.
    quotes = [q for q in _quotes(text) if len(fold(q[2]).split()) >= MIN_QUOTE_WORDS]
    pins = {
        i: citation_pinpoints.pinpoint_after(
            text, c.end, reporter=c.kind == "reporter" or c.reporter is not None
        )
        if c.kind != "statute"
        else None
        for i, c in enumerate(cites)
    }
    spans = [(c.start, pin.end if (pin := pins[i]) else c.end) for i, c in enumerate(cites)]
    rows: dict[str, tuple] = {}  # one lookup per ref in a check
    out = []
    for index, citation in enumerate(cites):
        if citation.ref not in rows:
            found = match(conn, citation)
            row = learning_store.case_law_text(conn, found.target) if found.target else None
            rows[citation.ref] = (found, row)
        found, row = rows[citation.ref]
        inside = any(q[0] <= citation.start < q[1] for q in quotes)
        attributed = _attributed(quotes, cites, index)
        entry: CheckedCitation = {
            "text": citation.text,
            "ref": citation.ref,
            "kind": citation.kind,  # ruling | reporter | statute
            "status": "found",
            "doc_id": row["doc_id"] if row else None,
            "problems": [],
            "verified": [],
            "unchecked": [],
            "in_quotation": inside,
            "support": None,
            "attention": [],
            "treatment": treatment_for(conn, row["doc_id"]) if row and treatment else None,
        }
        if row is None:
            entry["problems"].append(_not_held(conn, citation, found))
        else:
            _compare(citation, row, attributed, pins[index], entry)
            if (
                embedder is not None
                and citation.kind != "statute"
                and not attributed
                and not inside
            ):
                said = citation_support.claim(text, spans[index], spans)
                if said:
                    entry["support"] = citation_support.support(conn, embedder, row, said)
                    entry["attention"].extend(citation_support.attention(entry["support"]))
                if said and entry["support"] and judge is not None:
                    judged = judge.judge(said, entry["support"]["passage"])
                    entry["support"]["judge"] = judged
                    entry["attention"].extend(citation_judge.attention(judged))
        entry["status"] = status_of(entry["problems"])
        out.append(entry)
    return out, stopped


def check_citations(
    conn, case: str, text: str, embedder=None, *, treatment: bool = True
) -> list[CheckedCitation]:
    """Every citation of the draft against the library (check_all, without where it stopped)."""
    return check_all(conn, case, text, embedder, treatment=treatment)[0]
