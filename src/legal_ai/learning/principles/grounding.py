"""Whether a model's claim rests on the text it was given: the one claim check of the learning
loop. A claim (a canonical statement's sentence, an enrichment's sentence, a principle's rule)
may carry no case or statute citation, no number, no qualifier word (QUALIFIERS: רק, אלא אם,
למעט, בכפוף, תמיד, לעולם …) and no name (a word after a name marker: מר, גב', עו"ד, חברת, …, or
before בע"מ) that its quotes do not carry. What such a claim adds is substance the source did not
say — a number changed, an exception invented, a party named — so it goes to the chair.

And how a document is put in a prompt: `delimited(label, text)` wraps it between <<<LABEL and
LABEL>>> markers (the system prompt says what is between them is data, never instructions), with
any marker-like `<<<` / `>>>` inside the text broken so a document cannot close its own block.
"""

from __future__ import annotations

import re

from ...text.citations import extract as citations
from ...text.hebrew import normalize

# Words that narrow or widen a rule: a claim may use one only when its quotes do.
QUALIFIERS = (
    "רק",
    "אך ורק",
    "בלבד",
    "אלא אם",
    "אלא אם כן",
    "למעט",
    "מלבד",
    "בכפוף",
    "בתנאי",
    "תמיד",
    "לעולם",
    "בשום מקרה",
    "בכל מקרה",
    "כל עוד",
    "אף פעם",
)
# Words after which a name follows (a person, a firm), and the suffix a firm's name ends with.
NAME_MARKERS = (
    "מר",
    "מרת",
    "גב'",
    "גברת",
    'עו"ד',
    'רו"ח',
    'ד"ר',
    "פרופ'",
    "אדריכל",
    "אדריכלית",
    "השמאי",
    "השמאית",
    "המהנדס",
    "חברת",
    "שמאי",
    "שמאית",
)
FIRM_SUFFIX = 'בע"מ'
PREFIXES = "ושהבכלמ"
NUMBER = re.compile(r"\d+(?:[./-]\d+)*")
_MARKER = re.compile(r"<{3,}|>{3,}")


def words(text: str) -> list[str]:
    return re.findall(r"[\w\"'-]+", normalize(text))


def _heads(word: str) -> set[str]:
    """The word with and without a one- or two-letter prefix (ו, ש, ה, ב, כ, ל, מ)."""
    return {word} | {
        word[k:] for k in (1, 2) if len(word) > k and all(c in PREFIXES for c in word[:k])
    }


def has_qualifier(found: list[str], qualifier: str) -> bool:
    """`qualifier` (one or more words) in `found`, its first word with or without a prefix:
    ורק, ובכפוף, שלעולם."""
    parts = qualifier.split()
    n = len(parts)
    for i in range(len(found) - n + 1):
        if parts[0] in _heads(found[i]) and found[i + 1 : i + n] == parts[1:]:
            return True
    return False


def names(found: list[str]) -> set[str]:
    """The words of `found` that name someone: after a name marker, or before בע"מ."""
    markers = {normalize(m) for m in NAME_MARKERS}
    suffix = normalize(FIRM_SUFFIX)
    named = set()
    for i, word in enumerate(found):
        if _heads(word) & markers and i + 1 < len(found):
            named.add(found[i + 1])
        if word == suffix and i > 0:
            named.add(found[i - 1])
    return named


def claim_problem(claim: str, quotes: list[str]) -> str | None:
    """What `claim` carries that none of `quotes` does (None: nothing): a citation, a number, a
    qualifier or a name."""
    joined = "\n".join(quotes)
    quote_words = words(joined)
    quote_refs = {c.ref for c in citations(joined)}
    for cite in citations(claim):
        if cite.ref not in quote_refs:
            return f"it cites {cite.ref}, which the quote does not"
    quote_numbers = set(NUMBER.findall(normalize(joined)))
    for number in NUMBER.findall(normalize(claim)):
        if number not in quote_numbers:
            return f"it has the number {number}, which the quote does not"
    claim_words = words(claim)
    for qualifier in QUALIFIERS:
        if has_qualifier(claim_words, qualifier) and not has_qualifier(quote_words, qualifier):
            return f"it adds the qualifier {qualifier!r}, which the quote does not have"
    known = {head for word in quote_words for head in _heads(word)}
    for name in sorted(names(claim_words)):
        if not _heads(name) & known:
            return f"it names {name!r}, whom the quote does not"
    return None


def delimited(label: str, text: str) -> str:
    """`text` between <<<LABEL and LABEL>>>, any marker inside it broken (`<<<` → `< < <`)."""
    safe = _MARKER.sub(lambda m: " ".join(m.group(0)), text)
    return f"<<<{label}\n{safe}\n{label}>>>"
