"""Embedders: the Voyage adapter against a real local HTTP server with scripted answers, and the
persistent cache (nothing is embedded twice)."""

import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import numpy as np
import pytest

from legal_ai.config import Settings
from legal_ai.errors import InvalidInput, ProviderError
from legal_ai.providers.embedders import CachedEmbedder, make_embedder
from legal_ai.store.cache import EmbeddingCache


class ScriptedVoyage(BaseHTTPRequestHandler):
    requests: list = []
    fail = False

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append(
            {"path": self.path, "body": body, "auth": self.headers["Authorization"]}
        )
        if type(self).fail:
            self.send_response(401)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(b'{"detail": "invalid key"}')
            return
        data = [
            {"object": "embedding", "index": i, "embedding": [float(len(t))] + [1.0] * 1023}
            for i, t in enumerate(body["input"])
        ]
        payload = {
            "object": "list",
            "data": data,
            "model": body["model"],
            "usage": {"total_tokens": 3},
        }
        raw = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def log_message(self, *args):
        pass


@pytest.fixture
def voyage_server():
    ScriptedVoyage.requests = []
    ScriptedVoyage.fail = False
    server = HTTPServer(("127.0.0.1", 0), ScriptedVoyage)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}/v1"
    server.shutdown()
    server.server_close()


def test_voyage_adapter_sends_input_types_and_normalizes(voyage_server):
    pytest.importorskip("voyageai")
    settings = Settings(embedder="voyage", voyage_api_key="test-key", voyage_base_url=voyage_server)
    embedder = make_embedder(settings)
    assert (embedder.id, embedder.dim) == ("voyage", 1024)
    passages = embedder.embed_passages(["אב", "אבגד"])
    query = embedder.embed_query("שאלה")
    assert passages.shape == (2, 1024) and query.shape == (1024,)
    assert np.allclose(np.linalg.norm(passages, axis=1), 1.0)
    sent = ScriptedVoyage.requests
    assert [r["body"]["input_type"] for r in sent] == ["document", "query"]
    assert sent[0]["body"]["input"] == ["אב", "אבגד"] and sent[0]["auth"] == "Bearer test-key"


def test_voyage_errors_become_provider_errors(voyage_server):
    pytest.importorskip("voyageai")
    ScriptedVoyage.fail = True
    settings = Settings(embedder="voyage", voyage_api_key="bad", voyage_base_url=voyage_server)
    with pytest.raises(ProviderError, match="Voyage embedding failed"):
        make_embedder(settings).embed_query("x")


def test_misconfiguration_says_what_to_set():
    with pytest.raises(ProviderError, match="VOYAGE_API_KEY"):
        make_embedder(Settings(embedder="voyage"))
    with pytest.raises(InvalidInput, match="unknown embedder 'bert'"):
        make_embedder(Settings(embedder="bert"))


@pytest.mark.db
def test_cache_never_embeds_the_same_text_twice(app, e5):
    cache = EmbeddingCache(app.store)
    first = CachedEmbedder(e5, cache)
    texts = ["היטל השבחה בגין תכנית", "שימוש חורג", "היטל השבחה בגין תכנית"]
    vectors = first.embed_passages(texts)
    assert first.calls == 2  # the repeated text is embedded once
    assert np.allclose(vectors[0], vectors[2])
    second = CachedEmbedder(e5, cache)  # a new process would see the same table
    again = second.embed_passages(texts)
    assert second.calls == 0
    assert np.allclose(again, vectors, atol=1e-6)
