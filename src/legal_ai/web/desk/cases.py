"""/cases: the list of cases, and a page per case.

`/cases` lists every case — its number, its parties, its status, its last activity and what
waits on it — each linking to its page, `/cases/<the case number, URL-encoded>` (no internal
id). Below the list: the upload of a new case's draft or final, the cases whose copy check found
substance (#copy) or whose lessons may be promoted (#promote), the library's missing precedents
with their upload (#missing) and the citations several rulings fit (#ambiguous): the today
page's cards land there.

A case's page (case_view.py) opens with the copy check's findings of its latest draft, the
figures of its final explained and where the learning stands, then its timeline, its citations,
promote, attaching a precedent, the upload of a new draft version or of the final, and the draft
and final side by side. Every form posts to the same addresses as before; a success answers
with a redirect (303) to the page it belongs to — after an upload, the case's page — and a
refusal shows the page again with the reason in Hebrew beside its field and what she filled in
kept (forms.py)."""

import json
from collections.abc import Callable
from typing import Annotated, Any
from urllib.parse import quote, unquote

from fastapi import Depends, FastAPI, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from ... import upload_names
from ...config import Settings
from ...errors import AppError, InvalidInput
from ...learning import vocabulary as vocab
from ...learning.library import links as library_links
from ...learning.library import precedents
from ...learning.pairs import drafts, finals, scanned_decisions
from .. import errors as web_errors
from .. import uploads
from ..uploads import DRAFT_FIELDS, FINAL_FIELDS
from . import case_completion, case_list, case_view, core, final_uploads, forms, labels
from .messages import refusal
from .pages_hebrew import upload_refusal

NOTES_COOKIE = "legal_ai_desk_read"  # what reading an uploaded file said, for its case page
BACK = "back"  # a form's hidden field: the case number of the page it was posted from
LOST_UPLOAD = (
    "ההעלאה הזאת אינה ידועה לשרת: ייתכן שהוא הופעל מחדש בזמן שקרא את הקובץ. אם ההחלטה אינה "
    "מופיעה בדף התיק, דבר לא נשמר — שלחי אותה שוב"
)


def _hers(desk: core.Desk, row: dict) -> bool:
    """A scanned upload she made herself (an agent's draft is the agent's to replace)."""
    return scanned_decisions.is_own(desk.view, row)


def routes(api: FastAPI, signed_in: Any, settings: Settings) -> None:
    Chair = Annotated[core.Desk, Depends(signed_in)]
    upload_root = settings.home / "uploads"
    decision_caps = uploads.Caps.decisions(settings)  # our draft, her final: text, small
    file_caps = uploads.Caps.files(settings)  # a ruling: maybe a long PDF or a scan (OCR queue)
    fixed = forms.choices(settings)

    async def list_page(
        request: Request, desk: core.Desk, status: int = 200, **context: Any
    ) -> Response:
        data = await run_in_threadpool(case_view.case_list, desk.view)
        data.update(case_list.chosen(data["cases"], dict(request.query_params)))
        return core.render(
            request, "cases.html", status=status, desk=desk, **fixed, **data, **context
        )

    async def case_page(
        request: Request, desk: core.Desk, case: str, status: int = 200, **context: Any
    ) -> Response:
        data = await run_in_threadpool(case_view.case_page, desk.view, case)
        if data is None:
            return core.error_page(request, 404, "אין תיק כזה; בחרי תיק מהרשימה", desk)
        return core.render(
            request, "case.html", status=status, desk=desk, **fixed, **data, **context
        )

    async def refused(
        request: Request, desk: core.Desk, back: str | None, status: int, **context: Any
    ) -> Response:
        """A refused form: the page it was posted from again (a case's, when it exists, else
        the list), with the reason and the form as she filled it."""
        if back:
            exists = await run_in_threadpool(case_view.exists, desk.view, back)
            if exists:
                return await case_page(request, desk, exists, status=status, **context)
        return await list_page(request, desk, status=status, **context)

    async def refused_upload(
        request: Request, desk: core.Desk, exc: AppError, lead: str, form: str
    ) -> Response:
        """A refused upload: its form again as she filled it, the reason beside the field."""
        filled = exc.fields
        return await refused(
            request,
            desk,
            filled.get(BACK),
            web_errors.status_of(exc),
            message=refusal(lead, upload_refusal(exc)),
            form=forms.refused_upload(form, exc, filled),
        )

    @api.get("/cases", include_in_schema=False)
    async def cases(request: Request, desk: Chair) -> Response:
        notice = await run_in_threadpool(forms.list_notice, desk.view, dict(request.query_params))
        return await list_page(request, desk, notice=notice)

    @api.get("/cases/{case:path}", include_in_schema=False)
    async def case(request: Request, desk: Chair, case: str) -> Response:
        try:
            number = vocab.case_number(case)
        except InvalidInput:
            return core.error_page(request, 404, "אין תיק כזה; בחרי תיק מהרשימה", desk)
        query = dict(request.query_params)
        read = _read_notes(request, number) if query.get("uploaded") else []
        data = await run_in_threadpool(case_view.case_page, desk.view, number)
        if data is None:
            return core.error_page(request, 404, "אין תיק כזה; בחרי תיק מהרשימה", desk)
        notice = await run_in_threadpool(forms.case_notice, desk.view, data, query)
        scans = await run_in_threadpool(scanned_decisions.of_case, desk.view, number)
        return core.render(
            request,
            "case.html",
            desk=desk,
            **fixed,
            **data,
            notice=notice,
            uploaded=query.get("uploaded"),
            read_notes=read,
            scans=[
                dict(s, href=f"/uploads/scan/{s['id']}") for s in scans if s["status"] != "done"
            ],
        )

    async def checked_upload(
        request: Request,
        desk: core.Desk,
        fields: frozenset[str],
        work: Callable[[uploads.Upload, dict], dict],
        caps: uploads.Caps = decision_caps,
    ) -> tuple[dict, str | None]:
        """Receive an upload form, check its CSRF token before anything runs, then
        `work(received, fields)` in a worker thread: its result, and the page it came from."""

        def checked(received: uploads.Upload) -> tuple[dict, str | None]:
            given = dict(received.fields)
            core.check_csrf(desk, given.pop("csrf", None))
            back = given.pop(BACK, None) or None
            if given.get("decided_on"):  # her day.month.year, as the services take it
                given["decided_on"] = core.typed_day(given["decided_on"], "decided_on")
            return work(received, given), back

        return await uploads.handled(request, upload_root, fields=fields, caps=caps, work=checked)

    finals_on_way = final_uploads.FinalUploads(upload_root)

    def case_of(desk: core.Desk, given: dict) -> str:
        """The form's case number, completed against her cases ("8092/24" naming one case);
        one that names several refused, naming them (case_completion)."""
        typed = given.pop("case_number", "")
        if not typed.strip():
            raise InvalidInput(
                "the case number is empty; write it", code="case.number_empty", field="case_number"
            )
        with desk.view.store.connection() as conn:
            found = case_completion.complete(conn, typed)
        if found.several:
            raise case_completion.SeveralCases(typed, found.several)
        given["_completed"] = found.completed
        return found.number

    async def upload(request: Request, desk: core.Desk, kind: str) -> Response:
        fields = (DRAFT_FIELDS if kind == "draft" else FINAL_FIELDS) | {"csrf", "case_number", BACK}

        def work(received: uploads.Upload, given: dict) -> dict:
            filled = dict(received.fields)
            case = case_of(desk, given)
            completed = given.pop("_completed")
            given = {k: v for k, v in given.items() if v}
            if kind == "draft":  # a scan is kept and queued for OCR (scanned_decisions)
                name = upload_names.source(received.name)
                result = scanned_decisions.or_queue(
                    desk.view,
                    "draft",
                    case,
                    received.path,
                    given,
                    name,
                    lambda: drafts.add_draft(
                        desk.view, case, received.path, source_name=name, **given
                    ),
                )
                return {**result, "completed": completed}
            # Her final: checked at once, the rest in the background (final_uploads.py).
            given.setdefault("labels_from_draft", False)  # her labels are hers: the form asks
            finals.check_fields(given)
            task = finals_on_way.begin(
                desk.view, received, vocab.case_number(case), given, filled, completed
            )
            return {"token": task.token}

        try:
            result, _ = await checked_upload(request, desk, fields, work)
        except core.CsrfRefused:
            raise
        except AppError as exc:
            return await refused_upload(request, desk, exc, "ההעלאה לא בוצעה", kind)
        if kind == "final":
            return RedirectResponse(f"/uploads/final/{result['token']}", 303)
        if "scan_id" in result:  # a scan: its page says it waits for OCR
            return RedirectResponse(f"/uploads/scan/{result['scan_id']}", 303)
        return landed(request, "draft", result)

    def landed(request: Request, kind: str, result: dict) -> Response:
        """The case's page after an upload: which version, what reading the file said."""
        same = not result.get("created", result.get("changed", True))
        target = (
            case_view.href(result["case_number"])
            + f"?uploaded={kind}"
            + ("&same=1" if same else "")
            + ("&completed=1" if result.get("completed") else "")
        )
        answer = RedirectResponse(target, 303)
        notes = [
            str(n) for n in result.get("notes") or [] if not str(n).startswith(forms.OWN_NOTES)
        ]
        if notes:
            value = quote(json.dumps({"case": result["case_number"], "notes": notes[:5]}))
            core.set_cookie(answer, request, NOTES_COOKIE, value, max_age=600)
        return answer

    def on_way(desk: core.Desk, token: str) -> final_uploads.Task | None:
        task = finals_on_way.get(token)
        return (
            task
            if task is not None and task.view.principal.actor == desk.view.principal.actor
            else None
        )

    @api.get("/uploads/final/{token}", include_in_schema=False)
    async def final_stages(request: Request, desk: Chair, token: str) -> Response:
        """Her final on its way: its stages (desk.js polls /status); ended, the case's page or
        the form again with the reason; unknown to this server, said so."""
        task = on_way(desk, token)
        if task is None:
            return core.error_page(request, 404, LOST_UPLOAD, desk)
        if task.status == "done" and task.result is not None:
            return landed(request, "final", {**task.result, "completed": task.completed})
        if task.status in ("failed", "cancelled") and task.error is not None:
            return await refused_upload(request, desk, task.error, "ההעלאה לא בוצעה", "final")
        scan_id = (task.result or {}).get("scan_id") if task.status == "ocr" else None
        return core.render(
            request,
            "upload_stages.html",
            desk=desk,
            task=task,
            stages=final_uploads.stages_of(task),
            case_href=case_view.href(task.case),
            scan_href=f"/uploads/scan/{scan_id}" if scan_id else None,
        )

    @api.get("/uploads/scan/{scan_id}", include_in_schema=False)
    async def scan_upload(request: Request, desk: Chair, scan_id: str) -> Response:
        """A draft or final uploaded as a scan: waiting for OCR, stored (a link to its case),
        or not stored and why."""
        row = None
        if scan_id.isdigit() and len(scan_id) < 19:
            row = await run_in_threadpool(scanned_decisions.get, desk.view, int(scan_id))
        if row is None:
            return core.error_page(request, 404, "אין העלאה כזו של סריקה", desk)
        failed = row["status"] == "failed"
        why = upload_refusal(AppError(row["error"], code=row["error_code"])) if failed else None
        return core.render(
            request,
            "scan_upload.html",
            desk=desk,
            scan=row,
            why=why,
            hers=_hers(desk, row),
            case_href=case_view.href(row["case_number"]),
        )

    @api.post("/uploads/scan/{scan_id}/cancel", include_in_schema=False)
    async def scan_cancel(request: Request, desk: Chair, scan_id: str) -> Response:
        """Her own scanned upload cancelled while it waits for OCR: deleted, with its queued
        OCR job and kept scan (scanned_decisions.cancel); the page says nothing was kept."""
        await core.form_of(request, desk)  # its CSRF token checked
        row = None
        if scan_id.isdigit() and len(scan_id) < 19:
            row = await run_in_threadpool(scanned_decisions.get, desk.view, int(scan_id))
        if row is None or not _hers(desk, row):
            return core.error_page(request, 404, "אין העלאה כזו של סריקה", desk)
        try:
            await run_in_threadpool(scanned_decisions.cancel, desk.view, row["id"])
        except AppError as exc:  # the worker has taken it meanwhile
            return core.error_page(request, 409, core.in_hebrew(exc), desk)
        return core.render(
            request,
            "scan_upload.html",
            desk=desk,
            scan=dict(row, status="cancelled"),
            why=None,
            hers=False,
            case_href=case_view.href(row["case_number"]),
        )

    @api.get("/uploads/final/{token}/status", include_in_schema=False)
    async def final_status(desk: Chair, token: str) -> Response:
        task = on_way(desk, token)
        if task is None:
            return JSONResponse({"status": "lost", "said": LOST_UPLOAD}, 404)
        stages = [
            {
                **s,
                "said": labels.label(s["name"], "upload_stage"),
                "state_said": labels.label(s["state"], "upload_stage_state"),
            }
            for s in final_uploads.stages_of(task)
        ]
        return JSONResponse({"status": task.status, "stages": stages})

    @api.post("/uploads/final/{token}/{act}", include_in_schema=False)
    async def final_act(request: Request, desk: Chair, token: str, act: str) -> Response:
        """Her answer to a Word final with open changes (confirm), or a cancel."""
        await core.form_of(request, desk)  # its CSRF token checked
        task = on_way(desk, token)
        if task is None or act not in ("confirm", "cancel"):
            return core.error_page(request, 404, LOST_UPLOAD, desk)
        if act == "confirm":
            finals_on_way.confirm(task)
        elif task.status == "ocr":  # a scan waiting for OCR: its upload and queued job go
            try:
                await run_in_threadpool(finals_on_way.cancel_scan, task)
            except AppError as exc:  # the worker has taken it meanwhile
                return core.error_page(request, 409, core.in_hebrew(exc), desk)
        else:
            finals_on_way.cancel(task)
        return RedirectResponse(f"/uploads/final/{token}", 303)

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
        try:
            result = await run_in_threadpool(forms.promote, desk.view, form)
        except AppError as exc:
            return await refused(
                request,
                desk,
                form.get(BACK),
                web_errors.status_of(exc),
                message=refusal("הקידום לא בוצע, דבר לא השתנה", exc),
                form={"name": "promote", "filled": form, "errors": {}},
            )
        return RedirectResponse(case_view.href(result["case_number"]) + "?done=promote", 303)

    @api.post("/cases/precedent", include_in_schema=False)
    async def attach_precedent(request: Request, desk: Chair) -> Response:
        """A citation the chair relies on in her case (case_precedents), linked to the library's
        ruling when it holds one."""
        form = await core.form_of(request, desk)
        case = str(form.get("case_number") or "")
        citation = str(form.get("citation") or "")
        note = str(form.get("note") or "").strip() or None
        try:
            saved = await run_in_threadpool(desk.view.attach_precedent, case, citation, note)
        except AppError as exc:
            errors = {"citation": forms.said_of(exc)} if citation.strip() == "" else {}
            return await refused(
                request,
                desk,
                form.get(BACK),
                web_errors.status_of(exc),
                message=refusal("התקדים לא צורף", exc),
                form={"name": "precedent", "filled": form, "errors": errors},
            )
        return RedirectResponse(case_view.href(saved["case_number"]) + "?done=precedent", 303)

    @api.post("/cases/citations/{authority_id}/pick", include_in_schema=False)
    async def citation_pick(request: Request, desk: Chair, authority_id: int) -> Response:
        """The chair's pick of the ruling an ambiguous citation names (library_links.pick)."""
        form = await core.form_of(request, desk)
        back = str(form.get(BACK) or "") or None
        try:
            chosen = int(str(form.get("case_law_id") or ""))
            await run_in_threadpool(library_links.pick, desk.view, authority_id, chosen)
        except ValueError:
            said = "בחרי אחת ההחלטות המתאימות"
            return await refused(
                request,
                desk,
                back,
                400,
                message=f"הציטוט לא קושר: {said}",
                form={"name": f"pick-{authority_id}", "filled": form, "errors": {"pick": said}},
            )
        except AppError as exc:
            return await refused(
                request,
                desk,
                back,
                web_errors.status_of(exc),
                message=refusal("הציטוט לא קושר", exc),
            )
        place = case_view.href(back) if back else "/cases"
        return RedirectResponse(f"{place}?picked={authority_id}#citations", 303)

    @api.post("/cases/missing/{authority_id}/upload", include_in_schema=False)
    async def ruling_upload(request: Request, desk: Chair, authority_id: int) -> Response:
        """A missing precedent's ruling: ingested into the external corpus with its metadata,
        then the citations are linked again and the precedent resolves."""
        fields = frozenset(precedents.FIELDS) | {"csrf", BACK}

        def work(received: uploads.Upload, given: dict) -> dict:
            return precedents.upload_ruling(
                desk.view,
                authority_id,
                received.path,
                source_name=upload_names.source(received.name),
                **given,
            )

        try:
            result, back = await checked_upload(request, desk, fields, work, file_caps)
        except core.CsrfRefused:
            raise
        except AppError as exc:
            lead = "פסק הדין לא נקלט"
            return await refused_upload(request, desk, exc, lead, f"ruling-{authority_id}")
        if not result["resolved"]:
            return await list_page(
                request,
                desk,
                status=409,
                message=f"פסק הדין נקלט ({result['case_number']}) אך אינו תואם את ההפניה "
                f"{result['ref']}; התקדים נשאר פתוח — בדקי את מספר התיק",
            )
        if back:
            return RedirectResponse(
                f"{case_view.href(back)}?resolved={authority_id}#citations", 303
            )
        return RedirectResponse(f"/cases?resolved={authority_id}#missing", 303)


def _read_notes(request: Request, case: str) -> list:
    """What reading the file uploaded for `case` said (the upload's cookie), in Hebrew."""
    raw = request.cookies.get(NOTES_COOKIE)
    try:
        kept = json.loads(unquote(raw)) if raw else {}
    except ValueError:
        return []
    if not isinstance(kept, dict) or kept.get("case") != case:
        return []
    notes = kept.get("notes")
    if not isinstance(notes, list):
        return []
    return [forms.reading_note(str(n)[:500]) for n in notes[:5]]
