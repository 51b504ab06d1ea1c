"""Sign-in and sign-out. /login takes a name and a password (accounts.sign_in: argon2, failures
rate-limited per name and client and per name from every client, the client's address read by
web/clients.py: proxy headers only from LEGAL_AI_TRUSTED_PROXIES); 429 with Retry-After when
limited; the session's token goes into the `legal_ai_desk` cookie
(HttpOnly, SameSite=Strict, Secure over https). The sign-in form carries its own CSRF token
(cookie `legal_ai_desk_login` and a hidden field); every later form carries the session's."""

from datetime import UTC, datetime
from typing import Any
from urllib.parse import unquote, urlsplit

from fastapi import FastAPI, Request
from fastapi.responses import RedirectResponse, Response
from markupsafe import Markup
from starlette.concurrency import run_in_threadpool
from starlette.routing import Match

from ... import accounts
from ...config import Settings
from ...errors import Forbidden, RateLimited, Unauthorized
from .. import clients
from . import core
from .messages import said, technical

LOGIN_TTL_S = 3600


def _safe_next(target: str | None) -> str:
    """Only a path of this site (never `//host` or a full URL) is followed after sign-in."""
    if target and target.startswith("/") and not target.startswith(("//", "/\\")):
        return target
    return "/"  # today: what waits for her


def page_sent_from(request: Request) -> str:
    """The desk page a form was sent from (its Referer, on this site and a page one can open
    again), where she returns after signing in when the form arrived without a session; "/"
    when it cannot be told."""
    referer = urlsplit(request.headers.get("referer") or "")
    if referer.netloc != request.url.netloc or not core.is_desk(referer.path or "-"):
        return "/"
    scope = {"type": "http", "method": "GET", "path": unquote(referer.path)}
    for route in request.app.routes:
        if getattr(route, "methods", None) and "GET" in route.methods:
            if route.matches(scope)[0] is Match.FULL:
                return _safe_next(referer.path + (f"?{referer.query}" if referer.query else ""))
    return "/"


def _login_page(
    request: Request,
    status: int = 200,
    message: str | None = None,
    name: str = "chair",
    target: str | None = None,
) -> Response:
    token = core.new_login_token()
    response = core.render(
        request,
        "login.html",
        status=status,
        message=message,
        login_csrf=token,
        name=name,
        next=_safe_next(target or request.query_params.get("next")),
        expired=request.query_params.get("expired") == "1",
        unsent=request.query_params.get("unsent") == "1",
    )
    core.set_cookie(response, request, core.LOGIN_COOKIE, token, LOGIN_TTL_S)
    return response


def routes(api: FastAPI, legal: Any, settings: Settings) -> None:
    @api.get("/login", include_in_schema=False)
    def login_form(request: Request) -> Response:
        return _login_page(request)

    @api.post("/login", include_in_schema=False)
    async def login(request: Request) -> Response:
        async with request.form() as form:  # closed whatever the answer (a file part too)
            name = str(form.get("name") or "").strip()
            target = str(form.get("next") or "")
            csrf = form.get("csrf")
            password = str(form.get("password") or "")
        if not core.same(csrf, request.cookies.get(core.LOGIN_COOKIE)):
            return _login_page(
                request, 403, "פג תוקף טופס הכניסה; הטופס נטען מחדש — נסי שוב", name, target
            )
        client = clients.client_address(request.scope, settings)  # proxies: only trusted ones
        try:
            session = await run_in_threadpool(accounts.sign_in, legal, name, password, client)
        except Unauthorized:
            return _login_page(request, 401, "שם המשתמש או הסיסמה שגויים", name, target)
        except RateLimited as exc:  # too many failures, from this address or at this account
            minutes = max(1, -(-exc.retry_after // 60))
            when = "דקה" if minutes == 1 else f"{minutes} דקות"
            lead = (
                "יותר מדי ניסיונות כניסה שגויים לחשבון הזה, מכל הכתובות יחד"
                if exc.account
                else "יותר מדי ניסיונות כניסה שגויים"
            )
            waited = Markup("{}; המתיני {} ונסי שוב. ").format(lead, when) + technical(str(exc))
            page = _login_page(request, 429, waited, name, target)
            page.headers["Retry-After"] = str(exc.retry_after)
            return page
        except Forbidden as exc:
            return _login_page(request, 403, said(exc), name, target)
        response = RedirectResponse(_safe_next(target), 303)
        ttl = int((session.expires_at - datetime.now(UTC)).total_seconds())
        core.set_cookie(response, request, core.COOKIE, session.token, max(ttl, 60))
        response.delete_cookie(core.LOGIN_COOKIE, path="/")
        return response

    signed_in = core.signed_in(legal)

    @api.post("/logout", include_in_schema=False)
    async def logout(request: Request) -> Response:
        try:
            desk = signed_in(request)
        except core.SignInNeeded:  # signed out already (another tab): nothing to undo
            return RedirectResponse("/login", 303)
        await core.form_of(request, desk)
        await run_in_threadpool(accounts.sign_out, legal, desk.session.token)
        response = RedirectResponse("/login", 303)
        response.delete_cookie(core.COOKIE, path="/")
        return response
