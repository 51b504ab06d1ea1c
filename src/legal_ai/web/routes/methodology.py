"""The methodology profiles: show, versions, diff and the steps for anyone authenticated; edit,
restore and a step back (undo) are the chair's."""

from typing import Annotated, Any

from fastapi import APIRouter, Depends
from pydantic import Field

from ...learning.methodology import profiles as methodology
from ...learning.methodology import undo
from ..deps import Acting, chair
from .bodies import Body

router = APIRouter()


class MethodologyBody(Body):
    changes: dict[str, Any]
    reason: str = Field(default="edit", max_length=2000)


class UndoBody(Body):
    version: int = Field(ge=1)  # the current version the chair saw


class RestoreBody(Body):
    version: int = Field(ge=1)
    reason: str | None = Field(default=None, max_length=2000)


@router.get("/api/methodology/{appeal_type}")
def show_methodology(appeal_type: str, view: Acting) -> dict:
    return methodology.show(view, appeal_type)


@router.post("/api/methodology/{appeal_type}")
def edit_methodology(
    appeal_type: str,
    body: MethodologyBody,
    view: Annotated[Any, Depends(chair("editing the methodology"))],
) -> dict:
    return methodology.edit(view, appeal_type, body.changes, reason=body.reason)


@router.get("/api/methodology/{appeal_type}/versions")
def methodology_versions(appeal_type: str, view: Acting) -> dict:
    return methodology.history(view, appeal_type)


@router.get("/api/methodology/{appeal_type}/diff")
def methodology_diff(appeal_type: str, view: Acting, a: int, b: int) -> dict:
    return methodology.diff(view, appeal_type, a, b)


@router.post("/api/methodology/{appeal_type}/restore")
def restore_methodology(
    appeal_type: str,
    body: RestoreBody,
    view: Annotated[Any, Depends(chair("restoring a methodology version"))],
) -> dict:
    return methodology.restore(view, appeal_type, body.version, reason=body.reason)


@router.get("/api/methodology/{appeal_type}/steps")
def methodology_steps(appeal_type: str, view: Acting) -> dict:
    return undo.steps(view, appeal_type)


@router.post("/api/methodology/{appeal_type}/undo")
def undo_methodology(
    appeal_type: str,
    body: UndoBody,
    view: Annotated[Any, Depends(chair("undoing a methodology change"))],
) -> dict:
    return undo.undo(view, appeal_type, body.version)
