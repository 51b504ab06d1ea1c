"""Ingestion under the completeness contract, against the real database and the real model."""

import json
import subprocess
import sys

import numpy as np
import pytest
from psycopg import sql

import factories
from helpers import DECISION_FIELDS, FIXTURES, TEST_CHAIR, health_of, shared, write
from legal_ai.app import App
from legal_ai.errors import InvalidInput
from legal_ai.retrieval.legs import Filters

pytestmark = pytest.mark.db

DECISION = """ועדת הערר לתכנון ובנייה – מחוז מרכז

1. לפנינו ערר על החלטת הוועדה המקומית לאשר הקלה בקו בניין צדדי.

2. נקדים אחרית לראשית: דין הערר להידחות. אין צו להוצאות.
"""


def counts(app: App, table: str) -> int:
    with app.store.pool.connection() as conn:
        query = sql.SQL("SELECT count(*) AS n FROM {}").format(sql.Identifier(table))
        return conn.execute(query).fetchone()["n"]


def snapshot(app: App) -> tuple:
    return tuple(
        counts(app, t) for t in ("documents", "document_chunks", "case_law", "case_law_chunks")
    )


def test_ingest_is_searchable_and_idempotent(app, tmp_path):
    path = write(tmp_path / "decision.txt", DECISION)
    meta = {"case_number": "ערר (מרכז) 1/25", "practice_area": "planning"}
    first = app.ingest([path], "style", meta=meta)
    assert first.as_dict() == {
        "ingested": 1,
        "unchanged": 0,
        "updated": 0,
        "unsearchable": [],
        "failed": [],
        # a style final resolves nothing and queues no enrichment (issue 15, upkeep on arrival)
        "resolved": {"missing_precedents": 0, "digests": 0, "enrichment_queued": 0},
    }
    before = snapshot(app)
    calls = app.embedder.calls
    again = app.ingest([path], "style", meta=meta)
    assert again.unchanged == 1 and again.ingested == 0
    assert snapshot(app) == before
    assert app.embedder.calls == calls  # unchanged content is never embedded again
    hits = app.search("style", "הקלה בקו בניין", filters=Filters(practice_area="planning")).hits
    # No --doc-id: the case number, the folder and the name (unique across cases and folders).
    assert hits and hits[0]["doc_id"] == f"ערר (מרכז) 1/25/{tmp_path.name}/decision.txt"
    assert hits[0]["case_number"] == "ערר (מרכז) 1/25"


def test_changed_content_replaces_chunks_in_one_version_step(app, tmp_path):
    path = write(tmp_path / "d.txt", DECISION)
    meta = {"case_number": "ערר 2/25", "practice_area": "planning"}
    app.ingest([path], "case", meta=meta)
    with app.store.pool.connection() as conn:
        old = [r["id"] for r in conn.execute("SELECT id FROM document_chunks")]
    write(path, DECISION.replace("להידחות", "להתקבל בחלקו"))
    report = app.ingest([path], "case", meta=meta)
    assert report.ingested == 1
    with app.store.pool.connection() as conn:
        doc = conn.execute("SELECT version, content, searchable FROM documents").fetchone()
        new = [r["id"] for r in conn.execute("SELECT id FROM document_chunks")]
    assert doc["version"] == 2 and "להתקבל בחלקו" in doc["content"] and doc["searchable"]
    assert not set(old) & set(new)


def test_metadata_only_change_keeps_chunks(app, tmp_path):
    path = write(tmp_path / "d.txt", DECISION)
    app.ingest([path], "style", meta={"case_number": "ערר 3/25", "practice_area": "planning"})
    report = app.ingest(
        [path], "style", meta={"case_number": "ערר 3/25", "practice_area": "compensation"}
    )
    assert report.updated == 1 and report.ingested == 0
    assert app.search("style", "הקלה", filters=Filters(practice_area="compensation")).hits


def test_missing_metadata_is_stored_reported_and_never_searchable(app, tmp_path):
    path = write(tmp_path / "ruling.txt", DECISION)
    report = app.ingest([path], "external", meta={"doc_type": "ruling", "court": "העליון"})
    assert report.ingested == 1
    assert report.unsearchable == [
        {
            "doc_id": f"{tmp_path.name}/ruling.txt",
            "missing": ["case_number", "decided_on"],
            "set": "ingest it again with --meta case_number=… --meta decided_on=… (JSONL: the"
            " same fields)",
        }
    ]
    assert app.search("external", "הקלה בקו בניין", mode="lexical").hits == []
    health = health_of(app)
    assert health["unsearchable"] == 1
    assert health["unsearchable_items"][0]["missing"] == ["case_number", "decided_on"]
    # completing the metadata makes it searchable without re-embedding
    calls = app.embedder.calls
    done = app.ingest(
        [path],
        "external",
        meta={
            "doc_type": "ruling",
            "court": "העליון",
            "case_number": 'עע"מ 5/20',
            "decided_on": "2020-01-02",
        },
    )
    assert done.updated == 1 and done.unsearchable == []
    assert app.embedder.calls == calls
    assert (
        app.search("external", "הקלה בקו בניין").hits[0]["doc_id"] == f"{tmp_path.name}/ruling.txt"
    )


def test_internal_decision_gets_the_configured_chair_and_never_a_fictional_one(app, tmp_path):
    path = write(tmp_path / "int.txt", DECISION)
    meta = {
        "case_number": "ערר 4/25",
        "decided_on": "2025-01-01",
        "practice_area": "planning",
        "title": "החלטה",
        **DECISION_FIELDS,
    }
    report = app.ingest([path], "internal", meta=meta)
    assert report.unsearchable == []
    with app.store.pool.connection() as conn:
        row = conn.execute("SELECT chair_name, source_kind FROM case_law").fetchone()
    assert row == {"chair_name": TEST_CHAIR, "source_kind": "internal_committee"}
    # Without a configured chair, a decision that names none is refused with what to set.
    unconfigured = App(
        app.settings.model_copy(update={"committee_chair": None}),
        store=app.store,
        embedder=app._inner_embedder,
    )
    other = write(tmp_path / "int2.txt", DECISION + "\nעוד פסקה.")
    report = unconfigured.ingest([other], "internal", meta={**meta, "case_number": "ערר 5/25"})
    assert report.ingested == 0
    assert "LEGAL_AI_COMMITTEE_CHAIR" in report.failed[0]["error"]
    with app.store.pool.connection() as conn:
        assert conn.execute("SELECT count(*) AS n FROM case_law").fetchone()["n"] == 1


def test_bad_inputs_fail_alone_and_leave_no_rows(app, tmp_path):
    good = write(tmp_path / "good.txt", DECISION)
    empty = write(tmp_path / "empty.txt", "")
    latin = write(tmp_path / "latin.txt", "façade très naïve " * 20, "latin-1")
    corrupt = write(tmp_path / "bad.pdf", "%PDF-1.7 truncated")
    meta = {"case_number": "ערר 5/25", "practice_area": "planning"}
    report = app.ingest([empty, latin, corrupt, good], "case", meta=meta)
    assert report.ingested == 1
    failed = {f["path"].rsplit("/", 1)[-1]: f["error"] for f in report.failed}
    assert set(failed) == {"empty.txt", "latin.txt", "bad.pdf"}
    assert "the file is empty" in failed["empty.txt"]
    assert "save it as UTF-8" in failed["latin.txt"]
    assert "corrupt or truncated" in failed["bad.pdf"]
    assert counts(app, "documents") == 1


def test_duplicate_upload_is_refused_and_changes_nothing(app, tmp_path):
    meta = {"case_number": "ערר 6/25", "practice_area": "planning"}
    first = write(tmp_path / "a.txt", DECISION)
    app.ingest([first], "style", meta=meta)
    before = snapshot(app)
    copy = write(tmp_path / "b.txt", DECISION)
    report = app.ingest([copy], "style", meta=meta)
    assert report.ingested == 0
    assert (
        "duplicate upload" in report.failed[0]["error"]
        and f"/{tmp_path.name}/a.txt'" in report.failed[0]["error"]
    )
    assert snapshot(app) == before


def test_sql_and_nul_bytes_are_just_text(app, tmp_path):
    nasty = "שלום'); DROP TABLE documents; --\x00 עולם " + DECISION
    path = write(tmp_path / "nasty.txt", nasty)
    report = app.ingest([path], "case", meta={"case_number": "ערר 7/25'; --", "practice_area": "x"})
    assert report.ingested == 1
    with app.store.pool.connection() as conn:
        row = conn.execute("SELECT content, case_number FROM documents").fetchone()
    assert "DROP TABLE documents" in row["content"] and "\x00" not in row["content"]
    assert row["case_number"] == "ערר 7/25'; --"


def test_unknown_corpus_and_bad_date_are_clear(app, tmp_path):
    path = write(tmp_path / "x.txt", DECISION)
    with pytest.raises(InvalidInput, match="unknown corpus 'rulings'; choose one of"):
        app.ingest([path], "rulings")
    report = app.ingest([path], "internal", meta={"decided_on": "12/2024"})
    assert "decided_on='12/2024' is not a date; write it as YYYY-MM-DD" in report.failed[0]["error"]


def test_jsonl_records_with_per_line_errors(app, tmp_path):
    lines = [
        {
            "doc_id": "r1",
            "title": "ת1",
            "text": "ערר על היטל השבחה",
            "court": "מחוזי",
            "case_number": 'עמ"נ 1/20',
            "decided_on": "2020-05-05",
            "doc_type": "ruling",
            "judges": "א, ב",
        },
        {"title": "no id", "text": "x"},
        "not json",
        {
            "doc_id": "r3",
            "title": "reference",
            "text": "מאמר על שימוש חורג",
            "doc_type": "reference",
        },
    ]
    path = tmp_path / "records.jsonl"
    path.write_text(
        "\n".join(x if isinstance(x, str) else json.dumps(x, ensure_ascii=False) for x in lines),
        encoding="utf-8",
    )
    report = app.ingest([path], "external")
    assert report.ingested == 2 and report.unsearchable == []
    errors = [f["error"] for f in report.failed]
    assert any(":2: the record has no doc_id" in e for e in errors)
    assert any(":3: not valid JSON" in e for e in errors)
    with app.store.pool.connection() as conn:
        row = conn.execute("SELECT judges, metadata FROM case_law WHERE doc_id = 'r1'").fetchone()
    assert row["judges"] == ["א", "ב"]


def test_akoma_ntoso_sections_are_searchable_with_locators(app):
    report = app.ingest([FIXTURES / "mini-law.xml"], "external")
    assert report.ingested == 2 and report.unsearchable == []
    hits = app.search("external", "תוך כמה ימים מגישים ערר", limit=1).hits
    assert hits[0]["doc_id"] == "990001#point_2"
    assert hits[0]["section"] == "point_2"
    bad = app.ingest([FIXTURES / "mini-law.xml"], "style")
    assert "legislation belongs in the external corpus" in bad.failed[0]["error"]


def test_image_only_pdf_is_stored_as_needing_ocr(app, tmp_path):
    pdf = factories.image_only_pdf(tmp_path / "scanned-image-only.pdf")
    report = app.ingest(
        [pdf], "style", meta={"case_number": "ערר 8/25", "practice_area": "planning"}
    )
    assert report.unsearchable[0]["missing"] == [
        "text: image-only PDF (no text layer): queued for OCR; `legal-ai worker` or "
        "`legal-ai ocr run` reads it"
    ]  # ingest/test_ocr.py: the queue reads it


def test_pdf_chunks_carry_pages_that_resolve(app, tmp_path):
    record = factories.records()[0]
    pdf = factories.decision_pdf(tmp_path / "final.pdf", record["final_text"], pages=3)
    pages_resolve(app, pdf, record["case_number"], pages=3)


@pytest.mark.shared
def test_the_shared_pdf_chunks_carry_pages_that_resolve(app):
    pdf = shared("synthetic-decisions", "documents", "arar-merkaz-1042-23.final.pdf")
    pages_resolve(app, pdf, "ערר (מרכז) 1042/23", pages=7)


def pages_resolve(app, pdf, case: str, pages: int) -> None:
    """Every page has chunks, and each chunk's page holds its span of the stored text."""
    app.ingest([pdf], "style", meta={"case_number": case, "practice_area": "planning"})
    with app.store.pool.connection() as conn:
        doc = conn.execute("SELECT content, page_starts FROM documents").fetchone()
        chunks = conn.execute(
            "SELECT page, char_start, char_end, text FROM document_chunks"
        ).fetchall()
    assert {c["page"] for c in chunks} == set(range(1, pages + 1))
    starts = doc["page_starts"] + [len(doc["content"])]
    for c in chunks:
        assert doc["content"][c["char_start"] : c["char_end"]] == c["text"]
        assert starts[c["page"] - 1] <= c["char_start"] < c["char_end"] <= starts[c["page"]]


def test_statute_sections_as_items(app):
    """A law's sections given as items, as bench/ingest.py loads the whole Planning and
    Building Law: a repeated eId and a schedule's section each stay an item of their own."""
    report = ingest_sections(app, FIXTURES / "mini-law-schedule.xml")
    assert report.ingested == 5 and report.unsearchable == []
    health = health_of(app)
    assert health["stale_embeddings"] == 0 and health["missing_embeddings"] == 0
    hits = app.search("external", "תביעת פיצויים בשל פגיעה על ידי תכנית", limit=3).hits
    assert hits[0]["doc_id"] == "990002#point_2"
    hits = app.search("external", "מי קובע את שומת ההשבחה ותוך כמה ימים עוררים", limit=3).hits
    assert hits[0]["doc_id"] == "990002#appendix_ראשונה__point_1"


def ingest_sections(app, law, wanted: set[str] | None = None):
    from legal_ai.corpora import get_corpus
    from legal_ai.ingest import Ingestor
    from legal_ai.ingest.sources import IngestItem
    from legal_ai.text.akn import parse_law

    items = [
        IngestItem(
            doc_id=s["doc_id"],
            text=s["text"],
            source_path=str(law),
            source_format="akn",
            doc_type="legislation",
            fields={k: s[k] for k in ("title", "law_title", "section_num", "eid")},
            metadata=s["metadata"],
        )
        for s in parse_law(law)
        if wanted is None or s["eid"] in wanted
    ]
    return Ingestor.of(app).ingest_items(items, get_corpus("external"))


@pytest.mark.shared
def test_statutes_subset_from_shared_data(app):
    """A slice of the Planning and Building Law (the whole law is in bench/ingest.py)."""
    law = shared(
        "il-laws-akn",
        "akn",
        "il",
        "act",
        "PrimaryLegislation",
        "1965-08-12",
        "148917",
        "he@",
        "main.xml",
    )
    report = ingest_sections(app, law, {"point_197", "point_198", "point_152", "point_149"})
    assert report.ingested == 4 and report.unsearchable == []
    health = health_of(app)
    assert health["stale_embeddings"] == 0 and health["missing_embeddings"] == 0
    hits = app.search("external", "תביעת פיצויים בשל פגיעה על ידי תכנית", limit=3).hits
    assert hits[0]["doc_id"] == "148917#point_197"


def test_changing_the_embedder_makes_chunks_stale_until_reindex(app, session_app, tmp_path):
    path = write(tmp_path / "d.txt", DECISION)
    app.ingest([path], "style", meta={"case_number": "ערר 9/25", "practice_area": "planning"})

    class Tiny:
        """A deterministic 384-d stand-in for a second embedder."""

        id, dim = "tiny-test", 384

        def embed_passages(self, texts):
            rng = [np.random.default_rng(len(t)).standard_normal(384) for t in texts]
            return np.asarray([v / np.linalg.norm(v) for v in rng], dtype=np.float32)

        def embed_query(self, text):
            return self.embed_passages([text])[0]

        def count_tokens(self, text):
            return len(text.split())

    other = App(app.settings, store=app.store, embedder=Tiny())
    _ = other.embedder  # records tiny-test as the active embedder
    health = health_of(other)
    assert health["stale_embeddings"] > 0 and health["unsearchable"] == 1
    assert other.reindex()["reembedded"] == health["stale_embeddings"]
    after = health_of(other)
    assert after["stale_embeddings"] == 0 and after["unsearchable"] == 0
    assert other.search("style", "הקלה", mode="semantic").hits


def test_two_processes_ingest_the_same_file(app, tmp_path, cli_env):
    path = write(tmp_path / "same.txt", DECISION)
    cmd = [
        sys.executable,
        "-m",
        "legal_ai.cli",
        "ingest",
        str(path),
        "--corpus",
        "case",
        "--case-number",
        "ערר 10/25",
        "--practice-area",
        "planning",
        "--json",
    ]
    procs = [
        subprocess.Popen(
            cmd, env=cli_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    reports = [json.loads(o[0]) for o in outs]
    assert sorted((r["ingested"], r["unchanged"]) for r in reports) == [(0, 1), (1, 0)]
    assert counts(app, "documents") == 1


def _lexicon(conn) -> tuple:
    terms = conn.execute(
        "SELECT source, term, df FROM lexicon WHERE df > 0 ORDER BY 1, 2"
    ).fetchall()
    sizes = conn.execute("SELECT source, units, tokens FROM lexicon_size ORDER BY 1").fetchall()
    return [tuple(r.values()) for r in terms], [tuple(r.values()) for r in sizes]


def test_the_lexicon_follows_replaced_and_reanalyzed_chunks(app, session_app, tmp_path, e5):
    """Document frequencies and unit/token counts equal a rebuild from the chunks after a
    changed re-ingest (chunks deleted and inserted) and after a re-analysis (reindex)."""
    meta = {"title": "t", "court": "העליון", "decided_on": "2020-01-01", "case_number": 'ע"א 1/20'}
    path = tmp_path / "x.txt"
    for text in ("היטל השבחה על מימוש זכויות", "פיצויים לפי סעיף 197 בשל פגיעה מתכנית"):
        write(path, text)
        assert app.ingest([path], "external", meta=meta, doc_id="x").ingested == 1
    with app.store.pool.connection() as conn:
        kept = _lexicon(conn)
        assert ("case_law_chunks_external_upload", 1) in [s[:2] for s in kept[1]]
        assert "היטל" not in {t[1] for t in kept[0]} and "תכנית" in {t[1] for t in kept[0]}
        conn.execute("SELECT lexicon_rebuild()")
        assert _lexicon(conn) == kept
    plain = App(
        session_app.settings.model_copy(update={"analyzer": "he-plain-v1"}),
        store=app.store,
        embedder=e5,
    )
    assert plain.reindex()["reanalyzed"] == 1
    with app.store.pool.connection() as conn:
        reanalyzed = _lexicon(conn)
        assert "תכנית" not in {t[1] for t in reanalyzed[0]}  # he-plain-v1 keeps מתכנית whole
        conn.execute("SELECT lexicon_rebuild()")
        assert _lexicon(conn) == reanalyzed


def test_one_batch_naming_a_document_twice_ends_with_its_last_version(app):
    """Items are staged one ahead of the write (ingest/pipeline.py): the second and third
    versions of `A` are staged before the first is written, and the write still decides by
    what is stored — a changed text replaces the chunks, the same text again is unchanged."""
    from legal_ai.corpora import get_corpus
    from legal_ai.ingest import Ingestor
    from legal_ai.ingest.sources import IngestItem

    changed = DECISION.replace("להידחות", "להתקבל")

    def item(doc_id: str, text: str) -> IngestItem:
        return IngestItem(
            doc_id=doc_id,
            text=text,
            source_path=f"{doc_id}.txt",
            source_format="txt",
            doc_type="reference",
            fields={"title": doc_id},
            metadata={},
        )

    batch = [item("A", DECISION), item("B", DECISION), item("A", changed), item("A", changed)]
    report = Ingestor.of(app).ingest_items(batch, get_corpus("external"))
    assert (report.ingested, report.unchanged, report.failed) == (3, 1, [])
    with app.store.pool.connection() as conn:
        stored = conn.execute(
            "SELECT i.content, string_agg(c.text, ' ' ORDER BY c.ordinal) AS chunks,"
            " bool_and(c.text = substr(i.content, c.char_start + 1, c.char_end - c.char_start))"
            " AS spans_resolve FROM case_law i JOIN case_law_chunks c ON c.case_law_id = i.id"
            " WHERE i.doc_id = 'A' GROUP BY i.content"
        ).fetchall()
    assert len(stored) == 1 and stored[0]["content"] == changed and stored[0]["spans_resolve"]
    assert "להתקבל" in stored[0]["chunks"] and "להידחות" not in stored[0]["chunks"]
    assert app.search("external", "דין הערר להתקבל", limit=1).hits[0]["doc_id"] == "A"
    # Back to the first text: its staging reads the store while the write before it commits, so
    # it may see its own text still stored and skip the chunks; the write then finds the text
    # moved on and stages it in full instead of failing.
    for _ in range(3):
        again = Ingestor.of(app).ingest_items(
            [item("A", DECISION), item("A", changed)], get_corpus("external")
        )
        assert (again.ingested, again.failed) == (2, [])


def test_reindex_mends_a_mixed_batch_in_one_statement(app, tmp_path):
    """One reindex batch holding a chunk to re-embed, one to re-analyze and one to leave: each
    gets exactly what it needs, and the item is searchable again afterwards."""
    from legal_ai.store.items import as_array

    write(tmp_path / "d.txt", DECISION + "\n" + DECISION.replace("הקלה", "שימוש חורג") * 6)
    meta = {"title": "t", "court": "העליון", "decided_on": "2020-01-01", "case_number": 'ע"א 2/20'}
    app.ingest([tmp_path / "d.txt"], "external", meta=meta, doc_id="d")
    with app.store.transaction() as conn:
        ids = [r["id"] for r in conn.execute("SELECT id FROM case_law_chunks ORDER BY ordinal")]
        assert len(ids) >= 3
        before = conn.execute(
            "SELECT embedding, analyzed FROM case_law_chunks WHERE id = %s", (ids[2],)
        ).fetchone()
        conn.execute(
            "UPDATE case_law_chunks SET embedding = NULL, embedder = NULL WHERE id = %s", (ids[0],)
        )
        conn.execute(
            "UPDATE case_law_chunks SET analyzer = 'old', analyzed = 'x' WHERE id = %s", (ids[1],)
        )
    assert health_of(app)["unsearchable"] == 0  # two chunks still embedded
    assert app.reindex()["chunks"] == {"reembedded": 1, "reanalyzed": 1}
    with app.store.pool.connection() as conn:
        rows = {
            r["id"]: r
            for r in conn.execute(
                "SELECT id, embedding, embedder, embedded_hash = text_hash AS fresh, analyzed, analyzer"
                " FROM case_law_chunks"
            )
        }
    assert rows[ids[0]]["embedder"] == app.embedder.id and rows[ids[0]]["fresh"]
    assert rows[ids[1]]["analyzer"] == app.analyzer.id and rows[ids[1]]["analyzed"] != "x"
    assert rows[ids[2]]["analyzed"] == before["analyzed"]
    assert (as_array(rows[ids[2]]["embedding"]) == as_array(before["embedding"])).all()
    health = health_of(app)
    assert health["stale_embeddings"] == health["missing_embeddings"] == health["unsearchable"] == 0
    again = app.reindex()
    assert (again["reembedded"], again["reanalyzed"]) == (0, 0)


def test_a_rulings_binding_level_is_derived_from_its_court_or_its_proceeding(app, tmp_path):
    """07 INV-LRN7 at ingest: a ruling that does not say whether it binds gets it from its court,
    or from its case number's proceeding type; one that says keeps what it says."""
    cases = {
        "supreme-by-number": ({"case_number": 'עע"מ 1234/05'}, True),
        "district-by-court": ({"court": "בית המשפט המחוזי בחיפה", "case_number": "1/20"}, True),
        "magistrate": ({"court": "בית משפט השלום בחיפה", "case_number": "2/20"}, False),
        "committee-by-number": ({"case_number": "ערר (מרכז) 1042/23"}, False),
        "unknown": ({"case_number": 'ת"א 5/20'}, False),  # no guess: the default
        "said-so": ({"case_number": 'בג"ץ 55/20', "is_binding": "false"}, False),
    }
    for doc_id, (meta, _) in cases.items():
        path = write(tmp_path / f"{doc_id}.txt", DECISION + f"\n{doc_id}\n")
        report = app.ingest([path], "external", meta={"title": doc_id, **meta}, doc_id=doc_id)
        assert report.ingested == 1, report.failed
    with app.store.connection() as conn:
        stored = {
            r["doc_id"]: r["is_binding"]
            for r in conn.execute("SELECT doc_id, is_binding FROM case_law").fetchall()
        }
    assert stored == {doc_id: binding for doc_id, (_, binding) in cases.items()}
