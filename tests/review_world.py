"""A world for the review queue's tests (tests/desk/test_desk_review.py and the browser's
test_desk_review_browser.py): an item in every lane, from every source, on two cases, with the
panel's confidence known for some and not for others.

- `approved`: a style lesson of case A the panel approved 2/2 (lane panel_approved; 2 of 2).
- `split`: a style lesson of case A the panel split on (escalations; 1 of 2).
- `plain`: a style lesson of case B nobody voted on yet (proposed).
  (These three carry their evidence: the spans of our draft and of her final, and the block.)
- `curator`: a writing note from reading her final of case B (curator).
- `substance`: a substance lesson the system proposed, without a case (proposed).
- `pending`: a principle of the ruling pending her review (2 of 3, score 0.6).
- `to_confirm`: a principle the panel approved, awaiting her confirmation (3 of 3, score 1.0).
"""

from __future__ import annotations

import json

from legal_ai.learning.lessons import lessons
from scenarios import ingest_ruling
from system_panel import distilled, panel_decides

CASE_A = "ערר (מרכז) 10/24"
CASE_B = "ערר (מרכז) 11/24"
EVIDENCE = {
    "block": "discussion",
    "draft": {"text": "הוועדה סבורה כי יש לקבל את הערר", "start": 0, "end": 30},
    "final": {"text": "אני סבורה כי יש לקבל את הערר", "start": 0, "end": 27},
}
TEXTS = {
    "approved": "משפט פתיחה קצר בכל פרק",
    "split": "גוף ראשון בדיון במקום הוועדה",
    "plain": "פסקת סיכום בסוף הדיון",
    "curator": "כותרות משנה לכל סוגיה",
    "substance": "סטייה ניכרת אינה הקלה",
    "pending": "כלל: הקלה אינה סטייה ניכרת",
    "to_confirm": "כלל: הוועדה רשאית לדחות",
}


def _plant_principles(conn, ruling: int) -> dict[str, int]:
    """What the principle panel would have left (its triggers off: a fixture)."""
    conn.execute("SET LOCAL session_replication_role = replica")
    rows = conn.execute(
        "INSERT INTO case_law_principles (source_kind, case_law_id, rule_text, supporting_quote,"
        " page, char_start, char_end, review_status, reviewed_by, votes, score, text_hash,"
        " analyzed, analyzer) VALUES"
        " ('external_upload', %(r)s, %(p)s, 'סטייה ניכרת', 1, 0, 10, 'proposed', NULL, 2, 0.6,"
        " 'h1', 'a', 'simple'),"
        " ('external_upload', %(r)s, %(c)s, 'הערר נדחה', 1, 0, 9, 'approved', 'panel', 3, 1.0,"
        " 'h2', 'a', 'simple') RETURNING id, rule_text",
        {"r": ruling, "p": TEXTS["pending"], "c": TEXTS["to_confirm"]},
    ).fetchall()
    by_text = {r["rule_text"]: r["id"] for r in rows}
    return {"pending": by_text[TEXTS["pending"]], "to_confirm": by_text[TEXTS["to_confirm"]]}


def build(app, tmp_path) -> dict[str, int]:
    """The world; returns each item's id by its name above."""
    with app.store.transaction() as conn:
        conn.execute(
            "INSERT INTO cases (case_number, created_at) VALUES (%s, now()), (%s, now())",
            (CASE_A, CASE_B),
        )
    ids = {
        "approved": distilled(app, CASE_A, "style", TEXTS["approved"])["id"],
        "split": distilled(app, CASE_A, "phrase", TEXTS["split"])["id"],
        "plain": distilled(app, CASE_B, "structure", TEXTS["plain"])["id"],
    }
    ids["curator"] = lessons.propose(app, CASE_B, "style", TEXTS["curator"], source="curator")["id"]
    ids["substance"] = lessons.propose(app, None, "halacha", TEXTS["substance"])["id"]
    with app.store.transaction() as conn:
        for name in ("approved", "split", "plain"):
            conn.execute(
                "UPDATE decision_lessons SET evidence = %s WHERE id = %s",
                (json.dumps(EVIDENCE, ensure_ascii=False), ids[name]),
            )
    panel_decides(app, ids["approved"], {"openai:a": "approve", "openai:b": "approve"})
    panel_decides(app, ids["split"], {"openai:a": "approve", "openai:b": "reject"})
    ingest_ruling(app, tmp_path)
    with app.store.transaction() as conn:
        ruling = conn.execute("SELECT id FROM case_law WHERE doc_id = 'ruling-1'").fetchone()
        ids.update(_plant_principles(conn, ruling["id"]))
    return ids
