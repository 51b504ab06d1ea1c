"""Scripts and small worlds that tests of more than one part set up the same way (imported by
name; the fixtures that serve the scripts, `panel`, `voice_writer`, `enricher` and
`multimodal_url`, are in conftest.py):

- the principle panel: three scripted models (`PanelScript`), the rules R1-R4 and their verbatim
  quotes Q1-Q4, `PANEL_RULING` that holds the quotes, `cand()` and `ingest()`; `extracted()`:
  a three-page PDF ruling whose panel approves R1 and sends R2 to the chair;
- the voice writer (`Writer`), a fictional pair uploaded (`upload()`), a final's blocks and
  `claims()` about them;
- the enricher (`Enricher`), the internal decision it reads (`ingest_decision()`, `item()`)
  and its grounded answer `GROUNDED`;
- the copy policy's planted draft of the demo's case and the other cases' finals;
- an analyzed pair (`analyzed_final()`), a ruling the desk searches (`ingest_ruling()`), a digest pointing at a ruling, a clock time
  in Asia/Jerusalem (`local()`), a tiny evaluation dataset, and the scripted multimodal
  embedder of the image leg (`ScriptedMultimodal`).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
from pathlib import Path
from zoneinfo import ZoneInfo

import numpy as np

import factories
from helpers import DECISION_FIELDS, ScriptedHandler, write
from legal_ai.auth import CHAIR
from legal_ai.evaluation.datasets import load_dataset
from legal_ai.learning.pairs import drafts, finals
from legal_ai.learning.principles import extraction as principles
from legal_ai.learning.principles import review as principle_review
from legal_ai.text.citations import PBL
from llm_servers import Reply, prompt_text, schema_name

# --- The principle panel ----------------------------------------------------------------------

R1 = ("סטייה ניכרת מתכנית אינה ניתנת לאישור בדרך של הקלה", "אין לאשר בהקלה סטייה ניכרת מהתכנית")
R2 = ("על הוועדה המקומית לנמק את החלטתה בכתב", "חובה על הוועדה המקומית לנמק בכתב את החלטותיה")
R3 = (
    "זכות הטיעון של המתנגד היא זכות יסוד בהליך התכנוני",
    "למתנגד עומדת זכות טיעון בסיסית בהליכי התכנון",
)
R4 = "היטל השבחה מחושב לפי ההפרש בשווי המקרקעין"
Q1 = "סטייה ניכרת מתכנית אינה יכולה להינתן כהקלה"
Q2 = "הוועדה חייבת לנמק את החלטתה בכתב"
Q3 = "זכות הטיעון של המתנגד היא מזכויות היסוד"
Q4 = "ההיטל מחושב לפי ההפרש בשווי"
PANEL_RULING = ". ".join([Q1, Q2, Q3, Q4, "הערר נדחה"]) + "."
PDF_RULING_CASE = 'עע"מ 1234/05'  # the three-page ruling of `extracted()`


def cand(rule, quote, score):
    return {"rule_text": rule, "supporting_quote": quote, "score": score}


class PanelScript:
    """Each model's answer; a model named in `failing` answers 500 (after the adapter's
    retries, a ProviderError)."""

    def __init__(self) -> None:
        self.answers: dict[str, list[dict]] = {"a": [], "b": [], "c": []}
        self.failing: set[str] = set()

    def __call__(self, request: dict, path: str) -> Reply:
        if schema_name(request) != "ProposedPrinciples":
            return Reply(status=400)
        if request["model"] in self.failing:
            return Reply(status=500)
        return Reply(json={"principles": self.answers[request["model"]]})


RULING_META = {  # the ruling every principle scenario reads: a binding Supreme Court one
    "title": "פסק דין",
    "case_number": 'עע"מ 1234/05',
    "court": "בית המשפט העליון",
    "is_binding": True,
    "practice_area": "planning",
    "decided_on": "2005-03-01",
}


def ingest(app, tmp_path, doc_id, text, corpus="external", expect="ingested"):
    path = write(tmp_path / f"{doc_id}.txt", text)
    meta = RULING_META
    if corpus == "internal":
        meta = {
            "title": "החלטה",
            "case_number": "ערר (מרכז) 1042/23",
            "practice_area": "planning",
            "decided_on": "2024-03-01",
            **DECISION_FIELDS,
        }
    assert getattr(app.ingest([path], corpus, meta=meta, doc_id=doc_id), expect) == 1


def ruling_pdf(app, tmp_path) -> None:
    """A binding Supreme Court ruling of three pages: Q1 on page 2, Q2 on page 3."""
    pages = ["עמוד ראשון: רקע עובדתי של הערר.", f"{Q1}.", f"{Q2}. הערר נדחה."]
    pdf = factories.hebrew_pdf(tmp_path / "ruling.pdf", pages)
    meta = {
        "title": "פסק דין",
        "case_number": PDF_RULING_CASE,
        "court": "בית המשפט העליון",
        "is_binding": True,
        "practice_area": "planning",
        "decided_on": "2005-03-01",
    }
    assert app.ingest([pdf], "external", meta=meta, doc_id="ruling-1").ingested == 1


def extracted(app, tmp_path, script) -> dict[str, dict]:
    """R1: three votes (approved by the panel); R2: two votes, score 0.7 (to the chair)."""
    ruling_pdf(app, tmp_path)
    script.answers = {
        "a": [cand(R1[0], Q1, 0.9), cand(R2[0], Q2, 0.7)],
        "b": [cand(R1[1], Q1, 0.8), cand(R2[1], Q2, 0.7)],
        "c": [cand(R1[0], Q1, 0.7)],
    }
    report = principles.extract(app, doc_id="ruling-1")
    assert (report["approved"], report["pending_review"]) == (1, 1), report
    rows = principle_review.list_principles(app)["principles"]
    return {("R1" if r["votes"] == 3 else "R2"): r for r in rows}


# --- The voice writer -------------------------------------------------------------------------

NOT_THERE = "משפט שאינו מופיע בהחלטה הזאת כלל ועיקר"


def upload(app, tmp_path, index: int, *, draft: bool = True) -> dict:
    """The fictional pair `index` (factories.records()): its draft (unless `draft=False`), then
    its final."""
    rec = factories.records()[index]
    slug = factories.slug(rec["case_number"])
    if draft:
        path = write(tmp_path / f"{slug}.draft.txt", rec["draft_text"])
        drafts.add_draft(
            app,
            rec["case_number"],
            path,
            appeal_type=rec["appeal_type"],
            outcome=rec["outcome"],
            practice_area=rec["practice_area"],
        )
    final = write(tmp_path / f"{slug}.final.txt", rec["final_text"])
    finals.upload_final(
        app, rec["case_number"], final, appeal_type=rec["appeal_type"], outcome=rec["outcome"]
    )
    return rec


def blocks_of(app, text: str) -> dict[str, str]:
    with app.store.connection() as conn:
        return finals.segment(conn, text).blocks


def span(blocks: dict, block: str, words: int = 6) -> str:
    return " ".join(blocks[block].split()[:words])


def claims(blocks: dict) -> list[dict]:
    """Four grounded claims without substance, one carrying a number, one pointing nowhere."""
    return [
        {
            "block": "opening",
            "claims": [
                {
                    "claim": "היא פותחת בשורה שמציגה את נושא הערר, ומיד אחריה מקדימה את התוצאה.",
                    "span": span(blocks, "opening"),
                },
            ],
        },
        {
            "block": "hearing",
            "claims": [
                {
                    "claim": "הדיון והסיור מתוארים בגוף ראשון רבים, בקצרה.",
                    "span": span(blocks, "hearing"),
                },
            ],
        },
        {
            "block": "discussion",
            "claims": [
                {
                    "claim": "הדיון נפתח במסקנה ונבנה ממנה צעד אחר צעד.",
                    "span": span(blocks, "discussion"),
                },
                {"claim": "היא מתירה כאן 3 קומות.", "span": span(blocks, "discussion", 4)},
                {"claim": "היא מצטטת פסיקה בסוגריים.", "span": NOT_THERE},
            ],
        },
        {
            "block": "conclusion",
            "claims": [
                {
                    "claim": "סוף הדבר קצר וסוגר את ההכרעה בלי לחזור על הנימוקים.",
                    "span": span(blocks, "conclusion"),
                },
            ],
        },
    ]


class Writer:
    """The scripted writer: answers `document` (a list of blocks), or `fail` (an HTTP error)."""

    def __init__(self) -> None:
        self.document: list[dict] = []
        self.fail: Reply | None = None
        self.prompts: list[str] = []

    def __call__(self, request: dict, path: str) -> Reply:
        if self.fail is not None:
            return self.fail
        if schema_name(request) != "VoiceDocument":
            return Reply(status=400)
        self.prompts.append(prompt_text(request))
        return Reply(json={"blocks": self.document})


# --- The enricher -----------------------------------------------------------------------------

ENRICHED_CASE = "ערר (מרכז) 1042/23"
DECISION = """ערר (מרכז) 1042/23 כהן נ' הוועדה המקומית לתכנון ובנייה רעננה
החלטה
העוררים מבקשים הקלה של 6% בקווי הבניין לצורך הרחבת דירתם בקומת הקרקע.
הוועדה המקומית דחתה את הבקשה בשל פגיעה בפרטיות השכנים ממערב.
לאחר שעיינו בכתבי הטענות ושמענו את הצדדים, הגענו למסקנה כי דין הערר להתקבל.
ההקלה המבוקשת אינה סטייה ניכרת לפי סעיף 151 לחוק, כפי שנקבע בעע"מ 1234/05 פלוני נ' הוועדה המחוזית.
הפגיעה בפרטיות תמנע בחלונות עמומים בקיר הצדדי.
הערר מתקבל. אין צו להוצאות."""
GROUNDED = {
    "headnote": "הקלה של 6% בקווי בניין אינה סטייה ניכרת; הערר התקבל בתנאי חלונות עמומים.",
    "summary": [
        {
            "text": "העוררים ביקשו הקלה של 6% בקווי הבניין להרחבת דירתם.",
            "quote": "העוררים מבקשים הקלה של 6% בקווי הבניין",
        },
        {
            "text": 'הוועדה קבעה, בהסתמך על עע"מ 1234/05, שההקלה אינה סטייה ניכרת.',
            "quote": 'ההקלה המבוקשת אינה סטייה ניכרת לפי סעיף 151 לחוק, כפי שנקבע בעע"מ 1234/05',
        },
        {
            "text": "הערר התקבל והפגיעה בפרטיות תימנע בחלונות עמומים.",
            "quote": "הפגיעה בפרטיות תמנע בחלונות עמומים בקיר הצדדי",
        },
    ],
    "tags": ["הקלה", "קווי בניין", "פרטיות", "הקלה"],
}


class Enricher:
    """The scripted enricher: answers `answer`, or `fail` (an HTTP error)."""

    def __init__(self) -> None:
        self.answer: dict = GROUNDED
        self.fail: Reply | None = None
        self.prompts: list[str] = []

    def __call__(self, request: dict, path: str) -> Reply:
        if self.fail is not None:
            return self.fail
        if schema_name(request) != "Enrichment":
            return Reply(status=400)
        self.prompts.append(prompt_text(request))
        return Reply(json=self.answer)


def ingest_decision(app, tmp_path, text: str = DECISION, **meta) -> dict:
    path = write(tmp_path / "decision.txt", text)
    report = app.ingest(
        [path],
        "internal",
        doc_id="d-1042",
        meta={
            "case_number": ENRICHED_CASE,
            "title": "כהן נ' הוועדה המקומית רעננה",
            "practice_area": "planning",
            "decided_on": "2023-11-02",
            **meta,
        },
    )
    assert report.failed == [] and report.ingested + report.updated == 1
    return report.resolved


def item(app) -> dict:
    """The enriched decision's row (d-1042), with how many earlier versions it has."""
    with app.store.connection() as conn:
        return conn.execute(
            "SELECT id, headnote, summary, tags, version, searchable, missing, updated_at,"
            " (SELECT count(*) FROM item_versions v WHERE v.item_table = 'case_law'"
            "  AND v.item_id = c.id) AS versions FROM case_law c WHERE doc_id = 'd-1042'"
        ).fetchone()


# --- The copy policy's planted draft ----------------------------------------------------------

COPY_CASE = "ערר (מרכז) 7001/25"  # the draft being checked: the demo's pair
# Planted in the draft's discussion: a holding of ערר 8815/25 (its facts, year and citation), a
# generic analysis sentence of ערר (מרכז) 7014/25, a misquoted ruling, a correctly quoted one and
# an invented one.
HOLDING = (
    "השמאי המכריע חישב את המצב הקודם כאילו המגרש ריק. אלא שבמגרש עומד בית בן שתי קומות שהיתרו "
    "ניתן בשנת 1998. זכויות אלה מומשו לפני התכנית ואינן חלק מההשבחה (עע\"מ 9388/23 פלונית נ' "
    "הוועדה המקומית גבעות השרון)."
)
ANALYSIS = "המחסור בגני ילדים אמיתי, אך אין לפתור אותו על חשבון דיירי בניין משותף."
DISCUSSION = f"""אין חולק כי ההקלה פורסמה כדין. כפי שנקבע בעע"מ 9101/20 פלוני נ' הוועדה המקומית שרון הדרום: „על הוועדה להעדיף תמיד את טובת המבקש".

{ANALYSIS}

{HOLDING}

וכבר נפסק כי "התערבות בשומה נעשית רק כשנפלה טעות משפטית" (בר"מ 9555/21 אלמוני נ' הוועדה המקומית).

ראו גם עע"מ 9999/24 פלמוני נ' הוועדה המקומית חוף הים."""
LIBRARY = [
    {
        "doc_id": "r-9101",
        "doc_type": "ruling",
        "title": "פלוני",
        "court": "העליון",
        "decided_on": "2021-01-10",
        "case_number": 'עע"מ 9101/20',
        "text": "פסק דין בדוי. על הוועדה המקומית לשקול את הפגיעה בשכנים ולאזן בינה לבין הצורך "
        "הציבורי.",
    },
    {
        "doc_id": "r-9555",
        "doc_type": "ruling",
        "title": "אלמוני",
        "court": "העליון",
        "decided_on": "2022-02-01",
        "case_number": 'בר"מ 9555/21',
        "text": "פסק דין בדוי. התערבות בשומה נעשית רק כשנפלה טעות משפטית או טעות מהותית.",
    },
]


def planted_draft() -> str:
    """The demo's draft of 7001 with the planted discussion (its own signature stays: the
    chair's closing formula, in every final)."""
    text = factories.records()[0]["draft_text"]
    body = re.search(r"דיון והכרעה\n\n(.*?)\n\nסוף דבר", text, re.S)
    return text[: body.start(1)] + DISCUSSION + text[body.end(1) :]


def other_finals(app, tmp_path) -> dict[str, dict]:
    """The finals of the three other fictional cases (style corpus and internal decisions) and
    two rulings in the library."""
    records = {r["case_number"]: r for r in factories.records()[1:]}
    for case, record in records.items():
        path = write(tmp_path / f"{factories.slug(case)}.final.txt", record["final_text"])
        finals.upload_final(app, case, path)
    library = write(
        tmp_path / "library.jsonl", "\n".join(json.dumps(x, ensure_ascii=False) for x in LIBRARY)
    )
    assert app.ingest([library], "external").ingested == 2
    return records


# --- An analyzed pair, a ruling, a digest, a clock, a dataset, page images --------------------------------------


def analyzed_final(app, record) -> None:
    """`record`'s draft, then its final uploaded by the chair: an analyzed pair (the files are
    written under the App's home and removed)."""
    path = Path(app.settings.home) / "analyzed-decision.txt"
    path.write_text(record["draft_text"], encoding="utf-8")
    drafts.add_draft(
        app,
        record["case_number"],
        path,
        appeal_type=record["appeal_type"],
        outcome=record["outcome"],
        practice_area=record["practice_area"],
    )
    path.write_text(record["final_text"], encoding="utf-8")
    finals.upload_final(app.acting_as(CHAIR), record["case_number"], path)
    path.unlink()


DESK_RULING = (
    "החלטה בעניין הקלה בקו בניין צדדי ברחוב הרצל 12. הוועדה המקומית דחתה את הבקשה להקלה.\n"
    "בית המשפט קבע כי סטייה ניכרת מתוכנית אינה יכולה להינתן כהקלה, ולכן הערר נדחה.\n"
    "<script>alert(1)</script> הוא טקסט ולא קוד."
)
ARRIVAL_RULING = "פסק דין בערעור מנהלי. בית המשפט קבע כי הקלה בקווי בניין אינה סטייה ניכרת מתכנית."
TZ = ZoneInfo("Asia/Jerusalem")


def ingest_ruling(app, tmp_path: Path) -> None:
    """DESK_RULING as external ruling-1 (עע"מ 1234/05), a markup-laden line included."""
    path = tmp_path / "ruling.txt"
    path.write_text(DESK_RULING, encoding="utf-8")
    meta = {
        "title": "הקלה בקו בניין",
        "case_number": 'עע"מ 1234/05',
        "court": "בית המשפט העליון",
        "decided_on": "2005-03-01",
        "practice_area": "planning",
    }
    assert app.ingest([path], "external", meta=meta, doc_id="ruling-1").ingested == 1


def digest(app, tmp_path, doc_id: str, points_to: str):
    """A digest `doc_id` of ARRIVAL_RULING pointing at `points_to`."""
    path = write(tmp_path / f"{doc_id}.txt", f"תקציר ({doc_id}): {ARRIVAL_RULING}")
    report = app.ingest(
        [path], "digests", doc_id=doc_id, meta={"title": f"יומון {doc_id}", "points_to": points_to}
    )
    assert report.failed == []
    return report


def local(*parts: int) -> dt.datetime:
    """A time in Asia/Jerusalem, the scheduler's zone: local(2026, 5, 4, 10)."""
    return dt.datetime(*parts, tzinfo=TZ)


def write_dataset(tmp_path):
    """A tiny evaluation dataset (corpus, queries, qrels) in tmp_path, loaded."""
    corpus = [
        {
            "doc_id": "d1",
            "title": "היטל השבחה",
            "text": "ערר 8046/24 עוסק בהיטל השבחה על תכנית רחביה.",
        },
        {"doc_id": "d2", "title": "הקלה", "text": "הקלה בקו בניין צדדי מחייבת פרסום לשכנים."},
        {
            "doc_id": "d3",
            "title": "שימוש חורג",
            "text": "שימוש חורג לגן ילדים בדירת מגורים לתקופה קצובה.",
        },
        {
            "doc_id": "d4",
            "title": "פיצויים",
            "text": "תביעת פיצויים לפי סעיף 197 בשל פגיעה מתכנית.",
        },
        {
            "doc_id": "d5",
            "title": "ערר 5130/23",
            "text": "ערר 5130/23 נדחה משום שהוגש באיחור של חודשיים.",
        },
    ]
    # Long decisions on one topic that differ in one invented plan name: a query naming the plan
    # is a lexical lookup; the embeddings of the long texts hardly see the name.
    body = (
        "הוועדה דנה בערר על שומת היטל השבחה שנערכה בעקבות אישור תכנית מפורטת שהגדילה את זכויות"
        " הבנייה במגרש. השמאי המכריע קבע את שווי המקרקעין במצב הקודם ובמצב החדש, והעוררים טענו"
        " כי לא הובאו בחשבון זכויות שמומשו קודם לכן ועסקאות השוואה רלוונטיות. "
    )
    names = ["זרזירית", "קורנמון", "שלדגית", "פטלונה", "חוחובה", "דרדרית"]
    for i, name in enumerate(names):
        corpus.append(
            {"doc_id": f"p{i}", "title": "החלטה", "text": body + f"שם התכנית: {name} {i}."}
        )
    queries = [
        {"query_id": "q1", "text": "8046/24"},
        {"query_id": "q2", "text": "5130/23"},
        {"query_id": "q3", "text": "פרסום הקלה לשכנים"},
    ]
    queries += [{"query_id": f"n{i}", "text": f"תכנית {name}"} for i, name in enumerate(names)]
    qrels = "query_id\tdoc_id\trelevance\nq1\td1\t1\nq2\td5\t1\nq3\td2\t2\n"
    qrels += "".join(f"n{i}\tp{i}\t1\n" for i in range(len(names)))
    (tmp_path / "corpus.jsonl").write_text(
        "\n".join(json.dumps(r, ensure_ascii=False) for r in corpus), encoding="utf-8"
    )
    (tmp_path / "queries.jsonl").write_text(
        "\n".join(json.dumps(r, ensure_ascii=False) for r in queries), encoding="utf-8"
    )
    (tmp_path / "qrels.tsv").write_text(qrels, encoding="utf-8")
    return load_dataset(
        tmp_path / "corpus.jsonl", tmp_path / "queries.jsonl", tmp_path / "qrels.tsv", name="tiny"
    )


class ScriptedMultimodal(ScriptedHandler):
    """Voyage's multimodal endpoint, scripted: image number i (in order of first arrival) embeds
    as basis vector i; a query text that names a number n ('page 3') embeds as basis vector
    n - 1. Served by conftest's `multimodal_url`."""

    images: dict[str, int] = {}
    requests: list = []

    def do_POST(self):
        body = self.read_json()
        type(self).requests.append(body)
        data = []
        for index, item in enumerate(body["inputs"]):
            part = item["content"][0]
            vector = np.zeros(1024)
            if part["type"] == "text":
                digits = "".join(ch for ch in part["text"] if ch.isdigit())
                vector[int(digits or 1) - 1] = 1.0
            else:
                key = hashlib.sha256(part["image_base64"].encode()).hexdigest()
                slot = type(self).images.setdefault(key, len(type(self).images))
                vector[slot] = 1.0
            data.append({"object": "embedding", "index": index, "embedding": vector.tolist()})
        usage = {"text_tokens": 1, "image_pixels": 1, "video_pixels": 0, "total_tokens": 1}
        self.send_json({"object": "list", "data": data, "model": body["model"], "usage": usage})


def distiller_lesson(category: str, block: str, text: str, draft: str, final: str) -> dict:
    """One lesson as the scripted distiller answers it (its evidence spans, no substance)."""
    return {
        "category": category,
        "block": block,
        "lesson": text,
        "draft_span": draft,
        "final_span": final,
        "is_substance": False,
        "substance_reason": "",
        "substance_category": "",
    }


def external_library(app, tmp_path, sections: list[tuple], ruling: dict) -> None:
    """The planning law's sections (`sections`: doc_id, eid, number, text) and one ruling
    (`ruling`: its fields and text) ingested into the external corpus as one JSONL file."""
    lines = [
        {
            "doc_id": doc_id,
            "doc_type": "legislation",
            "title": f"{PBL}, סעיף {num}",
            "law_title": PBL,
            "section_num": num,
            "eid": eid,
            "practice_area": "planning",
            "text": text,
        }
        for doc_id, eid, num, text in sections
    ] + [{"doc_type": "ruling", "court": "בית המשפט העליון", "practice_area": "planning", **ruling}]
    path = write(
        tmp_path / "ext.jsonl", "\n".join(json.dumps(x, ensure_ascii=False) for x in lines)
    )
    assert app.ingest([path], "external").ingested == len(lines)


def committee_decisions(app, tmp_path, decisions: list[tuple], text: str, decided_on: str):
    """Committee decisions (`decisions`: doc_id, case number) in the internal corpus, each
    `text` with its doc_id filled in ({doc_id})."""
    for doc_id, number in decisions:
        path = write(tmp_path / f"{doc_id}.txt", text.format(doc_id=doc_id))
        meta = {
            "case_number": number,
            "title": f"החלטה {doc_id}",
            "decided_on": decided_on,
            "practice_area": "planning",
            **DECISION_FIELDS,
        }
        assert app.ingest([path], "internal", doc_id=doc_id, meta=meta).ingested == 1


def upload_pair(app, tmp_path, rec: dict, appeal_type: str | None = None) -> dict:
    """One fictional pair (factories.records()): our draft, then her final; with `appeal_type`
    both are of that type (the final's labels given), else the record's (the final's its
    draft's). The final's upload answer."""
    slug = factories.slug(rec["case_number"])
    draft = write(tmp_path / f"{slug}.draft.txt", rec["draft_text"])
    final = write(tmp_path / f"{slug}.final.txt", rec["final_text"])
    drafts.add_draft(
        app,
        rec["case_number"],
        draft,
        appeal_type=appeal_type or rec["appeal_type"],
        outcome=rec["outcome"],
        practice_area=rec["practice_area"],
    )
    labels = {"appeal_type": appeal_type, "outcome": rec["outcome"]} if appeal_type else {}
    return finals.upload_final(app, rec["case_number"], final, **labels)


def permit_world(app, tmp_path) -> None:
    """The four fictional pairs (drafts, then finals) as permit cases: each case has others to
    learn from (block exemplars, templates, contrastive pairs)."""
    for rec in factories.records():
        upload_pair(app, tmp_path, rec, "permit")
