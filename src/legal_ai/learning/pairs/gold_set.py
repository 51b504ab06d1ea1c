"""The office's own gold set, from the chair's citations.

Her finals (the style corpus) cite rulings and sections of laws. The sentence that cites is a
question a lawyer asked, and the cited authority its answer. For every final, in case-number
order, the citations are read by the one parser (text/citations.extract, the kinds the citation
graph keeps: learning/pairs/finals.GRAPH_KINDS, never her own case), the sentences by text/sentences.
A query is the citing sentence with every citation in it removed (and the sentence before it,
when the citing one alone is shorter than MIN_WORDS words); its relevant documents are the
authorities it cites that the library holds, as the citation graph linked them (the chair's pick
included; learning/library/links.match for a citation the graph has not seen). What is left out
is counted and listed with why: `not_in_library`, `ambiguous` (several rulings fit and the chair
has not picked), `too_short` (under MIN_WORDS words even with the sentence before).

The cases are split into two halves (`a`, `b`) so that no case has queries in both: cases by
descending number of queries, each to the half with fewer queries so far (ties: a), in
case-number order. The corpus holds the judged items and up to `distractors` other searchable
items of the library, the same on every run (store/gold.distractors); the citing finals' own
copies are never distractors (each holds its queries' sentences word for word). Everything is
sorted: the same finals and library give the same files, byte for byte.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NotRequired, TypedDict

from ...errors import InvalidInput
from ...evaluation.datasets import Dataset
from ...store import gold as store
from ...store.rows import Conn
from ...text import citations as text_citations
from ...text.hebrew import PREFIX_CLASS
from ...text.sentences import sentence_spans
from ..library import match
from .finals import GRAPH_KINDS

if TYPE_CHECKING:
    from ...context import Context

NAME = "office-gold"
MIN_WORDS = 6  # a context shorter than this says too little to be a question
DISTRACTORS = 200  # library items besides the judged ones (the set's corpus stays small)
HALVES = ("a", "b")
_PARAGRAPH_NUMBER = re.compile(r"^\s*(?:\d{1,3}(?:\.\d{1,3})*|[א-ת])\.\s+")
_PREFIX_LEFT = re.compile(rf"(?:(?<=\s)|(?<=^)|(?<=\())(?:{PREFIX_CLASS}){{1,2}}$")
_EMPTY_BRACKETS = re.compile(r"[(\[]\s*[,;:.\-–]*\s*[)\]]")
_SPACE_BEFORE_MARK = re.compile(r"\s+([,.;:!?)\]])")
_DOUBLE_MARKS = re.compile(r"([,;:])(?:\s*[,;:])+")


class HalfCounts(TypedDict):
    cases: int
    queries: int


class GoldReport(TypedDict):
    """What a gold set holds (its report.json): the finals read, cases, queries, judgments and
    documents, each half's cases and queries, and the citations left out, counted by reason
    and listed."""

    name: str
    finals: int
    cases: int
    queries: int
    judgments: int
    documents: int
    halves: dict[str, HalfCounts]
    left_out: dict[str, int]
    left_out_citations: list[dict[str, Any]]
    min_words: int


class GoldWritten(GoldReport):
    """`legal-ai eval gold from-finals OUT_DIR --json`: the report, the folder and the files
    written, and why an empty set is empty."""

    folder: str
    files: list[str]
    message: NotRequired[str]


@dataclass
class GoldSet:
    queries: list[dict] = field(default_factory=list)  # query_id, text, case, half, cites
    qrels: dict[str, list[str]] = field(default_factory=dict)  # query_id -> doc ids
    corpus: list[dict] = field(default_factory=list)  # doc_id, title, text (+ statute fields)
    left_out: list[dict] = field(default_factory=list)  # case, citation, ref, reason
    finals: int = 0

    @property
    def empty(self) -> bool:
        return not self.queries

    def files(self) -> dict[str, str]:
        """Every file of the set by its path under the output folder: the whole set
        (corpus.jsonl, queries.jsonl, qrels.tsv), each half's queries and qrels under
        half-a/ and half-b/, and report.json."""
        out = {
            "corpus.jsonl": _jsonl(self.corpus),
            "queries.jsonl": _jsonl(self.queries),
            "qrels.tsv": self._qrels(self.queries),
        }
        for half in HALVES:
            mine = [q for q in self.queries if q["half"] == half]
            out[f"half-{half}/queries.jsonl"] = _jsonl(mine)
            out[f"half-{half}/qrels.tsv"] = self._qrels(mine)
        out["report.json"] = json.dumps(self.report(), ensure_ascii=False, indent=2) + "\n"
        return out

    def _qrels(self, queries: list[dict]) -> str:
        buffer = io.StringIO()
        writer = csv.writer(buffer, delimiter="\t", lineterminator="\n")
        writer.writerow(["query_id", "doc_id", "relevance"])
        for q in queries:
            for doc_id in self.qrels[q["query_id"]]:
                writer.writerow([q["query_id"], doc_id, 1])
        return buffer.getvalue()

    def report(self) -> GoldReport:
        """What the set holds and what was left out, with why (no time: a rerun is identical)."""
        reasons: dict[str, int] = {}
        for entry in self.left_out:
            reasons[entry["reason"]] = reasons.get(entry["reason"], 0) + 1
        halves: dict[str, HalfCounts] = {
            half: {
                "cases": len({q["case"] for q in self.queries if q["half"] == half}),
                "queries": sum(q["half"] == half for q in self.queries),
            }
            for half in HALVES
        }
        return {
            "name": NAME,
            "finals": self.finals,
            "cases": len({q["case"] for q in self.queries}),
            "queries": len(self.queries),
            "judgments": sum(len(v) for v in self.qrels.values()),
            "documents": len(self.corpus),
            "halves": halves,
            "left_out": reasons,
            "left_out_citations": self.left_out,
            "min_words": MIN_WORDS,
        }

    def fingerprint(self) -> str:
        digest = hashlib.sha256()
        for name, content in sorted(self.files().items()):
            if name != "report.json":
                digest.update(name.encode() + b"\0" + content.encode())
        return f"office-gold-{digest.hexdigest()[:12]}"

    def dataset(self, half: str | None = None) -> Dataset:
        """The set (or one half) as the harness reads it (evaluation/datasets.Dataset)."""
        queries = [q for q in self.queries if half is None or q["half"] == half]
        return Dataset(
            name=NAME if half is None else f"{NAME}-{half}",
            corpus={r["doc_id"]: r for r in self.corpus},
            queries={q["query_id"]: q["text"] for q in queries},
            qrels={q["query_id"]: dict.fromkeys(self.qrels[q["query_id"]], 1) for q in queries},
            fields=("title", "text"),
            fingerprint=self.fingerprint() + (f"-{half}" if half else ""),
        )

    def write(self, folder: Path) -> list[str]:
        """Write every file under `folder`; the paths written."""
        written = []
        for name, content in self.files().items():
            path = Path(folder) / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(content, encoding="utf-8")
            written.append(str(path))
        return written


def _jsonl(rows: list[dict]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in rows)


def _words(text: str) -> int:
    return len(re.findall(r"[\w\"'׳״]+", text))


def without_citations(text: str, start: int, end: int, cites: list) -> str:
    """text[start:end] with every citation in it cut out, and what cutting leaves (empty
    brackets, a paragraph's number, doubled marks) tidied."""
    parts, at = [], start
    for c in cites:
        if c.end <= start or c.start >= end:
            continue
        before = text[at : max(at, c.start)]
        parts.append(_PREFIX_LEFT.sub("", before))  # בעע"מ ...: the ב goes with it
        at = max(at, c.end)
    parts.append(text[at:end])
    cut = " ".join(p.strip() for p in parts if p.strip())
    cut = _PARAGRAPH_NUMBER.sub("", cut)
    cut = _EMPTY_BRACKETS.sub("", cut)
    cut = _DOUBLE_MARKS.sub(r"\1", cut)
    cut = _SPACE_BEFORE_MARK.sub(r"\1", cut)
    return " ".join(cut.split()).strip(" ,;:–-")


def _resolve(conn: Conn, citation, links: dict, own: int | None) -> tuple:
    """(case_law id or None, reason when None) of a citation, by the citation graph's link."""
    link = links.get(citation.ref)
    if link is not None:
        if link["case_law_id"] is not None and link["case_law_id"] != own:
            return link["case_law_id"], None
        if link["case_law_id"] is None and link["candidates"]:
            return None, "ambiguous"
        if link["case_law_id"] is None:
            return None, "not_in_library"
    found = match(conn, citation, {own} if own else ())
    if found.target is not None:
        return found.target, None
    return None, "ambiguous" if found.ambiguous else "not_in_library"


def _final_queries(conn: Conn, final: dict, left_out: list[dict]) -> list[dict]:
    """The queries of one final: [{text, case, targets: [case_law ids], cites: [refs]}]."""
    case, text, own = final["case_number"], final["content"] or "", final["case_law_id"]
    every = text_citations.extract(text)
    cites = [c for c in every if c.kind in GRAPH_KINDS and c.ref != case]
    if not cites:
        return []
    links = store.authority_links(conn, sorted({c.ref for c in cites}))
    spans = sentence_spans(text)
    out: list[dict] = []
    for index, (start, end) in enumerate(spans):
        here = [c for c in cites if start <= c.start < end]
        if not here:
            continue
        resolved = []
        for c in here:
            target, reason = _resolve(conn, c, links, own)
            if target is None:
                left_out.append({"case": case, "citation": c.text, "ref": c.ref, "reason": reason})
            else:
                resolved.append((c, target))
        if not resolved:
            continue
        query = without_citations(text, start, end, every)
        if _words(query) < MIN_WORDS and index > 0:
            query = without_citations(text, spans[index - 1][0], end, every)
        if _words(query) < MIN_WORDS:
            left_out += [
                {"case": case, "citation": c.text, "ref": c.ref, "reason": "too_short"}
                for c, _ in resolved
            ]
            continue
        out.append(
            {
                "text": query,
                "case": case,
                "targets": sorted({t for _, t in resolved}),
                "cites": sorted({c.ref for c, _ in resolved}),
            }
        )
    return out


def _split(by_case: dict[str, list[dict]]) -> dict[str, str]:
    """Case -> half: the cases by descending count of queries (then case number), each to the
    half with fewer queries so far."""
    sizes = dict.fromkeys(HALVES, 0)
    halves = {}
    for case in sorted(by_case, key=lambda c: (-len(by_case[c]), c)):
        half = min(HALVES, key=lambda h: (sizes[h], h))
        halves[case] = half
        sizes[half] += len(by_case[case])
    return halves


def _record(row: dict) -> dict:
    """A library item as a corpus.jsonl line (a statute section with its law and eId, so the
    harness ingests it as legislation)."""
    record = {
        "doc_id": doc_key(row),
        "title": row["title"] or row["doc_id"],
        "text": row["content"] or "",
    }
    if row["doc_type"] == "legislation" and row["eid"] and row["law_title"]:
        record.update(eId=row["eid"], law_title=row["law_title"])
        if row["section_num"]:
            record["num"] = row["section_num"]
    return record


def doc_key(row: dict) -> str:
    """A library item's id in the set: its side of the library and its doc_id."""
    side = "internal" if row["source_kind"] == "internal_committee" else "external"
    return f"{side}:{row['doc_id']}"


def build(conn: Conn, distractors: int = DISTRACTORS) -> GoldSet:
    """The gold set of the finals stored now (the module's docstring says how)."""
    if distractors < 0:
        raise InvalidInput(f"--distractors takes 0 or more, not {distractors}")
    gold = GoldSet()
    finals = store.finals(conn)
    gold.finals = len(finals)
    by_case: dict[str, list[dict]] = {}
    for final in finals:
        found = _final_queries(conn, final, gold.left_out)
        seen: set[str] = set()
        for q in found:
            if q["text"] not in seen:  # one question asked twice in a final counts once
                seen.add(q["text"])
                by_case.setdefault(final["case_number"], []).append(q)
    halves = _split(by_case)
    judged = sorted({t for qs in by_case.values() for q in qs for t in q["targets"]})
    rows = {r["id"]: r for r in store.items(conn, judged)}
    citing = [f["case_law_id"] for f in finals if f["case_law_id"] is not None]
    others = store.distractors(conn, sorted(set(judged) | set(citing)), distractors)
    gold.corpus = sorted((_record(r) for r in [*rows.values(), *others]), key=lambda r: r["doc_id"])
    for case in sorted(by_case):
        for n, q in enumerate(by_case[case], start=1):
            query_id = f"{case}#{n}"
            gold.queries.append(
                {
                    "query_id": query_id,
                    "text": q["text"],
                    "case": case,
                    "half": halves[case],
                    "cites": q["cites"],
                }
            )
            gold.qrels[query_id] = sorted(doc_key(rows[t]) for t in q["targets"])
    return gold


def of_office(app: Context, distractors: int = DISTRACTORS) -> GoldSet:
    """The gold set of the finals the office holds now (one read-only transaction)."""
    with app.store.connection() as conn:
        return build(conn, distractors)


def from_finals(app: Context, out: Path, distractors: int = DISTRACTORS) -> GoldWritten:
    """`legal-ai eval gold from-finals`: build the set and write it under `out`; its report
    with the files written (an empty set writes its empty files and says so)."""
    gold = of_office(app, distractors)
    written = gold.write(out)
    answer: GoldWritten = {**gold.report(), "folder": str(out), "files": written}
    if gold.empty:
        answer["message"] = (
            "no final cites a ruling or a section the library holds: the set is empty"
            if gold.finals
            else "no finals in the style corpus: the set is empty"
        )
    return answer
