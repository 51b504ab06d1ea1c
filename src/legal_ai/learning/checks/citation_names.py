"""A ruling's parties as a draft writes them against the parties the library records (the
citation check's `name_mismatch`, learning/checks/citation_check.py).

The library's parties: its title's (text/citation_style.parties: the words after the case
number, `X נ' Y`), else its header's party lines (text/parties.party_line: `העוררים: ...`).
Each side is compared folded:

- the spelling and the prefix letters as every comparison key folds them (learning/shingles:
  `הוועדה` = `ועדה`, `בנייה` = `בניה`, `לתכנון` = `תכנון`);
- a parenthesised note (`(בדויים)`), `ואח'` / `ואחרים`, quotes and punctuation left out;
- initials (`י' כהן`) left out: `י' כהן` = `יוסי כהן` = `כהן`;
- an anonymised name (`פלוני`, `אלמוני`, `פלמוני`, their feminine and plural) is one name:
  `פלוני` = `אלמונית`; it never equals a real name (a name put on an anonymised ruling is
  what a fabrication looks like, and the chair is shown both);
- an authority's long and short names: the words of its kind (`לתכנון ובנייה`, `מחוז`) left
  out, so `הוועדה המקומית לתכנון ובנייה הרצליה` = `הוועדה המקומית הרצליה`.

Two sides are the same when the words of one are all among the other's (the short name of a
party is its long name's words); the parties are the same when both sides are.
"""

from __future__ import annotations

import re

from ...text.citation_style import parties as title_parties
from ...text.parties import party_line
from .shingles import fold

_ANONYMOUS = {
    fold(w)
    for w in ("פלוני", "פלונית", "פלונים", "אלמוני", "אלמונית", "אלמונים", "פלמוני", "פלמונית")
}
ANONYMOUS = "<anonymous>"
# Words an authority's long name adds to its short one (folded as every word is).
_AUTHORITY_WORDS = {fold(w) for w in ("לתכנון", "ובנייה", "ולבנייה", "מחוז", "לבנייה")}
_OTHERS = re.compile(r"\bו(?:אח['׳]|אחרים|אחרות)(?![א-ת])|\(\s*[^()]*\)|\s+ו-?\s*\d+\s+אח['׳]")
_SIDES = re.compile(r"\s(?:נ['׳]|נגד)\s")
HEADER_CHARS = 3000  # the part of a ruling's text its party lines are read from


def library_parties(title: str | None, case_number: str | None, content: str) -> str | None:
    """The parties the library records for a ruling, or None when it records none."""
    return title_parties(title, case_number) or party_line(content[:HEADER_CHARS])


def side_keys(side: str) -> frozenset[str]:
    """One side's comparison keys (see the module's rules)."""
    text = _OTHERS.sub(" ", side.replace("…", " "))
    keys = set()
    for key in fold(text).split():
        if key in _ANONYMOUS:
            keys.add(ANONYMOUS)
        elif len(key) > 1 and key not in _AUTHORITY_WORDS:
            keys.add(key)
    return frozenset(keys)


def sides(parties: str) -> list[frozenset[str]]:
    """The two sides' keys of `X נ' Y` (one side when there is no `נ'`)."""
    return [side_keys(s) for s in _SIDES.split(f" {parties} ", maxsplit=1)]


def same_side(written: frozenset[str], held: frozenset[str]) -> bool:
    if not written or not held:
        return True  # nothing left to compare (an initial alone): not a mismatch
    return written <= held or held <= written


def same_parties(written: str, held: str) -> bool:
    """Whether the parties written with a number are the library's (side by side)."""
    ours, theirs = sides(written), sides(held)
    return all(same_side(a, b) for a, b in zip(ours, theirs, strict=False))
