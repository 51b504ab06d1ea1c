"""Anthropic models through the official `anthropic` SDK: structured output as a forced tool
call whose `input_schema` is the pydantic schema; the answer is the tool_use block's input."""

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

MAX_TOKENS = 8192  # the answer's budget (the API requires one); lessons with evidence fit


def tool_for(schema: type[BaseModel]) -> dict[str, Any]:
    """The tool the model is made to call: named after the schema, its input the schema."""
    doc = (schema.__doc__ or "").strip().splitlines()
    description = doc[0] if doc else f"Record the answer as {schema.__name__}."
    return {
        "name": schema.__name__,
        "description": description,
        "input_schema": schema.model_json_schema(),
    }


class AnthropicModel(Adapter):
    def _connect(self) -> None:
        spec = self.spec
        self._sdk = import_sdk(spec, "anthropic", "anthropic")
        # max_retries=0: _calls retries, so that every attempt is recorded
        self._client = self._sdk.Anthropic(
            api_key=self._key,
            base_url=spec.base_url,
            timeout=self._timeout_s,
            max_retries=0,
            http_client=self._sdk.DefaultHttpxClient(verify=tls_context()),
        )

    def _send(self, system: str, user: str, schema: type[BaseModel]) -> Answer:
        tool = tool_for(schema)
        response = self._client.messages.create(
            model=self.spec.model,
            max_tokens=MAX_TOKENS,
            system=system,
            messages=[{"role": "user", "content": user}],
            tools=[tool],
            tool_choice={"type": "tool", "name": tool["name"]},
        )
        usage = response.usage
        answer = Answer(
            None, usage.input_tokens if usage else None, usage.output_tokens if usage else None
        )
        for block in response.content or []:
            if block.type == "tool_use" and block.name == tool["name"]:
                answer.content = block.input
                return answer
        answer.problem = (
            f"no {tool['name']} tool call in the answer (stop_reason {response.stop_reason})"
        )
        return answer

    def _failure(self, exc: Exception) -> Failure | None:
        return sdk_failure(self, exc, self._sdk.AnthropicError)
