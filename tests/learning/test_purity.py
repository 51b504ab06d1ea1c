"""Voice purity's findings (learning/checks/purity.check) on long texts: which characters a
finding already covers is kept as one flag per character, so that a long draft's many numbers
are each looked up once. The findings are the same as the span-by-span rule states them: a
match is a finding unless it starts inside an earlier finding (or, for a bare number, inside a
list marker). No database."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from legal_ai.learning.checks import purity
from legal_ai.text import citations
from legal_ai.text.hebrew import normalize


def spans_rule(text: str, names: set[str]) -> list[purity.Finding]:
    """The rule as written: each match tested against the list of spans found before it."""
    norm = normalize(text or "")
    cited = citations.extract(norm)
    found = [purity.Finding(*purity._CITATION_RULES[c.kind], c.text) for c in cited]
    covered = [(c.start, c.end) for c in cited]
    for rule, category, pattern in purity._PATTERNS:
        for m in pattern.finditer(norm):
            if not any(s <= m.start() < e for s, e in covered):
                found.append(purity.Finding(rule, category, m.group(0).strip()))
                covered.append((m.start(), m.end()))
    markers = [(m.start(), m.end()) for m in purity._LIST_MARKER.finditer(norm)]
    for m in purity._DIGITS.finditer(norm):
        if not any(s <= m.start() < e for s, e in covered + markers):
            found.append(purity.Finding("number", "fact", m.group(0)))
    if names:
        found += [purity.Finding("name", "fact", h) for h in purity._name_hits(norm, names)]
    found += [
        purity.Finding("holding", "halacha", m.group(0))
        for m in purity._HOLDING.finditer(purity._unquoted(norm))
    ]
    return found


PIECES = [
    'עע"מ 1234/05',
    "ערר (מרכז) 1042/23",
    "סעיף 149 לחוק",
    "גוש 6543 חלקה 12",
    "ביום 3.2.2025",
    'סך של 890,000 ש"ח',
    "2.7 מטרים",
    "1.",
    "(2)",
    "3)",
    "בשנת 2019",
    "ברחוב הדקל 4",
    "כהן",
    "נקבע כי",
    "הלכה היא",
    "17",
    "4/5",
    "ההחלטה",
    "ועדת הערר",
    "\n",
    " ",
    ",",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=60))
def test_the_findings_are_the_span_rules(pieces):
    text = " ".join(pieces)
    assert purity.check(text, {"כהן"}) == spans_rule(text, {"כהן"})


def test_a_long_draft_full_of_numbers_has_every_finding_once():
    """A draft of 1,000 numbered paragraphs with dates, amounts, parcels and citations."""
    rng = random.Random(7)
    text = "\n".join(
        f"{i}. " + " ".join(rng.choice(PIECES) for _ in range(8)) for i in range(1, 1001)
    )
    found = purity.check(text, {"כהן"})
    assert found == spans_rule(text, {"כהן"})
    rules = {f.rule for f in found}
    assert {"ruling_citation", "statute_citation", "date", "amount", "number", "name"} <= rules
