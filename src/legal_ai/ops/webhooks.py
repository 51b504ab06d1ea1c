"""Posting JSON to the operator's addresses (the reminder webhook, the case tracker; ops/tasks.py):
http(s) only, no redirect followed, a failure said without the URL's query or credentials."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlsplit

from ..errors import InvalidInput, ProviderError

POST_TIMEOUT_S = 10.0


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Follow no redirect: a 3xx stays the answer (urllib then raises it as an HTTPError), so
    the body and the bearer token never go to an address the operator did not set."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


_OPENER = urllib.request.build_opener(_NoRedirect)


def _origin(url: str) -> str:
    """scheme://host[:port] of `url` (no credentials, path or query), for a message."""
    parts = urlsplit(url or "")
    try:
        port = parts.port
    except ValueError:
        port = None
    return f"{parts.scheme}://{parts.hostname or '?'}" + (f":{port}" if port else "")


def post_json(
    url: str, payload: Any, *, what: str, token: str | None = None, timeout: float = POST_TIMEOUT_S
) -> int:
    """POST `payload` as JSON to `url` (http or https only); the HTTP status when 2xx, else
    ProviderError saying what answered how (the URL's query and credentials left out).
    Redirects are never followed (a 3xx is a failure naming the host, the status and where it
    pointed), so the token goes to `url`'s host and nowhere else."""
    parts = urlsplit(url or "")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InvalidInput(f"{what} must be an http(s) URL")
    shown = _origin(url)
    body = json.dumps(payload, ensure_ascii=False, default=str).encode("utf-8")
    request = urllib.request.Request(
        url,
        data=body,
        method="POST",
        headers={"Content-Type": "application/json; charset=utf-8", "User-Agent": "legal-ai"},
    )
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with _OPENER.open(request, timeout=timeout) as response:  # http(s) only: checked above
            return response.status
    except urllib.error.HTTPError as exc:
        exc.close()
        if 300 <= exc.code < 400:
            location = exc.headers.get("Location") if exc.headers else None
            to = f" to {_origin(location)}" if location and urlsplit(location).hostname else ""
            raise ProviderError(
                f"{what} ({shown}) answered HTTP {exc.code}, a redirect{to}: redirects are not "
                f"followed (nothing was sent there); set {what} to the final address"
            ) from None
        raise ProviderError(f"{what} ({shown}) answered HTTP {exc.code}") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise ProviderError(f"{what} ({shown}) could not be reached: {reason}") from None
