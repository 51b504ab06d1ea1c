"""The exception tree. Each interface maps it once (CLI exit code, MCP tool error, HTTP status).

AppError
 ├── InvalidInput        the caller can fix it (bad file, unknown corpus, missing field)
 │    ├── UnsupportedFile  a file we cannot read as given (encoding, corrupt, image-only, size)
 │    └── Conflict         the item's state refuses the change (HTTP 409)
 │         └── Stale         no longer in the status the caller saw: decided meanwhile
 ├── NotFound            a case, document or ruling that does not exist
 ├── Unauthorized        no credential, or one we do not know (HTTP 401)
 ├── Forbidden           a known credential asking for what its role may not do (HTTP 403)
 │    └── RateLimited      too many failed sign-ins: wait (the message says how long; HTTP 429)
 ├── TooLarge            an upload over the size cap (HTTP 413)
 ├── StoreError          the database could not be reached or started
 └── ProviderError       an external service (embedder, LLM) failed or is not configured
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


class AppError(Exception):
    """Base of every error legal-ai raises on purpose. `str(e)` is one line: what and what to do."""

    exit_code = 1


class InvalidInput(AppError):
    exit_code = 2


class Conflict(InvalidInput):
    """The item's current state refuses the change (a canonical principle with no statement yet
    cannot be approved, say): nothing was changed. HTTP 409."""


class Stale(Conflict):
    """The item is no longer in the status the caller saw (another tab, a process or the panel
    decided it meanwhile): nothing was changed. HTTP 409, on the API and the desk. `kind`,
    `item_id`, `status` and `by` let a page say it in its own words."""

    def __init__(self, kind: str, item_id: int, status: str, by: str | None = None,
                 then: str = "nothing was changed: reload to see it") -> None:  # fmt: skip
        self.kind, self.item_id, self.status, self.by = kind, item_id, status, by
        who = f" (by {by})" if by else ""
        super().__init__(f"{kind} {item_id} was already {status}{who}; {then}")


def as_shown(kind: str, item_id: int, status: str, expected: str | None,
             statuses: tuple[str, ...], by: str | None = None,
             then: str = "nothing was changed: reload to see it") -> None:  # fmt: skip
    """Refuse (Stale) when the item, read under its row lock, is no longer in `expected`, the
    status the caller saw (None or empty: no check). An `expected` outside `statuses` is
    InvalidInput."""
    if not expected:
        return
    if expected not in statuses:
        raise InvalidInput(f"unknown expected status {expected!r}; choose one of: "
                           f"{', '.join(statuses)}")  # fmt: skip
    if status != expected:
        raise Stale(kind, item_id, status, by, then)


class UnsupportedFile(InvalidInput):
    pass


class NotFound(AppError):
    exit_code = 3


class Unauthorized(AppError):
    exit_code = 6


class Forbidden(AppError):
    exit_code = 7


class RateLimited(Forbidden):
    """Refused for now, not for good: too many failures; the message says how long to wait
    (`retry_after`, in seconds, for an HTTP Retry-After header)."""

    def __init__(self, message: str, retry_after: int = 60) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class TooLarge(InvalidInput):
    pass


class StoreError(AppError):
    exit_code = 4


class ProviderError(AppError):
    exit_code = 5


@contextmanager
def refused_by_gate() -> Iterator[None]:
    """A database gate's refusal inside the block (a trigger's check violation: only the chair
    decides, a decided row is frozen, ...) as InvalidInput saying what the gate said."""
    import psycopg

    try:
        yield
    except psycopg.errors.CheckViolation as exc:
        message = (exc.diag.message_primary or str(exc)).strip()
        raise InvalidInput(f"refused by the gate: {message}") from None
