"""/training/metadata: the one screen where the chair writes the headnote, summary and tags of the
internal decisions awaiting them (docs/ingest.md "Completeness"). Without the
three an internal decision is not searchable; the enricher fills them when a model is set, and
here she fills them herself. Linked from the desk's navigation and from /health's list of
decisions awaiting metadata.

The list is learning/arrival/metadata.to_fill (health's `awaiting_metadata`, with what each decision
holds now, which prefills its form). Each form is a POST with the session's CSRF token
(core.form_of) and runs as the signed-in chair: learning/arrival/metadata.set_fields, the same service
as the CLI and the API, under its require_chair and the database's gate. The decision is
searchable as soon as it is saved, and the page says so. A bad input (a field empty or too
long, too many tags) answers in Hebrew with what she typed kept in its form; nothing is saved.
Hebrew only on the screen: ids travel in form values and links, never as text."""

from typing import Annotated, Any
from urllib.parse import quote

from fastapi import Depends, FastAPI, Request
from fastapi.responses import RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from ...errors import InvalidInput, NotFound
from ...learning.arrival import metadata as service
from ...paging import HEALTH_ROWS
from .. import errors as web_errors
from . import core
from .pages_hebrew import field_names, metadata_state

PATH = service.DESK  # the path the service's "what to set" names
MAX_SHOWN = HEALTH_ROWS
FIELDS = ("headnote", "summary", "tags")
# Each field of the form as the chair reads it in a refusal.
LABELS = {"headnote": "התקציר", "summary": "הסיכום", "tags": "התגיות"}


class FieldRefused(InvalidInput):
    """A field of the form refused, in Hebrew, naming the field (shown beside it)."""

    code = "metadata.field"

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message, field=field)


def tags_of(raw: str) -> list[str]:
    """The tags she wrote, comma-separated (a Hebrew comma too), each once, in her order."""
    out: list[str] = []
    for part in raw.replace("،", ",").split(","):
        tag = " ".join(part.split())
        if tag and tag not in out:
            out.append(tag)
    return out


def checked(typed: dict[str, str]) -> dict:
    """The three fields she typed, checked before the service is asked (FieldRefused in Hebrew):
    none empty, none too long, at most service.MAX_TAGS tags of service.MAX_TAG characters."""
    limits = {"headnote": service.MAX_HEADNOTE, "summary": service.MAX_SUMMARY}
    values: dict[str, Any] = {}
    for name, limit in limits.items():
        try:
            values[name] = core.form_text(typed, name, limit, LABELS[name], required=True)
        except InvalidInput as exc:
            raise FieldRefused(name, str(exc)) from None
    tags = tags_of(typed["tags"])
    if not tags:
        raise FieldRefused("tags", "התגיות ריקות; כתבי לפחות תגית אחת (כמה תגיות מפרידים בפסיק)")
    if len(tags) > service.MAX_TAGS:
        raise FieldRefused("tags", f"יותר מדי תגיות: עד {service.MAX_TAGS} (נכתבו {len(tags)})")
    long = [t for t in tags if len(t) > service.MAX_TAG]
    if long:
        raise FieldRefused("tags", f"התגית '{long[0]}' ארוכה מדי: עד {service.MAX_TAG} תווים לתגית")
    return {**values, "tags": tags}


def hebrew(exc: Exception) -> tuple[str | None, str]:
    """A refusal as (the field it names, or None; the Hebrew the chair reads)."""
    if isinstance(exc, FieldRefused):
        return exc.field, str(exc)
    if isinstance(exc, NotFound):
        return None, "ההחלטה לא נמצאה (אולי נמחקה בינתיים); טעני את הדף מחדש"
    field = {"tag": "tags"}.get(getattr(exc, "field", None) or "", getattr(exc, "field", None))
    if field in FIELDS:  # the service's refusal of one field (empty, too long): beside it
        return field, f"{LABELS[field]} ריק או ארוך מדי; תקני ונסי שוב"
    return None, "הפרטים לא נשמרו; בדקי את השדות ונסי שוב"


def _shown(view: Any) -> dict:
    """The decisions awaiting their fields, each with its state and what it lacks in Hebrew and
    its form's values (what it holds now)."""
    found = service.to_fill(view, MAX_SHOWN)
    decisions = []
    for d in found["items"]:
        form = {"headnote": d["headnote"] or "", "summary": d["summary"] or ""}
        form["tags"] = ", ".join(d["tags"])
        decisions.append(
            {**d, "state_he": metadata_state(d), "lacks": field_names(d["missing"]), "form": form}
        )
    return {"count": found["count"], "decisions": decisions}


def _saved(view: Any, doc_id: str | None) -> dict | None:
    """What the page says after she saved a decision's fields (None: nothing saved)."""
    found = service.saved(view, doc_id) if doc_id else None
    if found is None:
        return None
    return {**found, "lacks": field_names(found["missing"])}


def routes(api: FastAPI, signed_in: Any) -> None:
    Chair = Annotated[core.Desk, Depends(signed_in)]

    async def page(
        request: Request,
        desk: core.Desk,
        *,
        saved: str | None = None,
        status: int = 200,
        kept: dict | None = None,
        refused: dict | None = None,
    ) -> Response:
        data = await run_in_threadpool(_shown, desk.view)
        done = await run_in_threadpool(_saved, desk.view, saved)
        return render_page(request, desk, data, done, status, kept, refused)

    @api.get(PATH, include_in_schema=False)
    async def metadata_page(request: Request, desk: Chair, saved: str | None = None) -> Response:
        return await page(request, desk, saved=saved)

    @api.post(PATH + "/set", include_in_schema=False)
    async def set_fields(request: Request, desk: Chair) -> Response:
        """Her headnote, summary and tags for one decision (set_fields as the chair); a refusal
        keeps what she typed in its form."""
        form = await core.form_of(request, desk)
        doc_id = str(form.get("doc_id") or "")
        typed = {name: str(form.get(name) or "") for name in FIELDS}
        try:
            values = checked(typed)
            await run_in_threadpool(
                service.set_fields,
                desk.view,
                doc_id,
                values["headnote"],
                values["summary"],
                values["tags"],
            )
        except (InvalidInput, NotFound) as exc:
            field, said = hebrew(exc)
            refused = {"doc_id": doc_id, "field": field, "text": said}
            status = web_errors.status_of(exc)
            return await page(request, desk, status=status, kept={doc_id: typed}, refused=refused)
        return RedirectResponse(f"{PATH}?saved={quote(doc_id, safe='')}", 303)


def render_page(
    request: Request,
    desk: core.Desk,
    data: dict,
    done: dict | None,
    status: int,
    kept: dict | None,
    refused: dict | None,
) -> Response:
    """The page: a refused form shows what she typed, the others what each decision holds."""
    for d in data["decisions"]:
        if kept and d["doc_id"] in kept:
            d["form"] = kept[d["doc_id"]]
    message = None
    if refused:
        message = f"לא נשמר דבר: {refused['text']}"
    return core.render(
        request,
        "metadata.html",
        status=status,
        desk=desk,
        message=message,
        refused=refused,
        saved=done,
        **data,
    )
