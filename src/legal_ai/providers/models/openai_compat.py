"""OpenAI-compatible models (OpenAI, DeepSeek, vLLM, llama.cpp server, Ollama) through the
official `openai` SDK: structured output as `response_format` `{"type": "json_schema", ...}`
with the SDK's own strict form of the pydantic schema."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from ._calls import (
    Adapter,
    Answer,
    Failure,
    import_sdk,
    sdk_failure,
    tls_context,
)


class OpenAICompatible(Adapter):
    def _connect(self) -> None:
        spec = self.spec
        self._sdk = import_sdk(spec, "openai", "openai")
        # max_retries=0: _calls retries, so that every attempt is recorded
        self._client = self._sdk.OpenAI(
            api_key=self._key,
            base_url=spec.base_url,
            timeout=self._timeout_s,
            max_retries=0,
            http_client=self._sdk.DefaultHttpxClient(verify=tls_context()),
        )

    def response_format(self, schema: type[BaseModel]) -> dict[str, Any]:
        """What the request asks for: the schema in strict mode (every object closed, every
        property required, as the SDK's own structured-output helpers build it)."""
        strict = self._sdk.pydantic_function_tool(schema)["function"]["parameters"]
        named = {"name": schema.__name__, "schema": strict, "strict": True}
        return {"type": "json_schema", "json_schema": named}

    def _send(self, system: str, user: str, schema: type[BaseModel]) -> Answer:
        response = self._client.chat.completions.create(
            model=self.spec.model,
            messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
            response_format=self.response_format(schema),
        )
        usage = response.usage
        answer = Answer(
            None, usage.prompt_tokens if usage else None, usage.completion_tokens if usage else None
        )
        if not response.choices:
            answer.problem = "no choices in the answer"
            return answer
        choice = response.choices[0]
        message = choice.message
        if getattr(message, "refusal", None):
            answer.problem = f"the model declined: {message.refusal}"
        elif not message.content:
            answer.problem = f"empty answer (finish_reason {choice.finish_reason})"
        else:
            answer.content = message.content
        return answer

    def _failure(self, exc: Exception) -> Failure | None:
        return sdk_failure(self, exc, self._sdk.OpenAIError)
