"""The evaluation harness: metrics on hand-made qrels whose values are computed by hand, the
bootstrap, a full run through the project's own ingestion and search, and the gate failing on a
deliberate regression (the lexical leg switched off)."""

import json
import math

import pytest

from legal_ai.errors import InvalidInput
from legal_ai.evaluation import metrics
from legal_ai.evaluation.baseline import check
from legal_ai.evaluation.harness import EvalReport, evaluate
from scenarios import write_dataset
from shapes import assert_shape


def test_metrics_match_hand_computation():
    qrels = {"q1": {"a": 2, "b": 1}, "q2": {"c": 1}}
    run = {"q1": ["b", "x", "a"], "q2": ["y", "z"]}
    values = metrics.per_query(run, qrels)
    # trec_eval's nDCG: linear gains (the relevance grade), log2 discount
    dcg = 1 / math.log2(2) + 2 / math.log2(4)
    ideal = 2 / math.log2(2) + 1 / math.log2(3)
    assert values["ndcg@10"]["q1"] == pytest.approx(dcg / ideal)
    assert values["ndcg@10"]["q2"] == 0.0  # nothing relevant retrieved
    assert values["mrr@10"] == {"q1": 1.0, "q2": 0.0}
    assert values["recall@10"]["q1"] == 1.0 and values["p@10"]["q1"] == pytest.approx(2 / 10)
    assert metrics.aggregate(values)["ndcg@10"] == round(dcg / ideal / 2, 4)


def test_bootstrap_of_a_constant_difference_is_that_constant():
    a = {f"q{i}": 0.5 for i in range(30)}
    b = {f"q{i}": 0.25 for i in range(30)}
    assert metrics.paired_bootstrap(a, b) == (0.25, 0.25, 0.25)
    mean, low, high = metrics.paired_bootstrap({"q1": 1.0, "q2": 0.0}, {"q1": 0.0, "q2": 0.0})
    assert mean == 0.5 and low <= mean <= high


@pytest.mark.server_db("legal_ai_eval_tiny")
@pytest.mark.db
def test_harness_end_to_end_and_the_gate_catches_a_regression(settings, tmp_path):
    dataset = write_dataset(tmp_path)
    assert dataset.fields == ("title", "text")
    report = evaluate(settings, dataset, peers=True)
    assert_shape(report, EvalReport)
    assert report["dataset"] == "tiny" and report["n_queries"] == 9 and report["n_docs"] == 11
    assert set(report["modes"]) == {"hybrid", "semantic", "lexical"}
    assert report["modes"]["lexical"]["ndcg@10"] == 1.0  # exact case numbers and words
    assert set(report["peers"]) == {"bm25s", "dense_exact", "bm25s+dense_rrf"}
    assert report["hybrid_minus_best_single"]["best_single"] in ("semantic", "lexical")
    # Latency per mode at k = 10 (what users ask for, as the bench) and k = 100 (the run the
    # metrics read), each figure carrying its k.
    for mode in ("hybrid", "semantic", "lexical"):
        figures = report["latency_ms"][mode]
        assert [figures[key]["k"] for key in ("k10", "k100")] == [10, 100]
        assert all(0 < figures[key]["p50"] <= figures[key]["p95"] for key in ("k10", "k100"))
    baseline = tmp_path / "baseline.json"
    baseline.write_text(json.dumps(report), encoding="utf-8")
    assert check(report, baseline)[0]
    # Without its lexical leg, hybrid is the semantic leg alone.
    dropped = evaluate(settings.model_copy(update={"bm25_hybrid_enabled": False}), dataset)
    assert dropped["modes"]["hybrid"] == dropped["modes"]["semantic"]
    # The gate's nDCG@10 tolerance: 0.01 below the baseline passes, more fails.
    for delta, passes in ((0.005, True), (0.02, False)):
        raised = json.loads(json.dumps(report))
        raised["modes"]["hybrid"]["ndcg@10"] = dropped["modes"]["hybrid"]["ndcg@10"] + delta
        raised["modes"]["hybrid"]["recall@100"] = dropped["modes"]["hybrid"]["recall@100"]
        baseline.write_text(json.dumps(raised), encoding="utf-8")
        passed, verdict = check(dropped, baseline)
        assert passed is passes and verdict.startswith("ok" if passes else "REGRESSION (nDCG@10)")
    # Recall@100 has its own tolerance (0.015): a recall drop fails even when nDCG@10 holds.
    for delta, passes in ((0.01, True), (0.02, False)):
        raised = json.loads(json.dumps(dropped))
        raised["modes"]["hybrid"]["recall@100"] = dropped["modes"]["hybrid"]["recall@100"] + delta
        baseline.write_text(json.dumps(raised), encoding="utf-8")
        passed, verdict = check(dropped, baseline)
        assert passed is passes, verdict
        assert verdict.startswith("ok" if passes else "REGRESSION (Recall@100) tiny")
        assert "Recall@100" in verdict and "tolerance 0.015" in verdict
    # A baseline without Recall@100 is refused, naming what to do.
    del raised["modes"]["hybrid"]["recall@100"]
    baseline.write_text(json.dumps(raised), encoding="utf-8")
    with pytest.raises(InvalidInput, match="no hybrid recall@100; refresh it"):
        check(dropped, baseline)
