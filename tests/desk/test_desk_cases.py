"""The chair's cases (issue 23 item 4): `/cases` a list — a row per case with its parties,
status, last activity and what waits on it, each linking to the case's page — and the page per
case: the copy check's findings first (substance first, linked to its source), the final's
figures explained against her usual, what was learned in plain Hebrew, the timeline in date
order, the draft and final side by side. An upload lands on its case's page (303). Bad input
(a wrong file type, an empty form, the same file twice) is answered beside its field, what she
filled in kept. Her actions (promote, attach a precedent, a missing precedent's ruling, an
ambiguous citation's pick) are on the pages and answer with a redirect to where she was.
Against the real database through FastAPI's TestClient (conftest.py's `chair`); the browser's
walk is test_desk_browser.py."""

import html
import re
import time
from pathlib import Path
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient
from test_desk_hebrew import problems

import factories
from helpers import csrf_of, final_landed, section, sign_in, text_of, write
from legal_ai.app import App
from legal_ai.auth import CHAIR
from legal_ai.learning.lessons import lessons
from legal_ai.learning.methodology import profiles as methodology
from legal_ai.learning.pairs import drafts, finals, held_out
from legal_ai.store import style_history
from legal_ai.web.app import create_app
from scenarios import COPY_CASE, analyzed_final, other_finals, planted_draft
from word_docs import as_word, word_docx

pytestmark = pytest.mark.db
DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
CITATION_KINDS = ("found", "not_in_library", "quote_not_found")
ISO = re.compile(r"\d{4}-\d{2}-\d{2}|\d{2}:\d{2}:\d{2}")


def main_of(page: str) -> str:
    """What a page holds inside its <main>."""
    return page.split("<main", 1)[1].split(">", 1)[1]


def page_of(case: str) -> str:
    return "/cases/" + quote(case, safe="")


def pair_status(app, case: str) -> str:
    return next(p["status"] for p in finals.pairs(app)["pairs"] if p["case_number"] == case)


def versions(app, appeal_type: str) -> int:
    return len(methodology.history(app, appeal_type)["versions"])


def upload(chair, kind: str, case: str, text: str, **fields):
    """The desk's upload form sent; a final's stages page (answered at once) asked again until
    the upload ends: the answer that ends it (a redirect to the case's page, or the refusal)."""
    token = csrf_of(chair.get("/cases").text)
    sent = chair.post(
        f"/cases/{kind}/upload",
        data={"csrf": token, "case_number": case, **fields},
        files={"file": (f"{kind}.txt", text.encode(), "text/plain")},
        follow_redirects=False,
    )
    if kind != "final" or sent.status_code != 303:
        return sent
    stages = sent.headers["location"]
    assert stages.startswith("/uploads/final/"), stages
    for _ in range(1200):
        ended = chair.get(stages, follow_redirects=False)
        if ended.status_code != 200 or 'id="upload-stages"' not in ended.text:
            return ended
        time.sleep(0.05)
    raise AssertionError("the final's upload never ended")


def planted(desk_app, tmp_path) -> dict:
    """The other cases' finals in the library, and 7001's planted draft (a holding of 8815
    copied into it: substance)."""
    records = other_finals(desk_app, tmp_path)
    record = factories.records()[0]
    added = drafts.add_draft(
        desk_app,
        COPY_CASE,
        write(tmp_path / "draft.txt", planted_draft()),
        appeal_type=record["appeal_type"],
        outcome=record["outcome"],
        practice_area=record["practice_area"],
    )
    return {"records": records, "report": added["copy_check"]}


def test_the_list_a_row_per_case_linking_to_its_page(chair, desk_app, tmp_path):
    planted(desk_app, tmp_path)
    page = chair.get("/cases")
    assert page.status_code == 200 and problems(page.text) == []
    table = page.text.split('<table class="cases">')[1].split("</table>")[0]
    rows = re.findall(r"<tr><td class=\"case\">(.*?)</tr>", table, re.S)
    assert len(rows) == 4  # 7001 (our draft) and the three other finals
    first = rows[0]  # the most recently active first: the draft just added
    assert f'href="{page_of(COPY_CASE)}"' in first
    shown = text_of(first)
    assert "י' כהן ומ' כהן נ' הוועדה המקומית" in shown  # the parties, from the header
    assert 'data-status="draft_done">טיוטה הוגשה' in shown
    assert re.search(r'<td class="when">\d{1,2}\.\d{1,2}\.\d{4}</td>', shown)
    assert "בדיקת ההעתקה מצאה מהות" in shown and "ממתין להחלטה החתומה" in shown
    assert 'class="serious"><a href="' + page_of(COPY_CASE) + '#copy"' in first
    other = text_of(next(r for r in rows if "8815" in r))
    assert "התקבלה החלטה סופית" in other
    # The old anchors of the today page's cards land on the list's sections.
    for anchor in ("copy", "missing", "ambiguous", "promote"):
        assert f'<section id="{anchor}"' in page.text, anchor
    assert f'href="{page_of(COPY_CASE)}#copy"' in section(page.text, "copy")
    assert not ISO.search(main_of(text_of(page.text)))


def rows_of(page: str) -> list[str]:
    table = page.split('<table class="cases">')[1].split("</table>")[0]
    return [text_of(r) for r in re.findall(r"<tr><td class=\"case\">(.*?)</tr>", table, re.S)]


def test_the_list_searched_filtered_sorted_and_paged(chair, desk_app, tmp_path):
    planted(desk_app, tmp_path)
    by_number = chair.get("/cases", params={"q": "8815/25"})
    assert by_number.status_code == 200 and problems(by_number.text) == []
    [row] = rows_of(by_number.text)
    assert "8815/25" in row and "מוצגים תיקים 1–1 מתוך 1 שנמצאו (בסך הכול 4 תיקים)" in (
        text_of(by_number.text)
    )
    assert len(rows_of(chair.get("/cases", params={"q": "כֹּהֵן"}).text)) >= 1  # niqqud folded
    drafts_only = rows_of(chair.get("/cases", params={"status": "draft_done"}).text)
    assert len(drafts_only) == 1 and "7001/25" in drafts_only[0]
    waiting = rows_of(chair.get("/cases", params={"waiting": "1"}).text)
    assert waiting and all("—" not in r.rsplit("</td>", 1)[-1] for r in waiting)
    numbers = [
        re.search(r"\d+/\d+", r).group() for r in rows_of(chair.get("/cases?sort=number").text)
    ]
    assert numbers == sorted(numbers, key=lambda n: n)
    nothing = chair.get("/cases", params={"q": "אין כזה 999"})
    assert "לא נמצא תיק כזה" in text_of(nothing.text) and rows_of(nothing.text) == []
    odd = chair.get("/cases", params={"status": "drop table", "sort": "x", "page": "-3"})
    assert odd.status_code == 200 and len(rows_of(odd.text)) == 4  # unknown choices: all
    with desk_app.store.transaction() as conn:  # thirty more cases: two pages
        for n in range(30):
            conn.execute(
                "INSERT INTO cases (case_number, practice_area) VALUES (%s, 'planning')",
                (f"ערר (מרכז) {5000 + n}/24",),
            )
    first = chair.get("/cases")
    assert len(rows_of(first.text)) == 25 and 'rel="next"' in first.text
    assert "דף 1 מתוך 2" in text_of(first.text)
    second = chair.get("/cases", params={"page": "2"})
    assert len(rows_of(second.text)) == 9 and 'rel="prev"' in second.text
    assert "מוצגים תיקים 26–34 מתוך 34" in text_of(second.text)
    past = chair.get("/cases", params={"page": "99"})
    assert len(rows_of(past.text)) == 9  # past the end: the last page
    kept = chair.get("/cases", params={"q": "ערר", "sort": "number", "page": "2"})
    assert 'href="/cases?q=%D7%A2%D7%A8%D7%A8&amp;sort=number"' in kept.text  # previous page


def test_the_case_page_opens_with_the_copy_findings(chair, desk_app, tmp_path):
    world = planted(desk_app, tmp_path)
    report, records = world["report"], world["records"]
    page = chair.get(page_of(COPY_CASE))
    assert page.status_code == 200 and problems(page.text) == []
    main = main_of(page.text)
    order = [main.index(f'id="{name}"') for name in ("findings", "timeline", "upload", "texts")]
    assert order == sorted(order)  # findings first, the texts last
    copy = main.split('id="copy"')[1].split("</details>")[0]
    assert copy.startswith(" open")  # substance in a draft awaiting its final: open
    # The summary line: passages per kind (substance in the warning colour), citations per status.
    summary = text_of(copy.split("</summary>")[0])
    count = {
        k: sum(1 for p in report["passages"] if p["kind"] == k)
        for k in ("substance", "analysis", "template")
    }
    assert count["substance"] >= 1
    assert (
        f'<span class="copy-count substance" data-kind="substance">מהות {count["substance"]}'
        in (summary)
    )
    assert f"ניתוח {count['analysis']}" in summary and f"תבנית {count['template']}" in summary
    cited = {s: sum(1 for c in report["citations"] if c["status"] == s) for s in CITATION_KINDS}
    assert f"ציטוטים: {cited['found']} נמצאו" in summary
    assert f"{cited['not_in_library']} אינם בספרייה" in summary
    assert f"{cited['quote_not_found']} ציטוט לא נמצא במקור" in summary
    items = re.findall(r'<li class="passage (\w+)" data-kind="\w+">(.*?)</li>', copy, re.S)
    kinds = [k for k, _ in items]
    assert kinds == sorted(kinds, key=["substance", "analysis", "template"].index)
    [holding] = [body for kind, body in items if kind == "substance" and "1998" in body]
    assert "מהות — אסור להעתיק" in holding and "ערר 8815/25" in text_of(holding)
    source = next(p["source"] for p in report["passages"] if "1998" in p["text"])
    link = re.search(r'href="(/source/style/[^"]+)"', holding).group(1).replace("&amp;", "&")
    assert f"?start={source['char_start']}&end={source['char_end']}#span" in link
    opened = chair.get(link.split("#")[0])
    marked = text_of(opened.text).split('id="span"')[1].split("</mark>")[0]
    assert "שהיתרו ניתן בשנת 1998" in marked
    copied = records["ערר 8815/25"]["final_text"][source["char_start"] : source["char_end"]]
    assert "שהיתרו ניתן בשנת 1998" in copied
    # Each passage holds whole sentences: it ends at a sentence's or a line's end, never at
    # a decimal, a date or a paragraph's number.
    draft = planted_draft()
    for passage in report["passages"]:
        at = draft.index(passage["text"])
        after = draft[at + len(passage["text"]) : at + len(passage["text"]) + 1]
        assert passage["text"].endswith((".", '."', ".)", "?", "!")) or after in ("", "\n")
        assert not re.search(r"(?:^|\s)\d{1,2}\.$", passage["text"])
    citations = copy.split('<ul class="citations">')[1]
    assert (
        'data-citation="quote_not_found" data-kind="ruling"><span class="badge substance">'
        in citations
    )
    assert 'href="/source/external/r-9555">פסק הדין בספרייה' in citations
    # The timeline in date order; the draft's text beside the final's place.
    timeline = section(page.text, "timeline")
    assert "טיוטה — גרסה" in text_of(timeline) and "בדיקת ההעתקה: " in text_of(timeline)
    texts = section(page.text, "texts")
    assert 'class="doc" tabindex="0"' in texts and "ההחלטה החתומה עוד לא הגיעה" in texts
    assert "אין תיק כזה" in chair.get(page_of("ערר 77/25")).text
    assert chair.get(page_of("ערר 77/25")).status_code == 404


def test_a_cases_verdicts_stay_as_they_were_when_other_finals_arrive(chair, desk_app):
    """Issue 37 item 9: the verdicts ("better than usual") of a final are against her usual as
    it was at its upload (stored with its held-out row), not recomputed as finals arrive."""
    records = factories.records()
    for record in records[1:]:
        analyzed_final(desk_app, record)  # three of her finals: her usual
    target = records[0]
    analyzed_final(desk_app, target)

    def figures_of() -> tuple[str, list[str]]:
        page = chair.get(page_of(target["case_number"]))
        part = page.text.split('id="figures"')[1].split('id="learning"')[0]
        return text_of(part), re.findall(r'data-verdict="(\w+)"', part)

    before, verdicts = figures_of()
    assert len(verdicts) >= 2 and "החציון ב־3 החלטות אחרות שלך" in before
    assert "ההשוואה אינה משתנה כשמגיעות החלטות נוספות" in before
    # Two more finals, each far from its draft (another case's final): her usual moves.
    for n, (draft_of, final_of) in enumerate([(1, 2), (2, 3)]):
        odd = {
            **records[draft_of],
            "case_number": f"ערר 90{n}1/25",
            "final_text": records[final_of]["final_text"] + f"\nסוף ההחלטה, עותק {n}.\n",
        }
        analyzed_final(desk_app, odd)
    with desk_app.store.connection() as conn:
        rows = conn.execute(
            "SELECT metrics->'usual' AS usual FROM style_distance_history WHERE case_number = %s",
            (target["case_number"],),
        ).fetchall()
        now = held_out.usual_of(style_history.latest_of_others(conn, target["case_number"]))
    (stored,) = [r["usual"] for r in rows]
    assert now["finals"] == 5 and now["change_percent"] != stored["change_percent"]
    assert figures_of() == (before, verdicts)  # the same words, the same verdicts


def test_an_upload_lands_on_its_case_with_the_figures_explained(chair, desk_app):
    earlier, record = factories.records()[1], factories.records()[0]
    analyzed_final(desk_app, earlier)  # her usual: one other final compared with its draft
    case = record["case_number"]
    fields = {k: record[k] for k in ("appeal_type", "outcome", "practice_area")}
    sent = upload(chair, "draft", case, record["draft_text"], **fields)
    assert sent.status_code == 303 and sent.headers["location"] == page_of(case) + "?uploaded=draft"
    landed = chair.get(sent.headers["location"])
    assert "הטיוטה נקלטה — גרסה 1" in text_of(landed.text) and problems(landed.text) == []
    again = upload(chair, "draft", case, record["draft_text"], **fields)  # a double submit
    assert again.headers["location"].endswith("?uploaded=draft&same=1")
    said = text_of(chair.get(again.headers["location"]).text)
    assert "הטיוטה הזו כבר נקלטה (גרסה 1); לא נוספה גרסה חדשה" in said
    assert len([d for d in finals.pairs(desk_app)["pairs"] if d["case_number"] == case]) == 1

    sent = upload(chair, "final", case, record["final_text"], **fields)  # the form asks hers
    assert sent.headers["location"] == page_of(case) + "?uploaded=final"
    page = chair.get(sent.headers["location"])
    assert problems(page.text) == []
    shown = text_of(page.text)
    assert "ההחלטה החתומה נקלטה (גרסה 1)" in shown and 'data-status="analyzed"' in shown
    figures = text_of(page.text.split('id="figures"')[1].split('id="learning"')[0])
    (row,) = [r for r in finals.history(desk_app)["rows"] if r["case_number"] == case]
    words = row["word_edit_distance"]
    total = row["metrics"]["draft_words"]
    assert f"שינית {words} מתוך {total} מילות הטיוטה — כ-{round(row['change_percent'])}%" in figures
    # One other final: too few for "your usual" (three are needed) — said in one sentence.
    assert "בהחלטותייך האחרות שינית בדרך כלל" not in figures
    assert "הייתה רק החלטה אחרת אחת שלך, כלומר חסרו עוד 2." in figures
    assert "פחות שינויים — טוב יותר" in figures and "נמוך יותר — טוב יותר" in figures
    assert not re.search(r'data-verdict="(better|worse|same)"', page.text)
    for bare in (str(row["change_percent"]), str(row["stylometric_delta"]), "Delta"):
        assert bare not in figures, bare  # never a bare measure
    learned = text_of(section(page.text, "findings").split('id="learning"')[1])
    assert "הלמידה מההחלטה הזו ממתינה לתור" in learned
    assert "job" not in learned and "legal-ai" not in page.text
    assert not ISO.search(main_of(shown))
    timeline = text_of(section(page.text, "timeline"))
    assert timeline.index("טיוטה — גרסה 1") < timeline.index("ההחלטה החתומה (גרסה 1) הושוותה")
    assert "הלמידה מההחלטה נכנסה לתור" in timeline
    texts = section(page.text, "texts")  # our draft against her final, block by block
    assert "מה שינית בטיוטה" in texts and texts.count('class="redline-block"') >= 3
    assert "<del>" in texts and "<ins>" in texts


def test_what_was_learned_in_her_words(chair, desk_app):
    record = factories.records()[0]
    case = record["case_number"]
    analyzed_final(desk_app, record)
    with desk_app.store.transaction() as conn:
        conn.execute(
            "UPDATE jobs SET status = 'done', finished_at = now() WHERE case_number = %s", (case,)
        )
    for text in ("פסקה אחת לכל טענה", "משפטים קצרים", "נקדים אחרית לראשית"):
        lessons.propose(desk_app, case, "style", text)
    learned = section(chair.get(page_of(case)).text, "findings").split('id="learning"')[1]
    assert "נלמדו 3 לקחים, מחכים להכרעתך" in text_of(learned)
    assert f'href="/review?case={quote(case, safe="")}">ל־3 הלקחים שבתור שלך' in text_of(learned)


def test_lessons_waiting_for_her_are_said_while_the_learning_waits_for_a_model(chair, desk_app):
    """Two lessons of the case already in her queue while its learning job waits for a model:
    the page says the two wait for her, with a link to the queue filtered to the case, and the
    model's wait after them (not instead of them)."""
    record = factories.records()[0]
    case = record["case_number"]
    analyzed_final(desk_app, record)
    for text in ("פסקה אחת לכל טענה", "משפטים קצרים"):
        lessons.propose(desk_app, case, "style", text)
    with desk_app.store.transaction() as conn:
        conn.execute(
            "UPDATE jobs SET status = 'waiting', waiting_for = 'set LEGAL_AI_DISTILLER'"
            " WHERE case_number = %s AND kind = 'learning'",
            (case,),
        )
        queued = conn.execute(
            "SELECT count(*) AS n FROM decision_lessons WHERE case_number = %s"
            " AND review_status = 'proposed'",
            (case,),
        ).fetchone()["n"]
    assert queued == 2
    page = chair.get(page_of(case)).text
    learned = text_of(section(page, "findings").split('id="learning"')[1])
    assert "נלמדו 2 לקחים, מחכים להכרעתך." in learned
    link = f"/review?case={quote(case, safe='')}"
    assert f'href="{link}">ל־2 הלקחים שבתור שלך' in learned
    assert "ועוד: הלמידה מההחלטה הזו ממתינה: לא הוגדר מודל" in learned
    assert learned.index("מחכים להכרעתך") < learned.index("לא הוגדר מודל")
    assert problems(page) == []
    queue = text_of(chair.get(link).text)
    assert "פסקה אחת לכל טענה" in queue and "משפטים קצרים" in queue


def test_a_learning_that_waits_says_why_in_her_words(chair, desk_app):
    """A job waiting for a model setting and one waiting for the day's model budget are told
    apart on the case page; the reason in English only behind its technical details."""
    record = factories.records()[0]
    case = record["case_number"]
    analyzed_final(desk_app, record)
    said = {}
    for reason in ("set LEGAL_AI_DISTILLER", "budget: the distiller models spent 900 of 800"):
        with desk_app.store.transaction() as conn:
            conn.execute(
                "UPDATE jobs SET status = 'waiting', waiting_for = %s WHERE case_number = %s",
                (reason, case),
            )
        page = chair.get(page_of(case)).text
        said[reason.split()[0]] = text_of(section(page, "findings").split('id="learning"')[1])
        assert problems(page) == []
    assert "לא הוגדר מודל" in said["set"] and "מכסת השימוש היומית" not in said["set"]
    assert "מכסת השימוש היומית" in said["budget:"] and "לא הוגדר מודל" not in said["budget:"]
    listed = text_of(chair.get("/cases").text)
    assert "הלמידה ממתינה" in listed and "LEGAL_AI" not in re.sub(r"<[^>]+>", " ", listed)


def test_bad_uploads_are_answered_beside_their_field_with_the_form_kept(chair, desk_app):
    record = factories.records()[0]
    token = csrf_of(chair.get("/cases").text)
    typed = {"csrf": token, "case_number": "ערר (מרכז) 55/25", "appeal_type": "permit"}
    wrong = chair.post(
        "/cases/draft/upload",
        data=typed,
        files={"file": ("x.exe", b"MZ\x90\x00", "application/octet-stream")},
    )
    assert wrong.status_code == 415 and problems(wrong.text) == []
    form = wrong.text.split('id="upload-draft"')[1].split("</form>")[0]
    error = re.search(r'id="err-draft-file" role="alert">(.*?)</span>', form).group(1)
    assert "סוג הקובץ אינו נתמך" in error
    assert (
        'name="file" accept=".pdf,.docx,.doc,.rtf,.odt,.txt,.md" aria-required="true" aria-invalid="true"'
        in form
    )
    assert 'value="ערר (מרכז) 55/25"' in html.unescape(form)  # what she typed, kept
    assert '<option value="permit" selected>' in form
    # An empty form: the case number and the file, each said beside its field.
    empty = chair.post(
        "/cases/draft/upload",
        data={"csrf": token, "case_number": ""},
        files={"file": ("", b"", "application/octet-stream")},
    )
    assert empty.status_code == 400 and problems(empty.text) == []
    form = empty.text.split('id="upload-draft"')[1].split("</form>")[0]
    assert "מספר התיק ריק" in re.search(r'id="err-draft-case_number"[^>]*>(.*?)<', form).group(1)
    assert "לא נבחר קובץ" in re.search(r'id="err-draft-file"[^>]*>(.*?)<', form).group(1)
    # From a case's page: the same page again, the refusal beside the final's date.
    analyzed = factories.records()[1]
    drafts.add_draft(
        desk_app,
        analyzed["case_number"],
        write(Path(desk_app.settings.home) / "d.txt", analyzed["draft_text"]),
    )
    refused = final_landed(
        chair,
        chair.post(
            "/cases/final/upload",
            data={
                "csrf": token,
                "case_number": analyzed["case_number"],
                "back": analyzed["case_number"],
                "decided_on": "31.6.2021",  # June has 30 days
            },
            files={"file": ("final.txt", analyzed["final_text"].encode(), "text/plain")},
        ),
    )
    assert refused.status_code == 400 and "ההחלטה החתומה לעומת הטיוטה" in refused.text
    form = refused.text.split('id="upload-final"')[1].split("</form>")[0]
    assert 'id="err-final-decided_on"' in form and 'value="31.6.2021"' in form
    said = text_of(re.search(r'id="err-final-decided_on"[^>]*>(.*?)</span>', form).group(1))
    assert said == "התאריך אינו מובן: יש לכתוב יום.חודש.שנה, למשל 1.6.2026"
    assert pair_status(desk_app, analyzed["case_number"]) == "draft_done"
    listed = chair.get("/cases").text
    assert "55/25" not in listed and record["case_number"] not in listed


def test_promote_from_the_case_page_refusals_then_a_new_version(chair, desk_app):
    record = factories.records()[0]
    case, appeal_type = record["case_number"], record["appeal_type"]
    path = Path(desk_app.settings.home) / "more-draft.txt"
    drafts.add_draft(
        desk_app,
        case,
        write(path, record["draft_text"]),
        appeal_type=appeal_type,
        outcome=record["outcome"],
        practice_area=record["practice_area"],
    )
    token = csrf_of(chair.get("/cases").text)
    early = chair.post(
        "/cases/promote",
        data={"csrf": token, "case_number": case, "back": case, "phrases": "אשר על כן"},
    )
    assert early.status_code == 400
    assert "הקידום לא בוצע" in early.text and "קידום לקחים אפשרי רק בזוג שנותח" in early.text
    assert pair_status(desk_app, case) == "draft_done"
    analyzed_final(desk_app, record)
    style = lessons.propose(desk_app, case, "structure", "פסקה אחת לכל טענה בדיון")
    proposed = lessons.propose(desk_app, case, "phrase", "מכאן, ועל כן")
    substance = lessons.propose(desk_app, case, "halacha", 'הקלה אינה סטייה ניכרת (עע"מ 1234/05)')
    lessons.review(desk_app.acting_as(CHAIR), style["id"], "approve")
    before = versions(desk_app, appeal_type)
    page = chair.get(page_of(case))
    assert f'href="{page_of(case)}#promote"' in chair.get("/cases").text
    form = page.text.split('action="/cases/promote"')[1].split("</form>")[0]
    assert f'name="lesson" value="{style["id"]}" checked' in form
    assert f'name="lesson" value="{proposed["id"]}">' in form
    assert f'value="{substance["id"]}"' not in form and "לקח מהות" in form
    assert f"<bdi>{style['id']}</bdi>" not in form  # no lesson's number shown
    data = {
        "csrf": token,
        "case_number": case,
        "back": case,
        "phrases": "אשר על כן\n\nלאור האמור\n",
    }
    forged = chair.post(
        "/cases/promote", data={**data, "csrf": "forged", "lesson": [str(style["id"])]}
    )
    assert forged.status_code == 403
    refused = chair.post(
        "/cases/promote", data={**data, "lesson": [str(style["id"]), str(substance["id"])]}
    )
    assert refused.status_code == 400 and "הוא לקח מהות" in html.unescape(refused.text)
    assert "הקלה אינה סטייה ניכרת" in html.unescape(refused.text)  # named by its words
    assert "אשר על כן" in html.unescape(refused.text.split('name="phrases"')[1])  # kept
    assert versions(desk_app, appeal_type) == before and pair_status(desk_app, case) == "analyzed"
    done = chair.post(
        "/cases/promote",
        data={**data, "lesson": [str(style["id"]), str(proposed["id"])]},
        follow_redirects=False,
    )
    assert done.status_code == 303 and done.headers["location"] == page_of(case) + "?done=promote"
    shown = chair.get(done.headers["location"])
    assert versions(desk_app, appeal_type) == before + 1
    version = methodology.history(desk_app, appeal_type)["versions"][0]["version"]
    text = text_of(shown.text)
    assert "2 לקחים ו-2 ביטויים שולבו במתודולוגיה" in text and f"גרסה {version}" in text
    assert "הלקחים שולבו" in text and f'href="/methodology/{appeal_type}"' in shown.text
    assert "קידמת למתודולוגיה" in text_of(section(shown.text, "timeline"))
    assert pair_status(desk_app, case) == "lessons_folded"
    profile = methodology.show(desk_app, appeal_type)
    profile = profile.get("profile", profile)
    assert {item["id"] for item in profile["lessons"]} >= {style["id"], proposed["id"]}
    assert {"אשר על כן", "לאור האמור"} <= set(profile["transition_phrases"])
    assert 'action="/cases/promote"' not in shown.text
    again = chair.post("/cases/promote", data={**data, "lesson": [str(style["id"])]})
    assert again.status_code == 400 and "הלקחים שולבו" in html.unescape(again.text)
    assert versions(desk_app, appeal_type) == before + 1

    # A folded lesson is vetoed on the methodology page (a reason needed, said beside it).
    method = chair.get(f"/methodology/{appeal_type}")
    assert f'action="/methodology/{appeal_type}/veto"' in method.text
    folded = method.text.split('id="lessons"')[1].split('id="approved"')[0]
    assert problems(method.text) == [] and f"<bdi>{style['id']}</bdi>" not in folded
    veto = {"csrf": csrf_of(method.text), "lesson": str(style["id"])}
    bare = chair.post(f"/methodology/{appeal_type}/veto", data={**veto, "reason": " "})
    assert bare.status_code == 400 and f'id="veto-{style["id"]}-error"' in bare.text
    assert "כתבי נימוק" in html.unescape(bare.text)
    vetoed = chair.post(
        f"/methodology/{appeal_type}/veto",
        data={**veto, "reason": "אינו משקף את סגנוני"},
        follow_redirects=False,
    )
    assert vetoed.status_code == 303
    assert "הלקח נפסל (וטו)" in text_of(chair.get(vetoed.headers["location"]).text)
    profile = methodology.show(desk_app, appeal_type)
    profile = profile.get("profile", profile)
    assert style["id"] not in {item["id"] for item in profile["lessons"]}
    twice = chair.post(f"/methodology/{appeal_type}/veto", data={**veto, "reason": "שוב"})
    assert twice.status_code == 409 and problems(twice.text) == []
    assert "הווטו לא בוצע" in html.unescape(twice.text)


def test_attach_a_precedent_from_the_case_page(chair, desk_app):
    record = factories.records()[0]
    case = record["case_number"]
    analyzed_final(desk_app, record)
    page = chair.get(page_of(case))
    assert 'action="/cases/precedent"' in section(page.text, "precedents")
    token = csrf_of(page.text)
    citation = 'עע"מ 9999/05'
    forged = chair.post(
        "/cases/precedent", data={"csrf": "forged", "case_number": case, "citation": citation}
    )
    assert forged.status_code == 403
    unknown = chair.post(
        "/cases/precedent", data={"csrf": token, "case_number": "ערר 77/25", "citation": citation}
    )
    assert unknown.status_code == 404 and "התקדים לא צורף" in unknown.text
    blank = chair.post(
        "/cases/precedent",
        data={"csrf": token, "case_number": case, "back": case, "citation": "  ", "note": "חשוב"},
    )
    assert blank.status_code == 400 and "התקדים לא צורף" in blank.text
    form = section(blank.text, "precedents")
    assert 'id="err-precedent-citation"' in form and 'value="חשוב"' in form
    with desk_app.store.connection() as conn:
        assert conn.execute("SELECT count(*) AS n FROM case_precedents").fetchone()["n"] == 0
    done = chair.post(
        "/cases/precedent",
        data={
            "csrf": token,
            "case_number": case,
            "back": case,
            "citation": citation,
            "note": "סטייה ניכרת",
        },
        follow_redirects=False,
    )
    assert done.headers["location"] == page_of(case) + "?done=precedent"
    text = text_of(chair.get(done.headers["location"]).text)
    assert f"{citation} צורף לתיק {case}" in text and "עדיין אינו בספרייה" in text
    assert "צירפת תקדים: " + citation in text
    with desk_app.store.connection() as conn:
        row = conn.execute("SELECT case_number, citation, note FROM case_precedents").fetchone()
    assert row == {"case_number": case, "citation": citation, "note": "סטייה ניכרת"}


def test_missing_precedent_ruling_uploaded_from_the_case_page_resolves_it(chair, desk_app):
    record = factories.records()[0]
    case = record["case_number"]
    analyzed_final(desk_app, record)
    missing = finals.missing_precedents(desk_app)["missing_precedents"]
    ruling = next(m for m in missing if m["ref"].startswith(('עע"מ', 'בר"מ', 'בג"ץ', 'ע"א')))
    listed = chair.get("/cases")
    url = f"/cases/missing/{ruling['authority_id']}/upload"
    assert f'action="{url}"' in section(listed.text, "missing")
    page = chair.get(page_of(case))
    citations = section(page.text, "citations")
    assert f'action="{url}"' in citations
    shown = citations.replace("&#34;", '"')
    assert f'name="case_number" value="{ruling["ref"]}"' in shown
    assert 'name="court" value="בית המשפט העליון"' in shown
    token = csrf_of(page.text)
    form = {
        "csrf": token,
        "back": case,
        "title": "פסק הדין המצוטט",
        "court": "בית המשפט העליון",
        "case_number": ruling["ref"],
        "decided_on": "2.5.2021",  # as she writes it: day first
        "practice_area": record["practice_area"],
    }
    wrong = chair.post(url, data=form, files={"file": ("r.exe", b"MZ\x90", "application/x-msdos")})
    assert wrong.status_code == 415 and "פסק הדין לא נקלט" in wrong.text
    fname = f"ruling-{ruling['authority_id']}"
    assert f'id="err-{fname}-file"' in wrong.text and "פסק הדין המצוטט" in wrong.text
    forged = chair.post(
        url,
        data={**form, "csrf": "forged"},
        files={"file": ("r.txt", "פסק דין".encode(), "text/plain")},
    )
    assert forged.status_code == 403
    still = {m["ref"] for m in finals.missing_precedents(desk_app)["missing_precedents"]}
    assert ruling["ref"] in still
    text = f"{ruling['ref']}\nבית המשפט קבע כי הקלה אינה סטייה ניכרת מתוכנית.".encode()
    done = chair.post(
        url, data=form, files={"file": ("ruling.txt", text, "text/plain")}, follow_redirects=False
    )
    where = f"{page_of(case)}?resolved={ruling['authority_id']}#citations"
    assert done.status_code == 303 and done.headers["location"] == where
    shown = chair.get(where.split("#")[0])
    assert "התקדים החסר נפתר" in shown.text
    after = {m["ref"] for m in finals.missing_precedents(desk_app)["missing_precedents"]}
    assert after == still - {ruling["ref"]}
    assert ruling["ref"] not in text_of(
        section(shown.text, "citations").split('id="missing"')[1].split('id="ambiguous"')[0]
    )
    with desk_app.store.connection() as conn:
        row = conn.execute(
            "SELECT source_path, court, title, decided_on::text FROM case_law"
            " WHERE source_kind = 'external_upload' AND doc_type = 'ruling'"
        ).fetchone()
    assert row["source_path"] == "upload:ruling.txt" and row["court"] == "בית המשפט העליון"
    assert row["title"] == "פסק הדין המצוטט" and row["decided_on"] == "2021-05-02"


def test_what_reading_a_word_file_said_is_on_its_case_page(chair, desk_app, tmp_path):
    """A Word draft whose outcome is a tracked change: its case's page says, in Hebrew, that
    the changes were accepted in reading (the reading's own words behind the details)."""
    record = factories.records()[0]
    word = as_word(record["draft_text"], [c["text"] for c in record["citations"]])
    assert word.changes == 2
    path = word_docx(tmp_path / "draft.docx", word.body, footnotes=word.footnotes)
    token = csrf_of(chair.get("/cases").text)
    sent = chair.post(
        "/cases/draft/upload",
        data={"csrf": token, "case_number": record["case_number"]},
        files={"file": ("draft.docx", path.read_bytes(), DOCX)},
        follow_redirects=False,
    )
    assert sent.status_code == 303
    page = chair.get(sent.headers["location"])
    assert problems(page.text) == []
    notes = text_of(page.text.split('class="explain reading">')[1].split("</div>")[0])
    assert notes.startswith("בקריאת הקובץ התקבלו 2 שינויים שנעשו במעקב שינויים")
    assert "tracked changes were accepted" in notes.split("פרטים טכניים")[1]
    other = chair.get(page_of(COPY_CASE))  # the notes belong to this upload's case only
    assert 'class="explain reading"' not in chair.get("/cases").text
    assert other.status_code == 200


def test_a_server_without_a_chair_takes_hers_from_the_final(desk_app):
    """A server started without LEGAL_AI_COMMITTEE_CHAIR (as the demo's serve line once was):
    her final names her in its "בפני:" line, or beside "יו"ר" in its signature, and is taken
    with that name; a final that names nobody is refused in one Hebrew line saying what to do,
    and nothing is stored."""
    unset = desk_app.settings.model_copy(
        update={"committee_chair": None, "agent_token": "demo-agent-token-not-secret"}
    )
    unconfigured = App(unset, store=desk_app.store, embedder=desk_app._inner_embedder)
    with TestClient(create_app(unset, legal=unconfigured)) as client:
        assert sign_in(client).status_code == 303
        first, second, third = factories.records()[:3]
        fields = {k: first[k] for k in ("appeal_type", "outcome", "practice_area")}
        before = first["final_text"].replace(
            "\nהעוררים:", '\nבפני: עו"ד מיכל שחר, יו"ר ועדת הערר\n\nהעוררים:', 1
        )
        sent = upload(client, "final", first["case_number"], before, **fields)
        assert sent.status_code == 303, text_of(sent.text)
        signed = upload(client, "final", second["case_number"], second["final_text"], **fields)
        assert signed.status_code == 303, text_of(signed.text)
        nameless = third["final_text"].replace('יו"ר ועדת הערר', "")
        refused = upload(client, "final", third["case_number"], nameless, **fields)
    said = text_of(refused.text)
    assert refused.status_code == 400
    assert 'לא נמצא שם יו"ר הוועדה: אין שורת "בפני:" בראש ההחלטה' in said
    assert 'לא רשום יו"ר הוועדה בהגדרות השרת' not in said
    with desk_app.store.connection() as conn:
        chairs = {
            r["case_number"]: r["chair_name"]
            for r in conn.execute("SELECT case_number, chair_name FROM cases")
        }
        stored = {
            r["case_number"]: r["chair_name"]
            for r in conn.execute(
                "SELECT case_number, chair_name FROM case_law"
                " WHERE source_kind = 'internal_committee'"
            )
        }
    assert chairs[first["case_number"]] == stored[first["case_number"]] == 'עו"ד מיכל שחר'
    assert chairs[second["case_number"]] == stored[second["case_number"]] == "רותם לוי"
    assert third["case_number"] not in stored and chairs.get(third["case_number"]) is None
