"""/health: what cannot be searched and why, stale embeddings, the isolation audit and whether
the database enforces the roles (App.health). /cases: the draft/final pairs with their status,
the upload of our draft and of her signed final (the same services as the API, streamed by
web/uploads.py; the response's findings shown), the missing-precedents list, promote (an
analyzed pair's style lessons and phrases folded into the methodology: lessons.promote) and a
precedent attached to a case (App.attach_precedent). Each pair shows the copy-policy report of its
draft (knowledge/copy_policy.py, stored with the draft): passages per kind and citations per
status, and the details: each flagged passage with its source case and a link to the source at
its span, each citation with its status. The Hebrew shown for the services' English reasons is
pages_hebrew.py."""

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from ...config import Settings
from ...errors import AppError, InvalidInput
from ...learning import drafts, finals, lessons, library_links, precedents
from ...learning import vocabulary as vocab
from ...ops import scheduler as schedule
from ...ops.health import report as health_report
from ...retrieval import terms
from ...store import desk as desk_store
from .. import errors as web_errors
from .. import uploads
from ..uploads import DRAFT_FIELDS, FINAL_FIELDS
from . import core, labels
from .messages import refusal
from .pages_hebrew import health_notes, upload_refusal

# The dictionary's tables (labels.py) this page orders by or says: the pair's and the lesson's
# statuses, the copy policy's kinds (most serious first) and its citation statuses.
PAIR_STATUS = labels.PAIR_STATUS
LESSON_STATUS = labels.STATUS
COPY_KINDS = labels.COPY_KIND
CITATION_STATUS = labels.CITATION_STATUS


def copy_details(conn: Any, pairs: list[dict]) -> dict[str, dict]:
    """Per case with a checked draft: its passages (substance first), each with its source's
    corpus for the link (a final in the style corpus, or an internal decision), and its
    citations (those not verified first), each with the corpus of the ruling found."""
    reports = {p["case_number"]: p["copy_report"] for p in pairs if p.get("copy_report")}
    sources = {
        x["source"]["doc_id"]
        for r in reports.values()
        for x in r.get("passages", [])
        if x.get("source", {}).get("doc_id")
    }
    cited = {c["doc_id"] for r in reports.values() for c in r.get("citations", []) if c["doc_id"]}
    where = desk_store.located(conn, sources, ("style", "internal")) if sources else {}
    ruling = desk_store.located(conn, cited, ("external", "internal")) if cited else {}
    rank = {k: n for n, k in enumerate(COPY_KINDS)}
    order = {k: n for n, k in enumerate(CITATION_STATUS)}
    out = {}
    for case, report in reports.items():
        passages = sorted(report.get("passages", []), key=lambda x: rank.get(x["kind"], 9))
        citations = sorted(report.get("citations", []), key=lambda c: order.get(c["status"], 9))
        out[case] = {
            "passages": [{**x, "corpus": where.get(x["source"].get("doc_id"))} for x in passages],
            "citations": [{**c, "corpus": ruling.get(c["doc_id"])} for c in citations],
        }
    return out


def _ids(raw: Any) -> list[int]:
    values = raw if isinstance(raw, list) else [raw] if raw else []
    try:
        return [int(v) for v in values]
    except (TypeError, ValueError):
        raise InvalidInput("מזהה לקח שאינו מספר; טעני את הדף מחדש") from None


def promote_refusal(
    case: str, pair: dict | None, rows: list[dict], ids: list[int], phrases: list[str]
) -> str | None:
    """Why the page refuses a promote before calling the service (Hebrew), or None. The service
    checks the same again under its locks (lessons.promote)."""
    if pair is None:
        return f"אין זוג טיוטה–החלטה לתיק {case}"
    if pair["status"] != "analyzed":
        shown = PAIR_STATUS.get(pair["status"], pair["status"])
        return (
            f'הזוג של {case} במצב "{shown}"; קידום לקחים אפשרי רק בזוג שנותח '
            "(אחרי העלאת ההחלטה החתומה, ופעם אחת)"
        )
    if not ids and not phrases:
        return "לא נבחר אף לקח ולא נכתב אף ביטוי לקידום"
    by_id = {r["id"]: r for r in rows}
    for lesson_id in ids:
        row = by_id.get(lesson_id)
        if row is None:
            return f"לקח {lesson_id} אינו לקח של {case}"
        if row["kind"] == "substance":
            return (
                f"לקח {lesson_id} הוא לקח מהות ({labels.label(row['category'], 'category')}): המתודולוגיה מקבלת לקחי "
                "סגנון בלבד — הקול אינו מחזיק מהות"
            )
        if row["review_status"] in ("rejected", "vetoed"):
            return f"לקח {lesson_id} {LESSON_STATUS[row['review_status']]}; אין לקדם אותו"
    return None


def routes(api: FastAPI, signed_in: Any, settings: Settings) -> None:
    Chair = Annotated[core.Desk, Depends(signed_in)]
    upload_root = settings.home / "uploads"
    max_file = settings.max_file_mb * 2**20

    @api.get("/health", include_in_schema=False)
    async def health(request: Request, desk: Chair) -> Response:
        """App.health() and, beside it, each scheduled job's last outcome (schedule.list_jobs);
        the upkeep's reasons in Hebrew (health_notes)."""

        def load() -> tuple[dict, dict]:
            return health_report(desk.view), schedule.list_jobs(desk.view)

        report, jobs = await run_in_threadpool(load)
        return core.render(
            request, "health.html", desk=desk, h=report, jobs=jobs, notes=health_notes(report)
        )

    async def cases_page(
        request: Request, desk: core.Desk, status: int = 200, **context: Any
    ) -> Response:
        def load() -> tuple[list[dict], list[dict], dict[str, list[dict]], dict[str, dict]]:
            rows = finals.missing_precedents(desk.view)["missing_precedents"]
            prefilled = [{**m, "court": terms.court_of_case_number(m["ref"])} for m in rows]
            pairs = finals.pairs(desk.view)["pairs"]
            # An analyzed pair's lessons that promote may fold (proposed or approved).
            candidates = {
                p["case_number"]: [
                    r
                    for r in lessons.list_lessons(desk.view, case=p["case_number"])["lessons"]
                    if r["review_status"] in ("proposed", "approved")
                ]
                for p in pairs
                if p["status"] == "analyzed"
            }
            with desk.view.store.connection() as conn:
                copies = copy_details(conn, pairs)
            ambiguous = library_links.ambiguous(desk.view)["ambiguous"]
            return pairs, prefilled, candidates, copies, ambiguous

        pairs, missing, candidates, copies, ambiguous = await run_in_threadpool(load)
        return core.render(
            request,
            "cases.html",
            status=status,
            desk=desk,
            pairs=pairs,
            missing=missing,
            ambiguous=ambiguous,
            candidates=candidates,
            lesson_statuses=LESSON_STATUS,
            copies=copies,
            copy_kinds=COPY_KINDS,
            citation_statuses=CITATION_STATUS,
            statuses=PAIR_STATUS,
            appeal_types=vocab.APPEAL_TYPES,
            outcomes=vocab.OUTCOMES,
            areas=vocab.PRACTICE_AREAS,
            max_mb=settings.max_file_mb,
            **context,
        )

    @api.get("/cases", include_in_schema=False)
    async def cases(request: Request, desk: Chair) -> Response:
        return await cases_page(request, desk)

    async def checked_upload(
        request: Request,
        desk: core.Desk,
        fields: frozenset[str],
        work: Callable[[uploads.Upload, dict], dict],
        failed: str,
    ) -> dict | Response:
        """Receive an upload form, check its CSRF token before anything runs, then
        `work(received, fields)` in a worker thread; a refusal is the cases page with
        `failed: why` (a forged token is refused as such)."""

        def checked(received: uploads.Upload) -> dict:
            given = dict(received.fields)
            core.check_csrf(desk, given.pop("csrf", None))
            return work(received, given)

        try:
            return await uploads.handled(
                request, upload_root, fields=fields, max_bytes=max_file, work=checked
            )
        except core.CsrfRefused:
            raise
        except AppError as exc:
            return await cases_page(
                request,
                desk,
                status=web_errors.status_of(exc),
                message=refusal(failed, upload_refusal(exc)),
            )

    async def upload(request: Request, desk: core.Desk, kind: str) -> Response:
        fields = (DRAFT_FIELDS if kind == "draft" else FINAL_FIELDS) | {"csrf", "case_number"}
        service = drafts.add_draft if kind == "draft" else finals.upload_final

        def work(received: uploads.Upload, given: dict) -> dict:
            case = given.pop("case_number", "")
            given = {k: v for k, v in given.items() if v}
            return service(
                desk.view, case, received.path, source_name=f"upload:{received.name}", **given
            )

        result = await checked_upload(request, desk, fields, work, "ההעלאה לא בוצעה")
        if isinstance(result, Response):
            return result
        return await cases_page(
            request,
            desk,
            result=result,
            kind=kind,
            notice=f"{'הטיוטה' if kind == 'draft' else 'ההחלטה הסופית'} "
            f"של {result['case_number']} נקלטה",
        )

    @api.post("/cases/draft/upload", include_in_schema=False)
    async def draft_upload(request: Request, desk: Chair) -> Response:
        return await upload(request, desk, "draft")

    @api.post("/cases/final/upload", include_in_schema=False)
    async def final_upload(request: Request, desk: Chair) -> Response:
        return await upload(request, desk, "final")

    @api.post("/cases/promote", include_in_schema=False)
    async def promote(request: Request, desk: Chair) -> Response:
        """The chair's chosen style lessons and phrases of an analyzed pair folded into the
        methodology (a new version); the pair moves to lessons_folded."""
        form = await core.form_of(request, desk)
        case = str(form.get("case_number") or "").strip()
        ids = _ids(form.get("lesson"))
        raw = form.get("phrases") or ""
        text = "\n".join(raw) if isinstance(raw, list) else str(raw)
        phrases = [line.strip() for line in text.splitlines() if line.strip()]

        def run() -> dict | str:
            nonlocal case
            case = vocab.case_number(case) if case else case
            pair = next(
                (p for p in finals.pairs(desk.view)["pairs"] if p["case_number"] == case), None
            )
            rows = lessons.list_lessons(desk.view, case=case)["lessons"] if pair else []
            refusal = promote_refusal(case, pair, rows, ids, phrases)
            return refusal or lessons.promote(desk.view, case, ids, phrases)

        try:
            result = await run_in_threadpool(run)
        except AppError as exc:
            return await cases_page(
                request,
                desk,
                status=web_errors.status_of(exc),
                message=refusal("הקידום לא בוצע, דבר לא השתנה", exc),
            )
        if isinstance(result, str):
            return await cases_page(
                request, desk, status=400, message=f"הקידום לא בוצע, דבר לא השתנה: {result}"
            )
        return await cases_page(
            request,
            desk,
            promoted=result,
            notice=f"{result['case_number']}: {len(result['folded_lessons'])} לקחים ו-"
            f"{len(result['phrases'])} ביטויים שולבו במתודולוגיה "
            f"({labels.label(result['appeal_type'], 'appeal_type')}), "
            f"גרסה {result['methodology_version']}; הזוג במצב "
            f'"{PAIR_STATUS.get(result["pair_status"], result["pair_status"])}"',
        )

    @api.post("/cases/precedent", include_in_schema=False)
    async def attach_precedent(request: Request, desk: Chair) -> Response:
        """A citation the chair relies on in her case (case_precedents; as `legal-ai case
        attach-precedent`), linked to the library's ruling when it holds one."""
        form = await core.form_of(request, desk)
        case = str(form.get("case_number") or "")
        citation = str(form.get("citation") or "")
        note = str(form.get("note") or "").strip() or None
        try:
            saved = await run_in_threadpool(desk.view.attach_precedent, case, citation, note)
        except AppError as exc:
            return await cases_page(
                request,
                desk,
                status=web_errors.status_of(exc),
                message=refusal("התקדים לא צורף", exc),
            )
        linked = (
            "מקושר לפסק הדין בספרייה" if saved["case_law_id"] else "פסק הדין עדיין אינו בספרייה"
        )
        return await cases_page(
            request,
            desk,
            notice=f"{saved['citation']} צורף לתיק {saved['case_number']} ({linked})",
        )

    @api.post("/cases/citations/{authority_id}/pick", include_in_schema=False)
    async def citation_pick(request: Request, desk: Chair, authority_id: int) -> Response:
        """The chair's pick of the ruling an ambiguous citation names (library_links.pick)."""
        form = await core.form_of(request, desk)
        try:
            chosen = int(str(form.get("case_law_id") or ""))
            picked = await run_in_threadpool(library_links.pick, desk.view, authority_id, chosen)
        except ValueError:
            return await cases_page(
                request, desk, status=400, message="הציטוט לא קושר: בחרי אחת ההחלטות המתאימות"
            )
        except AppError as exc:
            return await cases_page(
                request,
                desk,
                status=web_errors.status_of(exc),
                message=refusal("הציטוט לא קושר", exc),
            )
        return await cases_page(request, desk, notice=f"הציטוט {picked['ref']} קושר להחלטה שבחרת")

    @api.post("/cases/missing/{authority_id}/upload", include_in_schema=False)
    async def ruling_upload(request: Request, desk: Chair, authority_id: int) -> Response:
        """A missing precedent's ruling: ingested into the external corpus with its metadata,
        then the citations are linked again and the precedent resolves."""
        fields = frozenset(precedents.FIELDS) | {"csrf"}

        def work(received: uploads.Upload, given: dict) -> dict:
            return precedents.upload_ruling(
                desk.view,
                authority_id,
                received.path,
                source_name=f"upload:{received.name}",
                **given,
            )

        result = await checked_upload(request, desk, fields, work, "פסק הדין לא נקלט")
        if isinstance(result, Response):
            return result
        if result["resolved"]:
            notice = f"פסק הדין {result['ref']} נקלט למאגר החיצוני והתקדים החסר נפתר"
            return await cases_page(request, desk, notice=notice)
        return await cases_page(
            request,
            desk,
            status=409,
            message=f"פסק הדין נקלט ({result['case_number']}) אך אינו תואם את ההפניה "
            f"{result['ref']}; התקדים נשאר פתוח — בדקי את מספר התיק",
        )
