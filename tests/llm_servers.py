"""Local HTTP servers on 127.0.0.1 that speak a language-model provider's wire format and answer
from a script — the stand-in for the real APIs in every test (no model is reachable from these
machines, and we never monkeypatch the SDKs' internals).

A script is a function `answer(request: dict, path: str) -> Reply`: it sees the request body the
SDK sent (the prompt, the JSON schema it asked for) and returns what the "model" says, or an HTTP
error. Every request is kept in `server.requests` for assertions.

    with scripted_openai(lambda req, path: Reply(json={"lessons": []})) as server:
        settings = Settings(distiller=f"openai:scripted@{server.url}")
"""

from __future__ import annotations

import json
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
    e.g. not JSON), or an HTTP `status` with an error body; `delay` seconds before answering."""

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
    """The name of the JSON schema an OpenAI-compatible request asked for (the pydantic model's
    name in our adapters), or None."""
    fmt = request.get("response_format") or {}
    return (fmt.get("json_schema") or {}).get("name")


def _openai_body(reply: Reply, request: dict) -> dict:
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.get("model", "scripted"),
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": reply.content}}],
        "usage": {"prompt_tokens": reply.tokens_in, "completion_tokens": reply.tokens_out,
                  "total_tokens": reply.tokens_in + reply.tokens_out},
    }  # fmt: skip


def _error_body(status: int) -> dict:
    kind = {429: "rate_limit_error", 401: "authentication_error"}.get(status, "server_error")
    return {"error": {"message": f"scripted {status}", "type": kind, "code": status}}


@contextmanager
def scripted_server(script: Script, body: Callable[[Reply, dict], dict], prefix: str
                    ) -> Iterator[ScriptedServer]:  # fmt: skip
    """Serve `script` on 127.0.0.1 (a free port), answering successes with `body(reply, request)`;
    yield the server with its base URL (`http://127.0.0.1:PORT` + `prefix`)."""
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
            payload = body(reply, request) if reply.status == 200 else _error_body(reply.status)
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
    state.url = f"http://127.0.0.1:{server.server_port}{prefix}"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def scripted_openai(script: Script) -> Iterator[ScriptedServer]:
    """An OpenAI-compatible `/v1/chat/completions` endpoint (OpenAI, DeepSeek, vLLM, llama.cpp,
    Ollama speak this); `server.url` ends in `/v1`, ready for a spec `openai:MODEL@URL`."""
    with scripted_server(script, _openai_body, "/v1") as server:
        yield server
