"""What a methodology rule, as the chair writes it in words, would match in her own finals —
shown beside the rule before she saves it.

- a block's heading (`heading`): the lines of her finals that segmentation would take as that
  heading (the line as text/blocks.py reads it — without its numbering or colon, at most
  MAX_HEADING_CHARS — matching one of the phrases whole);
- the signature's start (`signature`): the lines starting with one of the phrases;
- a phrase of a list (`phrase`: transition phrases, phrases to avoid): the sentences holding it,
  as the learning counts phrases (text/phrases.count_phrases: spelling-folded, a prefix
  letter allowed).

Her newest FINALS_READ finals are read; at most SHOWN sentences come back, with the counts of
all."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from ...store import methodology_versions as versions_store
from ...text import blocks as text_blocks
from ...text.phrases import clean_phrase, count_phrases, pattern_of
from ...text.sentences import sentence_spans

if TYPE_CHECKING:
    from ...context import Context

FINALS_READ = 200
SHOWN = 8
Kind = Literal["heading", "signature", "phrase"]


def preview(app: Context, kind: Kind, phrases: list[str]) -> dict:
    """Her finals' sentences (or lines) the rule would match: `matches` (at most SHOWN, each
    with its case number, the sentence and the phrase it holds), `total` and `finals_matched`
    of `finals_read`."""
    phrases = [p for p in dict.fromkeys(clean_phrase(p) for p in phrases) if p]
    with app.store.connection() as conn:
        finals = versions_store.final_texts(conn, FINALS_READ)
    matches: list[dict] = []
    total = matched = 0
    for final in finals if phrases else []:
        found = _found(kind, final["content"], phrases)
        if found:
            matched += 1
            total += len(found)
            room = SHOWN - len(matches)
            matches += [{"case_number": final["case_number"], **f} for f in found[:room]]
    return {
        "matches": matches,
        "total": total,
        "finals_matched": matched,
        "finals_read": len(finals),
    }


def _found(kind: Kind, text: str, phrases: list[str]) -> list[dict]:
    if kind == "phrase":
        if not count_phrases(text, phrases):
            return []
        out = []
        for start, end in sentence_spans(text):
            sentence = " ".join(text[start:end].split())
            held = count_phrases(sentence, phrases)
            if held:
                out.append({"sentence": sentence, "phrase": next(iter(held))})
        return out
    compiled = text_blocks.compile_pattern(
        pattern_of(phrases), "the rule", signature=kind == "signature"
    )
    out = []
    for line in text.splitlines():
        if kind == "heading":
            candidate = text_blocks.heading_line(line)
            if candidate and len(candidate) <= text_blocks.MAX_HEADING_CHARS:
                hit = compiled.fullmatch(candidate, timeout=text_blocks.MATCH_SECONDS)
            else:
                hit = None
        else:
            hit = compiled.match(line, timeout=text_blocks.MATCH_SECONDS)
        if hit:
            out.append({"sentence": " ".join(line.split()), "phrase": clean_phrase(hit[0])})
    return out
