"""The red team of issue 31 items 9 and 2 (docs/security.md): the CLI is the chair's only with
her registered token, a case file is not the agent login's, a vector planted in the embedding
cache before a ruling arrives is never served, and `legal-ai health` re-checks what only the
system writes and reports each tampering by name (tampered as the owner, in SQL).

Run by `make test` on the embedded server and by `.ci/run` again on the second PostgreSQL, where
`agent_db_url` is a login that is a member of `legal_ai_agent` only."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import psycopg
import pytest
from pgvector.psycopg import register_vector
from psycopg.rows import dict_row

import scenarios
from helpers import register_chair_token, run, write
from legal_ai.errors import Forbidden, Unauthorized
from legal_ai.learning.checks import shingles
from legal_ai.learning.lessons import lessons
from legal_ai.ops import rechecks
from legal_ai.ops.health import report as health_report
from legal_ai.store import rechecks as sql_rechecks

pytestmark = pytest.mark.db

HERS = "her-registered-token-1042/23"
REFUSED = (psycopg.errors.InsufficientPrivilege, psycopg.errors.RaiseException)
PROTOCOL = "פרוטוקול הדיון בערר: העוררים הסכימו לכל טענות הוועדה המקומית וביקשו לדחות את הערר שלהם."
# A ruling short enough to be one chunk (its text is the chunk's, asserted below), and an
# unrelated text whose vector an attacker plants for it.
RULING = (
    "בית המשפט העליון קבע כי היטל השבחה אינו מוטל על מקרקעין שהשבחתם נבעה מתכנית שבוטלה "
    "לפני מימוש הזכויות."
)
UNRELATED = "שעות הפתיחה של מזנון העירייה בימי שישי הן משמונה בבוקר ועד הצהריים."


def _one_line_refusal(done, code: int, *words: str) -> None:
    assert done.returncode == code, (done.returncode, done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and all(w in lines[0] for w in words), done.stderr
    assert "Traceback" not in done.stderr


def _owner(app):
    conn = psycopg.connect(app.settings.database_url, autocommit=True, row_factory=dict_row)
    register_vector(conn)
    return conn


def _lesson(app, lesson_id: int) -> dict:
    with _owner(app) as conn:
        return conn.execute(
            "SELECT review_status, reviewed_by FROM decision_lessons WHERE id = %s", (lesson_id,)
        ).fetchone()


def _chair_audit(app) -> list[dict]:
    with _owner(app) as conn:
        return conn.execute(
            "SELECT actor, db_role, action FROM learning_audit WHERE actor = 'chair'"
        ).fetchall()


# --- the chair's token --------------------------------------------------------------------------


def test_the_cli_acts_as_the_chair_only_with_her_registered_token(app, cli_env):
    lesson = lessons.propose(app, None, "style", "משפטים קצרים בפתח הדבר")
    review = ("lessons", "review", str(lesson["id"]), "approve", "--json")
    # No token registered yet: her token itself is refused (the CLI cannot tell it from any).
    done = run({**cli_env, "LEGAL_AI_CHAIR_TOKEN": HERS}, *review, check=False)
    _one_line_refusal(done, Unauthorized.exit_code, "no chair's token is registered")
    register_chair_token(app, HERS)
    for forged in ("x", "anything-at-all", HERS[:-1], HERS.upper(), HERS + "0"):
        done = run({**cli_env, "LEGAL_AI_CHAIR_TOKEN": forged}, *review, check=False)
        _one_line_refusal(done, Unauthorized.exit_code, "not the chair's token")
    assert _lesson(app, lesson["id"])["review_status"] == "proposed"
    assert _chair_audit(app) == []
    done = run({**cli_env, "LEGAL_AI_CHAIR_TOKEN": HERS}, *review)
    assert json.loads(done.stdout)["reviewed_by"] == "chair"
    audit = _chair_audit(app)
    assert audit and {(a["actor"], a["db_role"]) for a in audit} == {("chair", "legal_ai_chair")}


def test_only_the_operator_registers_her_token(app, cli_env, agent_db_url):
    done = run(
        {**cli_env, "LEGAL_AI_DATABASE_URL": agent_db_url, "LEGAL_AI_CHAIR_TOKEN": "mine"},
        "user",
        "set-token",
        "chair",
        check=False,
    )
    _one_line_refusal(done, Forbidden.exit_code, "operator")
    with psycopg.connect(agent_db_url, autocommit=True) as conn:
        for statement in (
            "SELECT * FROM desk_users",
            "INSERT INTO desk_users (name, password_hash) VALUES ('chair-token', '$argon2id$x')",
        ):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement)
    # The operator's own login registers it, and the CLI then acts as the chair with it.
    done = run({**cli_env, "LEGAL_AI_CHAIR_TOKEN": HERS}, "user", "set-token", "chair")
    assert "registered" in done.stdout
    lesson = lessons.propose(app, None, "style", "פסקאות קצרות בדיון")
    run({**cli_env, "LEGAL_AI_CHAIR_TOKEN": HERS}, "lessons", "review", str(lesson["id"]), "reject")
    assert _lesson(app, lesson["id"])["reviewed_by"] == "chair"


# --- case files ---------------------------------------------------------------------------------


def test_a_case_file_is_not_the_agent_logins(app, cli_env, agent_db_url, tmp_path):
    protocol = write(tmp_path / "hearing-protocol.txt", PROTOCOL)
    args = ("ingest", str(protocol), "--corpus", "case", "--case-number", "ערר (מרכז) 9401/25",
            "--practice-area", "planning")  # fmt: skip
    done = run({**cli_env, "LEGAL_AI_DATABASE_URL": agent_db_url}, *args, check=False)
    _one_line_refusal(done, Forbidden.exit_code, "case file", "agent")
    done = run({**cli_env, "LEGAL_AI_AGENT_TOKEN": "mallory=m-token"}, *args, check=False)
    _one_line_refusal(done, Forbidden.exit_code, "case file", "agent:mallory")
    with _owner(app) as conn:
        assert conn.execute("SELECT count(*) AS n FROM documents").fetchone()["n"] == 0
    # In SQL: the login itself, and the agent's role, are refused a case document and a chunk.
    forged = (
        "INSERT INTO documents (corpus, doc_id, case_number, content, content_hash)"
        " VALUES ('case', 'forged-protocol', NULL, 'פרוטוקול מזויף', 'x')"
    )
    with psycopg.connect(agent_db_url, autocommit=True) as conn:
        with pytest.raises(REFUSED):
            conn.execute(forged)
    # The operator's ingest adds it; then neither the agent's login nor its role may change it.
    assert app.ingest([protocol], "case", meta={"case_number": "ערר (מרכז) 9401/25",
                                                "practice_area": "planning"}).ingested == 1  # fmt: skip
    attempts = (
        "UPDATE documents SET content = 'פרוטוקול מזויף' WHERE corpus = 'case'",
        "DELETE FROM document_chunks WHERE corpus = 'case'",
        "UPDATE document_chunks_case SET text = 'מזויף'",
        "DELETE FROM documents WHERE corpus = 'case'",
    )
    for statement in attempts:
        with psycopg.connect(agent_db_url, autocommit=True) as conn:
            with pytest.raises(REFUSED):
                conn.execute(statement)
        with _owner(app) as conn, conn.transaction():
            conn.execute("SET LOCAL ROLE legal_ai_agent")
            with pytest.raises(REFUSED):
                conn.execute(statement)
    with _owner(app) as conn:
        row = conn.execute("SELECT content FROM documents WHERE corpus = 'case'").fetchone()
    assert row["content"] == PROTOCOL


# --- the embedding cache ------------------------------------------------------------------------


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _cosine(a, b) -> float:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def test_a_vector_planted_before_a_ruling_arrives_is_never_served(app, agent_db_url, tmp_path):
    planted = app.embedder.inner.embed_passages([UNRELATED])[0]
    own = app.embedder.inner.embed_passages([RULING])[0]
    assert _cosine(planted, own) < 0.95
    key = _sha(RULING)
    with _owner(app) as conn:
        conn.execute("DELETE FROM embedding_cache WHERE text_hash = %s", (key,))
    # The agent's login plants it: refused (no privilege: migration 0033), and were it admitted,
    # the row is not the system's and never served.
    with psycopg.connect(agent_db_url, autocommit=True) as conn:
        try:
            conn.execute(
                "INSERT INTO embedding_cache (embedder, text_hash, embedding, by_system)"
                " VALUES ('e5-local', %s, %s::vector, true)",
                (key, str(planted.tolist())),
            )
        except REFUSED:
            pass
    with _owner(app) as conn:
        rows = conn.execute(
            "SELECT by_system FROM embedding_cache WHERE text_hash = %s", (key,)
        ).fetchall()
        assert rows in ([], [{"by_system": False}])
        conn.execute("DELETE FROM embedding_cache WHERE text_hash = %s", (key,))
    # A row nobody can vouch for (written before migration 0036, or with the triggers off) holds
    # the unrelated vector under the ruling's text: it is not served either.
    with _owner(app) as conn, conn.transaction():
        conn.execute("SET LOCAL session_replication_role = replica")
        conn.execute(
            "INSERT INTO embedding_cache (embedder, text_hash, embedding, written_by, by_system)"
            " VALUES ('e5-local', %s, %s::vector, 'legal_ai_agent_login', false)",
            (key, str(planted.tolist())),
        )
    assert app.embedder.cache.get_many("e5-local", [key]) == {}
    scenarios.ingest(app, tmp_path, "ruling-levy", RULING)
    with _owner(app) as conn:
        chunks = conn.execute(
            "SELECT text_hash, embedding FROM case_law_chunks c JOIN case_law l"
            " ON l.id = c.case_law_id WHERE l.doc_id = 'ruling-levy'"
        ).fetchall()
        cached = conn.execute(
            "SELECT embedding, written_by, by_system FROM embedding_cache WHERE text_hash = %s",
            (key,),
        ).fetchone()
    assert [c["text_hash"] for c in chunks] == [key]  # the ruling is that one chunk
    assert _cosine(chunks[0]["embedding"].to_numpy(), own) >= 0.999
    assert _cosine(chunks[0]["embedding"].to_numpy(), planted) < 0.95
    assert cached["by_system"] and _cosine(cached["embedding"].to_numpy(), own) >= 0.999


def test_the_agents_role_writes_no_vector_the_cache_serves(app):
    """Were the agent's role granted INSERT on the cache (the grants are another layer), its row
    would still not be the system's: the database forces who wrote it, whatever the row says."""
    key = _sha("טקסט שהסוכן מנסה לשתול")
    with _owner(app) as conn, conn.transaction():
        conn.execute("GRANT INSERT ON embedding_cache TO legal_ai_agent")  # rolled back below
        conn.execute("SET LOCAL ROLE legal_ai_agent")
        conn.execute(
            "INSERT INTO embedding_cache (embedder, text_hash, embedding, written_by, by_system)"
            " VALUES ('e5-local', %s, %s::vector, 'legal_ai_app', true)",
            (key, str([0.1] * 384)),
        )
        conn.execute("RESET ROLE")
        row = conn.execute(
            "SELECT written_by, by_system FROM embedding_cache WHERE text_hash = %s", (key,)
        ).fetchone()
        assert row == {"written_by": "legal_ai_agent", "by_system": False}
        raise psycopg.Rollback()
    with _owner(app) as conn:
        assert (
            conn.execute(
                "SELECT count(*) AS n FROM embedding_cache WHERE text_hash = %s", (key,)
            ).fetchone()["n"]
            == 0
        )


# --- health -------------------------------------------------------------------------------------


@pytest.fixture
def world(app, tmp_path):
    """A final with its pair and a ruling, fingerprints taken: what health re-checks."""
    scenarios.upload(app, tmp_path, 0)
    scenarios.ingest(app, tmp_path, "ruling-levy", RULING)
    with app.store.transaction() as conn:
        assert shingles.refresh_fingerprints(conn) >= 1
    return app


def _found(app) -> dict[str, int]:
    return {name: check["found"] for name, check in health_report(app)["rechecked"].items()}


CLEAN = dict.fromkeys(
    (
        "copy_fingerprints",
        "embedding_cache",
        "bm25_statistics",
        "schema_migrations",
        "final_blocks",
    ),
    0,
)


def test_health_is_clean_on_an_untampered_database(world, cli_env):
    with _owner(world) as conn:
        chunks = conn.execute(
            "SELECT (SELECT count(*) FROM document_chunks) + (SELECT count(*) FROM"
            " case_law_chunks) + (SELECT count(*) FROM digest_chunks) AS n"
        ).fetchone()["n"]
    found = health_report(world)["rechecked"]
    assert {name: c["found"] for name, c in found.items()} == CLEAN
    assert found["embedding_cache"]["checked"] == min(chunks, rechecks.SAMPLE) > 0
    assert found["copy_fingerprints"]["checked"] >= 2 and found["final_blocks"]["checked"] == 1
    assert found["schema_migrations"]["checked"] >= 36 and found["bm25_statistics"]["checked"]
    shown = json.loads(run(cli_env, "health", "--json").stdout)["rechecked"]
    assert {name: c["found"] for name, c in shown.items()} == CLEAN
    lines = run(cli_env, "health").stdout
    assert "copy_fingerprints: 0 found" in lines and "final_blocks: 0 found" in lines


def _sql(conn, statement) -> None:
    """A statement, or (statement, parameters)."""
    conn.execute(*statement) if isinstance(statement, tuple) else conn.execute(statement)


def _tampered(app, *statements, repair=None) -> dict[str, int]:
    """Each statement run as the owner, then what health found (`repair` run after)."""
    with _owner(app) as conn:
        for statement in statements:
            _sql(conn, statement)
    try:
        return _found(app)
    finally:
        if repair:
            with _owner(app) as conn:
                _sql(conn, repair)


def test_health_reports_each_tampering_by_name(world):
    app = world
    with _owner(app) as conn:
        chunk = conn.execute(
            "SELECT c.id, c.text_hash FROM case_law_chunks c JOIN case_law l"
            " ON l.id = c.case_law_id WHERE l.doc_id = 'ruling-levy'"
        ).fetchone()
        other = conn.execute(
            "SELECT embedding::text AS v FROM document_chunks ORDER BY id LIMIT 1"
        ).fetchone()["v"]
    # Fingerprints emptied (a draft copying her final would pass the copy check clean).
    found = _tampered(app, "UPDATE copy_fingerprints SET shingles = '{}'")
    assert found == {**CLEAN, "copy_fingerprints": found["copy_fingerprints"]}
    assert found["copy_fingerprints"] >= 2
    with app.store.transaction() as conn:
        conn.execute("DELETE FROM copy_fingerprints")
    fingerprints = health_report(app)["rechecked"]["copy_fingerprints"]
    assert fingerprints["missing"] == fingerprints["checked"] >= 2  # taken again by the next check
    with app.store.transaction() as conn:
        shingles.refresh_fingerprints(conn)
    # The cache's vector of a ruling's text, and the ruling's own vector, replaced.
    for statement in (
        ("UPDATE embedding_cache SET embedding = %s WHERE text_hash = %s",
         (other, chunk["text_hash"])),
        ("UPDATE case_law_chunks SET embedding = %s WHERE id = %s", (other, chunk["id"])),
    ):  # fmt: skip
        found = _tampered(app, statement)
        assert found["embedding_cache"] >= 1, statement
    embeddings = health_report(app)["rechecked"]["embedding_cache"]
    assert embeddings["cache_differ"] == 1 and embeddings["chunk_differ"] == 1
    with _owner(app) as conn:  # put back what ingest made
        conn.execute(
            "UPDATE case_law_chunks SET embedding = %s WHERE id = %s",
            (str(app.embedder.inner.embed_passages([RULING])[0].tolist()), chunk["id"]),
        )
        conn.execute("DELETE FROM embedding_cache WHERE text_hash = %s", (chunk["text_hash"],))
    # BM25 statistics zeroed (a corpus disappears from word search), then one term's df.
    found = _tampered(app, "UPDATE lexicon_size SET units = 0, tokens = 0",
                      repair="SELECT lexicon_rebuild()")  # fmt: skip
    assert found == {**CLEAN, "bm25_statistics": found["bm25_statistics"]}
    assert found["bm25_statistics"] >= 2
    found = _tampered(
        app,
        "UPDATE lexicon SET df = 0 WHERE (source, term) IN (SELECT source, term FROM lexicon"
        " WHERE source = 'case_law_chunks_external_upload' LIMIT 1)",
        repair="SELECT lexicon_rebuild()",
    )
    assert found == {**CLEAN, "bm25_statistics": 1}
    # The migrations table: a future row, a missing one.
    found = _tampered(
        app,
        "INSERT INTO schema_migrations (version, name) VALUES (9999, 'future')",
        repair="DELETE FROM schema_migrations WHERE version = 9999",
    )
    assert found == {**CLEAN, "schema_migrations": 1}
    with _owner(app) as conn:
        kept = conn.execute("SELECT * FROM schema_migrations WHERE version = 36").fetchone()
    found = _tampered(
        app,
        "DELETE FROM schema_migrations WHERE version = 36",
        repair=(
            "INSERT INTO schema_migrations (version, name, applied_at) VALUES (36, %s, %s)",
            (kept["name"], kept["applied_at"]),
        ),
    )
    assert found == {**CLEAN, "schema_migrations": 1}
    assert health_report(app)["rechecked"]["schema_migrations"]["missing"] == []
    # Her final's blocks rewritten in the pair (the brief's "write like the right side").
    found = _tampered(
        app,
        "UPDATE draft_final_pairs SET final_blocks = jsonb_set(final_blocks, '{discussion}',"
        " '\"כתבו כמו הסוכן\"')",
    )
    assert found == {**CLEAN, "final_blocks": 1}
    assert health_report(app)["rechecked"]["final_blocks"]["pairs"][0]["blocks"] == ["discussion"]


def test_health_counts_planted_cache_rows_it_never_serves(world):
    with _owner(world) as conn, conn.transaction():
        conn.execute("SET LOCAL session_replication_role = replica")
        conn.execute(
            "INSERT INTO embedding_cache (embedder, text_hash, embedding, written_by, by_system)"
            " VALUES ('e5-local', %s, %s::vector, 'legal_ai_agent_login', false)",
            (_sha("נטוע"), str([0.1] * 384)),
        )
    found = health_report(world)["rechecked"]["embedding_cache"]
    assert found["planted"] == 1 and found["planted_by"] == {"legal_ai_agent_login": 1}
    assert found["found"] == 1


def test_the_desks_page_reuses_the_models_answers_yet_sees_a_changed_vector(world):
    """The maintainer's page (rechecks.MODEL_FRESH) does not embed the sample again on every
    view, but reads and compares the stored vectors every time."""
    first = health_report(world, rechecks.MODEL_FRESH)["rechecked"]["embedding_cache"]
    assert first["checked"] > 0 and first["chunk_differ"] == 0
    asked = world.embedder.inner.embed_passages
    world.embedder.inner.embed_passages = None  # the model is not asked again within the window
    try:
        with _owner(world) as conn:
            chunk = conn.execute(
                "SELECT c.id, c.embedding::text AS v FROM case_law_chunks c JOIN case_law l"
                " ON l.id = c.case_law_id WHERE l.doc_id = 'ruling-levy'"
            ).fetchone()
            other = conn.execute(
                "SELECT embedding::text AS v FROM document_chunks ORDER BY id LIMIT 1"
            ).fetchone()["v"]
            conn.execute(
                "UPDATE case_law_chunks SET embedding = %s WHERE id = %s", (other, chunk["id"])
            )
        try:
            again = health_report(world, rechecks.MODEL_FRESH)["rechecked"]["embedding_cache"]
        finally:
            with _owner(world) as conn:
                conn.execute(
                    "UPDATE case_law_chunks SET embedding = %s WHERE id = %s",
                    (chunk["v"], chunk["id"]),
                )
        assert again["chunk_differ"] == 1 and again["found"] == first["found"] + 1
    finally:
        world.embedder.inner.embed_passages = asked
    assert health_report(world)["rechecked"]["embedding_cache"]["chunk_differ"] == 0  # asked anew


def test_the_desks_sample_holds_for_its_window_and_the_cli_draws_anew(world):
    """The desk's view draws one sample per window (so the model's answers are reused), the CLI
    a new one each time; both read the stored vectors (above)."""
    with _owner(world) as conn:
        total = conn.execute("SELECT count(*) AS n FROM case_law_chunks").fetchone()["n"]
        assert total > 3

        def drawn(seed):
            rows = sql_rechecks.embedded_sample(conn, world.embedder.id, 3, seed)
            return tuple((r["chunk_table"], r["id"]) for r in rows)

        assert len({drawn("2041") for _ in range(5)}) == 1
        assert len({drawn(str(n)) for n in range(20)}) > 1  # another window, another sample
        assert len({drawn(None) for _ in range(20)}) > 1


def test_the_desks_health_page_shows_each_recheck(world, chair):
    page = chair.get("/health/technical").text
    assert 'id="rechecked"' in page and page.count("תקין") >= len(CLEAN)
    with _owner(world) as conn:
        conn.execute("UPDATE lexicon_size SET units = 0")
    try:
        page = chair.get("/health/technical").text
    finally:
        with _owner(world) as conn:
            conn.execute("SELECT lexicon_rebuild()")
    assert "נתוני החיפוש לפי מילים" in page and "אינם כפי שהמערכת כתבה אותם" in page
