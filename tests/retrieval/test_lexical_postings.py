"""The lexical leg reads BM25's statistics from `lexical_postings` (issue 39 item 1, migrations
0043 and 0051): its top-k equals the exact BM25 top-k computed here, in Python, from the units'
analyzed text (several queries, a query of only the commonest words, a query of 5,000
characters, with and without a practice-area filter (the candidate budget counted within it), a
filter matching nothing, another filter beside it, the budget dropping common terms), and the
postings stay equal to a recount from the units, and to what lexicon_rebuild() writes, after
every kind of write: ingest, a re-ingest, SQL inserts, updates and deletes of units, an item's
practice area changed or the item deleted by SQL, a re-analysis (reindex). The agent-only login
reads them and writes none."""

from __future__ import annotations

import datetime
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
from legal_ai.text.hebrew import get_analyzer

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
            "decided_on": f"{2019 + n % 3}-03-01",
            "case_number": f'עע"מ {100 + n}/21',
            "practice_area": AREAS[n % 5 == 0],  # one in five: the selective filter
        }
        assert app.ingest([path], "external", meta=meta, doc_id=f"d{n}").ingested == 1
    return app


def _units(conn) -> list[dict]:
    return conn.execute(
        "SELECT u.id, u.analyzed, i.practice_area, i.decided_on FROM case_law_chunks u"
        " JOIN case_law i ON i.id = u.case_law_id WHERE u.source_kind = 'external_upload'"
    ).fetchall()


def exact_top(
    units: list[dict], terms: list[str], budget: int, area: str | None, k: int, since=None
):
    """BM25 as the leg defines it, from the analyzed text alone: the query's terms present in
    the table, and under a practice area present in its units, kept rarest first (under the
    area: by their frequency among its units, then their frequency in the table, then the term) while that summed frequency stays within `budget` (the rarest
    always), idf log(1 + (N - df + 0.5) / (df + 0.5)) over the table, k1 1.2, b 0.75, average
    length over every unit; the filters keep their own units (`since`: decided on or after).
    Returns [(score, id)], best first, ties by id."""
    tf = {u["id"]: Counter(u["analyzed"].split()) for u in units}
    length = {i: sum(c.values()) for i, c in tf.items()}
    avgdl = max(sum(length.values()) / len(units), 1.0)
    df = {t: sum(1 for c in tf.values() if t in c) for t in set(terms)}
    inside = [u for u in units if area is None or u["practice_area"] == area]
    within = {t: sum(1 for u in inside if t in tf[u["id"]]) for t in df}
    present = sorted((within[t], df[t], t) for t in df if within[t] > 0)
    kept, total = [], 0
    for w, _, t in present:
        if kept and total + w > budget:
            break
        kept.append(t)
        total += w
    idf = {t: math.log(1 + (len(units) - df[t] + 0.5) / (df[t] + 0.5)) for t in kept}
    scored = []
    for u in inside:
        counts = tf[u["id"]]
        if since is not None and u["decided_on"] < since or not any(t in counts for t in kept):
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
    analyzer = get_analyzer(corpus.settings.analyzer)
    rng = random.Random(5000)
    with corpus.store.pool.connection() as conn:
        units = _units(conn)
        assert len(units) >= 100
        vocabulary = Counter(t for u in units for t in set(u["analyzed"].split()))
        by_df = [t for t, _ in sorted(vocabulary.items(), key=lambda x: (x[1], x[0]))]
        rare, middle, common = by_df[:6], by_df[len(by_df) // 2 :][:6], by_df[-4:]
        # Only the commonest words (what stop words are to a real corpus: in most units).
        commonest = [t for t in by_df if vocabulary[t] >= 0.6 * len(units)]
        assert commonest
        # 5,000 characters of the corpus's own words, analyzed as a search analyzes a query.
        long_text = " ".join(rng.choice(WORDS) for _ in range(1200))[:5000]
        assert len(long_text) == 5000
        queries = [
            rare[:2],
            rare[2:5] + middle[:1],
            middle[:3],
            [common[0]],  # one common term alone: most of the table scored
            common + rare[:1],  # the budget drops the common terms
            middle[3:] + common[:1] + ["מילה-שאיננה"],
            commonest,
            analyzer.query_terms(long_text),
        ]
        checked = 0
        for terms in queries:
            for budget in (40, 2000):
                for area, since in (
                    (None, None),
                    ("betterment", None),
                    ("planning", None),
                    ("betterment", datetime.date(2020, 1, 1)),  # another filter beside it
                ):
                    got = legs.lexical(
                        conn,
                        external,
                        source,
                        legs.Filters(practice_area=area, date_from=since and since.isoformat()),
                        terms,
                        embedder=corpus.embedder.id,
                        window=10,
                        budget=budget,
                    )
                    ranked = exact_top(units, terms, budget, area, len(units), since)
                    want, scores = ranked[:10], {i: s for s, i in ranked}
                    assert len(got) == len(want), (terms, budget, area)
                    # the same scores in the same order; units of an equal score in id order
                    for (score, _), unit in zip(want, got, strict=True):
                        assert scores[unit] == pytest.approx(score, rel=1e-9, abs=1e-12)
                    if all(a[0] - b[0] > 1e-9 for a, b in pairwise(want)):
                        assert got == [i for _, i in want]
                    checked += len(want) == 10
        assert checked >= 50
        # A filter matching nothing answers with nothing (its terms occur in no unit of it).
        for terms in (rare[:2], commonest):
            assert (
                legs.lexical(
                    conn,
                    external,
                    source,
                    legs.Filters(practice_area="אין-כזה"),
                    terms,
                    embedder=corpus.embedder.id,
                    window=10,
                )
                == []
            )
            assert legs.lexical_query(conn, external, source, terms, 2000, "אין-כזה") is None


def recount(conn) -> list[tuple]:
    """The postings a rebuild from the units would write (the chunk sources), each under its
    item's practice area."""
    return [
        tuple(r.values())
        for r in conn.execute(
            "SELECT 'case_law_chunks_' || u.source_kind AS source, w.key AS term,"
            " coalesce(i.practice_area, '') AS area, u.id, w.value::integer AS tf,"
            " u.token_count FROM case_law_chunks u JOIN case_law i ON i.id = u.case_law_id,"
            " jsonb_each_text(u.term_freqs) w"
            " UNION ALL SELECT 'document_chunks_' || u.corpus, w.key,"
            " coalesce(i.practice_area, ''), u.id, w.value::integer, u.token_count"
            " FROM document_chunks u JOIN documents i ON i.id = u.document_id,"
            " jsonb_each_text(u.term_freqs) w"
            " ORDER BY 1, 2, 3, 4"
        ).fetchall()
    ]


def stored(conn) -> list[tuple]:
    """The postings, after checking the counts per practice area follow them."""
    counts = conn.execute(
        "SELECT source, term, practice_area, df FROM lexical_area_df ORDER BY 1, 2, 3"
    ).fetchall()
    assert (
        counts
        == conn.execute(
            "SELECT source, term, practice_area, count(*)::integer AS df FROM lexical_postings"
            " GROUP BY 1, 2, 3 ORDER BY 1, 2, 3"
        ).fetchall()
    )
    return [
        tuple(r.values())
        for r in conn.execute(
            "SELECT source, term, practice_area, unit_id, tf, token_count FROM lexical_postings"
            " ORDER BY 1, 2, 3, 4"
        ).fetchall()
    ]


def rebuilt(conn) -> list[tuple]:
    """What lexicon_rebuild() writes, read inside a savepoint rolled back after."""
    with conn.transaction(force_rollback=True):
        conn.execute("SELECT lexicon_rebuild()")
        return stored(conn)


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
        assert ("שמאי", 2) in {(p[1], p[4]) for p in stored(conn)}
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
        assert conn.execute("SELECT count(*) FROM lexical_area_df").fetchone()[0] > 0
        for statement in (
            "INSERT INTO lexical_postings VALUES ('document_chunks_style', 'x', 1, 1, 1, '')",
            "UPDATE lexical_postings SET tf = tf + 9",
            "UPDATE lexical_postings SET practice_area = 'x'",
            "DELETE FROM lexical_postings",
            "SELECT lexical_postings_rebuild()",
            "UPDATE lexical_area_df SET df = df + 9",
            "DELETE FROM lexical_area_df",
        ):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement)
            conn.rollback()


def test_the_postings_follow_their_items_practice_area_by_sql(app, tmp_path):
    """Units and items written by SQL, by any path: each time the postings equal the recount
    and what lexicon_rebuild() writes, and a unit's postings are under its item's area."""
    meta = {"title": "t", "court": "העליון", "decided_on": "2020-01-01"}
    for n, area in enumerate(("planning", "betterment", None)):
        write(
            tmp_path / f"a{n}.txt", f"היטל השבחה על מימוש זכויות בתכנית {n}. פיצויים לפי סעיף 197"
        )
        given = {**meta, "case_number": f'ע"א {n + 1}/20'} | (
            {"practice_area": area} if area else {}
        )
        assert app.ingest([tmp_path / f"a{n}.txt"], "external", meta=given, doc_id=f"a{n}").ingested
    write(tmp_path / "s.txt", "תכנית מתאר מקומית הקלה בקו בניין")
    style = app.ingest(
        [tmp_path / "s.txt"], "style", doc_id="s", meta={"practice_area": "planning"}
    )
    assert style.ingested == 1

    def check(conn) -> set[str]:
        now = stored(conn)
        assert now == recount(conn) == rebuilt(conn)
        return {p[2] for p in now}

    with app.store.pool.connection() as conn:
        assert check(conn) == {"planning", "betterment", ""}
        # The item's practice area changed by SQL: its units' postings move with it.
        conn.execute("UPDATE case_law SET practice_area = 'betterment' WHERE doc_id = 'a0'")
        conn.execute("UPDATE case_law SET practice_area = 'planning' WHERE practice_area IS NULL")
        conn.execute("UPDATE documents SET practice_area = NULL WHERE doc_id = 's'")
        assert check(conn) == {"planning", "betterment", ""}
        assert not [p for p in stored(conn) if p[0].startswith("case_law") and p[2] == ""]
        # A unit inserted by SQL under an item takes the item's area; moved to another item it
        # takes that one's; its statistics changed, its postings follow; deleted, they go.
        conn.execute(
            "INSERT INTO case_law_chunks (case_law_id, source_kind, ordinal, char_start,"
            " char_end, text, text_hash, analyzed, analyzer)"
            " SELECT case_law_id, source_kind, ordinal + 100, char_start, char_end, text,"
            " text_hash, analyzed || ' גג', analyzer FROM case_law_chunks"
            " WHERE case_law_id = (SELECT id FROM case_law WHERE doc_id = 'a1')"
        )
        check(conn)
        conn.execute(
            "UPDATE case_law_chunks SET case_law_id = (SELECT id FROM case_law WHERE doc_id = 'a2')"
            " WHERE ordinal >= 100"
        )
        assert {p[2] for p in stored(conn) if p[1] == "גג"} == {"planning"}
        check(conn)
        conn.execute(
            "UPDATE case_law_chunks SET analyzed = analyzed || ' מרתף' WHERE ordinal >= 100"
        )
        check(conn)
        conn.execute("DELETE FROM case_law_chunks WHERE ordinal >= 100")
        check(conn)
        # The item deleted by SQL: its units (the cascade) and their postings with it.
        conn.execute("DELETE FROM case_law WHERE doc_id = 'a1'")
        check(conn)
        assert not conn.execute(
            "SELECT 1 FROM lexical_postings p WHERE p.source = 'case_law_chunks_external_upload'"
            " AND NOT EXISTS (SELECT 1 FROM case_law_chunks u WHERE u.id = p.unit_id)"
        ).fetchall()
        conn.commit()
