"""The search's hits as a lawyer reads them: one result per document (its best passage, the
others behind "עוד N קטעים"), ten documents a page, each passage a window around the words that
matched (Markdown's marks out, cut at a sentence's end), how it was found kept in a tooltip, and
its citation in the Israeli style with the paragraph it stands in (text/citation_style.py).

The hits are the search service's, in its order (retrieval ranks them; nothing here reorders):
a document's place is its best passage's, and each passage keeps its rank in the search (the
rank the telemetry knows it by). The passages' text and the paragraph numbers before them are
read once per page (retrieval/choices.passages)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup

from ...corpora import SEARCHABLE
from ...retrieval import choices
from ...retrieval.search import hit_citation
from ...text.case_numbers import case_id
from ...text.passages import paragraph_of, plain, window
from . import labels
from .search_form import FILTER_LABELS, address

PER_PAGE = 10  # documents a page
PER_FACET = 3  # documents of each facet shown under "הכול"
HITS = 50  # passages asked of the search: with at most 3 a document, 17 documents or more
PASSAGE_CHARS = 400  # the window of a passage shown
LOOKBACK = 3000  # characters read before a passage to find the paragraph it stands in
_WORD = re.compile(r"[\w\"'׳״-]+")


@dataclass
class Result:
    """One document: its passages, best first (each a shaped hit)."""

    passages: list[dict]

    @property
    def best(self) -> dict:
        return self.passages[0]

    @property
    def more(self) -> list[dict]:
        return self.passages[1:]

    def holds(self, rank: int | None) -> bool:
        return rank is not None and any(p["rank"] == rank for p in self.passages)


@dataclass
class Page:
    results: list[Result]  # this page's documents
    number: int
    count: int  # pages
    documents: int  # documents in all
    passages: int  # passages in all


def grouped(hits: list[dict]) -> list[list[tuple[int, dict]]]:
    """The hits (with their rank, from 1) by document, in the order of each one's best hit."""
    groups: dict[Any, list[tuple[int, dict]]] = {}
    for rank, hit in enumerate(hits, start=1):
        key = hit.get("doc_id") or (hit.get("kind"), rank)
        groups.setdefault(key, []).append((rank, hit))
    return list(groups.values())


def page_number(groups: list[list[tuple[int, dict]]], asked: int | None, at: int | None) -> int:
    """The page to show: the one asked for (within the pages there are), else the one holding
    the hit ranked `at` (back from a mark), else the first."""
    count = max(1, -(-len(groups) // PER_PAGE))
    if asked is not None:
        return min(max(asked, 1), count)
    for n, group in enumerate(groups):
        if at is not None and any(rank == at for rank, _ in group):
            return n // PER_PAGE + 1
    return 1


def paged(
    view: Any,
    hits: list[dict],
    query: str,
    number: int,
    link: Any,
    useful: set[int],
    per_page: int = PER_PAGE,
) -> Page:
    """Page `number` of the hits grouped by document (`per_page` documents), each passage
    shaped for the page: `link(hit, rank, paragraph)` is its source's address."""
    groups = grouped(hits)
    shown = groups[(number - 1) * per_page : number * per_page]
    texts = _texts(view, [h for group in shown for _, h in group])
    words = QueryWords(view.analyzer, query)
    results = [
        Result([shape(words, hit, rank, texts, link, rank in useful) for rank, hit in group])
        for group in shown
    ]
    count = max(1, -(-len(groups) // PER_PAGE))
    return Page(results, number, count, len(groups), len(hits))


def _texts(view: Any, hits: list[dict]) -> dict[tuple[str, str, int, int], tuple[str, int]]:
    """The text of each hit's span with what leads to it, by (corpus, doc_id, start, end)."""
    spans: dict[str, list[tuple[str, int, int]]] = {}
    for hit in hits:
        if hit.get("char_start") is not None and hit.get("char_end") is not None:
            spans.setdefault(hit["corpus"], []).append(
                (hit["doc_id"], hit["char_start"], hit["char_end"])
            )
    out: dict[tuple[str, str, int, int], tuple[str, int]] = {}
    if not spans:
        return out
    with view.store.connection() as conn:
        for corpus, wanted in spans.items():
            found = choices.passages(conn, SEARCHABLE[corpus], wanted, LOOKBACK)
            out.update({(corpus, *key): value for key, value in found.items()})
    return out


class QueryWords:
    """The words of a text that meet the query (their analyzed forms meet the query's), each
    word analyzed once for the page."""

    def __init__(self, analyzer: Any, query: str) -> None:
        self.analyzer = analyzer
        self.wanted = set(analyzer.query_terms(query))
        self.seen: dict[str, bool] = {}

    def meets(self, word: str) -> bool:
        if word not in self.seen:
            self.seen[word] = bool(self.wanted.intersection(self.analyzer.terms(word)))
        return self.seen[word]

    def spans(self, text: str) -> list[tuple[int, int]]:
        if not self.wanted:
            return []
        return [(m.start(), m.end()) for m in _WORD.finditer(text) if self.meets(m.group(0))]

    def highlight(self, text: str) -> Markup:
        """`text` escaped, each word that meets the query in <mark>, each line its own."""
        out: list[str] = []
        last = 0
        for start, end in self.spans(text):
            out.append(str(labels.mixed(text[last:start])))
            out.append(f"<mark>{labels.mixed(text[start:end])}</mark>")
            last = end
        out.append(str(labels.mixed(text[last:])))
        return Markup("".join(out).replace("\n", "<br>"))


def shape(
    words: QueryWords,
    hit: dict,
    rank: int,
    texts: dict,
    link: Any,
    useful: bool = False,
) -> dict:
    """A hit as the page shows it: its passage (a window, Markdown out, the query's words
    marked), the paragraph it stands in, its citation, how it was found and its source's link."""
    key = (hit["corpus"], hit.get("doc_id"), hit.get("char_start"), hit.get("char_end"))
    text, offset = texts.get(key) or (hit.get("snippet") or "", 0)
    if hit.get("kind") == "chunk" and key in texts:
        body = text[offset:]
    else:  # a principle's rule, a precedent's text: the hit's own words
        body = hit.get("snippet") or ""
    found = [start for start, _ in words.spans(body)]
    start, end = window(body, found, PASSAGE_CHARS)
    passage = plain(body[start:end])
    passage = ("… " if start else "") + passage + (" …" if end < len(body) else "")
    if hit.get("kind") == "chunk":
        paragraph = paragraph_of(text, offset, len(text), [offset + p for p in found])
    elif key in texts:  # a principle: its quote's place in its ruling
        paragraph = paragraph_of(text, offset, len(text))
    else:
        paragraph = None
    return {
        **hit,
        "rank": rank,
        "useful": useful,
        "snippet_html": words.highlight(passage),
        "paragraph": paragraph,
        "found_by": found_by(hit),
        "link": link(hit, rank, paragraph),
        "cite": cite(hit, paragraph),
        "term": hit.get("term"),  # a principle's term (retrieval/terms.principle_term)
    }


def found_by(hit: dict) -> str:
    """How the search found the passage, for a tooltip: "לפי מילים (מקום 2) · ..."."""
    legs = [f"{labels.label(leg, 'leg')} (מקום {v['rank']})" for leg, v in hit["explain"].items()]
    return "איך נמצא: " + " · ".join(legs) if legs else ""


def cite(hit: dict, paragraph: str | None) -> str:
    """The citation to copy: an attached precedent's as the chair wrote it, else the Israeli
    style with the pinpoint (the paragraph, else the page)."""
    if hit.get("kind") == "precedent":
        return hit.get("citation") or ""
    return hit_citation(hit, paragraph)


def suggestions(form: Any, query: str, args: dict[str, str]) -> list[tuple[str, str | None]]:
    """What to try when nothing was found: each link the same search widened (a filter off,
    the dates off, the case number's district off, another corpus); then a word of advice."""
    base = {"corpus": form.key, "q": query, **args}
    out: list[tuple[str, str | None]] = []
    for name, value in args.items():
        if name in form.required or name.startswith("date"):
            continue
        shown = labels.label(value, "practice_area") if name == "practice_area" else value
        out.append((f"בלי הסינון לפי {FILTER_LABELS[name]} «{shown}»", address(base | {name: ""})))
    if args.get("date_from") or args.get("date_to"):
        out.append(("בלי טווח התאריכים", address(base | {"date_from": "", "date_to": ""})))
    plainer = _without_district(query)
    if plainer != query:
        out.append((f"בלי המחוז: «{plainer}»", address(base | {"q": plainer})))
    if form.key != "all":
        out.append(("אותו חיפוש בכל המאגרים", address({"q": query})))
    for other in ("rulings", "internal"):
        if other != form.key:
            again = address({"corpus": other, "q": query})
            out.append((f"אותו חיפוש במאגר «{labels.FACET[other]}»", again))
    out.append(("נסי מילים אחרות, פחות מילים, או כתיב אחר של מספר התיק (למשל בלי המחוז)", None))
    return out


_DISTRICT_IN_QUERY = re.compile(r"\s*\([^()\d]+\)\s*(?=\d)")


def _without_district(query: str) -> str:
    """The query with a case number's district taken out (`ערר (מרכז) 1157/23` → `ערר
    1157/23`)."""
    return _DISTRICT_IN_QUERY.sub(" ", query).strip()


def not_found(named: dict, where: str | None = None) -> str:
    """An identifier the search did not find, said plainly: "לא נמצאה החלטה שמספרה 8092/24"
    (in a facet: "… במאגר «החלטות ועדות»")."""
    if named["kind"] == "case_number":
        said = f"לא נמצאה החלטה שמספרה {named['identifier']}"
    else:
        said = f"לא נמצא {named['identifier']}"
    return said + (f" במאגר «{where}»" if where else "")


def hers(named: dict, cases: set[str]) -> bool:
    """Whether a case number the query names is one of her own cases (then it was not asked
    of the library in vain: her case and its documents are hers, found or not there)."""
    if named["kind"] != "case_number":
        return False
    wanted = case_id(named["identifier"])
    if wanted is None:
        return False
    for case in cases:
        found = case_id(case)
        if (
            found is not None
            and found.number == wanted.number
            and wanted.proceeding in (None, found.proceeding)
            and wanted.district in (None, found.district)
        ):
            return True
    return False
