"""What the case pages show (web/desk/cases.py), read in one connection and put
in the chair's words: the list of cases (number, parties, status, last activity, what waits on
each) and one case's page — the newest cite-check report's problems first (cite_report.py), the copy check's findings of its latest draft (substance first,
each passage with its source), the figures of its final explained (case_figures.py), where the
learning stands, its timeline in date order (timeline.py), its citations (linked, missing with
their upload, several rulings to pick from), the lessons a promote may fold, and the redline of
our draft against her final, block by block (`redline`, the review queue's word diff)."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

from markupsafe import Markup

from ...errors import InvalidInput
from ...learning import case_file
from ...learning import vocabulary as vocab
from ...learning.arrival import metadata
from ...learning.checks import SEVERITY, copy_policy
from ...learning.library import links as library_links
from ...learning.methodology import segment
from ...retrieval import terms
from ...text.parties import party_line
from . import labels, originals
from .case_figures import figures, frozen_usual, learning_state, usual_said
from .cite_report import problems_first
from .labels import bdi, plural
from .review_queue import word_diff
from .timeline import timeline

COPY_KINDS = labels.COPY_KIND  # most serious first
CITATION_STATUS = labels.CITATION_STATUS
SEVERITY_ORDER = {k: n for n, k in enumerate(SEVERITY)}  # found: none of them
# A case's status; a case without a draft or a final has no pair yet.
STATUS = {"open": "טרם הוגשה טיוטה", **labels.PAIR_STATUS}
CORPUS_OF = {"external_upload": "external", "internal_committee": "internal"}
LEARNING = {
    "queued": "הלמידה ממתינה לתור",
    "running": "הלמידה מתבצעת",
    "waiting": "הלמידה ממתינה (הסיבה בדף התיק)",
    "failed": "הלמידה נכשלה",
}


def href(case: str) -> str:
    """The case page's address: /cases/<its number, URL-encoded> (no internal id)."""
    return "/cases/" + quote(case, safe="")


# -- the list -----------------------------------------------------------------------------------


def waiting(row: dict) -> list[dict]:
    """What waits on a case, each in her words with where to do it: {said, href, serious}."""
    page = href(row["case_number"])
    out = []
    if row["copy_substance"]:
        out.append({"said": "בדיקת ההעתקה מצאה מהות", "href": page + "#copy", "serious": True})
    if row["status"] == "draft_done":
        out.append({"said": "ממתין להחלטה החתומה", "href": page + "#upload", "serious": False})
    if row["lessons_waiting"]:
        said = plural(row["lessons_waiting"], "לקח אחד מחכה להכרעתך", "לקחים מחכים להכרעתך")
        link = f"/review?case={quote(row['case_number'], safe='')}"
        out.append({"said": said, "href": link, "serious": False})
    if row["status"] == "analyzed":
        out.append({"said": "אפשר לקדם לקחים", "href": page + "#promote", "serious": False})
    if row["missing"]:
        said = plural(row["missing"], "תקדים חסר בספרייה", "תקדימים חסרים בספרייה")
        out.append({"said": said, "href": page + "#citations", "serious": False})
    if row["ambiguous"]:
        said = plural(row["ambiguous"], "ציטוט לבחירת פסק הדין", "ציטוטים לבחירת פסק הדין")
        out.append({"said": said, "href": page + "#citations", "serious": False})
    if row["learning"] in LEARNING:
        out.append(
            {"said": LEARNING[row["learning"]], "href": page + "#learning", "serious": False}
        )
    return out


def listed(row: dict) -> dict:
    """A case as the list shows it."""
    return {
        "case_number": row["case_number"],
        "href": href(row["case_number"]),
        "parties": row["title"] or party_line(row["header"]),
        "status": row["status"],
        "status_said": STATUS.get(row["status"], "מצב אחר"),
        "last_activity": row["last_activity"],
        "waiting": waiting(row),
    }


def case_list(view: Any) -> dict:
    """The list page: every case, the missing precedents and the ambiguous citations of the
    library (each with its form), and the cases under the old anchors (#copy, #promote)."""
    with view.store.connection() as conn:
        cases, missing = case_file.cases(conn)
    rows = [listed(r) for r in cases]
    prefilled = [{**m, "court": terms.court_of_case_number(m["ref"])} for m in missing]
    return {
        "cases": rows,
        "missing": prefilled,
        "ambiguous": library_links.ambiguous(view)["ambiguous"],
        "copy_cases": [r for r in rows if any(w["serious"] for w in r["waiting"])],
        "promote_cases": [r for r in rows if r["status"] == "analyzed"],
    }


# -- one case -----------------------------------------------------------------------------------


def copy_findings(
    report: dict | None, where: dict[str, str], ruling: dict[str, str]
) -> dict | None:
    """A draft's copy-check report for the page: its passages (substance first), each with its
    source's corpus for the link (`where`: doc_id -> corpus), its citations (those not found
    first) with the ruling's corpus (`ruling`), and the counts (copy_policy.summary)."""
    if not report:
        return None
    rank = {k: n for n, k in enumerate(COPY_KINDS)}
    order = {k: n for n, k in enumerate(CITATION_STATUS)}
    passages = sorted(report.get("passages", []), key=lambda x: rank.get(x["kind"], 9))
    citations = sorted(
        grouped(report.get("citations", [])), key=lambda c: order.get(c["status"], 9)
    )
    return {
        "passages": [{**x, "corpus": where.get(x["source"]["doc_id"])} for x in passages],
        "citations": [{**c, "corpus": ruling.get(c["doc_id"])} for c in citations],
        "counts": copy_policy.summary(report),
    }


def grouped(citations: list[dict]) -> list[dict]:
    """The report's citations one row per authority (its `ref`), in order of first mention:
    the first mention's words, the most serious status of its mentions, how many there are
    (`mentions`), and its kind (`statute` or not: a report kept before kinds were recorded
    reads a statute from its key, `... סעיף N`)."""
    rows: dict[str, dict] = {}
    for c in citations:
        key = c.get("ref") or c.get("text") or ""
        kind = c.get("kind") or ("statute" if re.search(r"(?:סעיף|תקנה) \S+$", key) else "ruling")
        row = rows.get(key)
        if row is None:
            rows[key] = {**c, "kind": kind, "mentions": 1}
            continue
        row["mentions"] += 1
        if SEVERITY_ORDER.get(c["status"], 99) < SEVERITY_ORDER.get(row["status"], 99):
            row.update(status=c["status"], problems=c.get("problems"))
        row["doc_id"] = row.get("doc_id") or c.get("doc_id")
    return list(rows.values())


def citations(rows: list[dict], ambiguous: list[dict], found: dict[int, dict]) -> dict:
    """The final's citations of rulings by what she may do: linked (to the ruling in the
    library: `found`, by its id), missing (open: upload its ruling) and several rulings fitting
    (pick one); the statutes counted."""
    rulings = [r for r in rows if r["kind"] != "statute"]
    candidates = {a["authority_id"]: a for a in ambiguous}
    seen: set[int] = set()
    out: dict[str, list] = {"linked": [], "missing": [], "ambiguous": []}
    for r in rulings:
        if r["authority_id"] in seen:
            continue
        seen.add(r["authority_id"])
        if r["linked_case_law_id"]:
            ruling = found.get(r["linked_case_law_id"]) or {}
            corpus = CORPUS_OF.get(ruling.get("source_kind", ""))
            out["linked"].append({**r, "doc_id": ruling.get("doc_id"), "corpus": corpus})
        elif r["authority_id"] in candidates:
            out["ambiguous"].append(candidates[r["authority_id"]])
        elif r["missing_status"] == "open":
            court = terms.court_of_case_number(r["ref"])
            out["missing"].append({**r, "court": court})
    statutes = len({r["authority_id"] for r in rows if r["kind"] == "statute"})
    return {**out, "statutes": statutes}


# What the ledger reads only to build the page's sections by (which corpus a copy-check source
# or a checked ruling is in, which citations are linked): not part of the page itself.
LOOKUPS = frozenset({"copy_sources", "copy_rulings", "linked"})


def _read(conn: Any, row: dict) -> dict:
    """Everything of one case the page shows, from one connection."""
    case, case_law_id = row["case_number"], row["case_law_id"]
    stored = case_file.ledger(conn, row)
    drafts = stored["drafts"]
    report = drafts[-1]["copy_report"] if drafts else None
    return {
        **stored,
        "copy": copy_findings(report, stored["copy_sources"], stored["copy_rulings"]),
        "metadata": metadata.state_of(conn, case_law_id) if case_law_id else None,
        "cite": problems_first(conn, case),  # the page opens with its problems
        "files": originals.listed(conn, case),  # each upload's original file, when kept
    }


REDLINE_MAX_WORDS = 6000  # a block longer than this (either side) is shown whole, not diffed


def _blocks(conn: Any, text: str) -> dict[str, str]:
    """A decision's blocks in order, by the methodology's headings; a text whose headings
    cannot be told is one block (`other`)."""
    try:
        found = segment(conn, text).blocks
    except InvalidInput:
        return {"other": text}
    return {b: t for b, t in found.items() if t.strip()} or {"other": text}


def redline(conn: Any, draft: str | None, final: str | None) -> list[dict]:
    """Our draft against her final, block by block, in the final's order then the draft's
    blocks she dropped: each {block, diff: (op, text) runs — review_queue.word_diff, as the
    review queue draws a lesson's evidence —, changed, long: too long to diff (both shown)}."""
    if not draft or not final:
        return []
    ours, hers = _blocks(conn, draft), _blocks(conn, final)
    out = []
    for block in [*hers, *(b for b in ours if b not in hers)]:
        before, after = ours.get(block, ""), hers.get(block, "")
        long = max(len(before.split()), len(after.split())) > REDLINE_MAX_WORDS
        diff = [] if long else word_diff(before, after)
        changed = long or any(op != "equal" for op, _ in diff)
        out.append(
            {
                "block": block,
                "diff": diff,
                "changed": changed,
                "long": long,
                "draft": before,
                "final": after,
            }
        )
    return out


def exists(view: Any, case: str) -> str | None:
    """The case's number as stored, when there is such a case (else None)."""
    try:
        number = vocab.case_number(case)
    except InvalidInput:
        return None
    with view.store.connection() as conn:
        return number if case_file.case_row(conn, number) else None


def case_page(view: Any, case: str) -> dict | None:
    """One case's page, or None when there is no such case."""
    with view.store.connection() as conn:
        row = case_file.case_row(conn, case)
        if row is None:
            return None
        read = _read(conn, row)
        ambiguous = library_links.ambiguous(view)["ambiguous"] if read["cited"] else []
        cited = citations(read["cited"], ambiguous, read["linked"])
        draft_text = read["drafts"][-1]["content"] if read["drafts"] else None
        lines = redline(conn, draft_text, read["final"]["content"] if read["final"] else None)
    link = quote(case, safe="")
    history = read["history"]
    lessons = read["lessons"]
    usual = frozen_usual(history[-1], read["others"]) if history else {"finals": 0}
    shown = {k: v for k, v in read.items() if k not in LOOKUPS}
    return {
        **shown,
        "case": listed(row),
        "row": row,
        "citations": cited,
        "redline": lines,
        "figures": figures(history[-1] if history else None, usual),
        "usual_said": usual_said(usual["finals"]),
        "learning": learning_state(read["jobs"], lessons, link),
        "timeline": timeline(read, cited),
        "candidates": [r for r in lessons if r["review_status"] in ("proposed", "approved")]
        if row["status"] == "analyzed"
        else [],
    }


def upload_notice(page: dict, uploaded: str | None, same: bool) -> Markup | None:
    """The line after a draft's or a final's upload, from what is stored: which version."""
    if uploaded == "draft" and page["drafts"]:
        version = bdi(page["drafts"][-1]["version"])
        if same:
            return Markup("הטיוטה הזו כבר נקלטה (גרסה {}); לא נוספה גרסה חדשה.").format(version)
        return Markup("הטיוטה נקלטה — גרסה {}. ממצאי בדיקת ההעתקה למטה.").format(version)
    if uploaded == "final" and page["final"]:
        if same:
            return Markup("ההחלטה החתומה הזו כבר נקלטה; דבר לא השתנה.")
        return Markup("ההחלטה החתומה נקלטה (גרסה {}).").format(bdi(page["final"]["version"]))
    return None
