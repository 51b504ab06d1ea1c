"""/health: what cannot be searched and why, stale embeddings, the isolation audit and whether
the database enforces the roles (App.health). /cases: the draft/final pairs with their status,
the upload of our draft and of her signed final (the same services as the API, streamed by
web/uploads.py; the response's findings shown), and the missing-precedents list."""

from typing import Annotated, Any

from fastapi import Depends, FastAPI, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from ...config import Settings
from ...errors import AppError
from ...learning import finals, precedents
from ...learning import vocabulary as vocab
from ...retrieval import terms
from .. import uploads
from ..app import DRAFT_FIELDS, FINAL_FIELDS
from . import core

PAIR_STATUS = {
    "draft_done": "טיוטה הוגשה", "final_received": "התקבלה החלטה סופית",
    "analyzed": "נותח", "lessons_folded": "הלקחים שולבו",
}  # fmt: skip


def routes(api: FastAPI, signed_in: Any, settings: Settings) -> None:
    Chair = Annotated[core.Desk, Depends(signed_in)]
    upload_root = settings.home / "uploads"
    max_file = settings.max_file_mb * 2**20

    @api.get("/health", include_in_schema=False)
    async def health(request: Request, desk: Chair) -> Response:
        report = await run_in_threadpool(desk.view.health)
        return core.render(request, "health.html", desk=desk, h=report)

    async def cases_page(request: Request, desk: core.Desk, status: int = 200,
                         **context: Any) -> Response:  # fmt: skip
        def load() -> tuple[list[dict], list[dict]]:
            rows = finals.missing_precedents(desk.view)["missing_precedents"]
            prefilled = [{**m, "court": terms.court_of_case_number(m["ref"])} for m in rows]
            return finals.pairs(desk.view)["pairs"], prefilled

        pairs, missing = await run_in_threadpool(load)
        return core.render(
            request, "cases.html", status=status, desk=desk, pairs=pairs, missing=missing,
            statuses=PAIR_STATUS, appeal_types=vocab.APPEAL_TYPES, outcomes=vocab.OUTCOMES,
            areas=vocab.PRACTICE_AREAS, max_mb=settings.max_file_mb, **context,
        )  # fmt: skip

    @api.get("/cases", include_in_schema=False)
    async def cases(request: Request, desk: Chair) -> Response:
        return await cases_page(request, desk)

    async def upload(request: Request, desk: core.Desk, kind: str) -> Response:
        fields = (DRAFT_FIELDS if kind == "draft" else FINAL_FIELDS) | {"csrf", "case_number"}
        service = finals.add_draft if kind == "draft" else finals.upload_final
        try:
            with uploads.private_folder(upload_root) as folder:
                received = await uploads.receive(request, folder, fields=fields,
                                                 max_bytes=max_file)  # fmt: skip
                given = dict(received.fields)
                core.check_csrf(desk, given.pop("csrf", None))
                case = given.pop("case_number", "")
                given = {k: v for k, v in given.items() if v}
                try:
                    result = await run_in_threadpool(
                        service, desk.view, case, received.path,
                        source_name=f"upload:{received.name}", **given,
                    )  # fmt: skip
                except AppError as exc:
                    message = str(exc).replace(str(received.path), received.name)
                    raise type(exc)(message.replace(str(folder), "")) from None
        except core.CsrfRefused:
            raise
        except AppError as exc:
            from .. import errors as web_errors

            return await cases_page(request, desk, status=web_errors.status_of(exc),
                                    message=f"ההעלאה לא בוצעה: {exc}")  # fmt: skip
        return await cases_page(request, desk, result=result, kind=kind,
                                notice=f"{'הטיוטה' if kind == 'draft' else 'ההחלטה הסופית'} "
                                f"של {result['case_number']} נקלטה")  # fmt: skip

    @api.post("/cases/draft/upload", include_in_schema=False)
    async def draft_upload(request: Request, desk: Chair) -> Response:
        return await upload(request, desk, "draft")

    @api.post("/cases/final/upload", include_in_schema=False)
    async def final_upload(request: Request, desk: Chair) -> Response:
        return await upload(request, desk, "final")

    @api.post("/cases/missing/{authority_id}/upload", include_in_schema=False)
    async def ruling_upload(request: Request, desk: Chair, authority_id: int) -> Response:
        """A missing precedent's ruling: ingested into the external corpus with its metadata,
        then the citations are linked again and the precedent resolves."""
        fields = frozenset(precedents.FIELDS) | {"csrf"}
        try:
            with uploads.private_folder(upload_root) as folder:
                received = await uploads.receive(request, folder, fields=fields,
                                                 max_bytes=max_file)  # fmt: skip
                given = dict(received.fields)
                core.check_csrf(desk, given.pop("csrf", None))
                try:
                    result = await run_in_threadpool(
                        lambda: precedents.upload_ruling(
                            desk.view, authority_id, received.path,
                            source_name=f"upload:{received.name}", **given,
                        )
                    )  # fmt: skip
                except AppError as exc:
                    message = str(exc).replace(str(received.path), received.name)
                    raise type(exc)(message.replace(str(folder), "")) from None
        except core.CsrfRefused:
            raise
        except AppError as exc:
            from .. import errors as web_errors

            return await cases_page(request, desk, status=web_errors.status_of(exc),
                                    message=f"פסק הדין לא נקלט: {exc}")  # fmt: skip
        if result["resolved"]:
            notice = f"פסק הדין {result['ref']} נקלט למאגר החיצוני והתקדים החסר נפתר"
            return await cases_page(request, desk, notice=notice)
        return await cases_page(
            request, desk, status=409,
            message=f"פסק הדין נקלט ({result['case_number']}) אך אינו תואם את ההפניה "
            f"{result['ref']}; התקדים נשאר פתוח — בדקי את מספר התיק",
        )  # fmt: skip
