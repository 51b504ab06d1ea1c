"""What every desk page shares: the templates (Jinja2, autoescape on), the signed-in chair's
session (cookie `legal_ai_desk`), the CSRF check of every form, and the HTML answer to an error
(the API's errors stay JSON; web/errors.py).

A desk page needs a signed-in chair: no cookie, or one whose session expired, is sent to
/login; a bearer token (an agent's, even the chair's API token) opens no desk page — the desk is
the chair's, agents keep the API. Every action runs on `legal.acting_as(session.principal)`."""

import hmac
import re
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, overload
from urllib.parse import quote

from fastapi import Request
from fastapi.responses import HTMLResponse, Response
from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup
from starlette.concurrency import run_in_threadpool

from ... import accounts, upload_names
from ...errors import AppError, Forbidden, InvalidInput, NotFound, Stale
from ...ops import alarms
from ...text import clock
from .. import errors as web_errors
from . import labels, menu, messages
from .labels import label

HERE = Path(__file__).parent
COOKIE = "legal_ai_desk"
LOGIN_COOKIE = "legal_ai_desk_login"  # the sign-in form's own CSRF token (no session yet)
# The first path segment of every desk page (anything else is the API's).
ROOTS = frozenset(
    {
        "",
        "login",
        "logout",
        "search",
        "source",
        "training",
        "audit",
        "health",
        "cases",
        "methodology",
        "learning",
        "reminders",
        "review",
        "system",
        "desk-static",
        "uploads",  # a final's or a scan's upload waiting for her confirmation
        "original",  # a case's upload as she sent it
        "cite-report",  # a case's cite-check report
    }
)

NAV = menu.NAV  # six items, grouped; their badges count what waits (menu.py)


def typed_day(value: str, field: str) -> str:
    """A date as she types it in a desk's date field — day first, as she writes it (1.6.2021,
    1/6/21), or the ISO form a link carries (2021-06-01): text/clock.parse_day — in the ISO form
    the services take. InvalidInput (date.invalid, naming the field) when it is no date."""
    day = clock.parse_day(value)
    if day is None:
        raise InvalidInput(
            f"{field} {value!r} is not a date; write it as day.month.year (1.6.2021)",
            code="date.invalid",
            field=field,
        )
    return day.isoformat()


env = Environment(
    loader=FileSystemLoader(HERE / "templates"),
    autoescape=select_autoescape(default=True, default_for_string=True),
    trim_blocks=True,
    lstrip_blocks=True,
)
env.filters["q"] = lambda value: quote(str(value), safe="")
env.filters["dash"] = lambda value: "—" if value is None else value  # no value yet, not "None"
env.filters["said"] = messages.said  # a notice or an error: Hebrew, the English behind details
env.filters["reason"] = messages.reason  # a decision's reason
env.filters["panel_reason"] = messages.panel_reason  # a panel model's reason, asked in Hebrew
env.filters["technical"] = lambda text: messages.technical(text) if text else ""
env.filters["file_name"] = upload_names.file_name  # "upload:x.pdf" -> "x.pdf"
labels.install(env)  # the one dictionary: he, hebrew_date, when, cron, bdi, mixed, who, job
hebrew_date = labels.hebrew_date
JOBS = labels.JOB


def is_desk(path: str) -> bool:
    return path.split("/")[1] in ROOTS if path.startswith("/") else False


class SignInNeeded(Exception):
    """No valid session: the page answers with a redirect to /login."""

    def __init__(self, target: str, expired: bool) -> None:
        super().__init__(target)
        self.target, self.expired = target, expired


class CsrfRefused(Forbidden):
    """A form without the session's CSRF token (403; nothing was done)."""

    code = "desk.csrf"


@dataclass
class Desk:
    """A desk request: the chair's session and the App acting for her."""

    session: Any
    view: Any
    request: Request
    waiting: dict[str, int] | None = None  # menu.counts, read once for a page asked for
    alarm: dict | None = None  # ops/alarms.alarm: what stopped in the background (the banner)

    @property
    def csrf(self) -> str:
        return self.session.csrf


def render(request: Request, template: str, status: int = 200, **context: Any) -> HTMLResponse:
    desk = context.get("desk")
    page = env.get_template(template).render(
        nav=NAV,
        here=menu.current(request.url.path),
        badges=menu.badges(desk.waiting) if desk and desk.waiting is not None else {},
        waiting_words=menu.waiting_words,
        path=request.url.path,
        csrf=desk.csrf if desk else None,
        alarm=desk.alarm if desk else None,
        **context,
    )
    return HTMLResponse(page, status_code=status, headers={"Cache-Control": "no-store"})


def queue_page(template: str, load: Any, in_hebrew: Any, **fixed: Any) -> tuple[Any, Any]:
    """A queue the chair decides (voice documents, enrichment proposals, principles): its page,
    rendered from `load(view)` (in a thread) and the `fixed` values, and the answer to a
    refused decision — the same page, the status the error maps to, "nothing was done" and why
    in Hebrew (`in_hebrew(exc)`)."""

    async def page(
        request: Request,
        desk: Desk,
        *,
        status: int = 200,
        message: str | None = None,
        notice: str | None = None,
    ) -> Response:
        data = await run_in_threadpool(load, desk.view)
        return render(
            request,
            template,
            status=status,
            desk=desk,
            message=message,
            notice=notice,
            **fixed,
            **data,
        )

    async def refused(request: Request, desk: Desk, exc: AppError) -> Response:
        return await page(
            request,
            desk,
            status=web_errors.status_of(exc),
            message=Markup("לא בוצע דבר: {} הדף מציג את המצב הנוכחי.").format(in_hebrew(exc)),
        )

    return page, refused


def error_page(request: Request, status: int, message: str, desk: Desk | None = None) -> Response:
    return render(
        request, "error.html", status=status, message=message, status_code=status, desk=desk
    )


def secure(request: Request) -> bool:
    return request.url.scheme == "https"


def set_cookie(response: Response, request: Request, name: str, value: str, max_age: int) -> None:
    response.set_cookie(
        name,
        value,
        max_age=max_age,
        httponly=True,
        samesite="strict",
        secure=secure(request),
        path="/",
    )


def new_login_token() -> str:
    return secrets.token_urlsafe(24)


def same(a: object, b: object) -> bool:
    """Two tokens equal in constant time; a missing one, or a form's file part, is not."""
    return bool(a) and bool(b) and hmac.compare_digest(str(a).encode(), str(b).encode())


def check_csrf(desk: Desk, supplied: object) -> None:
    if not same(supplied, desk.session.csrf):
        raise CsrfRefused(
            "הטופס נשלח בלי אסימון האבטחה של ההתחברות (CSRF); טעני את הדף מחדש ונסי שוב — "
            "לא בוצע דבר"
        )


def signed_in(legal: Any):
    """The dependency of every desk page: the chair's session, or SignInNeeded / Forbidden."""

    def dependency(request: Request) -> Desk:
        token = request.cookies.get(COOKIE)
        session = accounts.session(legal, token) if token else None
        if session is None:
            if request.headers.get("authorization"):
                raise Forbidden(
                    'הדסק הוא של היו"ר: אסימון של ה-API אינו פותח את דפי הדסק (סוכנים עובדים '
                    'דרך ה-API); היו"ר נכנסת בשם ובסיסמה ב-/login'
                )
            target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
            raise SignInNeeded(target, expired=token is not None)
        if not session.principal.is_chair:
            raise Forbidden('הדסק הוא של היו"ר בלבד')
        view = legal.acting_as(session.principal)
        # What waits for her, for the menu's badges and the today page: once per page asked
        # for (a form's POST answers with a redirect, or its page without badges).
        if request.method != "GET":
            return Desk(session=session, view=view, request=request)
        with view.store.connection() as conn:
            waiting = menu.counts(view, conn)
            alarm = alarms.alarm(view, conn)  # the red banner: one statement
        return Desk(session=session, view=view, request=request, waiting=waiting, alarm=alarm)

    return dependency


async def form_of(request: Request, desk: Desk) -> dict[str, Any]:
    """The posted form's text fields (each field once; lists for repeated names), its CSRF
    checked first. A file part is no field of a desk form: it is left out (a CSRF token sent as
    a file is no token), and its spooled file closed with the form, refused or not."""
    out: dict[str, Any] = {}
    async with request.form() as form:
        for key in form.keys():
            values = [value for value in form.getlist(key) if isinstance(value, str)]
            if values:
                out[key] = values if len(values) > 1 else values[0]
    check_csrf(desk, out.get("csrf"))
    return out


# -- what the desk's decision pages (principles, voice, enrichment) share -----------------------


# What the services' Stale refusals name (errors.Stale.kind), as the chair reads it.
KINDS = {
    "lesson": "לקח",
    "principle": "עיקרון",
    "canonical principle": "עיקרון קנוני",
    "voice document": "מסמך קול",
    "enrichment": "הצעה",
    "treatment": "קריאת ההפניה",
}


def stale_text(exc: Stale, labels: dict[str, str]) -> str:
    """A decision refused because another tab or process decided the item first (the service
    read it under its row lock): what it is now, and who decided, in Hebrew (the page says
    which item; its row id is not hers to read)."""
    by = f" (בידי {label(exc.by, 'actor')})" if exc.by else ""
    now = labels.get(exc.status, label(exc.status, "status"))
    return f'{KINDS.get(exc.kind, "הפריט")} כבר במצב "{now}"{by}'


def item_id(raw: Any, what: str) -> int:
    """A posted item id; a missing or non-numeric one is refused naming `what` in Hebrew."""
    try:
        return int(str(raw))
    except (TypeError, ValueError):
        raise InvalidInput(f"חסר מזהה {what} או שאינו מספר; טעני את הדף מחדש") from None


def in_hebrew(
    exc: AppError,
    *,
    labels: dict[str, str] | None = None,
    missing: str | None = None,
) -> Markup:
    """A service's refusal as the chair reads it: a Stale one through `stale_text(labels)`, else
    `missing` for a NotFound without a code of its own, else the catalog's Hebrew for its code
    (messages.said) — the service's own text kept behind "פרטים טכניים"."""
    if labels is not None and isinstance(exc, Stale):
        return Markup("{}.").format(stale_text(exc, labels))
    if missing is not None and isinstance(exc, NotFound) and exc.code == NotFound.code:
        return Markup("{}. ").format(missing) + messages.technical(str(exc))
    return messages.said(exc)


def decision_form(
    form: dict, decisions: Any, choices: str, noun: str, max_reason: int
) -> tuple[str, int, str | None, str | None]:
    """Her decision on a gated row as a review form posts it: (decision, the row's id, her
    reason, the status the page showed — checked first by the use case). An unknown decision is
    refused listing `choices`; a missing id names `noun`; both in Hebrew."""
    decision = str(form.get("decision") or "")
    if decision not in decisions:
        raise InvalidInput(f"החלטה לא מוכרת {decision!r}: {choices}")
    row = item_id(form.get("id"), noun)
    reason = form_text(form, "reason", max_reason, "הנימוק")
    return decision, row, reason, str(form.get("expected_status") or "") or None


@overload
def form_text(form: dict, name: str, limit: int, what: str, required: Literal[True]) -> str: ...


@overload
def form_text(
    form: dict, name: str, limit: int, what: str, required: bool = False
) -> str | None: ...


def form_text(form: dict, name: str, limit: int, what: str, required: bool = False) -> str | None:
    """A text field of a posted form, stripped (None when empty, unless `required`), at most
    `limit` characters; the refusal names `what` in Hebrew."""
    value = str(form.get(name) or "").strip()
    if not value:
        if required:
            raise InvalidInput(f"{what} ריק; כתבי אותו ונסי שוב")
        return None
    if len(value) > limit:
        raise InvalidInput(f"{what} ארוך מדי: עד {limit:,} תווים (נשלחו {len(value):,})")
    return value


def model_state(variable: str, probe: Any, unset_said: str) -> dict:
    """Whether the model a setting names is ready, and in Hebrew what to set when it is not:
    `probe()` returns (model, what to set) like learning.engine.single_model; `unset_said` is
    the sentence for an unset `variable`."""
    try:
        model, missing = probe()
    except InvalidInput as exc:
        return {
            "ready": False,
            "variable": variable,
            "missing": str(exc),
            "said": "ההגדרה של המודל שגויה; מי שמתחזק את השרת צריך לתקן אותה.",
        }
    if model is not None:
        return {"ready": True, "variable": variable, "model": model.spec.name, "missing": None}
    key = re.match(r"set (\S+) for ", missing or "")
    if key and key.group(1) != variable:
        said = "למודל שהוגדר חסר מפתח גישה; מי שמתחזק את השרת צריך להגדיר אותו."
    else:
        said = unset_said
    return {"ready": False, "variable": variable, "missing": missing, "said": said}
