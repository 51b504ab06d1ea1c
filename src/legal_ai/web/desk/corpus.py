"""/system/corpus ("מה יש בספרייה", docs/desk.md): what the library holds, by kind — rulings,
statutes, the committee's decisions, her signed finals, digests (and other external sources,
when there are any) — each with its count and its count by year, latest first, an undated count
last (learning/library/holdings.py, one read). Statutes are counted as laws and as their sections. Items the
search does not reach yet (waiting for their reading or their embedding) are said beside the
count. Linked from /system; read-only; Hebrew only, right to left."""

from typing import Annotated, Any

from fastapi import Depends, FastAPI, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from ...learning.library import holdings as holdings_service
from . import core, labels

PATH = "/system/corpus"


def library(view: Any) -> dict:
    """Each kind the library holds, in the dictionary's order: {key, label, total, laws,
    not_searchable, years: [{year, count, laws}]}, and the count of all items."""
    rows = holdings_service.holdings(view)
    kinds: dict[str, dict] = {}
    for row in rows:
        kind = kinds.setdefault(row["kind"], {"key": row["kind"], "years": []})
        if row["total"]:
            kind.update(
                label=labels.label(row["kind"], "holding"),
                total=row["items"],
                laws=row["laws"],
                not_searchable=row["not_searchable"],
            )
        else:
            kind["years"].append({"year": row["year"], "count": row["items"], "laws": row["laws"]})
    order = list(labels.HOLDING)
    shown = sorted(kinds.values(), key=lambda k: order.index(k["key"]) if k["key"] in order else 99)
    return {"kinds": shown, "total": sum(k["total"] for k in shown)}


def routes(api: FastAPI, signed_in: Any) -> None:
    Chair = Annotated[core.Desk, Depends(signed_in)]

    @api.get(PATH, include_in_schema=False)
    async def corpus_page(request: Request, desk: Chair) -> Response:
        data = await run_in_threadpool(library, desk.view)
        return core.render(request, "corpus.html", desk=desk, **data)
