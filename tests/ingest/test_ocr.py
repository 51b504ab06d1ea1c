"""Scanned documents read by OCR (issue 15, item 5): image-only PDFs the tests render themselves
from known Hebrew text (factories.scanned_pdf: the project's Hebrew font, shaped right to left,
rendered by poppler into pictures and put into a PDF with no text layer) are queued on ingest,
read by Tesseract in the background (`legal-ai ocr run`, `legal-ai worker`), and become
searchable with page numbers; each page's confidence is kept and a blurred page is flagged; a
machine without Tesseract makes the job wait, saying what to install; a scan with no text stays
unsearchable, flagged, and nothing crashes."""

import json
import os
import shutil

import pytest

import factories
from helpers import run
from legal_ai.config import Settings
from legal_ai.ingest import ocr_jobs, ocr_reading
from legal_ai.ingest.sources import IngestItem
from legal_ai.ops import worker
from legal_ai.text import ocr

# `make install` installs Tesseract; a machine without it skips these, except in CI (CI=true),
# where its absence is a failure like any missing dependency.
needs_tesseract = pytest.mark.skipif(
    shutil.which("tesseract") is None and os.environ.get("CI") != "true",
    reason="needs tesseract-ocr and tesseract-ocr-heb (make install)",
)

PAGE_1 = (
    "ועדת הערר לתכנון ובנייה מחוז מרכז\n"
    "החלטה בערר על החלטת הוועדה המקומית לדחות את הבקשה להיתר בנייה.\n"
    "העוררים טוענים כי התוכנית מאפשרת תוספת של 25 מטרים רבועים."
)
PAGE_2 = (
    "לאחר שעיינו בטענות הצדדים הגענו למסקנה כי דין הערר להתקבל בחלקו.\n"
    'סעיף 152 לחוק התכנון והבנייה, התשכ"ה-1965, מסמיך את ועדת הערר לדון בהשגה.\n'
    'הוועדה המקומית תשלם את הוצאות העוררים בסך 5,000 ש"ח.'
)
PAGE_3 = "פרוטוקול הדיון: המשיבה ביקשה לדחות את הערר ולחייב את העוררים בהוצאות."
CASE = {"case_number": "ערר 4410/25", "practice_area": "planning"}


def items(app, doc_id=None):
    with app.store.pool.connection() as conn:
        return conn.execute(
            "SELECT doc_id, content, page_starts, searchable, missing, extraction_issue, metadata"
            " FROM documents WHERE %(d)s::text IS NULL OR doc_id = %(d)s ORDER BY id",
            {"d": doc_id},
        ).fetchall()


def ocr_jobs_rows(app):
    with app.store.pool.connection() as conn:
        return conn.execute("SELECT * FROM jobs WHERE kind = 'ocr' ORDER BY id").fetchall()


@needs_tesseract
@pytest.mark.db
def test_a_scan_becomes_searchable_with_page_numbers(app, tmp_path):
    scan = factories.scanned_pdf(tmp_path / "protocol-scan.pdf", [PAGE_1, PAGE_2])
    report = app.ingest([scan], "case", meta=CASE)
    assert report.ingested == 1
    assert "queued for OCR" in report.unsearchable[0]["missing"][0]
    [job] = ocr_jobs_rows(app)
    assert job["status"] == "queued" and job["key"].startswith("ocr:")
    assert app.search("case", "מסמיך את ועדת הערר לדון בהשגה", limit=3).hits == []

    result = ocr_jobs.run(app)
    assert result["read"] == 1 and result["pages"] == 2 and result["failed"] == []
    assert result["items"] == [{"corpus": "case", "doc_id": report.doc_ids[0], "searchable": True}]
    [item] = items(app)
    assert item["searchable"] and item["extraction_issue"] is None
    # The text is Hebrew in logical order, each page where page_starts says it is.
    page_1 = item["content"][item["page_starts"][0] : item["page_starts"][1]]
    page_2 = item["content"][item["page_starts"][1] :]
    assert ocr.character_accuracy(PAGE_1, page_1) > 0.95
    assert ocr.character_accuracy(PAGE_2, page_2) > 0.95
    assert "לחוק התכנון והבנייה" in page_2 and "\u202b" not in item["content"]
    meta = item["metadata"]
    assert meta["ocr_engine"].startswith("tesseract") and "(heb)" in meta["ocr_engine"]
    assert (
        all(c > 80 for c in meta["ocr_page_confidence"]) and len(meta["ocr_page_confidence"]) == 2
    )
    assert meta["ocr_low_confidence_pages"] == [] and meta["ocr_confidence"] > 80

    # Searchable like any PDF: the hit carries its page.
    hits = app.search("case", "מסמיך את ועדת הערר לדון בהשגה", limit=3).hits
    assert hits[0]["doc_id"] == report.doc_ids[0] and hits[0]["page"] == 2
    hits = app.search("case", "תוספת של מטרים רבועים להיתר בנייה", limit=3).hits
    assert hits[0]["page"] == 1

    # Written through the ingest path: a second version of the item's text is recorded.
    history = app.item_history(report.doc_ids[0])
    assert [v["chars"] for v in history["versions"]][0] == 0
    assert history["versions"][-1]["chars"] == len(item["content"])
    assert history["ocr"][0]["low_confidence_pages"] == []
    # Numbers read with low confidence are marked with their spans in the item's text.
    marked = history["ocr"][0]["low_confidence_numbers"]
    assert marked == meta["ocr_low_confidence_numbers"]
    assert all(item["content"][n["start"] : n["end"]] == n["text"] for n in marked)

    # The same scan again: the reading is reused, nothing changes, no job is added.
    again = app.ingest([scan], "case", meta=CASE)
    assert again.unchanged == 1 and again.unsearchable == []
    assert len(ocr_jobs_rows(app)) == 1


@needs_tesseract
@pytest.mark.db
def test_one_reading_for_a_scan_in_two_corpora_and_the_worker_drains_it(app, tmp_path):
    scan = factories.scanned_pdf(tmp_path / "ruling-scan.pdf", [PAGE_2])
    app.ingest([scan], "case", meta=CASE)
    ruling = {
        "doc_type": "ruling",
        "case_number": 'עע"מ 9911/20',
        "court": "בית המשפט העליון",
        "decided_on": "2021-03-04",
    }
    app.ingest([scan], "external", meta=ruling)
    assert len(ocr_jobs_rows(app)) == 1  # one file, one job
    lines = []
    settled = worker.work(app, once=True, echo=lines.append)
    assert settled >= 1
    assert any(line.startswith("ocr job") and ": done" in line for line in lines), lines
    for corpus in ("case", "external"):
        hits = app.search(corpus, "מסמיך את ועדת הערר לדון בהשגה", limit=1).hits
        assert hits and hits[0]["page"] == 1, (corpus, lines)
    # The ruling read by OCR arrived like any ruling: its principles are queued.
    with app.store.pool.connection() as conn:
        kinds = [r["kind"] for r in conn.execute("SELECT kind FROM jobs ORDER BY id")]
    assert kinds == ["ocr", "principles"]


@needs_tesseract
@pytest.mark.db
def test_a_blurred_page_is_flagged_in_the_record_and_in_health(app, tmp_path, cli_env):
    scan = factories.scanned_pdf(tmp_path / "bad-copy.pdf", [PAGE_1, PAGE_3, PAGE_2], degrade=(2,))
    report = app.ingest([scan], "case", meta=CASE)
    result = ocr_jobs.run(app)
    doc_id = report.doc_ids[0]
    assert result["low_confidence"] == [{"corpus": "case", "doc_id": doc_id, "pages": [2]}]
    [item] = items(app)
    confidence = item["metadata"]["ocr_page_confidence"]
    assert confidence[1] < app.settings.ocr_min_confidence < min(confidence[0], confidence[2])
    assert item["metadata"]["ocr_low_confidence_pages"] == [2]
    assert item["searchable"]  # the other pages are good text: flagged, not hidden
    health = app.health()["ocr"]
    assert health["min_confidence"] == 60
    assert [(i["doc_id"], i["low_confidence_pages"]) for i in health["low_confidence"]] == [
        (doc_id, [2])
    ]
    # The floor is a setting: at 20 the blurred page passes (for this item's next write).
    scan = {**scanned_file(app), "page_confidence": [{"page": 1, "confidence": 25.0, "words": 3}]}
    lower = app.settings.model_copy(update={"ocr_min_confidence": 20})
    item = ocr_reading.with_reading(IngestItem(doc_id, "", "x", "pdf", "document"), scan, lower)
    assert item.metadata["ocr_low_confidence_pages"] == []
    # The CLI: health, the OCR list and the item's history say which page.
    out = run(cli_env, "health").stdout
    assert f"case/{doc_id}: low-confidence page(s) 2 (below 60)" in out
    listed = json.loads(run(cli_env, "ocr", "list", "--json").stdout)
    assert listed["low_confidence"][0]["low_confidence_pages"] == [2]
    history = run(cli_env, "item", "history", doc_id).stdout
    assert "read by OCR (tesseract" in history and "low-confidence pages: 2" in history


LOW_DPI = "scanned at about 100 dpi: below 150; read again from a better scan"


def test_the_resolution_a_page_was_scanned_at(tmp_path):
    """poppler's pdfimages gives each page's picture's resolution; below 150 dpi it is said."""
    settings = Settings()
    for dpi in (100, 150, 300):
        scan = factories.scanned_pdf(tmp_path / f"scan-{dpi}.pdf", [PAGE_3, PAGE_1], dpi=dpi)
        assert ocr.scan_resolutions(scan, settings) == {1: float(dpi), 2: float(dpi)}
    assert ocr.resolution_warning(100.0) == LOW_DPI
    assert ocr.resolution_warning(150.0) is None and ocr.resolution_warning(None) is None
    # a PDF with no picture (a text layer) says nothing
    assert ocr.scan_resolutions(factories.hebrew_pdf(tmp_path / "t.pdf", [PAGE_3]), settings) == {}
    page = {"page": 1, "confidence": 91.0, "words": 9, "warning": LOW_DPI}
    assert ocr.doubtful(page, 60) == LOW_DPI
    assert (
        ocr.doubtful({**page, "confidence": 40.0}, 60)
        == f"mean word confidence 40: below 60; {LOW_DPI}"
    )
    assert ocr.doubtful({"page": 1, "confidence": 91.0, "words": 9}, 60) is None  # read before


@needs_tesseract
@pytest.mark.db
def test_a_scan_at_100_dpi_is_flagged_with_why_though_tesseract_is_sure(app, tmp_path, cli_env):
    low = factories.scanned_pdf(tmp_path / "scan-100.pdf", [PAGE_3], dpi=100)
    high = factories.scanned_pdf(tmp_path / "scan-300.pdf", [PAGE_3], dpi=300)
    low_id = app.ingest([low], "case", meta=CASE).doc_ids[0]
    high_id = app.ingest([high], "case", meta=CASE).doc_ids[0]
    result = ocr_jobs.run(app)
    assert result["low_confidence"] == [{"corpus": "case", "doc_id": low_id, "pages": [1]}]
    by_id = {i["doc_id"]: i["metadata"] for i in items(app)}
    # Tesseract reads the 100-dpi page with confidence: the resolution is what flags it.
    assert by_id[low_id]["ocr_page_confidence"][0] >= app.settings.ocr_min_confidence
    assert by_id[low_id]["ocr_low_confidence_pages"] == [1]
    assert by_id[low_id]["ocr_low_confidence_reasons"] == [{"page": 1, "reason": LOW_DPI}]
    assert by_id[high_id]["ocr_low_confidence_pages"] == []
    assert by_id[high_id]["ocr_low_confidence_reasons"] == []
    assert scanned_files(app)[0]["page_confidence"][0]["scan_ppi"] in (100.0, 300.0)
    health = {i["doc_id"]: i for i in app.health()["ocr"]["low_confidence"]}
    assert health[low_id]["low_confidence_reasons"] == [{"page": 1, "reason": LOW_DPI}]
    assert high_id not in health
    assert f"page 1: {LOW_DPI}" in run(cli_env, "health").stdout
    assert f"page 1: {LOW_DPI}" in run(cli_env, "ocr", "list").stdout
    history = run(cli_env, "item", "history", low_id).stdout
    assert "low-confidence pages: 1" in history and f"page 1: {LOW_DPI}" in history


def scanned_files(app):
    with app.store.pool.connection() as conn:
        return conn.execute("SELECT page_confidence FROM scanned_files").fetchall()


def scanned_file(app):
    with app.store.pool.connection() as conn:
        return dict(conn.execute("SELECT * FROM scanned_files").fetchone())


@needs_tesseract
@pytest.mark.db
def test_without_tesseract_the_job_waits_saying_what_to_install(app, tmp_path, monkeypatch):
    monkeypatch.setattr(app.settings, "tesseract", "/nonexistent/tesseract")
    scan = factories.scanned_pdf(tmp_path / "scan.pdf", [PAGE_3])
    app.ingest([scan], "case", meta=CASE)
    result = ocr_jobs.run(app)
    assert result["read"] == 0
    assert "apt-get install tesseract-ocr tesseract-ocr-heb" in result["waiting_for"]
    assert "LEGAL_AI_TESSERACT" in result["waiting_for"]
    [job] = ocr_jobs_rows(app)
    assert job["status"] == "waiting" and job["attempts"] == 0
    assert "tesseract-ocr-heb" in job["waiting_for"]
    health = app.health()["ocr"]
    assert health["waiting"] == 1 and "tesseract-ocr" in health["waiting_for"]
    lines = []
    worker.work(app, once=True, echo=lines.append)
    assert any("waiting" in line and "tesseract-ocr" in line for line in lines), lines
    assert not items(app)[0]["searchable"]
    # A missing language model is named too.
    monkeypatch.setattr(app.settings, "tesseract", "tesseract")
    monkeypatch.setattr(app.settings, "ocr_languages", "heb+xqz")
    assert "apt-get install tesseract-ocr-xqz" in ocr.problem(app.settings)
    # Installed: the waiting job is queued again and read.
    monkeypatch.setattr(app.settings, "ocr_languages", "heb")
    result = ocr_jobs.run(app)
    assert result["read"] == 1 and result["waiting_for"] is None
    assert items(app)[0]["searchable"]
    assert ocr_jobs_rows(app)[0]["status"] == "done"


@needs_tesseract
@pytest.mark.db
def test_a_scan_with_no_text_stays_unsearchable_flagged_without_a_crash(app, tmp_path):
    blank = factories.scanned_pdf(tmp_path / "blank.pdf", ["", ""])
    bars = factories.image_only_pdf(tmp_path / "bars.pdf")
    report = app.ingest([blank, bars], "case", meta=CASE)
    assert report.ingested == 2
    result = ocr_jobs.run(app)
    assert [j["status"] for j in result["jobs"]] == ["done", "done"] and result["failed"] == []
    blank_item = items(app, report.doc_ids[0])[0]
    assert blank_item["content"] == "" and not blank_item["searchable"]
    assert (
        "OCR" in blank_item["extraction_issue"] and "read no text" in blank_item["extraction_issue"]
    )
    assert blank_item["metadata"]["ocr_page_confidence"] == [None, None]
    assert blank_item["metadata"]["ocr_low_confidence_pages"] == [1, 2]
    health = app.health()
    flagged = {i["doc_id"] for i in health["ocr"]["low_confidence"]}
    assert report.doc_ids[0] in flagged
    unsearchable = {i["doc_id"]: i["missing"] for i in health["unsearchable_items"]}
    assert "read no text" in unsearchable[report.doc_ids[0]][0]
    # The picture of bars is no text either: read as nothing, flagged the same way.
    bars_item = items(app, report.doc_ids[1])[0]
    assert bars_item["content"] == "" and "read no text" in bars_item["extraction_issue"]
    assert bars_item["metadata"]["ocr_low_confidence_pages"] == [1]


@needs_tesseract
@pytest.mark.db
def test_a_page_that_cannot_be_read_is_empty_and_flagged(app, tmp_path, monkeypatch):
    """A page over its time limit is stopped and left empty with why; the others are read."""
    scan = factories.scanned_pdf(tmp_path / "scan.pdf", [PAGE_1])
    monkeypatch.setattr(app.settings, "ocr_page_seconds", 0.001)
    reading = ocr.read_pdf(scan, app.settings)
    assert reading.pages[0].text == "" and "LEGAL_AI_OCR_PAGE_SECONDS" in reading.pages[0].error


def test_tesseract_tsv_into_lines_and_paragraphs():
    header = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext"
    rows = [
        "1\t1\t0\t0\t0\t0\t0\t0\t100\t100\t-1\t",
        "5\t1\t1\t1\t1\t1\t90\t0\t10\t10\t96.5\tועדת",
        "5\t1\t1\t1\t1\t2\t70\t0\t10\t10\t90.5\tהערר\u200f",
        "5\t1\t1\t1\t2\t1\t70\t0\t10\t10\t80\t152",
        "5\t1\t1\t2\t1\t1\t70\t0\t10\t10\t-1\t ",
        "5\t1\t2\t1\t1\t1\t70\t0\t10\t10\t41\tסוף",
        "broken",
    ]
    text, confidence, words = ocr.parse_tsv("\n".join([header, *rows]))
    assert text == "ועדת הערר\n152\n\nסוף"
    assert words == 4 and confidence == round((96.5 + 90.5 + 80 + 41) / 4, 1)
    assert ocr.parse_tsv(header) == ("", None, 0)


@pytest.mark.db
def test_scans_stored_before_the_queue_are_queued_by_the_nightly_upkeep(app, tmp_path):
    """Image-only items stored before the OCR queue existed (no kept scan, no job, their issue
    still "run OCR and upload again"): the nightly upkeep reads the file again and queues it
    (once), and with Tesseract it becomes searchable; an item whose file is gone, changed or was
    an upload is listed with what to do."""
    import datetime as dt

    from legal_ai.ops.tasks import nightly_upkeep
    from legal_ai.text import extract

    kept = factories.scanned_pdf(tmp_path / "old-scan.pdf", [PAGE_2])
    gone = factories.scanned_pdf(tmp_path / "gone-scan.pdf", [PAGE_3])
    changed = factories.scanned_pdf(tmp_path / "changed-scan.pdf", [PAGE_1])
    report = app.ingest([kept, gone, changed], "case", meta=CASE)
    assert report.ingested == 3
    with app.store.pool.connection() as conn:  # as such items were stored before migration 0024
        conn.execute("DELETE FROM jobs WHERE kind = 'ocr'")
        conn.execute("DELETE FROM scanned_files")
        conn.execute("UPDATE documents SET extraction_issue = %s", (extract.IMAGE_ONLY,))
    gone.unlink()
    factories.scanned_pdf(changed, [PAGE_3])

    upkeep = nightly_upkeep(app, dt.datetime(2026, 5, 3, 2, 30, tzinfo=dt.UTC))
    scans = upkeep["steps"]["scans"]
    assert scans["queued"] == [{"corpus": "case", "doc_id": report.doc_ids[0]}]
    assert scans["not_found"] == 2
    assert [(i["doc_id"], i["source_path"], i["why"]) for i in scans["not_found_items"]] == [
        (report.doc_ids[1], str(gone), "the file is gone or unreadable: ingest it again"),
        (
            report.doc_ids[2],
            str(changed),
            "the file changed since it was ingested: ingest it again",
        ),
    ]
    assert "1 stored scan(s) queued for OCR" in upkeep["summary"]
    assert "2 stored scan(s) without their file" in upkeep["summary"]
    [job] = ocr_jobs_rows(app)
    assert job["status"] == "queued"
    waiting, lost, _ = items(app)
    assert "queued for OCR" in waiting["extraction_issue"]
    assert lost["extraction_issue"] == extract.IMAGE_ONLY
    # Queued once: the next night finds nothing new to queue.
    assert ocr_jobs.queue_stored(app)["queued"] == []

    if shutil.which("tesseract") or os.environ.get("CI") == "true":
        assert ocr_jobs.run(app)["read"] == 1
        hits = app.search("case", "מסמיך את ועדת הערר לדון בהשגה", limit=3).hits
        assert hits[0]["doc_id"] == report.doc_ids[0] and hits[0]["page"] == 1


def test_the_first_pages_case_numbers_are_checked_against_the_case_filed_under():
    header = "ועדת הערר מחוז מרכז\nערר 115/23 כהן נ' הוועדה המקומית\nניתנה ביום 1.8.2020"
    text, starts = header + "\n\nעמוד שני: ערר 8115/23", [0, len(header) + 2]
    assert ocr_reading.header_mismatch("ערר (מרכז) 8115/23", text, starts) == {
        "filed": "ערר (מרכז) 8115/23",
        "read": ["115/23"],
    }
    assert ocr_reading.header_mismatch("ערר 115/23", text, starts) is None
    assert ocr_reading.header_mismatch(None, text, starts) is None  # not filed under a case
    no_number = "פרוטוקול הדיון בוועדה מיום 1.8.2020"  # a date is not a case number
    assert ocr_reading.header_mismatch("ערר 8115/23", no_number, [0]) is None


@needs_tesseract
@pytest.mark.db
def test_a_scan_naming_another_case_is_said_in_the_ocr_report(app, tmp_path, cli_env):
    other = "ועדת הערר לתכנון ובנייה מחוז מרכז\nערר 8115/23 לוי נ' הוועדה המקומית"
    scan = factories.scanned_pdf(tmp_path / "misfiled.pdf", [other, PAGE_3], dpi=200)
    report = app.ingest([scan], "case", meta=CASE)
    result = ocr_jobs.run(app)
    [entry] = result["items"]
    assert entry["case_number_mismatch"] == {"filed": "ערר 4410/25", "read": ["8115/23"]}
    [item] = items(app, report.doc_ids[0])
    assert item["metadata"]["ocr_case_number_mismatch"]["read"] == ["8115/23"]
    # the CLI says it in one line (a second scan filed under the same wrong case)
    again = factories.scanned_pdf(tmp_path / "misfiled-2.pdf", [other, PAGE_2], dpi=200)
    app.ingest([again], "case", meta=CASE)
    out = run(cli_env, "ocr", "run").stdout
    assert "check the case number" in out and "8115/23" in out and "4410/25" in out
