"""Who is acting on an /api request, and the shared query parameters of the route tables
(web/routes/).

Who acts comes from the credential alone, never from a body: `principal` authenticates the
bearer token of `Authorization` (auth.authenticate: 401 without a known one); `Acting` is the web
app's App acting for that principal (`legal.acting_as`, surface `api`: its transactions run under
the principal's database role, its searches are logged); `chair(what)` is the same for the chair
only, and refuses an agent with 403 (auth.require_chair) before anything is read or written.

The App and the settings are the app's state (`request.app.state.legal`, `.settings`, set by
`create_app`), never module globals: each app built in a process serves its own.

No `from __future__ import annotations` here: FastAPI reads these annotations."""

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import Depends, Header, Query, Request

from .. import auth
from ..paging import DEFAULT_LIMIT, MAX_LIMIT, MAX_OFFSET, Page


def principal(
    request: Request, authorization: Annotated[str | None, Header()] = None
) -> auth.Principal:
    scheme, _, token = (authorization or "").partition(" ")
    settings = request.app.state.settings
    return auth.authenticate(settings, token if scheme.lower() == "bearer" else None)


Principal = Annotated[auth.Principal, Depends(principal)]


def acting(request: Request, who: Principal) -> Any:
    return request.app.state.legal.acting_as(who, surface="api")  # its searches are logged


def chair(what: str) -> Callable[..., Any]:
    """The dependency of a chair-only route: `what` names the act in the 403 an agent gets."""

    def acting_chair(request: Request, who: Principal) -> Any:
        auth.require_chair(who, what)
        return request.app.state.legal.acting_as(who, surface="api")

    return acting_chair


Acting = Annotated[Any, Depends(acting)]


def page(
    limit: Annotated[int, Query(ge=1, le=MAX_LIMIT)] = DEFAULT_LIMIT,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
) -> Page:
    """`?limit=&offset=` of a list route (paging.py): outside 1..500 or below 0, 400."""
    return Page(limit, offset)


Paged = Annotated[Page, Depends(page)]
Limit = Annotated[int, Query(ge=1, le=MAX_LIMIT)]
Offset = Annotated[int, Query(ge=0, le=MAX_OFFSET)]
