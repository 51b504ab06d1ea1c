"""Which adapter serves a provider: the one place that knows the three adapters (base.py is the
contract alone). The adapters import their SDK when a model is made, not when imported."""

from __future__ import annotations

from ...config import Settings
from ._calls import Adapter
from .anthropic_model import AnthropicModel
from .base import ChatModel, ModelSpec, Recorder
from .gemini_model import GeminiModel
from .openai_compat import OpenAICompatible

ADAPTERS: dict[str, type[Adapter]] = {
    "openai": OpenAICompatible,
    "anthropic": AnthropicModel,
    "gemini": GeminiModel,
}


def make_model(spec: ModelSpec, settings: Settings, recorder: Recorder) -> ChatModel:
    """The adapter for `spec` (its SDK imported now, not before)."""
    return ADAPTERS[spec.provider](spec, settings, recorder)
