"""Treatment (issue 33 item 3): what a later ruling of the library did to a ruling it attacks, read
from its operative words (text/treatment.py), linked by the one matching, recomputed on arrival,
shown as unconfirmed until the chair confirms it on the desk — and refused to an agent over HTTP,
over MCP and in SQL on its own login (docs/security.md lists each attack). Fictional rulings."""

from __future__ import annotations

import asyncio

import psycopg
import pytest

from helpers import AGENT, CHAIR_TOKEN, csrf_of, mcp_session, payload, text_of, write
from legal_ai.learning.checks import citation_check
from legal_ai.learning.library import treatment
from legal_ai.text import citations as text_citations
from legal_ai.text import treatment as rules

COMMITTEE = "ערר (תל אביב) 1212/19"
PETITION = 'עת"מ (תל אביב) 3030/20'
APPEAL = 'עע"מ 4040/21'
DECISION_TEXT = (
    "ועדת הערר לתכנון ובנייה מחוז תל אביב. ערר על החלטת הוועדה המקומית לתכנון ובנייה תל אביב "
    "שלא להתיר הקלה בקו בניין צדדי. לאחר ששמענו את הצדדים, הערר מתקבל בחלקו."
)


def petition_text(operative: str) -> str:
    return (
        'עתירה מנהלית נגד החלטת ועדת הערר לתכנון ובנייה מחוז תל אביב בערר (ת"א) 1212/19 מיום '
        "3.2.2020, שבה נדחה ערר על הקלה בקו בניין. העותרים טוענים כי ההחלטה חורגת מסמכות, "
        "וראו עע\"מ 5151/19 כהן נ' הוועדה המקומית הרצליה, פס' 12, שם נקבע כי הקלה אינה כלי "
        f"לשינוי תכנית. סוף דבר. {operative} הפיקדון יוחזר לעותרים."
    )


# The operative words, and one per kind: (paragraph, proceeding, kind).
OPERATIVE = [
    ("העתירה מתקבלת. החלטת ועדת הערר בערר (תל אביב) 1212/19 מבוטלת.", 'עת"מ', "set_aside"),
    ("לפיכך העתירה נדחית, והחלטת ועדת הערר נותרת על כנה.", 'עת"מ', "upheld"),
    ("הערעור נדחה.", 'עע"מ', "upheld"),
    ("דין העתירה להידחות.", 'עת"מ', "upheld"),
    ("העתירה מתקבלת בחלקה: ההיתר מבוטל בחלקו.", 'עת"מ', "partly_set_aside"),
    ("שהערעור מתקבל חלקית.", 'עע"מ', "partly_set_aside"),
    ("העתירה מתקבלת והעניין מוחזר לוועדת הערר לדיון מחדש.", 'עת"מ', "returned"),
    ("הדיון מוחזר לוועדה.", 'עת"מ', "returned"),
    ("ולכן הערעור מתקבל ופסק הדין מבוטל.", 'עע"מ', "set_aside"),
    ("העתירה מתקבלת. העתירה נדחית.", 'עת"מ', "unknown"),
    ("הפיקדון יוחזר לעותרים.", 'עת"מ', "unknown"),
]


@pytest.mark.parametrize(("words", "proceeding", "kind"), OPERATIVE)
def test_the_outcome_is_read_from_the_operative_words(words, proceeding, kind):
    text = petition_text(words).replace("עתירה מנהלית", "הליך")
    found = rules.operative(text, proceeding)
    assert (found.kind if found else "unknown") == kind, words
    assert rules.kind_of(words.replace("״", '"')) == kind


def test_the_attacked_decision_is_the_one_its_operative_words_or_its_opening_name():
    text = petition_text("העתירה מתקבלת. החלטת ועדת הערר בערר (תל אביב) 1212/19 מבוטלת.")
    readings = {r.citation.ref: r for r in rules.read(text, 'עת"מ', text_citations.extract(text))}
    assert readings[COMMITTEE].relation == "attacked"
    assert readings[COMMITTEE].kind == "set_aside"
    assert "מבוטלת" in readings[COMMITTEE].sentence
    assert readings['עע"מ 5151/19'].relation == "cited"  # not a lower proceeding of עת"מ
    assert "הקלה אינה כלי" in readings['עע"מ 5151/19'].sentence
    # Gershayim of another kind, the decision named only in the opening sentence.
    appeal = (
        "ערעור על פסק דינו של בית המשפט לעניינים מנהליים בעת״מ (ת״א) 3030/20. לאחר עיון, "
        "הערעור נדחה. המערערת תשלם הוצאות."
    )
    [reading] = rules.read(appeal, "עע״מ", text_citations.extract(appeal))
    assert (reading.citation.ref, reading.relation, reading.kind) == (
        PETITION,
        "attacked",
        "upheld",
    )
    # A committee decision names no lower proceeding it attacks: everything it names is cited.
    assert all(r.relation == "cited" for r in rules.read(text, "ערר", text_citations.extract(text)))


# -- in the library ---------------------------------------------------------------------------


def ingest(app, tmp_path, case_number: str, text: str, doc_id: str, decided_on: str):
    path = write(tmp_path / f"{doc_id}.txt", text)
    report = app.ingest(
        [path],
        "external",
        meta={
            "case_number": case_number,
            "title": f"פלוני נ' הוועדה המקומית ({doc_id})",
            "court": "בית המשפט המחוזי",
            "decided_on": decided_on,
        },
        doc_id=doc_id,
    )
    assert not report.failed, report.failed
    return report


def treatment_of(app, doc_id: str) -> dict | None:
    with app.store.connection() as conn:
        return treatment.treatment_for(conn, doc_id)


SET_ASIDE = "העתירה מתקבלת. החלטת ועדת הערר בערר (תל אביב) 1212/19 מבוטלת."


@pytest.mark.db
def test_a_petition_sets_aside_the_committee_decision_and_cites_with_its_sentence(app, tmp_path):
    ingest(app, tmp_path, COMMITTEE, DECISION_TEXT, "arar-1212", "2020-02-03")
    ingest(app, tmp_path, 'עע"מ 5151/19', "פסק דין. הערעור נדחה.", "aam-5151", "2019-12-01")
    assert treatment_of(app, "arar-1212") is None  # nothing later in the library yet
    ingest(app, tmp_path, PETITION, petition_text(SET_ASIDE), "atm-3030", "2020-09-01")
    found = treatment_of(app, "arar-1212")
    assert found["kind"] == "set_aside" and found["by"] == PETITION
    assert found["confirmed"] is False and found["review"] == "unconfirmed"
    assert found["read_by"] == "rule" and "1212/19 מבוטלת" in found["sentence"]
    draft = 'כפי שנקבע בערר (ת"א) 1212/19, ההקלה אינה מוצדקת.'
    with app.store.connection() as conn:
        [checked] = citation_check.check_citations(conn, "ערר (מרכז) 9/25", draft)
    assert checked["status"] == "found" and checked["treatment"]["kind"] == "set_aside"
    assert checked["treatment"]["by"] == PETITION and checked["treatment"]["confirmed"] is False
    history = treatment.history(app, case_number='ערר (ת"א) 1212/19')
    assert history["doc_id"] == "arar-1212" and history["treatment"]["by_doc_id"] == "atm-3030"
    cited = treatment.history(app, doc_id="aam-5151")
    assert cited["treatment"] is None
    [by] = cited["cited_by"]
    assert (by["doc_id"], by["case_number"], by["relation"]) == ("atm-3030", PETITION, "cited")
    assert "הקלה אינה כלי לשינוי תכנית" in by["sentence"]


@pytest.mark.db
def test_treatment_is_recomputed_when_a_later_or_an_earlier_ruling_arrives(app, tmp_path):
    # The petition first: what it attacks is not in the library, so nothing is linked ...
    ingest(app, tmp_path, PETITION, petition_text(SET_ASIDE), "atm-3030", "2020-09-01")
    with app.store.connection() as conn:
        row = conn.execute("SELECT case_law_id, kind FROM treatments WHERE relation = 'attacked'")
        assert dict(row.fetchone()) == {"case_law_id": None, "kind": "set_aside"}
    # ... until the committee's decision arrives: its arrival links the reading.
    ingest(app, tmp_path, COMMITTEE, DECISION_TEXT, "arar-1212", "2020-02-03")
    assert treatment_of(app, "arar-1212")["kind"] == "set_aside"
    # An appeal against the petition's judgment arrives: the petition has its own treatment.
    appeal = 'ערעור על פסק הדין בעת"מ (ת"א) 3030/20. הערעור מתקבל והעניין מוחזר לוועדת הערר.'
    ingest(app, tmp_path, APPEAL, appeal, "aam-4040", "2021-06-01")
    assert treatment_of(app, "atm-3030")["kind"] == "returned"
    # The petition read again with other operative words: the new reading replaces the old.
    ingest(app, tmp_path, PETITION, petition_text("העתירה נדחית."), "atm-3030", "2020-09-01")
    assert treatment_of(app, "arar-1212")["kind"] == "upheld"
    with app.store.connection() as conn:
        assert treatment.recompute_all(conn) == 0  # idempotent


@pytest.mark.db
def test_the_chair_confirms_on_the_desk_and_an_agent_is_refused_everywhere(
    app, tmp_path, chair, agent_db_url, cli_env
):
    ingest(app, tmp_path, COMMITTEE, DECISION_TEXT, "arar-1212", "2020-02-03")
    ingest(app, tmp_path, PETITION, petition_text(SET_ASIDE), "atm-3030", "2020-09-01")
    listed = chair.get("/api/treatments", headers={"Authorization": f"Bearer {AGENT}"})
    [row] = listed.json()["treatments"]
    tid = row["id"]

    # HTTP: an agent's token may read, not decide (403, nothing changed).
    refused = chair.post(
        f"/api/treatments/{tid}/review",
        json={"decision": "confirm"},
        headers={"Authorization": f"Bearer {AGENT}"},
    )
    assert refused.status_code == 403 and "chair" in refused.json()["error"]
    shown = chair.get(
        "/api/rulings/history",
        params={"doc_id": "arar-1212"},
        headers={"Authorization": f"Bearer {AGENT}"},
    ).json()
    assert shown["treatment"]["confirmed"] is False and shown["cited_by"][0]["doc_id"] == "atm-3030"

    # SQL on the agent's own login: no write of any kind.
    with psycopg.connect(agent_db_url, autocommit=True) as conn:
        for statement, params in (
            ("UPDATE treatments SET review_status = 'confirmed' WHERE id = %s", (tid,)),
            ("UPDATE treatments SET kind = 'upheld' WHERE id = %s", (tid,)),
            ("DELETE FROM treatments WHERE id = %s", (tid,)),
            (
                "INSERT INTO treatments (by_case_law_id, cited_ref, cited_text, relation, kind,"
                " read_by, sentence, char_start, char_end) SELECT by_case_law_id, 'x 1/20', 'x',"
                " 'attacked', 'set_aside', 'rule', 's', 0, 1 FROM treatments WHERE id = %s",
                (tid,),
            ),
        ):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement, params)
        assert conn.execute("SELECT count(*) FROM treatments").fetchone()[0] == 2  # readable

    # MCP (the agent-only login): the history is read, marked unconfirmed; no tool decides it.
    env = {
        **cli_env,
        "LEGAL_AI_DATABASE_URL": agent_db_url,
        "LEGAL_AI_CHAIR_TOKEN": CHAIR_TOKEN,
    }
    names, _, results = asyncio.run(
        mcp_session(env, [("get_ruling_history", {"case_number": COMMITTEE})])
    )
    answer = payload(next(iter(results.values())))
    assert answer["treatment"]["kind"] == "set_aside" and answer["treatment"]["confirmed"] is False
    assert "get_ruling_history" in names
    assert not [n for n in names if "treatment" in n or "confirm" in n]

    # The owner's login (neither the chair nor a request role) may not decide for her either.
    with app.store.as_role(None).connection() as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("UPDATE treatments SET review_status = 'confirmed' WHERE id = %s", (tid,))

    # The desk: she sees the reading in Hebrew and confirms it (CSRF checked first).
    page = chair.get("/training/treatments")
    assert page.status_code == 200
    words = text_of(page.text)
    assert "בוטל" in words and "ממתין לאישורך" in words and "set_aside" not in page.text
    no_csrf = chair.post("/training/treatments/decide", data={"id": tid, "decision": "confirm"})
    assert no_csrf.status_code == 403
    assert treatment_of(app, "arar-1212")["confirmed"] is False
    done = chair.post(
        "/training/treatments/decide",
        data={
            "csrf": csrf_of(page.text),
            "id": tid,
            "decision": "confirm",
            "expected_status": "unconfirmed",
        },
        follow_redirects=False,
    )
    assert done.status_code == 303
    found = treatment_of(app, "arar-1212")
    assert found["confirmed"] is True and found["review"] == "confirmed"
    with app.store.connection() as conn:
        audit = conn.execute(
            "SELECT actor, db_role, from_status, to_status FROM learning_audit"
            " WHERE action = 'review_treatment'"
        ).fetchall()
    assert [dict(a) for a in audit] == [
        {
            "actor": "chair",
            "db_role": "legal_ai_chair",
            "from_status": "unconfirmed",
            "to_status": "confirmed",
        }
    ]
    # A new reading of the petition goes back to waiting for her.
    ingest(app, tmp_path, PETITION, petition_text("העתירה נדחית."), "atm-3030", "2020-09-01")
    again = treatment_of(app, "arar-1212")
    assert again["kind"] == "upheld" and again["confirmed"] is False
