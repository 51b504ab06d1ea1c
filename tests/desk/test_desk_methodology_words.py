"""The methodology editor in words (issue 37 item 16), through FastAPI's TestClient against the
real database: a heading rule written as phrases, saved as the escaped pattern and read back as
the same phrases; a pattern from the command line kept while its field is left empty; the
preview of which of her finals' lines and sentences a rule would match; multi-level undo (step
back one change at a time, never forth); and the veto of a lesson she approved that no promote
folded yet — as her on the desk, and refused to an agent over HTTP. The same in Chromium:
test_desk_methodology_browser.py."""

import html

import pytest
from test_desk import form_fields, methodology_form
from test_desk_hebrew import problems

import factories
from helpers import AGENT, csrf_of, text_of
from legal_ai.auth import CHAIR
from legal_ai.learning.lessons import lessons
from legal_ai.learning.methodology import profiles as methodology
from legal_ai.learning.methodology import undo as methodology_undo
from legal_ai.text import blocks as text_blocks
from legal_ai.text.phrases import pattern_of, words_of
from scenarios import analyzed_final

pytestmark = pytest.mark.db
FORM = "/methodology/universal"


def test_phrases_and_patterns_round_trip():
    written = ["דיון (המשך)", "דיון  והכרעה", "a|b", "סעיף 5.1*"]
    pattern = pattern_of(written)
    assert words_of(pattern) == ["דיון (המשך)", "דיון והכרעה", "a|b", "סעיף 5.1*"]
    compiled = text_blocks.compile_pattern(pattern, "test")
    assert compiled.fullmatch("דיון   והכרעה") and compiled.fullmatch("דיון (המשך)")
    assert not compiled.fullmatch("דיון X המשך") and not compiled.fullmatch("a")
    assert words_of("טענות העוררי[םן]|טענות העורר(?:ת)?") == [
        "טענות העוררים",
        "טענות העוררין",
        "טענות העורר",
        "טענות העוררת",
    ]
    for advanced in (r"\d+ דיון", "דיון.*", "[א-ת]+", "(?:אבג)+"):
        assert words_of(advanced) is None


def test_a_heading_rule_is_written_as_phrases_and_saved_escaped(chair, desk_app):
    page = chair.get(FORM)
    assert page.status_code == 200 and problems(page.text) == []
    assert "ביטוי רגולרי" not in page.text and "|" not in text_of(page.text)
    fields = form_fields(page.text, FORM)
    assert fields["heading.discussion"].splitlines() == ["דיון והכרעה", "דיון", "הכרעה"]
    assert fields["signature_start"].splitlines() == ["ניתנה היום", "ניתנו היום"]
    # Read back unchanged: nothing saved (the stored patterns are not rewritten).
    same = chair.post(FORM, data=fields, follow_redirects=False)
    assert same.headers["location"].endswith("?same=1")
    # One heading added, one taken out: a new version whose pattern is her phrases, escaped.
    fields["heading.discussion"] = "דיון והכרעה\nדיון (המשך)\nהכרעה\n"
    fields["reason"] = "כותרת הדיון שלי"
    saved = chair.post(FORM, data=fields, follow_redirects=False)
    assert saved.status_code == 303 and saved.headers["location"].endswith("?saved=2")
    blocks = methodology.show(desk_app, "universal")["profile"]["blocks"]
    assert blocks["headings"]["discussion"] == r"דיון\s+והכרעה|דיון\s+\(המשך\)|הכרעה"
    assert blocks["headings"]["opening"] == "פתח דבר|מבוא"  # untouched rules stay as stored
    text = "פתח דבר\nא\nרקע\nב\n3. דיון (המשך):\nג\nסוף דבר\nד"
    found = text_blocks.segment(text, blocks)
    assert found.blocks["discussion"] == "ג" and found.headings["discussion"] == "3. דיון (המשך):"
    # The step says what changed, in words.
    shown = chair.get(FORM)
    step = shown.text.split('<li data-version="2"')[1].split("</li>\n")[0]
    assert "כותרת דיון והכרעה: נוסף ״דיון (המשך)״" in text_of(step)
    assert "כותרת דיון והכרעה: הוסר ״דיון״" in text_of(step)
    assert "למה: כותרת הדיון שלי" in text_of(step)


def test_a_rule_too_long_for_a_heading_is_refused_beside_it(chair, desk_app):
    fields = methodology_form(chair)
    fields["heading.opening"] = "פתח דבר\n" + "מילה " * 15
    fields["ratio.conclusion"] = "הרבה"
    refused = chair.post(FORM, data=fields)
    assert refused.status_code == 400 and problems(refused.text) == []
    said = text_of(refused.text)
    assert "כותרת ארוכה מ-60 תווים" in said and "אינו מספר" in said
    assert form_fields(refused.text, FORM)["heading.opening"].startswith("פתח דבר\n")  # kept
    assert methodology.show(desk_app, "universal")["version"] == 1


def test_a_pattern_from_the_command_line_is_kept_while_its_field_is_empty(chair, desk_app):
    her = desk_app.acting_as(CHAIR)
    profile = methodology.show(desk_app, "universal")["profile"]
    blocks = {**profile["blocks"], "headings": {**profile["blocks"]["headings"]}}
    blocks["headings"]["conclusion"] = r"סוף\s*דבר\d*"
    methodology.edit(her, "universal", {"blocks": blocks})
    page = chair.get(FORM)
    fields = form_fields(page.text, FORM)
    assert fields["heading.conclusion"] == "" and "נכתב בשורת הפקודה" in page.text
    assert r"\d" not in page.text
    fields["list.voice_invariants"] += "\nבלשון רבים"
    assert chair.post(FORM, data=fields, follow_redirects=False).status_code == 303
    stored = methodology.show(desk_app, "universal")["profile"]["blocks"]["headings"]
    assert stored["conclusion"] == r"סוף\s*דבר\d*"
    fields = methodology_form(chair)
    fields["heading.conclusion"] = "סוף דבר\nסיכום"
    assert chair.post(FORM, data=fields, follow_redirects=False).status_code == 303
    stored = methodology.show(desk_app, "universal")["profile"]["blocks"]["headings"]
    assert stored["conclusion"] == r"סוף\s+דבר|סיכום"


def test_the_preview_shows_which_of_her_finals_sentences_a_rule_matches(chair, desk_app):
    record = factories.records()[0]
    analyzed_final(desk_app, record)
    fields = methodology_form(chair)
    fields["heading.discussion"] = "דיון והכרעה\nדיון נוסף"
    answer = chair.post(f"{FORM}/preview", data={**fields, "preview": "heading.discussion"})
    assert answer.status_code == 200 and problems(answer.text) == []
    result = answer.text.split('id="preview-heading-discussion"')[1].split("</div>")[0]
    assert "הכלל תופס" in text_of(result) and record["case_number"] in text_of(result)
    assert "<li>" in result and "דיון והכרעה" in text_of(result)
    # What she typed is kept; nothing saved.
    assert form_fields(answer.text, FORM)["heading.discussion"] == "דיון והכרעה\nדיון נוסף"
    assert methodology.show(desk_app, "universal")["version"] == 1
    # A phrase of a list: the sentences holding it.
    fields["list.anti_patterns"] = "נקדים אחרית לראשית"
    answer = chair.post(f"{FORM}/preview", data={**fields, "preview": "list.anti_patterns"})
    result = answer.text.split('id="preview-list-anti_patterns"')[1].split("</div>")[0]
    assert "נקדים אחרית לראשית: דין הערר להתקבל בחלקו" in text_of(result)
    # A rule that matches nothing says so.
    fields["signature_start"] = "נחתם בירושלים"
    answer = chair.post(f"{FORM}/preview", data={**fields, "preview": "signature_start"})
    result = answer.text.split('id="preview-signature_start"')[1].split("</div>")[0]
    assert "לא תופס אף שורה" in text_of(result)
    unknown = chair.post(f"{FORM}/preview", data={**fields, "preview": "version"})
    assert unknown.status_code == 400


def test_undo_steps_back_one_change_at_a_time(chair, desk_app):
    her = desk_app.acting_as(CHAIR)
    seed = methodology.show(desk_app, "universal")["profile"]
    methodology.edit(her, "universal", {"voice_invariants": ["א"]}, reason="ראשון")
    second = methodology.edit(her, "universal", {"voice_invariants": ["א", "ב"]})["profile"]
    methodology.edit(her, "universal", {"voice_invariants": ["א", "ב", "ג"]})
    page = chair.get(FORM)
    assert "ביטול הצעד האחרון (חזרה למצב של גרסה 3)" in text_of(page.text)
    step = page.text.split('<li data-version="4"')[1].split("</li>\n")[0]
    assert "קבועי הקול: נוסף ״ג״" in text_of(step) and "עריכה" in text_of(step)

    def undo(seen: int):
        token = csrf_of(chair.get(FORM).text)
        return chair.post(f"{FORM}/undo", data={"csrf": token, "version": str(seen)})

    first = undo(4)
    assert first.status_code == 200 and "הצעד האחרון בוטל" in text_of(first.text)
    assert methodology.show(desk_app, "universal")["profile"] == second  # version 5 = 3
    assert "ביטול הצעד האחרון (חזרה למצב של גרסה 2)" in text_of(first.text)
    undo(5)  # on back, never forth to 4
    assert methodology.show(desk_app, "universal")["profile"]["voice_invariants"] == ["א"]
    stale = undo(5)  # a second tab still showing version 5: nothing done
    assert stale.status_code == 409 and "לא בוטל דבר" in text_of(stale.text)
    assert methodology.show(desk_app, "universal")["version"] == 6
    last = undo(6)
    assert methodology.show(desk_app, "universal")["profile"] == seed
    assert "אין צעד קודם לבטל" in text_of(last.text)
    step = last.text.split('<li data-version="7"')[1].split("</li>\n")[0]
    assert "ביטול צעד: חזרה למצב של גרסה 1" in text_of(step)
    assert "קבועי הקול: הוסר ״א״" in text_of(step)
    assert problems(last.text) == []
    nothing = undo(7)
    assert nothing.status_code == 409 and "זו הגרסה הראשונה" in text_of(nothing.text)
    # A change after an undo is undone first; then the steps go on back from where they were.
    methodology.edit(her, "universal", {"voice_invariants": ["ד"]})  # version 8
    assert methodology_undo.steps(desk_app, "universal")["undo_to"] == 7
    assert methodology_undo.undo_target(8, {4: 3, 5: 2, 6: 1, 7: 0}) == 7


def test_the_steps_show_israel_time():
    from legal_ai.text import clock

    assert methodology_undo.places(6, {4: 3, 5: 2}) == {1: 1, 2: 2, 3: 3, 4: 3, 5: 2, 6: 6}
    assert methodology_undo.undo_target(5, {4: 3, 5: 2}) == 1
    assert methodology_undo.undo_target(1, {}) is None
    import datetime as dt

    moment = dt.datetime(2026, 7, 1, 21, 30, tzinfo=dt.UTC)
    assert clock.when(moment) == "2.7.2026 00:30"  # the steps' dates: `when`, Israel's clock


def test_a_lesson_she_approved_not_folded_is_vetoed_on_the_desk(client, chair, desk_app):
    her = desk_app.acting_as(CHAIR)
    general = lessons.propose(desk_app, None, "style", "משפטים קצרים בפתח הדבר")
    lessons.review(her, general["id"], "approve")
    typed = lessons.propose(desk_app, None, "style", "לציין את שטח המגרש", appeal_type="permit")
    lessons.review(her, typed["id"], "approve")
    page = chair.get(FORM)
    approved = page.text.split('id="approved"')[1].split("</table>")[0]
    assert f'data-lesson="{general["id"]}"' in approved and "משפטים קצרים" in approved
    assert f'data-lesson="{typed["id"]}"' not in approved  # a type's own: on its page
    assert f'data-lesson="{typed["id"]}"' in chair.get("/methodology/permit").text
    assert problems(page.text) == []
    token = csrf_of(page.text)
    veto = {"csrf": token, "lesson": str(general["id"])}
    bare = chair.post(f"{FORM}/veto", data={**veto, "reason": ""})
    assert bare.status_code == 400 and "כתבי נימוק" in html.unescape(bare.text)
    assert lessons.LESSONS.show(desk_app, general["id"])["review_status"] == "approved"
    # Her veto of the type's lesson on its page: out of what the writer reads.
    permit = chair.get("/methodology/permit")
    done = chair.post(
        "/methodology/permit/veto",
        data={"csrf": csrf_of(permit.text), "lesson": str(typed["id"]), "reason": "לא תמיד"},
        follow_redirects=False,
    )
    assert done.status_code == 303 and done.headers["location"].endswith("?vetoed=1#lessons")
    shown = chair.get(done.headers["location"])
    assert "הלקח נפסל (וטו)" in text_of(shown.text)
    assert f'data-lesson="{typed["id"]}"' not in shown.text
    vetoed = lessons.LESSONS.show(desk_app, typed["id"])
    assert (vetoed["review_status"], vetoed["reviewed_by"]) == ("vetoed", "chair")
    twice = chair.post(
        "/methodology/permit/veto",
        data={"csrf": csrf_of(permit.text), "lesson": str(typed["id"]), "reason": "שוב"},
    )
    assert twice.status_code == 409 and "הווטו לא בוצע" in html.unescape(twice.text)
    # An agent over HTTP: its token opens no desk form, and the API refuses its decision.
    agent = {"Authorization": f"Bearer {AGENT}"}
    client.cookies.clear()
    forged = client.post(
        f"{FORM}/veto",
        headers=agent,
        data={**veto, "reason": "סוכן"},
        follow_redirects=False,
    )
    assert forged.status_code in (303, 401, 403)
    assert forged.headers.get("location", "/login").startswith("/login")
    api = client.post(
        f"/api/lessons/{general['id']}/review",
        headers=agent,
        json={"decision": "veto", "reason": "סוכן", "expected_status": "approved"},
    )
    assert api.status_code == 403
    assert lessons.LESSONS.show(desk_app, general["id"])["review_status"] == "approved"
