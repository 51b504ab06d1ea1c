"""The optional image leg (MULTIMODAL_ENABLED), against a real local HTTP server that answers
like Voyage's multimodal endpoint: page images are ingested, searched as a weighted RRF channel,
kept inside their corpus, and off by default. The server is conftest.py's `multimodal_url`
(scenarios.ScriptedMultimodal)."""

import pytest

import factories
from helpers import DECISION_FIELDS
from legal_ai.app import App
from legal_ai.errors import ProviderError
from legal_ai.providers.multimodal import make_multimodal
from scenarios import ScriptedMultimodal

pytestmark = pytest.mark.db


def test_off_by_default_and_needs_a_key(settings):
    assert make_multimodal(settings) is None
    with pytest.raises(ProviderError, match="MULTIMODAL_ENABLED=true needs VOYAGE_API_KEY"):
        make_multimodal(settings.model_copy(update={"multimodal_enabled": True}))


def test_page_images_are_searched_as_a_weighted_channel(app, settings, multimodal_url, tmp_path):
    record = factories.records()[0]
    pdf = factories.decision_pdf(tmp_path / "final.pdf", record["final_text"], pages=4)
    case = record["case_number"]
    enabled = settings.model_copy(
        update={
            "multimodal_enabled": True,
            "voyage_api_key": "k",
            "voyage_base_url": multimodal_url,
        }
    )
    legal = App(enabled, store=app.store, embedder=app.embedder.inner)
    report = legal.ingest([pdf], "style", meta={"case_number": case, "practice_area": "planning"})
    assert report.ingested == 1
    sent = ScriptedMultimodal.requests
    assert sum(len(r["inputs"]) for r in sent) == 4 and sent[0]["input_type"] == "document"
    assert sent[0]["inputs"][0]["content"][0]["type"] == "image_base64"
    with app.store.pool.connection() as conn:
        pages = [
            r["page"] for r in conn.execute("SELECT page FROM document_page_images ORDER BY page")
        ]
        content = conn.execute("SELECT content FROM documents").fetchone()["content"]
    assert pages == [1, 2, 3, 4]
    # 'page 3' lands on image 3 in the scripted space: the image leg ranks page 3 first.
    # (a high cap: with the default of 3 per document, its chunks would fill the share)
    hits = legal.search("style", "page 3", limit=40, mode="semantic", cap=40).hits
    page_hits = [h for h in hits if h["kind"] == "page"]
    assert page_hits, [(h["kind"], h["explain"]) for h in hits]
    assert page_hits[0]["page"] == 3 and page_hits[0]["explain"]["image"]["rank"] == 1
    assert page_hits[0]["score"] == pytest.approx(0.5 / (enabled.rrf_k + 1), abs=1e-5)  # weight 0.5
    located = content[page_hits[0]["char_start"] : page_hits[0]["char_end"]]
    assert located.startswith(page_hits[0]["snippet"])
    lexical = legal.search("style", "page 3", mode="lexical", cap=10).hits
    assert not [h for h in lexical if h["kind"] == "page"]
    # the same PDF in the internal corpus: its images come from the cache, not the model
    before = len(ScriptedMultimodal.requests)
    legal.ingest(
        [pdf],
        "internal",
        meta={
            "case_number": case,
            "decided_on": record["decided_on"],
            "practice_area": "planning",
            "title": case,
            **DECISION_FIELDS,
        },
    )
    assert len(ScriptedMultimodal.requests) == before
    # each corpus sees only its own page images; the audit checks the image leg too
    for corpus, id_key in (("style", "document_id"), ("internal", "case_law_id")):
        found = legal.search(corpus, "page 3", limit=40, mode="semantic", cap=40).hits
        pages_found = [h for h in found if h["kind"] == "page"]
        assert pages_found and all(h["corpus"] == corpus and h[id_key] for h in pages_found)
    audit = legal.isolation_audit()
    assert audit["leaks"] == 0 and audit["legs"]["style/page/image"]["checked"] == 4
    assert audit["legs"]["internal/page/image"]["checked"] == 4
