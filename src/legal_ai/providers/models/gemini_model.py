"""Gemini models through the official `google-genai` SDK: structured output as
`response_mime_type="application/json"` with the pydantic JSON Schema in
`response_json_schema` (the SDK's field for a full JSON Schema, `$defs` and `$ref` included)."""

from __future__ import annotations

import importlib
from typing import Any

from pydantic import BaseModel

from ._calls import (
    Adapter,
    Answer,
    Failure,
    error_message,
    import_sdk,
    retry_after,
    status_failure,
    tls_context,
)


def _retry_info(details: object) -> float | None:
    """Seconds from a google.rpc.RetryInfo in the error body (`"retryDelay": "13s"`), which is
    how the Gemini API says when to come back after a 429."""
    inner = details.get("error", details) if isinstance(details, dict) else None
    for item in (inner or {}).get("details") or []:
        if isinstance(item, dict) and str(item.get("@type", "")).endswith("google.rpc.RetryInfo"):
            try:
                return max(0.0, float(str(item.get("retryDelay", "")).removesuffix("s")))
            except ValueError:
                return None
    return None


def _transport_errors() -> tuple[tuple[type, ...], tuple[type, ...]]:
    """(timeouts, other transport errors) of the HTTP clients the SDK may use."""
    timeouts: list[type] = []
    transport: list[type] = []
    for name in ("httpx2", "httpx"):
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        timeouts.append(module.TimeoutException)
        transport.append(module.TransportError)
    return tuple(timeouts), tuple(transport)


class GeminiModel(Adapter):
    def _connect(self) -> None:
        spec = self.spec
        genai = import_sdk(spec, "google.genai", "google-genai")
        self._types = importlib.import_module("google.genai.types")
        self._errors = importlib.import_module("google.genai.errors")
        self._timeouts, self._transport = _transport_errors()
        # no retry_options: the SDK tries once, _calls retries, so that every attempt is recorded
        tls = tls_context()  # httpx's "verify", aiohttp's and the websockets' "ssl"
        options: dict[str, Any] = {
            "timeout": max(1, round(self._timeout_s * 1000)),
            "client_args": {"verify": tls},
            "async_client_args": {"verify": tls, "ssl": tls},
        }
        if spec.base_url:
            options["base_url"] = spec.base_url
        self._client = genai.Client(api_key=self._key, vertexai=False, http_options=options)

    def config(self, system: str, schema: type[BaseModel]) -> Any:
        return self._types.GenerateContentConfig(
            system_instruction=system,
            response_mime_type="application/json",
            response_json_schema=schema.model_json_schema(),
        )

    def _send(self, system: str, user: str, schema: type[BaseModel]) -> Answer:
        response = self._client.models.generate_content(
            model=self.spec.model, contents=user, config=self.config(system, schema)
        )
        usage = response.usage_metadata
        answer = Answer(
            None,
            usage.prompt_token_count if usage else None,
            usage.candidates_token_count if usage else None,
        )
        text = response.text
        if text:
            answer.content = text
        else:
            candidates = response.candidates or []
            reason = candidates[0].finish_reason if candidates else None
            feedback = response.prompt_feedback
            blocked = feedback.block_reason if feedback else None
            answer.problem = f"no text in the answer (finish {reason}, blocked {blocked})"
        return answer

    def _failure(self, exc: Exception) -> Failure | None:
        if isinstance(exc, self._errors.APIError):
            headers = getattr(exc.response, "headers", None)
            wait = retry_after(headers)
            if wait is None:
                wait = _retry_info(exc.details)
            return status_failure(
                int(exc.code or 0), error_message(exc.details), wait, self._key_variable
            )
        if isinstance(exc, self._timeouts):
            return Failure("timeout", f"no answer within {self._timeout_s:g} s", retry=True)
        if isinstance(exc, self._transport):
            return Failure("error", f"could not reach {self._base_url or 'the API'}", retry=True)
        if isinstance(exc, self._errors.UnknownApiResponseError):
            return Failure("error", "an answer that is not the API's JSON", retry=False)
        return None
