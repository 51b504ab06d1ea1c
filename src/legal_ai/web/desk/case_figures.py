"""What a final's measures and its learning mean, in the chair's words (the case page): each
held-out figure (style_distance_history: the words she changed, the phrases to avoid, the blocks'
proportions, the stylometric distance) as a sentence with its unit, her usual beside it — the median
over her other finals as it was when this final was uploaded (held_out.usual_of, stored with the
row: the verdict never changes as later finals arrive; a row from before that was stored is
compared with the rows before it), shown only when it rests on at least three of her finals
(held_out.MIN_USUAL; else one sentence: how many more) — and whether lower is better and where
this one stands; and where the
learning from her final stands ("ממתינה לתור", "נלמדו 3 לקחים, מחכים להכרעתך"), never a job's number
or a command. Numbers inside the Hebrew are in <bdi>."""

from __future__ import annotations

from typing import Any

from markupsafe import Markup

from ...learning.pairs import MIN_USUAL, USUAL_KEYS, usual_of
from .labels import bdi, percent, plural

CLOSE = 0.1  # within 10% of her usual: "as usual"


def _verdict(value: float, usual: float | None) -> str | None:
    """better / worse / same, lower being better; None without a usual to compare with."""
    if usual is None:
        return None
    if abs(value - usual) <= CLOSE * max(abs(usual), 1e-9) or value == usual:
        return "same"
    return "better" if value < usual else "worse"


VERDICTS = {
    "better": "טוב מהרגיל אצלך",
    "worse": "פחות טוב מהרגיל אצלך",
    "same": "כרגיל אצלך",
}


def _usual(text: str, value: Markup, n: int) -> Markup:
    """ "text value (the median of n decisions)."; `text` ends with its own space or hyphen."""
    return Markup("{}{} (החציון של {}).").format(text, value, plural(n, "החלטה אחת", "החלטות"))


def _change(row: dict, usual_row: dict) -> dict:
    words = row["word_edit_distance"]
    total = (row.get("metrics") or {}).get("draft_words")
    said = Markup("שינית {} מתוך {} מילות הטיוטה — כ-{} מהנוסח.").format(
        bdi(words), bdi(total if total is not None else "—"), percent(row["change_percent"])
    )
    usual = usual_row["change_percent"]
    return {
        "key": "change",
        "title": "כמה שינית בטיוטה",
        "said": said,
        "usual": _usual(
            "בהחלטותייך האחרות שינית בדרך כלל כ-",
            percent(usual),
            usual_row["finals"],
        )
        if usual is not None
        else None,
        "verdict": _verdict(row["change_percent"], usual),
        "lower": "פחות שינויים — טוב יותר: הטיוטה הייתה קרובה יותר למה שאת כותבת.",
    }


def _avoided(row: dict, usual_row: dict) -> dict:
    found, kept = row["anti_pattern_total"], row["final_anti_pattern_total"]
    if found:
        said = Markup(
            "בטיוטה נמצאו {} מרשימת הביטויים שביקשת להימנע מהם; בהחלטה החתומה {}."
        ).format(
            plural(found, "ביטוי אחד", "ביטויים"),
            Markup("לא נשאר אף אחד") if not kept else Markup("נשארו {}").format(bdi(kept)),
        )
    else:
        said = Markup("בטיוטה לא נמצא אף ביטוי מרשימת הביטויים שביקשת להימנע מהם.")
    usual = usual_row["anti_pattern_total"]
    return {
        "key": "avoided",
        "title": "ביטויים שביקשת להימנע מהם",
        "said": said,
        "usual": _usual(
            "בטיוטות של החלטותייך האחרות נמצאו בדרך כלל ",
            Markup("{} ביטויים").format(bdi(f"{usual:g}")) if usual != 1 else Markup("ביטוי אחד"),
            usual_row["finals"],
        )
        if usual is not None
        else None,
        "verdict": _verdict(found, usual),
        "lower": "פחות — טוב יותר.",
    }


def _blocks(row: dict, usual_row: dict) -> dict:
    deviation = row["ratio_deviation"]
    usual = usual_row["ratio_deviation"]
    if deviation is None:
        said = Markup("אין עדיין די החלטות שלך כדי להשוות את אורכי הפרקים בטיוטה לשלך.")
    else:
        said = Markup(
            "אורכי הפרקים בטיוטה שונים מהחלוקה הרגילה שלך: כ-{} מהנוסח היה צריך לעבור מפרק "
            "לפרק כדי להתאים לה."
        ).format(percent(100 * deviation))
    return {
        "key": "blocks",
        "title": "אורכי הפרקים",
        "said": said,
        "usual": _usual(
            "בטיוטות של החלטותייך האחרות כ-",
            percent(100 * usual),
            usual_row["finals"],
        )
        if usual is not None and deviation is not None
        else None,
        "verdict": _verdict(deviation, usual) if deviation is not None else None,
        "lower": "נמוך יותר — טוב יותר: החלוקה לפרקים קרובה יותר לשלך.",
    }


def _voice(row: dict, usual_row: dict) -> dict:
    delta = row["stylometric_delta"]
    usual = usual_row["stylometric_delta"]
    if delta is None:
        said = Markup("אין עדיין די החלטות שלך (נדרשות לפחות שתיים) כדי למדוד את המרחק הסגנוני.")
    else:
        said = Markup(
            "המרחק הסגנוני של הטיוטה מהחלטותייך — עד כמה מילות היחס והקישור בה שכיחות אחרת "
            "מאשר אצלך — הוא {} סטיות תקן בממוצע (אפס: בדיוק כמו הממוצע שלך)."
        ).format(bdi(f"{delta:.1f}"))
    return {
        "key": "voice",
        "title": "המרחק הסגנוני",
        "said": said,
        "usual": _usual(
            "בטיוטות של החלטותייך האחרות בדרך כלל ",
            Markup("{} סטיות תקן").format(bdi(f"{usual:.1f}")),
            usual_row["finals"],
        )
        if usual is not None and delta is not None
        else None,
        "verdict": _verdict(delta, usual) if delta is not None else None,
        "lower": "נמוך יותר — טוב יותר: הטיוטה נשמעת יותר כמוך.",
    }


def frozen_usual(row: dict, before: list[dict]) -> dict:
    """Her usual for this row: as stored with it at the upload (metrics.usual), else — a row
    stored before the usual was — over `before`, the other cases' rows that preceded it."""
    return (row.get("metrics") or {}).get("usual") or usual_of(before)


def usual_said(finals: int) -> Markup:
    """One sentence: what her usual rests on, or how many more of her finals it needs."""
    if finals >= MIN_USUAL:
        return Markup(
            "כל מדד מושווה לרגיל אצלך: החציון ב־{} החלטות אחרות שלך, כפי שהיו כשהעלית את ההחלטה "
            "הזו — ההשוואה אינה משתנה כשמגיעות החלטות נוספות."
        ).format(bdi(finals))
    missing = MIN_USUAL - finals
    had = (
        Markup("לא הייתה אף החלטה אחרת שלך")
        if finals == 0
        else Markup("הייתה רק החלטה אחרת אחת שלך")
        if finals == 1
        else Markup("היו רק {} החלטות אחרות שלך").format(bdi(finals))
    )
    return Markup(
        "השוואה לרגיל אצלך נעשית רק כשיש לפחות {} החלטות אחרות שלך שהושוו לטיוטה; כשהעלית את "
        "ההחלטה הזו {}, כלומר חסרו עוד {}."
    ).format(
        bdi(MIN_USUAL),
        had,
        Markup("אחת") if missing == 1 else Markup("{}").format(bdi(missing)),
    )


def figures(row: dict | None, usual_row: dict) -> list[dict]:
    """The held-out row of a final explained, each figure against her usual (`frozen_usual`:
    the median of the other cases' latest rows when it was uploaded), the usual and a verdict
    only when it rests on MIN_USUAL finals: [{key, title, said, usual, verdict, verdict_said,
    lower}]."""
    if row is None:
        return []
    enough = usual_row.get("finals", 0) >= MIN_USUAL
    if not enough:
        usual_row = {"finals": usual_row.get("finals", 0), **dict.fromkeys(USUAL_KEYS)}
    out = [f(row, usual_row) for f in (_change, _avoided, _blocks, _voice)]
    for figure in out:
        figure["verdict_said"] = VERDICTS.get(figure["verdict"] or "")
    return out


def learned(n: int) -> Markup:
    """ "נלמד לקח אחד" / "נלמדו 3 לקחים"."""
    return Markup("נלמד לקח אחד") if n == 1 else Markup("נלמדו {} לקחים").format(bdi(n))


def waiting_said(waiting: int, total: int) -> Markup:
    """How many of the lessons learned wait for her: all of them, or some."""
    if waiting == total:
        return Markup("מחכה להכרעתך" if waiting == 1 else "מחכים להכרעתך")
    if waiting == 1:
        return Markup("אחד מהם מחכה להכרעתך")
    return Markup("{} מהם מחכים להכרעתך").format(bdi(waiting))


JOB_SAID = {
    "queued": "הלמידה מההחלטה הזו ממתינה לתור; היא תתבצע ברקע, והלקחים יגיעו לבדיקתך.",
    "running": "הלמידה מההחלטה הזו מתבצעת כעת.",
    "waiting": "הלמידה מההחלטה הזו ממתינה: לא הוגדר מודל שיבצע אותה; מי שמתחזק את השרת צריך "
    "להגדיר אותו.",
    "failed": "הלמידה מההחלטה הזו נכשלה; מי שמתחזק את השרת יכול להריץ אותה שוב.",
}
BUDGET_SAID = (
    "הלמידה מההחלטה הזו ממתינה: המודלים הגיעו למכסת השימוש היומית שנקבעה להם; היא תתחדש "
    "מעצמה כשהמכסה תתחדש או תוגדל."
)


def _job_said(job: dict | None) -> str | None:
    """Where the case's learning job stands, when it has not finished (None: it has)."""
    if job is None or job["status"] not in JOB_SAID:
        return None
    if job["status"] == "waiting" and (job["waiting_for"] or "").startswith("budget: "):
        return BUDGET_SAID
    return JOB_SAID[job["status"]]


def learning_state(jobs: list[dict], lessons: list[dict], case_link: str) -> dict | None:
    """Where the learning from her final stands, in her words: {said, link, link_said, waiting,
    job_said, technical}; None when nothing was learned or queued for the case. Lessons of the
    case already in her queue come first, with a link to the queue filtered to the case, even
    while a stage of the learning still waits (for a model, a budget)."""
    job = jobs[-1] if jobs else None
    waiting = [r for r in lessons if r["review_status"] == "proposed"]
    by_panel = [
        r
        for r in lessons
        if r["review_status"] == "approved" and r["reviewed_by"] == "panel" and not r["folded_into"]
    ]
    job_said = _job_said(job)
    state: dict[str, Any] = {
        "link": None,
        "link_said": None,
        "waiting": len(waiting),
        "job_said": None,
        "technical": (job["waiting_for"] or job["error"]) if job and job_said else None,
    }
    if waiting:
        state["said"] = Markup("{}, {}.").format(
            learned(len(lessons)), waiting_said(len(waiting), len(lessons))
        )
        state["link"] = f"/review?case={case_link}"
        state["link_said"] = (
            "ללקח שבתור שלך"
            if len(waiting) == 1
            else Markup("ל־{} הלקחים שבתור שלך").format(bdi(len(waiting)))
        )
        state["job_said"] = job_said
    elif job_said:
        state["said"] = job_said
    elif by_panel:
        state["said"] = Markup("{}; הפאנל אישר בעצמו {} — לעיונך.").format(
            learned(len(lessons)),
            Markup("אחד מהם")
            if len(by_panel) == 1
            else Markup("{} מהם").format(bdi(len(by_panel))),
        )
        state["link"] = f"/review?lane=panel_approved&case={case_link}"
        state["link_said"] = "לעיון ולווטו"
    elif lessons:
        state["said"] = Markup("{}; {}.").format(
            learned(len(lessons)), "הוא הוכרע" if len(lessons) == 1 else "כולם הוכרעו"
        )
    elif job is not None:
        state["said"] = "הלמידה מההחלטה הזו הסתיימה; לא עלו ממנה לקחים חדשים."
    else:
        return None
    return state
