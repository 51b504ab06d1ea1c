"""One case's file as the desk's case pages read it (store/cases.py), in the reader's
connection: the list of cases with the library's missing precedents, one case's row, and what
is stored of one case — its drafts, its final, the held-out rows of its finals and her usual
beside them, the learning jobs, its lessons, the promotes, the precedents she attached, the
final's citations — with the lookups its page links by (the corpus of each copy-check source
and cited ruling, the rulings its citations are linked to) and the final's labels against her
latest draft's. Reads only; the page puts it in her words (web/desk/case_view.py)."""

from __future__ import annotations

from typing import Any, TypedDict

from ..store import cases as store
from ..store import drafts_lessons as lessons_store
from ..store import review_queue as queue_store
from ..store.rows import Conn

LABELS = ("appeal_type", "outcome", "practice_area")


class LabelMismatch(TypedDict):
    name: str
    draft: str | None
    final: str | None


class FinalLabels(TypedDict):
    """Her final's labels against her latest draft's, for the final's upload form: `prefill`
    (her final's when she gave them, else the draft's), `unconfirmed` (taken from the draft
    without her word) and `mismatch` (each label the draft gave otherwise)."""

    prefill: dict[str, str | None]
    unconfirmed: bool
    mismatch: list[LabelMismatch]


class Ledger(TypedDict):
    """What is stored of one case, read in one connection (the page adds its own parts)."""

    drafts: list[dict]
    final: dict | None
    history: list[dict]
    others: list[dict]  # her usual before the final's row (for a row stored without its own)
    jobs: list[dict]
    lessons: list[dict]
    promotions: list[dict]
    precedents: list[dict]
    cited: list[dict]
    copy_sources: dict[str, str]  # a copy-check passage's source doc_id -> its corpus
    copy_rulings: dict[str, str]  # a checked citation's doc_id -> its ruling's corpus
    linked: dict[int, dict]  # a cited ruling's case_law id -> its doc_id and source kind
    final_labels: FinalLabels


def cases(conn: Conn) -> tuple[list[dict], list[dict]]:
    """(every case, the most recently active first; the library's missing precedents)."""
    return store.case_list(conn), lessons_store.missing_precedents(conn)


def case_row(conn: Conn, case_number: str) -> dict | None:
    """One case as the list shows it, with its pair's ids; None when there is no such case."""
    return store.case_row(conn, case_number)


def ledger(conn: Conn, row: dict) -> Ledger:
    """Everything stored of the case `row` (a `case_row`) that its page shows."""
    case, case_law_id = row["case_number"], row["case_law_id"]
    drafts = store.drafts_of(conn, case)
    history = store.history_of(conn, case)
    cited = lessons_store.citations_of(conn, case_law_id) if case_law_id else []
    report = (drafts[-1]["copy_report"] if drafts else None) or {}
    sources = {x["source"]["doc_id"] for x in report.get("passages", []) if x["source"]["doc_id"]}
    rulings = {c["doc_id"] for c in report.get("citations", []) if c["doc_id"]}
    linked = sorted(
        {
            r["linked_case_law_id"]
            for r in cited
            if r["kind"] != "statute" and r["linked_case_law_id"]
        }
    )
    return {
        "drafts": drafts,
        "final": store.final_of(conn, case_law_id) if case_law_id else None,
        "history": history,
        "others": store.usual(conn, case, history[-1]["id"]) if history else [],
        "jobs": store.jobs_of(conn, case),
        "lessons": lessons_store.list_lessons(conn, case_number=case),
        "promotions": store.promotions_of(conn, case),
        "precedents": store.precedents_of(conn, case),
        "cited": cited,
        "copy_sources": queue_store.located(conn, sources, ("style", "internal")),
        "copy_rulings": queue_store.located(conn, rulings, ("external", "internal")),
        "linked": store.linked_rulings(conn, linked) if linked else {},
        "final_labels": final_labels(conn, case),
    }


def final_labels(conn: Conn, case: str) -> FinalLabels:
    """The final's labels of `case` against its latest draft's (FinalLabels)."""
    row: dict[str, Any] = store.labels_of(conn, case) or {}
    draft = {n: row.get(f"draft_{n}") for n in LABELS}
    final = {n: row.get(n) for n in LABELS}
    source = row.get("labels_source")
    mismatch: list[LabelMismatch] = (
        [
            {"name": n, "draft": draft[n], "final": final[n]}
            for n in LABELS
            if draft[n] and final[n] != draft[n]
        ]
        if source == "final"
        else []
    )
    prefill = final if source else {n: draft[n] or final[n] for n in LABELS}
    return {"prefill": prefill, "unconfirmed": source == "draft", "mismatch": mismatch}
