"""The decisions log, /audit (issue 37 item 8: "what did I decide last week?"): filtered by her
days (typed as she writes them, 1.6.2026, each a day on Israel's clock), by kind, by case and by
who decided, with a text search over the reason and the lesson's own words, paged with the
filters kept; each lesson shown by its text, never a bare number, and linked to its item; a day
she did not write plainly answered in Hebrew beside its field. Through FastAPI's TestClient
against the real database (conftest's `chair`, `desk_app`)."""

import datetime as dt
import re
from urllib.parse import quote

import pytest

import factories
from helpers import csrf_of, text_of
from legal_ai import catalog
from legal_ai.learning.lessons import lessons
from legal_ai.learning.pairs import drafts
from legal_ai.text import clock
from legal_ai.web.desk import audit

pytestmark = pytest.mark.db


def approve(client, lesson_id: int, reason: str = "") -> None:
    token = csrf_of(client.get("/review").text)
    done = client.post(
        "/review/decide",
        data={
            "csrf": token,
            "ref": f"lesson-{lesson_id}",
            "decision": "approve",
            "expected_status": "proposed",
            "reason": reason,
        },
        follow_redirects=False,
    )
    assert done.status_code == 303, done.text


def rows(page: str) -> list[str]:
    body = page.split("<tbody>")[1].split("</tbody>")[0]
    return [text_of(r) for r in re.findall(r"<tr>.*?</tr>", body, flags=re.S)]


def test_filter_by_day_kind_case_and_search_with_lessons_by_text(chair, desk_app, tmp_path):
    record = factories.records()[0]
    draft = tmp_path / "draft.txt"
    draft.write_text(record["draft_text"], encoding="utf-8")
    case = record["case_number"]
    drafts.add_draft(desk_app, case, draft, appeal_type=record["appeal_type"])
    mine = lessons.propose(desk_app, case, "style", "לפתוח את הדיון במסקנה ולא ברקע")
    other = lessons.propose(desk_app, None, "style", "משפטים קצרים בסיכום")
    waiting = lessons.propose(desk_app, None, "style", "להימנע ממילה יתרה בפתח דבר")
    approve(chair, mine["id"], "כך אני כותבת")
    approve(chair, other["id"])
    today = clock.day_of(dt.datetime.now(dt.UTC))
    day = clock.hebrew_date(today)

    everything = chair.get("/audit")
    assert everything.status_code == 200, text_of(everything.text)[-3000:]
    shown = "\n".join(rows(everything.text))
    # Lessons by their words, never bare ids; times on Israel's clock.
    for text in ("לפתוח את הדיון במסקנה ולא ברקע", "משפטים קצרים בסיכום"):
        assert text in shown
    assert not re.search(rf"<td[^>]*><bdi>{mine['id']}</bdi></td>", everything.text)
    assert "השעות לפי שעון ישראל" in everything.text
    # A waiting lesson links to the queue; a decided one of a case to its case.
    assert f'href="/review?item=lesson-{waiting["id"]}"' in everything.text
    assert f'href="/cases/{quote(case, safe="")}"' in everything.text

    # Her days: today holds them all, tomorrow and yesterday nothing.
    todays = chair.get("/audit", params={"since": day, "until": day})
    assert rows(todays.text) == rows(everything.text)
    tomorrow = clock.hebrew_date(today + dt.timedelta(days=1))
    yesterday = clock.hebrew_date(today - dt.timedelta(days=1))
    for params in ({"since": tomorrow}, {"until": yesterday}):
        empty = chair.get("/audit", params=params)
        assert "אין רשומות שמתאימות לסינון." in empty.text, params
    # Kind, case, who, and a word of the lesson or of her reason.
    by_case = rows(chair.get("/audit", params={"case": case}).text)
    assert by_case and all("במסקנה" in r for r in by_case)
    assert not any("משפטים קצרים" in r for r in by_case)
    found = rows(chair.get("/audit", params={"q": "קצרים"}).text)
    assert found and all("משפטים קצרים בסיכום" in r for r in found)
    reason = rows(chair.get("/audit", params={"q": "אני כותבת", "who": "chair"}).text)
    assert len(reason) == 1 and "במסקנה" in reason[0] and "אושר" in reason[0]
    assert "אין רשומות" in chair.get("/audit", params={"kind": "enrichment"}).text
    lessons_only = rows(chair.get("/audit", params={"kind": "lessons", "who": "chair"}).text)
    assert len(lessons_only) == 2
    assert "אין רשומות" in chair.get("/audit", params={"q": "100%_"}).text  # taken literally

    # A day she did not write plainly: said beside its field, her words kept, nothing filtered.
    bad = chair.get("/audit", params={"since": "31.2.2026", "q": "קצרים"})
    assert bad.status_code == 400
    said = "התאריך אינו מובן: יש לכתוב יום.חודש.שנה, למשל 1.6.2026"  # the desk's one wording
    assert said == catalog.hebrew("date.invalid") and said in text_of(bad.text)
    assert 'value="31.2.2026"' in bad.text and 'aria-invalid="true"' in bad.text
    assert rows(bad.text) == found
    backwards = chair.get("/audit", params={"since": day, "until": yesterday})
    assert "היום האחרון קודם ליום הראשון" in backwards.text


def test_pages_keep_the_filters(chair, desk_app):
    many = audit.AUDIT_PAGE + 2
    for n in range(many):
        lessons.propose(desk_app, None, "style", f"לקח מספר {n} לבדיקה")
    lessons.propose(desk_app, None, "style", "לקח אחר לגמרי")
    first = chair.get("/audit", params={"q": "לבדיקה", "kind": "lessons"})
    assert "עמוד 1 מתוך 2" in text_of(first.text)
    older = re.search(r'href="(/audit\?[^"]*page_no=2[^"]*)">ישנות יותר', first.text)
    assert older, first.text
    second = chair.get(older.group(1).replace("&amp;", "&"))
    assert "עמוד 2 מתוך 2" in text_of(second.text) and "q=" in older.group(1)
    assert len(rows(first.text)) == audit.AUDIT_PAGE and len(rows(second.text)) == 2
    assert "לקח מספר 0 לבדיקה" in "".join(rows(second.text))  # the oldest last
