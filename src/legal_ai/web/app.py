"""The HTTP API of the learning loop. Thin: parse, call the same services as the CLI, map
errors once. Every /api route requires the configured token (`LEGAL_AI_API_TOKEN`,
`Authorization: Bearer <token>`); without a configured token the app refuses to be created.

Case numbers contain `/` (`ערר (מרכז) 1042/23`), so case routes take the rest of the path
(`/api/cases/ערר (מרכז) 1042/23/final/upload`, URL-encoded by the client)."""

from __future__ import annotations

import hmac
import tempfile
from pathlib import Path
from typing import Annotated, Any

from fastapi import Body, Depends, FastAPI, File, Form, Header, HTTPException, Request, UploadFile
from fastapi.responses import JSONResponse

from ..config import Settings
from ..errors import AppError, InvalidInput, NotFound, ProviderError, StoreError
from ..knowledge import brief
from ..learning import feedback, finals, lessons, methodology

_STATUS = {InvalidInput: 400, NotFound: 404, StoreError: 503, ProviderError: 502}


def _status(exc: AppError) -> int:
    for kind, status in _STATUS.items():
        if isinstance(exc, kind):
            return status
    return 500


def create_app(settings: Settings, legal: Any = None) -> FastAPI:
    """The API over one App (created here unless given)."""
    if not settings.api_token:
        raise InvalidInput("set LEGAL_AI_API_TOKEN: the HTTP API never runs without a token")
    if legal is None:
        from ..services import App

        legal = App(settings)
    token = settings.api_token

    def authorized(authorization: Annotated[str | None, Header()] = None) -> None:
        supplied = (authorization or "").removeprefix("Bearer ").strip()
        if not supplied or not hmac.compare_digest(supplied.encode(), token.encode()):
            raise HTTPException(401, "missing or wrong token: send Authorization: Bearer <token>")

    api = FastAPI(title="legal-ai")
    guard = [Depends(authorized)]

    @api.exception_handler(AppError)
    async def app_error(request: Request, exc: AppError) -> JSONResponse:
        return JSONResponse({"error": str(exc)}, status_code=_status(exc))

    @api.get("/healthz")
    def healthz() -> dict:
        return {"ok": True}

    async def _saved(upload: UploadFile, folder: str) -> Path:
        name = Path(upload.filename or "upload.txt").name
        path = Path(folder) / name
        path.write_bytes(await upload.read())
        return path

    @api.post("/api/cases/{case:path}/draft/upload", dependencies=guard)
    async def draft_upload(
        case: str, file: Annotated[UploadFile, File()],
        appeal_type: Annotated[str | None, Form()] = None,
        outcome: Annotated[str | None, Form()] = None,
        practice_area: Annotated[str | None, Form()] = None,
    ) -> dict:  # fmt: skip
        with tempfile.TemporaryDirectory() as folder:
            path = await _saved(file, folder)
            return finals.add_draft(legal, case, path, appeal_type=appeal_type,
                                    outcome=outcome, practice_area=practice_area)  # fmt: skip

    @api.post("/api/cases/{case:path}/final/upload", dependencies=guard)
    async def final_upload(
        case: str, file: Annotated[UploadFile, File()],
        practice_area: Annotated[str | None, Form()] = None,
        decided_on: Annotated[str | None, Form()] = None,
        appeal_type: Annotated[str | None, Form()] = None,
        outcome: Annotated[str | None, Form()] = None,
    ) -> dict:  # fmt: skip
        with tempfile.TemporaryDirectory() as folder:
            path = await _saved(file, folder)
            return finals.upload_final(legal, case, path, practice_area=practice_area,
                                       decided_on=decided_on, appeal_type=appeal_type,
                                       outcome=outcome)  # fmt: skip

    @api.post("/api/cases/{case:path}/promote", dependencies=guard)
    def promote(case: str, body: Annotated[dict, Body()]) -> dict:
        return lessons.promote(legal, case, list(body.get("lesson_ids") or []),
                               list(body.get("phrases") or []))  # fmt: skip

    @api.post("/api/cases/{case:path}/curator-findings", dependencies=guard)
    def curator(case: str, body: Annotated[dict, Body()]) -> dict:
        return lessons.record_curator_findings(legal, case, body.get("findings"))

    @api.get("/api/learning/style-distance-history", dependencies=guard)
    def style_history() -> dict:
        return finals.history(legal)

    @api.get("/api/learning/pairs", dependencies=guard)
    def pairs() -> dict:
        return finals.pairs(legal)

    @api.get("/api/lessons", dependencies=guard)
    def list_lessons(status: str | None = None, case: str | None = None) -> dict:
        return lessons.list_lessons(legal, status, case)

    @api.post("/api/lessons/{lesson_id}/review", dependencies=guard)
    def review(lesson_id: int, body: Annotated[dict, Body()]) -> dict:
        return lessons.review(legal, lesson_id, str(body.get("decision")), actor="chair",
                              reason=body.get("reason"))  # fmt: skip

    @api.post("/api/lessons/{lesson_id}/panel-verdict", dependencies=guard)
    def panel(lesson_id: int, body: Annotated[dict, Body()]) -> dict:
        return lessons.record_panel_verdict(legal, lesson_id, body.get("verdicts"))

    @api.get("/api/methodology/{appeal_type}", dependencies=guard)
    def show_methodology(appeal_type: str) -> dict:
        return methodology.show(legal, appeal_type)

    @api.post("/api/methodology/{appeal_type}", dependencies=guard)
    def edit_methodology(appeal_type: str, body: Annotated[dict, Body()]) -> dict:
        return methodology.edit(legal, appeal_type, body.get("changes") or {},
                                reason=body.get("reason") or "edit")  # fmt: skip

    @api.post("/api/chair-feedback", dependencies=guard)
    def record_feedback(body: Annotated[dict, Body()]) -> dict:
        return feedback.record(legal, body.get("category"), body.get("text"),
                               case=body.get("case_number"), block=body.get("block"))  # fmt: skip

    @api.get("/api/chair-feedback", dependencies=guard)
    def list_feedback(case: str | None = None, category: str | None = None,
                      limit: int = 50) -> dict:  # fmt: skip
        return feedback.list_feedback(legal, case=case, category=category, limit=limit)

    @api.get("/api/chair-feedback/weekly-summary", dependencies=guard)
    def weekly_summary() -> dict:
        return feedback.weekly_summary(legal)

    @api.get("/api/brief", dependencies=guard)
    def writing_brief(appeal_type: str, outcome: str | None = None) -> dict:
        return brief.writing_brief(legal, appeal_type, outcome)

    @api.get("/api/content-checklist", dependencies=guard)
    def content_checklist(appeal_type: str, outcome: str | None = None) -> dict:
        return brief.content_checklist(legal, appeal_type, outcome)

    @api.get("/api/lessons-for-outcome", dependencies=guard)
    def lessons_for_outcome(appeal_type: str, outcome: str | None = None) -> dict:
        return brief.lessons_for_outcome(legal, appeal_type, outcome)

    return api
