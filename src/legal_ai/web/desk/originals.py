"""/original: a case's draft, final or case document as the chair uploaded it (migration 0046,
store/originals.py), for her to open or keep. The chair's signed-in desk only: an API token, an
agent's included, opens no desk page, and the agent's database role cannot read the files."""

import mimetypes
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import Depends, FastAPI, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from ... import upload_names
from ...errors import InvalidInput
from ...learning import vocabulary as vocab
from ...learning.pairs import originals
from . import core

NOT_KEPT = (
    "הקובץ המקורי של המסמך הזה לא נשמר: הוא הועלה לפני שהמערכת החלה לשמור קבצים מקוריים, או "
    "שהיה גדול מ־32 מגה־בייט. הטקסט שנקרא ממנו שמור ומוצג בדף התיק"
)


def href(case: str, kind: str, *, version: int | None = None, doc: str | None = None) -> str:
    """The address of one upload's original file."""
    link = f"/original?case={quote(case, safe='')}&kind={kind}"
    if version is not None:
        link += f"&version={version}"
    if doc is not None:
        link += f"&doc={quote(doc, safe='')}"
    return link


def listed(conn: Any, case: str) -> list[dict]:
    """A case's uploads for its page (its connection): each with its file's name, size and
    link (None when no original is kept)."""
    rows = originals.of_case(conn, case)
    out = []
    for row in rows:
        name = upload_names.file_name(row["name"])
        kept = row["bytes"] is not None
        link = None
        if kept:
            link = href(case, row["kind"], version=row["version"], doc=row["doc_id"])
        out.append({**row, "file_name": name, "href": link})
    return out


def _found(view: Any, case: str, kind: str, version: str | None, doc: str | None) -> dict | None:
    return originals.found(view, case, kind, version, doc)


def routes(api: FastAPI, signed_in: Any) -> None:
    Chair = Annotated[core.Desk, Depends(signed_in)]

    @api.get("/original", include_in_schema=False)
    async def original(
        request: Request,
        desk: Chair,
        case: str = "",
        kind: str = "",
        version: str | None = None,
        doc: str | None = None,
    ) -> Response:
        try:
            number = vocab.case_number(case)
        except InvalidInput:
            return core.error_page(request, 404, "אין תיק כזה; בחרי תיק מהרשימה", desk)
        found = await run_in_threadpool(_found, desk.view, number, kind, version, doc)
        if found is None:
            return core.error_page(request, 404, NOT_KEPT, desk)
        name = upload_names.file_name(found["file_name"]) or "file"
        media = mimetypes.guess_type(name)[0] or "application/octet-stream"
        return Response(
            bytes(found["content"]),
            media_type=media,
            headers={
                "Content-Disposition": f"attachment; filename*=UTF-8''{quote(name)}",
                "Cache-Control": "private, no-store",
                "X-Content-Type-Options": "nosniff",
            },
        )
