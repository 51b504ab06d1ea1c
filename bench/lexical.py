"""Benchmark (issue 39 items 1 and 3): the lexical leg through `lexical_postings` (migration 0051:
the postings carry their practice area) against the leg as main ran it on 0043's postings, and
the filtered semantic leg: pgvector's iterative scan against the practice area's own HNSW index
(migration 0052), and against an exact scan of its rows.

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
- semantic, style corpus under the 5 % filter: `legs.semantic` as the search runs it (migration
  0052: the area's own partial HNSW index, made by `practice_area_indexes()` after the load),
  the statement before it (`ITERATIVE`: the partition's index with pgvector's iterative scan),
  and the exact scan of the filter's rows; recall@10 of each against the exact.

    .venv/bin/python bench/lexical.py [--chunks 100000] [--queries 60] [--set clusters|distinct]
        [--home DIR [--reuse]] [--lexical-only]

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
    parser.add_argument(
        "--set",
        choices=("clusters", "distinct"),
        default="clusters",
        help="base sentences, as bench/search.py's --set (distinct: >= 20,000, <= 20 copies each)",
    )
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
    base = base_sentences(args.set, args.chunks, 1500)
    cache = Store(ensure_database(server, "bench_cache"), max_size=2)
    embedder = CachedEmbedder(inner, EmbeddingCache(cache))
    vectors = embed_in_slices(embedder.embed_passages, base)
    database = "bench_lexical" if args.set == "clusters" else f"bench_lexical_{args.set}"
    store = Store(ensure_database(server, database), max_size=2)
    build: dict = {"reused": True}
    wanted = sum(int(args.chunks * s) // 10 * 10 for s in SPLIT.values())
    with store.pool.connection() as conn:
        have = conn.execute("SELECT count(*) AS n FROM document_chunks").fetchone()["n"]
        have += conn.execute("SELECT count(*) AS n FROM case_law_chunks").fetchone()["n"]
    if not (args.reuse and have == wanted):
        store.close()
        drop_database(server, database)
        store = Store(ensure_database(server, database), max_size=2)
        with store.transaction() as conn:
            set_active_embedder(conn, inner.id, inner.dim)
        build = load(store, base, vectors, args.chunks, spread=args.set == "distinct")
    queries = [
        json.loads(x)["text"]
        for name in ("pbl-questions", "heq")
        for x in (SHARED / name / "queries.jsonl").read_text(encoding="utf-8").splitlines()
    ][: args.queries]
    settings = Settings(database_url=store.url)
    analyzer = get_analyzer(settings.analyzer)
    terms = [analyzer.query_terms(expand_query(q)) for q in queries]
    qvecs = [inner.embed_query(q) for q in queries]
    result = {"chunks": args.chunks, "set": args.set, "queries": len(queries), "build": build}
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
    """The style corpus under the 5 % filter: the semantic leg as search runs it (migration 0052:
    the area's own partial HNSW index), the leg before it (`ITERATIVE`: the partition's index
    with pgvector's iterative scan), and the exact scan of the filter's rows; recall@10 of each
    against the exact, top 10 of the window of 50 the search reads."""
    corpus, filters = get_corpus("style"), Filters(practice_area=AREA)
    source = corpus.sources[0]
    where, params = legs.filter_sql(corpus, filters)
    vt = sql.SQL("vector({})").format(sql.SQL(str(int(inner.dim))))
    parts = {
        "src": legs._from(corpus, source),
        "where": where,
        "unit": legs._unit_predicates(source),
    }
    iterative = sql.SQL(ITERATIVE).format(vt=vt, **parts)
    exact = sql.SQL(  # `+ 0`: an order no index gives: every row of the filter, exactly
        "SELECT u.id FROM {src} WHERE {where} AND {unit}"
        " ORDER BY ((u.embedding::{vt}) <=> %(qvec)s::{vt}) + 0, u.id LIMIT 10"
    ).format(vt=vt, **parts)
    window = settings.leg_window
    times: dict[str, list[float]] = {"iterative": [], "area_index": [], "exact": []}
    recall: dict[str, list[float]] = {"iterative": [], "area_index": []}
    for n, qvec in enumerate(qvecs * 2):  # the first pass warms
        args = {**params, "embedder": "e5-local", "qvec": qvec, "window": window}

        def area_index(qvec=qvec):
            return legs.semantic(
                conn,
                corpus,
                source,
                filters,
                qvec,
                embedder="e5-local",
                dim=inner.dim,
                window=window,
                max_scan_tuples=settings.hnsw_max_scan_tuples,
                ef_search=settings.hnsw_ef_search,
            )[:10]

        def before(args=args):
            with conn.transaction():
                legs.configure_hnsw(conn, max_scan_tuples=settings.hnsw_max_scan_tuples)
                conn.execute(*legs.scaled_ef_search(source, settings.hnsw_ef_search))
                return [r["id"] for r in conn.execute(iterative, args).fetchall()][:10]

        def exhaustive(args=args):
            return [r["id"] for r in conn.execute(exact, args).fetchall()]

        names = ["iterative", "area_index", "exact"]
        calls = {"iterative": before, "area_index": area_index, "exact": exhaustive}
        order = names if n % 2 else names[::-1]
        got = {name: timed(times[name] if n >= len(qvecs) else [], calls[name]) for name in order}
        if n >= len(qvecs) and got["exact"]:
            for name in recall:
                recall[name].append(len(set(got[name]) & set(got["exact"])) / len(got["exact"]))
    statement, arguments = legs.semantic_statement(
        corpus, source, filters, qvecs[0], embedder="e5-local", dim=inner.dim, window=window
    )
    plan = conn.execute(sql.SQL("EXPLAIN (COSTS OFF) {}").format(statement), arguments).fetchall()
    rows = conn.execute(
        "SELECT count(*) AS n FROM document_chunks_style WHERE practice_area = %s", (AREA,)
    ).fetchone()["n"]
    indexes = conn.execute(
        "SELECT c.relname AS name, pg_relation_size(c.oid) AS bytes FROM pg_index i"
        " JOIN pg_class c ON c.oid = i.indexrelid"
        " WHERE i.indrelid = 'document_chunks_style'::regclass AND c.relname LIKE '%%_area_%%'"
    ).fetchall()
    return {
        "filtered_rows": rows,
        "partition_rows": conn.execute(
            "SELECT count(*) AS n FROM document_chunks_style"
        ).fetchone()["n"],
        "area_indexes": indexes,
        "leg_uses_the_area_index": any("_area_" in str(r) for r in plan),
        "iterative_scan_before": {
            **percentiles(times["iterative"]),
            "recall@10": _mean(recall["iterative"]),
        },
        "area_index_now": {
            **percentiles(times["area_index"]),
            "recall@10": _mean(recall["area_index"]),
        },
        "exact_scan": {**percentiles(times["exact"]), "recall@10": 1.0},
    }


# The filtered semantic leg before migration 0052 (as retrieval/legs.py ran it): the
# partition's HNSW index, pgvector's iterative scan until the filter's rows fill the window.
ITERATIVE = (
    "WITH nearest AS MATERIALIZED ("
    " SELECT u.id, (u.embedding::{vt}) <=> %(qvec)s::{vt} AS distance FROM {src}"
    " WHERE {where} AND {unit}"
    " ORDER BY (u.embedding::{vt}) <=> %(qvec)s::{vt} LIMIT %(window)s)"
    " SELECT id FROM nearest ORDER BY distance, id"
)


def _mean(values: list[float]) -> float:
    return round(sum(values) / len(values), 3) if values else 0.0


if __name__ == "__main__":
    main()
