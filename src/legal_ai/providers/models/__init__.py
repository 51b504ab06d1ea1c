"""Language models behind one small interface (DESIGN §8).

A model is named by a spec `PROVIDER:MODEL[@BASE_URL]` (PROVIDER: anthropic | openai | gemini;
`openai` is any OpenAI-compatible endpoint). `make_model(spec, settings, recorder)` returns a
`ChatModel` whose `ask(system, user, schema, stage=...)` returns an instance of the pydantic
`schema`, asked for through the provider's own structured-output feature, validated, retried,
and recorded (every attempt) through `recorder`. The SDKs are imported lazily, inside the
adapters: importing this package imports none of them.
"""

from __future__ import annotations

from .base import (
    PROVIDERS,
    CallRecord,
    ChatModel,
    ModelSpec,
    Recorder,
    parse_spec,
    parse_specs,
)
from .registry import make_model

__all__ = [
    "PROVIDERS",
    "CallRecord",
    "ChatModel",
    "ModelSpec",
    "Recorder",
    "make_model",
    "parse_spec",
    "parse_specs",
]
