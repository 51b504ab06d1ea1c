"""The cite-check report printed in a real headless Chromium (issue 33 item 4; fixtures in
tests/desk/conftest.py): the report of a draft with 10 authorities, each with all it can carry
(its state and problems with their evidence, what was verified, a supporting passage with its
paragraph and page, a treatment not yet confirmed), prints on one A4 page and one of 20 on two;
the page is Hebrew only, RTL, problems first; the case page opens with them. Screenshot:
docs/desk/cite-report.png."""

import re

import pytest
from test_desk_hebrew import problems

import factories
from desk_browser import screenshot, sign_in
from helpers import write
from legal_ai.learning.checks import cite_report
from legal_ai.learning.pairs import drafts
from legal_ai.store import cite_reports as store

pytestmark = pytest.mark.db
CASE = "ערר (מרכז) 8202/25"
PASSAGE = (
    "הוועדה המקומית רשאית לסרב להקלה בקו בניין כאשר ההקלה פוגעת באופן ממשי באור, באוויר "
    "ובפרטיות של השכנים, ועליה לנמק את החלטתה בנימוקים תכנוניים ענייניים ולא בשיקולים זרים; "
    "שיקול הדעת התכנוני נתון לה, ובית המשפט אינו שם את שיקול דעתו במקום שיקול דעתה."
)


def authorities(count: int) -> list[dict]:
    """`count` authorities as the full check gives them: every other one with problems."""
    out = []
    for n in range(count):
        number = f'עע"מ {5100 + n}/19'
        base = {
            "text": f"{number} כהן נ' הוועדה המקומית לתכנון ובנייה חיפה, פס' 14",
            "ref": number,
            "doc_id": f"ruling-{n}",
            "verified": ["number", "quote"],
            "support": {"passage": PASSAGE, "paragraph": 3, "page": 2, "score": 0.71},
        }
        if n % 2:
            base.update(status="found", verified=["number", "parties", "pinpoint", "quote"])
        else:
            base.update(
                status="name_mismatch",
                problems=[
                    {"kind": "name_mismatch", "written": "אברהם נ' עיריית חיפה", "held": "כהן"},
                    {
                        "kind": "pinpoint_not_found",
                        "pinpoint": "פס' 14",
                        "held": 4,
                        "quote_in": [2],
                    },
                ],
                treatment={"kind": "set_aside", "by": 'עת"מ (תל אביב) 3030/20', "confirmed": False},
            )
        out.append(base)
    return out


def report_of(app, tmp_path, count: int) -> tuple[int, int]:
    """A draft of CASE and, kept by the system for its version, a report of `count`
    authorities; the report's id and the draft version."""
    rec = factories.records()[0]
    result = drafts.add_draft(
        app,
        CASE,
        write(tmp_path / f"draft-{count}.txt", rec["draft_text"] + f"\n\nגרסה {count}.\n"),
        appeal_type=rec["appeal_type"],
    )
    with app.store.transaction() as conn:
        draft = store.draft_version(conn, CASE, result["draft_version"])
        row = cite_report.record(
            conn,
            case=CASE,
            subject="draft",
            version=draft["version"],
            text=draft["content"],
            citations=authorities(count),
            draft_id=draft["id"],
        )
    return row["id"], result["draft_version"]


def pages_of(pdf: bytes) -> int:
    return len(re.findall(rb"/Type\s*/Page(?![a-z])", pdf))


def test_the_report_prints_ten_authorities_to_an_a4_page(page, desk, tmp_path):
    _, ten = report_of(desk.legal, tmp_path, 10)
    _, twenty = report_of(desk.legal, tmp_path, 20)
    sign_in(page, desk, next_path="/cases")
    page.goto(f"/cite-report/{CASE}?version={ten}")
    assert page.get_attribute("html", "dir") == "rtl"
    assert page.locator("li.authority").count() == 10
    first = page.locator("li.authority").first
    assert first.get_attribute("data-status") == "name_mismatch"  # problems first
    shown = first.inner_text()
    for said in ("שמות הצדדים אינם של פסק הדין", "בטיוטה:", "הקטע התומך", "בוטל", "טרם אושר"):
        assert said in shown
    assert problems(page.content()) == []
    screenshot(page, "cite-report")
    printed = page.pdf(format="A4")
    (tmp_path / "ten.pdf").write_bytes(printed)  # kept in pytest's temp folder, to look at
    assert pages_of(printed) == 1

    page.goto(f"/cite-report/{CASE}?version={twenty}")
    assert page.locator("li.authority").count() == 20
    assert pages_of(page.pdf(format="A4")) == 2

    page.goto(f"/cases/{CASE}")  # the case page opens with the newest report's problems
    assert page.evaluate("document.querySelector('main section').id") == "cite-check"
    assert page.locator("#cite-check li.citation").count() == 10
    assert problems(page.content()) == []
