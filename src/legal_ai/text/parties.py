"""A decision's parties as a case is named: "העוררים נ' המשיבים" from its header's party lines
(`העוררים: י' כהן ומ' כהן (בדויים)` / `המשיבים: הוועדה המקומית ...; ד' לוי`), the desk's list of
cases shows it beside the case number, a citation names it (text/citation_style.py). The first
party on each side (of a numbered list too: `1. י' כהן 2. מ' כהן`), a parenthesised note
(בדויים) left out, "ואח'" when the side names more."""

from __future__ import annotations

import re

_SIDE = {
    "appellants": r"עורר|עוררים|עוררת|עוררות|מבקש|מבקשת|מבקשים|עותר|עותרת|עותרים",
    "respondents": r"משיב|משיבה|משיבים|משיבות",
}
_LINE = {
    side: re.compile(rf"^\s*(?:ה)?(?:{words})(?:\s+\d+)?\s*:\s*(?P<names>.+)$", re.M)
    for side, words in _SIDE.items()
}
MAX_CHARS = 140


def _first(names: str) -> str:
    names = re.sub(r"\s*\([^)]*\)", "", names).strip(" ;,.")
    names = re.sub(r"^\d{1,2}[.)]\s*", "", names)  # a numbered list: `1. י' כהן 2. מ' כהן`
    parts = [p.strip(" ,.") for p in re.split(r";|\s+-\s+|\s+\d{1,2}[.)]\s+", names)]
    parts = [p for p in parts if p]
    if not parts:
        return ""
    return parts[0] + (" ואח'" if len(parts) > 1 else "")


def party_line(header: str | None) -> str | None:
    """ "X נ' Y" from a header's party lines; one side alone when the other is absent; None
    when the header names no party."""
    sides = []
    for pattern in _LINE.values():
        found = pattern.search(header or "")
        sides.append(_first(found.group("names")) if found else "")
    line = " נ' ".join(s for s in sides if s)
    if not line:
        return None
    return line if len(line) <= MAX_CHARS else line[: MAX_CHARS - 1].rstrip() + "…"
