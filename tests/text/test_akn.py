import pytest

from helpers import FIXTURES, shared
from legal_ai.text.akn import parse_law


def test_sections_of_a_small_law():
    sections = list(parse_law(FIXTURES / "mini-law.xml"))
    assert [s["doc_id"] for s in sections] == ["990001#point_1", "990001#point_2"]
    second = sections[1]
    assert second["law_title"] == 'חוק לדוגמה לבדיקות, התשס"א–2001'
    assert second["section_num"] == "2" and second["eid"] == "point_2"
    assert second["text"].splitlines() == [
        "מועד להגשת ערר",
        "2. (א) ערר יוגש תוך 30 ימים מיום שהומצאה ההחלטה לעורר.",
        "(ב) ועדת הערר רשאית להאריך את המועד מטעמים מיוחדים שיירשמו.",
    ]
    assert second["metadata"]["container"] == "פרק א׳: הוראות כלליות"
    assert second["title"].endswith("סעיף 2 – מועד להגשת ערר")


def test_repeated_eids_stay_unique_and_schedules_are_sections():
    sections = {s["doc_id"]: s for s in parse_law(FIXTURES / "mini-law-schedule.xml")}
    assert list(sections) == [
        "990002#point_1",
        "990002#point_2",
        "990002#point_2א",
        "990002#point_2א~2",
        "990002#appendix_ראשונה__point_1",
    ]
    assert sections["990002#point_2א~2"]["eid"] == "point_2א"  # the source repeats the eId
    assert sections["990002#point_2א~2"]["text"] == "2א. (ספרור כפול במקור; בוטל)."
    schedule = sections["990002#appendix_ראשונה__point_1"]
    assert schedule["metadata"]["container"] == "תוספת ראשונה"
    assert schedule["section_num"] == "1" and schedule["eid"] == "appendix_ראשונה__point_1"
    assert schedule["text"].startswith("שומת ההיטל\n1. ההשבחה תיקבע בידי שמאי מקרקעין")
    assert sections["990002#point_2"]["decided_on"] == "2003-03-03"


@pytest.mark.shared
def test_planning_and_building_law_has_607_top_level_sections():
    law = shared(
        "il-laws-akn",
        "akn",
        "il",
        "act",
        "PrimaryLegislation",
        "1965-08-12",
        "148917",
        "he@",
        "main.xml",
    )
    sections = {s["doc_id"]: s for s in parse_law(law)}
    assert len(sections) == 607  # doc_ids unique although the XML repeats eId point_266ב
    assert sections["148917#point_266ב~2"]["eid"] == "point_266ב"
    s197 = sections["148917#point_197"]
    assert s197["doc_id"] == "148917#point_197"
    assert s197["text"].startswith("תביעת פיצויים\n197. (א) נפגעו על ידי תכנית")
    assert "148917#appendix_שלישית__point_14" in sections
