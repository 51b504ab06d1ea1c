"""What the three adapters share: the key, the retry loop, validation, and the call records.

An adapter says how to send one request through its SDK (`_send`, returning an `Answer`) and how
to read that SDK's exceptions (`_failure`, returning a `Failure`); `Adapter.ask` does the rest:

- every attempt becomes one `CallRecord` given to the recorder (the SDKs' own retries are off,
  so no attempt goes unrecorded);
- 429, 5xx, timeouts and connection errors are retried up to `settings.model_retries` times with
  exponential backoff, or after the server's Retry-After (capped);
- an answer that is not JSON or fails the schema is asked again once, then ProviderError;
- 401/403 is ProviderError naming the key variable, at once.

The API key is never recorded, logged or put in a message (an error text that contains it has
it masked), and neither is the request body.

The SDK clients of a process share one TLS context (`tls_context`). Each adapter owns its SDK
client and that client's pooled connections: `close()` closes them, and so does the adapter's
collection (a `weakref.finalize`), so that a run that drops its models leaves no socket open
for the garbage collector to find later.
"""

from __future__ import annotations

import email.utils
import functools
import hashlib
import os
import random
import ssl
import time
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel, ValidationError

from ...config import Settings
from ...errors import ProviderError
from .base import KEY_VARIABLES, CallRecord, ModelSpec, Recorder

T = TypeVar("T", bound=BaseModel)

BACKOFF_S = 1.0  # first wait before a retry; doubled each time
MAX_BACKOFF_S = 30.0
MAX_RETRY_AFTER_S = 60.0  # a server asking for longer is retried after this
LOCAL_KEY = "no-key"  # sent to an endpoint given by URL when no key is set (local servers)
_INVALID_RETRIES = 1


@dataclass
class Answer:
    """What one request returned: `content` is JSON text (OpenAI, Gemini) or the decoded object
    (Anthropic's tool input); None with `problem` when the model gave no usable answer."""

    content: str | dict | list | None
    tokens_in: int | None = None
    tokens_out: int | None = None
    problem: str | None = None


@dataclass
class Failure:
    """An SDK exception read: the outcome to record, a one-line message, whether to retry, and
    how long the server asked us to wait (seconds) when it said."""

    outcome: str  # error | timeout | rate_limited | refused
    message: str
    retry: bool
    retry_after: float | None = None


def prompt_hash(system: str, user: str, schema: type[BaseModel]) -> str:
    """sha256 of the system prompt, the user prompt and the schema's name."""
    text = "\x00".join((system, user, schema.__name__))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def safe_url(url: str | None) -> str | None:
    """The base URL without any user:password part (it is recorded and shown)."""
    if not url:
        return None
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))


def retry_after(headers: Any) -> float | None:
    """Seconds the server asked us to wait: `retry-after-ms`, or `Retry-After` as seconds or an
    HTTP date; None when it said nothing readable."""
    if headers is None:
        return None
    value = headers.get("retry-after-ms")
    if value:
        try:
            return max(0.0, float(value) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def status_failure(
    status: int, message: str | None, wait: float | None, key_variable: str
) -> Failure:
    """An HTTP error status → Failure (401/403 refused, 429 rate limited, 408/5xx retried)."""
    if status in (401, 403):
        # the provider's text may quote part of the key: never keep it
        refused = f"HTTP {status}: the key was refused; set a valid {key_variable}"
        return Failure("refused", refused, retry=False)
    detail = f"HTTP {status}" + (f": {message}" if message else "")
    if status == 429:
        return Failure("rate_limited", detail, retry=True, retry_after=wait)
    if status == 408:
        return Failure("timeout", detail, retry=True, retry_after=wait)
    return Failure("error", detail, retry=status >= 500, retry_after=wait)


def error_message(body: object) -> str | None:
    """The provider's own error text from an error body (`{"error": {"message": ...}}` or the
    inner object), if any."""
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return inner["message"]
    return None


def one_line(text: object, secret: str | None = None, limit: int = 300) -> str:
    """A message fit for a record: one line, bounded, with the key masked if it appears."""
    line = " ".join(str(text).replace("\x00", "").split())
    if secret and len(secret) >= 8:
        line = line.replace(secret, "***")
    return line if len(line) <= limit else line[: limit - 1] + "…"


def validation_problem(exc: ValidationError) -> str:
    """A short account of why an answer failed its schema (never the answer itself)."""
    errors = exc.errors(include_url=False, include_input=False)
    if errors and errors[0].get("type") == "json_invalid":
        return f"not JSON ({errors[0].get('msg', '')})"
    first: Mapping[str, Any] = errors[0] if errors else {}
    where = ".".join(str(p) for p in first.get("loc", ())) or "the top level"
    return f"{len(errors)} schema error(s), first at {where}: {first.get('msg', '')}"


def import_sdk(spec: ModelSpec, module: str, package: str) -> Any:
    """Import an SDK now (never at module import), or ProviderError saying what to install."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ProviderError(
            f"{spec.name} needs the {package} package: pip install 'legal-ai[models]'"
        ) from exc


@functools.cache
def tls_context() -> ssl.SSLContext:
    """The one TLS context every model SDK client of the process verifies its server with: the
    one the SDKs build for themselves (SSL_CERT_FILE, else SSL_CERT_DIR, else certifi's roots,
    as httpx does), built once. Loading the roots takes ~27 ms, and each SDK built a context for
    every client (Gemini's three: 100 ms a client; OpenAI's 30 ms; shared, under 1 ms)."""
    import certifi  # the SDKs' own dependency (through httpx), present when one is installed

    cafile, capath = os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR")
    if not cafile and not capath:
        cafile = certifi.where()
    return ssl.create_default_context(cafile=cafile or None, capath=None if cafile else capath)


def api_key(spec: ModelSpec) -> str:
    """The provider's key from its usual variable; an endpoint given by URL (a local server)
    may go without one; otherwise ProviderError naming the variable."""
    variable = KEY_VARIABLES[spec.provider]
    key = os.environ.get(variable, "").strip()
    if key:
        return key
    if spec.base_url:
        return LOCAL_KEY
    raise ProviderError(
        f"{spec.name} needs an API key: set {variable} (or name a local endpoint, "
        f"{spec.provider}:MODEL@URL)"
    )


class Adapter:
    """A ChatModel: `ask` with retries, validation and records; subclasses send and classify."""

    _client: Any  # the SDK's client, made by the subclass's `_connect`
    _sdk: Any  # the SDK module, for its exception classes (`sdk_failure`)

    def __init__(
        self,
        spec: ModelSpec,
        settings: Settings,
        recorder: Recorder,
        *,
        backoff_s: float = BACKOFF_S,
    ) -> None:
        self.spec = spec
        self._timeout_s = settings.model_timeout_s
        self._retries = settings.model_retries
        self._record = recorder
        self._backoff_s = backoff_s
        self._key_variable = KEY_VARIABLES[spec.provider]
        self._key = api_key(spec)
        self._base_url = safe_url(spec.base_url)
        self.last_call: int | None = None
        self._connect()
        self._closer = weakref.finalize(self, self._client.close)

    def close(self) -> None:
        """Close the SDK client's connections (once; the adapter is not used after)."""
        self._closer()

    # -- what each provider supplies ------------------------------------------------------
    def _connect(self) -> None:
        """Import the SDK and make its client, `self._client` (with a `close()`; SDK retries off:
        every attempt is ours)."""
        raise NotImplementedError

    def _send(self, system: str, user: str, schema: type[BaseModel]) -> Answer:
        raise NotImplementedError

    def _failure(self, exc: Exception) -> Failure | None:
        """Read an exception of this SDK; None for anything else (it propagates)."""
        raise NotImplementedError

    # -- the shared loop ------------------------------------------------------------------
    def ask(self, system: str, user: str, schema: type[T], *, stage: str) -> T:
        digest = prompt_hash(system, user, schema)
        self.last_call = None
        attempt = retried = invalid = 0
        while True:
            attempt += 1
            started = time.monotonic()
            try:
                answer = self._send(system, user, schema)
            except Exception as exc:
                failure = self._failure(exc)
                if failure is None:
                    self._note(
                        stage,
                        digest,
                        attempt,
                        started,
                        "error",
                        error=one_line(type(exc).__name__, self._key),
                    )
                    raise
                message = one_line(failure.message, self._key)
                self._note(stage, digest, attempt, started, failure.outcome, error=message)
                if failure.outcome == "refused":
                    raise ProviderError(f"{self.spec.name} at {stage}: {message}") from None
                if failure.retry and retried < self._retries:
                    retried += 1
                    time.sleep(self._wait(retried, failure.retry_after))
                    continue
                raise ProviderError(
                    f"{self.spec.name} failed at {stage} after {attempt} attempt(s): {message}"
                ) from None
            try:
                value = self._validate(answer, schema)
            except ValueError as exc:
                problem = one_line(str(exc), self._key)
                self._note(stage, digest, attempt, started, "invalid", answer, error=problem)
                if invalid < _INVALID_RETRIES:
                    invalid += 1
                    continue
                raise ProviderError(
                    f"{self.spec.name} gave no valid {schema.__name__} at {stage} "
                    f"({invalid + 1} answers): {problem}"
                ) from None
            self.last_call = self._note(stage, digest, attempt, started, "ok", answer)
            return value

    @staticmethod
    def _validate(answer: Answer, schema: type[T]) -> T:
        if answer.content is None or answer.content == "":
            raise ValueError(answer.problem or "empty answer")
        try:
            if isinstance(answer.content, str):
                return schema.model_validate_json(answer.content)
            return schema.model_validate(answer.content)
        except ValidationError as exc:
            raise ValueError(validation_problem(exc)) from None

    def _wait(self, retry: int, asked: float | None) -> float:
        if asked is not None:
            return min(asked, MAX_RETRY_AFTER_S)
        return min(MAX_BACKOFF_S, self._backoff_s * 2 ** (retry - 1)) * random.uniform(1, 1.25)

    def _note(
        self,
        stage: str,
        digest: str,
        attempt: int,
        started: float,
        outcome: str,
        answer: Answer | None = None,
        *,
        error: str | None = None,
    ) -> int | None:
        return self._record(
            CallRecord(
                stage=stage,
                provider=self.spec.provider,
                model=self.spec.model,
                base_url=self._base_url,
                prompt_hash=digest,
                attempt=attempt,
                latency_ms=max(0, round((time.monotonic() - started) * 1000)),
                outcome=outcome,
                tokens_in=answer.tokens_in if answer else None,
                tokens_out=answer.tokens_out if answer else None,
                error=error,
            )
        )


def sdk_failure(adapter: Adapter, exc: Exception, base: type[Exception]) -> Failure | None:
    """How an error of the `openai` or `anthropic` SDK is recorded and whether it is retried
    (both SDKs are generated from one toolkit and share their exception classes' names; `base`
    is the SDK's root error)."""
    sdk = adapter._sdk
    if isinstance(exc, sdk.APITimeoutError):
        return Failure("timeout", f"no answer within {adapter._timeout_s:g} s", retry=True)
    if isinstance(exc, sdk.APIConnectionError):
        return Failure("error", f"could not reach {adapter._base_url or 'the API'}", retry=True)
    if isinstance(exc, sdk.APIStatusError):
        wait = retry_after(exc.response.headers)
        message = error_message(exc.body)
        return status_failure(exc.status_code, message, wait, adapter._key_variable)
    if isinstance(exc, base):
        return Failure("error", f"{type(exc).__name__}: {exc}", retry=False)
    return None
