"""Property-based fuzzing (hypothesis) of the readers and of the search arguments (issue 10 §6).

- Readers: PDF, DOCX, Akoma Ntoso XML and JSONL given random bytes and mutations of small valid
  files made here (a hand-written PDF, a python-docx document, a one-section law, JSONL records
  of every field type). Each read returns text or items, or raises UnsupportedFile/InvalidInput
  (a JSONL line: a SourceError naming its line) - never another exception - and no string that
  comes out holds NUL, zero-width or bidi characters. pdftotext runs under its time, output and
  address-space limits (text.extract.Limits).
- Text: the cleaner and the case-number normalizer are idempotent on any input.
- Ingest: random JSONL batches through the real pipeline: every line is ingested or reported.
- Search: random queries (NUL, RTL marks, niqqud, presentation forms, hostile SQL-ish strings,
  huge strings, non-text), every corpus, every filter (valid, blank, dirty, malformed, foreign to
  the corpus), limits and modes, against a small corpus planted in every corpus: every call
  returns hits of the searched corpus only (honouring its case, court and date filters) or
  raises an AppError subclass.

Example counts and deadlines are bounded so the file runs in well under a minute (a longer run:
LEGAL_AI_FUZZ_SCALE=10); the number of cases tried, and what became of them, is printed at the
end (the figures docs/reliability.md records).
"""

from __future__ import annotations

import datetime as dt
import inspect
import io
import json
import os
import string
import zipfile
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from psycopg import sql

from factories import akn_xml, tiny_docx, tiny_pdf
from helpers import DECISION_FIELDS, write
from legal_ai.corpora import SEARCHABLE, get_corpus
from legal_ai.errors import AppError, InvalidInput, UnsupportedFile
from legal_ai.ingest.sources import IngestItem, SourceError, read_source
from legal_ai.retrieval.legs import SUPPORTED_FILTERS, Filters
from legal_ai.retrieval.tools import TOOL_OF_CORPUS, TOOLS
from legal_ai.text import akn
from legal_ai.text.case_numbers import normalize_case_number
from legal_ai.text.extract import Limits, extract
from legal_ai.text.hebrew import clean_text, clean_value

TRIED: Counter[str] = Counter()  # cases tried per target
OUTCOMES: Counter[str] = Counter()  # what became of them (stored/refused, answered/refused)
FORBIDDEN = {
    "\x00",
    "\u200b",
    "\u200c",
    "\u200d",
    "\u200e",
    "\u200f",
    "\u202b",
    "\u202e",
    "\u2067",
    "\ufeff",
    "\u00ad",
}
# Fast enough for make test: pdftotext's own limits stay on, at a size a fuzzed file can reach.
FUZZ_LIMITS = Limits(pdf_seconds=10, text_bytes=2**20, pdf_memory_bytes=2**30)


# A longer run multiplies every example count: LEGAL_AI_FUZZ_SCALE=10 (read at import, before
# the suite's fixtures clear LEGAL_AI_* variables).
SCALE = float(os.environ.get("LEGAL_AI_FUZZ_SCALE", "1"))


def fuzz(examples: int):
    return settings(
        max_examples=max(1, round(examples * SCALE)),
        deadline=None,
        database=None,
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.function_scoped_fixture,
            HealthCheck.data_too_large,
        ],
    )


@pytest.fixture(scope="module", autouse=True)
def report_cases_tried(request):
    yield
    tried = ", ".join(f"{k} {v}" for k, v in sorted(TRIED.items()))
    outcomes = ", ".join(f"{k} {v}" for k, v in sorted(OUTCOMES.items()))
    line = f"fuzz cases tried: {sum(TRIED.values())} ({tried}); {outcomes}"
    plugins = request.config.pluginmanager
    reporter, capture = plugins.getplugin("terminalreporter"), plugins.getplugin("capturemanager")
    if reporter is not None and capture is not None:
        with capture.global_and_fixture_disabled():
            reporter.write_line("\n" + line)


def clean_strings(value) -> bool:
    """No forbidden character in any string of `value` (nested lists and dicts included)."""
    if isinstance(value, str):
        return not (set(value) & FORBIDDEN)
    if isinstance(value, dict):
        return all(clean_strings(k) and clean_strings(v) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return all(clean_strings(v) for v in value)
    return True


# -- strategies ----------------------------------------------------------------------------------
HEBREW = "אבגדהוזחטיכלמנסעפצקרשתךםןףץ"
NASTY = [
    "\x00",
    "\u200b",
    "\u200d",
    "\u200e",
    "\u200f",
    "\u202b",
    "\u202c",
    "\u202e",
    "\u2067",
    "\u2069",
    "\ufeff",
    "\u00ad",
    "\ufb2a",
    "\ufb20",
    "\ufb4f",
    "\u05b0",
    "\u05bc",
    "\u05c1",
    "״",
    "׳",
    '"',
    "'",
    "\r",
    "\n",
    "\t",
    "\\",
    "%",
    "_",
    "(",
    ")",
    "-",
    "/",
    ";",
    "*",
]
WORDS = [
    "היתר",
    "הקלה",
    "בניין",
    "ערר",
    "סעיף 152",
    "סעיף 14 לתוספת השלישית",
    'עע"מ 1234/05',
    "בג״ץ 1-05",
    "ערר (מרכז) 1042/23",
    "OR 1=1",
    "'; DROP TABLE documents; --",
    "-היתר",
    '"phrase',
    "&&",
    "||",
    "!",
    ":*",
    "<->",
    "\\x00",
]
texty = st.text(alphabet=st.sampled_from(list(HEBREW + string.printable) + NASTY), max_size=60)


def mostly(good, bad, ratio: int = 4):
    """`good` about `ratio` times as often as `bad` (one_of would pick each about equally)."""
    return st.sampled_from(range(ratio + 1)).flatmap(lambda i: bad if i == ratio else good)


words = st.lists(st.one_of(st.sampled_from(WORDS), texty), min_size=1, max_size=6).map(" ".join)
queries = mostly(
    words,
    st.one_of(
        texty,
        st.integers(1990, 9000).map(lambda n: ("היתר " * n)[:n]),  # around the length bound
        st.sampled_from(["", " ", "\x00" * 5, "ְֱֲ", "\u202b\u202c", "א" * 100_000]),
        st.sampled_from([None, 5, ["היתר"], b"\xd7\x94"]),
    ),
)
good_dates = st.dates(dt.date(1990, 1, 1), dt.date(2030, 1, 1)).map(dt.date.isoformat)
bad_dates = st.one_of(
    st.sampled_from(["2023-02-30", "20230101", "yesterday", "2023-1-1", "\x00", "0000-01-01"]),
    texty,
)
dates = mostly(st.one_of(good_dates, good_dates.map(lambda d: f" {d}\u200b")), bad_dates)
PLANTED_CASES = [
    "ערר 5/25",
    "ערר 6/25",
    "ערר  6 / 25",
    "\u200bערר 5/25\x00",
    "ערר 7/25",
    "ערר (מרכז) 1042/23",
    "ערר(מרכז) 1042-23",
    'עע"מ 1234/05',
    "עע״מ 1234-05",
]
case_numbers = mostly(st.sampled_from(PLANTED_CASES), texty)
good_filters = {
    "practice_area": st.sampled_from(["planning", "betterment_levy", "plan\u200bning"]),
    "case_number": st.sampled_from(PLANTED_CASES),
    "court": st.sampled_from(["העליון", "המחוזי", "העל\u200bיון", "ועדת הערר"]),
    "date_from": good_dates,
    "date_to": good_dates,
    "doc_type": st.sampled_from(["ruling", "legislation", "document", "decision", "digest"]),
    "exclude_case_number": st.sampled_from(PLANTED_CASES),
}
bad_filter = st.one_of(bad_dates, st.sampled_from(["", " ", "\x00\u200b", 7, ["x"], "x" * 900]))
limits = mostly(st.integers(1, 12), st.sampled_from([0, -1, 101, 10**9, True, "5", 2.5, None]))
modes = mostly(
    st.sampled_from(["hybrid", "semantic", "lexical"]),
    st.sampled_from(["fuzzy", "", None, ["hybrid"]]),
)


def filters_for(corpus: str):
    """Filters for `corpus`: its own filters often set (mostly to good values), a filter it
    cannot apply now and then."""
    fields = {}
    for name, good in good_filters.items():
        if name in SUPPORTED_FILTERS[corpus]:
            fields[name] = st.one_of(st.none(), st.none(), mostly(good, bad_filter))
        else:
            fields[name] = st.one_of(*[st.none()] * 12, good)
    return st.builds(Filters, **fields)


def mutations(seed: bytes):
    """Byte-level mutations of `seed`: flips, inserts, deletions and a truncation."""
    edit = st.tuples(
        st.sampled_from(["flip", "insert", "delete", "truncate"]),
        st.integers(0, max(len(seed) - 1, 0)),
        st.binary(min_size=1, max_size=16),
    )

    def apply(edits) -> bytes:
        data = bytearray(seed)
        for kind, at, blob in edits:
            at = min(at, len(data))
            if kind == "flip" and at < len(data):
                data[at] ^= blob[0] or 0xFF
            elif kind == "insert":
                data[at:at] = blob
            elif kind == "delete":
                del data[at : at + len(blob)]
            elif kind == "truncate":
                del data[at:]
        return bytes(data)

    return st.lists(edit, min_size=1, max_size=6).map(apply)


# -- readers -----------------------------------------------------------------------------------
def read_file(path: Path, data: bytes, reader) -> None:
    path.write_bytes(data)
    try:
        result = reader(path)
    except (UnsupportedFile, InvalidInput) as exc:
        assert str(exc) and "\n" not in str(exc)
        return
    assert clean_strings(result)


def _extract_text(path: Path):
    extracted = extract(path, FUZZ_LIMITS)
    return [extracted.text, extracted.issue]


def _law(path: Path):
    return list(akn.parse_law(path))


PDF = tiny_pdf()
DOCX = tiny_docx("פסק\u200b דין\nשורה שנייה")


def test_fuzz_pdf_reader(tmp_path):
    pdf_text = st.text(alphabet=st.characters(max_codepoint=255), max_size=40)

    @fuzz(40)
    @given(st.one_of(st.binary(max_size=2000), mutations(PDF), pdf_text.map(tiny_pdf)))
    def check(data):
        TRIED["pdf"] += 1
        read_file(tmp_path / "fuzz.pdf", data, _extract_text)

    check()


def _docx_with(document_xml: bytes) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(DOCX)) as source, zipfile.ZipFile(buffer, "w") as target:
        for name in source.namelist():
            data = document_xml if name == "word/document.xml" else source.read(name)
            target.writestr(name, data)
    return buffer.getvalue()


def test_fuzz_docx_reader(tmp_path):
    with zipfile.ZipFile(io.BytesIO(DOCX)) as archive:
        document_xml = archive.read("word/document.xml")

    @fuzz(60)
    @given(
        st.one_of(
            st.binary(max_size=2000),
            mutations(DOCX),
            mutations(document_xml).map(_docx_with),  # a valid package with damaged XML
        )
    )
    def check(data):
        TRIED["docx"] += 1
        read_file(tmp_path / "fuzz.docx", data, _extract_text)

    check()


def test_fuzz_akoma_ntoso_reader(tmp_path):
    body = st.text(alphabet=st.sampled_from(list(HEBREW + " .&<>;") + NASTY), max_size=80)

    @fuzz(80)
    @given(
        st.one_of(
            st.binary(max_size=2000),
            mutations(akn_xml()),
            body.map(lambda b: akn_xml(b.replace("&", "&amp;").replace("<", "&lt;"))),
            body.map(akn_xml),
        )
    )
    def check(data):
        TRIED["akoma_ntoso"] += 1
        read_file(tmp_path / "fuzz.xml", data, _law)

    check()


# JSON values: scalars of every type, lists and objects, nested.
json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    texty,
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(texty, inner, max_size=3)),
    max_leaves=6,
)
# A record: every field well typed most of the time (so that most records are stored), one
# field replaced by any JSON value now and then, keys missing at random.
GOOD_FIELDS = {
    "doc_id": st.one_of(
        st.text(
            HEBREW + string.ascii_letters + string.digits + "-_#/\u200b", min_size=1, max_size=24
        ),
        st.integers(0, 10**9),
    ),
    "text": texty.map(lambda t: "היתר בנייה " + t),
    "title": texty,
    "decided_on": dates,
    "published_on": dates,
    "case_number": case_numbers,
    "court": good_filters["court"],
    "practice_area": good_filters["practice_area"],
    "doc_type": good_filters["doc_type"],
    "judges": st.one_of(texty, st.lists(texty, max_size=3)),
    "is_binding": st.sampled_from([True, False, "כן", "no", 1]),
    "metadata": st.dictionaries(texty, st.one_of(json_scalars, st.lists(json_scalars)), max_size=3),
    "extra": json_scalars,
}
good_records = st.fixed_dictionaries(
    {"doc_id": GOOD_FIELDS["doc_id"], "text": GOOD_FIELDS["text"]},
    optional={k: v for k, v in GOOD_FIELDS.items() if k not in ("doc_id", "text")},
)
records = mostly(
    good_records,
    st.one_of(
        st.tuples(good_records, st.sampled_from(sorted(GOOD_FIELDS)), json_values).map(
            lambda r: {**r[0], r[1]: r[2]}
        ),
        st.dictionaries(st.sampled_from(sorted(GOOD_FIELDS)), json_values, max_size=5),
    ),
)
jsonl_lines = st.lists(
    mostly(
        st.one_of(
            records.map(lambda r: json.dumps(r, ensure_ascii=False).encode()),
            records.map(lambda r: json.dumps(r).encode()),  # \\u escapes: NUL, bidi
        ),
        st.one_of(
            st.binary(max_size=60).filter(lambda b: b"\n" not in b),
            st.sampled_from(
                [
                    b"[" * 5000,
                    b"5",
                    b"null",
                    b'"x"',
                    b"{",
                    b"\xff\xfe",
                    b'{"doc_id": "s\\ud800", "text": "\\udfff\\u0000 \\u202e"}',
                ]
            ),
        ),
    ),
    min_size=1,
    max_size=4,
)


def jsonl_file(path: Path, lines: list[bytes]) -> Path:
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def test_fuzz_jsonl_reader_every_corpus(tmp_path):
    @fuzz(150)
    @given(jsonl_lines, st.sampled_from(sorted(k for k in SEARCHABLE if k != "case_precedents")))
    def check(lines, corpus_key):
        TRIED["jsonl_records"] += 1
        path = jsonl_file(tmp_path / "fuzz.jsonl", lines)
        entries = list(read_source(path, get_corpus(corpus_key), {}, doc_id=None, max_bytes=2**20))
        assert len(entries) <= len(lines)
        for entry in entries:
            if isinstance(entry, SourceError):
                assert entry.error.startswith(f"{path}:") and "\n" not in entry.error
                continue
            assert isinstance(entry, IngestItem)
            assert isinstance(entry.doc_id, str) and 0 < len(entry.doc_id) <= 500
            assert isinstance(entry.text, str)
            assert clean_strings([entry.doc_id, entry.text, entry.fields, entry.metadata])
            json.dumps(entry.metadata, allow_nan=False)  # storable as jsonb

    check()


def test_fuzz_text_normalizers_are_idempotent():
    alphabet = st.sampled_from(list(HEBREW + "0123456789 ()/-") + NASTY + ["(מרכז)", 'בג"צ'])

    @fuzz(400)
    @given(st.lists(alphabet, max_size=30).map("".join))
    def check(text):
        TRIED["normalizers"] += 1
        cleaned = clean_text(text)
        assert clean_text(cleaned) == cleaned and clean_strings(cleaned)
        key = normalize_case_number(text)
        assert normalize_case_number(key) == key and clean_strings(key)
        assert clean_value(clean_value(text)) == clean_value(text)

    check()


# -- the database: ingest and search ------------------------------------------------------------
@pytest.mark.db
def test_fuzz_jsonl_ingest_reports_every_line(app, tmp_path):
    @fuzz(15)
    @given(jsonl_lines, st.sampled_from(["external", "internal", "digests"]))
    def check(lines, corpus):
        TRIED["jsonl_ingest"] += 1
        path = jsonl_file(tmp_path / "batch.jsonl", lines)
        report = app.ingest([path], corpus)
        OUTCOMES["jsonl records stored"] += report.ingested + report.updated
        OUTCOMES["jsonl records refused"] += len(report.failed)
        outcomes = report.ingested + report.unchanged + report.updated + len(report.failed)
        assert outcomes == len([line for line in lines if line.strip()])
        assert all("\n" not in f["error"] for f in report.failed)

    check()
    with app.store.pool.connection() as conn:
        for table in ("case_law", "digests"):
            query = sql.SQL("SELECT doc_id, title, content, metadata FROM {}")
            for row in conn.execute(query.format(sql.Identifier(table))):
                assert clean_strings(dict(row))


def plant(app, tmp_path) -> dict[str, set[str]]:
    """Two items in every corpus (and two attached citations); the doc_ids each corpus owns."""
    ruling = {"doc_type": "ruling", "court": "העליון", "practice_area": "planning"}
    batches = {
        "external": [
            {
                **ruling,
                "doc_id": "ext-1",
                "title": "הקלה",
                "case_number": 'עע"מ 1234/05',
                "decided_on": "2005-03-01",
                "text": "הקלה בקו בניין צדדי לפי סעיף 152 לחוק",
            },
            {
                **ruling,
                "doc_id": "ext-2",
                "title": "היטל",
                "court": "המחוזי",
                "case_number": 'עמ"נ 77/20',
                "decided_on": "2020-06-01",
                "text": "היטל השבחה בשל תכנית משביחה",
            },
        ],
        "internal": [
            {
                "doc_id": "int-1",
                "doc_type": "decision",
                "title": "החלטה",
                "court": "ועדת הערר",
                "case_number": "ערר (מרכז) 1042/23",
                "decided_on": "2023-11-14",
                "practice_area": "planning",
                **DECISION_FIELDS,
                "text": "הערר על סירוב להיתר בנייה נדחה",
            },
            {
                "doc_id": "int-2",
                "doc_type": "decision",
                "title": "החלטה",
                "court": "ועדת הערר",
                "case_number": "ערר 6/25",
                "decided_on": "2025-01-01",
                "practice_area": "betterment_levy",
                **DECISION_FIELDS,
                "text": "שומת השמאי המכריע בהיטל השבחה",
            },
        ],
        "digests": [
            {
                "doc_id": "dig-1",
                "title": "תקציר",
                "points_to": 'עע"מ 1234/05',
                "publisher": "נבו",
                "published_on": "2006-01-01",
                "practice_area": "planning",
                "text": "תקציר: הקלה בקו בניין",
            },
            {
                "doc_id": "dig-2",
                "title": "תקציר",
                "points_to": "x",
                "publisher": "נבו",
                "published_on": "2021-01-01",
                "practice_area": "planning",
                "text": "תקציר על היטל השבחה",
            },
        ],
    }
    for corpus, lines in batches.items():
        path = write(
            tmp_path / f"{corpus}.jsonl",
            "\n".join(json.dumps(x, ensure_ascii=False) for x in lines),
        )
        report = app.ingest([path], corpus)
        assert report.ingested == 2 and not report.unsearchable, report.as_dict()
    owned = {corpus: {x["doc_id"] for x in lines} for corpus, lines in batches.items()}
    for corpus, case in (("case", "ערר 5/25"), ("case", "ערר 6/25"), ("style", "ערר 7/25")):
        doc = write(tmp_path / f"{corpus}-{case[-4:-3]}.txt", f"מסמך בתיק {case}: בקשה להיתר")
        report = app.ingest([doc], corpus, meta={"case_number": case, "practice_area": "planning"})
        assert report.ingested == 1 and not report.unsearchable, report.as_dict()
        owned.setdefault(corpus, set()).update(report.doc_ids)
    for case in ("ערר 5/25", "ערר 6/25"):
        app.attach_precedent(case, 'עע"מ 1234/05', note="הקלה בקו בניין")
    owned["case_precedents"] = None  # citations: checked by corpus and case below
    return owned


def check_hits(result: dict | list, corpus: str, owned, limit, flt: Filters) -> None:
    hits = result["hits"] if isinstance(result, dict) else result
    assert isinstance(limit, int) and len(hits) <= limit
    for hit in hits:
        assert hit["corpus"] == corpus
        if owned is not None:
            assert hit["doc_id"] in owned
        if flt.case_number and clean_value(flt.case_number):
            assert hit["case_number"] == normalize_case_number(clean_value(flt.case_number))
        if flt.exclude_case_number and clean_value(flt.exclude_case_number):
            assert hit["case_number"] != normalize_case_number(clean_value(flt.exclude_case_number))
        if flt.court and clean_value(flt.court):
            assert hit["court"] == clean_value(flt.court)
        if hit["decided_on"] and flt.date_from and clean_value(flt.date_from):
            assert hit["decided_on"] >= clean_value(flt.date_from)
        if hit["decided_on"] and flt.date_to and clean_value(flt.date_to):
            assert hit["decided_on"] <= clean_value(flt.date_to)


def _parameters(tool) -> dict:
    return {
        name: p.default
        for name, p in inspect.signature(tool).parameters.items()
        if name not in ("app", "query")
    }


@pytest.mark.db
def test_fuzz_search_arguments_every_corpus_and_filter(app, tmp_path):
    owned = plant(app, tmp_path)

    @fuzz(120)
    @given(st.sampled_from(sorted(SEARCHABLE)), queries, limits, modes, st.data())
    def search_directly(corpus, query, limit, mode, data):
        TRIED["search"] += 1
        flt = data.draw(filters_for(corpus), label="filters")
        try:
            result = app.search(corpus, query, filters=flt, limit=limit, mode=mode)
        except AppError as exc:
            assert str(exc) and "\n" not in str(exc)
            OUTCOMES["searches refused"] += 1
            return
        OUTCOMES["searches answered"] += 1
        OUTCOMES["hits checked"] += len(result.hits)
        check_hits(result.hits, corpus, owned[corpus], limit, flt)

    search_directly()

    arguments = {
        name: st.one_of(st.none(), st.none(), mostly(good_filters[name], bad_filter))
        for name in ("practice_area", "case_number", "court", "date_from", "date_to")
    }
    arguments.update(text=st.one_of(st.none(), queries), limit=limits, mode=modes)

    @fuzz(80)
    @given(st.sampled_from(sorted(TOOLS)), queries, st.data())
    def through_tools(name, query, data):
        TRIED["search_tools"] += 1
        tool = TOOLS[name]
        accepted = _parameters(tool)
        drawn = {k: data.draw(arguments[k], label=k) for k in accepted if k in arguments}
        if "query" in inspect.signature(tool).parameters:
            drawn["query"] = query
        corpus = (
            "case"
            if name == "find_similar_cases"
            else next(c for c, t in TOOL_OF_CORPUS.items() if t == name)
        )
        try:
            result = app.tool(name, **drawn)
        except AppError as exc:
            assert str(exc) and "\n" not in str(exc)
            OUTCOMES["searches refused"] += 1
            return
        OUTCOMES["searches answered"] += 1
        OUTCOMES["hits checked"] += len(result["hits"])
        flt = Filters(
            **{
                k: drawn.get(k)
                for k in ("case_number", "court", "date_from", "date_to")
                if isinstance(drawn.get(k), str)
            }
        )
        if name == "find_similar_cases":  # the given case is excluded, not required
            flt = Filters(exclude_case_number=flt.case_number)
        check_hits(result, corpus, owned[corpus], drawn.get("limit", accepted.get("limit")), flt)

    through_tools()
