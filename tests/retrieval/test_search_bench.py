"""bench/search.py at a tiny scale, so it cannot rot unseen (issue 24 item 6): since migration
0030 its bulk-loaded rulings and decisions were not searchable (their spans did not read their
items' text) and every search of theirs found nothing; the 1,000,000-chunk figures come from the
same code. The sets of base sentences are checked without embedding 20,000 of them."""

import importlib.util
import json
import os
import subprocess
import sys

import pytest

from helpers import ROOT, SHARED

pytestmark = pytest.mark.shared


def _bench_module(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_search_bench_measures_every_corpus_it_builds(tmp_path):
    if not SHARED.is_dir():
        pytest.skip(f"no {SHARED}")
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("LEGAL_AI_") and k != "OPENBLAS_NUM_THREADS"
    }
    result = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "search.py"), "--chunks", "3000", "--queries", "4"]
        + ["--base", "60", "--ef-search", "100", "--home", str(tmp_path)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    figures = json.loads(result.stdout)
    assert figures["chunks"] == 3000 and figures["set"] == "clusters"
    assert figures["embedded_for_real"] == 60 and figures["copies_per_sentence"] == 50.0
    # it ran itself again with the peer's OpenBLAS on one thread (the environment did not say)
    assert figures["peer_blas_threads"] == "1"
    modes = figures["latency"]["by_corpus_and_mode"]
    assert set(modes) == {
        f"{corpus}_{mode}{suffix}"
        for corpus, suffix in (("external", ""), ("internal", ""), ("style", "_filtered5pct"))
        for mode in ("hybrid", "semantic", "lexical")
    }
    # Per corpus: as now, as main ran it (no area index), legs one after the other, each leg,
    # the peer (issue 39).
    per_corpus = figures["per_corpus"]
    assert set(per_corpus) == {"external", "internal", "style_filtered5pct"}
    for name, measured in per_corpus.items():
        assert measured["parallel_share"] == 1.0, name  # one client: a spare connection is free
        for variant in ("hybrid_now", "hybrid_main", "hybrid_sequential"):
            assert measured[variant]["p50_ms"] > 0 and measured[variant]["to_embedding_alone"] > 0
            assert {"lexical", "semantic", "embedding"} <= set(measured[variant]["legs"])
        assert "semantic_join" in measured["hybrid_now"]["legs"]
        assert measured["peer"]["beyond_embedding_ms"] > 0
    bad = figures["bad_input"]
    assert bad["query_of_max_chars"]["fewest_hits"] == 10
    assert bad["query_of_5000_chars"]["fewest_hits"] == 10
    assert bad["query_of_stop_words"]["fewest_hits"] == 10
    assert bad["filter_matching_nothing"]["fewest_hits"] == 0
    assert bad["practice_area_of_95pct"]["fewest_hits"] == 10
    assert all(case["first_ms"] > 0 for name, case in bad.items() if "refused" not in name)
    assert bad["query_over_max_chars_refused"]["refused"] == 10
    # (at this scale the 5 % filter leaves three documents: the cap of 3 a document leaves 9)
    assert figures["full_k_filtered"]["checked"] == 8
    for partition in ("external", "internal", "style_filtered5pct"):
        measured = figures["recall_at_10"][partition]
        assert measured["partition_rows"] > 0
        # a few hundred near-duplicates: the exact top 10 is found, fixed or scaled
        assert measured["ef_search=100"]["recall_at_10"] >= 0.9, partition
        assert measured["scaled=100"]["recall_at_10"] >= 0.9, partition
    # The rerank stage's own latency at N = 20/30/50, with the scripted reranker (no model).
    stage = figures["rerank_stage"]["scripted"]
    assert [stage[key]["n"] for key in ("n20", "n30", "n50")] == [20, 30, 50]
    for figure in stage.values():
        assert figure["by"] == "voyage:scripted" and figure["skipped"] == 0
        assert 0 < figure["stage"]["p50_ms"] <= figure["hybrid_with_rerank"]["p50_ms"]


def test_the_distinct_set_has_enough_sentences_for_a_million_chunks():
    if not SHARED.is_dir():
        pytest.skip(f"no {SHARED}")
    data = _bench_module("search_data")
    million = data.base_sentences("distinct", 1_000_000, 1500)
    assert len(million) == len(set(million)) == 50_000  # <= 20 copies each
    assert len(data.base_sentences("distinct", 100_000, 1500)) == data.LEAST_DISTINCT
    assert all(6 <= len(s.split()) <= 60 for s in million[:1000])
    with pytest.raises(SystemExit, match="the distinct set needs"):
        data.base_sentences("distinct", 10_000_000, 1500)
