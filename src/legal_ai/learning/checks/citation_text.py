"""A checked citation (learning/checks/citation_check.py) in a line per finding, for the CLI's
`draft check`: its problems, what was verified and not, its supporting passage (and the judge
model's word on it, said as the model's) and what asks for the chair's attention."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def _problem(p: dict) -> str:
    kind = p["kind"]
    if kind == "name_mismatch":
        return f"name_mismatch: written {p['written']!r}, the library's {p['library']!r}"
    if kind == "pinpoint_not_found":
        said = f"pinpoint_not_found: {p['pinpoint']}"
        if p.get("missing"):
            said += f" (the ruling's {p['unit']}s are {p['held']})"
        if p.get("quote_in"):
            said += f"; the quotation is in {p['unit']} " + ", ".join(map(str, p["quote_in"]))
        return said
    if kind in ("section_not_found", "law_not_in_library"):
        return f"{kind}: section {p['section']} of {p['law']}"
    if kind == "quote_not_found":
        return f"quote_not_found: {p['quote'][:80]!r}"
    if kind == "lookup_failed":
        what = f" ({p['pinpoint']})" if p.get("pinpoint") else ""
        return f"lookup_failed{what}: {p['why']}"
    if kind == "ambiguous":
        return f"ambiguous: {p['candidates']} rulings of the library fit it"
    return kind


def citation_lines(c: Mapping[str, Any]) -> list[str]:
    """The lines to print under a citation's `citation REF: STATUS`."""
    out = [f"problem {_problem(p)}" for p in c.get("problems", [])]
    if c.get("verified"):
        out.append("verified: " + ", ".join(c["verified"]))
    out += [f"not checked: {u['what']} ({u['why']})" for u in c.get("unchecked", [])]
    if c.get("in_quotation"):
        out.append("inside a quotation")
    support = c.get("support")
    if support:
        where = ", ".join(
            x
            for x in (
                f"paragraph {support['paragraph']}" if support.get("paragraph") else "",
                f"page {support['page']}" if support.get("page") else "",
                f"chars {support['char_start']}-{support['char_end']}",
            )
            if x
        )
        out.append(f"support {support['score']} ({where}): {support['passage'][:120]}")
        if support.get("judge"):
            out.append(_judged(support["judge"]))
    out += [_attention(a) for a in c.get("attention", [])]
    return out


def _judged(j: dict) -> str:
    """The judge model's word, said as the model's."""
    if j["verdict"] is None:
        return f"judge (the model's word, {j['model'] or 'LEGAL_AI_VERIFIER'}): {j['unanswered']}"
    return f"judge (the model's word, {j['model']}): {j['verdict']}, quoting {j['quote'][:120]!r}"


def _attention(a: dict) -> str:
    if a["kind"] == "judge":
        return f"attention: the model {a['model']} says {a['verdict']} (the model's word)"
    return f"attention: {a['kind']} (score {a['score']} under {a['threshold']})"
