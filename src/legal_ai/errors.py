"""The exception tree. Each interface maps it once (CLI exit code, MCP tool error, HTTP status).

AppError
 ├── InvalidInput        the caller can fix it (bad file, unknown corpus, missing field)
 │    └── UnsupportedFile  a file we cannot read as given (encoding, corrupt, image-only, size)
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
