"""Roles and nothing overwritten (issue 10): an agent cannot change what the chair gates — through
the services, the CLI or MCP — and no text an item ever had is lost (same-named files of two
cases both survive; every earlier version stays readable). HTTP is in web/test_web_security.py; the
same invariants tried in SQL are in reliability/test_sql_attacks.py."""

from __future__ import annotations

import json
import subprocess

import pytest

from helpers import register_chair_token, run, write
from legal_ai.auth import CHAIR, Principal, agent, authenticate, cli_principal, system_principal
from legal_ai.config import Settings
from legal_ai.errors import Forbidden, InvalidInput, Unauthorized
from legal_ai.learning.lessons import lesson_panel, lessons
from legal_ai.learning.methodology import profiles as methodology
from legal_ai.store import drafts_lessons as store
from system_panel import distilled, panel_decides

pytestmark = pytest.mark.db

DECISION = "ערר על החלטת הוועדה המקומית בעניין הקלה בקו בניין. הוועדה דחתה את הבקשה."
CASE = "ערר (מרכז) 9101/25"


def _case_with_lessons(app, tmp_path) -> tuple[dict, dict]:
    path = write(tmp_path / "protocol.txt", DECISION)
    app.ingest([path], "case", meta={"case_number": CASE, "practice_area": "planning"})
    fact = lessons.propose(app, CASE, "fact", "המועד הקובע הוא 5.7.2023")
    style = distilled(app, CASE, "style", "משפטים קצרים בפתח הדבר")
    return fact, style


def test_tokens_name_the_principal_and_never_the_body():
    settings = Settings(
        chair_token="c-secret", agent_token="drafter=a1, curator=a2", api_token="old"
    )
    assert authenticate(settings, "c-secret") == CHAIR
    assert authenticate(settings, "a1") == agent("drafter")
    assert authenticate(settings, "a2").actor == "agent:curator"
    assert authenticate(settings, "old") == agent("api")  # the older token is never the chair
    for wrong in (None, "", "C-SECRET", "a1 ", "c-secret\x00"):
        with pytest.raises(Unauthorized):
            authenticate(settings, wrong if wrong != "a1 " else "a11")
    with pytest.raises(InvalidInput, match="must differ"):
        authenticate(Settings(chair_token="same", agent_token="same"), "same")
    assert cli_principal(Settings()).kind == "operator"
    assert cli_principal(Settings(agent_token="x=y")) == agent("x")
    assert cli_principal(Settings(chair_token="t")) == CHAIR


def test_an_agent_cannot_change_what_the_chair_gates(app, tmp_path):
    fact, style = _case_with_lessons(app, tmp_path)
    drafter = app.acting_as(agent("drafter"))
    chair = app.acting_as(CHAIR)
    for decision in ("approve", "reject", "veto"):
        with pytest.raises(Forbidden, match="chair's decision"):
            lessons.review(drafter, fact["id"], decision)
    with pytest.raises(Forbidden):
        lessons.promote(drafter, CASE, [style["id"]])
    with pytest.raises(Forbidden):
        methodology.edit(drafter, "permit", {"anti_patterns": ["x"]})
    with pytest.raises(Forbidden):
        drafter.review_principle(1, "approve")
    # What an agent may do, it does under its own name.
    found = lessons.record_curator_findings(
        drafter,
        CASE,
        [
            "[סגנון] בלי 'יש לציין כי'",
            "[מבנה] המסגרת הנורמטיבית לפני הדיון",
            "[טבלאי] טבלת ההקלות בנשוא הערר",
        ],
    )
    # An agent is never the panel: neither its own verdict nor the system's stage is open to it.
    with pytest.raises(Forbidden, match="system's own"):
        lesson_panel.decide_by_panel(
            drafter,
            style["id"],
            [
                {"model": "openai:a", "vote": "approve", "model_call_id": 1},
                {"model": "openai:b", "vote": "approve", "model_call_id": 2},
            ],
        )
    with pytest.raises(Forbidden, match="system's own stage"):
        drafter.acting_as(system_principal("learning-engine"))
    with app.store.connection() as conn:
        assert store.get_lesson(conn, style["id"])["review_status"] == "proposed"
    panel = panel_decides(app, style["id"], {"openai:a": "approve", "openai:b": "approve"})
    assert panel["review_status"] == "approved" and panel["reviewed_by"] == "panel"
    with app.store.pool.connection() as conn:
        audit = conn.execute(
            "SELECT actor, action, db_role FROM learning_audit WHERE lesson_id = ANY(%s)"
            " ORDER BY id",
            ([r["id"] for r in found["lessons"]] + [style["id"]],),
        ).fetchall()
    assert {a["actor"] for a in audit if a["action"] == "insert_lesson"} >= {"agent:drafter"}
    assert all(a["db_role"] == "legal_ai_agent" for a in audit if a["actor"] == "agent:drafter")
    # The panel's decision is the system's: written under the worker's role, in its name.
    decided = [a for a in audit if a["action"] == "update_lesson"]
    assert decided == [{"actor": "panel", "action": "update_lesson", "db_role": "legal_ai_worker"}]
    # The chair decides, and the audit says it was her, running as her role.
    assert lessons.review(chair, fact["id"], "approve")["reviewed_by"] == "chair"
    with app.store.pool.connection() as conn:
        row = conn.execute(
            "SELECT actor, db_role FROM learning_audit WHERE lesson_id = %s AND to_status ="
            " 'approved'",
            (fact["id"],),
        ).fetchone()
    assert row == {"actor": "chair", "db_role": "legal_ai_chair"}


def test_principles_are_approved_by_the_chair_only(app, tmp_path):
    path = write(tmp_path / "ruling.txt", "בית המשפט קבע כי הקלה בקו בניין מחייבת הצדקה תכנונית.")
    app.ingest(
        [path],
        "external",
        doc_id="r1",
        meta={
            "title": "פסק דין",
            "court": "העליון",
            "case_number": 'עע"מ 77/20',
            "decided_on": "2020-01-01",
        },
    )
    quote = "הקלה בקו בניין מחייבת הצדקה תכנונית"
    with pytest.raises(Forbidden):
        app.acting_as(agent("x")).add_principle(
            "external", "r1", "כלל", quote, review_status="approved"
        )
    with pytest.raises(Forbidden, match="does not add principles"):
        app.acting_as(agent("x")).add_principle("external", "r1", "הקלה טעונה הצדקה", quote)
    pid = app.add_principle("external", "r1", "הקלה טעונה הצדקה", quote)  # the operator's
    with pytest.raises(Forbidden):
        app.acting_as(agent("x")).review_principle(pid, "approve")
    saved = app.acting_as(CHAIR).review_principle(pid, "approve", "מבוסס")
    assert saved["review_status"] == "approved" and saved["reviewed_by"] == "chair"
    hits = app.search("external", "הצדקה תכנונית להקלה", limit=5).hits
    assert any(h["kind"] == "principle" and h["principle_id"] == pid for h in hits)
    with app.store.pool.connection() as conn:
        logged = conn.execute(
            "SELECT actor, to_status FROM learning_audit WHERE principle_id = %s ORDER BY id",
            (pid,),
        ).fetchall()
    assert [(r["actor"], r["to_status"]) for r in logged] == [
        ("operator", "proposed"),
        ("chair", "approved"),
    ]


def _cli(cli_env, *args, **env) -> subprocess.CompletedProcess:
    return run({**cli_env, **env}, *args, check=False)


def test_the_cli_acts_as_the_chair_only_with_her_token(app, tmp_path, cli_env):
    fact, _ = _case_with_lessons(app, tmp_path)
    for env in ({}, {"LEGAL_AI_AGENT_TOKEN": "drafter=t1"}):
        done = _cli(cli_env, "lessons", "review", str(fact["id"]), "approve", **env)
        assert done.returncode == Forbidden.exit_code, done.stderr
        assert "chair's decision" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    changes = write(tmp_path / "changes.json", json.dumps({"anti_patterns": ["כידוע"]}))
    done = _cli(cli_env, "methodology", "edit", "permit", str(changes), LEGAL_AI_AGENT_TOKEN="t1")
    assert done.returncode == Forbidden.exit_code
    done = _cli(
        cli_env,
        "lessons",
        "review",
        str(fact["id"]),
        "approve",
        "--json",
        LEGAL_AI_CHAIR_TOKEN=register_chair_token(app, "her-token"),
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["reviewed_by"] == "chair"


def test_mcp_callers_are_agents_even_with_the_chair_token_in_the_environment(settings):
    from legal_ai.mcp_server import mcp_principal

    with_chair = settings.model_copy(update={"chair_token": "her", "agent_token": "writer=w"})
    assert mcp_principal(with_chair) == agent("writer")
    assert mcp_principal(settings.model_copy(update={"chair_token": "her"})).kind == "agent"


def test_same_named_files_of_two_cases_both_survive(app, tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir(), two.mkdir()
    write(one / "protocol.txt", "פרוטוקול הדיון בערר הראשון: הוועדה שמעה את העוררים.")
    write(two / "protocol.txt", "פרוטוקול הדיון בערר השני: הוועדה ביקרה במקום.")
    first = app.ingest(
        [one / "protocol.txt"],
        "case",
        meta={"case_number": "ערר 11/25", "practice_area": "planning"},
    )
    second = app.ingest(
        [two / "protocol.txt"],
        "case",
        meta={"case_number": "ערר 12/25", "practice_area": "planning"},
    )
    assert first.doc_ids == ["ערר 11/25/one/protocol.txt"]
    assert second.doc_ids == ["ערר 12/25/two/protocol.txt"]
    # Folders without a case: the folder's name keeps them apart too.
    for folder in (one, two):
        app.ingest([folder], "digests", meta={"title": "תקציר", "points_to": 'עע"מ 1/20'})
    with app.store.pool.connection() as conn:
        ids = conn.execute("SELECT doc_id FROM digests ORDER BY doc_id").fetchall()
        cases = conn.execute("SELECT doc_id FROM documents ORDER BY doc_id").fetchall()
    assert [r["doc_id"] for r in ids] == ["one/protocol.txt", "two/protocol.txt"]
    assert len(cases) == 2
    # Moving an item to another case needs the explicit flag.
    moved = app.ingest(
        [one / "protocol.txt"],
        "case",
        doc_id="ערר 11/25/one/protocol.txt",
        meta={"case_number": "ערר 12/25", "practice_area": "planning"},
    )
    assert moved.ingested == 0 and "--reassign" in moved.failed[0]["error"]
    moved = app.ingest(
        [one / "protocol.txt"],
        "case",
        doc_id="ערר 11/25/one/protocol.txt",
        meta={"case_number": "ערר 12/25", "practice_area": "planning"},
        reassign=True,
    )
    assert moved.updated == 1


def test_every_earlier_version_of_a_changed_text_is_readable(app, tmp_path, cli_env):
    path = tmp_path / "protocol.txt"
    meta = {"case_number": "ערר 13/25", "practice_area": "planning"}
    texts = [
        "גרסה ראשונה של הפרוטוקול.",
        "גרסה שנייה של הפרוטוקול, מתוקנת.",
        "גרסה שלישית של הפרוטוקול.",
    ]
    for text in texts:
        write(path, text)
        report = app.ingest([path], "case", meta=meta)
        assert report.ingested == 1
    doc_id = report.doc_ids[0]
    history = app.item_history(doc_id)["versions"]
    assert [v["content"] for v in history] == texts
    assert [v["version"] for v in history] == [1, 2, 3]
    with app.store.pool.connection() as conn:  # search reads the item: the current text
        current = conn.execute(
            "SELECT content FROM documents WHERE doc_id = %s", (doc_id,)
        ).fetchone()
    assert current["content"] == texts[-1]
    done = _cli(cli_env, "item", "history", doc_id, "--json", "--text")
    assert done.returncode == 0, done.stderr
    assert [v["content"] for v in json.loads(done.stdout)["versions"]] == texts
    done = _cli(cli_env, "item", "history", "no-such-doc")
    assert done.returncode == 3 and "no item" in done.stderr


def test_a_changed_final_keeps_its_earlier_text(app, tmp_path):
    import factories
    from legal_ai.learning.pairs import finals

    record = factories.records()[0]
    final = write(tmp_path / "final.txt", record["final_text"])
    finals.upload_final(app, record["case_number"], final)
    write(final, record["final_text"].replace("סוף דבר", "סוף דבר\nתוספת של היושבת ראש.", 1))
    finals.upload_final(app, record["case_number"], final)
    versions = app.item_history(record["case_number"], "internal")["versions"]
    assert len(versions) == 2 and versions[0]["content"] == record["final_text"]
    style = app.item_history(record["case_number"], "style")["versions"]
    assert len(style) == 2


def test_roles_exist_on_the_test_server_and_health_says_so(app):
    assert app.store.roles_enforced is True
    assert set(app.store.roles) == {"legal_ai_agent", "legal_ai_chair", "legal_ai_worker"}
    view = app.acting_as(Principal("agent", "x"))
    with view.store.transaction() as conn:
        assert conn.execute("SELECT current_user AS u").fetchone()["u"] == "legal_ai_agent"
    with view.store.connection() as conn:
        assert conn.execute("SELECT current_user AS u").fetchone()["u"] == "legal_ai_agent"
    # The role is reset when the connection goes back to the pool.
    with app.store.connection() as conn:
        assert conn.execute("SELECT current_user AS u").fetchone()["u"] != "legal_ai_agent"
    assert app.health()["roles_enforced"] is True


def test_an_upload_is_recorded_under_its_own_name_never_its_temp_path(app, tmp_path):
    from fastapi.testclient import TestClient

    import factories
    from legal_ai.web.app import create_app

    record = factories.records()[0]
    web = app.settings.model_copy(
        update={"chair_token": "her", "agent_token": "w=agent", "home": tmp_path}
    )
    case = record["case_number"].replace("/", "%2F")
    with TestClient(create_app(web, legal=app)) as client:
        draft = client.post(
            f"/api/cases/{case}/draft/upload",
            headers={"Authorization": "Bearer agent"},
            files={"file": ("טיוטה.txt", record["draft_text"].encode())},
            data={"appeal_type": record["appeal_type"]},
        )
        assert draft.status_code == 200, draft.text
        final = client.post(
            f"/api/cases/{case}/final/upload",
            headers={"Authorization": "Bearer her"},
            files={"file": ("final.txt", record["final_text"].encode())},
            data={"appeal_type": record["appeal_type"]},  # her final's labels are hers
        )
        assert final.status_code == 200, final.text
    with app.store.pool.connection() as conn:
        paths = {
            r["source_path"]
            for r in conn.execute(
                "SELECT source_path FROM drafts UNION ALL SELECT source_path FROM documents"
                " UNION ALL SELECT source_path FROM case_law UNION ALL"
                " SELECT source_path FROM item_versions"
            ).fetchall()
        }
    assert paths == {"upload:טיוטה.txt", "upload:final.txt"}
    assert not any((tmp_path / "uploads").iterdir())  # the request's folder is gone


def test_an_agents_own_login_searches_but_cannot_become_the_chair(app, tmp_path, agent_db_url):
    """What an agent's own database credentials give it (a separate server: CI's second one)."""
    import psycopg

    from legal_ai.store.db import Store

    path = write(tmp_path / "protocol.txt", DECISION)
    app.ingest([path], "case", meta={"case_number": CASE, "practice_area": "planning"})
    with Store(agent_db_url, max_size=1) as store:  # opens a migrated database without DDL
        agent_app = type(app)(
            app.settings, store=store, embedder=app._inner_embedder, principal=agent("mcp")
        )
        hits = agent_app.search("case", "הקלה בקו בניין", filters=None, limit=3).hits
        assert hits and all(h["corpus"] == "case" for h in hits)
        with store.pool.connection() as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("SET ROLE legal_ai_chair")


def test_only_the_chair_reopens_a_decided_lesson(app, tmp_path):
    fact, style = _case_with_lessons(app, tmp_path)
    chair = app.acting_as(CHAIR)
    lessons.review(chair, style["id"], "reject")
    with pytest.raises(Forbidden):
        lessons.review(app.acting_as(agent("drafter")), style["id"], "reopen")
    reopened = lessons.review(chair, style["id"], "reopen", reason="undo")
    assert reopened["review_status"] == "proposed" and reopened["reviewed_at"] is None
    with app.store.pool.connection() as conn:
        trail = conn.execute(
            "SELECT actor, from_status, to_status FROM learning_audit"
            " WHERE lesson_id = %s ORDER BY id",
            (style["id"],),
        ).fetchall()
    assert [(r["from_status"], r["to_status"]) for r in trail][-2:] == [
        ("proposed", "rejected"),
        ("rejected", "proposed"),
    ]
