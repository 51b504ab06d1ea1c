"""Issue 39 item 2: no search leg waits for another. The semantic legs run beside the lexical
legs on a spare pooled connection (taken only when one is free at once), and the fused list is
the one the legs give one after the other on one connection; a pool with nothing to spare runs
them in sequence without waiting. And the bad input of the issue: a query over the limit, a
query of stop words only, a filter matching nothing, a practice area matching everything."""

import time

import pytest

from factories import records
from helpers import DECISION_FIELDS, write
from legal_ai.errors import InvalidInput
from legal_ai.retrieval import search as search_module
from legal_ai.retrieval.arguments import MAX_QUERY_CHARS
from legal_ai.retrieval.legs import Filters
from legal_ai.store.db import Store

pytestmark = pytest.mark.db

QUERIES = (
    "היטל השבחה על מימוש זכויות במקרקעין",
    "הקלה בקו בניין צדדי",
    "סעיף 149 לחוק",
    "פרסום כדין ושמיעת התנגדויות",
    "שימוש חורג בהיתר בנייה",
)
STOP_WORDS = "של את על עם כי זה הוא"


def corpus(app, tmp_path) -> int:
    """The fictional pairs' paragraphs: the finals' as external rulings, the drafts' as internal
    decisions, every one of practice area `planning`. Returns how many were ingested."""
    n = 0
    for r, record in enumerate(records()):
        for side, target in (("final", "external"), ("draft", "internal")):
            paragraphs = [p for p in record[f"{side}_text"].split("\n\n") if len(p) > 80]
            for p, text in enumerate(paragraphs):
                meta = {"case_number": f"ערר {100 * r + p + 1}/2{r}", "decided_on": "2024-01-01"}
                if target == "external":
                    meta["court"] = "העליון"
                else:
                    meta |= {"practice_area": "planning", **DECISION_FIELDS}
                path = write(tmp_path / f"{target}-{r}-{p}.txt", text)
                doc_id = f"{target}-{r}-{p}"
                assert app.ingest([path], target, meta=meta, doc_id=doc_id).ingested == 1
                n += 1
    return n


def run(app, store, corpus_key, query, *, parallel=True, **options):
    settings = app.settings.model_copy(update={"search_parallel_legs": parallel})
    app.embedder.forget_queries()
    return search_module.search(store, app.embedder, settings, corpus_key, query, **options)


def test_parallel_and_sequential_legs_fuse_the_same_list(app, tmp_path):
    assert corpus(app, tmp_path) >= 20
    compared = 0
    for corpus_key, filters in (
        ("external", Filters()),
        ("internal", Filters()),
        ("internal", Filters(practice_area="planning")),
    ):
        for query in QUERIES:
            for limit in (3, 10):
                parallel = run(app, app.store, corpus_key, query, filters=filters, limit=limit)
                sequential = run(
                    app, app.store, corpus_key, query, filters=filters, limit=limit, parallel=False
                )
                assert parallel.timings["parallel"] == 1.0  # one client: a spare was free
                assert sequential.timings["parallel"] == 0.0
                assert parallel.as_dict() == sequential.as_dict(), (corpus_key, query, limit)
                assert len(parallel.hits) == limit  # each corpus holds more than 10 rulings
                compared += 1
    assert compared == 30


def test_a_pool_with_nothing_to_spare_runs_the_legs_in_sequence_without_waiting(app, tmp_path):
    corpus(app, tmp_path)
    expected = run(app, app.store, "external", QUERIES[0], parallel=False).as_dict()
    with Store(app.store.url, max_size=1, timeout=30, migrate=False) as one:
        started = time.perf_counter()
        result = run(app, one, "external", QUERIES[0])
        assert result.timings["parallel"] == 0.0 and result.as_dict() == expected
        assert time.perf_counter() - started < 5  # never waited the pool's 30 s for a spare
    with Store(app.store.url, max_size=2, timeout=30, migrate=False) as two:
        run(app, two, "external", QUERIES[1])  # the pool has grown to its two connections
        with two.connection():  # another search holds one of them
            started = time.perf_counter()
            result = run(app, two, "external", QUERIES[0])
            assert result.timings["parallel"] == 0.0 and result.as_dict() == expected
            assert time.perf_counter() - started < 5
        assert run(app, two, "external", QUERIES[0]).timings["parallel"] == 1.0


def test_bad_input_is_answered(app, tmp_path):
    corpus(app, tmp_path)
    # Over the limit: refused in one line naming it, before any work.
    with pytest.raises(InvalidInput, match=f"at most {MAX_QUERY_CHARS}"):
        run(app, app.store, "external", "היטל השבחה " * 2000)  # 22,000 characters
    # The longest query taken, and a query of stop words only: a full k.
    longest = ("היטל השבחה על מימוש זכויות במקרקעין " * 60)[:MAX_QUERY_CHARS]
    for query in (longest, STOP_WORDS):
        for parallel in (True, False):
            assert len(run(app, app.store, "external", query, parallel=parallel).hits) == 10
    # A filter matching nothing: no hits, no error, in every mode.
    nothing = Filters(practice_area="no_such_area")
    for mode in ("hybrid", "semantic", "lexical"):
        result = run(app, app.store, "internal", QUERIES[0], filters=nothing, mode=mode)
        assert result.hits == [] and result.dropped_by_cap == 0
    # A practice area every decision has: the unfiltered answer, a full k.
    everything = run(
        app, app.store, "internal", QUERIES[0], filters=Filters(practice_area="planning")
    )
    assert len(everything.hits) == 10
    assert everything.as_dict() == run(app, app.store, "internal", QUERIES[0]).as_dict()
