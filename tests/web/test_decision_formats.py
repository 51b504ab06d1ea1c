"""Our draft and her final in the old formats through the API and the desk (issue 38 items 1
and 3): a .doc, .rtf or .odt that LibreOffice itself writes in the test is read through the
CLI's LibreOffice path (text/office.py) and registered like a DOCX; a .doc that is really HTML
and an .rtf that embeds an object are refused with one line (JSON 4xx on the API, Hebrew on the
desk), nothing stored. Where LibreOffice is absent the desk says, in Hebrew, what to install. A
scan of 1 dpi or of 10,000 dpi as a draft is refused with one line, nothing stored."""

from __future__ import annotations

from urllib.parse import quote

import pytest

import factories
from helpers import AGENT, CHAIR_TOKEN, csrf_of, text_of
from legal_ai.errors import UnsupportedFile
from legal_ai.text.extract import extract
from legal_ai.web.desk.pages_hebrew import upload_refusal
from office_files import need_office, rtl_docx, saved_as

pytestmark = pytest.mark.db
RECORD = factories.records()[0]
LABELS = {k: RECORD[k] for k in ("appeal_type", "outcome", "practice_area")}
HTML_DOC = "<html><body><p>טיוטת החלטה</p></body></html>".encode()
RTF_OBJECT = (
    b"{\\rtf1\\ansi {\\fonttbl\\f0 Arial;}\\f0 \\'e4\\'e7\\'ec\\'e8\\'e4\\par"
    b"{\\object\\objemb{\\*\\objclass Package}{\\*\\objdata 0105000002000000}}}"
)


@pytest.fixture(scope="module")
def old_drafts(tmp_path_factory) -> dict[str, bytes]:
    """The record's draft as a right-to-left Word document, saved by LibreOffice as each kind."""
    need_office()
    folder = tmp_path_factory.mktemp("decision-formats")
    docx = rtl_docx(folder / "draft.docx", RECORD["draft_text"])
    return {kind: saved_as(docx, kind).read_bytes() for kind in ("doc", "rtf", "odt")}


def _stored(app) -> tuple[int, int]:
    with app.store.connection() as conn:
        cases = conn.execute("SELECT count(*) AS n FROM cases").fetchone()["n"]
        drafts = conn.execute("SELECT count(*) AS n FROM drafts").fetchone()["n"]
    return cases, drafts


def _api_draft(client, name: str, body: bytes, ctype: str = "application/octet-stream"):
    return client.post(
        f"/api/cases/{quote(RECORD['case_number'], safe='')}/draft/upload",
        headers={"Authorization": f"Bearer {AGENT}"},
        files={"file": (name, body, ctype)},
        data=LABELS,
    )


@pytest.mark.parametrize(
    ("kind", "ctype"),
    [
        ("doc", "application/msword"),
        ("rtf", "application/rtf"),
        ("odt", "application/vnd.oasis.opendocument.text"),
    ],
)
def test_the_api_takes_a_draft_in_an_old_format(client, old_drafts, kind, ctype):
    answer = _api_draft(client, f"draft.{kind}", old_drafts[kind], ctype)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["pair_status"] == "draft_done" and body["created"] is True
    found = {b["block"]: b["words"] for b in body["blocks"]}
    assert found["discussion"] > 0 and not body["missing_blocks"]


def test_the_desk_takes_an_odt_draft_and_the_api_a_doc_final(chair, client, old_drafts, tmp_path):
    token = csrf_of(chair.get("/cases").text)
    sent = chair.post(
        "/cases/draft/upload",
        data={"csrf": token, "case_number": RECORD["case_number"], **LABELS},
        files={"file": ("draft.odt", old_drafts["odt"], "application/octet-stream")},
        follow_redirects=False,
    )
    assert sent.status_code == 303, text_of(sent.text)
    assert RECORD["case_number"] in chair.get("/cases").text
    final = saved_as(rtl_docx(tmp_path / "final.docx", RECORD["final_text"]), "doc")
    answer = client.post(
        f"/api/cases/{quote(RECORD['case_number'], safe='')}/final/upload",
        headers={"Authorization": f"Bearer {CHAIR_TOKEN}"},
        files={"file": ("final.doc", final.read_bytes(), "application/msword")},
        data=LABELS,
    )
    assert answer.status_code == 200, answer.text
    assert answer.json()["pair_status"] == "analyzed"


@pytest.mark.parametrize(
    ("name", "body", "english", "hebrew"),
    [
        ("draft.doc", HTML_DOC, "it is HTML, not a Word 97 document", "הקובץ הוא דף אינטרנט"),
        ("draft.rtf", RTF_OBJECT, "the RTF embeds an object", "קובץ ה-RTF מכיל אובייקט מוטמע"),
    ],
    ids=["html-doc", "rtf-object"],
)
def test_bad_old_format_files_are_one_line_and_store_nothing(
    client, chair, desk_app, name, body, english, hebrew
):
    need_office()
    before = _stored(desk_app)
    answer = _api_draft(client, name, body)
    assert 400 <= answer.status_code < 500
    error = answer.json()["error"]
    assert english in error and "\n" not in error and error.startswith(f"{name}: ")  # no path
    token = csrf_of(chair.get("/cases").text)
    shown = chair.post(
        "/cases/draft/upload",
        data={"csrf": token, "case_number": RECORD["case_number"], **LABELS},
        files={"file": (name, body, "application/octet-stream")},
    )
    assert shown.status_code == 400 and f"ההעלאה לא בוצעה: {hebrew}" in text_of(shown.text)
    assert _stored(desk_app) == before


def test_without_libreoffice_the_desk_says_what_to_install(tmp_path, monkeypatch, old_drafts):
    doc = tmp_path / "draft.doc"
    doc.write_bytes(old_drafts["doc"])
    monkeypatch.setenv("PATH", "/nonexistent")  # the machine as it is without the package
    with pytest.raises(UnsupportedFile) as refused:
        extract(doc)
    said = text_of(str(upload_refusal(refused.value)))
    assert "נקרא דרך LibreOffice, שאינו מותקן בשרת: שמרי את המסמך כ-DOCX" in said


def _scan_at(path, dpi: int):
    """An image-only PDF whose one picture is scanned at `dpi`: 1 dpi is a 8x11 pixel page, 10,000
    dpi a 100-pixel square printed 0.01 inch wide."""
    from fpdf import FPDF
    from PIL import Image

    pixels, inches = ((8, 11), (8.0, 11.0)) if dpi == 1 else ((100, 100), (0.01, 0.01))
    pdf = FPDF(format="letter", unit="in")
    pdf.add_page()
    pdf.image(Image.new("L", pixels, 128), x=0.2, y=0.2, w=inches[0], h=inches[1])
    pdf.output(str(path))
    return path.read_bytes()


@pytest.mark.parametrize("dpi", [1, 10_000])
def test_a_scan_of_1_or_10000_dpi_is_one_line_and_stores_nothing(
    client, chair, desk_app, tmp_path, dpi
):
    scan = _scan_at(tmp_path / "scan.pdf", dpi)
    before = _stored(desk_app)
    answer = _api_draft(client, "scan.pdf", scan, "application/pdf")
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert "scan.pdf: a scan (a PDF without a text layer)" in error and "\n" not in error
    token = csrf_of(chair.get("/cases").text)
    shown = chair.post(
        "/cases/draft/upload",
        data={"csrf": token, "case_number": RECORD["case_number"], **LABELS},
        files={"file": ("scan.pdf", scan, "application/pdf")},
    )
    assert shown.status_code == 400
    assert "ההעלאה לא בוצעה: הקובץ הוא סריקה (PDF ללא שכבת טקסט)" in text_of(shown.text)
    assert _stored(desk_app) == before
