"""The cite-check report (docs/verification.md "The report"): for every draft
version and every final, each authority the check read — its state and problems, the passage
supporting it with its locator, its treatment — kept with the version it checked and the library
as it was then (store/cite_reports.py, migration 0038: append-only, the system's own).

A report is written by the system when a draft is registered (learning/pairs/drafts.py), when a final
is stored (learning/pairs/finals.py), when the MCP/HTTP check is given the text of a stored draft
(copy_policy.check_draft_text) and when `legal-ai draft report --check` checks a stored version
again: a new check is a new report; a later ingest never rewrites an old one. An authority is
the check's citation dict carried whole (`text`, `ref`, `status`, `doc_id`, and `problems`,
`verified`, `support`, `attention`, `treatment` when the check gives them), so the report says
what the check said and nothing it did not."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypedDict, overload

import psycopg

from ...errors import InvalidInput, NotFound
from ...store import cite_reports as store
from ...store.rows import Conn
from .. import vocabulary as vocab
from .citation_check import CheckedCitation, check_citations
from .citation_states import ProblemKind

if TYPE_CHECKING:
    from ...context import Context

# The report's order of the problems, what she mends first at the top (a state this list does
# not know is a problem, after these). Not SEVERITY's, which says what a citation's one status
# is: a wrong name or quotation is shown before a law the library lacks. Every ProblemKind is in it
# (tests/learning/test_cite_report.py).
PROBLEM_ORDER: tuple[ProblemKind, ...] = (
    "not_in_library",
    "name_mismatch",
    "quote_not_found",
    "pinpoint_not_found",
    "section_not_found",
    "law_not_in_library",
    "ambiguous",
    "lookup_failed",
)
PASSED = "found"
SUBJECTS = ("draft", "final")


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class CiteReport(TypedDict):
    """A cite-check report as stored (cite_reports.report): the check's citations in the
    draft's order (`authorities`), the count of each status, how many have a problem or ask for
    her attention, and whether the text cited nothing."""

    authorities: list[CheckedCitation]
    counts: dict[str, int]
    problems: int
    attention: int
    empty: bool


class ShownReport(CiteReport):
    """A stored report as `legal-ai draft report --json`, the API and the desk give it: the
    row's identity, the library's marker when it was checked, the report, and its authorities
    problems first (`ordered`)."""

    report_id: int
    case_number: str
    subject: str
    version: int
    checked_at: str
    checked_by: str
    content_hash: str
    library: dict[str, Any]
    ordered: list[CheckedCitation]


def rank(citation: Mapping[str, Any]) -> int:
    """Where an authority stands in the report: problems first, most serious first; those
    marked for her attention next; those that passed last."""
    status = citation.get("status")
    if status in PROBLEM_ORDER:
        return PROBLEM_ORDER.index(status)
    if status != PASSED:
        return len(PROBLEM_ORDER)
    return len(PROBLEM_ORDER) + (1 if citation.get("attention") else 2)


def has_problem(citation: Mapping[str, Any]) -> bool:
    return citation.get("status") != PASSED or bool(citation.get("problems"))


def build(citations: list[CheckedCitation]) -> CiteReport:
    """The report's JSON from the check's citations (in the draft's order, each dict whole)."""
    counts: dict[str, int] = {}
    for c in citations:
        counts[c.get("status", "")] = counts.get(c.get("status", ""), 0) + 1
    problems = sum(1 for c in citations if has_problem(c))
    return {
        "authorities": [c.copy() for c in citations],
        "counts": counts,
        "problems": problems,
        "attention": sum(1 for c in citations if c.get("attention")),
        "empty": not citations,
    }


def record(
    conn,
    *,
    case: str,
    subject: str,
    version: int,
    text: str,
    citations: list[CheckedCitation],
    draft_id: int | None = None,
    case_law_id: int | None = None,
) -> dict:
    """Append the report of one check, with the library's marker, in the caller's transaction
    (run it as the login's own role: Store.as_login). The stored row."""
    return store.insert_report(
        conn,
        case=case,
        subject=subject,
        version=version,
        content_hash=text_hash(text),
        report=build(citations),
        library=store.library_marker(conn),
        draft_id=draft_id,
        case_law_id=case_law_id,
    )


@overload
def shown(row: dict) -> ShownReport: ...
@overload
def shown(row: None) -> None: ...
def shown(row: dict | None) -> ShownReport | None:
    """A stored report as the CLI, the API and the desk give it: the row's identity, the library
    it read, and the report with its authorities (problems first in `ordered`)."""
    if row is None:
        return None
    report: CiteReport = row["report"]
    return {
        "report_id": row["id"],
        "case_number": row["checked_case"],
        "subject": row["subject"],
        "version": row["version"],
        "checked_at": row["created_at"].isoformat(),
        "checked_by": row["checked_by"],
        "content_hash": row["content_hash"],
        "library": row["library"],
        **report,
        "ordered": sorted(report.get("authorities", []), key=rank),
    }


class ReportHandle(TypedDict):
    """What a check answers of the cite-check report it wrote: its id, subject (draft or
    final) and version (`legal-ai draft report CASE --version N` reads it whole)."""

    report_id: int
    subject: str
    version: int


def handle(row: dict | None) -> ReportHandle | None:
    """What a check answers of the report it wrote: its id, subject and version."""
    if row is None:
        return None
    return {"report_id": row["id"], "subject": row["subject"], "version": row["version"]}


def get_report(
    app: Context,
    case: str,
    *,
    version: int | None = None,
    subject: str | None = None,
    check: bool = False,
) -> ShownReport:
    """`legal-ai draft report CASE`: the newest report of the case (the final's when there is
    one, else the latest draft's; of `subject` and `version` when given). With `check`, the
    stored text is checked again against the library as it is now and a new report written."""
    case = vocab.case_number(case)
    subject = vocab.choice(subject, SUBJECTS, "subject")
    if version is not None and (not isinstance(version, int) or version < 1):
        raise InvalidInput(
            "version: give a draft's version number (1, 2, ...)",
            code="number.out_of_range",
            field="version",
        )
    if version is not None and subject is None:
        subject = "draft"
    if check:
        return shown(_check_again(app, case, subject or "draft", version))
    with app.store.connection() as conn:
        row = store.latest_of(conn, case, subject, version)
    if row is None:
        raise NotFound(_none_said(case, subject, version))
    return shown(row)


def _none_said(case: str, subject: str | None, version: int | None) -> str:
    what = f"{subject or 'draft or final'}" + (f" version {version}" if version else "")
    return (
        f"no cite-check report of {case} ({what}): register a draft (`legal-ai draft add`) or "
        "check a stored one again (`legal-ai draft report CASE --check`)"
    )


def _check_again(app: Context, case: str, subject: str, version: int | None) -> dict:
    with app.store.transaction() as conn:
        if subject == "final":
            stored = store.final_of_case(conn, case)
            if stored is None or (version is not None and stored["version"] != version):
                raise NotFound(_none_said(case, subject, version))
            ids = {"case_law_id": stored["id"]}
        else:
            stored = store.draft_version(conn, case, version)
            if stored is None:
                raise NotFound(
                    f"no draft of {case}"
                    + (f" version {version}" if version else "")
                    + " is stored: `legal-ai draft add` registers one"
                )
            ids = {"draft_id": stored["id"]}
        citations = check_citations(conn, case, stored["content"])
        with app.store.as_login(conn):
            return record(
                conn,
                case=case,
                subject=subject,
                version=stored["version"],
                text=stored["content"],
                citations=citations,
                **ids,
            )


class StoredReport(TypedDict, total=False):
    """What a check of a draft given as text answers of the report it kept: `report` (its
    handle; None when this login may not keep one, `report_note` saying so); neither for a text
    that is no stored draft."""

    report: ReportHandle | None
    report_note: str


def for_stored_draft(
    app: Context, conn, case: str, text: str, citations: list[CheckedCitation]
) -> StoredReport:
    """When `text` is a stored draft of the case (the MCP/HTTP check of a draft given as text),
    a new report of that version, written by the system; what the check answers of it: the
    report's {report_id, subject, version}, or `report: None` and why; nothing for a text that
    is no stored draft (the check alone, as `draft check` of a file)."""
    stored = store.draft_by_hash(conn, case, text_hash(text))
    if stored is None:
        return {}
    try:
        with conn.transaction(), app.store.as_login(conn):
            row = record(
                conn,
                case=case,
                subject="draft",
                version=stored["version"],
                text=stored["content"],
                citations=citations,
                draft_id=stored["id"],
            )
    except psycopg.errors.InsufficientPrivilege:
        # An agent's own login (an agent-only MCP server): the system writes no report here.
        return {
            "report": None,
            "report_note": "this login may not keep a report (the server keeps one when the "
            "draft is registered)",
        }
    return {"report": handle(row)}


def latest(
    conn: Conn, case: str, subject: str | None = None, version: int | None = None
) -> ShownReport | None:
    """The newest stored report of a case (of `subject` and `version` when given) as `shown`
    gives it, on the reader's connection (the desk's case page); None: no report yet."""
    return shown(store.latest_of(conn, case, subject, version))
