"""The MCP server as the agents see it: a subprocess over stdio, driven by the official client,
with an agent-only database login (`legal_ai_agent_test` on the embedded test server, the second
server's `legal_ai_agent_login` in CI: docs/deployment.md). Every tool is called; errors arrive
as MCP tool errors; nothing crosses corpora; the store is opened without migrating."""

import asyncio
import json

import psycopg
import pytest

from helpers import DECISION_FIELDS, mcp_session, payload, write
from legal_ai import mcp_server
from legal_ai.errors import StoreError
from legal_ai.knowledge import brief
from legal_ai.store import drop_database, ensure_database, migrations
from legal_ai.store.db import Store, with_database
from shapes import assert_shape

pytestmark = pytest.mark.db


@pytest.fixture
def mcp_env(cli_env, agent_db_url) -> dict[str, str]:
    """`legal-ai mcp`'s environment: the test database through the agent-only login."""
    return {**cli_env, "LEGAL_AI_DATABASE_URL": agent_db_url}


TEXT = "הקלה בקו בניין צדדי פוגעת בפרטיות השכנים ובאור."


def seed(app, tmp_path):
    for corpus, meta in [
        ("case", {"case_number": "ערר 20/25", "practice_area": "planning"}),
        ("style", {"case_number": "ערר 21/25", "practice_area": "planning"}),
        ("external", {"case_number": 'עע"מ 22/20', "court": "העליון", "decided_on": "2020-02-02"}),
        (
            "internal",
            {
                "case_number": "ערר 23/24",
                "decided_on": "2024-03-03",
                "practice_area": "planning",
                **DECISION_FIELDS,
            },
        ),
        ("digests", {"points_to": 'עע"מ 22/20'}),
    ]:
        path = write(tmp_path / f"{corpus}.txt", f"{TEXT} ({corpus})")
        assert app.ingest([path], corpus, meta=meta, doc_id=f"{corpus}-doc").ingested == 1
    write(tmp_path / "case2.txt", f"{TEXT} תיק נוסף")
    app.ingest(
        [tmp_path / "case2.txt"],
        "case",
        meta={"case_number": "ערר 24/25", "practice_area": "planning"},
    )
    app.attach_precedent("ערר 20/25", 'עע"מ 22/20', "הקלה ופרטיות")


def test_every_tool_over_stdio(app, tmp_path, mcp_env):
    seed(app, tmp_path)
    calls = [
        ("search_decisions", {"query": "הקלה", "practice_area": "planning"}),
        ("search_case_documents", {"query": "פרטיות", "case_number": "ערר 20/25"}),
        ("find_similar_cases", {"case_number": "ערר 20/25"}),
        ("search_precedent_library", {"query": "הקלה בקו בניין", "court": "העליון"}),
        ("search_internal_decisions", {"query": "הקלה", "date_from": "2024-01-01"}),
        ("precedent_search_library", {"query": "פרטיות"}),
        ("search_digests", {"query": "הקלה"}),
        ("search_decisions", {"query": "הקלה", "practice_area": ""}),
        ("search_precedent_library", {"query": "'; DROP TABLE case_law; --\x00"}),
    ]
    names, tools, results = asyncio.run(mcp_session(mcp_env, calls))
    assert names == [
        "search_decisions",
        "search_case_documents",
        "find_similar_cases",
        "search_precedent_library",
        "search_internal_decisions",
        "precedent_search_library",
        "search_digests",
        "get_content_checklist",
        "get_lessons_for_outcome",
        "get_writing_brief",
        "get_block_exemplars",
        "get_templates",
        "get_contrastive_examples",
        "check_draft",
        "record_chair_feedback",
        "list_chair_feedback",
        "record_curator_findings",
        "get_curator_stats",
        "list_principles",
        "list_canonical_principles",
        "get_canonical_principle",
        "get_ruling_history",
    ]
    schema = tools["search_decisions"].input_schema
    assert set(schema["required"]) == {"query", "practice_area"}
    assert schema["properties"]["practice_area"]["description"]
    expected_doc = {
        "search_decisions": "style-doc",
        "search_case_documents": "case-doc",
        "search_precedent_library": "external-doc",
        "search_internal_decisions": "internal-doc",
        "search_digests": "digests-doc",
    }
    for (name, args), result in results.items():
        arguments = json.loads(args)
        if arguments.get("practice_area") == "":
            assert result.is_error and "needs practice_area" in result.content[0].text
            continue
        assert not result.is_error, result.content
        data = payload(result)
        assert data["tool"] == name
        if "DROP" in arguments.get("query", ""):
            continue  # answered without error; whatever it found is in the right corpus
        assert data["hits"], name
        if name in expected_doc:
            assert {h["doc_id"] for h in data["hits"]} == {expected_doc[name]}
    similar = payload(
        results[
            ("find_similar_cases", json.dumps({"case_number": "ערר 20/25"}, ensure_ascii=False))
        ]
    )
    assert [h["case_number"] for h in similar["hits"]] == ["ערר 24/25"]
    precedents = payload(
        results[("precedent_search_library", json.dumps({"query": "פרטיות"}, ensure_ascii=False))]
    )
    assert (
        precedents["hits"][0]["citation"] == 'עע"מ 22/20' and precedents["hits"][0]["case_law_id"]
    )
    digests = payload(
        results[("search_digests", json.dumps({"query": "הקלה"}, ensure_ascii=False))]
    )
    assert all(h["citable"] is False for h in digests["hits"])


def test_writer_and_feedback_tools_over_stdio(app, tmp_path, mcp_env):
    seed(app, tmp_path)
    findings = ["[סגנון] משפטים קצרים", "[מבנה] מסגרת נורמטיבית נפרדת", "[טבלאי] טבלת מועדים"]
    calls = [
        ("get_writing_brief", {"appeal_type": "permit", "outcome": "rejected"}),
        ("get_content_checklist", {"appeal_type": "betterment_levy"}),
        ("get_lessons_for_outcome", {"appeal_type": "permit", "outcome": "accepted"}),
        (
            "record_chair_feedback",
            {
                "category": "wrong_tone",
                "text": "רטורי מדי",
                "case_number": "ערר 20/25",
                "block": "discussion",
            },
        ),
        ("list_chair_feedback", {"case_number": "ערר 20/25"}),
        ("record_curator_findings", {"case_number": "ערר 20/25", "findings": findings}),
        ("record_chair_feedback", {"category": "rude", "text": "x"}),
        ("get_content_checklist", {"appeal_type": "divorce"}),
    ]
    _, tools, results = asyncio.run(mcp_session(mcp_env, calls))
    assert set(tools["record_curator_findings"].input_schema["required"]) == {
        "case_number",
        "findings",
    }
    by_call = list(results.values())
    assert_shape(payload(by_call[0]), brief.WritingBrief)
    assert_shape(payload(by_call[1]), brief.Checklist)
    assert_shape(payload(by_call[2]), brief.OutcomeLessons)
    assert "יש לציין כי" in payload(by_call[0])["anti_patterns"]
    assert any("התוספת השלישית" in i for i in payload(by_call[1])["checklist"])
    assert payload(by_call[2])["lessons"] == []  # nothing approved yet
    assert payload(by_call[3])["category"] == "wrong_tone"
    assert [f["text"] for f in payload(by_call[4])["feedback"]] == ["רטורי מדי"]
    assert payload(by_call[5])["recorded"] == 3
    assert by_call[6].is_error and "unknown feedback category" in by_call[6].content[0].text
    assert by_call[7].is_error and "unknown appeal type" in by_call[7].content[0].text


def test_mcp_callers_act_as_agents_and_reach_nothing_the_chair_gates(app, tmp_path, mcp_env):
    """Even with the chair's token in the server's environment, an MCP caller is an agent: its
    findings are proposals in its own name, and no tool decides, promotes or edits."""
    seed(app, tmp_path)
    env = {**mcp_env, "LEGAL_AI_CHAIR_TOKEN": "her", "LEGAL_AI_AGENT_TOKEN": "drafter=t"}
    findings = ["[סגנון] משפטים קצרים", "[מבנה] מסגרת נורמטיבית נפרדת", "[טבלאי] טבלת מועדים"]
    names, _, results = asyncio.run(
        mcp_session(
            env,
            [
                ("record_curator_findings", {"case_number": "ערר 20/25", "findings": findings}),
                # The desk's bulk decision on principles (issue 37 item 10) is no tool here.
                ("review_principles_bulk", {"ids": [1], "decision": "confirm"}),
            ],
        )
    )
    gated = ("review", "approve", "veto", "promote", "methodology", "principle", "reject")
    # Reading principles is an agent's; deciding them is not (read tools are list_/get_).
    assert not [
        n for n in names if any(word in n for word in gated) and not n.startswith(("list_", "get_"))
    ]
    recorded, bulk = results.values()
    assert payload(recorded)["recorded"] == 3
    assert bulk.is_error and "review_principles_bulk" in bulk.content[0].text
    with app.store.pool.connection() as conn:
        rows = conn.execute(
            "SELECT DISTINCT l.proposed_by, l.review_status, a.db_role"
            " FROM decision_lessons l JOIN learning_audit a ON a.lesson_id = l.id"
        ).fetchall()
    assert [dict(r) for r in rows] == [
        {"proposed_by": "agent:drafter", "review_status": "proposed", "db_role": "legal_ai_agent"}
    ]


def test_the_mcp_server_runs_with_an_agent_only_login(app, tmp_path, mcp_env, agent_db_url):
    """issue 19 item 8: `legal-ai mcp` with the agent-only login opens the migrated store without
    writing, searches, records feedback (as the agent role) — and that login cannot become the
    chair, not even the process itself."""
    seed(app, tmp_path)
    calls = [
        ("search_precedent_library", {"query": "הקלה בקו בניין"}),
        ("search_case_documents", {"query": "פרטיות", "case_number": "ערר 20/25"}),
        (
            "record_chair_feedback",
            {"category": "style", "text": "משפטים ארוכים מדי", "case_number": "ערר 20/25"},
        ),
        ("list_chair_feedback", {"case_number": "ערר 20/25"}),
    ]
    _, _, results = asyncio.run(mcp_session(mcp_env, calls))
    precedents, case_docs, recorded, listed = (payload(r) for r in results.values())
    assert not any(r.is_error for r in results.values()), [r.content for r in results.values()]
    assert {h["doc_id"] for h in precedents["hits"]} == {"external-doc"}
    assert {h["doc_id"] for h in case_docs["hits"]} == {"case-doc"}
    assert recorded["category"] == "style"
    assert [f["text"] for f in listed["feedback"]] == ["משפטים ארוכים מדי"]
    with psycopg.connect(agent_db_url, autocommit=True) as conn:
        assert conn.execute(
            "SELECT rolsuper FROM pg_roles WHERE rolname = current_user"
        ).fetchone() == (False,)
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("SET ROLE legal_ai_chair")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("CREATE TABLE IF NOT EXISTS mcp_probe (x int)")


def test_a_store_opened_without_migrating_reports_what_is_pending_and_applies_nothing(
    app, db_url, agent_db_url, cli_env
):
    """Store(url, migrate=False) reads schema_migrations only: a migration missing from it is
    named with what to run, and is not applied (the row stays absent); the migrated database
    opens (the agent-only login reads the store). `legal-ai mcp` opens it that way even with
    the application's login, which could migrate: its tool answers the same one line."""
    with Store(agent_db_url, max_size=1, migrate=False) as store:
        with store.connection() as conn:
            assert conn.execute("SELECT count(*) AS n FROM schema_migrations").fetchone()["n"] > 0
    last = migrations.available()[-1]
    name = f"{last.version:04d}_{last.name}"
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("DELETE FROM schema_migrations WHERE version = %s", (last.version,))
    try:
        with pytest.raises(StoreError) as refused:
            Store(agent_db_url, max_size=1, migrate=False)
        message = str(refused.value)
        assert f"needs 1 migration(s) ({name})" in message and "legal-ai db migrate" in message
        assert "\n" not in message and "password" not in message
        assert migrations.pending(agent_db_url) == [name]  # still pending: nothing applied
        _, _, results = asyncio.run(mcp_session(cli_env, [("search_digests", {"query": "הקלה"})]))
        [answer] = results.values()
        assert answer.is_error and "legal-ai db migrate" in answer.content[0].text
        assert name in answer.content[0].text
        assert migrations.pending(db_url) == [name]  # the MCP server migrated nothing
    finally:
        with psycopg.connect(db_url, autocommit=True) as conn:
            conn.execute(
                "INSERT INTO schema_migrations (version, name) VALUES (%s, %s)"
                " ON CONFLICT DO NOTHING",
                (last.version, last.name),
            )
    assert migrations.pending(agent_db_url) == []


def test_an_empty_database_is_refused_not_migrated(db_url, agent_db_url):
    """A database nobody migrated: the check names every migration and creates nothing (not
    even schema_migrations)."""
    name = f"{psycopg.conninfo.conninfo_to_dict(db_url)['dbname']}_unmigrated"
    empty = ensure_database(db_url, name)
    try:
        with pytest.raises(StoreError, match=r"needs \d+ migration\(s\) \(0001_init, .* more\)"):
            Store(with_database(agent_db_url, name), max_size=1, migrate=False)
        with psycopg.connect(empty, autocommit=True) as conn:
            assert conn.execute("SELECT to_regclass('schema_migrations')").fetchone() == (None,)
    finally:
        drop_database(db_url, name)


def test_the_mcp_server_says_when_it_runs_on_the_embedded_superuser(settings):
    embedded = settings.model_copy(update={"database_url": None})
    assert mcp_server.caveat(embedded) == mcp_server.EMBEDDED_CAVEAT
    assert "agent-only login" in mcp_server.EMBEDDED_CAVEAT
    agent_only = settings.model_copy(update={"database_url": "postgresql://agent@db/legal_ai"})
    assert mcp_server.caveat(agent_only) is None
