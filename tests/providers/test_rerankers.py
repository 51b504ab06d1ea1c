"""Rerankers (providers/rerankers.py): Voyage's and Cohere's through their real SDKs against a local
HTTP server speaking each wire format (Voyage's /v1/rerank, Cohere's /v2/rerank), a tiny
cross-encoder built here (random weights, a few KB: the code path, not quality) run through
onnxruntime with its tokenizer, and every bad answer or folder — each one line, never raised."""

import json
import time
from pathlib import Path

import numpy as np
import pytest

from helpers import ScriptedHandler, local_server
from legal_ai.config import Settings
from legal_ai.providers.rerankers import (
    OnnxReranker,
    RerankFailed,
    Unavailable,
    make_reranker,
    probe,
    rerank,
)

DOCS = ["היטל השבחה בתכנית", "שימוש חורג", "היטל השבחה ופיצויים בשל תכנית"]
QUERY = "היטל השבחה תכנית"


class ScriptedRerank(ScriptedHandler):
    """Voyage (POST /v1/rerank: data) or Cohere (POST /v2/rerank: results), per `style`; the
    score of passage i is scores[i]; `fault` scripts a bad answer."""

    requests: list = []
    scores: list = [0.2, 0.9, 0.5]
    fault: str | None = None
    style = "voyage"

    def do_POST(self):
        cls = type(self)
        body = self.read_json()
        cls.requests.append(
            {"path": self.path, "body": body, "auth": self.headers["Authorization"]}
        )
        if cls.fault == "500":
            self.send_json({"detail": "internal error"}, status=500)
            return
        if cls.fault == "slow":
            time.sleep(1.0)
        pairs = [(i, cls.scores[i]) for i in range(len(body["documents"]))]
        if cls.fault == "fewer":
            pairs = pairs[:-1]
        if cls.fault == "twice":
            pairs = [pairs[0], *pairs[:-1]]
        if cls.fault == "out_of_range":
            pairs = [*pairs[:-1], (len(pairs) + 4, 0.1)]
        pairs.sort(key=lambda p: -p[1])
        items = [{"index": i, "relevance_score": s} for i, s in pairs]
        if cls.style == "voyage":
            self.send_json(
                {
                    "object": "list",
                    "data": items,
                    "model": body["model"],
                    "usage": {"total_tokens": 9},
                }
            )
        else:
            self.send_json(
                {"id": "r1", "results": items, "meta": {"billed_units": {"search_units": 1}}}
            )


@pytest.fixture
def server():
    ScriptedRerank.requests, ScriptedRerank.fault = [], None
    ScriptedRerank.scores = [0.2, 0.9, 0.5]
    with local_server(ScriptedRerank, path="") as url:
        yield url


def _voyage(url: str, **update) -> Settings:
    ScriptedRerank.style = "voyage"
    return Settings(reranker=f"voyage:rerank-2.5@{url}/v1", voyage_api_key="vk", **update)


def _cohere(url: str, **update) -> Settings:
    ScriptedRerank.style = "cohere"
    return Settings(reranker=f"cohere:rerank-v3.5@{url}", cohere_api_key="ck", **update)


def test_voyage_through_its_sdk(server):
    reranker = make_reranker(_voyage(server))
    assert reranker.name == f"voyage:rerank-2.5@{server}/v1"
    assert reranker.scores(QUERY, DOCS) == [0.2, 0.9, 0.5]  # the documents' order, not best first
    sent = ScriptedRerank.requests[0]
    assert sent["path"] == "/v1/rerank" and sent["auth"] == "Bearer vk"
    assert sent["body"]["query"] == QUERY and sent["body"]["documents"] == DOCS
    assert sent["body"]["model"] == "rerank-2.5"


def test_cohere_through_its_sdk(server):
    reranker = make_reranker(_cohere(server))
    assert reranker.scores(QUERY, DOCS) == [0.2, 0.9, 0.5]
    sent = ScriptedRerank.requests[0]
    assert sent["path"] == "/v2/rerank" and sent["auth"] == "Bearer ck"
    assert sent["body"]["query"] == QUERY and sent["body"]["documents"] == DOCS
    assert sent["body"]["model"] == "rerank-v3.5"


@pytest.mark.parametrize("settings_of", [_voyage, _cohere], ids=["voyage", "cohere"])
@pytest.mark.parametrize(
    ("fault", "said"),
    [
        ("500", "Error"),  # the SDK's own error class, named
        ("slow", "no answer within 300 ms"),
        ("fewer", "answered 2 scores for 3 passages"),
        ("twice", "answered passage 0 twice"),
        ("out_of_range", "out of range for 3 passages"),
    ],
)
def test_a_bad_answer_is_one_line_and_never_raised(server, settings_of, fault, said):
    ScriptedRerank.fault = fault
    settings = settings_of(server, rerank_budget_ms=300)
    outcome = rerank(make_reranker(settings), QUERY, DOCS, settings.rerank_budget_ms)
    assert outcome.scores is None and said in outcome.skipped
    assert "\n" not in outcome.skipped
    assert probe(make_reranker(settings), 300) is not None  # the doctor's and health's check


def test_a_key_is_needed_without_a_local_address():
    reranker = make_reranker(Settings(reranker="cohere:rerank-v3.5"))
    assert (
        isinstance(reranker, Unavailable)
        and reranker.reason == "cohere reranking needs COHERE_API_KEY"
    )
    outcome = rerank(reranker, QUERY, DOCS, 1000)
    assert outcome.skipped == "cohere reranking needs COHERE_API_KEY"
    assert make_reranker(Settings()) is None  # off by default


def test_a_malformed_spec_is_refused_by_the_settings():
    with pytest.raises(ValueError, match=r"write voyage:MODEL\[@BASE_URL\]"):
        Settings(reranker="bge:reranker")


# -- a tiny cross-encoder ---------------------------------------------------------------------
VOCAB = [
    "[PAD]",
    "[UNK]",
    "[CLS]",
    "[SEP]",
    *sorted({w for t in [QUERY, *DOCS] for w in t.split()}),
]


def _tokenizer(path: Path) -> None:
    """A word-level tokenizer with BERT's pair template ([CLS] A [SEP] B [SEP])."""
    from tokenizers import Tokenizer, models, pre_tokenizers, processors

    tokenizer = Tokenizer(models.WordLevel({w: i for i, w in enumerate(VOCAB)}, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", 2), ("[SEP]", 3)],
    )
    tokenizer.save(str(path))


def _model(path: Path, *, shape: str = "cross-encoder", seed: int = 3) -> None:
    """Embedding lookup, masked sum over the sequence, one linear layer: [batch, 1] logits.
    `shape="embeddings"` answers [batch, seq, dim] instead (a bi-encoder, not a reranker)."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(seed)
    dim = 8
    table = numpy_helper.from_array(rng.normal(size=(len(VOCAB), dim)).astype(np.float32), "table")
    weight = numpy_helper.from_array(rng.normal(size=(dim, 1)).astype(np.float32), "weight")
    axes = numpy_helper.from_array(np.array([1], dtype=np.int64), "axes")
    axes2 = numpy_helper.from_array(np.array([2], dtype=np.int64), "axes2")
    nodes = [
        helper.make_node("Gather", ["table", "input_ids"], ["embedded"]),
        helper.make_node("Cast", ["attention_mask"], ["maskf"], to=TensorProto.FLOAT),
        helper.make_node("Unsqueeze", ["maskf", "axes2"], ["mask3"]),
        helper.make_node("Mul", ["embedded", "mask3"], ["masked"]),
    ]
    if shape == "embeddings":
        output = helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", "seq", dim])
        nodes.append(helper.make_node("Identity", ["masked"], ["logits"]))
    else:
        output = helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 1])
        nodes += [
            helper.make_node("ReduceSum", ["masked", "axes"], ["pooled"], keepdims=0),
            helper.make_node("MatMul", ["pooled", "weight"], ["logits"]),
        ]
    graph = helper.make_graph(
        nodes,
        "tiny-cross-encoder",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "seq"]),
        ],
        [output],
        initializer=[table, weight, axes, axes2],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, str(path))


@pytest.fixture
def cross_encoder(tmp_path) -> Path:
    folder = tmp_path / "tiny-reranker"
    folder.mkdir()
    _tokenizer(folder / "tokenizer.json")
    _model(folder / "model.onnx")
    return folder


def test_a_local_cross_encoder_through_onnxruntime(cross_encoder):
    assert (cross_encoder / "model.onnx").stat().st_size < 4096  # a few KB
    reranker = make_reranker(Settings(reranker=f"onnx:{cross_encoder}"))
    assert isinstance(reranker, OnnxReranker) and reranker.name == "onnx:tiny-reranker"
    scores = reranker.scores(QUERY, DOCS * 7)  # 21 pairs: two batches
    assert len(scores) == 21 and all(0 < s < 1 for s in scores)
    assert scores[:3] == scores[3:6]  # the same pair, the same score, whatever its batch
    assert len(set(scores[:3])) == 3  # the passages are told apart (random weights)
    # Padding is masked out: a passage scores the same alone as beside a longer one.
    assert reranker.scores(QUERY, DOCS[1:2])[0] == pytest.approx(scores[1], abs=1e-6)


def test_a_folder_without_a_tokenizer_or_of_another_shape_is_one_line(cross_encoder, tmp_path):
    (cross_encoder / "tokenizer.json").unlink()
    broken = make_reranker(Settings(reranker=f"onnx:{cross_encoder}"))
    assert broken.reason == "onnx: the model folder has no tokenizer.json"
    assert str(tmp_path) not in broken.reason  # no internal paths in what is said
    assert rerank(broken, QUERY, DOCS, 1000).skipped == broken.reason

    other = tmp_path / "embedder"
    other.mkdir()
    _tokenizer(other / "tokenizer.json")
    _model(other / "model.onnx", shape="embeddings")
    wrong = make_reranker(Settings(reranker=f"onnx:{other}"))
    assert isinstance(wrong, Unavailable) and "one score per pair" in wrong.reason
    assert "\n" not in wrong.reason

    (other / "model.onnx").write_bytes(b"not a graph")
    garbled = make_reranker(Settings(reranker=f"onnx:{other}"))
    assert garbled.reason.startswith("onnx: model.onnx does not load")
    assert str(tmp_path) not in garbled.reason
    missing = make_reranker(Settings(reranker=f"onnx:{tmp_path / 'nowhere'}"))
    assert missing.reason == "onnx: the model folder does not exist"


def test_scores_are_checked_whatever_the_provider():
    from legal_ai.providers.rerankers import checked_scores

    assert checked_scores([(1, 0.5), (0, 0.25)], 2) == [0.25, 0.5]
    for pairs, said in (
        ([(0, 0.5)], "answered 1 scores for 2 passages"),
        ([(0, 0.5), (0, 0.4)], "answered passage 0 twice"),
        ([(0, 0.5), (-1, 0.4)], "answered index -1, out of range"),
        ([(0, 0.5), (1, float("nan"))], "not a number"),
    ):
        with pytest.raises(RerankFailed, match=said):
            checked_scores(pairs, 2)
    assert json.dumps(checked_scores([], 0)) == "[]"


def test_the_doctor_checks_the_configured_reranker(server):
    from legal_ai.ops.doctor.models import reranker as doctor_reranker

    assert doctor_reranker(Settings(), offline=False).status == "info"  # off by default
    assert doctor_reranker(_voyage(server), offline=False).status == "ok"
    assert doctor_reranker(_voyage(server), offline=True).status == "skip"
    ScriptedRerank.fault = "fewer"
    found = doctor_reranker(_cohere(server), offline=False)
    assert found.status == "warn" and "answered 1 scores for 2 passages" in found.message
    assert found.message.endswith("searches keep the fused order") and found.fix
    missing = doctor_reranker(Settings(reranker="voyage:rerank-2.5"), offline=True)
    assert missing.status == "warn" and "VOYAGE_API_KEY" in missing.message
