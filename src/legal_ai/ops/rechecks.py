"""What `legal-ai health` re-checks of the rows only the system writes, each a
named check `{"checked": n, "found": n, ...}` (`found`: what does not hold; 0 on an untampered
database):

- `copy_fingerprints`: the copy check's fingerprints of each final and committee decision taken
  again from its stored text and compared (`differ`); `missing` (no row of its current text) and
  `stale` (a row of an older text) are taken again by the next copy check and are not counted
  as found.
- `embedding_cache`: a bounded sample of embedded chunks (SAMPLE; first those whose text has a
  cache row the system did not write) embedded again by the model and compared, cosine at least
  MIN_COSINE, with the cache's vector of the text (`cache_differ`) and the chunk's own
  (`chunk_differ`); `planted`: cache rows a request role or an agent's login wrote (never served).
- `bm25_statistics`: `lexicon` / `lexicon_size` beside a recount of the units (`sources`: each
  source whose unit count, token count or a term's document frequency differs).
- `schema_migrations`: the rows beside the migration files (`missing`: a file without its row,
  `unknown`: a row without its file or with another name).
- `final_blocks`: each pair's blocks of her final found verbatim in the final's stored text
  (`pairs`: those with a block that is not).

The checks read through the login's own store (`Context.derived_store`), whoever asks. Embedding
the sample again costs a model call per chunk (~3 s for 32 with the offline model): `legal-ai
health` embeds a new random sample every time; the desk's page (`run(app,
model_within=MODEL_FRESH)`) draws the same sample throughout each MODEL_FRESH window (seeded by
the window) and reuses what this process's model answered for its texts within it, so a view
asks the model nothing new (the page took ~600 ms a view, 400 of them the model, where every
view drew another sample). The stored vectors are read and compared on every view either way: a
vector changed in the database is found at once; only the model's own answer for an unchanged
text is not asked twice. The copy fingerprints are computed again from each stored text on
every run, by a pure function: what it gave for the same text (by the text's SHA-256, not the
stored hash a writer could leave behind) is remembered (`_taken`, bounded), so only a text not
seen before is cut again."""

from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict
from typing import Any

import numpy as np

from ..learning.checks import METHOD, fingerprints, keyed_words
from ..store import migrations
from ..store import rechecks as sql

SAMPLE = 32  # chunks embedded again per health run (bounded: each is a model call)
MIN_COSINE = 0.999  # the same text embedded again by the same model
LISTED = 20  # items listed per check (the counts are whole)
MODEL_FRESH = 15 * 60  # seconds the desk's page reuses the model's answer for a text

# (embedder id, text) -> (monotonic time, the model's vector): what the model answered lately
_answered: dict[tuple[str, str], tuple[float, Any]] = {}
_lock = threading.Lock()
# SHA-256 of a stored text -> its copy fingerprints (METHOD's), the most recent TAKEN_KEPT
_taken: OrderedDict[str, list[int]] = OrderedDict()
TAKEN_KEPT = 20_000


def run(app: Any, model_within: float = 0) -> dict:
    """Every re-check, by name. `model_within` > 0: the embedding re-check reuses the model's
    answer for a text it embedded within that many seconds (the stored vectors are read anew)."""
    store = app.derived_store
    with store.connection() as conn:
        return {
            "copy_fingerprints": _fingerprints(conn),
            "embedding_cache": _embeddings(conn, app.embedder, model_within),
            "bm25_statistics": _statistics(conn),
            "schema_migrations": _migrations(conn),
            "final_blocks": _final_blocks(conn),
        }


def _fingerprints(conn) -> dict:
    checked = missing = stale = 0
    items = []
    for row in sql.fingerprinted(conn):
        checked += 1
        if row["taken_of"] is None:
            missing += 1
        elif row["taken_of"] != row["content_hash"] or row["method"] != METHOD:
            stale += 1
        elif list(row["shingles"]) != _fingerprints_of(row["content"]):
            items.append({"corpus": row["corpus"], "doc_id": row["doc_id"]})
    return {
        "checked": checked,
        "found": len(items),
        "differ": len(items),
        "missing": missing,
        "stale": stale,
        "items": items[:LISTED],
    }


def _fingerprints_of(content: str) -> list[int]:
    """The copy check's fingerprints of `content`, cut again unless this text was cut lately."""
    key = hashlib.sha256(content.encode("utf-8")).hexdigest()
    with _lock:
        taken = _taken.get(key)
        if taken is not None:
            _taken.move_to_end(key)
            return taken
    taken = fingerprints(keyed_words(content))
    with _lock:
        _taken[key] = taken
        while len(_taken) > TAKEN_KEPT:
            _taken.popitem(last=False)
    return taken


def _cosine(a, b) -> float:
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        return -1.0
    norm = float(np.linalg.norm(a) * np.linalg.norm(b))
    return float(a @ b) / norm if norm else -1.0


def _model_answers(embedder, texts: list[str], within: float) -> list:
    """The model's vectors of `texts`: asked anew, or (within > 0) those it gave this process
    for the same text within `within` seconds, asking only for the rest."""
    if not texts:
        return []
    with _lock:  # two views at once ask the model once
        now = time.monotonic()
        for key in [k for k, (at, _) in _answered.items() if now - at >= max(within, 0)]:
            del _answered[key]
        asked = [t for t in dict.fromkeys(texts) if (embedder.id, t) not in _answered]
        for text, vector in zip(
            asked, embedder.inner.embed_passages(asked) if asked else [], strict=True
        ):
            _answered[(embedder.id, text)] = (now, vector)
        answers = [_answered[(embedder.id, t)][1] for t in texts]
        if within <= 0:
            _answered.clear()
        return answers


def _embeddings(conn, embedder, within: float = 0) -> dict:
    planted = sql.planted_cache_rows(conn)
    # The desk's view: one sample per MODEL_FRESH window, whose model answers it reuses.
    seed = str(int(time.time() // within)) if within > 0 else None
    rows = sql.embedded_sample(conn, embedder.id, SAMPLE, seed)
    fresh = _model_answers(embedder, [r["text"] for r in rows], within)
    cache_differ = chunk_differ = 0
    items = []
    for row, vector in zip(rows, fresh, strict=True):
        what = []
        if row["cached"] is not None and row["cached_system"]:
            if _cosine(row["cached"].to_numpy(), vector) < MIN_COSINE:
                cache_differ += 1
                what.append("cache")
        if _cosine(row["embedding"].to_numpy(), vector) < MIN_COSINE:
            chunk_differ += 1
            what.append("chunk")
        if what:
            items.append({"chunk_table": row["chunk_table"], "chunk_id": row["id"], "vector": what})
    planted_rows = sum(r["rows"] for r in planted)
    return {
        "checked": len(rows),
        "found": cache_differ + chunk_differ + planted_rows,
        "cache_differ": cache_differ,
        "chunk_differ": chunk_differ,
        "planted": planted_rows,
        "planted_by": {r["written_by"]: r["rows"] for r in planted},
        "min_cosine": MIN_COSINE,
        "items": items[:LISTED],
    }


def _statistics(conn) -> dict:
    sources = sql.lexicon_differences(conn)
    return {
        "checked": sql.lexicon_sources(conn),
        "found": len(sources),
        "sources": sources[:LISTED],
    }


def _migrations(conn) -> dict:
    recorded = sql.recorded_migrations(conn)
    files = {m.version: m.name for m in migrations.available()}
    missing = [f"{v:04d}_{n}" for v, n in files.items() if v not in recorded]
    unknown = [f"{v:04d}_{n}" for v, n in recorded.items() if files.get(v) != n]
    return {
        "checked": len(files),
        "found": len(missing) + len(unknown),
        "missing": missing,
        "unknown": unknown,
    }


def _final_blocks(conn) -> dict:
    checked = 0
    items = []
    for row in sql.final_blocks(conn):
        checked += 1
        text = (row["content"] or "").replace("\r\n", "\n")
        blocks = row["final_blocks"] if isinstance(row["final_blocks"], dict) else {}
        foreign = sorted(
            block
            for block, body in blocks.items()
            if not isinstance(body, str) or (body and body not in text)
        )
        if foreign:
            items.append({"case_number": row["case_number"], "blocks": foreign})
    return {"checked": checked, "found": len(items), "pairs": items[:LISTED]}
