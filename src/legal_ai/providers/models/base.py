"""The contract every language-model adapter keeps, the model spec, and the call record."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, TypeVar

from pydantic import BaseModel

from ...errors import InvalidInput

PROVIDERS = ("anthropic", "openai", "gemini")
# The SDK's usual variable for each provider's key (read by the SDK itself).
KEY_VARIABLES = {
    "anthropic": "ANTHROPIC_API_KEY",
    "openai": "OPENAI_API_KEY",
    "gemini": "GEMINI_API_KEY",
}

T = TypeVar("T", bound=BaseModel)


@dataclass(frozen=True)
class ModelSpec:
    provider: str
    model: str
    base_url: str | None = None

    @property
    def name(self) -> str:
        """`provider:model` — how lessons, verdicts and calls name it."""
        return f"{self.provider}:{self.model}"


def parse_spec(spec: str, variable: str) -> ModelSpec:
    """`PROVIDER:MODEL[@BASE_URL]` → ModelSpec; InvalidInput names `variable` and the form."""
    text = (spec or "").strip()
    provider, sep, rest = text.partition(":")
    model, at, base_url = rest.partition("@")
    provider, model, base_url = provider.strip().lower(), model.strip(), base_url.strip()
    if not sep or provider not in PROVIDERS or not model or (at and not base_url):
        raise InvalidInput(
            f"{variable}={spec!r}: write PROVIDER:MODEL[@BASE_URL] with PROVIDER one of "
            f"{', '.join(PROVIDERS)}, e.g. openai:gpt-4.1-mini or "
            "openai:qwen2.5@http://127.0.0.1:8000/v1"
        )
    return ModelSpec(provider, model, base_url or None)


def parse_specs(value: str, variable: str, count: int) -> list[ModelSpec]:
    """Exactly `count` comma-separated specs (the panels), all different."""
    specs = [parse_spec(part, variable) for part in (value or "").split(",") if part.strip()]
    if len(specs) != count or len({s.name for s in specs}) != count:
        raise InvalidInput(f"{variable} names {count} different models, comma-separated")
    return specs


@dataclass
class CallRecord:
    """One attempt of one call (a row of `model_calls`)."""

    stage: str
    provider: str
    model: str
    base_url: str | None
    prompt_hash: str
    attempt: int
    latency_ms: int
    outcome: str  # ok | invalid | error | timeout | rate_limited | refused
    tokens_in: int | None = None
    tokens_out: int | None = None
    error: str | None = None


# Records one attempt; returns the record's id where it keeps one (model_calls.id), else None.
Recorder = Callable[[CallRecord], "int | None"]


class ChatModel(Protocol):
    """A configured model. `ask` returns a validated instance of `schema` or raises
    ProviderError (after the retries; every attempt was given to the recorder). `last_call` is
    the recorder's id of the attempt that gave the last answer (None before any, or when the
    recorder keeps no ids): what a panel's verdict rests on."""

    spec: ModelSpec
    last_call: int | None

    def ask(self, system: str, user: str, schema: type[T], *, stage: str) -> T: ...

    def close(self) -> None:
        """Close the client's pooled connections (the model is not asked again after)."""
