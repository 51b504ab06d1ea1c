"""Bad input in the text, ingest, retrieval and methodology layers (issue 10, item 4): every case
is refused with a one-line message that names what was wrong and what to do, or normalized, and
nothing partial is written. The readers' tests need no database; the rest use the real one."""

from __future__ import annotations

import io
import json
import os
import re
import time
import zipfile
from pathlib import Path

import pytest
from psycopg import sql

from factories import TINY_TEXT as TEXT  # what tiny_docx() writes
from factories import akn_xml, tiny_docx, tiny_pdf
from helpers import write
from legal_ai.auth import CHAIR
from legal_ai.errors import InvalidInput, UnsupportedFile
from legal_ai.evaluation.datasets import load_dataset
from legal_ai.learning import vocabulary as vocab
from legal_ai.learning.arrival import metadata
from legal_ai.learning.methodology import profiles as methodology
from legal_ai.learning.pairs import drafts, finals
from legal_ai.retrieval import legs
from legal_ai.retrieval.legs import Filters
from legal_ai.retrieval.search import search
from legal_ai.text import akn, citations
from legal_ai.text.case_numbers import normalize_case_number
from legal_ai.text.extract import Limits, extract
from legal_ai.text.hebrew import clean_text, normalize, query_terms
from system_panel import engine


def rows(app, table: str) -> int:
    with app.store.pool.connection() as conn:
        query = sql.SQL("SELECT count(*) AS n FROM {}").format(sql.Identifier(table))
        return conn.execute(query).fetchone()["n"]


def state(app) -> dict[str, int]:
    tables = ("documents", "case_law", "digests", "cases", "document_chunks", "case_law_chunks")
    return {table: rows(app, table) for table in tables}


# -- 1. invisible and presentation characters ---------------------------------------------------
@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("ה\x00יתר", "היתר"),  # NUL
        ("ה\u200bית\u200cר\u200d", "היתר"),  # zero-width space, non-joiner, joiner
        ("\u200eהיתר\u200f", "היתר"),  # LRM, RLM
        ("\u202bהיתר\u202c \u2067בנייה\u2069", "היתר בנייה"),  # embedding, isolate
        ("הי\u00adתר", "היתר"),  # soft hyphen
        ("היתר\u2060\ufeff", "היתר"),  # word joiner, BOM
        ("\ufb2aלום", "שׁלום"),  # shin with shin dot -> shin + the point (kept in stored text)
        ("ﬠרר ﬡ", "ערר א"),  # wide ayin, wide alef
        ("a\ud800b", "ab"),  # a lone surrogate cannot be stored as UTF-8
    ],
)
def test_invisible_characters_are_removed_and_presentation_forms_folded(raw, clean):
    assert clean_text(raw) == clean


def test_normalize_and_the_analyzer_see_through_them():
    assert normalize("\ufb2bמירה") == "שמירה"  # the point NFKC leaves is stripped with niqqud
    assert normalize("\ufb4f") == "אל"  # the alef-lamed ligature
    assert query_terms("הק\u00adלה\u200b בקו\u200d בניין") == query_terms("הקלה בקו בניין")
    assert query_terms("\ufb31ניין") == query_terms("בניין")


# -- 2. one case-number normalizer -------------------------------------------------------------
@pytest.mark.parametrize(
    "spelling",
    [
        "ערר (מרכז) 1042/23",
        "ערר(מרכז) 1042 / 23",
        "  ערר  ( מרכז )  1042-23 ",
        "ערר (מרכז) 01042/23",
        "ערר\u200b (מרכז)\x00 1042/23",
        "ערר (מרכז) 1042\u201323",  # en dash
    ],
)
def test_spelling_variants_of_a_committee_case_share_one_key(spelling):
    assert normalize_case_number(spelling) == "ערר (מרכז) 1042/23"
    assert vocab.case_number(spelling) == "ערר (מרכז) 1042/23"  # the strict validator agrees


@pytest.mark.parametrize("spelling", ['בג"צ 1234/05', "בג״ץ 1234-05", "בגץ 1234/05", 'בג"ץ1234/05'])
def test_court_spellings_and_citation_refs_share_the_key(spelling):
    assert normalize_case_number(spelling) == 'בג"ץ 1234/05'
    (citation,) = citations.extract(f"ראו {spelling} פלוני נ' שר הפנים.")
    assert citation.ref == 'בג"ץ 1234/05'
    assert vocab.case_number(spelling) == 'בג"ץ 1234/05'


def test_different_cases_stay_different_and_the_validator_still_refuses():
    keys = {normalize_case_number(c) for c in ("ערר 1042/23", 'בל"מ 1042/23', "ערר (מרכז) 1042/23")}
    assert len(keys) == 3
    # the district's one spelling: ת"א, תל-אביב and תל אביב-יפו are one district
    assert normalize_case_number("ערר (תל-אביב) 7/24") == "ערר (תל אביב) 7/24"
    assert normalize_case_number('ערר (ת"א) 7/24') == normalize_case_number(
        "ערר (תל אביב-יפו) 7/24"
    )
    for bad in ("1042/23", "ערר", "\u200b", None, 1042):
        with pytest.raises(InvalidInput, match="malformed case number"):
            vocab.case_number(bad)


# -- 3. readers ---------------------------------------------------------------------------------
def test_a_docx_zip_bomb_is_refused_before_it_is_inflated(tmp_path):
    bomb = tmp_path / "bomb.docx"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in _docx_members().items():
            archive.writestr(name, data)
        archive.writestr("word/media/padding.bin", b"\0" * (8 * 2**20))  # 8 MB -> ~8 KB
    assert bomb.stat().st_size < 100_000
    started = time.monotonic()
    with pytest.raises(UnsupportedFile, match=r"bomb.docx: a part of the DOCX expands \d+ times"):
        extract(bomb)
    assert time.monotonic() - started < 1
    legit = write(tmp_path / "legit.docx", "")
    legit.write_bytes(tiny_docx())
    with pytest.raises(
        UnsupportedFile, match=r"unpacks to [\d,]+ bytes, over the 1,000 bytes limit"
    ):
        extract(legit, Limits(docx_bytes=1000))
    assert TEXT in extract(legit).text


def _zip(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def _docx_members() -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(tiny_docx())) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


@pytest.mark.parametrize(
    "make",
    [
        lambda: b"PK\x03\x04 not really a zip",
        lambda: tiny_docx()[: len(tiny_docx()) // 2],  # truncated
        lambda: _zip({"hello.txt": b"hi"}),  # a zip, not a document
        lambda: _zip({**_docx_members(), "word/document.xml": b"<w:document><unclosed"}),
        lambda: _zip({k: v for k, v in _docx_members().items() if k != "word/document.xml"}),
        lambda: _zip({**_docx_members(), "[Content_Types].xml": b"\x00\xff garbage"}),
    ],
    ids=["not-a-zip", "truncated", "no-document", "bad-xml", "missing-part", "bad-types"],
)
def test_a_damaged_docx_is_unsupported_never_a_raw_error(tmp_path, make):
    path = tmp_path / "damaged.docx"
    path.write_bytes(make())
    with pytest.raises(UnsupportedFile, match="damaged.docx: not a readable DOCX.*save it again"):
        extract(path)


def test_pdftotext_is_time_bounded_and_its_output_capped(tmp_path, monkeypatch):
    pdf = tmp_path / "-tiny.pdf"  # a leading dash is a file name, not an option
    pdf.write_bytes(tiny_pdf())
    assert "Hello committee" in extract(pdf).text
    # A pdftotext that hangs (first on PATH) is stopped at the bound, not waited for: a real
    # one can finish a tiny PDF within any bound short enough to test.
    slow = tmp_path / "bin"
    slow.mkdir()
    write(slow / "pdftotext", "#!/bin/sh\nexec sleep 30\n").chmod(0o755)
    with monkeypatch.context() as env:
        env.setenv("PATH", f"{slow}:{os.environ['PATH']}")
        started = time.monotonic()
        with pytest.raises(UnsupportedFile, match=r"took over 0\.2 s and was stopped; split"):
            extract(pdf, Limits(pdf_seconds=0.2))
        assert time.monotonic() - started < 5
    with pytest.raises(UnsupportedFile, match=r"text is over 5 bytes and was not read"):
        extract(pdf, Limits(text_bytes=5))
    garbage = tmp_path / "garbage.pdf"
    garbage.write_bytes(b"%PDF-1.4\n" + bytes(range(256)) * 20)
    with pytest.raises(UnsupportedFile, match="garbage.pdf: not a readable PDF"):
        extract(garbage)


@pytest.mark.parametrize(
    ("doctype", "body"),
    [
        (  # billion laughs
            '<!DOCTYPE akomaNtoso [<!ENTITY a "ha"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
            '<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;">]>',
            "&d;&d;&d;&d;",
        ),
        ('<!DOCTYPE akomaNtoso [<!ENTITY x SYSTEM "file:///etc/passwd">]>', "&x;"),  # XXE
        ('<!DOCTYPE akomaNtoso SYSTEM "http://127.0.0.1:9/akn.dtd">', "סעיף"),  # network DTD
    ],
    ids=["billion-laughs", "external-entity", "network-dtd"],
)
def test_akoma_ntoso_never_expands_entities_or_reads_other_files(tmp_path, doctype, body):
    path = tmp_path / "law.xml"
    path.write_bytes(akn_xml(body, doctype))
    started = time.monotonic()
    with pytest.raises(UnsupportedFile, match="law.xml: the XML declares a DOCTYPE"):
        list(akn.parse_law(path))
    assert time.monotonic() - started < 1


def test_malformed_or_foreign_xml_is_unsupported(tmp_path):
    for data, expected in [
        (akn_xml()[:-20], "not well-formed XML"),
        (b"<root>" * 5000, "not well-formed XML"),  # too deep for the parser's limits
        (b'<?xml version="1.0"?><html/>', "not an Akoma Ntoso 3.0 document"),
        (akn_xml("\x01"), "not well-formed XML"),
    ]:
        path = tmp_path / "x.xml"
        path.write_bytes(data)
        with pytest.raises(UnsupportedFile, match=expected):
            list(akn.parse_law(path))
    path.write_bytes(akn_xml("סעיף <!-- הערה -->ראשון"))
    (section,) = akn.parse_law(path)
    assert "ראשון" in section["text"] and "הערה" not in section["text"]


# -- 3b. ingest: per-record and per-file failures ----------------------------------------------
BAD_RECORDS = [
    ({"doc_id": ["a"], "text": TEXT}, "doc_id must be a string or a whole number, not a list"),
    ({"doc_id": True, "text": TEXT}, "doc_id must be a string or a whole number"),
    ({"doc_id": 1.5, "text": TEXT}, "doc_id must be a string or a whole number"),
    ({"doc_id": "\u200b\x00", "text": TEXT}, "the record has no doc_id"),
    ({"doc_id": "x" * 600, "text": TEXT}, "doc_id is 600 characters; keep it to 500"),
    ({"doc_id": "t1", "text": 123}, "text must be a string, not a number"),
    ({"doc_id": "t2", "text": {"he": TEXT}}, "text must be a string, not an object"),
    ({"doc_id": "t3", "text": TEXT, "title": 5}, "title must be a string, not a number"),
    ({"doc_id": "t4", "text": TEXT, "decided_on": "2023-13-45"}, "is not a date"),
    ({"doc_id": "t5", "text": TEXT, "decided_on": 20230101}, "is not a date"),
    ({"doc_id": "t6", "text": TEXT, "metadata": "x"}, "metadata must be an object, not a string"),
    ({"doc_id": "t7", "text": TEXT, "metadata": {"a": {"b": 1}}}, "a is an object; metadata"),
    ({"doc_id": "t8", "text": TEXT, "extra": [[1]]}, "extra is a list; metadata values"),
    ({"doc_id": "t9", "text": TEXT, "judges": [1, 2]}, "judges must be a string"),
    ({"doc_id": "t10", "text": TEXT, "is_binding": "maybe"}, "is not true/false"),
    ({"doc_id": "t11", "text": TEXT, "case_number": 5}, "case_number must be a string"),
    ({"doc_id": "t12", "text": TEXT, "doc_type": 7}, "doc_type must be a string"),
    ({"doc_id": "t13", "text": TEXT, "case_number": "ע" * 300}, "case_number is 300 characters"),
    ('{"doc_id": "t14", "text": "x", "score": NaN}', "score is nan; write a finite number"),
    ("[" * 100_000, "nested too deeply"),
    ("5", "a record must be a JSON object, not a number"),
    ('{"doc_id": "t15", "text": "unterminated', "not valid JSON"),
]


def test_each_bad_jsonl_record_is_reported_by_line_and_the_rest_ingest(app, tmp_path):
    good = [
        {
            "doc_id": "good-1",
            "title": "פס\u00adק ד\u200bין",
            "text": "ה\x00לכה " + TEXT,
            "court": "העליון\u200f",
            "decided_on": "2020-05-05T10:00:00",
            "doc_type": "ruling",
            "case_number": "עע״מ 1234-05",
            "metadata": {"source\x00": "נ\u200bבו", "labels": ["a", 1]},
        },
        {"doc_id": 42, "title": "מאמר", "text": "מאמר על שימוש חורג", "doc_type": "reference"},
    ]
    lines = [json.dumps(good[0], ensure_ascii=False)]
    for record, _ in BAD_RECORDS:
        lines.append(record if isinstance(record, str) else json.dumps(record, ensure_ascii=False))
    lines.append(json.dumps(good[1], ensure_ascii=False))
    path = tmp_path / "records.jsonl"
    path.write_bytes("\n".join(lines).encode() + b"\n\xff\xfe\xfa not utf-8 \xff\n")
    report = app.ingest([path], "external")
    assert report.ingested == 2 and report.unsearchable == []
    errors = {int(f["path"].rsplit(":", 1)[1]): f["error"] for f in report.failed}
    expected = {number: text for number, (_, text) in enumerate(BAD_RECORDS, start=2)}
    expected[len(lines) + 1] = "not UTF-8"
    assert set(errors) == set(expected)
    for number, text in expected.items():
        assert f"records.jsonl:{number}: " in errors[number] and text in errors[number], number
    assert all("\n" not in e for e in errors.values())  # one line each
    with app.store.pool.connection() as conn:
        stored = conn.execute("SELECT * FROM case_law ORDER BY doc_id").fetchall()
    assert [r["doc_id"] for r in stored] == ["42", "good-1"]  # nothing of the bad lines
    ruling = stored[1]
    assert ruling["title"] == "פסק דין" and ruling["content"].startswith("הלכה ")
    assert ruling["court"] == "העליון" and ruling["case_number"] == 'עע"מ 1234/05'
    assert ruling["metadata"] == {"source": "נבו", "labels": ["a", 1]}
    assert ruling["decided_on"].isoformat() == "2020-05-05"


def test_one_bad_file_in_a_batch_is_reported_and_the_rest_ingest(app, tmp_path):
    good = write(tmp_path / "good.txt", "ה\u200bחלטה\x00 " + TEXT)
    bomb = tmp_path / "bomb.docx"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("word/document.xml", b" " * (4 * 2**20))
    law = tmp_path / "law.xml"
    law.write_bytes(akn_xml("&x;", '<!DOCTYPE akomaNtoso [<!ENTITY x "y">]>'))
    missing = tmp_path / "missing.txt"
    meta = {"case_number": "ערר 9/25", "practice_area": "planning"}
    report = app.ingest([bomb, good, missing], "case", meta=meta)
    assert report.ingested == 1
    failed = {Path(f["path"]).name: f["error"] for f in report.failed}
    assert set(failed) == {"bomb.docx", "missing.txt"}
    assert "zip bomb" in failed["bomb.docx"] and "no such file" in failed["missing.txt"]
    report = app.ingest([law], "external")
    assert report.ingested == 0 and "DOCTYPE" in report.failed[0]["error"]
    with app.store.pool.connection() as conn:
        (content,) = conn.execute("SELECT content FROM documents").fetchone().values()
    assert content == "החלטה " + TEXT


# -- 4. search arguments ----------------------------------------------------------------------
REFUSED_FILTERS = [
    ("case", Filters(case_number="ערר 1/25", date_from="2020-01-01"), "date_from"),
    ("case", Filters(case_number="ערר 1/25", court="העליון"), "court"),
    ("style", Filters(practice_area="planning", court="העליון"), "court"),
    ("internal", Filters(court="העליון"), "court"),
    ("digests", Filters(case_number="ערר 1/25"), "case_number"),
    ("case_precedents", Filters(practice_area="planning"), "practice_area"),
    ("case_precedents", Filters(date_from="2020-01-01", court="x"), "court, date_from"),
]


@pytest.mark.parametrize(("corpus", "filters", "refused"), REFUSED_FILTERS)
def test_a_filter_the_corpus_cannot_apply_is_refused_naming_its_filters(
    app, corpus, filters, refused
):
    with pytest.raises(InvalidInput) as caught:
        app.search(corpus, "היתר", filters=filters)
    message = str(caught.value)
    assert message.startswith(f"corpus {corpus!r} cannot be filtered by {refused}; its filters: ")
    assert ", ".join(legs.SUPPORTED_FILTERS[corpus]) in message


def test_the_chairs_finals_are_searched_within_a_date_range(app, tmp_path):
    for case, day in (("ערר 31/24", "2024-03-01"), ("ערר 32/25", "2025-06-01")):
        path = tmp_path / f"{day}.txt"
        path.write_text("החלטה בערר על היתר בנייה והקלה בקו בניין " + case, encoding="utf-8")
        app.ingest(
            [path],
            "style",
            meta={"case_number": case, "practice_area": "planning", "decided_on": day},
        )

    def found(**dates):
        hits = app.tool("search_decisions", query="היתר בנייה", practice_area="planning", **dates)[
            "hits"
        ]
        return sorted(h["case_number"] for h in hits)

    assert found() == ["ערר 31/24", "ערר 32/25"]
    assert found(date_from="2025-01-01") == ["ערר 32/25"]
    assert found(date_to="2024-12-31") == ["ערר 31/24"]
    assert found(date_from="2024-01-01", date_to="2024-12-31") == ["ערר 31/24"]


def test_blank_required_tool_arguments_are_refused(app):
    for blank in ("\u200b", " \x00 "):
        with pytest.raises(InvalidInput, match="needs the case_number"):
            app.tool("search_case_documents", query="היתר", case_number=blank)
        with pytest.raises(InvalidInput, match="needs practice_area"):
            app.tool("search_decisions", query="היתר", practice_area=blank)
        with pytest.raises(InvalidInput, match="exactly one of case_number or text"):
            app.tool("find_similar_cases", case_number=blank)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"query": ""}, "the query is empty"),
        ({"query": "\x00\u200b\u202b \ufeff"}, "the query is empty"),
        ({"query": "היתר " * 5000}, "shorten it to at most 20000"),
        ({"query": "א" * 1_000_000}, "the query is 1000000 characters"),
        ({"query": None}, "the query must be text"),
        ({"query": ["היתר"]}, "the query must be text"),
        ({"limit": 0}, "limit must be a whole number from 1 to 100"),
        ({"limit": 101}, "limit must be a whole number from 1 to 100"),
        ({"limit": True}, "limit must be a whole number"),
        ({"limit": "5"}, "limit must be a whole number"),
        ({"mode": "fuzzy"}, "unknown mode 'fuzzy'"),
        ({"mode": ["hybrid"]}, "unknown mode"),
        ({"filters": Filters(date_from="2023-02-30")}, "date_from '2023-02-30' is not a date"),
        ({"filters": Filters(date_to="20230101")}, "is not a date; write it as YYYY-MM-DD"),
        ({"filters": Filters(date_from="2024-01-01", date_to="2023-01-01")}, "is after date_to"),
        ({"filters": Filters(court=5)}, "filter court must be text, not int"),
        ({"filters": Filters(court="א" * 300)}, "filter court is over 200 characters"),
        ({"filters": Filters(practice_area="x" * 10_000)}, "is over 200 characters"),
    ],
)
def test_search_arguments_are_checked_before_the_database(app, kwargs, message):
    arguments = {"query": "היתר", **kwargs}
    with pytest.raises(InvalidInput, match=message):
        app.search("external", arguments.pop("query"), **arguments)


def test_nul_and_invisible_characters_in_queries_and_filters_match_the_clean_text(app, tmp_path):
    lines = [
        {
            "doc_id": "r1",
            "title": "הקלה",
            "text": "הק\u00adלה בקו בניין צדדי וה\ufb2aיקול התכנוני",
            "court": "העליון",
            "case_number": 'בג"צ 1234/05',
            "doc_type": "ruling",
            "decided_on": "2020-01-01",
        },
        {
            "doc_id": "r2",
            "title": "היטל",
            "text": "היטל השבחה בשל תכנית משביחה",
            "court": "המחוזי",
            "doc_type": "ruling",
            "decided_on": "2021-01-01",
        },
    ]
    path = write(tmp_path / "r.jsonl", "\n".join(json.dumps(x, ensure_ascii=False) for x in lines))
    assert app.ingest([path], "external").ingested == 2
    clean = app.search("external", "הקלה בקו בניין", filters=Filters(court="העליון"))
    dirty = app.search(
        "external",
        "\x00הק\u200bלה\u00ad \u202bבקו\u202c בניין\ufeff",
        filters=Filters(court="\x00העל\u200bיון\u200f", date_from=" 2019-12-31 "),
    )
    assert [h["doc_id"] for h in clean.hits] == ["r1"]
    assert [(h["doc_id"], h["explain"]) for h in dirty.hits] == [
        (h["doc_id"], h["explain"]) for h in clean.hits
    ]
    for spelling in ("בג״ץ 1234-05", "בגץ 1234/05", '\u200bבג"ץ\x00 1234 / 05'):
        hits = app.search("external", "הקלה", filters=Filters(case_number=spelling)).hits
        assert [h["doc_id"] for h in hits] == ["r1"], spelling
    hits = app.search("external", "שיקול", mode="lexical").hits  # the presentation form folded
    assert [h["doc_id"] for h in hits] == ["r1"]


def test_one_case_key_across_ingest_draft_final_and_search(app, tmp_path):
    spelled = ["ערר(מרכז) 3001 / 25", "ערר ( מרכז ) 3001-25", "ערר (מרכז) 03001/25"]
    document = write(tmp_path / "protocol.txt", "פרוטוקול הדיון בערר על הקלה בקו בניין.")
    meta = {"case_number": spelled[0], "practice_area": "planning"}
    report = app.ingest([document], "case", meta=meta)
    assert report.ingested == 1
    decision = (
        "ועדת הערר לתכנון ובנייה – מחוז מרכז\nערר (מרכז) 3001/25\n\nהחלטה\n\nפתח דבר\n\n"
        "1. לפנינו ערר על הקלה בקו בניין.\n\nרקע עובדתי\n\n2. המגרש בפינת רחוב.\n\n"
        "דיון והכרעה\n\n3. הערר נדחה.\n\nסוף דבר\n\n4. אין צו להוצאות.\n\n"
        'ניתנה היום, 1 במרץ 2025.\nרותם לוי, עו"ד'
    )
    draft = write(tmp_path / "draft.txt", decision.replace("הערר נדחה", "דין הערר להידחות"))
    drafts.add_draft(
        app, spelled[1], draft, appeal_type="permit", outcome="rejected", practice_area="planning"
    )
    result = finals.upload_final(app, spelled[2], write(tmp_path / "final.txt", decision))
    assert result["case_number"] == "ערר (מרכז) 3001/25"
    with app.store.pool.connection() as conn:
        cases = [r["case_number"] for r in conn.execute("SELECT case_number FROM cases")]
        pairs = conn.execute("SELECT case_number, status FROM draft_final_pairs").fetchall()
    assert cases == ["ערר (מרכז) 3001/25"]
    assert [(p["case_number"], p["status"]) for p in pairs] == [("ערר (מרכז) 3001/25", "analyzed")]
    # the decision is searchable once the chair gives its headnote, summary and tags
    with app.store.pool.connection() as conn:
        doc_id = conn.execute(
            "SELECT doc_id FROM case_law WHERE id = %s", (result["case_law_id"],)
        ).fetchone()["doc_id"]
    metadata.set_fields(app.acting_as(CHAIR), doc_id, "הקלה בקו בניין", "הערר נדחה.", "הקלה")
    for spelling in spelled:
        found = app.tool("search_case_documents", query="פרוטוקול", case_number=spelling)
        assert [h["case_number"] for h in found["hits"]] == ["ערר (מרכז) 3001/25"]
        found = app.search("internal", "הקלה", filters=Filters(case_number=spelling))
        assert {h["case_number"] for h in found.hits} == {"ערר (מרכז) 3001/25"}


def test_citation_lookups_per_query_are_capped(app, settings, tmp_path):
    many = " ".join(f"סעיף {n}" for n in range(1, 300)) + " " + 'עע"מ 1111/11'
    assert len(legs.references(many)) == 300
    assert len(legs.references(many, settings.reference_lookups_per_query)) == 8
    lines = [
        {
            "doc_id": f"r{n}",
            "title": f'פס"ד {n}',
            "text": f"פסק דין בעניין תכנית {n}",
            "case_number": f'עע"מ {n}/11',
            "doc_type": "ruling",
            "court": "העליון",
            "decided_on": "2011-01-01",
        }
        for n in (1111, 2222)
    ]
    path = write(tmp_path / "r.jsonl", "\n".join(json.dumps(x, ensure_ascii=False) for x in lines))
    assert app.ingest([path], "external").ingested == 2
    query = 'עע"מ 1111/11 ועע"מ 2222/11'

    def referenced(lookups: int) -> set[str]:
        capped = settings.model_copy(update={"reference_lookups_per_query": lookups})
        result = search(app.store, app.embedder, capped, "external", query, mode="lexical")
        return {h["doc_id"] for h in result.hits if "reference" in h["explain"]}

    assert referenced(8) == {"r1111", "r2222"}
    assert referenced(1) == {"r1111"}  # the first the query names
    assert referenced(0) == set()
    result = app.search("external", many[:1990], mode="lexical")  # answered, not fanned out
    assert all(h["corpus"] == "external" for h in result.hits)


# -- 5. methodology edits ------------------------------------------------------------------------
def _profile(app) -> dict:
    return methodology.show(app, "universal")


def _blocks(app, **headings) -> dict:
    spec = _profile(app)["profile"]["blocks"]
    return {**spec, "headings": {**spec["headings"], **headings}}


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (
            lambda app: {"blocks": _blocks(app, opening="(a+)+$")},
            r"methodology blocks.headings.opening: the pattern '\(a\+\)\+\$' backtracks",
        ),
        (
            lambda app: {"blocks": {**_blocks(app), "signature_start": "(x|xx)+y"}},
            "methodology blocks.signature_start: the pattern .* backtracks without bound",
        ),
        (
            lambda app: {"blocks": _blocks(app, discussion="(דיון")},
            "methodology blocks.headings.discussion: not a valid regular expression",
        ),
        (
            lambda app: {"blocks": {**_blocks(app), "colour": "red"}},
            "methodology blocks.colour: not a known key",
        ),
        (lambda app: {"blocks": _blocks(app, header="x")}, "methodology blocks.headings.header"),
        (
            lambda app: {"blocks": {**_blocks(app), "order": ["header", "signature"]}},
            "blocks.order: .*each of the 12 blocks once",
        ),
        (
            lambda app: {"golden_ratios": {"discussion": 1.5}},
            "methodology golden_ratios.discussion: Input should be less than or equal to 1",
        ),
        (lambda app: {"golden_ratios": {"discussion": "0.5"}}, "golden_ratios.discussion"),
        (lambda app: {"golden_ratios": {"discussion": 0.7, "background": 0.7}}, "sum to at most 1"),
        (
            lambda app: {"anti_patterns": "כידוע"},
            "methodology anti_patterns: Input should be a valid list",
        ),
        (lambda app: {"transition_phrases": ["אשר על כן", 3]}, "transition_phrases.1"),
        (lambda app: {"voice_invariants": ["\u200b\x00"]}, "voice_invariants.0: is empty"),
        (lambda app: {"content_checklists": {"won": ["x"]}}, "content_checklists.won"),
        (lambda app: {"lessons": [{"id": 1}]}, "methodology lessons.0.category: Field required"),
        (lambda app: {"tone": "dry"}, r"methodology keys \['tone'\] are not editable"),
        (lambda app: ["anti_patterns"], "a methodology edit is a JSON object"),
    ],
)
def test_a_bad_methodology_edit_is_refused_naming_the_key_and_saves_nothing(app, changes, message):
    chair = app.acting_as(CHAIR)
    before = _profile(app)
    started = time.monotonic()
    with pytest.raises(InvalidInput, match=message):
        methodology.edit(chair, "universal", changes(app))
    assert time.monotonic() - started < 5  # a runaway pattern is stopped by its time box
    assert _profile(app) == before
    assert rows(app, "learning_audit") == 0


def test_a_good_edit_is_saved_cleaned(app):
    chair = app.acting_as(CHAIR)
    saved = methodology.edit(
        chair,
        "universal",
        {
            "anti_patterns": ["כי\u200bדוע", " אין חולק כי\x00 "],
            "golden_ratios": {"discussion": 0.4},
        },
    )
    assert saved["version"] == 2
    assert saved["profile"]["anti_patterns"] == ["כידוע", "אין חולק כי"]
    assert saved["profile"]["golden_ratios"] == {"discussion": 0.4}


def test_a_stored_runaway_pattern_cannot_hang_an_upload(app, tmp_path):
    """A pattern that reached the database some other way (an older version, SQL) is still
    applied under a time limit: the upload is refused naming it, and refused at once next time."""
    with app.store.pool.connection() as conn:
        conn.execute(
            "UPDATE methodology_profiles SET profile = jsonb_set(profile,"
            " '{blocks,headings,opening}', to_jsonb('פתח דבר|(a|aa)+$'::text))"
            " WHERE appeal_type = 'universal'"
        )
    text = "a" * 58 + "!\n\nפתח דבר\n\nרקע\n\nדיון\n\nסוף דבר\n\nניתנה היום"
    draft = write(tmp_path / "draft.txt", text)
    before = state(app)
    for budget in (10, 0.5):
        started = time.monotonic()
        with pytest.raises(InvalidInput, match="methodology blocks.headings.opening: .*edit"):
            drafts.add_draft(app, "ערר 8/25", draft, appeal_type="permit")
        assert time.monotonic() - started < budget
    assert state(app) == before
    with app.store.pool.connection() as conn:
        assert conn.execute("SELECT count(*) AS n FROM drafts").fetchone()["n"] == 0


def test_free_text_of_the_loop_is_cleaned_and_bounded(app, tmp_path):
    """Feedback, lessons, reasons, votes, findings, principles and attached citations: NUL and
    invisible characters never reach PostgreSQL; non-text and overlong values are refused."""
    from legal_ai.auth import CHAIR
    from legal_ai.learning.lessons import feedback, lesson_panel, lessons

    path = tmp_path / "protocol.txt"
    path.write_text("פרוטוקול הדיון: נקבע כי הקלה בקו בניין מחייבת הצדקה.", encoding="utf-8")
    case = "ערר 77/25"
    app.ingest([path], "case", meta={"case_number": case, "practice_area": "planning"})
    row = feedback.record(app, "style", "חסר\x00 סיור\u200f במקום", case=case)
    assert row["text"] == "חסר סיור במקום"
    lesson = lessons.propose(app, case, "style", "\ufeffמשפטים\x00 קצרים")
    assert lesson["text"] == "משפטים קצרים"
    reviewed = lessons.review(app.acting_as(CHAIR), lesson["id"], "approve", reason="כן\x00")
    assert reviewed["review_reason"] == "כן"
    with pytest.raises(InvalidInput, match="lesson text is empty"):
        lessons.propose(app, case, "style", "\x00\u200b ")
    with pytest.raises(InvalidInput, match="must be text"):
        feedback.record(app, "style", ["not", "text"])
    with pytest.raises(InvalidInput, match="keep it to"):
        feedback.record(app, "style", "א" * 20_001)
    with pytest.raises(InvalidInput, match="model name"):
        lesson_panel.decide_by_panel(
            engine(app),
            lesson["id"],
            [
                {"model": "\x00", "vote": "approve", "model_call_id": 1},
                {"model": "b", "vote": "approve", "model_call_id": 2},
            ],
        )
    saved = app.attach_precedent(case, 'עע"מ\x00 1234/05', note="\u202eהערה")
    assert saved["citation"] == 'עע"מ 1234/05' and saved["note"] == "הערה"


def test_a_metadata_field_name_with_control_characters_gives_a_one_line_error(tmp_path):
    """Found by the fuzzer: a key '\\r' reached the message as a line break."""
    import json as _json

    from legal_ai.corpora import get_corpus
    from legal_ai.ingest.sources import SourceError, read_source

    path = tmp_path / "r.jsonl"
    records = [
        {"doc_id": "1", "text": "היתר", "metadata": {"\r": float("inf")}},
        {"doc_id": "2", "text": "היתר", "\r\n": "x"},
    ]
    path.write_text("\n".join(_json.dumps(r) for r in records), encoding="utf-8")
    entries = list(read_source(path, get_corpus("case"), {}, doc_id=None, max_bytes=2**20))
    errors = [e.error for e in entries if isinstance(e, SourceError)]
    assert len(errors) == 2 and all("\n" not in e for e in errors), errors


@pytest.mark.parametrize(
    ("corpus", "queries", "qrels", "message"),
    [
        (
            '{"doc_id": "d1", "text": "א"}',
            '{"query_id": "q1", "text": "ב"}',
            "query_id\tdoc_id\trelevance\nq1\td1\t1.0\n",
            "relevance '1.0' is not a whole number",
        ),
        (
            '["d1", "א"]',
            '{"query_id": "q1", "text": "ב"}',
            "query_id\tdoc_id\trelevance\nq1\td1\t1\n",
            "each line must be a JSON object",
        ),
        (
            '{"doc_id": "d1", "text": "א"}',
            '{"query_id": "q1"}',
            "query_id\tdoc_id\trelevance\nq1\td1\t1\n",
            "query 1 has no text",
        ),
        (
            '{"doc_id": "d1", "text": "א"}',
            b'{"query_id": "q1", "text": "\xe0"}',
            "query_id\tdoc_id\trelevance\nq1\td1\t1\n",
            "queries file is not UTF-8",
        ),
    ],
)
def test_an_evaluation_set_that_cannot_be_read_is_refused_in_one_line(
    tmp_path, corpus, queries, qrels, message
):
    paths = []
    for name, content in (
        ("corpus.jsonl", corpus),
        ("queries.jsonl", queries),
        ("qrels.tsv", qrels),
    ):
        path = tmp_path / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
        paths.append(path)
    with pytest.raises(InvalidInput, match=re.escape(message)) as refused:
        load_dataset(*paths)
    assert "\n" not in str(refused.value)
