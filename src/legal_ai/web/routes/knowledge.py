"""What the writer reads (docs/learning.md): block
exemplars and templates, contrastive examples, the writing brief, the content checklist and
the lessons for an outcome."""

from typing import Annotated, Any

from fastapi import APIRouter, Depends
from pydantic import Field

from ...knowledge import brief, contrastive, exemplars, templates, withdrawn
from ..deps import Acting, chair
from .bodies import Body

router = APIRouter()
her_finals = chair("withdrawing or restoring her final from what the writer reads")


class WithdrawBody(Body):
    reason: str | None = Field(default=None, max_length=2000)


@router.get("/api/finals/withdrawn")
def withdrawn_finals(view: Acting) -> dict:
    """Her finals withdrawn from what the writer reads, the latest first."""
    return {"withdrawn": withdrawn.withdrawn(view)}


@router.post("/api/finals/{case:path}/withdraw")
def withdraw_final(
    case: str, view: Annotated[Any, Depends(her_finals)], body: WithdrawBody | None = None
) -> dict:
    return withdrawn.withdraw(view, case, body.reason if body else None)


@router.post("/api/finals/{case:path}/restore")
def restore_final(
    case: str, view: Annotated[Any, Depends(her_finals)], body: WithdrawBody | None = None
) -> dict:
    return withdrawn.restore(view, case, body.reason if body else None)


@router.get("/api/exemplars/{block}")
def block_exemplars(
    block: str,
    view: Acting,
    appeal_type: str,
    outcome: str | None = None,
    case: str | None = None,
    query: str | None = None,
    limit: int = 5,
    per_final: int = 1,
) -> dict:
    return dict(
        exemplars.get_block_exemplars(
            view,
            block,
            appeal_type,
            outcome=outcome,
            case=case,
            query=query,
            limit=limit,
            per_final=per_final,
        )
    )


@router.get("/api/templates")
def block_templates(view: Acting, block: str | None = None, appeal_type: str | None = None) -> dict:
    return dict(templates.get_templates(view, block=block, appeal_type=appeal_type))


@router.get("/api/contrastive/{block}")
def contrastive_examples(
    block: str, view: Acting, appeal_type: str | None = None, k: int = 5
) -> dict:
    return dict(contrastive.get_contrastive_examples(view, block, appeal_type, k))


@router.get("/api/brief")
def writing_brief(
    view: Acting,
    appeal_type: str,
    outcome: str | None = None,
    case: str | None = None,
    max_chars: int | None = None,
) -> dict:
    return dict(brief.writing_brief(view, appeal_type, outcome, case=case, max_chars=max_chars))


@router.get("/api/content-checklist")
def content_checklist(view: Acting, appeal_type: str, outcome: str | None = None) -> dict:
    return dict(brief.content_checklist(view, appeal_type, outcome))


@router.get("/api/lessons-for-outcome")
def lessons_for_outcome(view: Acting, appeal_type: str, outcome: str | None = None) -> dict:
    return dict(brief.lessons_for_outcome(view, appeal_type, outcome))
