"""The lexical leg reads BM25's statistics from `lexical_postings` (issue 39 item 1, migration
0043): its top-k equals the exact BM25 top-k computed here, in Python, from the units' analyzed
text (several queries, with and without a practice-area filter, with the candidate budget
dropping common terms), and the postings stay equal to a recount from the units after every
kind of write: ingest, a re-ingest, SQL inserts, updates and deletes, a re-analysis (reindex).
The agent-only login reads them and writes none."""

from __future__ import annotations

import math
import random
from collections import Counter
from itertools import pairwise

import psycopg
import pytest

from helpers import write
from legal_ai.app import App
from legal_ai.corpora import get_corpus
from legal_ai.retrieval import legs

pytestmark = pytest.mark.db

# A vocabulary of plain words drawn with skewed frequencies, so terms have every document
# frequency from a handful of units to most of them, and units every length.
WORDS = (
    "ועדה ערר היתר בנייה תכנית מקומית מחוזית הקלה קו בניין צדדי שימוש חורג היטל השבחה"
    " פיצויים פגיעה מקרקעין שמאי מכריע קומה מרתף גג פרגולה חניה תקן חקלאי מגורים מסחר"
    " תעשייה דרך ציבורית הפקעה זכויות תוספת שטח עיקרי שירות גובה צפיפות יחידות דיור"
).split()
AREAS = ("planning", "betterment")


def _text(rng: random.Random) -> str:
    """A paragraph of 2-6 sentences: one unit of 24-72 words, most of them a chunk of their own
    (the 144 paragraphs are the >= 100 units the ranking needs; longer ones only cost
    embedding time: 63 s of the fixture with 3-14 sentences)."""
    sentences = []
    for _ in range(rng.randint(2, 6)):
        words = [WORDS[min(int(rng.expovariate(0.08)), len(WORDS) - 1)] for _ in range(12)]
        sentences.append(" ".join(words) + ".")
    return " ".join(sentences)


@pytest.fixture
def corpus(app, tmp_path):
    rng = random.Random(39)
    for n in range(24):
        path = write(tmp_path / f"d{n}.txt", "\n".join(_text(rng) for _ in range(6)))
        meta = {
            "title": f"החלטה {n}",
            "court": "העליון",
            "decided_on": "2021-03-01",
            "case_number": f'עע"מ {100 + n}/21',
            "practice_area": AREAS[n % 5 == 0],  # one in five: the selective filter
        }
        assert app.ingest([path], "external", meta=meta, doc_id=f"d{n}").ingested == 1
    return app


def _units(conn) -> list[dict]:
    return conn.execute(
        "SELECT u.id, u.analyzed, i.practice_area FROM case_law_chunks u"
        " JOIN case_law i ON i.id = u.case_law_id WHERE u.source_kind = 'external_upload'"
    ).fetchall()


def exact_top(units: list[dict], terms: list[str], budget: int, area: str | None, k: int):
    """BM25 as the leg defines it, from the analyzed text alone: the query's terms present in
    the table kept rarest first while their summed document frequency stays within `budget`
    (the rarest always), idf log(1 + (N - df + 0.5) / (df + 0.5)), k1 1.2, b 0.75, average
    length over every unit; the filter then keeps its own units. Returns [(score, id)], best
    first, ties by id."""
    tf = {u["id"]: Counter(u["analyzed"].split()) for u in units}
    length = {i: sum(c.values()) for i, c in tf.items()}
    avgdl = max(sum(length.values()) / len(units), 1.0)
    df = {t: sum(1 for c in tf.values() if t in c) for t in set(terms)}
    present = sorted((d, t) for t, d in df.items() if d > 0)
    kept, total = [], 0
    for d, t in present:
        if kept and total + d > budget:
            break
        kept.append(t)
        total += d
    idf = {t: math.log(1 + (len(units) - df[t] + 0.5) / (df[t] + 0.5)) for t in kept}
    scored = []
    for u in units:
        counts = tf[u["id"]]
        if area is not None and u["practice_area"] != area or not any(t in counts for t in kept):
            continue
        norm = legs.BM25_K1 * (1 - legs.BM25_B + legs.BM25_B * length[u["id"]] / avgdl)
        score = sum(
            idf[t] * counts[t] * (legs.BM25_K1 + 1) / (counts[t] + norm)
            for t in kept
            if t in counts
        )
        scored.append((score, u["id"]))
    return sorted(scored, key=lambda s: (-s[0], s[1]))[:k]


def test_the_leg_ranks_as_exact_bm25(corpus):
    external = get_corpus("external")
    source = external.sources[0]
    with corpus.store.pool.connection() as conn:
        units = _units(conn)
        assert len(units) >= 100
        vocabulary = Counter(t for u in units for t in set(u["analyzed"].split()))
        by_df = [t for t, _ in sorted(vocabulary.items(), key=lambda x: (x[1], x[0]))]
        rare, middle, common = by_df[:6], by_df[len(by_df) // 2 :][:6], by_df[-4:]
        queries = [
            rare[:2],
            rare[2:5] + middle[:1],
            middle[:3],
            [common[0]],  # one common term alone: most of the table scored
            common + rare[:1],  # the budget drops the common terms
            middle[3:] + common[:1] + ["מילה-שאיננה"],
        ]
        checked = 0
        for terms in queries:
            for budget in (40, 2000):
                for area in (None, "betterment", "planning"):
                    got = legs.lexical(
                        conn,
                        external,
                        source,
                        legs.Filters(practice_area=area),
                        terms,
                        embedder=corpus.embedder.id,
                        window=10,
                        budget=budget,
                    )
                    ranked = exact_top(units, terms, budget, area, len(units))
                    want, scores = ranked[:10], {i: s for s, i in ranked}
                    assert len(got) == len(want), (terms, budget, area)
                    # the same scores in the same order; units of an equal score in id order
                    for (score, _), unit in zip(want, got, strict=True):
                        assert scores[unit] == pytest.approx(score, rel=1e-9, abs=1e-12)
                    if all(a[0] - b[0] > 1e-9 for a, b in pairwise(want)):
                        assert got == [i for _, i in want]
                    checked += bool(want)
        assert checked >= 30


def recount(conn) -> list[tuple]:
    """The postings a rebuild from the units would write (every source)."""
    return [
        tuple(r.values())
        for r in conn.execute(
            "SELECT 'case_law_chunks_' || u.source_kind AS source, w.key AS term, u.id,"
            " w.value::integer AS tf, u.token_count FROM case_law_chunks u,"
            " jsonb_each_text(u.term_freqs) w"
            " UNION ALL SELECT 'document_chunks_' || u.corpus, w.key, u.id, w.value::integer,"
            " u.token_count FROM document_chunks u, jsonb_each_text(u.term_freqs) w"
            " ORDER BY 1, 2, 3"
        ).fetchall()
    ]


def stored(conn) -> list[tuple]:
    return [
        tuple(r.values())
        for r in conn.execute(
            "SELECT source, term, unit_id, tf, token_count FROM lexical_postings ORDER BY 1, 2, 3"
        ).fetchall()
    ]


def test_the_postings_follow_every_write(app, session_app, tmp_path, e5):
    meta = {"title": "t", "court": "העליון", "decided_on": "2020-01-01", "case_number": 'ע"א 1/20'}
    path = tmp_path / "x.txt"
    for text in ("היטל השבחה על מימוש זכויות", "פיצויים לפי סעיף 197 בשל פגיעה מתכנית"):
        write(path, text)  # the second replaces the first's chunks
        assert app.ingest([path], "external", meta=meta, doc_id="x").ingested == 1
    write(tmp_path / "y.txt", "תכנית מתאר מקומית הקלה בקו בניין")
    assert app.ingest([tmp_path / "y.txt"], "style", doc_id="y").ingested == 1
    with app.store.pool.connection() as conn:
        first = stored(conn)
        assert first == recount(conn) and first
        assert "היטל" not in {p[1] for p in first}
        # By SQL: an update of the analyzed text (the row trigger recounts its frequencies), one
        # that leaves them alone, a copy inserted, a delete.
        conn.execute(
            "UPDATE case_law_chunks SET analyzed = analyzed || ' שמאי שמאי'"
            " WHERE source_kind = 'external_upload'"
        )
        assert ("שמאי", 2) in {(p[1], p[3]) for p in stored(conn)}
        assert stored(conn) == recount(conn)
        before = conn.execute("SELECT xmin::text AS x FROM lexical_postings LIMIT 1").fetchone()
        conn.execute("UPDATE document_chunks SET page = page")
        after = conn.execute("SELECT xmin::text AS x FROM lexical_postings LIMIT 1").fetchone()
        assert before == after  # statistics unchanged: postings untouched
        conn.execute(
            "INSERT INTO document_chunks (document_id, corpus, ordinal, char_start, char_end,"
            " text, text_hash, analyzed, analyzer)"
            " SELECT document_id, corpus, ordinal + 1, char_start, char_end, text, text_hash,"
            " analyzed || ' גג', analyzer FROM document_chunks"
        )
        assert stored(conn) == recount(conn)
        conn.execute("DELETE FROM document_chunks WHERE ordinal = 0")
        assert stored(conn) == recount(conn)
        assert {p[0] for p in stored(conn)} == {
            "case_law_chunks_external_upload",
            "document_chunks_style",
        }
        conn.commit()
    plain = App(
        session_app.settings.model_copy(update={"analyzer": "he-plain-v1"}),
        store=app.store,
        embedder=e5,
    )
    assert plain.reindex()["reanalyzed"] >= 1
    with app.store.pool.connection() as conn:
        reanalyzed = stored(conn)
        assert reanalyzed == recount(conn) and reanalyzed != first
        conn.execute("DELETE FROM lexical_postings")
        conn.execute("SELECT lexicon_rebuild()")  # the rebuild writes them back
        assert stored(conn) == reanalyzed


def test_the_agent_login_reads_the_postings_and_writes_none(app, tmp_path, agent_db_url):
    write(tmp_path / "z.txt", "תכנית מתאר מקומית הקלה בקו בניין")
    assert app.ingest([tmp_path / "z.txt"], "style", doc_id="z").ingested == 1
    with psycopg.connect(agent_db_url) as conn:
        assert conn.execute("SELECT count(*) FROM lexical_postings").fetchone()[0] > 0
        for statement in (
            "INSERT INTO lexical_postings VALUES ('document_chunks_style', 'x', 1, 1, 1)",
            "UPDATE lexical_postings SET tf = tf + 9",
            "DELETE FROM lexical_postings",
            "SELECT lexical_postings_rebuild()",
        ):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement)
            conn.rollback()
