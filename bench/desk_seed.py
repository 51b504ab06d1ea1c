"""The world bench/desk_pages.py times the desk over: N cases and M lessons on top of whatever the
database holds (the demo's corpus, when asked), written through the services the chair's
uploads and the learning stage use, so every table a desk page reads holds what it would.

- Cases: each a fictional pair of tests/fixtures/decisions under a case number of its own, its
  draft with a paragraph or two left out (so the style distances differ), uploaded by
  `drafts.add_draft` (the copy check runs and keeps its report); three of four also get the
  chair's final through `finals.upload_final` (the style corpus and the internal decisions, the
  pair analyzed, the held-out history row, citations and missing precedents), its decision date
  spread over two years, two finals a day at times (the dashboard's equal dates).
- Lessons: proposed through `lessons.propose` (distillation and the curator's findings, spread
  over the analyzed cases), then a share decided as the learning stage and the chair would have
  left them: escalated to her by the panel, approved by the panel on its own, approved or
  rejected by her (`lessons.review`, audited).
- Vectors: `Cheap`, a deterministic vector per text (a hash seeds it), under the active
  embedder's id and dimension: nothing is embedded by a model. Search over these finals works and
  takes as long; its ranking means nothing (a latency benchmark). Its vectors go into the
  embedding cache of the database being seeded only — never give it another cache store, or a
  real embedder would later read them as its own.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import random
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import factories  # noqa: E402  (tests/factories.py: the project's own fictional pairs)
from legal_ai.auth import CHAIR  # noqa: E402
from legal_ai.learning.lessons import lessons  # noqa: E402
from legal_ai.learning.pairs import drafts, finals  # noqa: E402

FIRST_DAY = dt.date(2023, 1, 8)
STYLE = ("style", "structure", "legal_lexicon", "tabular")
# Of every 20 lessons: how the learning stage and the chair left them (the rest stay proposed).
DECIDED = {0: "escalated", 1: "escalated", 2: "panel", 3: "panel", 4: "panel", 5: "approve"}
DECIDED |= {6: "approve", 7: "reject", 8: "reject", 9: "approve"}
TABLES = (
    "cases",
    "drafts",
    "draft_final_pairs",
    "style_distance_history",
    "decision_lessons",
    "learning_audit",
    "case_law",
    "documents",
    "authorities",
    "missing_precedents",
)
COUNT = "SELECT count(*) AS n FROM {}"  # the names above only


class Cheap:
    """A deterministic unit vector per text (its SHA-256 seeds numpy's generator); tokens counted
    as words (the chunker's only use of the tokenizer)."""

    def __init__(self, id: str = "e5-local", dim: int = 384) -> None:
        self.id, self.dim = id, dim

    def _vector(self, text: str) -> np.ndarray:
        seed = int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "little")
        v = np.random.default_rng(seed).standard_normal(self.dim).astype(np.float32)
        return v / np.linalg.norm(v)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._vector(t) for t in texts])

    def embed_query(self, text: str) -> np.ndarray:
        return self._vector(text)

    def count_tokens(self, text: str) -> int:
        return 2 * len(text.split())


@dataclass
class Seeded:
    """What was written (the benchmark fills the pages' parameters from it)."""

    cases: list[str] = field(default_factory=list)
    finals: list[str] = field(default_factory=list)
    lessons: int = 0
    decided: dict[str, int] = field(default_factory=dict)

    def summary(self, app) -> dict:
        """What the database holds now (the demo's rows included), table by table."""
        with app.store.connection() as conn:
            rows = {t: conn.execute(COUNT.format(t)).fetchone()["n"] for t in TABLES}
        return {
            "cases": len(self.cases),
            "finals": len(self.finals),
            "lessons": self.lessons,
            "decided": self.decided,
            "rows": rows,
        }


def _pair(record: dict, case: str, rng: random.Random) -> tuple[str, str]:
    """The record's draft and final under `case`; the draft without one or two of its body's
    paragraphs (never the header or the signature)."""
    draft = record["draft_text"].replace(record["case_number"], case)
    final = record["final_text"].replace(record["case_number"], case)
    paragraphs = draft.split("\n\n")
    for _ in range(rng.randint(1, 2)):
        if len(paragraphs) > 6:
            paragraphs.pop(rng.randrange(3, len(paragraphs) - 2))
    return "\n\n".join(paragraphs), final


def seed_cases(app, count: int, rng: random.Random, out: Seeded) -> None:
    """`count` cases: every one a draft, three of four also the chair's final."""
    chair = app.acting_as(CHAIR)
    records = factories.records()
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(count):
            record = records[i % len(records)]
            case = f"ערר (מרכז) {8000 + i}/24"
            draft_text, final_text = _pair(record, case, rng)
            draft, final = Path(tmp) / f"{i}.draft.txt", Path(tmp) / f"{i}.final.txt"
            draft.write_text(draft_text, encoding="utf-8")
            final.write_text(final_text, encoding="utf-8")
            drafts.add_draft(
                chair,
                case,
                draft,
                appeal_type=record["appeal_type"],
                outcome=record["outcome"],
                practice_area=record["practice_area"],
            )
            out.cases.append(case)
            if i % 4 == 3:
                continue  # her final is not in yet
            decided = FIRST_DAY + dt.timedelta(days=(i // 2) * 7)  # two a day at times
            finals.upload_final(chair, case, final, decided_on=decided.isoformat())
            out.finals.append(case)


def seed_lessons(
    app, count: int, cases: list[str], out: Seeded
) -> tuple[list[int], dict[int, str]]:
    """`count` proposed lessons (distilled, and every third a curator's finding), spread over
    `cases`; their ids and each one's source."""
    ids, sources = [], {}
    for n in range(count):
        case = cases[n % len(cases)] if cases else None
        source = "curator" if n % 3 == 2 else "distillation"
        text = f"לקח {n}: משפט קצר והצהרתי במקום 'יש לציין כי' בפרק {n % 12 + 1}"
        row = lessons.propose(app, case, STYLE[n % len(STYLE)], text, source=source)
        ids.append(row["id"])
        sources[row["id"]] = source
    out.lessons = len(ids)
    return ids, sources


def decide_lessons(app, ids: list[int], sources: dict[int, str], out: Seeded) -> None:
    """Of every 20 lessons, as DECIDED says: the panel's escalations and its own approvals
    (distilled lessons only, as the panel votes on no curator finding) written as the worker's
    stage leaves them (the verdict rows' triggers off, as tests/desk/test_desk_today.py's world
    does: the panel's path needs its model calls); the chair's approvals and rejections through
    lessons.review (audited)."""
    chair = app.acting_as(CHAIR)
    escalated, panel = [], []
    for n, lesson_id in enumerate(ids):
        decision = DECIDED.get(n % 20)
        if decision in ("escalated", "panel") and sources[lesson_id] == "curator":
            continue
        if decision == "escalated":
            escalated.append(lesson_id)
        elif decision == "panel":
            panel.append(lesson_id)
        elif decision:
            reason = "כך אני כותבת" if decision == "approve" else "לא מתאים לסגנון שלי"
            lessons.review(chair, lesson_id, decision, reason=reason)
        if decision:
            out.decided[decision] = out.decided.get(decision, 0) + 1
    with app.store.transaction() as conn:
        conn.execute("SET LOCAL session_replication_role = replica")
        conn.execute(
            "UPDATE decision_lessons SET needs_chair = true, routed_reason = 'split'"
            " WHERE id = ANY(%s)",
            (escalated,),
        )
        conn.execute(
            "UPDATE decision_lessons SET review_status = 'approved', reviewed_by = 'panel',"
            " reviewed_at = now(), panel_models = ARRAY['a', 'b'] WHERE id = ANY(%s)",
            (panel,),
        )


def seed(app, cases: int, lessons_count: int, rng: random.Random) -> Seeded:
    """`cases` cases and `lessons_count` lessons, decided as DECIDED says."""
    out = Seeded()
    seed_cases(app, cases, rng, out)
    ids, sources = seed_lessons(app, lessons_count, out.finals or out.cases, out)
    decide_lessons(app, ids, sources, out)
    return out
