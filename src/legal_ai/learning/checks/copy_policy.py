"""The copy policy on drafts (07-learning §0.1, INV-LRN5): `legal-ai draft check
CASE FILE` and every `legal-ai draft add`.

Copied text is found by shingle overlap, never by embeddings: the draft and every other decision
(the chair's finals in the style corpus and the committee's internal decisions, of OTHER cases:
the case's own documents are never "another case") become word 8-grams of comparison keys
(normalized, spelling folded, without prefix letters; paragraph numbers skipped). A draft sentence
is copied from a decision when at least COPY_SHARE of its words lie in 8-grams that decision
shares with the draft. Consecutive sentences copied from one decision, of one kind, are one
passage. Each passage is classified:

- `template` (allowed): it recurs in two or more of the chair's finals (a formula of hers), or,
  copying no substance, it lies in one of her measured templates (knowledge/templates.py,
  table block_templates, when measured) or in a formulaic block of its source (header, opening,
  hearing, signature);
- `substance` (never copy): it carries substance of the source case that this case's own file
  does not hold: a ruling citation or case number, a plan or parcel number, a date, an amount or
  other number, an address, a party's name (the purity rules of learning/checks/purity.py, minus
  statute sections, which every case may cite), or it comes from the source's facts (background,
  subject, decision under appeal) or its holding (conclusion);
- `analysis` (generalize and adapt): the rest, copied from the source's claims, legal framework
  or discussion;
- left out (`generic_left_out` counts them): a passage that copies no substance of the source
  (above) and shares fewer than MIN_SPECIFIC_WORDS words with it through 8-grams that fewer than
  COMMON_IN other decisions hold (learning/checks/copy_sources.py) — a generic sentence or a fact
  pattern of the field ("העוררים הם הבעלים של בית מגורים חד-משפחתי") is no evidence of copying,
  wherever it stands in its source.

Each passage gives the source's own words beside the draft's (`source.text`).

The same check verifies every citation of the draft against the library (learning/library/links.py
matches it as a final's citations are linked, a ruling by its whole identity): `found`,
`ambiguous` (several rulings fit: none guessed), `not_in_library` (a missing precedent, or an
invented one), `quote_not_found` when a quotation set right before or after the citation is not
in the cited text, and the states of learning/checks/citation_check.py (name_mismatch,
pinpoint_not_found, section_not_found, law_not_in_library, lookup_failed), each citation with its
problems, what was verified, and the passage that supports its sentence (docs/verification.md).

The words, the block spans and the fingerprints are in learning/checks/shingles.py, the decisions of
other cases that share shingles with a draft in learning/checks/copy_sources.py, the citations' check in
learning/checks/citation_check.py.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal, NotRequired, TypedDict

import psycopg

from ...errors import InvalidInput
from ...store import drafts_lessons as learning_store
from ...store import templates as template_store
from ...text import citations as text_citations
from ...text.hebrew import tokens
from ...text.sentences import sentence_ends
from .. import vocabulary as vocab
from ..methodology import merged_profile, read_decision, segment
from . import citation_judge, cite_report, purity
from .citation_check import CheckedCitation, check_all
from .citation_check import quote_in as quote_in
from .citation_states import SEVERITY
from .copy_sources import Source, _matched_sources
from .shingles import (
    SHINGLE,
    Word,
    block_at,
    fold,
    keyed_words,
    refresh_apart,
    through_punctuation,
)

if TYPE_CHECKING:
    from ...context import Context

COPY_SHARE = 0.6  # share of a sentence's words that must lie in shared shingles
MIN_SENTENCE_WORDS = 3  # shorter sentences are never a passage on their own
# Words of a passage the source must share through rare 8-grams (copy_sources.COMMON_IN) for
# its place in the source alone (facts, holding, discussion) to make it a finding: fewer is a
# generic sentence ("העוררים הם הבעלים של בית מגורים חד-משפחתי"), not evidence of copying.
MIN_SPECIFIC_WORDS = 12
FORMULAIC_BLOCKS = ("header", "opening", "hearing", "signature")
SUBSTANCE_BLOCKS = ("background", "subject", "decision_under_appeal", "conclusion")
# Findings of learning/checks/purity.py that are not substance here: a statute section is the law every
# case may cite, and holding words are judged by the block they come from.
_NOT_SUBSTANCE = frozenset({"statute_citation", "holding"})

PassageKind = Literal["template", "analysis", "substance"]  # a finding; "generic" is none


class CopySource(TypedDict):
    """Where a copied passage comes from: the decision and the characters of its text."""

    case_number: str | None
    doc_id: str
    char_start: int
    char_end: int
    text: str


class CopiedPassage(TypedDict):
    """A passage of the draft copied from another case: what it is, its words, its source."""

    kind: PassageKind
    text: str
    source: CopySource


class DraftCheck(TypedDict):
    """The copy-policy report of a draft (`legal-ai draft check --json`, DESIGN §10): the
    passages copied from other cases, how many generic ones were left out, every citation
    checked against the library (citation_check.CheckedCitation) and, past
    citation_check.MAX_CITATIONS of them, where the check stopped."""

    case_number: str
    passages: list[CopiedPassage]
    generic_left_out: int
    citations: list[CheckedCitation]
    citations_stopped: NotRequired[str]


class TextCheck(DraftCheck, cite_report.StoredReport):
    """The report of a draft given as text (MCP `check_draft`, HTTP), with the cite-check
    report kept when it is a stored draft version (cite_report.StoredReport)."""


def _contains(haystack: str, needle: str) -> bool:
    return bool(needle) and f" {needle} " in f" {haystack} "


# -- the check ------------------------------------------------------------------------------------


def _sentences(text: str, words: list[Word]) -> list[tuple[int, int]]:
    """Sentences as [first word, last word + 1), cut where text/sentences.py says a sentence
    ends (never at a decimal, a date, a paragraph's number or an abbreviation)."""
    out, start, cuts, n = [], 0, sentence_ends(text), 0
    for i, word in enumerate(words):
        while n < len(cuts) and cuts[n] < word.end:
            n += 1
        following = words[i + 1].start if i + 1 < len(words) else len(text) + 1
        if n < len(cuts) and cuts[n] < following or i + 1 == len(words):
            out.append((start, i + 1))
            start = i + 1
    return out


def _source_words(source: Source, indices: list[int]) -> tuple[int, int]:
    """The source words a sentence's covered words map to: the largest cluster (gaps of at most
    a shingle), as (first, last) word indices of the source."""
    mapped = sorted(source.cover[i] for i in indices)
    best: list[int] = []
    cluster = [mapped[0]]
    for j in mapped[1:]:
        if j - cluster[-1] > SHINGLE:
            best = max(best, cluster, key=len)
            cluster = []
        cluster.append(j)
    best = max(best, cluster, key=len)
    return best[0], best[-1]


@dataclass
class _Own:
    """This case's own file: its case documents and the draft's own header and signature."""

    text: str
    refs: set[str]
    names: set[str]


def _own_file(conn, case: str, draft_blocks: dict[str, str]) -> _Own:
    rows = learning_store.case_document_contents(conn, case)
    header = draft_blocks.get("header", "")
    signature = draft_blocks.get("signature", "")
    text = "\n".join([*(r["content"] for r in rows), header, signature])
    own_words = f"{header}\n{signature}"
    names = purity.party_names(text) | set(tokens(own_words))
    names |= {w.key for w in keyed_words(own_words)}
    return _Own(fold(text), {c.ref for c in text_citations.extract(text)}, names)


def _copied_substance(text: str, source_text: str, names: set[str], own: _Own) -> list[str]:
    """What substance of the source a draft passage copies that this case's file lacks."""
    source_folded = fold(source_text)
    source_refs = {c.ref for c in text_citations.extract(source_text)}
    found = []
    for finding in purity.check(text, names - own.names):
        if finding.rule in _NOT_SUBSTANCE:
            continue
        if finding.rule == "ruling_citation":
            refs = {c.ref for c in text_citations.extract(finding.match)}
            if refs & source_refs and not refs & own.refs:
                found.append(finding.describe())
            continue
        key = fold(finding.match)
        if finding.rule == "name" or (
            _contains(source_folded, key) and not _contains(own.text, key)
        ):
            found.append(finding.describe())
    return list(dict.fromkeys(found))


@dataclass
class _Run:
    """Consecutive copied sentences of the draft with one source (and one recurrence)."""

    start: int  # character span in the draft
    end: int
    source: Source
    span: tuple[int, int]  # character span in the source
    recurrent: bool  # in two or more of the chair's finals
    words: list[int] = field(default_factory=list)  # the draft word indices of its sentences


def _template_spans(conn) -> dict[int, list[tuple[int, int]]]:
    """Where the measured templates (knowledge/templates.py, table block_templates) lie in the
    finals: {style document id: [(char_start, char_end)]}; empty before they are measured."""
    spans: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for row in template_store.template_sources(conn):
        for where in row["sources"] if isinstance(row["sources"], list) else []:
            try:
                spans[int(where["document_id"])].append(
                    (int(where["char_start"]), int(where["char_end"]))
                )
            except (KeyError, TypeError, ValueError):
                continue
    return spans


def _in_template(run: _Run, templates: dict[int, list[tuple[int, int]]]) -> bool:
    """Whether most of the copied text is one of her measured templates in its source final."""
    if run.source.corpus != "style":
        return False
    start, end = run.span
    inside = sum(
        max(0, min(end, t_end) - max(start, t_start))
        for t_start, t_end in templates.get(run.source.item_id, ())
    )
    return inside >= COPY_SHARE * (end - start)


def _classify(
    run: _Run,
    text: str,
    block_spec: dict,
    own: _Own,
    templates: dict[int, list[tuple[int, int]]],
    specific_words: int = MIN_SPECIFIC_WORDS,
) -> PassageKind | Literal["generic"]:
    """template | substance | analysis | generic (the module's docstring says how)."""
    if run.recurrent:  # one of the chair's formulas: it recurs across her finals
        return "template"
    source = run.source
    source_text = source.text[run.span[0] : run.span[1]]
    passage = text[run.start : run.end]
    if _copied_substance(passage, source_text, source.names(block_spec), own):
        return "substance"
    if _in_template(run, templates):
        return "template"
    block = block_at(source.segmentation(block_spec), run.span[0])
    if block in FORMULAIC_BLOCKS:
        return "template"
    if sum(1 for i in run.words if i in source.rare) < specific_words:
        return "generic"  # common phrasing, too little of it: no evidence of copying
    if block in SUBSTANCE_BLOCKS:
        return "substance"
    return "analysis"


def _runs(text: str, words: list[Word], sources: list[Source]) -> list[_Run]:
    runs: list[_Run] = []
    joinable = False  # whether the next copied sentence may extend the last run
    for start, end in _sentences(text, words):
        count = end - start
        if count < MIN_SENTENCE_WORDS:
            continue  # too short to judge; it neither starts nor breaks a run
        need = max(MIN_SENTENCE_WORDS, math.ceil(COPY_SHARE * count))
        copied = []
        for source in sources:
            covered = [i for i in range(start, end) if i in source.cover]
            if len(covered) >= need:
                copied.append((source, len(covered), _source_words(source, covered)))
        if not copied:
            joinable = False
            continue
        copied.sort(key=lambda c: (-c[1], c[0].corpus != "style"))
        finals = [c for c in copied if c[0].corpus == "style"]
        recurrent = len({c[0].case_number for c in finals}) >= 2
        source, _, (first, last) = finals[0] if recurrent else copied[0]
        source.load()
        span = (
            source.loaded_words[first].start,
            through_punctuation(source.text, source.loaded_words[last].end),
        )
        char_start, char_end = words[start].start, through_punctuation(text, words[end - 1].end)
        previous = runs[-1] if runs else None
        if (
            joinable
            and previous
            and previous.recurrent == recurrent
            and previous.source.doc_id == source.doc_id
        ):
            previous.end = char_end
            previous.span = (min(previous.span[0], span[0]), max(previous.span[1], span[1]))
            previous.words.extend(range(start, end))
        else:
            runs.append(
                _Run(char_start, char_end, source, span, recurrent, list(range(start, end)))
            )
        joinable = True
    return runs


def check_text(
    conn,
    case: str,
    text: str,
    draft_blocks: dict[str, str] | None = None,
    *,
    refresh: bool = True,
    embedder=None,
    judge: citation_judge.Judge | None = None,
    specific_words: int = MIN_SPECIFIC_WORDS,
) -> DraftCheck:
    """The copy-policy report of a draft of `case` (its text, and its blocks when known); with
    an `embedder`, each citation's supporting passage (learning/checks/citation_support.py), and with a
    `judge` the model's word on it (learning/checks/citation_judge.py). A draft
    citing more than citation_check.MAX_CITATIONS authorities gets `citations_stopped`: where
    the check stopped."""
    case = vocab.case_number(case)
    if draft_blocks is None:
        try:
            draft_blocks = segment(conn, text).blocks
        except InvalidInput:  # no headings: the draft's own header and signature are unknown
            draft_blocks = {}
    spec = _block_spec(conn)
    words = keyed_words(text)
    sources = _matched_sources(conn, case, words, refresh=refresh)
    own = _own_file(conn, case, draft_blocks)
    templates = _template_spans(conn) if sources else {}
    passages: list[CopiedPassage] = []
    generic = 0
    for run in _runs(text, words, sources):
        kind = _classify(run, text, spec, own, templates, specific_words)
        if kind == "generic":
            generic += 1
            continue
        passages.append(
            {
                "kind": kind,
                "text": text[run.start : run.end],
                "source": {
                    "case_number": run.source.case_number,
                    "doc_id": run.source.doc_id,
                    "char_start": run.span[0],
                    "char_end": run.span[1],
                    "text": run.source.text[run.span[0] : run.span[1]],
                },
            }
        )
    citations, stopped = check_all(conn, case, text, embedder, judge)
    report: DraftCheck = {
        "case_number": case,
        "passages": passages,
        "generic_left_out": generic,
        "citations": citations,
    }
    if stopped:
        report["citations_stopped"] = stopped
    return report


def _block_spec(conn) -> dict:
    return merged_profile(conn, None).get("blocks", {})


# -- services ---------------------------------------------------------------------------------------


MAX_DRAFT_CHARS = 200_000  # a draft given as text (a decision runs 20-80k characters)


def check_draft_text(app: Context, case: str, text: str) -> TextCheck:
    """The same report for a draft given as text (MCP `check_draft`: a writing agent over the
    network has no file on this machine), cleaned like any text it sends. Nothing of the text is
    stored; when it is a stored draft version of the case, the system keeps a new cite-check
    report of that version (`report`: its id and version; learning/checks/cite_report.py)."""
    case = vocab.case_number(case)
    text = vocab.free_text(text, "draft text", max_chars=MAX_DRAFT_CHARS)
    take_fingerprints(app)
    embedder = app.embedder  # made before the transaction: it records itself on its own connection
    with app.store.reading() as conn:  # the check holds no transaction while it compares
        report = check_text(conn, case, text, refresh=False, embedder=embedder)
    with app.store.transaction() as conn:
        # The text of a stored draft version: a new cite-check report of it.
        return {
            **report,
            **cite_report.for_stored_draft(app, conn, case, text, report["citations"]),
        }


def check(
    app: Context, case: str, path: Path | str, *, source_name: str | None = None
) -> DraftCheck:
    """`legal-ai draft check CASE FILE`: the copy-policy report of a draft file (not stored);
    with LEGAL_AI_VERIFIER set, the judge model's word on each supporting passage."""
    case = vocab.case_number(case)
    extracted = read_decision(app, path, source_name)
    take_fingerprints(app)
    embedder = app.embedder  # made before the transaction: it records itself on its own connection
    judge = citation_judge.for_check(app)
    try:
        with app.store.reading() as conn:
            return check_text(
                conn, case, extracted.text, refresh=False, embedder=embedder, judge=judge
            )
    finally:
        if judge is not None:
            judge.close()


def take_fingerprints(app: Context) -> int:
    """Take the fingerprints a check lacks (new finals and decisions) before it runs, through the
    login's own store: they are derived here from stored texts, and no request's role writes
    them (an agent would empty or forge them; migration 0033). A login that may not write them
    (an agent-only MCP server) checks against those taken so far (`legal-ai upkeep` and the
    server's next check take the rest)."""
    try:
        return refresh_apart(app.derived_store)
    except psycopg.errors.InsufficientPrivilege:
        return 0


def store_report(conn, draft_id: int, report: DraftCheck) -> None:
    """Keep the report with the draft it checked (migration 0019)."""
    learning_store.set_copy_report(conn, draft_id, report)


def summary(report: dict | None) -> dict | None:
    """Counts of a stored report: passages per kind, citations per status."""
    if not report:
        return None
    kinds = {k: 0 for k in ("template", "analysis", "substance")}
    for passage in report.get("passages", []):
        kinds[passage["kind"]] = kinds.get(passage["kind"], 0) + 1
    statuses = {s: 0 for s in ("found", "ambiguous", "not_in_library", "quote_not_found")}
    statuses.update({s: 0 for s in SEVERITY if s not in statuses})
    for citation in report.get("citations", []):
        statuses[citation["status"]] = statuses.get(citation["status"], 0) + 1
    return {"passages": kinds, "citations": statuses}
