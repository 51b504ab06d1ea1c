"""Upkeep of the units besides chunks (issue 13 item 5): principles, the chair's attached
precedents, canonical statements and page images are counted by `health` and mended by `reindex`
like chunks — stale after an embedder change, re-embedded exactly once, re-analyzed after an
analyzer change, and searchable again afterwards."""

import re
import uuid

import numpy as np
import pytest

import factories
from helpers import DECISION_FIELDS, write
from legal_ai.app import App
from legal_ai.auth import CHAIR, system_principal
from legal_ai.ingest.metadata_fold import semantic_meta, semantic_text
from scenarios import ScriptedMultimodal

pytestmark = pytest.mark.db

RULE = "סטייה ניכרת מתכנית אינה ניתנת לאישור בדרך של הקלה"
QUOTE = "סטייה ניכרת מתכנית אינה ניתנת לאישור בדרך של הקלה, ועל הוועדה המקומית לסרב לבקשה"
RULING = (
    "פסק דין. העותרת ביקשה היתר בנייה לתוספת קומה. "
    + QUOTE
    + ". לפיכך העתירה נדחית, והעותרת תישא בהוצאות המשיבה."
)
INTERNAL_RULE = "ועדת הערר בוחנת את שיקול דעת הוועדה המקומית ואינה מחליפה אותו"
INTERNAL_QUOTE = "אין ועדת הערר מחליפה את שיקול דעתה של הוועדה המקומית"
DECISION = (
    "החלטה. הערר הוגש על החלטת הוועדה המקומית לדחות בקשה להקלה. "
    + INTERNAL_QUOTE
    + ", אלא בוחנת אם נפל בו פגם. הערר נדחה."
)
CASE = "ערר 77/25"
CITATION = 'עע"מ 1234/05'
STATEMENT = "אין לאשר סטייה ניכרת מתכנית בדרך של הקלה"


class Counting:
    """A deterministic 384-d stand-in for a second embedder that records what it is sent (an
    id of its own per test: the embedding cache outlives a test). A text embeds by its length
    alone, so a query equal to a unit's text finds it first."""

    dim = 384

    def __init__(self) -> None:
        self.id = f"upkeep-{uuid.uuid4().hex[:8]}"
        self.sent: list[str] = []

    @staticmethod
    def _vectors(texts):
        rng = [np.random.default_rng(len(t)).standard_normal(384) for t in texts]
        return np.asarray([v / np.linalg.norm(v) for v in rng], dtype=np.float32)

    def embed_passages(self, texts):
        self.sent.extend(texts)
        return self._vectors(texts)

    def embed_query(self, text):  # queries are not recorded
        return self._vectors([text])[0]

    def count_tokens(self, text):
        return len(text.split())


def library(app, tmp_path) -> dict:
    """An external ruling with an approved principle, an internal decision with a proposed one,
    a case with an attached precedent, and two canonical principles: one whose synthesized
    statement is embedded, one with its source wording only (no embedding needed)."""
    ruling = write(tmp_path / "ruling.txt", RULING)
    assert (
        app.ingest(
            [ruling],
            "external",
            doc_id="ruling-1",
            meta={
                "title": "פסק דין",
                "case_number": CITATION,
                "court": "בית המשפט העליון",
                "is_binding": True,
                "practice_area": "planning",
                "decided_on": "2005-03-01",
            },
        ).ingested
        == 1
    )
    decision = write(tmp_path / "decision.txt", DECISION)
    assert (
        app.ingest(
            [decision],
            "internal",
            doc_id="decision-1",
            meta={
                "title": "החלטה",
                "case_number": "ערר (מרכז) 1042/23",
                "practice_area": "planning",
                "decided_on": "2024-03-01",
                **DECISION_FIELDS,
            },
        ).ingested
        == 1
    )
    protocol = write(tmp_path / "protocol.txt", "פרוטוקול דיון: הוחלט לערוך סיור במקום.")
    app.ingest([protocol], "case", meta={"case_number": CASE, "practice_area": "planning"})
    chair = app.acting_as(CHAIR)
    approved = chair.add_principle("external", "ruling-1", RULE, QUOTE, review_status="approved")
    proposed = app.add_principle("internal", "decision-1", INTERNAL_RULE, INTERNAL_QUOTE)
    precedent = app.attach_precedent(CASE, CITATION, note="סטייה ניכרת")
    vector = app.embedder.embed_passages([STATEMENT])[0]
    with app.store.transaction() as conn:
        synthesized = conn.execute(
            "INSERT INTO canonical_principles (source_kind, rule_text) VALUES"
            " ('external_upload', %s) RETURNING id",
            (RULE,),
        ).fetchone()["id"]
        conn.execute(
            "UPDATE case_law_principles SET canonical_id = %s WHERE id = %s",
            (synthesized, approved),
        )
    # as the synthesizer (the worker's stage) writes it: pending_synthesis -> pending_review
    with app.acting_as(system_principal("canonical-synthesizer")).store.transaction() as conn:
        conn.execute(
            "UPDATE canonical_principles SET status = 'pending_review', canonical_statement = %s,"
            " grounded = true, embedding = %s, embedder = %s WHERE id = %s",
            (STATEMENT, vector, app.embedder.id, synthesized),
        )
    with app.store.transaction() as conn:
        source_only = conn.execute(
            "INSERT INTO canonical_principles (source_kind, rule_text) VALUES"
            " ('internal_committee', %s) RETURNING id",
            (INTERNAL_RULE,),
        ).fetchone()["id"]
        conn.execute(
            "UPDATE case_law_principles SET canonical_id = %s WHERE id = %s",
            (source_only, proposed),
        )
    return {
        "approved": approved,
        "proposed": proposed,
        "precedent": precedent["id"],
        "canonical": synthesized,
        "source_only": source_only,
    }


def stale(units: dict) -> dict:
    """(corpus, kind) -> (stale, missing, stale analysis), for the kinds with something to do."""
    return {
        (corpus, kind): (c["stale_embeddings"], c["missing_embeddings"], c["stale_analysis"])
        for corpus, kinds in units.items()
        for kind, c in kinds.items()
        if c["stale_embeddings"] or c["missing_embeddings"] or c["stale_analysis"]
    }


def principle_hits(legal, corpus, query):
    hits = legal.search(corpus, query, mode="semantic", limit=20).hits
    return [h for h in hits if h["kind"] == "principle"]


def test_an_embedder_change_makes_the_units_stale_until_reindex(app, tmp_path):
    ids = library(app, tmp_path)
    clean = app.health()
    assert stale(clean["units"]) == {} and clean["stale_embeddings"] == 0
    assert clean["units"]["external"]["principles"]["units"] == 1
    assert clean["units"]["internal"]["principles"]["units"] == 1
    assert clean["units"]["case_precedents"]["precedents"]["units"] == 1
    assert clean["units"]["external"]["canonical_statements"]["units"] == 1
    assert clean["units"]["internal"]["canonical_statements"]["units"] == 1
    assert clean["units"]["style"]["page_images"] == {
        "units": 0,
        "missing_embeddings": 0,
        "stale_embeddings": None,
        "dimension_mismatches": None,
        "stale_analysis": None,
        "unchecked": 0,
    }
    assert clean["image_embedder"] is None
    assert [h["principle_id"] for h in principle_hits(app, "external", RULE)] == [ids["approved"]]

    model = Counting()
    other = App(app.settings, store=app.store, embedder=model)
    _ = other.embedder  # records the second embedder as the one in force
    health = other.health()
    chunks = sum(c["stale_embeddings"] for c in health["corpora"].values())
    assert chunks > 0
    # the two principles, the precedent and the embedded canonical statement; the canonical
    # that has only its source wording has no embedding to go stale
    assert stale(health["units"]) == {
        ("external", "principles"): (1, 0, 0),
        ("internal", "principles"): (1, 0, 0),
        ("case_precedents", "precedents"): (1, 0, 0),
        ("external", "canonical_statements"): (1, 0, None),
    }
    assert health["stale_embeddings"] == chunks + 4
    assert principle_hits(other, "external", RULE) == []  # a stale principle is not searched

    result = other.reindex()
    assert result["principles"] == {"reembedded": 2, "reanalyzed": 0}
    assert result["precedents"] == {"reembedded": 1, "reanalyzed": 0}
    assert result["canonical_statements"] == {"reembedded": 1}
    assert result["chunks"] == {"reembedded": chunks, "reanalyzed": 0}
    assert result["page_images"] == {"reembedded": 0, "skipped": 0, "reason": None}
    assert result["reembedded"] == health["stale_embeddings"] and result["reanalyzed"] == 0
    # exactly those texts, each sent once (no text twice in one run)
    assert len(model.sent) == len(set(model.sent))
    with app.store.connection() as conn:
        precedent_text = conn.execute(
            "SELECT search_text FROM case_precedents WHERE id = %s", (ids["precedent"],)
        ).fetchone()["search_text"]
        principles = conn.execute(
            "SELECT id, rule_text, supporting_quote, review_status, embedder,"
            " embedded_hash = text_hash AS fresh FROM case_law_principles ORDER BY id"
        ).fetchall()
        canonicals = {
            r["id"]: r
            for r in conn.execute(
                "SELECT id, embedder, embedding IS NOT NULL AS embedded FROM canonical_principles"
            )
        }
        # a decision's first chunk is embedded as a chunk, then again with its headnote, tags
        # and summary (0041): the fold after the chunks (one more embedding per decision)
        rows = list(
            conn.execute(
                "SELECT text, ordinal, NULL AS headnote, NULL AS summary, NULL::text[] AS tags"
                " FROM document_chunks UNION ALL SELECT c.text, c.ordinal, l.headnote, l.summary,"
                " l.tags FROM case_law_chunks c JOIN case_law l ON l.id = c.case_law_id"
            )
        )
        chunk_texts = {r["text"] for r in rows} | {
            semantic_text(r["text"], semantic_meta(r["headnote"], r["summary"], r["tags"]))
            for r in rows
            if r["ordinal"] == 0
        }
    assert set(model.sent) == chunk_texts | {RULE, INTERNAL_RULE, precedent_text, STATEMENT}
    assert [(p["rule_text"], p["supporting_quote"], p["review_status"]) for p in principles] == [
        (RULE, QUOTE, "approved"),
        (INTERNAL_RULE, INTERNAL_QUOTE, "proposed"),
    ]
    assert all(p["embedder"] == model.id and p["fresh"] for p in principles)
    assert canonicals[ids["canonical"]]["embedder"] == model.id
    assert not canonicals[ids["source_only"]]["embedded"]

    after = other.health()
    assert stale(after["units"]) == {}
    assert after["stale_embeddings"] == after["missing_embeddings"] == after["unsearchable"] == 0
    assert [h["principle_id"] for h in principle_hits(other, "external", RULE)] == [ids["approved"]]
    found = other.search("case_precedents", CITATION, mode="semantic").hits
    assert [h["precedent_id"] for h in found] == [ids["precedent"]]
    sent = len(model.sent)
    again = other.reindex()
    assert (again["reembedded"], again["reanalyzed"]) == (0, 0) and len(model.sent) == sent


def test_an_analyzer_change_reanalyzes_principles_and_precedents(app, tmp_path, e5):
    ids = library(app, tmp_path)
    plain = App(
        app.settings.model_copy(update={"analyzer": "he-plain-v1"}), store=app.store, embedder=e5
    )

    def lexical_principles() -> list:
        hits = plain.search("external", "סטייה", mode="lexical", limit=20).hits
        return [h["principle_id"] for h in hits if h["kind"] == "principle"]

    # he-plain-v1 keeps סטייה as written; the old analysis folded it to סטיה: no match yet
    assert lexical_principles() == []
    health = plain.health()
    assert {k: v for k, v in stale(health["units"]).items() if k[1] != "page_images"} == {
        ("external", "principles"): (0, 0, 1),
        ("internal", "principles"): (0, 0, 1),
        ("case_precedents", "precedents"): (0, 0, 1),
    }
    result = plain.reindex()
    assert result["principles"] == {"reembedded": 0, "reanalyzed": 2}
    assert result["precedents"] == {"reembedded": 0, "reanalyzed": 1}
    assert result["canonical_statements"] == {"reembedded": 0}
    assert result["reembedded"] == 0 and plain.embedder.calls == 0  # analysis only
    with app.store.connection() as conn:
        rows = conn.execute(
            "SELECT rule_text, analyzer, analyzed FROM case_law_principles ORDER BY id"
        ).fetchall()
    assert [r["analyzer"] for r in rows] == ["he-plain-v1", "he-plain-v1"]
    assert rows[0]["rule_text"] == RULE and rows[0]["analyzed"] == plain.analyzer.analyze(RULE)
    assert stale(plain.health()["units"]) == {}
    assert lexical_principles() == [ids["approved"]]


def images_sent() -> int:
    return sum(
        1
        for request in ScriptedMultimodal.requests
        for item in request["inputs"]
        if item["content"][0]["type"] == "image_base64"
    )


def test_page_images_follow_the_image_embedder(app, settings, multimodal_url, tmp_path):
    record = factories.records()[0]
    # Pages no other test renders (the embedding cache is kept across tests, and a page image
    # another test embedded would not be sent again): each page starts with this test's mark.
    pages = [
        f"דף {n} של בדיקת התחזוקה\n\n{text}"
        for n, text in enumerate(record["final_text"].strip().split("\n\n")[:4], 1)
    ]
    pdf = factories.hebrew_pdf(tmp_path / "final.pdf", pages)
    enabled = settings.model_copy(
        update={
            "multimodal_enabled": True,
            "voyage_api_key": "k",
            "voyage_base_url": multimodal_url,
        }
    )
    legal = App(enabled, store=app.store, embedder=app.embedder.inner)
    meta = {"case_number": record["case_number"], "practice_area": "planning"}
    assert legal.ingest([pdf], "style", meta=meta).ingested == 1
    assert images_sent() == 4
    health = legal.health()
    assert health["image_embedder"] == {"embedder": "voyage-multimodal", "dim": 1024}
    assert health["units"]["style"]["page_images"] == {
        "units": 4,
        "missing_embeddings": 0,
        "stale_embeddings": 0,
        "dimension_mismatches": 0,
        "stale_analysis": None,
        "unchecked": 0,
    }

    def page_hits() -> list:
        hits = legal.search("style", "page 3", limit=40, mode="semantic", cap=40).hits
        return [h for h in hits if h["kind"] == "page"]

    def age() -> None:  # as if an earlier image model had embedded them
        with app.store.transaction() as conn:
            conn.execute("UPDATE document_page_images SET embedder = 'older-multimodal'")

    assert page_hits()
    age()
    health = legal.health()
    assert health["units"]["style"]["page_images"]["stale_embeddings"] == 4
    assert health["stale_embeddings"] == 4 and page_hits() == []
    # the embedding cache holds every page's vector under the image embedder: no model call
    result = legal.reindex()
    assert result["page_images"] == {"reembedded": 4, "skipped": 0, "reason": None}
    assert result["reembedded"] == 4 and images_sent() == 4
    assert legal.health()["stale_embeddings"] == 0 and page_hits()[0]["page"] == 3

    # without the cache the PDF is rendered again and only its pages are sent, once each
    age()
    with app.store.transaction() as conn:
        conn.execute("DELETE FROM embedding_cache WHERE embedder = 'voyage-multimodal'")
    assert legal.reindex()["page_images"]["reembedded"] == 4 and images_sent() == 8
    assert legal.health()["units"]["style"]["page_images"]["stale_embeddings"] == 0

    # a file no longer there: counted as skipped, with what to do
    age()
    with app.store.transaction() as conn:
        conn.execute("DELETE FROM embedding_cache WHERE embedder = 'voyage-multimodal'")
    pdf.unlink()
    skipped = legal.reindex()["page_images"]
    assert skipped["reembedded"] == 0 and skipped["skipped"] == 4
    assert "re-ingest" in skipped["reason"] and str(pdf) in skipped["reason"]
    assert legal.health()["units"]["style"]["page_images"]["stale_embeddings"] == 4

    # no image embedder configured: counted, not checked, not re-embedded
    plain = App(settings, store=app.store, embedder=app.embedder.inner)
    health = plain.health()
    assert health["image_embedder"] is None
    assert health["units"]["style"]["page_images"]["unchecked"] == 4
    assert health["units"]["style"]["page_images"]["stale_embeddings"] is None
    assert health["stale_embeddings"] == 0
    result = plain.reindex()["page_images"]
    assert result["reembedded"] == 0 and result["skipped"] == 4
    assert "MULTIMODAL_ENABLED" in result["reason"]


def test_the_desk_health_page_shows_the_units(app, tmp_path):
    from fastapi.testclient import TestClient

    from helpers import PASSWORD, sign_in
    from legal_ai import accounts
    from legal_ai.web.app import create_app

    library(app, tmp_path)
    with app.store.transaction() as conn:  # as if an earlier embedder had embedded them
        conn.execute(
            "UPDATE case_law_principles SET embedder = 'older' WHERE source_kind ="
            " 'external_upload'"
        )
    accounts.set_password(app, "chair", PASSWORD)
    settings = app.settings.model_copy(update={"chair_token": "s3cret-chair-token"})
    with TestClient(create_app(settings, legal=app)) as client:
        assert sign_in(client).status_code == 303
        page = client.get("/health/technical")
    assert page.status_code == 200 and '<html lang="he" dir="rtl">' in page.text
    units = page.text.split('<table class="units">')[1].split("</table>")[0]
    units = re.sub(r"</?bdi>", "", units)  # the numbers are isolated in <bdi>
    # corpus, kind, units, missing, stale, dimension, stale analysis, unchecked
    rows = re.findall(r"<tr>((?:<td>[^<]*</td>)+)</tr>", units)
    cells = [tuple(re.findall(r"<td>([^<]*)</td>", row)) for row in rows]
    assert ("פסיקה וחקיקה", "עקרונות משפטיים", "1", "0", "1", "0", "0", "—") in cells
    assert ("החלטות ועדות", "עקרונות משפטיים", "1", "0", "0", "0", "0", "—") in cells
    mine = "אסמכתאות שצירפתי לתיקים"
    assert (mine, mine, "1", "0", "0", "0", "0", "—") in cells
    assert ("פסיקה וחקיקה", "ניסוחים קנוניים", "1", "0", "0", "0", "—", "—") in cells
    assert ("החלטותיי", "תמונות עמודים", "0", "0", "—", "—", "—", "0") in cells
    assert "לא הוגדר מודל לחיפוש בתמונות העמודים" in page.text
    assert "MULTIMODAL_ENABLED is off" in page.text.split("פרטים טכניים")[-1]  # the details
    summary = page.text.split('<table class="summary">')[1].split("</table>")[0]
    summary = re.sub(r"</?bdi>", "", summary)
    assert "<tr><th>הטמעות מיושנות</th><td>1</td></tr>" in summary


def test_block_exemplars_follow_the_embedder(app, tmp_path):
    """The paragraphs of the chair's finals served as block exemplars are units too: stale after
    an embedder change, re-embedded once each by reindex, then clean."""
    record = factories.records()[0]
    final = write(tmp_path / "final.txt", record["final_text"])
    assert (
        app.ingest(
            [final],
            "style",
            doc_id="final-1",
            meta={
                "case_number": record["case_number"],
                "practice_area": "planning",
                "decided_on": "2024-05-01",
            },
        ).ingested
        == 1
    )
    with app.store.connection() as conn:
        paragraphs = conn.execute("SELECT count(*) AS n FROM block_exemplars").fetchone()["n"]
    assert paragraphs > 5
    assert app.health()["units"]["style"]["exemplars"]["stale_embeddings"] == 0
    model = Counting()
    other = App(app.settings, store=app.store, embedder=model)
    _ = other.embedder
    units = other.health()["units"]["style"]["exemplars"]
    assert (units["units"], units["stale_embeddings"]) == (paragraphs, paragraphs)
    result = other.reindex()
    assert result["exemplars"] == {"reembedded": paragraphs, "reanalyzed": 0}
    assert other.health()["units"]["style"]["exemplars"]["stale_embeddings"] == 0
    with app.store.connection() as conn:
        texts = [r["text"] for r in conn.execute("SELECT text FROM block_exemplars")]
    assert sorted(t for t in model.sent if t in set(texts)) == sorted(set(texts))
