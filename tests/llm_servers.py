"""Local HTTP servers on 127.0.0.1 that speak a language-model provider's wire format and answer
from a script — the stand-in for the real APIs in every test (no model is reachable from these
machines, and we never monkeypatch the SDKs' internals).

A script is a function `answer(request: dict, path: str) -> Reply`: it sees the request body the
SDK sent (the prompt, the JSON schema it asked for) and returns what the "model" says, or an HTTP
error. Every request is kept in `server.requests` for assertions. Three wire formats:
`scripted_openai` (chat completions, `response_format`), `scripted_anthropic` (messages with a
forced tool call) and `scripted_gemini` (generateContent with `responseJsonSchema`).

    with scripted_openai(lambda req, path: Reply(json={"lessons": []})) as server:
        settings = Settings(distiller=f"openai:scripted@{server.url}")
"""

from __future__ import annotations

import json
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """What the scripted model answers: `json` (the structured answer), or `text` (raw content,
    e.g. not JSON), or an HTTP `status` with the provider's usual error body (or `json` as the
    whole error body when given); `delay` seconds before answering; `headers` sent as given."""

    json: Any = None
    text: str | None = None
    status: int = 200
    delay: float = 0.0
    tokens_in: int = 120
    tokens_out: int = 40
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def content(self) -> str:
        return self.text if self.text is not None else json.dumps(self.json, ensure_ascii=False)


Script = Callable[[dict, str], Reply]


@dataclass
class ScriptedServer:
    url: str
    requests: list[dict] = field(default_factory=list)


def schema_name(request: dict) -> str | None:
    """The name of the JSON schema a request asked for (the pydantic model's name in our
    adapters), or None: OpenAI's `response_format.json_schema.name`, Anthropic's forced tool,
    Gemini's `generationConfig.responseJsonSchema.title`."""
    fmt = request.get("response_format") or {}
    if fmt:
        return (fmt.get("json_schema") or {}).get("name")
    choice = request.get("tool_choice") or {}
    if choice:
        return choice.get("name")
    config = request.get("generationConfig") or {}
    return (config.get("responseJsonSchema") or {}).get("title")


def prompt_text(request: dict) -> str:
    """All the prompt text of a request (system and user) in any of the three formats, for
    scripts that answer from what they were asked."""
    parts: list[str] = []

    def collect(value: Any) -> None:
        if isinstance(value, str):
            parts.append(value)
        elif isinstance(value, list):
            for item in value:
                collect(item)
        elif isinstance(value, dict):
            for key in (
                "content",
                "text",
                "parts",
                "system",
                "systemInstruction",
                "contents",
                "messages",
            ):
                if key in value:
                    collect(value[key])

    collect(
        {
            k: request[k]
            for k in ("system", "messages", "systemInstruction", "contents")
            if k in request
        }
    )
    return "\n".join(parts)


def _openai_body(reply: Reply, request: dict) -> dict:
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.get("model", "scripted"),
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": reply.content},
            }
        ],
        "usage": {
            "prompt_tokens": reply.tokens_in,
            "completion_tokens": reply.tokens_out,
            "total_tokens": reply.tokens_in + reply.tokens_out,
        },
    }


def _error_body(reply: Reply) -> dict:
    kind = {429: "rate_limit_error", 401: "authentication_error"}.get(reply.status, "server_error")
    return {"error": {"message": f"scripted {reply.status}", "type": kind, "code": reply.status}}


def _anthropic_body(reply: Reply, request: dict) -> dict:
    """A Messages API answer: a tool_use block calling the forced tool with `json` as its input
    (or, for `text`, a text block only: a model that did not call the tool)."""
    if reply.text is not None:
        content = [{"type": "text", "text": reply.text}]
        stop = "end_turn"
    else:
        tool = (request.get("tool_choice") or {}).get("name", "answer")
        content = [{"type": "tool_use", "id": "toolu_scripted", "name": tool, "input": reply.json}]
        stop = "tool_use"
    return {
        "id": "msg_scripted",
        "type": "message",
        "role": "assistant",
        "model": request.get("model", "scripted"),
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": reply.tokens_in, "output_tokens": reply.tokens_out},
    }


def _anthropic_error(reply: Reply) -> dict:
    kind = {
        429: "rate_limit_error",
        401: "authentication_error",
        403: "permission_error",
        529: "overloaded_error",
    }.get(reply.status, "api_error")
    return {"type": "error", "error": {"type": kind, "message": f"scripted {reply.status}"}}


def _gemini_body(reply: Reply, request: dict) -> dict:
    """A generateContent answer: candidates[0].content.parts[0].text is the JSON (or `text`)."""
    return {
        "candidates": [
            {
                "content": {"role": "model", "parts": [{"text": reply.content}]},
                "finishReason": "STOP",
                "index": 0,
            }
        ],
        "usageMetadata": {
            "promptTokenCount": reply.tokens_in,
            "candidatesTokenCount": reply.tokens_out,
            "totalTokenCount": reply.tokens_in + reply.tokens_out,
        },
        "modelVersion": "scripted",
    }


def _gemini_error(reply: Reply) -> dict:
    status = {
        429: "RESOURCE_EXHAUSTED",
        401: "UNAUTHENTICATED",
        403: "PERMISSION_DENIED",
        503: "UNAVAILABLE",
    }.get(reply.status, "INTERNAL")
    return {
        "error": {"code": reply.status, "message": f"scripted {reply.status}", "status": status}
    }


@contextmanager
def scripted_server(
    script: Script,
    body: Callable[[Reply, dict], dict],
    prefix: str,
    error: Callable[[Reply], dict] = _error_body,
    tls: ssl.SSLContext | None = None,
) -> Iterator[ScriptedServer]:
    """Serve `script` on 127.0.0.1 (a free port), answering successes with `body(reply, request)`
    and errors with `error(reply)` (or the reply's own `json`); yield the server with its base
    URL (`http://127.0.0.1:PORT` + `prefix`; `https://` when `tls`, a server's context, is
    given)."""
    state = ScriptedServer(url="")

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            request = json.loads(raw or b"{}")
            state.requests.append({"path": self.path, "headers": dict(self.headers), **request})
            reply = script(request, self.path)
            if reply.delay:
                time.sleep(reply.delay)
            if reply.status == 200:
                payload = body(reply, request)
            else:
                payload = reply.json if reply.json is not None else error(reply)
            data = json.dumps(payload, ensure_ascii=False).encode()
            self.send_response(reply.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for key, value in reply.headers.items():
                self.send_header(key, value)
            self.end_headers()
            try:
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout test)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    if tls is not None:
        server.socket = tls.wrap_socket(server.socket, server_side=True)
    scheme = "https" if tls is not None else "http"
    state.url = f"{scheme}://127.0.0.1:{server.server_port}{prefix}"
    # a short poll: shutdown() waits for it (0.5 s by default, in every test)
    threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True).start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def scripted_openai(script: Script, tls: ssl.SSLContext | None = None) -> Iterator[ScriptedServer]:
    """An OpenAI-compatible `/v1/chat/completions` endpoint (OpenAI, DeepSeek, vLLM, llama.cpp,
    Ollama speak this); `server.url` ends in `/v1`, ready for a spec `openai:MODEL@URL`."""
    with scripted_server(script, _openai_body, "/v1", tls=tls) as server:
        yield server


@contextmanager
def scripted_anthropic(
    script: Script, tls: ssl.SSLContext | None = None
) -> Iterator[ScriptedServer]:
    """An Anthropic Messages endpoint (`POST /v1/messages`); `server.url` is the base URL the SDK
    takes (no path), ready for a spec `anthropic:MODEL@URL`."""
    with scripted_server(script, _anthropic_body, "", _anthropic_error, tls=tls) as server:
        yield server


@contextmanager
def scripted_gemini(script: Script, tls: ssl.SSLContext | None = None) -> Iterator[ScriptedServer]:
    """A Gemini API endpoint (`POST /VERSION/models/MODEL:generateContent`); `server.url` is the
    base URL the SDK takes (no version), ready for a spec `gemini:MODEL@URL`. The Gemini API says
    when to retry a 429 in the error body (google.rpc.RetryInfo): give it as the Reply's `json`."""
    with scripted_server(script, _gemini_body, "", _gemini_error, tls=tls) as server:
        yield server
