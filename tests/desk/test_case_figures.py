"""A final's figures and its learning in the chair's words (web/desk/case_figures.py, issue 23
item 4, issue 37 item 9): each measure a sentence with its unit (39% with its sign on the
number's right, inside the number's <bdi>; the stylometric distance in standard deviations),
her usual (the median of her other finals when it was uploaded) beside it only when it rests on
three of them — else one sentence saying how many more — and whether lower is better; never a
bare 68.48, 0.1097 or "Delta 2.0037"; and where the learning from her final stands, never a
job's number or a command."""

from helpers import text_of
from legal_ai.learning.pairs import usual_of
from legal_ai.web.desk.case_figures import figures, frozen_usual, learning_state, usual_said

ROW = {
    "change_percent": 68.48,
    "word_edit_distance": 150,
    "metrics": {"draft_words": 219},
    "anti_pattern_total": 3,
    "final_anti_pattern_total": 0,
    "ratio_deviation": 0.1097,
    "stylometric_delta": 2.0037,
}
OTHERS = [
    {
        "change_percent": 50.0,
        "anti_pattern_total": 1,
        "ratio_deviation": 0.05,
        "stylometric_delta": 1.2,
    },
    {
        "change_percent": 60.0,
        "anti_pattern_total": 5,
        "ratio_deviation": 0.08,
        "stylometric_delta": 1.6,
    },
    {
        "change_percent": 70.0,
        "anti_pattern_total": 3,
        "ratio_deviation": 0.09,
        "stylometric_delta": 1.4,
    },
]
USUAL = usual_of(OTHERS)


def said(figure: dict) -> str:
    return " ".join(text_of(str(figure[k] or "")) for k in ("title", "said", "usual", "lower"))


def test_each_figure_in_words_against_her_usual():
    shown = {f["key"]: f for f in figures(ROW, USUAL)}
    assert list(shown) == ["change", "avoided", "blocks", "voice"]
    change = said(shown["change"])
    assert "שינית 150 מתוך 219 מילות הטיוטה — כ-68% מהנוסח." in change
    assert "<bdi>68%</bdi>" in str(shown["change"]["said"])  # the sign inside, on its right
    assert "בהחלטותייך האחרות שינית בדרך כלל כ-60% (החציון של 3 החלטות)." in change
    assert "פחות שינויים — טוב יותר" in change
    assert shown["change"]["verdict"] == "worse"
    assert shown["change"]["verdict_said"] == "פחות טוב מהרגיל אצלך"
    avoided = said(shown["avoided"])
    assert "בטיוטה נמצאו 3 ביטויים מרשימת הביטויים שביקשת להימנע מהם" in avoided
    assert "בהחלטה החתומה לא נשאר אף אחד" in avoided
    assert shown["avoided"]["verdict"] == "same"  # 3 against a median of 3
    assert "נמצאו בדרך כלל 3 ביטויים (החציון של 3 החלטות)" in avoided
    assert "כ-11% מהנוסח היה צריך לעבור מפרק לפרק" in said(shown["blocks"])
    assert shown["blocks"]["verdict"] == "worse"
    voice = said(shown["voice"])
    assert "הוא 2.0 סטיות תקן בממוצע (אפס: בדיוק כמו הממוצע שלך)" in voice
    assert "בדרך כלל 1.4 סטיות תקן" in voice
    for figure in shown.values():
        for bare in ("68.48", "0.1097", "2.0037", "Delta"):
            assert bare not in said(figure), (figure["key"], bare)


def test_lower_than_usual_is_better_and_missing_measures_are_said():
    better = {**ROW, "change_percent": 20.0, "ratio_deviation": None, "stylometric_delta": None}
    shown = {f["key"]: f for f in figures(better, USUAL)}
    assert shown["change"]["verdict"] == "better"
    assert shown["change"]["verdict_said"] == "טוב מהרגיל אצלך"
    assert "אין עדיין די החלטות שלך" in said(shown["blocks"]) and not shown["blocks"]["verdict"]
    assert "נדרשות לפחות שתיים" in said(shown["voice"]) and not shown["voice"]["usual"]
    alone = {f["key"]: f for f in figures(ROW, usual_of([]))}
    assert alone["change"]["usual"] is None and alone["change"]["verdict"] is None
    assert figures(None, USUAL) == []


def test_her_usual_only_on_three_finals_and_as_it_was_at_the_upload():
    # Two of her finals: no usual, no verdict, one sentence with how many more.
    two = {f["key"]: f for f in figures(ROW, usual_of(OTHERS[:2]))}
    assert all(f["usual"] is None and f["verdict"] is None for f in two.values())
    assert text_of(str(usual_said(2))) == (
        "השוואה לרגיל אצלך נעשית רק כשיש לפחות 3 החלטות אחרות שלך שהושוו לטיוטה; כשהעלית את "
        "ההחלטה הזו היו רק 2 החלטות אחרות שלך, כלומר חסרו עוד אחת."
    )
    assert "לא הייתה אף החלטה אחרת שלך, כלומר חסרו עוד 3." in text_of(str(usual_said(0)))
    assert "החציון ב־3 החלטות אחרות שלך" in text_of(str(usual_said(3)))
    # The usual stored with the row wins over the rows read now; a row without one is compared
    # with what came before it.
    stored = {**ROW, "metrics": {**ROW["metrics"], "usual": USUAL}}
    assert frozen_usual(stored, [{"change_percent": 1.0}]) == USUAL
    assert frozen_usual(ROW, OTHERS) == USUAL


def job(status: str, **extra) -> dict:
    return {"status": status, "waiting_for": None, "error": None, **extra}


def lesson(status: str, by: str | None = None) -> dict:
    return {"review_status": status, "reviewed_by": by, "folded_into": None}


def test_where_the_learning_stands_in_her_words():
    link = "ערר%207%2F25"
    assert learning_state([], [], link) is None
    queued = learning_state([job("queued")], [], link)
    assert queued["said"].startswith("הלמידה מההחלטה הזו ממתינה לתור") and not queued["link"]
    waiting = learning_state([job("waiting", waiting_for="set LEGAL_AI_DISTILLER")], [], link)
    assert "לא הוגדר מודל" in waiting["said"]
    assert waiting["technical"] == "set LEGAL_AI_DISTILLER"  # behind the details only
    assert "נכשלה" in learning_state([job("failed", error="boom")], [], link)["said"]
    three = learning_state([job("done")], [lesson("proposed")] * 3, link)
    assert text_of(str(three["said"])) == "נלמדו 3 לקחים, מחכים להכרעתך."
    assert three["link"] == f"/review?case={link}"
    assert text_of(str(three["link_said"])) == "ל־3 הלקחים שבתור שלך"
    both = learning_state([job("waiting", waiting_for="set X")], [lesson("proposed")] * 2, link)
    assert text_of(str(both["said"])) == "נלמדו 2 לקחים, מחכים להכרעתך."
    assert both["link"] == f"/review?case={link}" and "לא הוגדר מודל" in both["job_said"]
    one = learning_state([job("done")], [lesson("proposed"), lesson("rejected", "chair")], link)
    assert text_of(str(one["said"])) == "נלמדו 2 לקחים, אחד מהם מחכה להכרעתך."
    panel = learning_state([job("done")], [lesson("approved", "panel")], link)
    assert text_of(str(panel["said"])) == "נלמד לקח אחד; הפאנל אישר בעצמו אחד מהם — לעיונך."
    assert panel["link"] == f"/review?lane=panel_approved&case={link}"
    none = learning_state([job("done")], [], link)
    assert none["said"] == "הלמידה מההחלטה הזו הסתיימה; לא עלו ממנה לקחים חדשים."
