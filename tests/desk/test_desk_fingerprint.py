"""Issue 37 item 16 on the chair's desk, through FastAPI's TestClient against the real database:
/training/fingerprint (the voice-fingerprint proposals: asked for on the desk and written by the
worker's part with a scripted distiller, shown newest first item by item with the substance an
item carries marked, an item adopted — or the part she edited — into the methodology through its
edit, version-checked and undoable, an item dismissed and never offered again) and
/training/portrait (everything of her style that reaches the writer's brief, each with where she
withdraws it; a lesson vetoed from there and an adopted item removed are gone from the brief).
Every form refuses a missing CSRF token and an agent's token over HTTP."""

from __future__ import annotations

import shutil

import pytest

from helpers import AGENT, csrf_of, section, sign_in, text_of
from legal_ai.auth import CHAIR, system_principal
from legal_ai.knowledge.brief import writing_brief
from legal_ai.learning.engine.models import recorder
from legal_ai.learning.lessons import lessons, voice_proposals
from legal_ai.learning.lessons import proposal_review as fingerprint_review
from legal_ai.learning.methodology import profiles as methodology
from legal_ai.learning.methodology import undo as methodology_undo
from legal_ai.providers.models import make_model, parse_spec
from llm_servers import Reply, schema_name, scripted_openai
from scenarios import other_finals

pytestmark = pytest.mark.db
PAGE = "/training/fingerprint"
PORTRAIT = "/training/portrait"
CITED = 'כפי שנקבע בעע"מ 1234/05'
FINGERPRINT = {
    "sentence_rhythm": "משפטים קצרים ועניינים, פסקה לכל טענה, והפסקאות ממוספרות",
    "openings": ["לפנינו ערר על החלטת הוועדה המקומית", "נקדים אחרית לראשית"],
    "transitions": ["לאחר שעיינו בכתבי הטענות", CITED],
    "language_register": "גוף ראשון רבים, לשון עניינית ולא מליצית",
    "other": ["הכרעה ברורה כבר בפתח הדבר"],
}


@pytest.fixture
def proposals(app):
    """The home's proposals folder, emptied before and after (the home is the session's)."""
    folder = voice_proposals.folder(app)
    shutil.rmtree(folder, ignore_errors=True)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def distiller(app):
    """The learning engine's App and a scripted distiller that describes her prose."""

    def answer(request: dict, path: str) -> Reply:
        if schema_name(request) == "VoiceFingerprint":
            return Reply(json=FINGERPRINT)
        return Reply(status=400)

    engine = app.acting_as(system_principal("learning-engine"))
    quick = app.settings.model_copy(update={"model_retries": 0, "model_timeout_s": 10})
    with scripted_openai(answer) as server:
        spec = parse_spec(f"openai:fingerprint-model@{server.url}", "LEGAL_AI_DISTILLER")
        yield engine, make_model(spec, quick, recorder(engine))


def written(desk_app, tmp_path, engine, model) -> None:
    """Her three finals, and a proposal the worker's part writes from them."""
    other_finals(desk_app, tmp_path)
    fingerprint_review.request(desk_app.acting_as(CHAIR))
    result = fingerprint_review.run_requested(engine, model)
    assert result and result["finals"], result


def item_of(html: str, key: str) -> str:
    return html.split(f'data-item="{key}"')[1].split("</li>")[0]


def test_asked_for_on_the_desk_says_what_to_set_and_refuses_agents(
    chair, client, desk_app, proposals
):
    page = chair.get(PAGE)
    assert page.status_code == 200, text_of(page.text).split("<main")[1][:1500]
    html = text_of(page.text)
    assert '<html lang="he" dir="rtl">' in html
    assert '<a href="/review" aria-current="page">לבדיקתי' in html  # under her queues' item
    assert "אין עדיין הצעות" in html
    ask = section(html, "request")
    assert "לא הוגדר מודל שכותב את תיאור הקול" in ask and "LEGAL_AI_DISTILLER" in ask
    assert 'href="/training/fingerprint"' in chair.get("/review").text  # linked from the queue
    token = csrf_of(page.text)
    assert chair.post(f"{PAGE}/request", data={}).status_code == 403  # no CSRF token
    assert fingerprint_review.request_state(desk_app)["requested"] is None
    client.cookies.clear()
    for path in ("/request", "/dismiss", "/adopt"):
        forged = client.post(
            PAGE + path,
            data={"csrf": token, "proposal": "x", "item": "x"},
            headers={"Authorization": f"Bearer {AGENT}"},
        )
        assert forged.status_code == 403 and 'הדסק הוא של היו"ר' in text_of(forged.text)
    assert client.get(PAGE, headers={"Authorization": f"Bearer {AGENT}"}).status_code == 403
    assert fingerprint_review.request_state(desk_app)["requested"] is None
    assert sign_in(client).status_code == 303
    done = client.post(
        f"{PAGE}/request", data={"csrf": csrf_of(client.get(PAGE).text)}, follow_redirects=False
    )
    assert done.status_code == 303
    state = fingerprint_review.request_state(desk_app)["requested"]
    assert state["by"] == "chair"
    shown = text_of(client.get(done.headers["location"]).text)
    assert "הבקשה נרשמה" in shown and "ביקשת הצעה חדשה ב" in shown
    assert "ממתינה" in section(shown, "request")


def test_a_proposal_adopted_in_parts_dismissed_and_undone(
    chair, client, desk_app, tmp_path, proposals, distiller
):
    written(desk_app, tmp_path, *distiller)
    assert fingerprint_review.request_state(desk_app)["requested"] is None  # the worker's done
    page = chair.get(PAGE)
    html = text_of(page.text)
    assert html.count('class="item proposal"') == 1
    assert "מתוך 3 החלטות שלך" in html and "ממתינים להכרעתך: 7 פריטים" in html
    # The citation an item carries: marked in it, named in Hebrew.
    flagged = item_of(html, "transitions-2")
    assert '<mark class="substance">' in flagged and "הפניה לפסק דין" in flagged
    assert "נושא מהות" in flagged
    assert "נושא מהות" not in item_of(html, "transitions-1")
    universal = methodology.show(desk_app, "universal")
    before = list(universal["profile"].get("transition_phrases") or [])
    token = csrf_of(page.text)
    name = fingerprint_review.proposals(desk_app)["proposals"][0]["name"]
    form = {"csrf": token, "proposal": name, "appeal_type": "universal"}
    form |= {
        f"version.{t}": methodology.show(desk_app, t)["version"] for t in ("universal", "permit")
    }
    # Adopted as it is: a transition phrase, in the universal profile's list.
    adopt = {**form, "item": "transitions-1", "text": FINGERPRINT["transitions"][0]}
    assert chair.post(f"{PAGE}/adopt", data={**adopt, "csrf": ""}).status_code == 403
    done = chair.post(f"{PAGE}/adopt", data=adopt, follow_redirects=False)
    assert done.status_code == 303
    after = methodology.show(desk_app, "universal")
    assert after["version"] == universal["version"] + 1 and after["updated_by"] == "chair"
    assert after["profile"]["transition_phrases"] == [*before, FINGERPRINT["transitions"][0]]
    shown = text_of(client.get(done.headers["location"]).text)
    assert "הפריט אומץ למתודולוגיה" in shown and "אומץ" in item_of(shown, "transitions-1")
    assert 'action="/training/fingerprint/adopt"' not in item_of(shown, "transitions-1")
    # The same page sent again (another tab): the version it carries is stale, nothing saved.
    stale = {**form, "item": "other-1", "text": FINGERPRINT["other"][0]}
    refused = chair.post(f"{PAGE}/adopt", data=stale)
    assert refused.status_code == 409 and "לא בוצע דבר" in text_of(refused.text)
    assert methodology.show(desk_app, "universal")["version"] == after["version"]
    again = chair.post(f"{PAGE}/adopt", data={**adopt, "version.universal": after["version"]})
    assert again.status_code == 409 and "כבר הכרעת בפריט הזה" in text_of(again.text)
    # A part she edited, into the permit profile (typed on the desk, kept as she wrote it).
    part = "נקדים אחרית לראשית"
    edited = {
        **form,
        "appeal_type": "permit",
        "item": "openings-1",
        "text": "  לפנינו ערר  ",
    }
    assert chair.post(f"{PAGE}/adopt", data=edited, follow_redirects=False).status_code == 303
    permit = methodology.show(desk_app, "permit")
    assert permit["profile"]["voice_invariants"][-1] == "לפנינו ערר"
    # Dismissed: recorded with her reason, listed apart, never offered again.
    dismiss = {"csrf": token, "proposal": name, "item": "openings-2", "reason": "לא אצלי"}
    assert chair.post(f"{PAGE}/dismiss", data=dismiss, follow_redirects=False).status_code == 303
    shown = text_of(chair.get(PAGE).text)
    assert 'action="/training/fingerprint/adopt"' not in item_of(shown, "openings-2")
    assert "פריטים שדחית (1)" in shown and "לא אצלי" in shown and part in shown
    twice = chair.post(f"{PAGE}/dismiss", data=dismiss)
    assert twice.status_code == 409
    unknown = chair.post(f"{PAGE}/dismiss", data={**dismiss, "proposal": "../../etc/passwd"})
    assert unknown.status_code == 400 and "passwd" not in unknown.text.split("<details")[0]
    # The brief reads what she adopted; one step back on /methodology takes it out again.
    brief = writing_brief(desk_app, "permit")
    assert FINGERPRINT["transitions"][0] in brief["transition_phrases"]
    assert "לפנינו ערר" in brief["voice_invariants"]
    assert CITED not in brief["transition_phrases"]
    undone = methodology_undo.undo(desk_app.acting_as(CHAIR), "universal", after["version"])
    assert undone["restored_from"] == universal["version"]
    assert (
        FINGERPRINT["transitions"][0] not in writing_brief(desk_app, "permit")["transition_phrases"]
    )
    # The audit says where each change came from.
    log = text_of(chair.get("/audit?kind=methodology").text)
    assert "פריט מהצעת תיאור הקול נדחה" in log and "עריכת המתודולוגיה" in log


def test_the_portrait_says_what_reaches_the_writer_and_a_veto_there_takes_it_out(
    chair, client, desk_app, tmp_path, proposals, distiller
):
    empty = text_of(chair.get(PORTRAIT).text)
    assert "עוד אין די החלטות" in section(empty, "measured")
    assert "אין אף אחת" in section(empty, "measured")
    written(desk_app, tmp_path, *distiller)
    her = desk_app.acting_as(CHAIR)
    general = lessons.propose(desk_app, None, "style", "משפטים קצרים בפתח הדבר")
    lessons.review(her, general["id"], "approve")
    typed = lessons.propose(desk_app, None, "style", "לציין את שטח המגרש", appeal_type="permit")
    lessons.review(her, typed["id"], "approve")
    other = lessons.propose(desk_app, None, "style", "לא לסכם טענות", appeal_type="plan")
    lessons.review(her, other["id"], "approve")
    name = fingerprint_review.proposals(desk_app)["proposals"][0]["name"]
    seen = methodology.show(desk_app, "permit")["version"]
    fingerprint_review.adopt(her, name, "other-1", "permit", seen)
    page = chair.get(f"{PORTRAIT}?type=permit")
    assert page.status_code == 200
    html = text_of(page.text)
    measured = section(html, "measured")
    assert "נמדד על 3 החלטות סופיות שלך" in measured
    assert "מילים למשפט" in measured and "לכל 1,000 מילים" in measured
    assert "אותיות" in measured and "%" in measured
    assert "חלקו של כל פרק באורך ההחלטה" in measured
    rules = section(html, "rules")
    assert "קבועי הקול" in rules and FINGERPRINT["other"][0] in rules
    assert 'href="/methodology/permit#list-voice_invariants"' in rules
    shown_lessons = section(html, "lessons")
    assert "משפטים קצרים בפתח הדבר" in shown_lessons and "לציין את שטח המגרש" in shown_lessons
    assert "לא לסכם טענות" not in shown_lessons  # another type's: not this brief's
    link = f'href="/methodology/permit#lesson-{typed["id"]}"'
    assert link in shown_lessons
    adopted = section(html, "adopted")
    assert FINGERPRINT["other"][0] in adopted and "והכותב קורא אותו" in adopted
    examples = section(html, "examples")  # her finals, each withdrawn from the writer here
    assert "הוצאה מהכותב" in examples and "עד שתחזירי אותה" in examples
    brief = writing_brief(desk_app, "permit")
    assert "לציין את שטח המגרש" in [x["text"] for x in brief["lessons"]]
    assert FINGERPRINT["other"][0] in brief["voice_invariants"]
    # Where the link goes: the lesson's veto, as her; gone from the brief and from the portrait.
    target = chair.get("/methodology/permit")
    assert f'id="lesson-{typed["id"]}"' in target.text
    veto = {"csrf": csrf_of(target.text), "lesson": str(typed["id"]), "reason": "לא תמיד"}
    assert (
        chair.post("/methodology/permit/veto", data=veto, follow_redirects=False).status_code == 303
    )
    assert "לציין את שטח המגרש" not in [
        x["text"] for x in writing_brief(desk_app, "permit")["lessons"]
    ]
    assert "לציין את שטח המגרש" not in section(
        text_of(chair.get(f"{PORTRAIT}?type=permit").text), "lessons"
    )
    # The adopted item removed in the methodology: said so, and out of the brief.
    current = methodology.show(desk_app, "permit")
    kept = [x for x in current["profile"]["voice_invariants"] if x != FINGERPRINT["other"][0]]
    methodology.edit(her, "permit", {"voice_invariants": kept}, expected_version=current["version"])
    assert FINGERPRINT["other"][0] not in writing_brief(desk_app, "permit")["voice_invariants"]
    again = text_of(chair.get(f"{PORTRAIT}?type=permit").text)
    assert "הוסר מאז מהמתודולוגיה" in section(again, "adopted")
    # An unknown type, an agent.
    assert chair.get(f"{PORTRAIT}?type=nothing").status_code == 404
    client.cookies.clear()
    agent = client.get(PORTRAIT, headers={"Authorization": f"Bearer {AGENT}"})
    assert agent.status_code == 403
