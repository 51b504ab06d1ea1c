"""Issue 39 item 3: a practice area's own HNSW index (migration 0052). Every chunk carries its
item's practice area, kept by the database; `practice_area_indexes()` makes a partial HNSW index
per (chunk partition, embedder, area) for every area holding at most half of its partition; the
semantic leg under that area's filter is planned on it and answers what it answered before (the
partition's index with the iterative scan) and what an exact scan of the area's chunks answers."""

import hashlib
from concurrent.futures import Future

import numpy as np
import psycopg
import pytest
from pgvector.psycopg import register_vector
from psycopg import sql
from psycopg.rows import dict_row

from factories import records
from helpers import DECISION_FIELDS, write
from legal_ai.corpora import get_corpus
from legal_ai.retrieval import legs
from legal_ai.retrieval import search as search_module
from legal_ai.retrieval.legs import Filters
from legal_ai.retrieval.search_legs import image_leg

pytestmark = pytest.mark.db

AREA, OTHER = "betterment_levy", "planning"
QUERIES = (
    "היטל השבחה על מימוש זכויות במקרקעין",
    "הקלה בקו בניין צדדי",
    "פרסום כדין ושמיעת התנגדויות",
)


def decisions(app, tmp_path) -> int:
    """The fictional pairs' paragraphs as internal decisions, every fourth in AREA (the rest in
    OTHER). Returns how many are in AREA."""
    n = minority = 0
    seen: set[str] = set()
    for r, record in enumerate(records()):
        for side in ("final", "draft"):
            for p, text in enumerate(record[f"{side}_text"].split("\n\n")):
                if len(text) <= 80 or text in seen:  # a draft repeats some of its final's words
                    continue
                seen.add(text)
                area = AREA if n % 4 == 0 else OTHER
                meta = {"case_number": f"ערר {n + 1}/24", "decided_on": "2024-01-01"}
                meta |= {**DECISION_FIELDS, "practice_area": area}
                path = write(tmp_path / f"{side}-{r}-{p}.txt", text)
                assert app.ingest([path], "internal", meta=meta, doc_id=f"d-{n}").ingested == 1
                minority += area == AREA
                n += 1
    return minority


def before(conn, corpus, source, filters, qvec, dim, window):
    """The semantic leg before 0052: the partition's index, pgvector's iterative scan."""
    where, params = legs.filter_sql(corpus, filters)
    vt = sql.SQL("vector({})").format(sql.SQL(str(dim)))
    statement = sql.SQL(
        "SELECT u.id FROM {src} WHERE {where} AND {unit}"
        " ORDER BY (u.embedding::{vt}) <=> %(qvec)s::{vt}, u.id LIMIT %(window)s"
    ).format(vt=vt, src=legs._from(corpus, source), where=where, unit=legs._unit_predicates(source))
    args = {**params, "embedder": "e5-local", "qvec": qvec, "window": window}
    with conn.transaction():  # pgvector's iterative scan, as the leg ran it
        legs.configure_hnsw(conn, max_scan_tuples=20000)
        conn.execute("SET LOCAL hnsw.ef_search = 100")
        return [r["id"] for r in conn.execute(statement, args).fetchall()]


def test_the_area_index_plans_the_filtered_leg_and_answers_the_same(app, tmp_path):
    minority = decisions(app, tmp_path)
    assert minority >= 5
    corpus = get_corpus("internal")
    source = corpus.sources[0]
    filters = Filters(practice_area=AREA)
    with psycopg.connect(app.store.url, autocommit=True, row_factory=dict_row) as conn:
        register_vector(conn)
        # The chunks carry their decisions' areas.
        mismatched = conn.execute(
            "SELECT count(*) AS n FROM case_law_chunks u JOIN case_law c ON c.id = u.case_law_id"
            " WHERE u.practice_area IS DISTINCT FROM c.practice_area"
        ).fetchone()["n"]
        assert mismatched == 0
        # Before `practice_area_indexes()` the area has no index of its own: the statement
        # filters on the item's area, as it did before the migration (the chunk's alone, with
        # no index of it, would scan the whole partition).
        assert legs.area_lookup(conn, corpus, filters, "e5-local") == legs.AreaLookup()
        qvec = app.embedder.embed_query(QUERIES[0])
        statement, arguments = legs.semantic_statement(
            corpus, source, filters, qvec, embedder="e5-local", dim=384, window=50
        )
        assert arguments["practice_area"] == AREA
        assert "u.practice_area" not in statement.as_string(conn)
        made = conn.execute("SELECT practice_area_indexes() AS n").fetchone()["n"]
        assert (
            made >= 1 and conn.execute("SELECT practice_area_indexes() AS n").fetchone()["n"] == 0
        )
        names = [
            r["indexname"]
            for r in conn.execute(
                "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = %s"
                " AND indexname LIKE %s",
                (source.table, f"{source.table}_area_%"),
            ).fetchall()
        ]
        assert len(names) == 1  # AREA's; OTHER holds more than half: the partition's index
        indexed = legs.area_lookup(conn, corpus, filters, "e5-local").indexed
        assert indexed == {source.table}
        assert legs.area_lookup(conn, corpus, Filters(practice_area=OTHER), "e5-local") == (
            legs.AreaLookup()
        )
        nowhere = Filters(practice_area="no such area")
        assert legs.area_lookup(conn, corpus, nowhere, "e5-local") == legs.AreaLookup(empty=True)
        assert legs.area_lookup(conn, corpus, filters, "voyage") == legs.AreaLookup()
        try:
            rows = conn.execute(
                "SELECT u.id, u.embedding FROM case_law_chunks_internal u"
                " WHERE u.practice_area = %s AND u.embedder = 'e5-local' AND NOT u.stale",
                (AREA,),
            ).fetchall()
            ids = np.array([r["id"] for r in rows])
            matrix = np.stack([r["embedding"].to_numpy() for r in rows])
            for query in QUERIES:
                qvec = app.embedder.embed_query(query)
                statement, arguments = legs.semantic_statement(
                    corpus,
                    source,
                    filters,
                    qvec,
                    embedder="e5-local",
                    dim=384,
                    window=50,
                    indexed=indexed,
                )
                # The chunk's own area stands for its item's: both in one statement made the
                # planner expect a few rows and sort the area whole (docs/benchmarks.md).
                assert "practice_area" not in arguments
                assert 'i."practice_area"' not in statement.as_string(conn)
                with conn.transaction():
                    # A fixture of a few dozen rows is cheapest read whole; the plan that
                    # matters is which index the planner takes when it takes one.
                    # Scans that read the area's rows and sort them are as cheap at this size
                    # (and the cheapest once deleted rows skew the statistics): priced out too.
                    for setting in ("enable_seqscan", "enable_bitmapscan", "enable_sort"):
                        conn.execute(sql.SQL("SET LOCAL {} = off").format(sql.Identifier(setting)))
                    plan = conn.execute(
                        sql.SQL("EXPLAIN (COSTS OFF) {}").format(statement), arguments
                    ).fetchall()
                    assert names[0] in " ".join(str(r) for r in plan), plan
                    got = legs.semantic(
                        conn,
                        corpus,
                        source,
                        filters,
                        qvec,
                        embedder="e5-local",
                        dim=384,
                        window=50,
                        max_scan_tuples=20000,
                        ef_search=100,
                        configured=False,
                    )
                exact = ids[np.lexsort((ids, -(matrix @ qvec)))].tolist()
                assert got == exact  # every chunk of the area, nearest first
                assert got == before(conn, corpus, source, filters, qvec, 384, 50)
                assert len(got) == len(rows)
                # The whole search answers the same with the area's index and without it.
                answers = [
                    search_module.search(
                        app.store,
                        app.embedder,
                        app.settings.model_copy(update={"search_area_indexes": on}),
                        "internal",
                        query,
                        filters=filters,
                        mode=mode,
                    ).as_dict()
                    for on in (True, False)
                    for mode in ("semantic", "hybrid")
                ]
                assert answers[:2] == answers[2:] and len(answers[0]["hits"]) == min(10, len(rows))
        finally:
            for name in names:
                conn.execute(sql.SQL("DROP INDEX {}").format(sql.Identifier(name)))


def test_the_chunks_follow_their_items_area(app, tmp_path):
    decisions(app, tmp_path)
    with psycopg.connect(app.store.url, autocommit=True, row_factory=dict_row) as conn:
        item = conn.execute(
            "SELECT id FROM case_law WHERE practice_area = %s ORDER BY id LIMIT 1", (OTHER,)
        ).fetchone()["id"]

        def areas() -> set:
            return {
                r["practice_area"]
                for r in conn.execute(
                    "SELECT practice_area FROM case_law_chunks WHERE case_law_id = %s", (item,)
                ).fetchall()
            }

        assert areas() == {OTHER}
        conn.execute("UPDATE case_law SET practice_area = %s WHERE id = %s", (AREA, item))
        assert areas() == {AREA}
        # A writer cannot set a chunk's area apart from its item's: the database sets it.
        conn.execute(
            "UPDATE case_law_chunks SET practice_area = 'elsewhere' WHERE case_law_id = %s", (item,)
        )
        assert areas() == {AREA}


def test_the_agent_login_moves_no_chunk_to_another_area(app, tmp_path, agent_db_url):
    decisions(app, tmp_path)
    # The name `legs.area_lookup` looks for: an agent making (or dropping) it would only
    # change which plan a filtered search takes, never its hits; it may do neither.
    name = (
        "case_law_chunks_internal_area_"
        + hashlib.md5(f"e5-local/{OTHER}".encode()).hexdigest()[:12]
    )
    named = sql.Identifier(name)
    with psycopg.connect(agent_db_url) as conn:
        for statement in (
            sql.SQL("UPDATE case_law_chunks SET practice_area = 'planning'"),
            sql.SQL("UPDATE case_law SET practice_area = 'planning'"),
            sql.SQL("SELECT practice_area_indexes()"),
            sql.SQL("CREATE INDEX {} ON case_law_chunks_internal (id)").format(named),
            sql.SQL("CREATE TABLE {} (id int)").format(named),
            sql.SQL("CREATE TEMP TABLE {} (id int)").format(named),
            sql.SQL("DROP INDEX case_law_eid_idx"),
            sql.SQL("DROP INDEX case_law_area_idx"),
            sql.SQL("DROP INDEX documents_area_idx"),
            sql.SQL("CREATE INDEX case_law_eid_copy ON case_law (eid)"),
        ):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement)
            conn.rollback()
    # Nor a temporary one (migration 0027 lets no login but the owner make them); the look-up
    # would count only an index of the partition anyway.
    corpus = get_corpus("internal")
    with psycopg.connect(agent_db_url, row_factory=dict_row) as conn:
        assert not legs.area_lookup(conn, corpus, Filters(practice_area=OTHER), "e5-local").indexed


def test_an_area_no_item_holds_answers_without_reading_a_graph(app, tmp_path):
    """Bad input of issue 39: a practice area no item of the corpus is in. The look-up read
    while the model embeds (migration 0054's index of the items' areas) says so, and the
    semantic legs end there — no wait for the vector, no walk of the partition's graph to
    `hnsw.max_scan_tuples` — answering what the scan answers: nothing."""
    decisions(app, tmp_path)
    nowhere = Filters(practice_area="no such area")
    with psycopg.connect(app.store.url, autocommit=True, row_factory=dict_row) as conn:
        register_vector(conn)
        for key in ("internal", "external", "style", "case"):
            corpus = get_corpus(key)
            assert legs.area_lookup(conn, corpus, nowhere, "e5-local").empty, key
        assert legs.area_lookup(conn, get_corpus("digests"), nowhere, "e5-local") == legs.NO_AREA
        internal = get_corpus("internal")
        assert not legs.area_lookup(conn, internal, Filters(practice_area=AREA), "e5-local").empty
        # The look-up reads the items' index of their areas, not the items.
        with conn.transaction():
            conn.execute("SET LOCAL enable_seqscan = off")
            plan = conn.execute(
                "EXPLAIN (COSTS OFF) SELECT FROM case_law i"
                " WHERE i.source_kind = 'internal_committee' AND i.practice_area = 'x'"
            ).fetchall()
        assert "case_law_area_idx" in " ".join(str(r) for r in plan), plan
        # What the skipped scan would have answered: nothing.
        qvec = app.embedder.embed_query(QUERIES[0])
        statement, arguments = legs.semantic_statement(
            internal, internal.sources[0], nowhere, qvec, embedder="e5-local", dim=384, window=50
        )
        assert conn.execute(statement, arguments).fetchall() == []
        assert (
            legs.semantic(
                conn,
                internal,
                internal.sources[0],
                nowhere,
                qvec,
                embedder="e5-local",
                dim=384,
                window=50,
                max_scan_tuples=20000,
            )
            == []
        )
    for mode in ("semantic", "hybrid"):
        result = search_module.search(
            app.store,
            app.embedder,
            app.settings,
            "internal",
            QUERIES[1],
            filters=nowhere,
            mode=mode,
        )
        assert result.hits == [] and result.dropped_by_cap == 0
        assert "area_indexes" in result.timings  # the look-up ran…
        assert "semantic" not in result.timings  # …and no semantic leg after it
        assert "embedding_wait" not in result.timings  # nor a wait for the model
    # The image leg too ends before waiting for the image's query vector.
    never = Future()
    never.set_exception(AssertionError("the image leg waited for its vector"))
    with app.store.connection() as conn:
        for key in ("style", "case"):
            corpus = get_corpus(key)
            image = corpus.image_source
            assert image is not None, key
            found = image_leg(
                conn, corpus, image, nowhere, never, app.embedder, app.settings, 50, False
            )
            assert found == [], key
    # An area some item holds still searches as before.
    held = search_module.search(
        app.store,
        app.embedder,
        app.settings,
        "internal",
        QUERIES[1],
        filters=Filters(practice_area=AREA),
    )
    assert held.hits and "semantic" in held.timings
