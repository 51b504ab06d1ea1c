"""Search latency (issue 15 item 4): the query's embedding runs beside the lexical and reference
legs, query embeddings are kept in a bounded LRU per embedder, and a search takes one pooled
connection. Latency itself is measured by bench/search.py (docs/benchmarks.md)."""

import threading
import time

import numpy as np
import pytest

from helpers import write
from legal_ai.corpora import Source
from legal_ai.providers.embedders import CachedEmbedder, QueryCache
from legal_ai.retrieval import legs
from legal_ai.retrieval import search as search_module

TEXT = "ועדת הערר קבעה כי הקלה בקו בניין צדדי מחייבת הצדקה תכנונית ופרסום כדין."
QUERY = "הקלה בקו בניין צדדי"


class Recording:
    """An embedder around the real one that records when and in which thread it ran and can
    be slowed down."""

    def __init__(self, inner, delay: float = 0.0) -> None:
        self.inner, self.delay = inner, delay
        self.id, self.dim = inner.id, inner.dim
        self.calls: list[tuple[str, float, float]] = []  # thread name, start, end

    def embed_query(self, text: str) -> np.ndarray:
        started = time.perf_counter()
        time.sleep(self.delay)
        vector = self.inner.embed_query(text)
        self.calls.append((threading.current_thread().name, started, time.perf_counter()))
        return vector

    def embed_passages(self, texts):
        return self.inner.embed_passages(texts)

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)


def test_query_cache_is_a_bounded_lru_per_embedder():
    cache = QueryCache(maxsize=2)
    sent: list[tuple[str, str]] = []

    def model(name):
        def embed(text):
            sent.append((name, text))
            return np.full(3, float(len(sent)), dtype=np.float32)

        return embed

    first = cache.get("e5-local", "א", model("e5-local"))
    assert cache.get("e5-local", "א", model("e5-local")) is first  # a hit: no second call
    cache.get("voyage", "א", model("voyage"))  # another embedder: its own entry
    assert sent == [("e5-local", "א"), ("voyage", "א")] and len(cache) == 2
    cache.get("e5-local", "א", model("e5-local"))  # touches א: voyage's is now the oldest
    cache.get("e5-local", "ב", model("e5-local"))  # over the bound: the oldest goes
    assert len(cache) == 2 and (cache.hits, cache.misses) == (2, 3)
    cache.get("voyage", "א", model("voyage"))
    assert sent[-1] == ("voyage", "א")  # evicted, so embedded again
    with pytest.raises(ValueError):
        first[0] = 9.0  # read-only: no caller can change what the next one gets
    cache.clear()
    assert len(cache) == 0


@pytest.mark.db
def test_the_embedding_runs_beside_the_lexical_legs_with_the_same_hits(
    app, tmp_path, e5, monkeypatch
):
    for n in range(3):
        path = write(tmp_path / f"d{n}.txt", f"{TEXT} ({n})")
        meta = {
            "court": "העליון",
            "decided_on": f"2021-01-0{n + 1}",
            "case_number": f'עע"מ {40 + n}/20',
        }
        assert app.ingest([path], "external", meta=meta, doc_id=f"ext-{n}").ingested == 1
    slow = Recording(e5, delay=0.25)
    embedder = CachedEmbedder(slow, None)
    lexical_started: list[float] = []
    real_lexical = legs.lexical

    def lexical(*args, **kwargs):
        lexical_started.append(time.perf_counter())
        return real_lexical(*args, **kwargs)

    monkeypatch.setattr(legs, "lexical", lexical)
    run = lambda mode: search_module.search(  # noqa: E731
        app.store, embedder, app.settings, "external", QUERY, limit=5, mode=mode
    )
    concurrent = run("hybrid")
    ((thread, _, ended),) = slow.calls
    assert thread.startswith("legal-ai-query")  # not the caller's thread
    # The SQL did not wait: the lexical legs began before the 0.25 s embedding ended (which of
    # the two threads began first is the scheduler's: under load the SQL may begin first).
    assert lexical_started and lexical_started[0] < ended
    # The model's time is its own; who waits for it is the semantic legs' thread, which may
    # begin waiting before the model's thread begins (so its wait is not bounded by the model's
    # time under load): the overlap is proven by the lexical legs' start above.
    timings = concurrent.timings
    assert timings["embedding"] >= 250 and "embedding_wait" in timings
    assert {"lexical", "semantic", "hydrate", "total"} <= set(timings)
    # The same hits as running the embedding first, then the legs (the order before).
    embedder.forget_queries()
    monkeypatch.setattr(search_module, "_submit", lambda f, *a: _done(f(*a)))
    sequential = run("hybrid")
    assert concurrent.as_dict() == sequential.as_dict() and concurrent.hits
    # Semantic alone has nothing to overlap: the model runs in the caller's thread.
    embedder.forget_queries()
    run("semantic")
    assert slow.calls[-1][0] == threading.current_thread().name


def _done(value):
    from concurrent.futures import Future

    future: Future = Future()
    future.set_result(value)
    return future


@pytest.mark.db
def test_a_repeated_query_is_not_embedded_again(app, tmp_path, e5):
    path = write(tmp_path / "d.txt", TEXT)
    app.ingest(
        [path],
        "external",
        meta={"court": "העליון", "decided_on": "2021-01-01", "case_number": 'עע"מ 50/20'},
        doc_id="ext",
    )
    counting = Recording(e5)
    embedder = CachedEmbedder(counting, None)
    for mode in ("hybrid", "semantic", "hybrid"):
        search_module.search(app.store, embedder, app.settings, "external", QUERY, mode=mode)
    assert len(counting.calls) == 1 and embedder.queries.hits == 2
    search_module.search(app.store, embedder, app.settings, "external", QUERY + " כדין")
    assert len(counting.calls) == 2  # another text is embedded


@pytest.mark.db
def test_a_search_takes_at_most_two_pooled_connections(app, tmp_path, monkeypatch):
    """One for its lexical legs (and all but a hybrid search's semantic legs), a spare one
    beside it for a hybrid search's semantic legs (tests/retrieval/test_parallel_legs.py)."""
    path = write(tmp_path / "d.txt", TEXT)
    app.ingest(
        [path],
        "external",
        meta={"court": "העליון", "decided_on": "2021-01-01", "case_number": 'עע"מ 51/20'},
        doc_id="ext",
    )
    app.embedder.embed_query(QUERY)  # the model and the embedder's setup out of the way
    taken: list[int] = []
    pool = app.store.pool
    real = pool.connection

    def connection(*args, **kwargs):
        taken.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(pool, "connection", connection)
    for mode in ("hybrid", "semantic", "lexical"):
        taken.clear()
        hits = app.search("external", QUERY, mode=mode).hits
        assert hits and len(taken) == (2 if mode == "hybrid" else 1), mode


@pytest.mark.db
def test_a_smaller_limit_returns_a_prefix_of_a_larger_one(app, tmp_path):
    """Provenance is read for a growing prefix of the fused list only (enough for the cap to
    keep `limit` hits): every limit must still give the first hits of the full list, with the
    diversity cap passing over the same hits."""
    for n in range(4):  # four rulings of many chunks each: the cap (3) bites
        sentences = [
            f"{TEXT} פסקה {n}.{m}: הקלה בקו בניין מחייבת פרסום כדין ושמיעת התנגדויות."
            for m in range(48)
        ]
        path = write(tmp_path / f"r{n}.txt", "\n\n".join(sentences))
        meta = {
            "court": "העליון",
            "decided_on": f"2021-02-0{n + 1}",
            "case_number": f'עע"מ {60 + n}/20',
        }
        assert app.ingest([path], "external", meta=meta, doc_id=f"r-{n}").ingested == 1
    for mode in ("hybrid", "semantic", "lexical"):
        full = app.search("external", QUERY, limit=12, mode=mode)
        assert len(full.hits) >= 8 and full.dropped_by_cap > 0, mode  # 4 rulings, cap 3 each
        for limit in (1, 2, 5, 9):
            part = app.search("external", QUERY, limit=limit, mode=mode)
            assert part.hits == full.hits[:limit], (mode, limit)


@pytest.mark.db
def test_ef_search_grows_with_the_square_root_of_the_partitions_size(app):
    """A partition of hundreds of thousands of units needs a wider HNSW scan than the 40,000
    that `hnsw_ef_search` was measured on (docs/benchmarks.md): each semantic leg sets
    ef_search from its partition's row estimate, for its transaction only, within [base, 1000]."""
    source = Source(
        kind="chunk", table="ef_partition", root="ef_partition", parent_column=None, text_column="t"
    )
    with app.store.pool.connection() as conn:
        conn.execute("CREATE TEMP TABLE ef_partition (t text)")

        def ef(base: int) -> int:
            with conn.transaction():
                conn.execute(*legs.scaled_ef_search(source, base))
                return int(
                    conn.execute("SELECT current_setting('hnsw.ef_search') AS v").fetchone()["v"]
                )

        try:
            assert ef(100) == 100  # never analyzed (reltuples -1): the base
            conn.execute("INSERT INTO ef_partition SELECT 'x' FROM generate_series(1, 160000)")
            conn.execute("ANALYZE ef_partition")
            # 160k rows: sqrt(4) = 2 (the estimate may miss by a few rows: ceil rounds up)
            assert abs(ef(100) - 200) <= 1 and abs(ef(60) - 120) <= 1
            assert ef(600) == 1000  # never above pgvector's limit
            conn.commit()
            after = conn.execute("SELECT current_setting('hnsw.ef_search') AS v").fetchone()["v"]
            assert after in ("", "40")  # for the transaction only: unset (pgvector's 40) after it
        finally:
            conn.execute("DROP TABLE ef_partition")
