"""Benchmark (issue 14, "Measure it"): how close the writer's materials are to each final of
the chair BEFORE it arrives.

The fictional draft/final pairs (tests/fixtures/decisions, and ../shared/data/synthetic-decisions
when present) are replayed in date order through the learning flow (`draft add`, then
`final upload`) into a fresh database of their own. Before each final is uploaded, with only the
earlier finals in the style corpus, it is compared with what the writer would have been given:

- templates — the share of the final's formulaic words covered by the templates known then.
  The final's formulaic passages are found with hindsight: the template detector
  (knowledge/templates.detect) run over ALL the replayed finals; the words of this final inside
  those passages are its formulaic words. A word is covered when a template known before the
  final arrived (knowledge/templates.get_templates; all blocks, and only those of its appeal
  type) occurs at that place, slot for slot. The first final is covered by nothing (no template
  can be known from zero finals; none is invented from one).
- exemplars — for each writing block of the final (opening, hearing, legal framework, discussion,
  conclusion), the block exemplars served for its appeal type and outcome
  (knowledge/exemplars.get_block_exemplars, queried with our draft's facts: its subject, else its
  background; never the case itself), and the stylometric distance of the final's block to each
  of them, against the distance to a random paragraph of hers (any block) and to a random
  paragraph of hers of the same block, from the finals known then: the expected distance, the
  mean over every such paragraph (no draw of chance). The distance is
  Burrows' Delta between two texts (learning/pairs/stylometry.py's function words): each word's rate as
  a z-score against all her paragraphs known then, the mean absolute difference of the two texts'
  z-scores. Lower is closer.

    .venv/bin/python bench/writer_materials.py [--no-shared] [--server-url URL] [--k 3]

Without --server-url an embedded PostgreSQL is started in a temporary folder and stopped at the
end. The database `legal_ai_bench_writer` is dropped and made again; embeddings are cached in
`legal_ai_bench_writer_cache` (kept, so a second run embeds nothing). Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import factories  # noqa: E402  (tests/factories.py: the project's own fictional pairs)
from legal_ai.app import App  # noqa: E402
from legal_ai.config import Settings  # noqa: E402
from legal_ai.knowledge import exemplars, paragraphs, templates  # noqa: E402
from legal_ai.learning.methodology import merged_profile  # noqa: E402
from legal_ai.learning.pairs import finals  # noqa: E402
from legal_ai.learning.pairs.stylometry import FUNCTION_WORDS  # noqa: E402
from legal_ai.store import (  # noqa: E402
    Store,
    drop_database,
    ensure_database,
    start_embedded,
    stop_embedded,
)
from legal_ai.text.hebrew import tokens as words  # noqa: E402

SHARED = ROOT.parent / "shared" / "data" / "synthetic-decisions" / "decisions.jsonl"
DB, CACHE_DB = "legal_ai_bench_writer", "legal_ai_bench_writer_cache"
CHAIR = 'עו"ד רותם לוי'  # the fictional chair of every pair
BLOCKS = ("opening", "hearing", "legal_framework", "discussion", "conclusion")
QUERY_BLOCKS = ("subject", "background")  # the draft's facts: what the writer knows of the case
MAX_QUERY = 1500
SLOT_KEYS = {f"{{{s}}}" for s in ("case_number", "date", "name", "number")}


def pairs(shared: bool) -> tuple[list[dict], list[str]]:
    """The fictional pairs, oldest decision first, and where they come from."""
    found = [dict(r, source="tests/fixtures/decisions") for r in factories.records()]
    sources = ["tests/fixtures/decisions"]
    if shared and SHARED.exists():
        for line in SHARED.read_text(encoding="utf-8").splitlines():
            found.append(dict(json.loads(line), source="shared/synthetic-decisions"))
        sources.append("../shared/data/synthetic-decisions")
    return sorted(found, key=lambda r: (r["decided_on"], r["case_number"])), sources


# -- templates: coverage ----------------------------------------------------------------------


def template_keys(text: str) -> list[str]:
    """A template's text as the detector's comparison keys (slots as slots; `{text}`, where the
    sentence goes on, is not compared)."""
    text = text.replace("{text}", " ")
    keys: list[str] = []
    for part in _split_slots(text):
        if part in SLOT_KEYS:
            keys.append(part)
        else:
            keys += [t.key for t in templates.tokens(part)]
    return keys


def _split_slots(text: str) -> list[str]:
    out, rest = [], text
    while rest:
        at = min((rest.find(s) for s in SLOT_KEYS if s in rest), default=-1)
        if at < 0:
            out.append(rest)
            break
        slot = next(s for s in SLOT_KEYS if rest.startswith(s, at))
        out += [rest[:at], slot]
        rest = rest[at + len(slot) :]
    return [p for p in out if p]


def final_tokens(text: str, spec: dict) -> list[tuple[str, int, list]]:
    """(block, paragraph start, tokens) of every paragraph of a final."""
    return [(p.block, p.char_start, templates.tokens(p.text)) for p in paragraphs.split(text, spec)]


def covered_positions(parts: list[tuple[str, int, list]], known: list[dict]) -> set[tuple]:
    """(paragraph, token) positions of a final where a known template occurs, in its block."""
    out: set[tuple] = set()
    for n, (block, _, toks) in enumerate(parts):
        keys = [t.key for t in toks]
        for template in known:
            if template["block"] != block:
                continue
            want = template_keys(template["text"])
            for i in range(len(keys) - len(want) + 1):
                if want and keys[i : i + len(want)] == want:
                    out.update((n, j) for j in range(i, i + len(want)))
    return out


def formulaic_positions(
    parts: list[tuple[str, int, list]], spans: list[tuple[str, int, int]]
) -> set[tuple]:
    """Positions of a final's tokens inside its hindsight formulaic passages ((block, start,
    end) character spans in the final)."""
    out: set[tuple] = set()
    for n, (block, start, toks) in enumerate(parts):
        for j, tok in enumerate(toks):
            at = start + tok.start
            if any(b == block and s <= at < e for b, s, e in spans):
                out.add((n, j))
    return out


def hindsight(records: list[dict], spec: dict) -> dict[str, list[tuple[str, int, int]]]:
    """The formulaic passages of every final, found by the detector over all of them."""
    sources = []
    for r in records:
        for p in paragraphs.split(r["final_text"], spec):
            sources.append(
                templates.Source(
                    final=r["case_number"],
                    block=p.block,
                    text=p.text,
                    case_number=r["case_number"],
                    doc_id=r["case_number"],
                    char_start=p.char_start,
                    appeal_type=r["appeal_type"],
                    decided_on=r["decided_on"],
                )
            )
    measured = templates.detect(sources)
    spans: dict[str, list[tuple[str, int, int]]] = {r["case_number"]: [] for r in records}
    for t in measured.templates:
        for s in t.sources:
            spans[s["case_number"]].append((t.block, s["char_start"], s["char_end"]))
    return spans


# -- exemplars: stylometric distance ------------------------------------------------------------


def rates(text: str) -> list[float]:
    toks = words(text)
    total = len(toks) or 1
    counts = dict.fromkeys(FUNCTION_WORDS, 0)
    for t in toks:
        if t in counts:
            counts[t] += 1
    return [counts[w] / total for w in FUNCTION_WORDS]


class Delta:
    """Burrows' Delta between two texts, standardized over a reference set of her paragraphs."""

    def __init__(self, reference: list[str]) -> None:
        table = [rates(t) for t in reference]
        columns = list(zip(*table, strict=True)) if table else []
        self.mean = [statistics.fmean(c) for c in columns]
        self.sd = [statistics.pstdev(c) for c in columns]

    def __call__(self, a: str, b: str) -> float | None:
        ra, rb = rates(a), rates(b)
        diffs = [abs(x - y) / sd for x, y, sd in zip(ra, rb, self.sd, strict=True) if sd > 0]
        return statistics.fmean(diffs) if diffs else None


def _mean(values: list[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return round(statistics.fmean(kept), 4) if kept else None


def measure_exemplars(
    app: App,
    rec: dict,
    final_blocks: dict,
    draft_blocks: dict,
    known: list[tuple[str, str, str]],
    k: int,
) -> list[dict]:
    """Per writing block: the exemplars' Delta to the final's block against random paragraphs
    of hers known then (`known`: (case, block, text) of the earlier finals)."""
    if len({case for case, _, _ in known}) < 2:
        return []  # a z-score needs her paragraphs from at least two finals
    delta = Delta([text for _, _, text in known])
    query = next(
        (draft_blocks.get(b) for b in QUERY_BLOCKS if (draft_blocks.get(b) or "").strip()), None
    )
    rows = []
    for block in BLOCKS:
        target = (final_blocks.get(block) or "").strip()
        if not target:
            continue
        served = exemplars.get_block_exemplars(
            app,
            block,
            rec["appeal_type"],
            outcome=rec["outcome"],
            case=rec["case_number"],
            query=query[:MAX_QUERY] if query else None,
            limit=k,
        )["exemplars"]
        if not served:
            continue
        same_block = [text for _, b, text in known if b == block] or [t for _, _, t in known]
        any_block = [text for _, _, text in known]
        rows.append(
            {
                "block": block,
                "exemplars": len(served),
                "from_cases": sorted({e["case_number"] for e in served}),
                "exemplar_delta": _mean([delta(target, e["text"]) for e in served]),
                "random_delta": _mean([delta(target, text) for text in any_block]),
                "random_same_block_delta": _mean([delta(target, text) for text in same_block]),
            }
        )
    return rows


# -- the replay ---------------------------------------------------------------------------------


def replay(app: App, records: list[dict], k: int, tmp: Path) -> dict:
    with app.store.connection() as conn:
        spec = merged_profile(conn, None).get("blocks", {})
    formulaic = hindsight(records, spec)
    known_paragraphs: list[tuple[str, str, str]] = []
    rows = []
    for n, rec in enumerate(records):
        case = rec["case_number"]
        parts = final_tokens(rec["final_text"], spec)
        wanted = formulaic_positions(parts, formulaic[case])
        every = templates.get_templates(app)["templates"]
        typed = templates.get_templates(app, appeal_type=rec["appeal_type"])["templates"]
        covered_all = covered_positions(parts, every) & wanted
        covered_typed = covered_positions(parts, typed) & wanted
        with app.store.connection() as conn:
            final_blocks = finals.segment(conn, rec["final_text"]).blocks
            draft_blocks = finals.segment(conn, rec["draft_text"]).blocks
        row = {
            "case_number": case,
            "decided_on": rec["decided_on"],
            "appeal_type": rec["appeal_type"],
            "outcome": rec["outcome"],
            "finals_before": n,
            "templates_known": len(every),
            "templates_known_of_type": len(typed),
            "formulaic_words": len(wanted),
            "template_coverage": round(len(covered_all) / len(wanted), 4) if wanted else None,
            "template_coverage_of_type": round(len(covered_typed) / len(wanted), 4)
            if wanted
            else None,
            "exemplars": measure_exemplars(
                app, rec, final_blocks, draft_blocks, known_paragraphs, k
            ),
        }
        rows.append(row)
        slug = factories.slug(case)
        draft = tmp / f"{slug}.draft.txt"
        final = tmp / f"{slug}.final.txt"
        draft.write_text(rec["draft_text"], encoding="utf-8")
        final.write_text(rec["final_text"], encoding="utf-8")
        finals.add_draft(
            app,
            case,
            draft,
            appeal_type=rec["appeal_type"],
            outcome=rec["outcome"],
            practice_area=rec["practice_area"],
        )
        finals.upload_final(app, case, final, decided_on=rec["decided_on"])
        known_paragraphs += [
            (case, p.block, p.text) for p in paragraphs.split(rec["final_text"], spec)
        ]
    return {"finals": rows, "summary": summarize(rows)}


def summarize(rows: list[dict]) -> dict:
    later = [r for r in rows if r["finals_before"] > 0 and r["template_coverage"] is not None]
    blocks = [b for r in rows for b in r["exemplars"]]
    closer = [b for b in blocks if None not in (b["exemplar_delta"], b["random_delta"])]
    closer_block = [
        b for b in blocks if None not in (b["exemplar_delta"], b["random_same_block_delta"])
    ]
    by_block = {}
    for name in BLOCKS:
        mine = [b for b in blocks if b["block"] == name]
        if mine:
            by_block[name] = {
                "n": len(mine),
                "exemplar_delta": _mean([b["exemplar_delta"] for b in mine]),
                "random_delta": _mean([b["random_delta"] for b in mine]),
                "random_same_block_delta": _mean([b["random_same_block_delta"] for b in mine]),
            }
    return {
        "finals": len(rows),
        "template_coverage_mean": _mean([r["template_coverage"] for r in later]),
        "template_coverage_of_type_mean": _mean([r["template_coverage_of_type"] for r in later]),
        "template_coverage_finals": len(later),
        "template_coverage_last_half_mean": _mean(
            [r["template_coverage"] for r in later[len(later) // 2 :]]
        ),
        "exemplar_blocks": len(blocks),
        "exemplar_delta_mean": _mean([b["exemplar_delta"] for b in blocks]),
        "random_delta_mean": _mean([b["random_delta"] for b in blocks]),
        "random_same_block_delta_mean": _mean([b["random_same_block_delta"] for b in blocks]),
        "exemplar_closer_than_random": round(
            sum(b["exemplar_delta"] < b["random_delta"] for b in closer) / len(closer), 4
        )
        if closer
        else None,
        "exemplar_closer_than_random_same_block": round(
            sum(b["exemplar_delta"] < b["random_same_block_delta"] for b in closer_block)
            / len(closer_block),
            4,
        )
        if closer_block
        else None,
        "by_block": by_block,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--no-shared",
        action="store_true",
        help="Only the project's own pairs (tests/fixtures/decisions).",
    )
    parser.add_argument(
        "--server-url",
        help="A PostgreSQL server (pgvector) to make the "
        "bench's databases on; default: an embedded one in a temp folder.",
    )
    parser.add_argument("--k", type=int, default=3, help="Exemplars per block.")
    args = parser.parse_args()
    records, sources = pairs(not args.no_shared)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="legal-ai-writer-bench-") as tmp:
        work = Path(tmp)
        pgdata = work / "pgdata"
        server = args.server_url or start_embedded(pgdata)
        try:
            drop_database(server, DB)
            store = Store(ensure_database(server, DB), max_size=2)
            cache = Store(ensure_database(server, CACHE_DB), max_size=2)
            settings = Settings(database_url=store.url, home=work / "home", committee_chair=CHAIR)
            app = App(settings, store=store, cache_store=cache)
            assert app.embedder.id  # loads the model and records the active embedder
            (work / "files").mkdir()
            result = replay(app, records, args.k, work / "files")
            store.close()
            cache.close()
        finally:
            if not args.server_url:
                stop_embedded(pgdata)
    print(
        json.dumps(
            {
                "command": "python bench/writer_materials.py"
                + (" --no-shared" if args.no_shared else "")
                + f" --k {args.k}",
                "pairs": len(records),
                "sources": sources,
                "k": args.k,
                "seconds": round(time.perf_counter() - started, 1),
                **result,
            },
            ensure_ascii=False,
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
