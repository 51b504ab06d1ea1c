"""RRF and the diversity cap, with expected values written as the formula."""

from legal_ai.retrieval.fusion import rrf
from legal_ai.retrieval.search import cap_per_item


def test_rrf_scores_are_the_formula():
    fused = rrf({"semantic": [10, 20, 30], "lexical": [30, 10]}, k=60)
    scores = {f.key: f.score for f in fused}
    assert scores[10] == 1 / (60 + 1) + 1 / (60 + 2)
    assert scores[30] == 1 / (60 + 3) + 1 / (60 + 1)
    assert scores[20] == 1 / (60 + 2)
    assert [f.key for f in fused] == [10, 30, 20]
    assert fused[0].ranks == {"semantic": 1, "lexical": 2}


def test_ties_break_by_best_rank_then_id():
    fused = rrf({"semantic": [7, 5], "lexical": [5, 7]}, k=60)
    assert fused[0].score == fused[1].score
    assert [f.key for f in fused] == [5, 7]  # same best rank (1): lower id first
    fused = rrf({"a": [3], "b": [9, 2]}, k=60)
    # 3 and 9 tie at 1/61 with best rank 1 -> id order; 2 comes last
    assert [f.key for f in fused] == [3, 9, 2]


def test_weights_only_scale_their_leg():
    fused = rrf({"semantic": [1], "image": [2]}, k=60, weights={"image": 0.5})
    assert {f.key: f.score for f in fused} == {1: 1 / 61, 2: 0.5 / 61}


def test_cap_backfills_to_the_limit_and_counts_what_it_dropped():
    fused = rrf({"semantic": [1, 2, 3, 4, 5, 6]}, k=60)
    item_of = {1: "A", 2: "A", 3: "A", 4: "B", 5: "A", 6: "C"}
    kept, dropped = cap_per_item(fused, item_of, limit=4, cap=2)
    assert [f.key for f in kept] == [1, 2, 4, 6]
    assert dropped == 2
