"""Benchmark (issue 33 item 6): the cite check of a 30-page draft with 200 citations against a
library of 10,000 rulings, and its peer in the same run.

The library is fictional and cheap: `--rulings` rulings and committee decisions (עע"מ, בר"מ,
עת"מ of a district, ערר of a district) written straight into `case_law` with COPY, each with its
identity columns (text/case_numbers.identity_columns), its parties in its title and a text of
numbered paragraphs; no chunks and no embeddings (the check reads the library by its numbers and
texts; a support passage needs chunks, and is not measured here). The draft is ~30 pages
(`--pages`, ~2,500 characters a page) of Hebrew prose carrying `--citations` citations: most of
rulings the library holds (some with a pinpoint, some with a quotation of their text, some with
another ruling's parties), some of numbers it lacks, some of sections of the Planning and
Building Law.

Timed `--repeat` times each, interleaved: `check` — the draft's citations checked against the
library (learning/checks/citation_check.check_citations, whatever states, support and treatment it
computes in this tree), `check_and_report` — the same and its cite-check report written
(learning/checks/cite_report.record, rolled back), and the peer `extraction` — the citations and
quotations found in the text alone, nothing looked up (what any check costs before it reads the
library; the floor under "without treatment"). When the check takes a `treatment` switch it is
also timed with treatment off (`check_without_treatment`).

    .venv/bin/python bench/verify.py [--rulings 10000] [--citations 200] [--pages 30]
                                     [--repeat 20] [--server-url URL]

Prints one JSON object (p50 and p95 in seconds). Target: the check's p95 <= 5 s.
"""

from __future__ import annotations

import argparse
import inspect
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import bench_store, percentiles, server_option
from legal_ai.learning.checks import citation_check, cite_report
from legal_ai.store import Store
from legal_ai.text import citations as text_citations
from legal_ai.text.case_numbers import identity_columns

DB = "legal_ai_bench_verify"
DISTRICTS = ("מרכז", "תל אביב", "ירושלים", "חיפה", "צפון", "דרום")
SURNAMES = ("כהן", "לוי", "מזרחי", "פרץ", "ביטון", "אברהם", "פרידמן", "אזולאי", "דהן", "שפירא")
FILLER = (
    "הוועדה המקומית שקלה את הבקשה להקלה בקו הבניין ואת השפעתה על הסביבה, ובכלל זה על האור, "
    "האוויר והפרטיות של השכנים, ומצאה כי התכנית החלה על המגרש אינה מתירה את הבנייה המבוקשת. "
    "העוררים טוענים כי שיקול הדעת הופעל שלא כדין וכי לא ניתנה להם זכות טיעון ראויה. "
)
PARAGRAPH = (
    "{n}. בית המשפט עמד על היקף שיקול הדעת של מוסדות התכנון בעניין {topic}, וקבע כי ההחלטה "
    "צריכה להישען על תשתית עובדתית מלאה ועל נימוקים תכנוניים ענייניים בלבד."
)
TOPICS = ("הקלה בקו בניין", "שימוש חורג", "היטל השבחה", "תכנית מתאר", "היתר בנייה", "סטייה ניכרת")


def numbered(i: int) -> tuple[str, str, str]:
    """The i-th library item: (source_kind, doc_type, case number)."""
    kind = i % 4
    number = f"{1000 + i // 4}/{10 + i % 13}"
    if kind == 0:
        return "external_upload", "ruling", f'עע"מ {number}'
    if kind == 1:
        return "external_upload", "ruling", f'בר"מ {number}'
    if kind == 2:
        return "external_upload", "ruling", f'עת"מ ({DISTRICTS[i % 6]}) {number}'
    return "internal_committee", "decision", f"ערר ({DISTRICTS[i % 6]}) {number}"


def parties(i: int) -> str:
    return f"{SURNAMES[i % 10]} נ' הוועדה המקומית לתכנון ובנייה {DISTRICTS[i % 6]}"


def ruling_text(i: int) -> str:
    paragraphs = 4 + i % 5
    body = [PARAGRAPH.format(n=n, topic=TOPICS[(i + n) % 6]) for n in range(1, paragraphs + 1)]
    return f"{numbered(i)[2]}\n{parties(i)}\n\nפסק דין\n\n" + "\n\n".join(body)


def load(store: Store, count: int) -> None:
    with (
        store.transaction() as conn,
        conn.cursor().copy(
            "COPY case_law (source_kind, doc_type, doc_id, case_number, title, court, decided_on,"
            " chair_name, practice_area, content, content_hash, ruling_proceeding, ruling_district,"
            " ruling_number) FROM STDIN"
        ) as copy,
    ):
        for i in range(count):
            source_kind, doc_type, number = numbered(i)
            ids = identity_columns(number)
            copy.write_row(
                (source_kind, doc_type, f"bench-{i}", number, parties(i), "בית המשפט")
                + ("2020-01-01", 'עו"ד בדיקה', "planning", ruling_text(i), f"h{i}")
                + (ids["ruling_proceeding"], ids["ruling_district"], ids["ruling_number"])
            )


def draft(rulings: int, citations: int, pages: int, seed: int = 7) -> str:
    """~`pages` pages of prose carrying `citations` citations of every kind."""
    rng = random.Random(seed)
    sentences = []
    for n in range(citations):
        i = rng.randrange(rulings)
        number = numbered(i)[2]
        kind = n % 10
        if kind == 0:  # a number the library lacks
            cited = f'עע"מ {9000 + n}/19 {parties(i)}'
        elif kind == 1:  # another ruling's parties on a real number
            cited = f"{number} {parties(i + 1)}"
        elif kind == 2:  # a pinpoint, sometimes past its last paragraph
            cited = f"{number} {parties(i)}, פס' {rng.choice((2, 3, 14))}"
        elif kind == 3:  # a quotation of its text, or one it does not hold
            quote = "ההחלטה צריכה להישען על תשתית עובדתית מלאה" if n % 20 == 3 else "נקבע אחרת"
            sentences.append(f'כפי שנקבע, "{quote}" ({number} {parties(i)}).')
            continue
        elif kind == 4:  # a section of the law
            cited = f"סעיף {rng.choice((62, 145, 152, 399))} לחוק התכנון והבנייה"
        else:
            cited = f"{number} {parties(i)}"
        sentences.append(f"ראו {cited}. {FILLER}")
    text, target = [], pages * 2500
    while sum(len(s) for s in text) < target or sentences:
        text.append(sentences.pop() if sentences else FILLER)
        if len(text) % 3 == 0:
            text.append(FILLER)
    return "\n\n".join(["פתח דבר", *text, "דיון והכרעה", FILLER])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rulings", type=int, default=10_000)
    parser.add_argument("--citations", type=int, default=200)
    parser.add_argument("--pages", type=int, default=30)
    parser.add_argument("--repeat", type=int, default=20)
    server_option(parser)
    args = parser.parse_args()
    text = draft(args.rulings, args.citations, args.pages)
    case = "ערר (מרכז) 1/99"
    switch = "treatment" in inspect.signature(citation_check.check_citations).parameters
    with bench_store(args.server_url, DB, "legal-ai-verify-bench-") as store:
        started = time.perf_counter()
        load(store, args.rulings)
        with store.transaction() as conn:
            conn.execute("ANALYZE case_law")
        loaded = time.perf_counter() - started
        runs: dict[str, list[float]] = {"check": [], "check_and_report": [], "extraction": []}
        if switch:
            runs["check_without_treatment"] = []
        statuses: dict[str, int] = {}
        for n in range(args.repeat + 1):  # the first run warms the caches, not counted
            timed = {}
            with store.connection() as conn, conn.transaction(force_rollback=True):
                at = time.perf_counter()
                checked = citation_check.check_citations(conn, case, text)
                timed["check"] = time.perf_counter() - at
                if switch:
                    at = time.perf_counter()
                    citation_check.check_citations(conn, case, text, treatment=False)
                    timed["check_without_treatment"] = time.perf_counter() - at
                at = time.perf_counter()
                cite_report.record(
                    conn,
                    case=case,
                    subject="final",
                    version=1,
                    text=text,
                    citations=citation_check.check_citations(conn, case, text),
                    case_law_id=1,
                )
                timed["check_and_report"] = time.perf_counter() - at
                at = time.perf_counter()
                found = text_citations.extract(text)
                citation_check._quotes(text)
                timed["extraction"] = time.perf_counter() - at
                # rolled back: the report was written to be timed, not kept
            if n:
                for key, seconds in timed.items():
                    runs[key].append(seconds)
        for c in checked:
            statuses[c["status"]] = statuses.get(c["status"], 0) + 1
    print(
        json.dumps(
            {
                "command": "python bench/verify.py "
                f"--rulings {args.rulings} --citations {args.citations} --pages {args.pages} "
                f"--repeat {args.repeat}",
                "rulings": args.rulings,
                "draft_chars": len(text),
                "draft_pages_at_2500_chars": round(len(text) / 2500, 1),
                "citations_found_in_text": len(found),
                "citations_checked": len(checked),
                "statuses": statuses,
                "library_load_s": round(loaded, 1),
                **{key: percentiles(samples) for key, samples in runs.items()},
                "target_p95_s": 5.0,
                "check_p95_within_target": percentiles(runs["check"])["p95_s"] <= 5.0,
                "treatment_switch": switch,
            },
            ensure_ascii=False,
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
