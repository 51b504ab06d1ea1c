"""The exception tree. Each interface maps it once (CLI exit code, MCP tool error, HTTP status).

AppError
 ├── InvalidInput        the caller can fix it (bad file, unknown corpus, missing field)
 │    ├── UnsupportedFile  a file we cannot read as given (encoding, corrupt, image-only, size)
 │    │    └── OverBound      it asks for more than a document may (a list start, cells, time)
 │    ├── Conflict         the item's state refuses the change (HTTP 409)
 │    │    └── Stale         no longer in the status the caller saw: decided meanwhile
 │    └── TooLarge         an upload over the size cap (HTTP 413)
 ├── NotFound            a case, document or ruling that does not exist
 ├── Unauthorized        no credential, or one we do not know (HTTP 401)
 ├── Forbidden           a known credential asking for what its role may not do (HTTP 403)
 │    └── RateLimited      too many failed sign-ins: wait (the message says how long; HTTP 429)
 │         └── CapReached     an agent past one of its caps (open proposals, new cases): nothing written
 ├── StoreError          the database could not be reached or started
 ├── ProviderError       an external service (embedder, LLM) failed or is not configured
 └── BudgetReached       a model role spent its daily token budget: its work waits (not failed)
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from .catalog import GATES

if TYPE_CHECKING:
    from .config import Settings


class AppError(Exception):
    """Base of every error legal-ai raises on purpose. `str(e)` is one line: what and what to do
    (English, for the CLI, the log and the API's `error`). `code` is a short stable name of the
    refusal (`query.empty`, `case.unknown`, `gate.lesson_chair_decides`): the key of its Hebrew
    in catalog.py, the API's `code`; each class has a default, a raise site a person reads gives
    its own. `field`, when known: the input it concerns (a form's field, a JSON key)."""

    exit_code = 1
    code = "error"

    def __init__(self, *args: object, code: str | None = None, field: str | None = None) -> None:
        super().__init__(*args)
        if code is not None:
            self.code = code
        self.field = field
        # What a refused form held, to show it again (set where an upload is refused).
        self.fields: dict[str, str] = {}


class InvalidInput(AppError):
    exit_code = 2
    code = "input.invalid"


class Conflict(InvalidInput):
    """The item's current state refuses the change (a canonical principle with no statement yet
    cannot be approved, say): nothing was changed. HTTP 409."""

    code = "state.conflict"


class Stale(Conflict):
    """The item is no longer in the status the caller saw (another tab, a process or the panel
    decided it meanwhile): nothing was changed. HTTP 409, on the API and the desk. `kind`,
    `item_id`, `status` and `by` let a page say it in its own words."""

    code = "state.stale"

    def __init__(
        self,
        kind: str,
        item_id: int,
        status: str,
        by: str | None = None,
        then: str = "nothing was changed: reload to see it",
    ) -> None:
        self.kind, self.item_id, self.status, self.by = kind, item_id, status, by
        who = f" (by {by})" if by else ""
        super().__init__(f"{kind} {item_id} was already {status}{who}; {then}")


def as_shown(
    kind: str,
    item_id: int,
    status: str,
    expected: str | None,
    statuses: tuple[str, ...],
    by: str | None = None,
    then: str = "nothing was changed: reload to see it",
) -> None:
    """Refuse (Stale) when the item, read under its row lock, is no longer in `expected`, the
    status the caller saw (None or empty: no check). An `expected` outside `statuses` is
    InvalidInput."""
    if not expected:
        return
    if expected not in statuses:
        raise InvalidInput(
            f"unknown expected status {expected!r}; choose one of: {', '.join(statuses)}"
        )
    if status != expected:
        raise Stale(kind, item_id, status, by, then)


class UnsupportedFile(InvalidInput):
    code = "file.unreadable"


class OverBound(UnsupportedFile):
    """A file that asks for more than a document may (text/bounds.py): a list starting at
    440,000,000, a million table cells, more time or memory than one file's reading has. `what`
    names the bound ("list start", "table cells", "reading time", ...)."""

    code = "file.over_bound"

    def __init__(
        self, message: str, what: str, *, code: str | None = None, field: str | None = "file"
    ) -> None:
        super().__init__(message, code=code, field=field)
        self.what = what


class NotFound(AppError):
    exit_code = 3
    code = "not_found"


class Unauthorized(AppError):
    exit_code = 6
    code = "auth.unknown"


class Forbidden(AppError):
    exit_code = 7
    code = "auth.forbidden"


class RateLimited(Forbidden):
    """Refused for now, not for good: too many failures; the message says how long to wait
    (`retry_after`, in seconds, for an HTTP Retry-After header). `account`: the limit of one
    account from every client together (not of one client)."""

    code = "auth.rate_limited"

    def __init__(self, message: str, retry_after: int = 60, *, account: bool = False) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.account = account


class CapReached(RateLimited):
    """An agent past one of its caps (LEGAL_AI_MAX_OPEN_PROPOSALS, LEGAL_AI_MAX_NEW_CASES):
    nothing was written. `cap` names the setting, `limit` its value; `retry_after` is None when
    waiting alone does not help (open proposals wait for the chair's decisions). HTTP 429."""

    code = "agent.cap"

    def __init__(self, message: str, cap: str, limit: int, retry_after: int | None = None) -> None:
        super().__init__(message, retry_after or 0)
        self.retry_after = retry_after  # type: ignore[assignment]
        self.cap, self.limit = cap, limit

    def as_json(self) -> dict:
        """What HTTP and MCP answer: the message, the cap's name and value, and when to retry."""
        said = {
            "error": str(self),
            "status": 429,
            "cap": self.cap,
            "limit": self.limit,
            "code": self.code,
        }
        if self.retry_after is not None:
            said["retry_after"] = self.retry_after
        return said


class TooLarge(InvalidInput):
    """Over a size limit (HTTP 413). `limit_mb`, when known: the limit in MB, for a page to
    say it in its own words."""

    code = "file.too_large"

    def __init__(
        self,
        message: str = "",
        limit_mb: float | None = None,
        *,
        code: str | None = None,
        field: str | None = "file",
    ) -> None:
        super().__init__(message, code=code, field=field)
        self.limit_mb = limit_mb


class StoreError(AppError):
    exit_code = 4
    code = "store.unavailable"


class ProviderError(AppError):
    exit_code = 5
    code = "provider.failed"


class BudgetReached(AppError):
    """A role's language models spent their daily budget (LEGAL_AI_MODEL_BUDGETS): no call is
    made until `resumes_at` (the next day's start) or until the budget is raised. Not a failure:
    a job that meets it waits, deferred. `partial` is what the stage did before it stopped,
    when it did something (its report so far)."""

    exit_code = 8
    code = "budget.reached"

    def __init__(self, role: str, spent: int, budget: int, resumes_at, zone: str) -> None:
        self.role, self.spent, self.budget, self.resumes_at = role, spent, budget, resumes_at
        self.partial: dict | None = None
        super().__init__(
            f"budget: the {role} models spent {spent} of their {budget} tokens today; their "
            f"work waits until {resumes_at:%Y-%m-%d %H:%M} {zone} or until "
            f"LEGAL_AI_MODEL_BUDGETS raises {role}'s budget"
        )


@contextmanager
def refused_by_gate() -> Iterator[None]:
    """A database gate's refusal inside the block (a trigger's check violation: only the chair
    decides, a decided row is frozen, ...) as InvalidInput saying what the gate said, its code
    `gate.<rule>` from the rule's name (the RAISE's CONSTRAINT, migration 0044)."""
    import psycopg

    try:
        yield
    except psycopg.errors.CheckViolation as exc:
        message = (exc.diag.message_primary or str(exc)).strip()
        raise InvalidInput(f"refused by the gate: {message}", code=gate_code(exc)) from None


def gate_code(exc: BaseException) -> str:
    """The code of a database refusal: `gate.<rule>` when the RAISE named a rule of the catalog
    (its CONSTRAINT), else `gate.refused` (a table's own CHECK, say)."""
    rule = getattr(getattr(exc, "diag", None), "constraint_name", None)
    return f"gate.{rule}" if rule in GATES else "gate.refused"


# -- scrubbing what a caller is told ------------------------------------------------------------

# Where a machine keeps its files: an absolute path starting so is internal, wherever it is.
_FS_ROOTS = (
    "home",
    "work",
    "tmp",
    "var",
    "usr",
    "opt",
    "srv",
    "root",
    "mnt",
    "media",
    "data",
    "private",
    "Users",
    "Volumes",
    "etc",
    "run",
    "proc",
    "dev",
    "lib",
    "lib64",
    "nix",
    "app",
    "workspace",
    "build",
    "scratch",
)
_PATH_TAIL = r"[^\s:'\"()<>,;]*"
_SCRUBS: tuple[tuple[re.Pattern[str], str], ...] = (
    # connection URLs (postgres:// and postgresql+driver://), and any URL carrying credentials
    (re.compile(r"\bpostgres(?:ql)?(?:\+\w+)?://[^\s'\"<>]*", re.I), "<database>"),
    (re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s/@'\"<>]*@[^\s'\"<>]*", re.I), "<url>"),
    # libpq keyword strings: host=... user=... password=... dbname=...
    (
        re.compile(
            r"\b(host|hostaddr|port|user|password|dbname|passfile|sslkey|sslcert|sslrootcert)"
            r"=(?:'[^']*'|\S+)",
            re.I,
        ),
        r"\1=<hidden>",
    ),
    # the server's words naming a login, role, database or address
    (
        re.compile(r"\b(user|role|database|server at|socket)(\s+)\"[^\"]*\"", re.I),
        r'\1\2"<hidden>"',
    ),
    (re.compile(r'(<hidden>"), port \d+'), r"\1"),
    # filesystem paths (not an API route such as /api/jobs/x/run)
    (re.compile(rf"(?<![\w.:/~-])/(?:{'|'.join(_FS_ROOTS)})(?:/{_PATH_TAIL})?(?![\w-])"), "<file>"),
)


class Scrubber:
    """What a message may say to a caller (an HTTP body, an MCP answer, a job's stored error):
    no path under the data directory, the temp folder or a filesystem root (/work, /home,
    /tmp, ...), no connection string or URL with credentials, no database login, role, database
    name or server address. The one scrubber: the HTTP API's errors (web/errors.py) and the jobs'
    errors (schedule.py, learning/engine/jobs.py) use it. `Scrubber.of(settings)` knows the data
    directory; `Scrubber()` still takes out every absolute path under a filesystem root."""

    def __init__(self, *roots: str | Path) -> None:
        found = {str(r) for r in roots if str(r) not in ("", ".", "/")}
        found.add(tempfile.gettempdir())
        alternatives = "|".join(re.escape(r) for r in sorted(found, key=len, reverse=True))
        self._roots = re.compile(rf"(?:{alternatives}){_PATH_TAIL}")

    @classmethod
    def of(cls, settings: Settings) -> Scrubber:
        home = Path(settings.home)
        return cls(home, home.expanduser().resolve())

    def __call__(self, message: str) -> str:
        text = self._roots.sub("<file>", str(message))
        for pattern, replacement in _SCRUBS:
            text = pattern.sub(replacement, text)
        return text

    def deep(self, value):
        """Every string in a JSON value (dicts, lists) scrubbed; other values as they are."""
        if isinstance(value, str):
            return self(value)
        if isinstance(value, dict):
            return {k: self.deep(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.deep(v) for v in value]
        return value
