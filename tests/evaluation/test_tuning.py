"""`legal-ai eval tune` (issue 36 item 5): the fold split (deterministic, no query in two folds,
queries sharing a judged document kept together), the choice made on the training folds only
and scored on the held-out one, and a run through the project's own ingestion and search on a
small set made here."""

import json

import pytest

from helpers import run
from legal_ai.errors import InvalidInput
from legal_ai.evaluation.tuning import (
    choose,
    configurations,
    cross_validate,
    folds,
    parse_grid,
    tune,
)
from scenarios import write_dataset

QRELS = {
    # q1 and q2 share d1, q2 and q3 share d2: one group of three through the chain
    "q1": {"d1": 1},
    "q2": {"d1": 1, "d2": 1},
    "q3": {"d2": 2},
    "q4": {"d4": 1},
    "q5": {"d5": 1},
    "q6": {"d6": 1},
    "q7": {"d7": 1},
    "q8": {"d8": 1, "d9": 0},
    "q9": {"d9": 1},  # d9 judged 0 for q8: not relevant there, so q8 and q9 are not joined
}


def test_folds_are_deterministic_disjoint_and_keep_shared_documents_together():
    split = folds(QRELS, 3)
    assert split == folds(QRELS, 3)  # the same split every run
    every = [q for fold in split for q in fold]
    assert sorted(every) == sorted(QRELS) and len(every) == len(set(every))  # each query once
    holding = {q: n for n, fold in enumerate(split) for q in fold}
    assert holding["q1"] == holding["q2"] == holding["q3"]  # the chain through d1 and d2
    assert sorted(len(f) for f in split) == [3, 3, 3]  # the group of 3 alone, six singles
    assert split[holding["q1"]] == ["q1", "q2", "q3"]
    other = folds(QRELS, 3, seed=1)  # another seed orders equal groups anew, still a partition
    assert sorted(q for fold in other for q in fold) == sorted(QRELS)
    assert any(fold == ["q1", "q2", "q3"] for fold in other)
    with pytest.raises(InvalidInput, match="only 7 group"):
        folds(QRELS, 8)
    with pytest.raises(InvalidInput, match="2 or more"):
        folds(QRELS, 1)


def test_the_choice_is_made_on_the_training_folds_and_scored_held_out():
    configs = configurations({"rrf_k": (3, 60)})
    assert configs == [{"rrf_k": 3}, {"rrf_k": 60}]
    split = [["a", "b"], ["c", "d"]]
    # k 60 wins on fold 1's queries, k 3 on fold 2's: each held-out fold gets the other's choice
    scores = [
        {"a": 0.2, "b": 0.2, "c": 0.9, "d": 0.9},  # rrf_k 3
        {"a": 0.8, "b": 0.8, "c": 0.1, "d": 0.1},  # rrf_k 60
    ]
    report = cross_validate(configs, scores, split, default=0)
    first, second = report["folds"]
    assert first["chosen"] == {"rrf_k": 3}  # trained on c, d
    assert first["train_ndcg@10"] == 0.9 and first["held_out_ndcg@10"] == 0.2
    assert second["chosen"] == {"rrf_k": 60}  # trained on a, b
    assert second["held_out_ndcg@10"] == 0.1
    assert report["held_out"]["mean"] == 0.15  # far below either dev figure: it was tuned there
    assert report["dev"] == {"chosen": {"rrf_k": 3}, "ndcg@10": 0.55}
    assert report["current"]["held_out"]["mean"] == 0.55
    assert report["held_out_gain"]["mean"] == -0.4 and report["keep_current"] is True
    # a tie on the training queries goes to the current settings, else to the grid's first
    tied = [{"a": 0.5}, {"a": 0.5}]
    assert choose(tied, ["a"], default=1) == 1 and choose(tied, ["a"], default=None) == 0


def test_the_grid_is_checked():
    assert parse_grid("rrf_k=1,3,3; leg_window=20") == {"rrf_k": (1, 3), "leg_window": (20,)}
    for bad, said in [
        ("rrf=1", "NAME=V1,V2"),
        ("rrf_k", "NAME=V1,V2"),
        ("rrf_k=a", "whole numbers"),
        ("rrf_k=0", "1 or more"),
        (";", "names no parameter"),
    ]:
        with pytest.raises(InvalidInput, match=said):
            parse_grid(bad)


def test_tune_runs_the_grid_through_the_projects_search(settings, tmp_path):
    dataset = write_dataset(tmp_path)
    grid = {"rrf_k": (1, settings.rrf_k), "leg_window": (2, settings.leg_window)}
    report = tune(settings, dataset, grid, n_folds=3)
    assert report["fold_sizes"] == [3, 3, 3] and report["n_queries"] == 9
    assert len(report["configurations"]) == 4
    scores, configs = report["per_query_ndcg@10"], configurations(grid)
    default = configs.index({"rrf_k": settings.rrf_k, "leg_window": settings.leg_window})
    split = report["folds"]
    for number, row in enumerate(report["cross_validation"]["folds"]):
        training = [q for i, fold in enumerate(split) if i != number for q in fold]
        assert not set(training) & set(split[number])  # no query on both sides
        assert row["chosen"] == configs[choose(scores, training, default)]
        held = [scores[configs.index(row["chosen"])][q] for q in split[number]]
        assert row["held_out_ndcg@10"] == round(sum(held) / len(held), 4)
    # the dev figure is the best configuration scored on the queries that chose it
    best = max(c["ndcg@10"] for c in report["configurations"])
    assert report["cross_validation"]["dev"]["ndcg@10"] == best


def test_the_command_reports_folds_and_refuses_bad_input(tmp_path, cli_env):
    write_dataset(tmp_path)
    files = ["--corpus", str(tmp_path / "corpus.jsonl"), "--queries"]
    files += [str(tmp_path / "queries.jsonl"), "--qrels", str(tmp_path / "qrels.tsv")]
    base = ["eval", "tune", *files, "--folds", "3"]
    done = run(cli_env, *base, "--grid", "rrf_k=3,60", "--json", check=False)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert len(report["cross_validation"]["folds"]) == 3 and "per_query_ndcg@10" not in report
    assert report["cross_validation"]["current"]["config"] == {"rrf_k": 3}
    text = run(cli_env, *base, "--grid", "rrf_k=3", check=False)
    assert text.returncode == 0 and "held-out nDCG@10" in text.stdout and "fold 3" in text.stdout
    for args, said in [
        (["--grid", "k=3"], "NAME=V1,V2"),
        (["--folds", "30"], "use fewer folds"),
        (["--mode", "semantic"], "hybrid or hybrid+rerank"),
        (["--mode", "hybrid+rerank"], "needs LEGAL_AI_RERANKER"),
        (["--grid", "rerank_top_n=10"], "needs --mode hybrid+rerank"),
    ]:
        bad = run(cli_env, *base, *args, check=False)
        assert bad.returncode != 0 and said in bad.stderr, (args, bad.stderr)
        assert "Traceback" not in bad.stderr
