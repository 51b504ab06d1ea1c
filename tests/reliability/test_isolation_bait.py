"""Isolation bait (INV-RET1) for every leg × every pair of corpora × every mode: the same bait
text — identical words, the same case number, the same statute section, the same page image — is
planted in every corpus (case, style, external, internal, digests, case_precedents), as chunks,
approved principles, page images and an attached precedent. Each corpus is then searched in each
mode, and every hit is checked through the root tables by its ids (store/audit.py
`foreign_units`, independent of the legs' SQL) to belong to the searched corpus; the legs that
must find the corpus's own bait are checked to have found it, so no check passes empty.

One ingest for the module. The image leg runs against a scripted local Voyage multimodal server
(as in tests/retrieval/test_image_leg.py): every page image and every text query embed to the same vector,
so each corpus's page images are all equally near and only the corpus scope can keep them apart.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from harness import CHAIR_NAME, own_database
from psycopg import sql

from factories import hebrew_pdf
from helpers import DECISION_FIELDS, ScriptedHandler, local_server
from legal_ai.app import App
from legal_ai.auth import CHAIR
from legal_ai.config import Settings
from legal_ai.corpora import SEARCHABLE
from legal_ai.retrieval import legs
from legal_ai.store.audit import foreign_units

pytestmark = [pytest.mark.db, pytest.mark.slow]

BAIT_CASE = "ערר (מרכז) 4343/24"
OTHER_CASE = "ערר (מרכז) 4344/24"  # a second case (find_similar_cases needs another case)
BAIT = (
    "פיתיון בידוד: הוועדה דנה בהקלה בקו בניין צדדי לפי סעיף 152 לחוק התכנון והבנייה, ובהחלטתה"
    " בערר (מרכז) 4343/24 קבעה כי היתר הבנייה יינתן רק לאחר פרסום כדין לשכנים."
)
QUOTE = "היתר הבנייה יינתן רק לאחר פרסום כדין לשכנים"
RULE = "הקלה בקו בניין צדדי לפי סעיף 152 מותנית בפרסום כדין לשכנים"
QUERIES = {
    # words, section and case number of the bait: semantic, lexical and reference legs
    "bait": "הקלה בקו בניין צדדי לפי סעיף 152 לחוק התכנון והבנייה בערר (מרכז) 4343/24",
    # what the image leg answers (every text query lands on the bait's page image)
    "page": "עמוד ההחלטה בדבר פרסום כדין",
}
MODES = ("hybrid", "semantic", "lexical")
PBL = 'חוק התכנון והבנייה, התשכ"ה-1965'


class ScriptedPages(ScriptedHandler):
    """Voyage's multimodal endpoint: page image number i (in order of first arrival) embeds as
    basis vector i, every text query as basis vector 0 (the first image: the bait page)."""

    images: dict[str, int] = {}

    def do_POST(self):
        import hashlib

        body = self.read_json()
        data = []
        for index, item in enumerate(body["inputs"]):
            part = item["content"][0]
            vector = np.zeros(1024)
            if part["type"] == "text":
                vector[0] = 1.0
            else:
                key = hashlib.sha256(part["image_base64"].encode()).hexdigest()
                vector[type(self).images.setdefault(key, len(type(self).images)) % 1024] = 1.0
            data.append({"object": "embedding", "index": index, "embedding": vector.tolist()})
        usage = {"text_tokens": 1, "image_pixels": 1, "video_pixels": 0, "total_tokens": 1}
        self.send_json({"object": "list", "data": data, "model": body["model"], "usage": usage})


def plant(app: App, folder) -> dict:
    """The bait in every corpus; returns the expected counts of bait units per corpus."""
    pdf = hebrew_pdf(folder / "bait.pdf", [BAIT])  # one page: the same image everywhere
    text, twin = folder / "bait.txt", folder / "bait-twin.txt"
    text.write_text(BAIT + "\n", encoding="utf-8")
    twin.write_text(
        BAIT + "\n\n", encoding="utf-8"
    )  # the same text (a corpus refuses one file twice)
    ruling = {"court": "העליון", "decided_on": "2019-06-01", "title": "פיתיון"}
    internal = {
        "decided_on": "2024-06-01",
        "practice_area": "planning",
        "title": "פיתיון",
        **DECISION_FIELDS,
    }
    section = {"eid": "point_152", "law_title": PBL, "section_num": "152"}
    items = [
        ("case", "bait-case", text, {"case_number": BAIT_CASE, "practice_area": "planning"}),
        ("case", "bait-case-other", twin, {"case_number": OTHER_CASE, "practice_area": "planning"}),
        ("case", "bait-case-pdf", pdf, {"case_number": BAIT_CASE, "practice_area": "planning"}),
        ("style", "bait-style", text, {"case_number": BAIT_CASE, "practice_area": "planning"}),
        ("style", "bait-style-pdf", pdf, {"case_number": BAIT_CASE, "practice_area": "planning"}),
        ("external", "bait-external", text, {**ruling, "case_number": BAIT_CASE}),
        (
            "external",
            "bait-external-law",
            twin,
            {**section, "doc_type": "legislation", "title": "סעיף 152"},
        ),
        ("external", "bait-external-pdf", pdf, {**ruling, "case_number": BAIT_CASE}),
        ("internal", "bait-internal", text, {**internal, **section, "case_number": BAIT_CASE}),
        ("internal", "bait-internal-pdf", pdf, {**internal, "case_number": BAIT_CASE}),
        ("digests", "bait-digest", text, {"points_to": BAIT_CASE, "title": "פיתיון"}),
    ]
    for corpus, doc_id, path, meta in items:
        report = app.ingest([path], corpus, meta=meta, doc_id=doc_id)
        assert report.ingested == 1 and not report.unsearchable, (doc_id, report.as_dict())
    chair = app.acting_as(CHAIR)
    for corpus, doc_id in (("external", "bait-external"), ("internal", "bait-internal")):
        principle = app.add_principle(corpus, doc_id, RULE, QUOTE)  # proposed, then the gate
        chair.review_principle(principle, "approve")
    app.attach_precedent(BAIT_CASE, BAIT_CASE, BAIT)
    with app.store.connection() as conn:
        pages = conn.execute(
            "SELECT (SELECT count(*) FROM document_page_images) + (SELECT count(*) FROM"
            " case_law_page_images) AS n"
        ).fetchone()["n"]
    assert pages == 4, "a page image in each of case, style, external, internal"


@pytest.fixture(scope="module")
def baited(server_url, e5, tmp_path_factory):
    folder = tmp_path_factory.mktemp("bait")
    ScriptedPages.images = {}
    with own_database(server_url, "bait") as url, local_server(ScriptedPages) as pages_url:
        settings = Settings(database_url=url, home=folder / "home", committee_chair=CHAIR_NAME)
        settings = settings.model_copy(
            update={
                "multimodal_enabled": True,
                "voyage_api_key": "k",
                "voyage_base_url": pages_url,
            }
        )
        with App(settings, embedder=e5) as app:
            plant(app, folder)
            yield app


def unit_ids(conn, corpus, hit: dict) -> tuple[object, list[int]]:
    """The source (chunks, principles, page images, precedents) and unit ids a hit names; a page
    hit names its item and page, so its image rows are looked up (in the root table)."""
    if hit["kind"] == "page":
        source = corpus.image_source
        item = hit["document_id"] if corpus.item_table == "documents" else hit["case_law_id"]
        query = sql.SQL("SELECT id FROM {} WHERE {} = %s AND page = %s").format(
            sql.Identifier(source.root), sql.Identifier(source.parent_column)
        )
        found = conn.execute(query, (item, hit["page"])).fetchall()
        return source, [r["id"] for r in found]
    source = next(s for s in corpus.sources if s.kind == hit["kind"])
    key = {"chunk": "chunk_id", "principle": "principle_id", "precedent": "precedent_id"}
    return source, [hit[key[hit["kind"]]]]


def expected_legs(corpus, mode: str, query: str) -> set[str]:
    """The legs that must find the corpus's own bait for this mode and query."""
    semantic, lexical = mode in ("hybrid", "semantic"), mode in ("hybrid", "lexical")
    found = set()
    if semantic:
        found.add("semantic")
        if corpus.image_source is not None and query == "page":
            found.add("image")
    if query == "bait":
        if lexical:
            found.add("lexical")
            if corpus.item_table == "case_law":
                found.add("reference")
        if corpus.principle_table is not None:
            found |= {f"principle_{leg}" for leg in ("semantic", "lexical") if leg in found}
    return found


def test_every_leg_of_every_corpus_in_every_mode_keeps_to_its_corpus(baited, capsys):
    app, checked, searches, legs_seen = baited, 0, 0, set()
    with app.store.connection() as conn:
        for key, corpus in SEARCHABLE.items():
            for mode in MODES:
                for name, query in QUERIES.items():
                    result = app.search(key, query, mode=mode, limit=100, cap=100)
                    searches += 1
                    assert result.hits, (key, mode, name)
                    contributed = set().union(*(h["explain"] for h in result.hits))
                    missing = expected_legs(corpus, mode, name) - contributed
                    assert not missing, f"{key}/{mode}/{name}: no hit from {missing}"
                    legs_seen |= {f"{key}/{leg}" for leg in contributed}
                    for hit in result.hits:
                        assert hit["corpus"] == key
                        source, ids = unit_ids(conn, corpus, hit)
                        assert ids, hit
                        assert foreign_units(conn, corpus, source, ids) == 0, (key, mode, hit)
                        checked += 1
        # find_similar_cases: by text and by case (its own case excluded), one hit per case
        for arguments in ({"text": BAIT, "practice_area": "planning"}, {"case_number": BAIT_CASE}):
            hits = app.tool("find_similar_cases", **arguments)["hits"]
            searches += 1
            assert hits and all(h["corpus"] == "case" for h in hits), arguments
            if "case_number" in arguments:
                assert [h["case_number"] for h in hits] == [OTHER_CASE]
            ids = [h["chunk_id"] for h in hits]
            assert foreign_units(conn, SEARCHABLE["case"], SEARCHABLE["case"].sources[0], ids) == 0
            checked += len(hits)
        legs_seen.add("case/similar_cases")
    # every leg ran somewhere: semantic, lexical, reference, principles, image, similar cases
    kinds = {entry.split("/", 1)[1] for entry in legs_seen}
    assert kinds >= {
        "semantic",
        "lexical",
        "reference",
        "principle_semantic",
        "principle_lexical",
        "image",
        "similar_cases",
    }, kinds
    pairs = len(SEARCHABLE) * (len(SEARCHABLE) - 1)
    figures = {
        "corpora": len(SEARCHABLE),
        "ordered_pairs": pairs,
        "modes": len(MODES),
        "searches": searches,
        "legs": len(legs_seen),
        "hits_checked": checked,
    }
    with capsys.disabled():
        print(f"\n[reliability] isolation bait: {json.dumps(figures)}")


def test_each_leg_alone_returns_only_its_corpus(baited):
    """Below fusion: each leg of each source of each corpus, called on its own with the bait,
    returns its corpus's bait (not nothing) and nothing of another corpus."""
    app = baited
    embedder, images = app.embedder, app.images
    terms = app.analyzer.query_terms(QUERIES["bait"])
    lookups = legs.references(QUERIES["bait"])
    window = app.settings.leg_window
    with app.store.connection() as conn:
        for key, corpus in SEARCHABLE.items():
            for source in corpus.sources:
                found = {
                    "semantic": legs.semantic(
                        conn,
                        corpus,
                        source,
                        legs.Filters(),
                        embedder.embed_query(BAIT),
                        embedder=embedder.id,
                        dim=embedder.dim,
                        window=window,
                        max_scan_tuples=app.settings.hnsw_max_scan_tuples,
                    ),
                    "lexical": legs.lexical(
                        conn,
                        corpus,
                        source,
                        legs.Filters(),
                        terms,
                        embedder=embedder.id,
                        window=window,
                    ),
                    "reference": legs.reference(
                        conn,
                        corpus,
                        source,
                        legs.Filters(),
                        lookups,
                        embedder=embedder.id,
                        window=window,
                    ),
                }
                for leg, ids in found.items():
                    must = leg != "reference" or (
                        corpus.item_table == "case_law" and source.kind == "chunk"
                    )
                    assert bool(ids) == must, (key, source.kind, leg, ids)
                    assert foreign_units(conn, corpus, source, ids) == 0, (key, source.kind, leg)
            if corpus.image_source is not None:
                ids = legs.semantic(
                    conn,
                    corpus,
                    corpus.image_source,
                    legs.Filters(),
                    images.embed_query(QUERIES["page"]),
                    embedder=images.id,
                    dim=images.dim,
                    window=window,
                    max_scan_tuples=app.settings.hnsw_max_scan_tuples,
                )
                assert len(ids) == 1, (key, ids)  # its own bait page; the other three are not
                assert foreign_units(conn, corpus, corpus.image_source, ids) == 0
    audit = app.isolation_audit()
    assert audit["leaks"] == 0 and audit["checked"] > 0
