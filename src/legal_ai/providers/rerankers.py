"""Second-phase rerankers behind one interface (LEGAL_AI_RERANKER; docs/search.md, Reranking):
a cross-encoder scores each (query, passage) pair and the search reorders the first
LEGAL_AI_RERANK_TOP_N hits of its RRF-fused list by those scores. Fusion is untouched: the
reranker never sees or sums a leg's score.

- `voyage:MODEL[@BASE_URL]`: Voyage's /v1/rerank through the `voyageai` SDK (VOYAGE_API_KEY).
- `cohere:MODEL[@BASE_URL]`: Cohere's v2/rerank through the `cohere` SDK (COHERE_API_KEY).
- `onnx:/path/to/folder`: a cross-encoder exported to ONNX (model.onnx, or onnx/model.onnx, as
  Hugging Face repositories lay it out) beside its tokenizer.json, run here with onnxruntime and
  tokenizers (e.g. bge-reranker-v2-m3); inputs input_ids and attention_mask (token_type_ids when
  the graph asks for it), one logit per pair; its score is the logit's sigmoid.

`rerank()` runs a reranker under the search's time budget and never raises: an error, a timeout,
fewer scores than passages, an index out of range or twice, a folder without a tokenizer or a
graph of another shape all come back as `Reranked.skipped` (one line), and the search keeps its
fused order. Vendor SDKs and onnxruntime are imported only when configured.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit, urlunsplit

import numpy as np

from ..config import Settings
from ..config_checks import reranker_parts
from ..errors import ProviderError

logger = logging.getLogger(__name__)

ONNX_FILES = ("model.onnx", "onnx/model.onnx")
ONNX_MAX_TOKENS = 512  # a pair is cut to this many tokens unless tokenizer.json says otherwise
ONNX_BATCH = 16
PROBE_QUERY = "היטל השבחה"  # what the doctor and health ask the reranker
PROBE_DOCUMENTS = ("היטל השבחה בשל אישור תכנית", "שימוש חורג בדירת מגורים")


class RerankFailed(ProviderError):
    """The reranker could not order these passages (one line: why)."""

    code = "provider.rerank_failed"


class Reranker(Protocol):
    """What every reranker provides: `name` (its spec, without address credentials) and one
    relevance score per document, in the documents' order."""

    name: str

    def scores(self, query: str, documents: Sequence[str]) -> list[float]: ...


def checked_scores(results: Iterable[tuple[int, float]], count: int) -> list[float]:
    """A provider's (index, score) pairs as one score per document in the documents' order;
    RerankFailed when an index is missing, repeated or out of range, or a score not finite."""
    scores: list[float | None] = [None] * count
    given = 0
    for index, score in results:
        given += 1
        if not isinstance(index, int) or not 0 <= index < count:
            raise RerankFailed(f"answered index {index!r}, out of range for {count} passages")
        if scores[index] is not None:
            raise RerankFailed(f"answered passage {index} twice")
        value = float(score)
        if not math.isfinite(value):
            raise RerankFailed(f"answered a score that is not a number for passage {index}")
        scores[index] = value
    if given < count:
        raise RerankFailed(f"answered {given} scores for {count} passages")
    return [float(s) for s in scores]  # type: ignore[arg-type]


def _public(url: str | None) -> str:
    """`@BASE_URL` without user or password (a name never carries a credential)."""
    if not url:
        return ""
    parts = urlsplit(url)
    host = f"{parts.hostname or ''}{f':{parts.port}' if parts.port else ''}"
    return "@" + urlunsplit((parts.scheme, host, parts.path, "", ""))


class VoyageReranker:
    def __init__(self, api_key: str, model: str, base_url: str | None, timeout_s: float) -> None:
        try:
            import voyageai
        except ImportError as exc:
            raise RerankFailed(
                "voyage reranking needs the voyageai package (make install)"
            ) from exc
        self.name = f"voyage:{model}{_public(base_url)}"
        self._client = voyageai.Client(
            api_key=api_key, max_retries=0, timeout=timeout_s, base_url=base_url
        )
        self._model = model

    def scores(self, query: str, documents: Sequence[str]) -> list[float]:
        try:
            answer = self._client.rerank(query, list(documents), model=self._model, truncation=True)
        except IndexError as exc:  # the SDK looks each answered index up in the documents
            raise RerankFailed(
                f"answered an index out of range for {len(documents)} passages"
            ) from exc
        return checked_scores(
            ((r.index, r.relevance_score) for r in answer.results), len(documents)
        )


class CohereReranker:
    def __init__(self, api_key: str, model: str, base_url: str | None, timeout_s: float) -> None:
        try:
            import cohere
        except ImportError as exc:
            raise RerankFailed("cohere reranking needs the cohere package (make install)") from exc
        self.name = f"cohere:{model}{_public(base_url)}"
        options: dict[str, Any] = {"base_url": base_url} if base_url else {}
        self._client = cohere.ClientV2(api_key=api_key, timeout=timeout_s, max_retries=0, **options)
        self._model = model

    def scores(self, query: str, documents: Sequence[str]) -> list[float]:
        answer = self._client.rerank(model=self._model, query=query, documents=list(documents))
        return checked_scores(
            ((r.index, r.relevance_score) for r in answer.results), len(documents)
        )


class OnnxReranker:
    """A local cross-encoder: tokenizer.json + an ONNX graph taking input_ids and attention_mask
    (and token_type_ids when it asks) and giving one logit per pair ([batch] or [batch, 1])."""

    def __init__(self, folder: str) -> None:
        root = Path(folder)
        self.name = "onnx"
        if not root.is_dir():
            raise RerankFailed("onnx: the model folder does not exist")
        model = next((root / f for f in ONNX_FILES if (root / f).is_file()), None)
        if model is None:
            raise RerankFailed("onnx: the model folder has no model.onnx")
        if not (root / "tokenizer.json").is_file():
            raise RerankFailed("onnx: the model folder has no tokenizer.json")
        try:
            import onnxruntime
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise RerankFailed(
                "onnx reranking needs onnxruntime and tokenizers (make install)"
            ) from exc
        self.name = f"onnx:{root.name}"
        try:
            self._tokenizer = Tokenizer.from_file(str(root / "tokenizer.json"))
        except Exception as exc:  # the tokenizers library raises its own Exception
            why = _line(exc).replace(str(root), root.name)
            raise RerankFailed(f"onnx: tokenizer.json is not a tokenizer ({why})") from exc
        try:
            options = onnxruntime.SessionOptions()
            options.log_severity_level = 3  # errors only: the graph's own notes stay quiet
            self._session = onnxruntime.InferenceSession(
                str(model), options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:  # onnxruntime's own error types
            why = _line(exc).replace(str(root), root.name)
            raise RerankFailed(f"onnx: model.onnx does not load ({why})") from exc
        self._inputs = self._check_shape()
        if self._tokenizer.truncation is None:
            self._tokenizer.enable_truncation(ONNX_MAX_TOKENS)
        if self._tokenizer.padding is None:
            pad = next(
                (
                    (t, i)
                    for t in ("<pad>", "[PAD]")
                    if (i := self._tokenizer.token_to_id(t)) is not None
                ),
                ("[PAD]", 0),
            )
            self._tokenizer.enable_padding(pad_id=pad[1], pad_token=pad[0])

    def _check_shape(self) -> list[str]:
        """The graph's inputs, checked: a cross-encoder's, and one output of rank 1 or 2."""
        names = {i.name: i for i in self._session.get_inputs()}
        wanted = ["input_ids", "attention_mask", "token_type_ids"]
        missing = [n for n in wanted[:2] if n not in names]
        other = sorted(set(names) - set(wanted))
        outputs = self._session.get_outputs()
        if missing or other:
            raise RerankFailed(
                "onnx: the model is not a cross-encoder (inputs "
                f"{', '.join(sorted(names)) or 'none'}; it needs input_ids and attention_mask)"
            )
        shape = outputs[0].shape if outputs else []
        if len(shape) not in (1, 2) or (len(shape) == 2 and shape[1] not in (1, None)):
            raise RerankFailed(
                f"onnx: the model answers a {len(shape)}-d {shape} output where a cross-encoder "
                "gives one score per pair ([batch, 1])"
            )
        return [n for n in wanted if n in names]

    def scores(self, query: str, documents: Sequence[str]) -> list[float]:
        out: list[float] = []
        for first in range(0, len(documents), ONNX_BATCH):
            batch = [(query, d) for d in documents[first : first + ONNX_BATCH]]
            encoded = self._tokenizer.encode_batch(batch)
            arrays = {
                "input_ids": np.asarray([e.ids for e in encoded], dtype=np.int64),
                "attention_mask": np.asarray([e.attention_mask for e in encoded], dtype=np.int64),
                "token_type_ids": np.asarray([e.type_ids for e in encoded], dtype=np.int64),
            }
            logits = np.asarray(
                self._session.run(None, {n: arrays[n] for n in self._inputs})[0], dtype=np.float64
            )
            if logits.shape not in ((len(batch),), (len(batch), 1)):
                raise RerankFailed(
                    f"onnx: the model answered shape {list(logits.shape)} for {len(batch)} pairs"
                )
            out.extend((1.0 / (1.0 + np.exp(-logits.reshape(-1)))).tolist())
        return checked_scores(enumerate(out), len(documents))


class Unavailable:
    """A configured reranker that could not be built: every call says why (the search keeps its
    fused order)."""

    def __init__(self, name: str, reason: str) -> None:
        self.name = name
        self.reason = reason

    def scores(self, query: str, documents: Sequence[str]) -> list[float]:
        raise RerankFailed(self.reason)


def make_reranker(settings: Settings) -> Reranker | None:
    """The reranker LEGAL_AI_RERANKER names (None: off). One that cannot be built (no key, no
    package, a folder without a tokenizer, a graph of another shape) comes back `Unavailable`,
    so that searches go on in the fused order and say why."""
    if not settings.reranker:
        return None
    provider, model, base_url = reranker_parts(settings.reranker)
    timeout_s = settings.rerank_budget_ms / 1000
    try:
        if provider == "voyage":
            key = settings.voyage_api_key or ("local" if base_url else None)
            if not key:
                raise RerankFailed("voyage reranking needs VOYAGE_API_KEY")
            return VoyageReranker(key, model, base_url, timeout_s)
        if provider == "cohere":
            key = settings.cohere_api_key or ("local" if base_url else None)
            if not key:
                raise RerankFailed("cohere reranking needs COHERE_API_KEY")
            return CohereReranker(key, model, base_url, timeout_s)
        return OnnxReranker(model)
    except RerankFailed as exc:
        logger.warning("reranker %s unavailable: %s", provider, exc)
        return Unavailable(
            f"{provider}:{model if provider != 'onnx' else Path(model).name}", str(exc)
        )


@dataclass
class Reranked:
    """What the reranker made of one search's candidates: `scores` in the candidates' order
    (None when skipped), `skipped` why not (one line), `ms` how long it took."""

    scores: list[float] | None
    skipped: str | None
    ms: float


# Reranker calls run here so that a search can stop waiting at its budget.
_THREADS = ThreadPoolExecutor(max_workers=4, thread_name_prefix="legal-ai-rerank")


def rerank(reranker: Reranker, query: str, documents: Sequence[str], budget_ms: float) -> Reranked:
    """Score `documents` for `query` within `budget_ms`; never raises."""
    started = time.perf_counter()
    future = _THREADS.submit(reranker.scores, query, list(documents))
    try:
        scores = future.result(timeout=budget_ms / 1000)
    except FutureTimeout:
        future.cancel()
        return Reranked(None, f"no answer within {budget_ms:g} ms", _since(started))
    except Exception as exc:  # an SDK's or onnxruntime's own error: one line, the search goes on
        why = str(exc) if isinstance(exc, RerankFailed) else _line(exc)
        if "timeout" in why.lower() or "timed out" in why.lower():
            # the SDK's own timeout (set to the budget) may fire before ours: the same cause
            why = f"no answer within {budget_ms:g} ms"
        logger.warning("reranker %s failed: %s", reranker.name, why)
        return Reranked(None, why, _since(started))
    return Reranked(scores, None, _since(started))


def probe(reranker: Reranker, budget_ms: float) -> str | None:
    """None when the reranker orders two passages (the doctor's and health's check); else why
    not, in one line."""
    outcome = rerank(reranker, PROBE_QUERY, PROBE_DOCUMENTS, budget_ms)
    return outcome.skipped


def _line(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}".strip().splitlines()
    return (text[0] if text else type(exc).__name__)[:300]


def _since(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)
