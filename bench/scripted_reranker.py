"""A scripted reranker: a local HTTP server on 127.0.0.1 speaking Voyage's /v1/rerank wire format,
whose score for a passage is scripted (the share of the query's words the passage contains), so
that `legal-ai eval` can show `hybrid+rerank` and bench/search.py can time the rerank stage's own
overhead (HTTP, the SDK, reordering) without a model. Its figures are labelled `scripted`: they
measure the code path, never a reranker's quality.

    with serve() as url:  # LEGAL_AI_RERANKER=voyage:scripted@<url>
        ...
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODEL = "scripted"


def scripted_score(query: str, document: str) -> float:
    """The share of the query's distinct words found in the passage (0..1)."""
    words = set(query.split())
    if not words:
        return 0.0
    found = set(document.split())
    return round(len(words & found) / len(words), 6)


class ScriptedRerank(BaseHTTPRequestHandler):
    """POST .../rerank {"query", "documents", "model", ...} -> Voyage's answer, best first."""

    calls = 0

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).calls += 1
        scores = [scripted_score(body["query"], d) for d in body["documents"]]
        order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
        answer = {
            "object": "list",
            "data": [{"index": i, "relevance_score": scores[i]} for i in order],
            "model": body.get("model", MODEL),
            "usage": {"total_tokens": sum(len(d.split()) for d in body["documents"])},
        }
        raw = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def log_message(self, *args: object) -> None:
        pass


@contextmanager
def serve() -> Iterator[str]:
    """The scripted reranker on a free port of 127.0.0.1 (threads: concurrent searches are
    answered side by side); yields its base URL (…/v1, as Voyage's)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), ScriptedRerank)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/v1"
    finally:
        server.shutdown()
        server.server_close()


def spec(url: str) -> str:
    """The LEGAL_AI_RERANKER value that points at the scripted reranker at `url`."""
    return f"voyage:{MODEL}@{url}"
