"""The principle panel's reasons in Hebrew on the desk (issue 37 item 7): each of the three
scripted models (conftest.py's `panel`, a local OpenAI-compatible server) is asked for a reason
in Hebrew beside its rule, quote and score; the reason is kept on its vote
(principle_votes.reason, migration 0048) and shown on the principle's item, on
/training/principles and in the review queue's principle lane; a reason written in English, and
the system's own English reason (an ungrounded rule), only behind "פרטים טכניים". The votes stay
the system's own: no role but the worker's writes one, and nobody rewrites a reason."""

import csv
import json

import psycopg
import pytest
from psycopg import sql
from psycopg.rows import dict_row

from helpers import AGENT, run, section, text_of
from legal_ai.auth import system_principal
from legal_ai.learning.lessons import panel_audit
from legal_ai.learning.principles import extraction as principles
from legal_ai.learning.principles import review as principle_review
from llm_servers import Reply, prompt_text, scripted_openai
from scenarios import Q1, Q2, R1, R2, PanelScript, cand, ruling_pdf
from system_panel import system_call

pytestmark = pytest.mark.db
PAGE = "/training/principles"
FIRST_PAGE = "עמוד ראשון: רקע עובדתי של הערר"  # ruling_pdf's page 1
UNGROUNDED = "ערר שהוגש בתוך 30 ימים יפרט את הרקע העובדתי"  # a number its quote lacks
WHY_A1 = "הציטוט קובע במפורש שאין לאשר בהקלה סטייה ניכרת, והכלל מנוסח באופן כללי."
WHY_B1 = "פסק הדין מחיל את הכלל על העובדות ומציג אותו ככלל מחייב."
WHY_A2 = "בית המשפט חייב את הוועדה לנמק בכתב; זו חובה כללית."
WHY_C1 = "The quote states the rule plainly."  # a model that answered in English
WHY_U = "הציטוט מתאר את הרקע העובדתי של הערר."
REFUSED = (
    psycopg.errors.InsufficientPrivilege,
    psycopg.errors.CheckViolation,
    psycopg.errors.RaiseException,
)


class Recorded(PanelScript):
    """The panel's script, keeping every prompt and schema it was asked with."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[dict] = []

    def __call__(self, request: dict, path: str) -> Reply:
        self.asked.append(request)
        return super().__call__(request, path)


def with_reason(rule, quote, score, reason=None) -> dict:
    answer = cand(rule, quote, score)
    if reason is not None:
        answer["reason"] = reason
    return answer


def reason_world(app, tmp_path, monkeypatch) -> tuple[Recorded, dict[str, dict]]:
    """R1 (3 of 3: approved by the panel), R2 (2 of 3: the chair's) and an ungrounded rule
    (3 of 3, yet the chair's), each model with its reason or none; the panel is three models
    (a, b, c) of one scripted server, as conftest.py's `panel`."""
    script = Recorded()
    script.answers = {
        "a": [
            with_reason(R1[0], Q1, 0.9, WHY_A1),
            with_reason(R2[0], Q2, 0.7, WHY_A2),
            with_reason(UNGROUNDED, FIRST_PAGE, 0.9, WHY_U),
        ],
        "b": [
            with_reason(R1[1], Q1, 0.8, WHY_B1),
            with_reason(R2[1], Q2, 0.7),  # no reason given
            with_reason(UNGROUNDED, FIRST_PAGE, 0.9, WHY_U),
        ],
        "c": [with_reason(R1[0], Q1, 0.7, WHY_C1), with_reason(UNGROUNDED, FIRST_PAGE, 0.8, WHY_U)],
    }
    with scripted_openai(script) as server:
        value = ",".join(f"openai:{m}@{server.url}" for m in "abc")
        update = {"principle_panel": value, "model_retries": 0}
        monkeypatch.setattr(app, "settings", app.settings.model_copy(update=update))
        ruling_pdf(app, tmp_path)
        report = principles.extract(app, doc_id="ruling-1")
    assert (report["approved"], report["pending_review"], report["ungrounded"]) == (1, 2, 1)
    rows = {p["rule_text"]: p for p in principle_review.list_principles(app)["principles"]}
    return script, {"R1": rows[R1[0]], "R2": rows[R2[0]], "U": rows[UNGROUNDED]}


@pytest.fixture
def reasoned(desk_app, tmp_path, monkeypatch):
    return reason_world(desk_app, tmp_path, monkeypatch)


def votes_of(app, principle_id: int) -> dict[str, dict]:
    with app.store.connection() as conn:
        rows = conn.execute(
            "SELECT model, voted, reason FROM principle_votes WHERE principle_id = %s",
            (principle_id,),
        ).fetchall()
    return {r["model"]: {"voted": r["voted"], "reason": r["reason"]} for r in rows}


def test_the_panel_is_asked_for_a_hebrew_reason_and_each_vote_keeps_its_own(desk_app, reasoned):
    script, rows = reasoned
    assert len(script.asked) == 3
    for request in script.asked:
        assert "נמקי בעברית" in prompt_text(request)
        schema = request["response_format"]["json_schema"]["schema"]
        candidate = next(iter(schema["$defs"].values()))
        assert "reason" in candidate["properties"] and "reason" in candidate["required"]
    assert votes_of(desk_app, rows["R1"]["id"]) == {
        "openai:a": {"voted": True, "reason": WHY_A1},
        "openai:b": {"voted": True, "reason": WHY_B1},
        "openai:c": {"voted": True, "reason": WHY_C1},
    }
    assert votes_of(desk_app, rows["R2"]["id"]) == {
        "openai:a": {"voted": True, "reason": WHY_A2},
        "openai:b": {"voted": True, "reason": None},  # it gave none
        "openai:c": {"voted": False, "reason": None},  # it did not propose R2
    }


def test_the_principles_page_shows_each_models_reason_in_hebrew(chair, reasoned):
    _, rows = reasoned
    page = chair.get(PAGE)
    assert page.status_code == 200
    html = text_of(page.text)
    pending = section(html, "pending")
    card = pending.split(f'id="principle-{rows["R2"]["id"]}"')[1].split("</article>")[0]
    head, _, rest = card.partition('<details class="more">')
    # Beside the rule, not folded away: her Hebrew, no model name outside the details.
    assert "נימוקי הפאנל" in head and WHY_A2 in head
    assert "מודל 2</b>: הציע אותו — לא נימק" in head
    assert "מודל 3</b>: לא הציע אותו" in head
    visible = head.split('<details class="technical">')[0]
    assert "openai" not in visible
    assert "openai:a, openai:b, openai:c" in head.split('<details class="technical">')[1]
    # The ungrounded one: the Hebrew warning; the system's English only behind the details.
    card = pending.split(f'id="principle-{rows["U"]["id"]}"')[1].split("</article>")[0]
    warn = card.split('<div class="warn ungrounded">')[1].split("</div>")[0]
    before, _, details = warn.partition(
        '<details class="technical"><summary>פרטים טכניים</summary>'
    )
    assert "אומר יותר מהציטוט" in before and "ungrounded" not in before
    assert "ungrounded rule" in details
    assert WHY_U in card
    # The panel's approval she confirms: three reasons, the English one behind the details.
    confirm = section(html, "to_confirm")
    card = confirm.split(f'id="principle-{rows["R1"]["id"]}"')[1].split("</article>")[0]
    assert WHY_A1 in card and WHY_B1 in card
    third = card.split("מודל 3</b>: הציע אותו — ")[1].split("</li>")[0]
    assert third.startswith("המודל נימק שלא בעברית. ")
    assert WHY_C1 in third.split('<details class="technical">')[1]
    assert WHY_C1 not in third.split('<details class="technical">')[0]


def test_the_reasons_over_the_api_and_the_command_line(client, cli_env, reasoned):
    _, rows = reasoned
    agent = {"Authorization": f"Bearer {AGENT}"}
    answer = client.get(f"/api/principles/{rows['R2']['id']}/votes", headers=agent)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["rule_text"] == R2[0]
    assert {v["model"]: (v["voted"], v["reason"]) for v in body["votes"]} == {
        "openai:a": (True, WHY_A2),
        "openai:b": (True, None),
        "openai:c": (False, None),
    }
    missing = client.get("/api/principles/987654/votes", headers=agent)
    assert missing.status_code == 404 and missing.json()["code"]
    said = json.loads(run(cli_env, "principles", "votes", rows["R1"]["id"], "--json").stdout)
    assert [v["reason"] for v in said["votes"]] == [WHY_A1, WHY_B1, WHY_C1]
    lines = run(cli_env, "principles", "votes", rows["R2"]["id"]).stdout
    assert f"openai:a: proposed it (score 0.7) — {WHY_A2}" in lines
    assert "openai:c: did not propose it" in lines
    gone = run(cli_env, "principles", "votes", "987654", check=False)
    assert gone.returncode != 0 and len(gone.stderr.strip().splitlines()) == 1


def test_the_review_queue_shows_the_reasons_on_the_principle(chair, reasoned):
    _, rows = reasoned
    page = chair.get(f"/review?item=principle-{rows['U']['id']}")
    assert page.status_code == 200
    current = text_of(page.text).split('<section class="current"')[1].split("</section>")[0]
    assert "הצבעות הפאנל ונימוקיו" in current
    assert current.count(WHY_U) == 3
    warn = current.split('<div class="warn ungrounded">')[1].split("</div>")[0]
    assert "ungrounded rule" in warn.split('<details class="technical">')[1]
    assert "ungrounded" not in warn.split('<details class="technical">')[0]
    page = chair.get(f"/review?item=principle-{rows['R1']['id']}")  # the lane to confirm
    current = text_of(page.text).split('<section class="current"')[1].split("</section>")[0]
    assert WHY_A1 in current and WHY_B1 in current and "המודל נימק שלא בעברית" in current


@pytest.mark.parametrize("who", ["legal_ai_chair", "legal_ai_agent", "agent login", "worker"])
def test_nobody_writes_or_rewrites_a_panel_reason(desk_app, reasoned, who, agent_db_url):
    """Only the worker's panel writes a vote (with its reason, on its own extraction call); no
    role — the worker's included — rewrites or deletes a reason once written."""
    _, rows = reasoned
    pending = rows["R2"]["id"]
    if who == "worker":
        engine = desk_app.acting_as(system_principal("principle-panel"))
        with pytest.raises(REFUSED), engine.store.transaction() as conn:
            conn.execute(
                "UPDATE principle_votes SET reason = 'הפאנל אישר' WHERE principle_id = %s",
                (pending,),
            )
        assert votes_of(desk_app, pending)["openai:a"]["reason"] == WHY_A2
        return
    url = agent_db_url if who == "agent login" else desk_app.store.url
    with psycopg.connect(url, autocommit=True, row_factory=dict_row) as conn:
        if who != "agent login":
            conn.execute(sql.SQL("SET ROLE {}").format(sql.Identifier(who)))
        call = conn.execute(
            "SELECT model_call_id FROM principle_votes WHERE principle_id = %s LIMIT 1",
            (pending,),
        ).fetchone()["model_call_id"]
        for statement, params in (
            ("UPDATE principle_votes SET reason = 'אשרי' WHERE principle_id = %s", (pending,)),
            ("UPDATE principle_votes SET reason = NULL WHERE principle_id = %s", (pending,)),
            ("DELETE FROM principle_votes WHERE principle_id = %s", (pending,)),
            (
                "INSERT INTO principle_votes (principle_id, source_kind, model, model_call_id,"
                " voted, score, reason) VALUES (%s, 'external_upload', 'openai:d', %s, true, 1,"
                " 'אשרי את העיקרון')",
                (pending, call),
            ),
        ):
            with pytest.raises(REFUSED):
                conn.execute(statement, params)
    assert votes_of(desk_app, pending)["openai:a"]["reason"] == WHY_A2
    assert "openai:d" not in votes_of(desk_app, pending)


def test_the_database_keeps_a_reason_to_a_vote(desk_app, reasoned):
    """A model that did not propose a principle gives no reason for it; a reason is text. The
    worker's own insert of a new principle's votes, each on a call it made (the gate passes),
    refused by 0048's checks."""
    _, rows = reasoned
    engine = desk_app.acting_as(system_principal("principle-panel"))
    calls = {m: system_call(desk_app, "principle_panel", f"openai:{m}") for m in "abc"}
    with engine.store.connection() as conn:
        ruling = conn.execute("SELECT id FROM case_law WHERE doc_id = 'ruling-1'").fetchone()["id"]
    for voted, reason, check in (
        (False, "לא הצעתי אותו", "principle_vote_reason_of_a_vote"),
        (True, "   ", "principle_vote_reason_text"),
        (True, "א" * 2001, "principle_vote_reason_text"),
    ):
        with pytest.raises(psycopg.errors.CheckViolation, match=check):
            with engine.store.transaction() as conn:
                principle = conn.execute(
                    "INSERT INTO case_law_principles (source_kind, case_law_id, rule_text,"
                    " supporting_quote, review_status, text_hash, analyzed, analyzer) VALUES"
                    " ('external_upload', %s, 'כלל', %s, 'proposed', 'h', 'a', 'simple')"
                    " RETURNING id",
                    (ruling, Q1),
                ).fetchone()["id"]
                conn.execute(
                    "INSERT INTO principle_votes (principle_id, source_kind, model,"
                    " model_call_id, voted, score, reason) VALUES (%s, 'external_upload',"
                    " 'openai:a', %s, %s, %s, %s)",
                    (principle, calls["a"], voted, 0.9 if voted else None, reason),
                )


def test_the_audit_csv_keeps_each_models_reason(desk_app, reasoned):
    """$LEGAL_AI_HOME/audit/principle-panel.csv: each decision with every model's reason
    (`vote_reasons`, its last column); a file with an older release's columns is written again
    whole before a row is added."""
    _, rows = reasoned
    # The file as the database has it (the home's files outlive a test's emptied database).
    assert panel_audit.rebuild(desk_app)["principle"] == 3
    path = panel_audit.folder(desk_app) / "principle-panel.csv"
    with path.open(encoding="utf-8", newline="") as handle:
        written = {r["principle_id"]: r for r in csv.DictReader(handle)}
    assert list(next(iter(written.values())))[-1] == "vote_reasons"
    r1 = written[str(rows["R1"]["id"])]["vote_reasons"]
    assert r1 == f"openai:a: {WHY_A1} | openai:b: {WHY_B1} | openai:c: {WHY_C1}"
    assert written[str(rows["R2"]["id"])]["vote_reasons"] == f"openai:a: {WHY_A2}"
    # An older file (without the column) is replaced by this release's, none of its rows lost.
    old = [f for f in panel_audit.PRINCIPLE_FIELDS if f != "vote_reasons"]
    path.write_text(",".join(old) + "\n" + ",".join("x" for _ in old) + "\n", encoding="utf-8")
    panel_audit.principle_decision(desk_app, rows["R1"]["id"])
    with path.open(encoding="utf-8", newline="") as handle:
        again = list(csv.DictReader(handle))
    assert list(again[0]) == list(panel_audit.PRINCIPLE_FIELDS)
    assert {r["principle_id"] for r in again} == {str(p["id"]) for p in rows.values()}
