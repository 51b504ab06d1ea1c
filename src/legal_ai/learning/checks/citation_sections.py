"""A statute's section as a draft cites it — `סעיף 112(א)(6) לחוק התכנון והבנייה` — against the
law the library holds (the citation check's `section_not_found` and `law_not_in_library`,
learning/checks/citation_check.py).

A law is held when a legislation item of the library carries its title (the statute ingest,
text/akn.py, keeps one item per top-level section, its eId `point_112`, and the section's text
with one line per subsection). The section is looked up by its eId (learning/library/links.match);
its subsections in its text: each label (`(א)`, then `(6)`) opening a line, in order, a deeper
label before the next label of the level above it (`(6)` after `(א)` and before `(ב)`).
A law given by a name the parser reads but the library does not hold (`לחוק המקרקעין`, a short
name no law's title carries) is `law_not_in_library`, naming the law as it was read.
"""

from __future__ import annotations

import re

from ...retrieval import legs
from ...store import copy_check as store
from ...text.citations import Citation
from .citation_states import Problem

_OPENING = re.compile(r"^\s*(?:\d{1,4}[א-ת]{0,3}\.\s*)?\(([א-ת0-9]{1,4})\)")  # `2. (א)`, `(6)`
_LABELS = re.compile(r"\(([א-ת0-9]{1,4})\)")


def _level(label: str) -> str:
    return "digit" if label.isdigit() else "letter"


def has_subsections(content: str, subsections: str) -> bool:
    """Whether a section's text holds the subsections written (`(א)(6)`), nested in order."""
    opened = [m.group(1) if (m := _OPENING.match(line)) else None for line in content.splitlines()]
    labels = _LABELS.findall(subsections)
    at = 0
    for depth, label in enumerate(labels):
        stop = len(opened)
        if depth:  # the parent's scope ends at the next label of its level
            level = _level(labels[depth - 1])
            stop = next(
                (j for j in range(at, len(opened)) if (o := opened[j]) and _level(o) == level),
                stop,
            )
        found = next((j for j in range(at, stop) if opened[j] == label), None)
        if found is None:
            return False
        at = found + 1
    return True


def missing_law(conn, citation: Citation) -> Problem:
    """The problem of a section the library does not hold: its law held (section_not_found,
    with the law's title) or not (law_not_in_library, with the law as read)."""
    law = legs.reference_for(citation).law_pattern
    title = store.law_title(conn, law) if law else None
    written = citation.schedule and f"{citation.schedule}, " or ""
    section = f"{written}{citation.section}"
    if title is None:
        return {"kind": "law_not_in_library", "law": citation.law, "section": section}
    return {"kind": "section_not_found", "law": title, "section": section}


def check_subsections(citation: Citation, row: dict) -> Problem | None:
    """section_not_found when the held section lacks the subsections written."""
    if not citation.subsections or has_subsections(row["content"], citation.subsections):
        return None
    return {
        "kind": "section_not_found",
        "law": row.get("law_title"),
        "section": f"{citation.section}{citation.subsections}",
        "held_section": row.get("section_num"),
    }
