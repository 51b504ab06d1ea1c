"""The data of bench/search.py: the base sentences (two sets), their embeddings (cached between
runs, a slice at a time), and the bulk load of the chunks built from them.

Two sets of base sentences, both real Hebrew text cut into sentences of 6-60 words:

- `clusters` (issue 4's set, the default): 1,500 sentences of the Planning and Building Law and
  HeQ, each chunk a perturbed copy of one drawn at random; at 1,000,000 chunks every sentence
  stands for ~670 near-duplicates, the worst case for an HNSW graph and for BM25's document
  frequencies.
- `distinct` (issue 24): every law of ../shared/data/il-laws-akn (61,664 distinct sentences) and
  HeQ, at least 20,000 of them and enough that no sentence has more than 20 copies
  (`MAX_COPIES`): 50,000 embedded for real at 1,000,000 chunks.
"""

from __future__ import annotations

import functools
import hashlib
import json
import random
import re
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np
import psycopg
from psycopg import sql
from psycopg.types.json import Jsonb

from legal_ai.store import Store
from legal_ai.text.akn import parse_law
from legal_ai.text.hebrew import DEFAULT_ANALYZER, get_analyzer

# common.SHARED, spelled here too: the tests load this module by its path, without bench/ on
# sys.path, where `from common import ...` would not resolve.
SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
LAWS = SHARED / "il-laws-akn/akn/il/act"
PBL = LAWS / "PrimaryLegislation/1965-08-12/148917/he@/main.xml"
SPLIT = {"external": 0.4, "internal": 0.3, "style": 0.2, "case": 0.1}
MAX_COPIES = 20  # the distinct set: no base sentence stands for more chunks than this
LEAST_DISTINCT = 20_000
COLUMNS = (
    "{parent}, {scope}, ordinal, char_start, char_end, text, text_hash, analyzed, analyzer,"
    " embedding, embedder, embedded_hash, term_freqs, token_count, practice_area"
)
TYPES = [
    "bigint",
    "text",
    "integer",
    "integer",
    "integer",
    "text",
    "text",
    "text",
    "text",
    "vector",
    "text",
    "text",
    "jsonb",
    "integer",
    "text",
]


def _cut(texts: list[str]) -> list[str]:
    out = []
    for text in texts:
        for sentence in re.split(r"(?<=[.;:])\s+|\n", text):
            words = sentence.split()
            if 6 <= len(words) <= 60:
                out.append(" ".join(words))
    return out


def _heq() -> list[str]:
    lines = (SHARED / "heq" / "corpus.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["text"] for line in lines]


@functools.cache
def _distinct_pool() -> list[str]:
    """Every distinct sentence of the laws (and HEQ), shuffled once: read once per process (the
    laws take ~7 s of parsing)."""
    texts = [s["text"] for path in sorted(LAWS.rglob("main.xml")) for s in parse_law(path)]
    pool = sorted(set(_cut(texts + _heq())))
    random.Random(3).shuffle(pool)
    return pool


def base_sentences(kind: str, chunks: int, base: int) -> list[str]:
    """The base sentences of a set, in the order they are embedded: `clusters` takes `base`
    of them; `distinct` the larger of `base`, LEAST_DISTINCT and chunks / MAX_COPIES (an error
    when the laws hold fewer)."""
    if kind == "clusters":
        pool = _cut([s["text"] for s in parse_law(PBL)] + _heq())
        random.Random(3).shuffle(pool)
        return pool[:base]
    pool = _distinct_pool()
    wanted = max(base, LEAST_DISTINCT, -(-chunks // MAX_COPIES))
    if wanted > len(pool):
        raise SystemExit(f"the distinct set needs {wanted} sentences; the laws hold {len(pool)}")
    return pool[:wanted]  # a new list: the pool stays as it is


def embed_in_slices(
    embed: Callable[[list[str]], np.ndarray], texts: list[str], size: int = 1000
) -> np.ndarray:
    """Embed through the cache a slice at a time, so an interrupted run keeps what it embedded
    (50,000 sentences take ~27 minutes on two cores); prints its progress to stderr."""
    import sys

    parts, started = [], time.perf_counter()
    for at in range(0, len(texts), size):
        parts.append(embed(texts[at : at + size]))
        done = min(at + size, len(texts))
        print(
            f"embedded {done}/{len(texts)} ({time.perf_counter() - started:.0f} s)", file=sys.stderr
        )
    return np.concatenate(parts) if parts else np.zeros((0, 384), dtype=np.float32)


def term_stats(store: Store, analyzed: list[str]) -> list[Counter]:
    """Each analyzed text's term frequencies as the database's unit_term_stats trigger computes
    them (the bulk load runs without row triggers)."""
    with store.pool.connection() as conn:
        rows = conn.execute(
            "SELECT t.n, s.lexeme, array_length(s.positions, 1) AS tf"
            " FROM unnest(%s::text[]) WITH ORDINALITY AS t(a, n),"
            " unnest(to_tsvector('simple'::regconfig, t.a)) s",
            (analyzed,),
        ).fetchall()
    stats = [Counter() for _ in analyzed]
    for row in rows:
        stats[row["n"] - 1][row["lexeme"]] += row["tf"]
    return stats


def load(
    store: Store,
    texts: list[str],
    vectors: np.ndarray,
    total: int,
    spread: bool = False,
    seed: int = 7,
) -> dict:
    """Bulk-load `total` chunks (one item per 10 chunks) across the corpora with binary COPY,
    then build the indexes. Returns the plan and the seconds of each step. Each chunk is a
    perturbed copy of one base sentence's embedding (a third of them with a second sentence's
    text appended): drawn at random (`spread` False: some sentences get more copies than
    others), or in turn (`spread`: every sentence the same number of copies, give or take
    one)."""
    rng = np.random.default_rng(seed)
    pick = random.Random(seed)
    drawn = 0
    analyzer = get_analyzer(DEFAULT_ANALYZER)
    analyzed = [analyzer.analyze(t) for t in texts]
    stats = term_stats(store, analyzed)
    plan = {corpus: int(total * share) for corpus, share in SPLIT.items()}
    steps: dict[str, float] = {}
    started = time.perf_counter()
    with store.transaction() as conn:
        # The HNSW and GIN indexes of the chunk partitions go while the rows arrive and are
        # built once afterwards (inserting into an HNSW index row by row costs ~1 ms a row).
        rebuilt = conn.execute(
            "SELECT c.relname AS name, pg_get_indexdef(i.indexrelid) AS definition"
            " FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid"
            " JOIN pg_class t ON t.oid = i.indrelid JOIN pg_am a ON a.oid = c.relam"
            " WHERE a.amname IN ('hnsw', 'gin') AND t.relkind = 'r'"
            " AND (t.relname LIKE 'case_law_chunks_%' OR t.relname LIKE 'document_chunks_%')"
        ).fetchall()
        for index in rebuilt:
            conn.execute(sql.SQL("DROP INDEX {}").format(sql.Identifier(index["name"])))
        conn.execute("SET LOCAL session_replication_role = replica")  # bulk: no row triggers
        for corpus, count in plan.items():
            items = count // 10
            chunks = []  # (base sentence, text, analyzed text, term frequencies) per chunk
            for n in range(items * 10):
                a = drawn % len(texts) if spread else pick.randrange(len(texts))
                b = pick.randrange(len(texts))
                drawn += 1
                if n % 3:
                    chunks.append((a, texts[a], analyzed[a], stats[a]))
                else:
                    words, freqs = analyzed[a] + " " + analyzed[b], stats[a] + stats[b]
                    chunks.append((a, texts[a] + " " + texts[b], words, freqs))
            # Each item's text is its chunks' texts, one per line, so every chunk's span reads
            # its text there (an item is searchable only then: migration 0030).
            contents = ["\n".join(c[1] for c in chunks[i * 10 : i * 10 + 10]) for i in range(items)]
            ids, table, parent, scope, scope_col = copy_items(conn, corpus, contents)
            statement = f"COPY {table} ({COLUMNS}) FROM STDIN (FORMAT BINARY)".format(
                parent=parent, scope=scope_col
            )
            with conn.cursor().copy(statement) as copy:
                copy.set_types(TYPES)
                offset = 0
                for n, (a, text, words, freqs) in enumerate(chunks):
                    offset = 0 if n % 10 == 0 else offset
                    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
                    vec = vectors[a] + rng.normal(0, 0.01, vectors.shape[1]).astype(np.float32)
                    vec /= np.linalg.norm(vec)
                    copy.write_row(
                        (
                            ids[n // 10],
                            scope,
                            n % 10,
                            offset,
                            offset + len(text),
                            text,
                            # its real hash: a search returns only hits whose span still reads
                            # its text (INV-RET5, store/spans.py; "t" made every hit unverified)
                            digest,
                            words,
                            analyzer.id,
                            vec,
                            "e5-local",
                            digest,  # embedded from this text: not stale
                            Jsonb(freqs),
                            sum(freqs.values()),
                            area_of(n // 10),  # the item's (the bulk load fires no trigger)
                        )
                    )
                    offset += len(text) + 1
    steps["copy"] = time.perf_counter() - started
    with psycopg.connect(store.url, autocommit=True) as conn:
        conn.execute("SET maintenance_work_mem = '2GB'")
        for index in rebuilt:
            started = time.perf_counter()
            conn.execute(index["definition"])
            if "voyage" not in index["name"]:  # the other embedder's: empty
                steps[f"index_{index['name']}"] = time.perf_counter() - started
        started = time.perf_counter()
        conn.execute("SELECT lexicon_rebuild()")
        conn.execute("ANALYZE")
        started_areas = time.perf_counter()
        conn.execute("SELECT practice_area_indexes()")  # the 5 % area's own HNSW indexes
        steps["practice_area_indexes"] = time.perf_counter() - started_areas
        conn.execute("VACUUM ANALYZE")
        steps["lexicon_and_vacuum"] = time.perf_counter() - started
    return {"plan": plan, "seconds": {k: round(v, 1) for k, v in steps.items()}}


def area_of(item: int) -> str:
    """The practice area of a corpus's `item`-th item: every 20th in the second (the 5 % filter)."""
    return "betterment_levy" if item % 20 == 0 else "planning"


def copy_items(conn, corpus: str, contents: list[str]) -> tuple[list[int], str, str, str, str]:
    """COPY one corpus's items (every 20th in a second practice area; an internal decision with
    the headnote, summary and tags it needs to be searchable); returns their ids in order and the
    chunk table, its parent column, the scope value and the scope column."""
    if corpus in ("external", "internal"):
        kind = "external_upload" if corpus == "external" else "internal_committee"
        doc_type = "ruling" if corpus == "external" else "decision"
        with conn.cursor().copy(
            "COPY case_law (source_kind, doc_type, doc_id, case_number, title, court, decided_on,"
            " chair_name, practice_area, content, content_hash, headnote, summary, tags,"
            " searchable) FROM STDIN"
        ) as copy:
            for i, content in enumerate(contents):
                area = area_of(i)
                copy.write_row(
                    (kind, doc_type, f"{corpus}-{i}", f"ערר {i}/24", f"{corpus} {i}", "העליון")
                    + ("2024-01-01", 'יו"ר', area, content, "h", "תקציר", "סיכום", ["תכנון"], True)
                )
        rows = conn.execute(
            "SELECT id FROM case_law WHERE source_kind = %s ORDER BY id", (kind,)
        ).fetchall()
        return [r["id"] for r in rows], "case_law_chunks", "case_law_id", kind, "source_kind"
    conn.execute(
        "INSERT INTO cases (case_number) VALUES (%s) ON CONFLICT DO NOTHING", (f"bench-{corpus}",)
    )
    with conn.cursor().copy(
        "COPY documents (corpus, doc_id, case_number, practice_area, title, content,"
        " content_hash, searchable) FROM STDIN"
    ) as copy:
        for i, content in enumerate(contents):
            area = area_of(i)
            copy.write_row(
                (
                    corpus,
                    f"{corpus}-{i}",
                    f"bench-{corpus}",
                    area,
                    f"{corpus} {i}",
                    content,
                    "h",
                    True,
                )
            )
    rows = conn.execute(
        "SELECT id FROM documents WHERE corpus = %s ORDER BY id", (corpus,)
    ).fetchall()
    return [r["id"] for r in rows], "document_chunks", "document_id", corpus, "corpus"
