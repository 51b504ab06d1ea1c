"""Benchmark (issue 22, item 4): one measure of reading. The same decisions are read as plain
text, as Word writes them, as a paged PDF and as scans, and each reading is measured against the
plain-text version.

Each decision (the fictional finals of tests/fixtures/decisions; with `--decisions shared` the
synthetic decisions of ../shared/data too) is first made what a chair's Word final is
(tests/word_docs.as_word): its rulings cited in footnotes, the outcome word a tracked insertion
after a tracked deletion, a table of the proceedings after the background's first paragraph. Its
plain-text version — the body as Word shows it, the footnotes after it in their section — is the
reference, and every other format is made from the same decision:

- text: the plain-text version (.txt), read as ingest reads it;
- docx: the Word file (footnotes, the two tracked changes, the table);
- pdf: the plain-text version set on A5 pages (factories.paged_pdf: justified lines, paragraphs
  broken across pages, a running header with the committee and the case line, `עמוד N מתוך M`),
  by fpdf2's shaping engine: a visual-order producer (its lines come out of pdftotext in visual
  order and are put back by text/pdf_bidi.py);
- pdf-office: the plain-text version as a word processor's right-to-left document exported to PDF
  by LibreOffice (tests/office_files.office_pdf; needs `soffice`: scripts/install-system --office);
- scan300 / scan200 / scan150: the plain-text version on A4 pages (factories.pages_of), rendered
  at that resolution into a PDF with no text layer (factories.scanned_pdf) and read as the OCR
  worker reads it (legal_ai.text.ocr.read_pdf).

Per format and decision: characters right (1 - CER, whitespace runs as one space:
ocr.character_accuracy), words right (1 - WER: word edits over the reference's words), numbers
right (the reference's number tokens found, and tokens read that it lacks:
ocr_numbers.number_accuracy), citations (text/citations.extract: the refs found, and how many of
the reference's refs as a multiset), the blocks (text/blocks.segment with the universal profile
a new database holds) and the style distance to the decision's draft (the change percent of the
learning loop: learning/pairs/alignment.change_percent over the blocks), and its difference from the
text version's. Medians across decisions per format; prints one JSON object.

    .venv/bin/python bench/reading.py [--formats text,docx,pdf,pdf-office,scan300,scan200,scan150]
        [--decisions fixtures|shared|all|<slug>,...]

No database; the scans need tesseract-ocr, tesseract-ocr-heb and poppler-utils (make install).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
import warnings
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import factories  # noqa: E402
import office_files  # noqa: E402
import word_docs  # noqa: E402
from legal_ai.config import Settings  # noqa: E402
from legal_ai.errors import InvalidInput  # noqa: E402
from legal_ai.learning.methodology import profiles as methodology  # noqa: E402
from legal_ai.learning.pairs import alignment  # noqa: E402
from legal_ai.text import blocks as text_blocks  # noqa: E402
from legal_ai.text import citations, extract, ocr, office  # noqa: E402
from legal_ai.text import ocr_numbers as numbers  # noqa: E402

SHARED = ROOT.parent / "shared" / "data" / "synthetic-decisions"
FORMATS = ("text", "docx", "pdf", "pdf-office", "scan300", "scan200", "scan150")
COMMITTEE = "ועדת הערר לתכנון ובנייה – מחוז מרכז"


def office_pdf(path: Path, text: str) -> Path:
    """The word processor's export (LibreOffice), its DOCX kept beside it."""
    return office_files.office_pdf(path, text)


@dataclass(frozen=True)
class Decision:
    case_number: str
    slug: str
    draft: str  # our draft's text
    word: word_docs.WordDecision  # the final as Word writes it, and its plain-text version


def decision_of(record: dict, final: str, draft: str) -> Decision:
    rulings = [c["text"] for c in record.get("citations", []) if c["kind"] == "ruling"]
    case = record["case_number"]
    return Decision(case, factories.slug(case), draft, word_docs.as_word(final, rulings))


def _shared() -> list[Decision]:
    if not (SHARED / "decisions.jsonl").is_file():
        return []
    out = []
    for line in (SHARED / "decisions.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        files = {k: (SHARED / v).read_text(encoding="utf-8") for k, v in record["files"].items()}
        out.append(decision_of(record, files["final"], files["draft"]))
    return out


def decisions(which: list[str]) -> list[Decision]:
    """The fixture finals ("fixtures"), the shared synthetic ones ("shared"), both ("all"), and
    any named by its slug (arar-merkaz-7014-25)."""
    fixtures = [decision_of(r, r["final_text"], r["draft_text"]) for r in factories.records()]
    shared = _shared() if set(which) != {"fixtures"} else []
    if {"shared", "all"} & set(which) and not shared:
        sys.exit(f"{SHARED} is not here: run with --decisions fixtures")
    out = fixtures if {"fixtures", "all"} & set(which) else []
    out = out + (shared if {"shared", "all"} & set(which) else [])
    out += [d for d in fixtures + shared if d.slug in which and d not in out]
    if not out:
        sys.exit(f"no decision named {', '.join(which)}")
    return out


def write(form: str, decision: Decision, tmp: Path) -> Path:
    """The decision in `form`, written under `tmp`."""
    text, name = decision.word.text, tmp / f"{decision.slug}-{form}"
    if form == "text":
        path = name.with_suffix(".txt")
        path.write_text(text, encoding="utf-8")
        return path
    if form == "docx":
        word = decision.word
        return word_docs.word_docx(name.with_suffix(".docx"), word.body, footnotes=word.footnotes)
    if form == "pdf":
        furniture = factories.Furniture(
            header=(COMMITTEE, f"{decision.case_number} – החלטה"),
            first_header=(),
            footer="עמוד {page} מתוך {pages}",
        )
        return factories.paged_pdf(name.with_suffix(".pdf"), text, furniture, page="A5")
    if form == "pdf-office":
        return office_pdf(name.with_suffix(".pdf"), text)
    if form.startswith("scan"):
        pages = factories.pages_of(text)
        return factories.scanned_pdf(name.with_suffix(".pdf"), pages, dpi=int(form[4:]))
    raise ValueError(f"unknown format {form!r}")


def read(form: str, path: Path, settings: Settings) -> str:
    """What the project reads from the file: ingest's extraction, or the OCR worker's reading."""
    if form.startswith("scan"):
        reading = ocr.read_pdf(path, settings)
        assert reading is not None
        return reading.text_and_starts[0]
    extracted = extract.extract(path)
    if extracted.issue:
        raise InvalidInput(f"{path.name}: {extracted.issue}")
    return extracted.text


def blocks_of(text: str, spec: dict) -> dict[str, str] | None:
    """The decision's blocks, each's words joined by one space (None: no blocks found)."""
    try:
        found = text_blocks.segment(text, spec).blocks
    except InvalidInput:
        return None
    return {block: " ".join(words.split()) for block, words in found.items()}


def measure(reference: str, got: str, draft: str, spec: dict) -> dict:
    """One reading (`got`) of a decision against its plain-text version (`reference`), and the
    style distance of each to the draft."""
    ref_words, got_words = reference.split(), got.split()
    right, total, wrong = numbers.number_accuracy(reference, got)
    want = Counter(c.ref for c in citations.extract(reference))
    found = Counter(c.ref for c in citations.extract(got))
    draft_blocks = blocks_of(draft, spec) or {}
    ref_blocks, got_blocks = blocks_of(reference, spec), blocks_of(got, spec)
    change = None
    if got_blocks is not None:
        change = alignment.change_percent(alignment.align(draft_blocks, got_blocks))
    text_change = alignment.change_percent(alignment.align(draft_blocks, ref_blocks or {}))
    same = sum((want & found).values())
    return {
        "characters": round(ocr.character_accuracy(reference, got), 4),
        "words": round(
            max(0.0, 1 - alignment.edit_distance(ref_words, got_words) / max(len(ref_words), 1)),
            4,
        ),
        "numbers": total,
        "numbers_right": right,
        "numbers_wrong": wrong,
        "number_accuracy": round(right / total, 4) if total else 1.0,
        "citations": sum(want.values()),
        "citations_found": sum(found.values()),
        "citations_same": same,
        "citation_share": round(same / sum(want.values()), 4) if want else 1.0,
        "blocks_same": got_blocks == ref_blocks,
        "blocks_differing": sorted(
            b
            for b in set(ref_blocks or {}) | set(got_blocks or {})
            if (ref_blocks or {}).get(b) != (got_blocks or {}).get(b)
        ),
        "change_percent": change,
        "text_change_percent": text_change,
        "change_delta": None if change is None else round(change - text_change, 2),
    }


def measure_decision(
    decision: Decision, forms: list[str], tmp: Path, settings: Settings, spec: dict
) -> dict[str, dict]:
    """{format: the decision read in it and measured}."""
    out = {}
    for form in forms:
        path = write(form, decision, tmp)
        started = time.perf_counter()
        got = read(form, path, settings)
        seconds = round(time.perf_counter() - started, 2)
        out[form] = {**measure(decision.word.text, got, decision.draft, spec), "seconds": seconds}
    return out


MEDIANS = (
    "characters",
    "words",
    "number_accuracy",
    "citation_share",
    "change_percent",
    "change_delta",
    "seconds",
)


def summary(rows: list[dict]) -> dict:
    """Medians across decisions (and the counts summed) of one format's rows."""
    out: dict = {}
    for key in MEDIANS:
        values = [r[key] for r in rows if r[key] is not None]
        out[f"{key}_median"] = round(statistics.median(values), 4) if values else None
    for key in ("numbers", "numbers_right", "numbers_wrong", "citations", "citations_same"):
        out[key] = sum(r[key] for r in rows)
    out["characters_min"] = min(r["characters"] for r in rows)
    out["blocks_same"] = sum(r["blocks_same"] for r in rows)
    out["change_delta_max"] = max(
        (abs(r["change_delta"]) for r in rows if r["change_delta"] is not None), default=None
    )
    out["decisions"] = len(rows)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--formats", default=",".join(FORMATS))
    parser.add_argument("--decisions", default="fixtures")
    args = parser.parse_args()
    forms = args.formats.split(",")
    unknown = set(forms) - set(FORMATS)
    if unknown:
        sys.exit(f"unknown format(s): {', '.join(sorted(unknown))}; known: {', '.join(FORMATS)}")
    settings = Settings()
    if "pdf-office" in forms and office.problem():
        sys.exit(office.problem())
    if any(f.startswith("scan") for f in forms) and ocr.problem(settings):
        sys.exit(ocr.problem(settings))
    spec = methodology.seed_profile()["blocks"]
    chosen = decisions(args.decisions.split(","))
    warnings.filterwarnings("ignore", "Dimensions for page format A5")
    per_decision = {}
    with tempfile.TemporaryDirectory(prefix="bench-reading-") as tmp:
        for decision in chosen:
            per_decision[decision.case_number] = measure_decision(
                decision, forms, Path(tmp), settings, spec
            )
    result = {
        "decisions": [d.case_number for d in chosen],
        "chars": sum(len(" ".join(d.word.text.split())) for d in chosen),
        "footnotes": sum(len(d.word.footnotes) for d in chosen),
        "tracked_changes": sum(d.word.changes for d in chosen),
        "ocr_engine": ocr.engine(settings) if any(f.startswith("scan") for f in forms) else None,
        "formats": {f: summary([per_decision[d][f] for d in per_decision]) for f in forms},
        "per_decision": per_decision,
    }
    print(json.dumps(result, ensure_ascii=False, indent=2))


if __name__ == "__main__":
    main()
