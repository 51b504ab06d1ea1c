"""The learning loop of a case over HTTP: its draft's and final's upload, lessons promoted and
the curator's findings, the figures (style distance, pairs, curator and panel stats), the
lessons and their review (the chair's)."""

from collections.abc import Callable, Mapping
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from pydantic import Field

from ... import upload_names
from ...knowledge import curator as curator_figures
from ...learning.lessons import lessons
from ...learning.lessons import panel_stats as panel_figures
from ...learning.pairs import drafts, finals, scanned_decisions
from .. import uploads
from ..deps import Acting, Paged, chair
from .bodies import Body, ReviewBody

router = APIRouter()


class PromoteBody(Body):
    lesson_ids: list[int] = Field(default_factory=list, max_length=200)
    phrases: list[str] = Field(default_factory=list, max_length=200)


class CuratorBody(Body):
    findings: list[str] = Field(max_length=20)


async def uploaded(
    request: Request,
    view: Any,
    fields: frozenset[str],
    service: Callable[..., Mapping[str, Any]],
    case: str,
    kind: str,
) -> dict:
    """Stream the upload into its private folder, run `service` on it in a worker thread;
    the folder goes when the request ends, and errors name the file's safe name only. A scan
    (a PDF without a text layer) is kept and queued for OCR instead (scanned_decisions)."""
    state = request.app.state

    def work(upload: uploads.Upload) -> Mapping[str, Any]:
        name = upload_names.source(upload.name)
        return scanned_decisions.or_queue(
            view,
            kind,
            case,
            upload.path,
            upload.fields,
            name,
            lambda: service(view, case, upload.path, source_name=name, **upload.fields),
        )

    return await uploads.handled(
        request, state.upload_root, fields=fields, caps=state.decision_caps, work=work
    )


chair_final = chair("uploading a final decision (it becomes a record in the chair's name)")


@router.post("/api/cases/{case:path}/draft/upload")
async def draft_upload(case: str, request: Request, view: Acting) -> dict:
    return await uploaded(request, view, uploads.DRAFT_FIELDS, drafts.add_draft, case, "draft")


def her_final(view: Any, case: str, path: Any, **fields: Any) -> dict:
    """Her final over HTTP: its labels are hers — given with it, or the draft's only when she
    sends labels_from_draft=true (else a draft's labels she did not give are refused, 400)."""
    fields.setdefault("labels_from_draft", False)
    return dict(finals.upload_final(view, case, path, **fields))


@router.post("/api/cases/{case:path}/final/upload")
async def final_upload(
    case: str, request: Request, view: Annotated[Any, Depends(chair_final)]
) -> dict:
    return await uploaded(request, view, uploads.FINAL_FIELDS, her_final, case, "final")


@router.get("/api/scans")
def my_scans(view: Acting) -> dict:
    """The caller's own drafts and finals uploaded as scans, newest first, with their state."""
    return scanned_decisions.mine(view)


@router.get("/api/scans/{scan_id}")
def my_scan(scan_id: int, view: Acting) -> dict:
    return scanned_decisions.mine_one(view, scan_id)


@router.post("/api/scans/{scan_id}/cancel")
def cancel_my_scan(scan_id: int, view: Acting) -> dict:
    """The caller's own scanned upload cancelled while it waits for OCR (409 once taken)."""
    return scanned_decisions.cancel_mine(view, scan_id)


@router.post("/api/cases/{case:path}/promote")
def promote(
    case: str, body: PromoteBody, view: Annotated[Any, Depends(chair("promoting lessons"))]
) -> dict:
    return lessons.promote(view, case, body.lesson_ids, body.phrases)


@router.post("/api/cases/{case:path}/curator-findings")
def curator(case: str, body: CuratorBody, view: Acting) -> dict:
    return lessons.record_curator_findings(view, case, body.findings)


@router.get("/api/learning/style-distance-history")
def style_history(view: Acting, paged: Paged) -> dict:
    return dict(finals.history(view, paged))


@router.get("/api/learning/pairs")
def pairs(view: Acting, paged: Paged) -> dict:
    return finals.pairs(view, paged)


@router.get("/api/learning/curator-stats")
def curator_stats(view: Acting) -> dict:
    return dict(curator_figures.stats(view))


@router.get("/api/learning/panel-stats")
def panel_stats(view: Acting) -> dict:
    return dict(panel_figures.stats(view))  # `dict`: FastAPI would validate a TypedDict


@router.get("/api/lessons")
def list_lessons(
    view: Acting, paged: Paged, status: str | None = None, case: str | None = None
) -> dict:
    return lessons.list_lessons(view, status, case, paged)


@router.post("/api/lessons/{lesson_id}/review")
def review(
    lesson_id: int, body: ReviewBody, view: Annotated[Any, Depends(chair("reviewing a lesson"))]
) -> dict:
    return lessons.review(
        view, lesson_id, body.decision, reason=body.reason, expected_status=body.expected_status
    )
