"""What `promote` folds into the methodology (learning/lessons/lessons.promote, one transaction): the
lessons the chair chose, checked and locked (a proposed one approved by her choosing it), and
the profile of the case's appeal type with them and her phrases, saved as a new version."""

from __future__ import annotations

from ...errors import InvalidInput, NotFound
from ...store import drafts_lessons as store
from ...store import items as sql_items


def chosen_lessons(conn, case: str, lesson_ids: list[int], actor: str) -> list[dict]:
    """The lessons chosen for promotion, locked: each of this case, of style, not rejected or
    vetoed; a proposed one approved here (the chair choosing it)."""
    chosen = []
    for lesson_id in lesson_ids:
        lesson = store.get_lesson(conn, lesson_id, lock=True)
        if lesson is None or lesson["case_number"] != case:
            raise InvalidInput(
                f"lesson {lesson_id} is not a lesson of {case}",
                code="lesson.other_case",
                field="lesson_ids",
            )
        if lesson["kind"] == "substance":
            substance = sorted(c for c, k in store.category_kinds(conn).items() if k == "substance")
            raise InvalidInput(
                f"lesson {lesson_id} is substance ({lesson['category']}): promote folds "
                "only style lessons into the methodology (the voice never holds "
                f"substance); refused categories: {', '.join(substance)}",
                code="lesson.substance_chair",
                field="lesson_ids",
            )
        if lesson["review_status"] in ("rejected", "vetoed"):
            raise InvalidInput(
                f"lesson {lesson_id} is {lesson['review_status']}",
                code="lesson.decided",
                field="lesson_ids",
            )
        if lesson["review_status"] == "proposed":
            lesson = {
                **lesson,
                **store.set_review(conn, lesson_id, "approved", actor, "chosen for promotion"),
            }
        chosen.append(lesson)
    return chosen


def fold_into_profile(
    conn, case: str, chosen: list[dict], phrases: list[str], actor: str
) -> tuple[str, dict]:
    """The chosen lessons and phrases folded into the profile of the case's appeal type (else
    universal), locked and saved as a new version: its key and the saved row."""
    key = (sql_items.get_case(conn, case) or {}).get("appeal_type") or "universal"
    row = store.get_profile(conn, key, lock=True)  # SELECT … FOR UPDATE
    if row is None:
        raise NotFound(f"no methodology profile {key!r}")
    profile = dict(row["profile"])
    folded = list(profile.get("lessons", []))
    known = {item.get("id") for item in folded}
    folded += [
        {
            "id": lesson["id"],
            "category": lesson["category"],
            "text": lesson["text"],
            "block": lesson["block"],
            "outcome": lesson["outcome"],
            "case_number": case,
        }
        for lesson in chosen
        if lesson["id"] not in known
    ]
    profile["lessons"] = folded
    current = list(profile.get("transition_phrases", []))
    profile["transition_phrases"] = current + [p for p in phrases if p not in current]
    saved = store.save_profile(conn, key, profile, actor, f"promote {case}")
    return key, saved
