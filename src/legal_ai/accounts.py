"""Signing in to the chair's desk: a password set with `legal-ai user set-password`,
stored as an argon2id hash (argon2-cffi's PasswordHasher, RFC 9106 parameters), and sessions.

- `sign_in` checks the password in constant work (an unknown name is checked against a dummy
  hash), refuses with `RateLimited` after MAX_FAILURES failures of that name from that client in
  WINDOW_S seconds, or ACCOUNT_MAX_FAILURES failures of that name from any client (a run of
  wrong passwords from rotating addresses), the message saying how long to
  wait, and on success opens a session. The client is the connection's address, a proxy's
  X-Forwarded-For only from LEGAL_AI_TRUSTED_PROXIES (web/clients.py). The account's lock is a
  lock-out anyone can cause for WINDOW_S seconds; a session already open is not ended by it,
  and `legal-ai user set-password chair` lifts it at once.
- A session's token is 32 random bytes (URL-safe text) handed to the browser once; the database
  keeps only its SHA-256, so a copy of the table signs no one in. Each session has its own CSRF
  token, which the desk's forms carry (web/desk/core.py checks it). It ends after
  `desk_session_idle_minutes` unused (default 720) and 24 hours after sign-in, whichever is
  first; `sign_out` ends it at once, and a new password ends every session of that name.
- The desk's tables belong to the application's login: the services here run on it whoever is
  acting, and the database refuses them to the request roles (migration 0014). An agent may not
  set a password.
- The chair's token for the CLI: `legal-ai user set-token chair` keeps its
  argon2id hash in the desk's accounts (a row `chair-token` that signs no one in; no request
  role reads or writes the table: an agent's login may not register a token);
  a CLI run acts as the chair only when LEGAL_AI_CHAIR_TOKEN verifies against it
  (`check_chair_token`; argon2's own comparison runs in constant time), never on any other
  value, and never when no token is registered.
"""

from __future__ import annotations

import hashlib
import math
import secrets
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import TYPE_CHECKING

import psycopg
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from .auth import CHAIR, Principal
from .errors import Forbidden, InvalidInput, RateLimited, Unauthorized
from .store import accounts as store

if TYPE_CHECKING:
    from .context import Context

NAMES = {"chair": CHAIR}  # who signs in to the desk, and as whom she acts
MIN_PASSWORD = 10
MAX_PASSWORD = 1024  # argon2 takes any length; a bound keeps one request's work bounded
MAX_FAILURES = 5  # of one name from one client
ACCOUNT_MAX_FAILURES = 10  # of one name from every client together
WINDOW_S = 15 * 60
ABSOLUTE_S = 24 * 60 * 60

_hasher = PasswordHasher()


@cache
def _dummy() -> str:
    """A hash checked when the name is unknown, so a wrong name costs what a wrong password does."""
    return _hasher.hash(secrets.token_urlsafe(16))


@dataclass(frozen=True)
class DeskSession:
    """A signed-in desk session. `token` goes in the cookie (HttpOnly, SameSite); `csrf` in
    every form; `expires_at` is the absolute end (the idle end is checked on each request)."""

    token: str
    principal: Principal
    csrf: str
    expires_at: datetime


def _name(name: str) -> str:
    name = (name or "").strip().lower()
    if name not in NAMES:
        raise InvalidInput(
            f"unknown desk user {name!r}: the desk has one user, `chair`; "
            "set her password with `legal-ai user set-password chair`",
            code="account.unknown_user",
        )
    return name


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _owner(app: Context):
    """The store on the application's own login (the request roles may not touch these tables)."""
    return app.store.as_role(None)


def set_password(app: Context, name: str, password: str) -> None:
    """Set (or change) a desk user's password; every session of that user ends."""
    if app.principal.kind == "agent":
        raise Forbidden(
            f"setting a desk password is not for {app.principal.actor}; the operator runs "
            "`legal-ai user set-password chair` without an agent token in the environment",
            code="account.operator_only",
        )
    name = _name(name)
    if not isinstance(password, str) or len(password) < MIN_PASSWORD:
        raise InvalidInput(
            f"the password is too short: use at least {MIN_PASSWORD} characters",
            code="account.password_short",
            field="password",
        )
    if len(password) > MAX_PASSWORD:
        raise InvalidInput(
            f"the password is too long: use at most {MAX_PASSWORD} characters",
            code="account.password_long",
            field="password",
        )
    if "\x00" in password:
        raise InvalidInput(
            "the password contains a NUL character; choose another",
            code="account.password_nul",
            field="password",
        )
    hashed = _hasher.hash(password)
    with _owner(app).transaction() as conn:
        store.set_password_hash(conn, name, hashed)
        store.end_sessions_of(conn, name)
        store.forget_failures_of(conn, name)  # a new password lifts the account's lock


def set_chair_token(app: Context, token: str) -> None:
    """Register the chair's token for the CLI (its argon2id hash; the operator's, on the
    application's own login: no request role may write it)."""
    if app.principal.kind == "agent":
        raise Forbidden(
            f"registering the chair's token is not for {app.principal.actor}; the operator runs "
            "`legal-ai user set-token chair` without an agent token in the environment",
            code="account.operator_only",
        )
    token = (token or "").strip()
    if not token:
        raise InvalidInput("the chair's token is empty: give the value of LEGAL_AI_CHAIR_TOKEN")
    if len(token) > MAX_PASSWORD or "\x00" in token:
        raise InvalidInput(f"the chair's token: at most {MAX_PASSWORD} characters, no NUL")
    try:
        with _owner(app).transaction() as conn:
            store.set_chair_token_hash(conn, _hasher.hash(token))
    except psycopg.errors.InsufficientPrivilege:
        raise Forbidden(
            "registering the chair's token is the operator's, on the application's login; "
            "this database login may not"
        ) from None


def check_chair_token(app: Context, token: str) -> None:
    """Unauthorized unless `token` is the registered chair's token (a CLI run acting as her)."""
    with _owner(app).connection() as conn:
        hashed = store.chair_token_hash(conn)
    if hashed is None:
        raise Unauthorized(
            "LEGAL_AI_CHAIR_TOKEN is set but no chair's token is registered: the operator runs "
            "`legal-ai user set-token chair` once; nothing was done"
        )
    supplied = (token or "").strip()[:MAX_PASSWORD]
    if not _verify(hashed, supplied):
        raise Unauthorized(
            "LEGAL_AI_CHAIR_TOKEN is not the chair's token (`legal-ai user set-token chair` "
            "registers it); nothing was done"
        )


def _verify(hashed: str, password: str) -> bool:
    try:
        return _hasher.verify(hashed, password)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


def _client(client: str | None) -> str:
    return (client or "unknown").strip()[:200] or "unknown"


def _wait_message(wait: float, account: bool) -> str:
    minutes = max(1, math.ceil(wait / 60))
    whose = "of this account, from every address together" if account else ""
    return (
        f"too many failed sign-ins{' ' + whose if whose else ''}: wait {minutes} "
        f"minute{'s' if minutes > 1 else ''} and try again (the chair's password is set with "
        "`legal-ai user set-password chair`)"
    )


def sign_in(app: Context, name: str, password: str, client: str | None) -> DeskSession:
    """Open a desk session for `name` when `password` is hers. Unauthorized on a wrong name or
    password (one message for both); RateLimited after MAX_FAILURES failures of that name from
    that client, or ACCOUNT_MAX_FAILURES of that name from any client, within WINDOW_S seconds,
    until enough of them are WINDOW_S old (`account` on the exception: which limit)."""
    key = (name or "").strip().lower()[:100]
    client = _client(client)
    password = password if isinstance(password, str) else ""
    limited: RateLimited | None = None
    opened = None
    with _owner(app).transaction() as conn:
        store.lock_sign_in(conn, key)  # one name's sign-ins one at a time: the counts are exact
        failures, wait = store.recent_failures(conn, key, client, WINDOW_S)
        if failures >= MAX_FAILURES:
            limited = RateLimited(_wait_message(wait, False), retry_after=math.ceil(wait))
        else:
            failures, wait = store.recent_failures(conn, key, None, WINDOW_S)
            if failures >= ACCOUNT_MAX_FAILURES:
                limited = RateLimited(
                    _wait_message(wait, True), retry_after=math.ceil(wait), account=True
                )
        if limited is None:
            user = store.get_user(conn, key) if key in NAMES else None
            hashed = user["password_hash"] if user else _dummy()
            ok = _verify(hashed, password[:MAX_PASSWORD]) and user is not None
            if not ok:
                store.record_failure(conn, key, client)
            else:
                if _hasher.check_needs_rehash(hashed):
                    store.set_password_hash(conn, key, _hasher.hash(password))
                store.clear_failures(conn, key, client, WINDOW_S)
                token, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
                row = store.insert_session(conn, _token_hash(token), key, csrf, ABSOLUTE_S)
                opened = DeskSession(token, NAMES[key], csrf, row["expires_at"])
    if limited is not None:
        raise limited
    if opened is None:
        raise Unauthorized(
            "wrong name or password; try again", code="auth.wrong_password", field="password"
        )
    return opened


def session(app: Context, token: str | None) -> DeskSession | None:
    """The live session a cookie's token stands for (its last use moved to now); None when the
    token is unknown, ended, unused for longer than desk_session_idle_minutes, or over 24 h old."""
    if not token or not isinstance(token, str) or len(token) > 200:
        return None
    idle_s = app.settings.desk_session_idle_minutes * 60
    with _owner(app).transaction() as conn:
        row = store.touch_session(conn, _token_hash(token), idle_s)
    if row is None or row["name"] not in NAMES:
        return None
    return DeskSession(token, NAMES[row["name"]], row["csrf"], row["expires_at"])


def sign_out(app: Context, token: str | None) -> None:
    """End the session of this token now (nothing happens for an unknown token)."""
    if not token or not isinstance(token, str) or len(token) > 200:
        return
    with _owner(app).transaction() as conn:
        store.delete_session(conn, _token_hash(token))
