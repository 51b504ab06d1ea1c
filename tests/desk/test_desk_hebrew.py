"""Hebrew only, by one dictionary (issue 23 item 3): every desk page, rendered over a world with
items in every queue, shows no Latin-letter word outside <bdi> (or a <code>, <kbd> or the
"פרטים טכניים" details), and no technical text anywhere she reads: `legal-ai`, `LEGAL_AI_`, or
one of the dictionary's own keys (an id shown instead of its Hebrew). Beside it the dictionary's
parts: the cron describer, the dates, the messages' table and the selects' values."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser
from urllib.parse import quote

import pytest

import factories
from helpers import csrf_of, final_landed
from legal_ai import catalog
from legal_ai.auth import CHAIR
from legal_ai.errors import InvalidInput, Stale
from legal_ai.learning.lessons import feedback, lesson_panel, lessons
from legal_ai.web.desk import core, labels, messages
from legal_ai.web.desk.enrichment import queue_state
from scenarios import digest, ingest_decision, ingest_ruling
from system_panel import distilled, engine, system_call

LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z_'-]*")
TECHNICAL = re.compile(r"legal-ai|LEGAL_AI_")
HIDDEN = {"script", "style"}
LATIN_KEPT = {"bdi", "code", "kbd"}  # Latin letters read in their own direction
VOID = {"br", "hr", "img", "input", "link", "meta", "source", "wbr", "col", "area", "base"}
# Words of a dictionary key's spelling that are also ordinary (a document's Latin may hold them).
KEYS = {k for k in labels.keys() if re.fullmatch(r"[a-z_-]+", k) and ("_" in k or "-" in k)}


class Visible(HTMLParser):
    """The text she reads, as (text, inside <bdi>, <code> or <kbd>) runs: scripts, styles and
    the technical details (<details class="technical">) left out; `title`, `placeholder` and a
    button's `value` read."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, bool]] = []  # (tag, hides its content)
        self.runs: list[tuple[str, bool]] = []

    def hidden(self) -> bool:
        return any(hides for _, hides in self.stack)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag in VOID:
            if not self.hidden():
                for name in ("placeholder", "title", "value"):
                    if attrs.get(name) and (name != "value" or attrs.get("type") == "submit"):
                        self.runs.append((attrs[name], False))
            return
        technical = tag == "details" and "technical" in (attrs.get("class") or "").split()
        self.stack.append((tag, tag in HIDDEN or technical))
        if not self.hidden() and attrs.get("title"):
            self.runs.append((attrs["title"], False))

    def handle_endtag(self, tag):
        for n in range(len(self.stack) - 1, -1, -1):
            if self.stack[n][0] == tag:
                del self.stack[n:]
                return

    def handle_data(self, data):
        if data.strip() and not self.hidden():
            kept = any(t in LATIN_KEPT for t, _ in self.stack)
            self.runs.append((data, kept))


def problems(page: str) -> list[str]:
    """Latin words outside <bdi> (or <code>, <kbd>), and technical text or a dictionary key
    anywhere visible (in <bdi> and <code> too: only the technical details may hold them); markup
    inside the page's <title>."""
    parser = Visible()
    parser.feed(page)
    found = []
    title = re.search(r"<title>(.*?)</title>", page, re.S)
    if title and "<" in title.group(1):  # a browser shows a title's markup as text
        found.append(f"markup in the title: {title.group(1)[:80]}")
    for text, in_bdi in parser.runs:
        if TECHNICAL.search(text):
            found.append(f"technical: {text.strip()[:120]}")
        found += [
            f"key {w!r}: {text.strip()[:80]}" for w in re.findall(r"[a-z_-]+", text) if w in KEYS
        ]
        if not in_bdi:
            found += [f"latin {w!r}: {text.strip()[:80]}" for w in LATIN_WORD.findall(text)]
    return found


def world(chair, desk_app, tmp_path) -> dict:
    """Something in every queue and on every page: a proposed lesson with its evidence, a panel
    escalation, a curator finding, a pending principle, a draft and its final (copy report,
    distance, an analyzed pair), feedback, an internal decision awaiting metadata, a digest
    pointing nowhere, the audit's rows."""
    lesson = lessons.propose(desk_app, None, "structure", "פסקת פתיחה קצרה לפני הדיון")
    lessons.propose(desk_app, None, "style", "גוף ראשון בדיון", source="curator")
    split = distilled(desk_app, None, "phrase", "אשר על כן")
    calls = {m: system_call(desk_app, "panel", m) for m in ("openai:a", "openai:b")}
    lesson_panel.decide_by_panel(
        engine(desk_app),
        split["id"],
        [
            {
                "model": "openai:a",
                "vote": "approve",
                "reason": "טבעי",
                "model_call_id": calls["openai:a"],
            },
            {
                "model": "openai:b",
                "vote": "reject",
                "reason": "חוזר",
                "model_call_id": calls["openai:b"],
            },
        ],
    )
    ingest_ruling(desk_app, tmp_path)
    desk_app.add_principle(
        "external",
        "ruling-1",
        "סטייה ניכרת אינה הקלה",
        "סטייה ניכרת מתוכנית אינה יכולה להינתן כהקלה",
    )
    ingest_decision(desk_app, tmp_path)
    digest(desk_app, tmp_path, "digest-9", 'עע"מ 7777/19')
    record = factories.records()[0]
    token = csrf_of(chair.get("/cases").text)
    fields = {k: record[k] for k in ("appeal_type", "outcome", "practice_area")}
    draft = chair.post(
        "/cases/draft/upload",
        data={"csrf": token, "case_number": record["case_number"], **fields},
        files={"file": ("draft.txt", record["draft_text"].encode(), "text/plain")},
    )
    final = final_landed(
        chair,
        chair.post(
            "/cases/final/upload",
            data={"csrf": token, "case_number": record["case_number"], **fields},
            files={"file": ("final.txt", record["final_text"].encode(), "text/plain")},
        ),
    )
    assert draft.status_code == final.status_code == 200, final.text
    feedback.record(desk_app, "wrong_tone", "הטון חד מדי", case=record["case_number"])
    lessons.review(desk_app.acting_as(CHAIR), lesson["id"], "approve", reason="מדויק")
    return {"draft": draft.text, "final": final.text, "case": record["case_number"]}


PAGES = (
    "/",
    "/search?corpus=external&q=הקלה+בקו+בניין",
    "/search?corpus=style&q=הקלה&practice_area=planning",
    "/source/external/ruling-1",
    "/review",
    "/review?lane=escalations",
    "/review?lane=curator",
    "/review?lane=principles",
    "/training/principles",
    "/training/voice",
    "/training/enrichment",
    "/training/metadata",
    "/training/fingerprint",
    "/training/portrait",
    "/training/portrait?type=plan",
    "/audit",
    "/cases",
    "/cases/" + quote(factories.records()[0]["case_number"], safe=""),  # the world's case
    "/learning",
    "/health",
    "/health/technical",
    "/reminders",
    "/system/corpus",
    "/methodology",
    "/methodology/permit",
)


def test_every_page_in_hebrew(chair, desk_app, tmp_path):
    shown = world(chair, desk_app, tmp_path)
    found = {}
    for path in PAGES:
        page = chair.get(path)
        assert page.status_code == 200, (path, page.text[:400])
        found[path] = problems(page.text)
    found["draft upload"] = problems(shown["draft"])
    found["final upload"] = problems(shown["final"])
    for path in ("/system",):  # the today page's sibling, when it is there
        page = chair.get(path)
        if page.status_code == 200:
            found[path] = problems(page.text)
    chair.cookies.clear()
    found["/login"] = problems(chair.get("/login").text)
    assert {p: f for p, f in found.items() if f} == {}


def test_refusals_are_hebrew_with_the_english_behind_details(chair, desk_app, tmp_path):
    token = csrf_of(chair.get("/review").text)
    empty = chair.post("/review/lesson", data={"csrf": token, "category": "style", "text": ""})
    assert empty.status_code == 400 and problems(empty.text) == []
    # beside the field it is about, in Hebrew, what she typed kept
    assert 'id="lesson-text-error" role="alert">כתבי את נוסח הלקח' in html.unescape(empty.text)
    assert 'aria-describedby="lesson-text-error"' in empty.text
    unknown = chair.post(
        "/review/lesson",
        data={"csrf": token, "category": "style", "text": "לקח", "case_number": "ערר 9999/99"},
    )
    said = html.unescape(unknown.text)
    assert unknown.status_code == 400 and problems(unknown.text) == []
    assert 'id="lesson-case-error" role="alert">אין תיק כזה' in said
    assert 'value="ערר 9999/99"' in said and ">לקח</textarea>" in said
    garbled = chair.post(
        "/review/lesson",
        data={"csrf": token, "category": "style", "text": "לקח", "case_number": "abc"},
    )
    assert "מספר התיק אינו נקרא" in html.unescape(garbled.text)
    tampered = chair.post("/review/lesson", data={"csrf": token, "category": "x", "text": "לקח"})
    assert tampered.status_code == 400 and problems(tampered.text) == []
    assert 'id="lesson-category-error"' in tampered.text and "פרטים טכניים" in tampered.text
    long = chair.get("/search", params={"corpus": "external", "q": "a" * 20_001})
    assert "השאילתה ארוכה מדי" in long.text and problems(long.text) == []
    swapped = {
        "corpus": "external",
        "q": "הקלה",
        "date_from": "2021-06-01",
        "date_to": "2020-01-01",
    }
    reversed_dates = chair.get("/search", params=swapped)
    # the catalog's Hebrew for the refusal's code, beside the field it names (date_to)
    beside = f'id="msg-date_to" role="alert">{catalog.hebrew("date.reversed")}. <details'
    assert beside in html.unescape(reversed_dates.text)
    assert problems(reversed_dates.text) == []


def test_selects_send_the_id_and_show_its_hebrew(chair, desk_app, tmp_path):
    page = chair.get("/cases").text
    assert '<option value="planning">תכנון ובנייה</option>' in page
    assert '<option value="change_of_use">שימוש חורג</option>' in page
    search = chair.get("/search", params={"corpus": "style", "q": "הקלה"}).text
    assert '<option value="planning">תכנון ובנייה</option>' in search


@pytest.mark.parametrize(
    ("cron", "said"),
    [
        ("0 19 * * sun", "כל יום ראשון ב-19:00"),
        ("0 19 * * 0", "כל יום ראשון ב-19:00"),
        ("30 2 * * *", "כל יום ב-02:30"),
        ("0 8 * * *", "כל יום ב-08:00"),
        ("*/15 * * * *", "כל 15 דקות"),
        ("5 * * * *", "כל שעה, 5 דקות אחרי השעה העגולה"),
        ("0 6 1 * *", "ב-1 בכל חודש ב-06:00"),
        ("0 6 * 1 *", "לפי לוח זמנים קבוע"),
        ("nonsense", "לפי לוח זמנים קבוע"),
    ],
)
def test_cron_in_words(cron, said):
    assert labels.cron_hebrew(cron) == said


def test_the_check_finds_latin_ids_and_commands():
    assert (
        problems("<p>טיוטה <bdi>DOCX</bdi></p><details class='technical'>legal-ai x</details>")
        == []
    )
    assert problems("<p>סוג: change_of_use</p>") == [
        "key 'change_of_use': סוג: change_of_use",
        "latin 'change_of_use': סוג: change_of_use",
    ]
    assert problems("<p>הריצי <code>legal-ai worker</code></p>")[0].startswith("technical")
    assert problems("<p>הריצי legal-ai <bdi>worker</bdi></p>")[0].startswith("technical")
    assert problems('<input type="submit" value="Save">') == ["latin 'Save': Save"]


def test_dates_labels_and_messages():
    import datetime as dt

    assert labels.hebrew_date("2021-06-01") == "1.6.2021"
    assert labels.when("2021-06-01T19:05:00+03:00") == "1.6.2021 19:05"
    assert (
        # A naive moment is UTC (as stored), shown on Israel's clock (text/clock.py).
        labels.when(dt.datetime(2021, 6, 1, 9, 0)) == "1.6.2021 12:00" and labels.when(None) == "—"
    )
    assert labels.label("agent:learning-engine", "actor") == "מנוע הלמידה"
    assert labels.label("agent:somebody", "actor") == "סוכן"
    assert labels.label("no_such_action", "action") == "פעולה אחרת"
    assert str(labels.mixed("קובץ PDF של 3 עמודים")) == "קובץ <bdi>PDF</bdi> של <bdi>3</bdi> עמודים"
    said = html.unescape(
        str(
            messages.said(
                InvalidInput(
                    "refused by the gate: only the chair vetoes, and only an approved lesson",
                    code="gate.lesson_veto_chair",
                )
            )
        )
    )
    assert said.startswith('וטו אפשרי רק בלקח שאושר, ורק בידי היו"ר')
    assert (
        '<details class="technical"><summary>פרטים טכניים</summary><bdi dir="ltr">refused' in said
    )
    tail = str(messages.said("הקובץ ריק (the file is empty)"))
    assert tail.startswith("הקובץ ריק") and '<bdi dir="ltr">the file is empty</bdi>' in tail


@pytest.mark.parametrize(
    "message",
    [
        # a refusal without a code the catalog knows, its English mid-sentence or nested
        'פסק הדין לא נקלט: פ"ד מה(3) 123 names the ruling by its reporter only: give the '
        "ruling's case number (e.g. בג\"ץ 594/89)",
        'פסק הדין לא נקלט: this doc_id belongs to case עע"מ 1/2, not בג"ץ 3/4; give another id',
        'הקובץ לא נקלט: the file "a.pdf" (3 pages) is a scan: upload the original',
    ],
)
def test_a_refusal_mixing_hebrew_and_english_shows_only_the_hebrew(message):
    shown = str(messages.said(InvalidInput(message)))
    assert problems(f"<p>{shown}</p>") == [], shown
    assert shown.startswith(message[:10]) and "פרטים טכניים" in shown


def test_a_text_she_or_a_model_wrote_is_shown_as_written():
    # Not a refusal: English words in a row are hers (a reason, a notice), never cut away.
    for text in ("הבקשה הוגשה דרך Google Drive ולא בדואר", "הקובץ Final Decision.pdf נקלט"):
        shown = str(messages.said(text))
        assert "פרטים טכניים" not in shown and "המערכת סירבה" not in shown
        assert shown.endswith(("בדואר", "נקלט")), shown


def test_what_waits_and_what_was_refused_meanwhile_is_said_in_hebrew():
    failed = {"job_status": "failed", "attempts": 3, "error": "internal error (KeyError): x"}
    retried = {**failed, "job_status": "queued", "max_attempts": 3}
    for row in (failed, retried):
        shown = str(messages.said(queue_state(row)))
        assert problems(f"<p>{shown}</p>") == [] and "KeyError" in shown, shown  # in details
    stale = Stale("treatment", 17, "confirmed", by="agent:claude")
    said = core.stale_text(stale, {"confirmed": "אישרת"})
    assert said == 'קריאת ההפניה כבר במצב "אישרת" (בידי סוכן)'


def test_why_a_lesson_came_to_her_is_said_in_hebrew():
    """learning/checks/purity.route's reasons (English, stored with the lesson) in her words: what of
    the case it carries with the words found, or the distilling model's own Hebrew reason."""
    carried = str(
        messages.reason('voice purity: carries a ruling citation (עע"מ 1234/05); a date (1.8.2020)')
    )
    assert carried.startswith("הלקח נושא פרטים מן התיק ולא רק סגנון: הפניה לפסק דין")
    assert "<bdi>1.8.2020</bdi>" in carried and "תאריך" in carried and problems(carried) == []
    by_model = str(
        messages.reason("voice purity: the distiller classified it as substance (נושא עובדות)")
    )
    assert by_model.endswith(": נושא עובדות") and "technical" not in by_model
    english = str(messages.reason("voice purity: the distiller classified it as substance (facts)"))
    assert "סבר שהוא נושא מהות" in english and '<details class="technical">' in english
