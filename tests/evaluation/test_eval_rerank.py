"""`legal-ai eval` with a reranker configured: hybrid and hybrid+rerank side by side with the peers,
the reranked run's paired difference from hybrid, its latency, and the reranker named (here the
scripted one, bench/scripted_reranker.py: the code path, not a reranker's quality). Asking for
hybrid+rerank without a reranker is one line."""

import importlib.util
import json

import pytest

from helpers import ROOT, run
from legal_ai.evaluation.harness import EvalReport
from scenarios import write_dataset
from shapes import assert_shape


def _scripted():
    spec = importlib.util.spec_from_file_location(
        "scripted_reranker", ROOT / "bench" / "scripted_reranker.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.server_db("legal_ai_eval_tiny")
@pytest.mark.db
def test_eval_shows_hybrid_and_hybrid_rerank_with_the_peers(cli_env, tmp_path):
    write_dataset(tmp_path)
    files = [
        "--corpus",
        str(tmp_path / "corpus.jsonl"),
        "--queries",
        str(tmp_path / "queries.jsonl"),
    ]
    files += ["--qrels", str(tmp_path / "qrels.tsv"), "--name", "tiny"]
    scripted = _scripted()
    with scripted.serve() as url:
        env = {**cli_env, "LEGAL_AI_RERANKER": scripted.spec(url)}
        report = json.loads(
            run(env, "eval", *files, "--modes", "hybrid,lexical", "--peers", "--json").stdout
        )
        assert scripted.ScriptedRerank.calls > 0
    assert_shape(report, EvalReport)  # the whole --json, as DESIGN §10 types it
    assert list(report["modes"]) == ["hybrid", "hybrid+rerank", "lexical"]
    assert set(report["peers"]) == {"bm25s", "dense_exact", "bm25s+dense_rrf"}
    assert 0 <= report["modes"]["hybrid+rerank"]["ndcg@10"] <= 1
    gain = report["rerank_minus_hybrid"]
    assert gain["reranker"] == f"voyage:scripted@{url}"
    assert gain["ci95"][0] <= gain["ndcg@10"] <= gain["ci95"][1]
    assert report["config"]["reranker"] == f"voyage:scripted@{url}"
    assert report["config"]["rerank_top_n"] == 30
    assert report["latency_ms"]["hybrid+rerank"]["k10"]["p50"] > 0

    refused = run(cli_env, "eval", *files, "--modes", "hybrid+rerank", check=False)
    assert refused.returncode != 0
    assert (
        refused.stderr.strip()
        .splitlines()[-1]
        .endswith("hybrid+rerank needs LEGAL_AI_RERANKER (docs/evaluation.md)")
    )


@pytest.mark.db
def test_eval_of_one_mode_and_the_baselines_verdict(cli_env, tmp_path):
    """`legal-ai eval` of a single mode says its figures (no hybrid to set against the best
    single mode); `--baseline` gates hybrid's figures, so without hybrid it is refused in one
    line, and with it the verdict is in the --json, held to its type."""
    write_dataset(tmp_path)
    files = ["--corpus", str(tmp_path / "corpus.jsonl"), "--queries"]
    files += [str(tmp_path / "queries.jsonl"), "--qrels", str(tmp_path / "qrels.tsv")]
    files += ["--name", "tiny"]
    said = run(cli_env, "eval", *files, "--modes", "lexical").stdout
    assert "   lexical: ndcg@10 1.0000" in said and "hybrid -" not in said
    baseline = tmp_path / "baseline.json"
    figures = {"ndcg@10": 0.5, "recall@100": 0.5}
    baseline.write_text(json.dumps({"dataset": "tiny", "modes": {"hybrid": figures}}))
    refused = run(
        cli_env, "eval", *files, "--modes", "lexical", "--baseline", str(baseline), check=False
    )
    assert refused.returncode != 0
    assert (
        refused.stderr.strip()
        .splitlines()[-1]
        .endswith("--baseline gates hybrid's figures: run the evaluation with hybrid among --modes")
    )
    gated = run(cli_env, "eval", *files, "--modes", "hybrid", "--baseline", str(baseline), "--json")
    report = json.loads(gated.stdout)
    assert_shape(report, EvalReport)
    assert report["baseline"]["passed"] is True and report["baseline"]["path"] == str(baseline)
    assert "hybrid_minus_best_single" not in report
