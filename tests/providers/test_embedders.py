"""Embedders: the Voyage adapter against a real local HTTP server with scripted answers, and the
persistent cache (nothing is embedded twice)."""

import numpy as np
import pytest

from helpers import ScriptedHandler, local_server
from legal_ai.config import Settings
from legal_ai.errors import InvalidInput, ProviderError
from legal_ai.providers.embedders import CachedEmbedder, make_embedder
from legal_ai.store.cache import EmbeddingCache


class ScriptedVoyage(ScriptedHandler):
    requests: list = []
    fail = False

    def do_POST(self):
        body = self.read_json()
        type(self).requests.append(
            {"path": self.path, "body": body, "auth": self.headers["Authorization"]}
        )
        if type(self).fail:
            self.send_json({"detail": "invalid key"}, status=401)
            return
        data = [
            {"object": "embedding", "index": i, "embedding": [float(len(t))] + [1.0] * 1023}
            for i, t in enumerate(body["input"])
        ]
        self.send_json(
            {"object": "list", "data": data, "model": body["model"], "usage": {"total_tokens": 3}}
        )


@pytest.fixture
def voyage_server():
    ScriptedVoyage.requests = []
    ScriptedVoyage.fail = False
    with local_server(ScriptedVoyage) as url:
        yield url


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
