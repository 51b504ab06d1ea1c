"""The cite-check report on the desk: `/cite-report/<case number>` shows the
case's newest report (the final's when there is one, else its latest draft's; `?version=N` a
draft version's, `?subject=final` the final's) as one self-contained Hebrew page with a print
stylesheet (ten authorities to an A4 page); `?download=1` gives the same page as a file. Each
authority with its state and its problems, what was verified, the passage supporting it with its
locator, and its treatment (unconfirmed until she confirms it). The case page opens with the
report's problems (`problems_first`)."""

from collections.abc import Mapping
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import Depends, FastAPI, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from ...errors import AppError, InvalidInput
from ...learning import vocabulary as vocab
from ...learning.checks import cite_report
from . import core, labels

# A problem's evidence shown (the keys of labels.REPORT_FIELD, in this order): a value that is
# text or numbers; anything else (an English reason, a nested object) is not shown to her.
FIELDS = tuple(labels.REPORT_FIELD)


def href(case: str, version: int | None = None, subject: str | None = None) -> str:
    out = "/cite-report/" + quote(case, safe="")
    query = [f"subject={subject}"] if subject else []
    query += [f"version={version}"] if version else []
    return out + ("?" + "&".join(query) if query else "")


def _value(value: Any) -> str | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        return value if value.strip() else None
    if isinstance(value, list) and all(isinstance(v, (int, str)) for v in value) and value:
        return ", ".join(str(v) for v in value)
    return None


def _problem(problem: Any) -> dict:
    """A problem in her words: its kind's label and its evidence, field by field."""
    if not isinstance(problem, dict):
        return {"said": labels.label(problem, "citation_status"), "evidence": []}
    evidence = []
    for key in FIELDS:
        shown = _value(problem.get(key))
        if shown is not None:
            evidence.append({"name": labels.REPORT_FIELD[key], "value": shown})
    return {"said": labels.label(problem.get("kind"), "citation_status"), "evidence": evidence}


def _support(found: Any) -> dict | None:
    if not isinstance(found, dict) or not isinstance(found.get("passage"), str):
        return None
    where = []
    if _value(found.get("paragraph")):
        where.append(f"פסקה {found['paragraph']}")
    if _value(found.get("page")):
        where.append(f"עמ' {found['page']}")
    score = found.get("score")
    return {
        "passage": found["passage"],
        "where": " · ".join(where),
        "score": f"{score:.2f}" if isinstance(score, (int, float)) else None,
    }


def _treatment(treatment: Any) -> dict | None:
    if not isinstance(treatment, dict) or not treatment.get("kind"):
        return None
    return {
        "said": labels.label(treatment["kind"], "treatment_kind"),
        "by": _value(treatment.get("by")),
        "confirmed": bool(treatment.get("confirmed")),
    }


def authority(c: Mapping[str, Any]) -> dict:
    """One authority of the report as the page shows it."""
    problems = [_problem(p) for p in c.get("problems") or []]
    if not problems and c.get("status") != cite_report.PASSED:
        problems = [_problem({"kind": c.get("status")})]
    verified = [labels.label(v, "verified") for v in c.get("verified") or [] if isinstance(v, str)]
    attention = (
        [_problem(a) for a in c.get("attention") or []]
        if isinstance(c.get("attention"), list)
        else []
    )
    return {
        "text": c.get("text") or c.get("ref") or "",
        "status": c.get("status"),
        "status_said": labels.label(c.get("status"), "citation_status"),
        "problem": cite_report.has_problem(c),
        "problems": problems,
        "verified": verified,
        "attention": attention,
        "support": _support(c.get("support")),
        "treatment": _treatment(c.get("treatment")),
    }


def page_of(shown: cite_report.ShownReport) -> dict:
    """The report page's data from a report (cite_report.shown)."""
    authorities = [authority(c) for c in shown["ordered"]]
    return {
        "report": shown,
        "subject_said": labels.label(shown["subject"], "report_subject"),
        "authorities": authorities,
        "problems": [a for a in authorities if a["problem"]],
        "passed": [a for a in authorities if not a["problem"]],
    }


def problems_first(conn: Any, case: str) -> dict | None:
    """The case page's opening: the newest report's problems (None: no report yet)."""
    shown = cite_report.latest(conn, case)
    if shown is None:
        return None
    return {**page_of(shown), "href": href(case)}


def _read(
    view: Any, case: str, subject: str | None, version: int | None
) -> cite_report.ShownReport | None:
    with view.store.connection() as conn:
        return cite_report.latest(conn, case, subject, version)


def routes(api: FastAPI, signed_in: Any) -> None:
    Chair = Annotated[core.Desk, Depends(signed_in)]

    @api.get("/cite-report/{case:path}", include_in_schema=False)
    async def report_page(
        request: Request,
        desk: Chair,
        case: str,
        version: int | None = None,
        subject: str | None = None,
        download: bool = False,
    ) -> Response:
        missing = "אין דוח בדיקת ציטוטים כזה; חזרי לדף התיק"
        try:
            number = vocab.case_number(case)
            subject = vocab.choice(subject, cite_report.SUBJECTS, "subject")
            if version is not None and subject is None:
                subject = "draft"
            shown = await run_in_threadpool(_read, desk.view, number, subject, version)
        except (InvalidInput, AppError):
            return core.error_page(request, 404, missing, desk)
        if shown is None:
            return core.error_page(request, 404, missing, desk)
        response = core.render(
            request, "cite_report.html", desk=desk, case_href=_case_href(number), **page_of(shown)
        )
        if download:
            name = f"cite-report-{shown['report_id']}.html"
            response.headers["Content-Disposition"] = f'attachment; filename="{name}"'
        return response


def _case_href(case: str) -> str:
    return "/cases/" + quote(case, safe="")
