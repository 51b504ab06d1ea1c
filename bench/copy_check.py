"""Benchmark (issue 14 item 5): the copy check of a draft against a committee's decisions, with
the fingerprints kept per text (migration 0026) against its peer, the former method run in the
same process on the same database: read every final and internal decision and cut it into words
and 8-grams on every check.

The compared texts are the fictional finals (tests/factories.py, and ../shared/data/
synthetic-decisions when present) repeated into `--decisions` internal decisions: each a final
with its paragraphs in another order and its numbers changed, so every one shares the chair's
formulas with the draft as a real committee's decisions do. They are written straight into
`case_law` (no chunks: the copy check does not search). The draft is the first pair's draft.

    .venv/bin/python bench/copy_check.py [--decisions 300] [--repeat 5] [--server-url URL]

Prints one JSON object: the median seconds of the check with kept fingerprints, of the peer's
comparison (reading and cutting every text), their ratio, the first check after the texts
arrived (it takes their fingerprints), and the reports' equality.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

import factories  # noqa: E402  (tests/factories.py: the project's own fictional pairs)
from common import bench_store, server_option  # noqa: E402
from legal_ai.learning.checks import copy_policy, shingles  # noqa: E402
from legal_ai.store import Store  # noqa: E402
from legal_ai.text.case_numbers import normalize_case_number  # noqa: E402

DB = "legal_ai_bench_copy"
SHARED = ROOT.parent / "shared" / "data" / "synthetic-decisions" / "txt"


def finals_and_draft() -> tuple[list[str], str, str]:
    records = factories.records()
    texts = [r["final_text"] for r in records[1:]]
    if SHARED.is_dir():
        texts += [p.read_text(encoding="utf-8") for p in sorted(SHARED.glob("*.final.txt"))]
    return texts, records[0]["draft_text"], records[0]["case_number"]


def variant(text: str, seed: int) -> str:
    """The final with its paragraphs after the first three in another order and its numbers
    changed: another decision, the same formulas."""
    rng = random.Random(seed)
    paragraphs = text.split("\n\n")
    head, body = paragraphs[:3], paragraphs[3:]
    rng.shuffle(body)
    return re.sub(r"\d", lambda m: str(rng.randrange(10)), "\n\n".join(head + body))


def load(store: Store, texts: list[str], count: int) -> None:
    with store.transaction() as conn:
        for i in range(count):
            text = variant(texts[i % len(texts)], i)
            conn.execute(
                "INSERT INTO case_law (source_kind, doc_type, doc_id, case_number, title,"
                " chair_name, practice_area, content, content_hash)"
                " VALUES ('internal_committee', 'decision', %s, %s, %s, %s, 'planning', %s, %s)",
                (
                    f"bench-{i}",
                    f"ערר {5000 + i}/24",
                    f"החלטה {i}",
                    'עו"ד בדיקה',
                    text,
                    f"bench-hash-{i}",
                ),
            )


def peer_sources(conn, case: str, draft: list) -> int:
    """The former method: every compared text read and cut on every check; how many share an
    8-gram with the draft."""
    wanted: dict[int, list[int]] = defaultdict(list)
    for position, shingle in enumerate(shingles.fingerprints(draft)):
        wanted[shingle].append(position)
    rows = conn.execute(
        "SELECT 'style' AS corpus, id, doc_id, case_number, content FROM documents"
        " WHERE corpus = 'style' AND extraction_issue IS NULL AND content <> ''"
        " UNION ALL SELECT 'internal', id, doc_id, case_number, content FROM case_law"
        " WHERE source_kind = 'internal_committee' AND extraction_issue IS NULL AND content <> ''"
        " ORDER BY 1 DESC, 2"
    ).fetchall()
    found, seen = 0, set()
    for row in rows:
        number = normalize_case_number(row["case_number"]) if row["case_number"] else None
        if number == case or row["content"] in seen:
            continue
        seen.add(row["content"])
        cover: dict[int, int] = {}
        for q, shingle in enumerate(shingles.fingerprints(shingles.keyed_words(row["content"]))):
            for p in wanted.get(shingle, ()):
                cover.setdefault(p, q)
        found += bool(cover)
    return found


def timed(function, repeat: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - started)
    return statistics.median(times), result


SHARED_PAIRS = SHARED.parent / "decisions.jsonl"


def pairs() -> list[dict]:
    """The project's fictional pairs, and ../shared/data's when present (case number, draft,
    final)."""
    out = [
        {"case_number": r["case_number"], "draft": r["draft_text"], "final": r["final_text"]}
        for r in factories.records()
    ]
    if SHARED_PAIRS.is_file():
        for line in SHARED_PAIRS.read_text(encoding="utf-8").splitlines():
            r = json.loads(line)
            out.append(
                {
                    "case_number": r["case_number"],
                    "draft": r["draft_text"],
                    "final": r["final_text"],
                }
            )
    return out


def noise(store: Store) -> dict:
    """Issue 37 item 12: every pair's final is a committee decision; each pair's draft is
    checked against the others' with the generic-passage filter off (specific_words=0) and on:
    the passages of each kind, and the true copies kept: each draft with a discussion paragraph
    of another pair's final pasted in (its longest of 25 words or more) must still have it
    flagged (substance or analysis)."""
    found = pairs()
    with store.transaction() as conn:
        for i, pair in enumerate(found):
            conn.execute(
                "INSERT INTO case_law (source_kind, doc_type, doc_id, case_number, title,"
                " chair_name, practice_area, content, content_hash)"
                " VALUES ('internal_committee', 'decision', %s, %s, %s, %s, 'planning', %s, %s)",
                (
                    f"pair-{i}",
                    pair["case_number"],
                    f"החלטה {i}",
                    'עו"ד בדיקה',
                    pair["final"],
                    f"pair-hash-{i}",
                ),
            )
    counts = {"before": defaultdict(int), "after": defaultdict(int)}
    copies = {"pasted": 0, "before": 0, "after": 0}
    with store.transaction() as conn:
        for i, pair in enumerate(found):
            case = normalize_case_number(pair["case_number"])
            for name, words in (("before", 0), ("after", copy_policy.MIN_SPECIFIC_WORDS)):
                report = copy_policy.check_text(conn, case, pair["draft"], specific_words=words)
                for p in report["passages"]:
                    counts[name][p["kind"]] += 1
            other = found[(i + 1) % len(found)]["final"]
            paragraph = max(other.split("\n"), key=lambda t: len(t.split()))
            if len(paragraph.split()) < 25:
                continue
            copied = pair["draft"] + "\n\n" + paragraph + "\n"
            at = copied.index(paragraph)
            for name, words in (("before", 0), ("after", copy_policy.MIN_SPECIFIC_WORDS)):
                report = copy_policy.check_text(conn, case, copied, specific_words=words)
                flagged = any(
                    p["kind"] in ("substance", "analysis") and p["text"] in copied[at:]
                    for p in report["passages"]
                )
                copies[name] += flagged
            copies["pasted"] += 1
    return {
        "pairs": len(found),
        "passages_before": dict(counts["before"]),
        "passages_after": dict(counts["after"]),
        "true_copies": copies["pasted"],
        "true_copies_flagged_before": copies["before"],
        "true_copies_flagged_after": copies["after"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--decisions", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--noise",
        action="store_true",
        help="count the passages flagged before/after the generic-passage filter (issue 37)",
    )
    server_option(parser)
    args = parser.parse_args()
    if args.noise:
        with bench_store(args.server_url, DB, "legal-ai-copy-bench-") as store:
            print(json.dumps(noise(store), ensure_ascii=False, indent=1))
        return
    texts, draft, case = finals_and_draft()
    draft_words = copy_policy.keyed_words(draft)
    with bench_store(args.server_url, DB, "legal-ai-copy-bench-") as store:
        load(store, texts, args.decisions)
        chars = sum(len(variant(texts[i % len(texts)], i)) for i in range(args.decisions))
        with store.transaction() as conn:
            started = time.perf_counter()
            first = copy_policy.check_text(conn, case, draft)
            cold = time.perf_counter() - started
        with store.transaction() as conn:
            kept, report = timed(lambda: copy_policy.check_text(conn, case, draft), args.repeat)
            matched, sources = timed(
                lambda: len(copy_policy._matched_sources(conn, case, draft_words)), args.repeat
            )
            peer, peer_found = timed(lambda: peer_sources(conn, case, draft_words), args.repeat)
    print(
        json.dumps(
            {
                "command": f"python bench/copy_check.py --decisions {args.decisions} --repeat {args.repeat}",
                "decisions": args.decisions,
                "chars": chars,
                "texts_sharing_an_8gram_with_the_draft": sources,
                "peer_found": peer_found,
                "check_with_kept_fingerprints_s": round(kept, 3),
                "finding_the_sources_kept_s": round(matched, 3),
                "finding_the_sources_peer_s": round(peer, 3),
                "kept_over_peer": round(matched / peer, 3),
                "first_check_taking_fingerprints_s": round(cold, 3),
                "reports_equal": first == report,
                "passages": len(report["passages"]),
            },
            ensure_ascii=False,
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
