"""Benchmark (issue 39 items 1 and 3): the lexical leg through `lexical_postings` (migration 0051:
the postings carry their practice area) against the leg as main ran it on 0043's postings, and the filtered semantic leg: pgvector's iterative scan against a
partial HNSW index of the filter's practice area, and against an exact scan of its rows.

The data are bench/search.py's (search_data.load: `--chunks` chunks of real Hebrew sentences,
40 % external, 20 % style, every 20th item of a corpus in the second practice area: the 5 %
filter). Query by query, interleaved so the machine's noise hits each alike, on one connection:

- lexical, external and style corpora without a filter, and the style corpus under the 5 %
  practice-area filter, under the other 95 % and under one matching nothing: `legs.lexical`
  (0051: a filtered search reads, counts and scores only its practice area's postings) and
  main's statement (`MAIN`: every postings of the kept terms scored, the budget counted over
  the whole table, the filter joined after), the same terms and budget on the same database;
  `same_ids`: queries both answered alike (unfiltered they must; filtered, the budget counted
  within the filter may keep more terms), `full_window`: queries answered with a full window.
- semantic, style corpus under the 5 % filter: `legs.semantic` (HNSW, iterative scan, as the
  search runs it), the same statement over a partial HNSW index built for the practice area
  (the bench copies the item's practice area onto its chunks: the schema keeps it on the item),
  and the exact scan of the filter's rows; recall@10 of each against the exact.

    .venv/bin/python bench/lexical.py [--chunks 100000] [--queries 60] [--home DIR [--reuse]]
                                      [--lexical-only]

Prints one JSON object (milliseconds).
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import psycopg
from pgvector.psycopg import register_vector
from psycopg import sql
from psycopg.rows import dict_row

from legal_ai.config import Settings
from legal_ai.corpora import get_corpus
from legal_ai.providers.embedders import CachedEmbedder, E5Local
from legal_ai.retrieval import legs
from legal_ai.retrieval.legs import Filters
from legal_ai.store import Store, drop_database, ensure_database, start_embedded, stop_embedded
from legal_ai.store.cache import EmbeddingCache, set_active_embedder
from legal_ai.text.hebrew import get_analyzer
from legal_ai.text.synonyms import expand_query
from search_data import SHARED, SPLIT, base_sentences, embed_in_slices, load

AREA = "betterment_levy"  # search_data's second practice area: every 20th item
MAJORITY = "planning"  # the other 95 %

# The lexical leg's statement on main before migration 0051 (0043's: every practice area's
# postings read and scored, the budget counted over the whole table, the filter checked after).
MAIN = (
    "WITH qt AS (SELECT * FROM unnest(%(terms)s::text[], %(idf)s::float8[]) AS t(term, idf)),"
    " scored AS (SELECT p.unit_id AS id, sum(qt.idf * p.tf * (%(k1)s + 1)"
    "   / (p.tf + %(k1)s * (1 - %(b)s + %(b)s * p.token_count / %(avgdl)s))) AS score"
    "   FROM qt JOIN lexical_postings p ON p.source = %(source)s AND p.term = qt.term"
    "   GROUP BY p.unit_id {rest}"
)


def main_lexical(conn, corpus, source, filters, terms, *, embedder, window, budget):
    """The leg as main ran it before 0051 (`MAIN`), on the same postings."""
    query = legs.lexical_query(conn, corpus, source, terms, budget)  # the whole table's budget
    if query is None:
        return []
    where, params = legs.filter_sql(corpus, filters)
    statement = sql.SQL(MAIN).format(
        rest=(legs._FILTERED if legs.filtered(filters) else legs._UNFILTERED).format(
            src=legs._from(corpus, source), where=where, unit=legs._unit_predicates(source)
        )
    )
    rows = conn.execute(
        statement,
        {
            **params,
            "embedder": embedder,
            "source": legs.lexicon_source(corpus, source),
            "terms": query.terms,
            "idf": query.idf,
            "k1": legs.BM25_K1,
            "b": legs.BM25_B,
            "avgdl": query.avg_length,
            "window": window,
        },
    ).fetchall()
    return [r["id"] for r in rows]


def percentiles(samples: list[float]) -> dict:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
    return {"p50_ms": round(statistics.median(ordered) * 1000, 2), "p95_ms": round(p95 * 1000, 2)}


def timed(samples: list[float], call, *args, **kwargs):
    started = time.perf_counter()
    result = call(*args, **kwargs)
    samples.append(time.perf_counter() - started)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--home", type=Path, help="keep the server and embedding cache here")
    parser.add_argument("--reuse", action="store_true", help="with --home: reuse its database")
    parser.add_argument("--lexical-only", action="store_true", help="skip the semantic arms")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="legal-ai-lexical-") as tmp:
        pgdata = (args.home or Path(tmp)) / "pgdata"
        server = start_embedded(pgdata)
        try:
            result = run(server, args)
        finally:
            stop_embedded(pgdata)
    print(json.dumps(result, indent=2, ensure_ascii=False))


def run(server: str, args: argparse.Namespace) -> dict:
    inner = E5Local()
    base = base_sentences("clusters", args.chunks, 1500)
    cache = Store(ensure_database(server, "bench_cache"), max_size=2)
    embedder = CachedEmbedder(inner, EmbeddingCache(cache))
    vectors = embed_in_slices(embedder.embed_passages, base)
    store = Store(ensure_database(server, "bench_lexical"), max_size=2)
    build: dict = {"reused": True}
    wanted = sum(int(args.chunks * s) // 10 * 10 for s in SPLIT.values())
    with store.pool.connection() as conn:
        have = conn.execute("SELECT count(*) AS n FROM document_chunks").fetchone()["n"]
        have += conn.execute("SELECT count(*) AS n FROM case_law_chunks").fetchone()["n"]
    if not (args.reuse and have == wanted):
        store.close()
        drop_database(server, "bench_lexical")
        store = Store(ensure_database(server, "bench_lexical"), max_size=2)
        with store.transaction() as conn:
            set_active_embedder(conn, inner.id, inner.dim)
        build = load(store, base, vectors, args.chunks)
    queries = [
        json.loads(x)["text"]
        for name in ("pbl-questions", "heq")
        for x in (SHARED / name / "queries.jsonl").read_text(encoding="utf-8").splitlines()
    ][: args.queries]
    settings = Settings(database_url=store.url)
    analyzer = get_analyzer(settings.analyzer)
    terms = [analyzer.query_terms(expand_query(q)) for q in queries]
    qvecs = [inner.embed_query(q) for q in queries]
    result = {"chunks": args.chunks, "queries": len(queries), "build": build}
    with psycopg.connect(store.url, autocommit=True, row_factory=dict_row) as conn:
        register_vector(conn)
        result["postings"] = conn.execute(
            "SELECT count(*) AS rows, pg_size_pretty(pg_total_relation_size('lexical_postings'))"
            " AS bytes FROM lexical_postings"
        ).fetchone()
        result["lexical"] = lexical_arms(conn, terms, settings)
        if not args.lexical_only:
            result["semantic_5pct"] = semantic_arms(conn, qvecs, inner, settings)
    store.close()
    cache.close()
    return result


def lexical_arms(conn, terms: list[list[str]], settings: Settings) -> dict:
    out = {}
    for name, corpus, filters in (
        ("external", get_corpus("external"), Filters()),
        ("style", get_corpus("style"), Filters()),
        ("style_5pct", get_corpus("style"), Filters(practice_area=AREA)),
        ("style_95pct", get_corpus("style"), Filters(practice_area=MAJORITY)),
        ("style_none", get_corpus("style"), Filters(practice_area="no such area")),
    ):
        source = corpus.sources[0]
        kwargs = {
            "embedder": "e5-local",
            "window": settings.leg_window,
            "budget": settings.lexical_candidate_budget,
        }
        for query in terms:  # warm both paths' pages
            legs.lexical(conn, corpus, source, filters, query, **kwargs)
            main_lexical(conn, corpus, source, filters, query, **kwargs)
        new, old, lookup, same, full = [], [], [], 0, [0, 0]
        read: dict[str, list[int]] = {"after_0051": [], "main_0043": []}
        area = legs.postings_area(corpus, filters)
        for n, query in enumerate(terms):
            arms = [(new, legs.lexical), (old, main_lexical)]
            order = arms if n % 2 else arms[::-1]
            got = [
                timed(samples, leg, conn, corpus, source, filters, query, **kwargs)
                for samples, leg in order
            ]
            if not n % 2:
                got.reverse()
            same += got[0] == got[1]
            full[0] += len(got[0]) == settings.leg_window
            full[1] += len(got[1]) == settings.leg_window
            # The first round trip alone (the lexicon, and the counts within the filter), and
            # the postings each path scores (not timed).
            budget = kwargs["budget"]
            timed(lookup, legs.lexical_query, conn, corpus, source, query, budget, area)
            for arm, within in (("after_0051", area), ("main_0043", None)):
                kept = legs.lexical_query(conn, corpus, source, query, budget, within)
                read[arm].append(postings_read(conn, corpus, source, kept, within))
        out[name] = {
            "after_0051": {**percentiles(new), "full_window": full[0]},
            "main_0043": {**percentiles(old), "full_window": full[1]},
            "after_0051_first_round_trip": percentiles(lookup),
            "postings_scored_p50_p95": {
                arm: [int(statistics.median(v)), sorted(v)[int(round(0.95 * (len(v) - 1)))]]
                for arm, v in read.items()
            },
            "same_ids": same,
        }
    return out


def postings_read(conn, corpus, source, kept, area) -> int:
    """How many postings the scoring statement reads for these kept terms."""
    if kept is None:
        return 0
    return conn.execute(
        "SELECT count(*) AS n FROM lexical_postings WHERE source = %s AND term = ANY(%s)"
        " AND (%s::text IS NULL OR practice_area = %s)",
        (legs.lexicon_source(corpus, source), kept.terms, area, area),
    ).fetchone()["n"]


def semantic_arms(conn, qvecs: list[np.ndarray], inner: E5Local, settings: Settings) -> dict:
    corpus, filters = get_corpus("style"), Filters(practice_area=AREA)
    source = corpus.sources[0]
    conn.execute("ALTER TABLE document_chunks ADD COLUMN IF NOT EXISTS bench_area text")
    with conn.transaction():  # the bench's own column: no trigger need see it
        conn.execute("SET LOCAL session_replication_role = replica")
        conn.execute(
            "UPDATE document_chunks u SET bench_area = d.practice_area FROM documents d"
            " WHERE d.id = u.document_id AND u.bench_area IS DISTINCT FROM d.practice_area"
        )
    conn.execute("VACUUM ANALYZE document_chunks")
    started = time.perf_counter()
    conn.execute("DROP INDEX IF EXISTS bench_style_area_hnsw")
    conn.execute(
        sql.SQL(
            "CREATE INDEX bench_style_area_hnsw ON document_chunks_style USING hnsw"
            " ((embedding::vector({dim})) vector_cosine_ops)"
            " WHERE embedder = 'e5-local' AND bench_area = {area}"
        ).format(dim=sql.Literal(inner.dim), area=sql.Literal(AREA))
    )
    conn.execute("ANALYZE document_chunks_style")
    build_s = time.perf_counter() - started
    where, params = legs.filter_sql(corpus, filters)
    vt = sql.SQL("vector({})").format(sql.SQL(str(int(inner.dim))))
    base = sql.SQL(
        "SELECT u.id FROM {src} WHERE {where} AND {unit} {extra} ORDER BY {order} LIMIT 10"
    )
    partial = base.format(
        src=legs._from(corpus, source),
        where=where,
        unit=legs._unit_predicates(source),
        extra=sql.SQL("AND u.bench_area = {}").format(sql.Literal(AREA)),
        order=sql.SQL("(u.embedding::{vt}) <=> %(qvec)s::{vt}").format(vt=vt),
    )
    exact = base.format(  # `+ 0`: an order no index gives: every row of the filter, exactly
        src=legs._from(corpus, source),
        where=where,
        unit=legs._unit_predicates(source),
        extra=sql.SQL(""),
        order=sql.SQL("((u.embedding::{vt}) <=> %(qvec)s::{vt}) + 0, u.id").format(vt=vt),
    )
    iterative, part, full = [], [], []
    recall = {"iterative": [], "partial": []}
    for n, qvec in enumerate(qvecs * 2):  # the first pass warms
        args = {**params, "embedder": "e5-local", "qvec": qvec}
        samples = (iterative, part, full) if n >= len(qvecs) else ([], [], [])

        def scan(qvec=qvec):
            return legs.semantic(
                conn,
                corpus,
                source,
                filters,
                qvec,
                embedder="e5-local",
                dim=inner.dim,
                window=settings.leg_window,
                max_scan_tuples=settings.hnsw_max_scan_tuples,
                ef_search=settings.hnsw_ef_search,
            )[:10]

        def over_partial(args=args):
            with conn.transaction():
                conn.execute(f"SET LOCAL hnsw.ef_search = {int(settings.hnsw_ef_search)}")
                return [r["id"] for r in conn.execute(partial, args).fetchall()]

        def exhaustive(args=args):
            return [r["id"] for r in conn.execute(exact, args).fetchall()]

        arms = [(samples[0], scan), (samples[1], over_partial), (samples[2], exhaustive)]
        got = [timed(s, call) for s, call in (arms if n % 2 else arms[::-1])]
        if n % 2:
            got_scan, got_partial, truth = got
        else:
            truth, got_partial, got_scan = got
        if n >= len(qvecs) and truth:
            recall["iterative"].append(len(set(got_scan) & set(truth)) / len(truth))
            recall["partial"].append(len(set(got_partial) & set(truth)) / len(truth))
    plan = conn.execute(
        sql.SQL("EXPLAIN (COSTS OFF) {}").format(partial),
        {**params, "embedder": "e5-local", "qvec": qvecs[0]},
    ).fetchall()
    rows = conn.execute(
        "SELECT count(*) AS n FROM document_chunks_style WHERE bench_area = %s", (AREA,)
    ).fetchone()["n"]
    return {
        "filtered_rows": rows,
        "partial_index_build_s": round(build_s, 1),
        "partial_uses_its_index": any("bench_style_area_hnsw" in str(r) for r in plan),
        "iterative_scan": {**percentiles(iterative), "recall@10": _mean(recall["iterative"])},
        "partial_hnsw": {**percentiles(part), "recall@10": _mean(recall["partial"])},
        "exact_scan": {**percentiles(full), "recall@10": 1.0},
    }


def _mean(values: list[float]) -> float:
    return round(sum(values) / len(values), 3) if values else 0.0


if __name__ == "__main__":
    main()
