"""The office's gold set from the chair's citations (issue 36 item 4; learning/pairs/gold_set.py):
fictional finals citing rulings and sections in the forms real decisions write them, a small
library holding some of them; the set's queries, judgments, halves, left-outs and determinism;
`legal-ai eval gold from-finals`; the nightly standing evaluation and the desk's system page."""

from __future__ import annotations

import csv
import importlib.util
import json
from pathlib import Path

import pytest

from helpers import run, write
from legal_ai.app import App
from legal_ai.learning.pairs import finals, gold_set
from legal_ai.ops import scheduler as schedule
from legal_ai.text import citations as text_citations
from scenarios import local
from shapes import assert_shape

pytestmark = pytest.mark.db

PBL = 'חוק התכנון והבנייה, התשכ"ה-1965'
LIBRARY = [
    {
        "doc_id": "aam-1234",
        "doc_type": "ruling",
        "title": "פלוני נ' הוועדה המקומית",
        "court": "בית המשפט העליון",
        "decided_on": "2006-01-01",
        "case_number": 'עע"מ 1234/05',
        "text": "פסק דין בדוי: הקלה אינה יכולה להכשיר סטייה ניכרת מתכנית, ובקשה כזאת תידחה.",
    },
    {
        "doc_id": "barm-3333",
        "doc_type": "ruling",
        "title": "אלמוני נ' ועדת הערר",
        "court": "בית המשפט העליון",
        "decided_on": "2021-06-01",
        "case_number": 'בר"מ 3333/21',
        "text": "פסק דין בדוי: ועדת הערר מפעילה שיקול דעת תכנוני עצמאי ואינה ערכאת ביקורת.",
    },
    {
        "doc_id": "pbl-152",
        "doc_type": "legislation",
        "title": PBL,
        "law_title": PBL,
        "eid": "point_152",
        "text": "152. (א) הרואה עצמו נפגע מהחלטת הוועדה המקומית בעניין הקלה רשאי לערור.",
    },
    {
        "doc_id": "ea-7777",
        "doc_type": "ruling",
        "title": "פסק דין אחר",
        "court": "בית המשפט העליון",
        "decided_on": "2012-01-01",
        "case_number": 'ע"א 7777/12',
        "text": "פסק דין בדוי על חוזה מכר דירה, שאינו נוגע לתכנון.",
    },
]
CASE_A, CASE_B, CASE_C, CASE_D = (f"ערר (מרכז) {n}/25" for n in (9101, 9102, 9103, 9104))


def decision(*paragraphs: str, outcome: str = "הערר נדחה.") -> str:
    """A fictional final: the blocks' headings on lines of their own, then numbered paragraphs
    (a paragraph starting with "=" stands right under the discussion's heading, unnumbered)."""
    body = []
    for n, p in enumerate(paragraphs, start=1):
        body.append(p[1:] if p.startswith("=") else f"{n}. {p}")
    return (
        "החלטה\n\nפתח דבר\n\nהעוררים מבקשים היתר לתוספת בנייה בקו בניין צדדי ברחוב הזית 4."
        "\n\nדיון והכרעה\n" + "\n\n".join(body) + f"\n\nסוף דבר\n\n{outcome}\n"
    )


FINALS = {
    CASE_A: decision(
        '=כך נקבע בעע"מ 1234/05.',
        "הוועדה המקומית אינה רשאית לאשר בדרך של הקלה בקשה שהיא סטייה ניכרת מתכנית, כפי "
        "שנקבע בעע\"מ 1234/05 פלוני נ' הוועדה המקומית לתכנון ובנייה.",
        "מי שרואה עצמו נפגע מהחלטת הוועדה המקומית בעניין הקלה רשאי לערור עליה לפני ועדת "
        "הערר (סעיף 152 לחוק התכנון והבניה).",
        'בעניין דומה נפסק אחרת, אך הדברים נאמרו בנסיבות שונות לגמרי (ע"א 9999/99).',
    ),
    CASE_B: decision(
        "ועדת הערר רשאית לבחון מחדש את שיקול דעתה של הוועדה המקומית ואינה מוגבלת לעילות "
        'ההתערבות של בית משפט, כאמור בבר"מ 3333/21.',
        "על החלטה בבקשה להקלה ניתן לערור לוועדת הערר בתוך המועד הקבוע, כאמור בסעיף 152 "
        "לחוק התכנון והבניה.",
        outcome="הערר מתקבל.",
    ),
    CASE_C: decision(
        'היטל השבחה מחושב לפי ההפרש בשווי המקרקעין שבין לפני התכנית לאחריה, ראו עע"מ 5555/10.',
        "הוראת המעבר אינה חלה על בקשה שהוגשה לאחר תחילת התיקון (סעיף 200 לחוק התכנון והבניה).",
    ),
    CASE_D: decision(
        "הבקשה חורגת במידה ניכרת מקווי הבניין שבתכנית ולכן אין לאשרה בהקלה, כפי שנפסק "
        'בעע"מ 1234/05.',
        "שיקול הדעת של ועדת הערר רחב משל בית המשפט, והיא רשאית להחליף את שיקול דעתה של "
        'הוועדה המקומית בשלה (בר"מ 3333/21).',
    ),
}


def _hebrew_checker():
    """tests/desk/test_desk_hebrew.problems (tests/desk is not on this test's path)."""
    path = Path(__file__).parents[1] / "desk" / "test_desk_hebrew.py"
    spec = importlib.util.spec_from_file_location("desk_hebrew_checker_gold", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.problems


def with_settings(app: App, **update) -> App:
    return App(
        app.settings.model_copy(update=update), store=app.store, embedder=app._inner_embedder
    )


def office(app, tmp_path, cases=FINALS) -> None:
    """The library above and the finals `cases`, uploaded by the one final-upload service."""
    lines = "\n".join(json.dumps(x, ensure_ascii=False) for x in LIBRARY)
    assert app.ingest([write(tmp_path / "library.jsonl", lines)], "external").ingested == 4
    for n, (case, text) in enumerate(sorted(cases.items())):
        path = write(tmp_path / f"final-{n}.txt", text)
        finals.upload_final(
            app,
            case,
            path,
            practice_area="planning",
            appeal_type="permit",
            outcome="rejected",
            decided_on="2025-06-01",
        )


def qrels_of(text: str) -> dict[str, list[str]]:
    rows = list(csv.reader(text.splitlines(), delimiter="\t"))
    assert rows[0] == ["query_id", "doc_id", "relevance"]
    out: dict[str, list[str]] = {}
    for query_id, doc_id, relevance in rows[1:]:
        assert relevance == "1"
        out.setdefault(query_id, []).append(doc_id)
    return out


def test_the_set_from_her_citations(app, tmp_path):
    office(app, tmp_path)
    with app.store.connection() as conn:
        gold = gold_set.build(conn)
        again = gold_set.build(conn)
    assert gold.files() == again.files()  # deterministic, byte for byte
    by_id = {q["query_id"]: q for q in gold.queries}
    # the queries: the citing sentence, the citation itself removed (and nothing else cited)
    assert by_id[f"{CASE_A}#1"]["text"] == (
        "הוועדה המקומית אינה רשאית לאשר בדרך של הקלה בקשה שהיא סטייה ניכרת מתכנית, כפי שנקבע."
    )
    assert by_id[f"{CASE_A}#2"]["text"] == (
        "מי שרואה עצמו נפגע מהחלטת הוועדה המקומית בעניין הקלה רשאי לערור עליה לפני ועדת הערר."
    )
    for q in gold.queries:
        assert not [
            c for c in text_citations.extract(q["text"]) if c.kind in ("ruling", "statute")
        ], q
        assert "1234/05" not in q["text"] and "3333/21" not in q["text"] and "152" not in q["text"]
    # the judgments: the cited ruling or section, as the library holds it
    assert gold.qrels == {
        f"{CASE_A}#1": ["external:aam-1234"],
        f"{CASE_A}#2": ["external:pbl-152"],
        f"{CASE_B}#1": ["external:barm-3333"],
        f"{CASE_B}#2": ["external:pbl-152"],
        f"{CASE_D}#1": ["external:aam-1234"],
        f"{CASE_D}#2": ["external:barm-3333"],
    }
    assert by_id[f"{CASE_A}#1"]["cites"] == ['עע"מ 1234/05']
    # no case in both halves; both halves hold queries
    halves = {q["case"]: set() for q in gold.queries}
    for q in gold.queries:
        halves[q["case"]].add(q["half"])
    assert all(len(h) == 1 for h in halves.values())
    assert {h for hs in halves.values() for h in hs} == {"a", "b"}
    # what was left out, and why
    left = {(e["case"], e["ref"], e["reason"]) for e in gold.left_out}
    assert left == {
        (CASE_A, 'ע"א 9999/99', "not_in_library"),
        (CASE_A, 'עע"מ 1234/05', "too_short"),  # "דיון והכרעה" + "כך נקבע": four words
        (CASE_C, 'עע"מ 5555/10', "not_in_library"),
        (CASE_C, f"{PBL}, סעיף 200", "not_in_library"),
    }
    report = gold.report()
    assert_shape(report, gold_set.GoldReport)
    assert report["left_out"] == {"not_in_library": 3, "too_short": 1}
    assert (report["finals"], report["cases"], report["queries"]) == (4, 3, 6)
    # the corpus: the judged items and the library's others, never a citing final's own copy
    docs = {r["doc_id"]: r for r in gold.corpus}
    assert set(docs) == {
        "external:aam-1234",
        "external:barm-3333",
        "external:pbl-152",
        "external:ea-7777",
    }
    assert docs["external:pbl-152"]["eId"] == "point_152"
    assert docs["external:pbl-152"]["law_title"] == PBL
    # each half as the harness reads it
    half = gold.dataset("a")
    assert set(half.queries) == {q["query_id"] for q in gold.queries if q["half"] == "a"}
    assert set(half.qrels) == set(half.queries) and half.fingerprint.endswith("-a")


def test_the_command_writes_the_same_set_twice(app, tmp_path, cli_env):
    office(app, tmp_path)
    answers = []
    for name in ("one", "two"):
        done = run(
            cli_env,
            "eval",
            "gold",
            "from-finals",
            "--out",
            str(tmp_path / name),
            "--json",
            check=False,
        )
        assert done.returncode == 0, done.stderr
        answers.append(json.loads(done.stdout))
    assert answers[0]["queries"] == 6 and answers[0]["left_out"]["not_in_library"] == 3
    assert_shape(answers[0], gold_set.GoldWritten)  # with its left-out citations listed
    files = sorted(p.relative_to(tmp_path / "one") for p in (tmp_path / "one").rglob("*.*"))
    assert [str(f) for f in files] == [
        "corpus.jsonl",
        "half-a/qrels.tsv",
        "half-a/queries.jsonl",
        "half-b/qrels.tsv",
        "half-b/queries.jsonl",
        "qrels.tsv",
        "queries.jsonl",
        "report.json",
    ]
    for f in files:
        assert (tmp_path / "one" / f).read_bytes() == (tmp_path / "two" / f).read_bytes(), f
    a, b = (
        {
            json.loads(line)["case"]
            for line in (tmp_path / f"one/half-{h}/queries.jsonl")
            .read_text(encoding="utf-8")
            .splitlines()
        }
        for h in ("a", "b")
    )
    assert a and b and not a & b
    whole = qrels_of((tmp_path / "one/qrels.tsv").read_text(encoding="utf-8"))
    halves = qrels_of((tmp_path / "one/half-a/qrels.tsv").read_text(encoding="utf-8"))
    halves.update(qrels_of((tmp_path / "one/half-b/qrels.tsv").read_text(encoding="utf-8")))
    assert whole == halves
    # bad input: one line naming what to fix
    plain = run(
        cli_env,
        "eval",
        "gold",
        "from-finals",
        "--out",
        str(tmp_path / "three"),
        "--distractors",
        "-1",
        check=False,
    )
    assert plain.returncode != 0 and "--distractors takes 0 or more" in plain.stderr
    # a folder that cannot be made (a file stands there): one line, no traceback
    (tmp_path / "taken").write_text("x", encoding="utf-8")
    blocked = run(cli_env, "eval", "gold", "from-finals", "--out", tmp_path / "taken", check=False)
    assert blocked.returncode == 2, blocked.stderr
    assert blocked.stderr.startswith("error: cannot use") and "Traceback" not in blocked.stderr
    assert len(blocked.stderr.strip().splitlines()) == 1


def test_no_finals_means_an_empty_set_said(app, tmp_path):
    result = gold_set.from_finals(app, tmp_path / "out")
    assert_shape(result, gold_set.GoldWritten)
    assert result["queries"] == 0
    assert result["message"] == "no finals in the style corpus: the set is empty"
    assert (tmp_path / "out/qrels.tsv").read_text(encoding="utf-8") == (
        "query_id\tdoc_id\trelevance\n"
    )
    skipped = schedule.run_now(app, "nightly-upkeep", now=local(2026, 5, 5, 2, 30))
    evaluated = skipped["result"]["steps"]["standing_eval"]
    [office_set] = evaluated["sets"]
    assert office_set == {
        "name": "office-gold",
        "skipped": "no finals in the style corpus: the office's gold set is empty",
    }
    assert "LEGAL_AI_STANDING_EVAL is not set" in evaluated["skipped"]
    assert "office-gold not evaluated" in skipped["result"]["summary"]


@pytest.mark.server_db("legal_ai_eval_office_gold")
def test_the_nightly_evaluation_runs_her_set_and_the_desk_shows_its_trend(app, tmp_path, chair):
    office(app, tmp_path, {CASE_C: FINALS[CASE_C]})
    # finals whose citations the library lacks: the set is empty, said
    night = local(2026, 5, 5, 2, 30)
    [empty] = schedule.run_now(app, "nightly-upkeep", now=night)["result"]["steps"][
        "standing_eval"
    ]["sets"]
    assert empty["skipped"] == (
        "no final cites a ruling or section the library holds: the office's gold set is empty"
    )
    page = chair.get("/system")
    assert page.status_code == 200 and "טרם נמדד" in page.text
    for n, case in enumerate((CASE_A, CASE_B, CASE_D)):
        path = write(tmp_path / f"more-{n}.txt", FINALS[case])
        finals.upload_final(
            app,
            case,
            path,
            practice_area="planning",
            appeal_type="permit",
            outcome="rejected",
            decided_on="2025-06-01",
        )
    report = schedule.run_now(app, "nightly-upkeep", now=night)
    assert report["outcome"] == "ok", report
    [measured] = report["result"]["steps"]["standing_eval"]["sets"]
    assert measured["name"] == "office-gold" and measured["n_queries"] == 6
    assert 0 < measured["ndcg@10"] <= 1 and measured["n_docs"] == 4
    assert measured["left_out"] == {"not_in_library": 3, "too_short": 1}
    with app.store.connection() as conn:
        [row] = conn.execute("SELECT * FROM eval_history WHERE dataset = 'office-gold'").fetchall()
    assert row["ndcg_at_10"] == measured["ndcg@10"] and row["n_queries"] == 6
    assert row["fingerprint"].startswith("office-gold-")
    # the day before, half as good: the trend on the system page, in Hebrew only
    with app.store.transaction() as conn:
        conn.execute(
            "INSERT INTO eval_history (dataset, day, fingerprint, ndcg_at_10, n_queries, n_docs)"
            " VALUES ('office-gold', '2026-05-04', %s, %s, 6, 4)",
            (row["fingerprint"], row["ndcg_at_10"] / 2),
        )
    page = chair.get("/system")
    assert page.status_code == 200 and _hebrew_checker()(page.text) == []
    assert "הציון האחרון" in page.text and "המגמה: <b>משתפרת</b>" in page.text
    assert f"<bdi>{row['ndcg_at_10'] * 100:.0f}</bdi>" in page.text
    # off by the setting: said
    off = with_settings(app, standing_eval_office=False)
    [said] = schedule.run_now(off, "nightly-upkeep", now=night)["result"]["steps"]["standing_eval"][
        "sets"
    ]
    assert said == {"name": "office-gold", "skipped": "LEGAL_AI_STANDING_EVAL_OFFICE is false"}
