"""SQL-level attacks on the database's invariants (issue 10 §3): the gates, append-only tables and
frozen decisions hold against plain SQL, not only against our own code paths.

"As an agent" means an agent's own database login, a member of `legal_ai_agent` only (the
second server's, made by scripts/second-postgres, or one the suite makes on the embedded test
server): what an agent's own credentials can do. The server's own agent path (`SET ROLE
legal_ai_agent` on its login) is tried too. Some invariants hold against every role, the
schema's owner included; those are tried as the owner.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
import pytest
from psycopg import sql
from psycopg.rows import dict_row

import factories
from helpers import write
from legal_ai.auth import CHAIR
from legal_ai.learning.lessons import lessons
from legal_ai.learning.pairs import drafts, finals
from system_panel import distilled, panel_decides

pytestmark = pytest.mark.db

CASE = "ערר (מרכז) 9202/25"
REFUSED = (
    psycopg.errors.InsufficientPrivilege,
    psycopg.errors.CheckViolation,
    psycopg.errors.RaiseException,
    psycopg.errors.ForeignKeyViolation,
)
TRIED: list[str] = []  # every attack tried, printed at the end (docs/reliability.md)


@contextmanager
def connect(app, role: str | None, agent_url: str | None = None) -> Iterator[psycopg.Connection]:
    """An autocommit connection: as the agent's own login when `agent_url` is given, else as the
    owner/login switched to `role` (None: the owner itself)."""
    if agent_url:
        conn = psycopg.connect(agent_url, autocommit=True, row_factory=dict_row)
    else:
        conn = psycopg.connect(app.store.url, autocommit=True, row_factory=dict_row)
        if role:
            conn.execute(sql.SQL("SET ROLE {}").format(sql.Identifier(role)))
    try:
        yield conn
    finally:
        conn.close()


def refused(
    conn: psycopg.Connection, statement, params: tuple = (), rule: str | None = None
) -> None:
    """`statement` refused; `rule`: the gate's rule that refused it (its RAISE's CONSTRAINT,
    migration 0044), the code's key in catalog.py."""
    TRIED.append(statement if isinstance(statement, str) else statement.as_string(conn))
    with pytest.raises(REFUSED) as caught:
        conn.execute(statement, params)
    if rule is not None:
        assert caught.value.diag.constraint_name == rule, caught.value


@pytest.fixture
def world(app, tmp_path):
    """A case with a final-like item, lessons in every state, a principle, history and audit."""
    path = write(tmp_path / "protocol.txt", "פרוטוקול: הוועדה שמעה את הצדדים בעניין ההקלה.")
    app.ingest([path], "case", meta={"case_number": CASE, "practice_area": "planning"})
    write(tmp_path / "ruling.txt", "נקבע כי הקלה בקו בניין מחייבת הצדקה תכנונית של ממש.")
    app.ingest(
        [tmp_path / "ruling.txt"],
        "external",
        doc_id="r1",
        meta={
            "title": "פסק דין",
            "court": "העליון",
            "case_number": 'עע"מ 5/21',
            "decided_on": "2021-01-01",
        },
    )
    record = factories.records()[0]  # a draft/final pair: a held-out history row, panel votes
    draft = write(tmp_path / "draft.txt", record["draft_text"])
    drafts.add_draft(
        app,
        record["case_number"],
        draft,
        appeal_type=record["appeal_type"],
        outcome=record["outcome"],
        practice_area=record["practice_area"],
    )
    finals.upload_final(
        app, record["case_number"], write(tmp_path / "final.txt", record["final_text"])
    )
    voted = distilled(app, record["case_number"], "phrase", "אשר על כן")
    panel_decides(app, voted["id"], {"openai:a": "approve", "openai:b": "reject"})
    chair = app.acting_as(CHAIR)
    lessons.promote(chair, record["case_number"], [], ["לסיכום"])  # a methodology version
    fact = lessons.propose(app, CASE, "fact", "המועד הקובע הוא 1.1.2024")
    style = lessons.propose(app, CASE, "style", "משפטים קצרים")
    lessons.review(chair, style["id"], "approve")
    principle = app.add_principle(
        "external", "r1", "הקלה טעונה הצדקה", "הקלה בקו בניין מחייבת הצדקה תכנונית"
    )
    return {"fact": fact["id"], "style": style["id"], "principle": principle}


@pytest.fixture(scope="module", autouse=True)
def report():
    yield
    print(f"\nSQL attacks tried: {len(TRIED)} statements, every one refused")


# Each append-only table, with a column an attacker would rewrite.
APPEND_ONLY = {
    "learning_audit": "reason",
    "style_distance_history": "change_percent",
    "item_versions": "content",
    "methodology_profile_versions": "reason",
    "panel_verdicts": "reason",
}


@pytest.mark.parametrize("role", [None, "legal_ai_agent", "legal_ai_chair", "agent login"])
def test_append_only_tables_refuse_truncate_update_and_delete(app, world, role, agent_db_url):
    login = agent_db_url if role == "agent login" else None
    with connect(app, role, login) as conn:
        for table, column in APPEND_ONLY.items():
            names = {"t": sql.Identifier(table), "c": sql.Identifier(column)}
            for statement in (
                "TRUNCATE {t}",
                "TRUNCATE {t} CASCADE",
                "DELETE FROM {t}",
                "UPDATE {t} SET {c} = NULL",
            ):
                refused(conn, sql.SQL(statement).format(**names))
        assert conn.execute("SELECT count(*) AS n FROM learning_audit").fetchone()["n"] >= 3
        for table in APPEND_ONLY:  # none of them lost a row
            query = sql.SQL("SELECT count(*) AS n FROM {}").format(sql.Identifier(table))
            assert conn.execute(query).fetchone()["n"] >= 1, table


@pytest.mark.parametrize("login", [False, True], ids=["agent path", "agent login"])
def test_an_agent_cannot_decide_what_the_chair_gates_in_sql(app, world, login, agent_db_url):
    with connect(app, "legal_ai_agent", agent_db_url if login else None) as conn:
        fact, principle = world["fact"], world["principle"]
        refused(
            conn,
            "UPDATE decision_lessons SET review_status = 'approved', reviewed_by ="
            " 'chair' WHERE id = %s",
            (fact,),
        )
        refused(
            conn,
            "UPDATE decision_lessons SET review_status = 'approved', reviewed_by ="
            " 'panel' WHERE id = %s",
            (fact,),
        )
        refused(
            conn,
            "UPDATE decision_lessons SET review_status = 'vetoed', reviewed_by ="
            " 'chair' WHERE id = %s",
            (world["style"],),
        )
        refused(
            conn,
            "UPDATE decision_lessons SET review_status = 'proposed', reviewed_by ="
            " 'panel' WHERE id = %s",
            (world["style"],),
        )  # reopen the chair's decision
        refused(conn, "UPDATE decision_lessons SET category = 'style' WHERE id = %s", (fact,))
        refused(conn, "UPDATE decision_lessons SET text = 'אחר' WHERE id = %s", (fact,))
        refused(conn, "DELETE FROM decision_lessons WHERE id = %s", (fact,))
        refused(
            conn,
            "INSERT INTO decision_lessons (category, text, source, review_status,"
            " reviewed_by, dedupe_key) VALUES ('fact', 'x', 'chair', 'approved', 'chair',"
            " 'k1')",
        )
        refused(
            conn,
            "UPDATE case_law_principles SET review_status = 'approved', reviewed_by ="
            " 'chair' WHERE id = %s",
            (principle,),
        )
        refused(
            conn,
            "INSERT INTO case_law_principles (source_kind, case_law_id, rule_text,"
            " supporting_quote, review_status, reviewed_by, text_hash, analyzed, analyzer)"
            " SELECT 'external_upload', id, 'r', 'q', 'approved', 'chair', 'h', 'a', 'a'"
            " FROM case_law LIMIT 1",
        )
        refused(conn, "UPDATE methodology_profiles SET profile = '{}' WHERE appeal_type = 'permit'")
        refused(
            conn,
            "INSERT INTO methodology_profile_versions (appeal_type, version, profile,"
            " updated_by) VALUES ('permit', 99, '{}', 'chair')",
        )
        if login:  # an agent's own login cannot become the chair (the server's login can)
            refused(conn, "SET ROLE legal_ai_chair")
            refused(conn, "SET SESSION AUTHORIZATION legal_ai_chair")
            refused(conn, "SET session_replication_role = replica")  # triggers stay on
            refused(conn, "ALTER TABLE learning_audit DISABLE TRIGGER USER")
        state = conn.execute(
            "SELECT review_status FROM decision_lessons WHERE id = %s", (fact,)
        ).fetchone()
        assert state["review_status"] == "proposed"
        status = conn.execute(
            "SELECT review_status FROM case_law_principles WHERE id = %s", (principle,)
        ).fetchone()
        assert status["review_status"] == "proposed"


def test_a_decided_lesson_is_frozen_even_for_the_owner(app, world):
    with connect(app, None) as conn:
        refused(
            conn,
            "UPDATE decision_lessons SET category = 'fact' WHERE id = %s",
            (world["style"],),
            rule="lesson_frozen",
        )  # relabel approved style as substance
        refused(
            conn,
            "UPDATE decision_lessons SET text = 'נוסח אחר' WHERE id = %s",
            (world["style"],),
            rule="lesson_frozen",
        )
        # Not the chair's role: her name on a decision is refused whoever writes it.
        refused(
            conn,
            "UPDATE decision_lessons SET review_status = 'approved', reviewed_by ="
            " 'chair' WHERE id = %s",
            (world["fact"],),
        )
        refused(
            conn,
            "UPDATE case_law_principles SET review_status = 'approved', reviewed_by ="
            " 'chair' WHERE id = %s",
            (world["principle"],),
        )
    with connect(app, "legal_ai_chair") as conn:  # the chair's role decides, and is audited
        conn.execute(
            "UPDATE case_law_principles SET review_status = 'approved', reviewed_by ="
            " 'chair' WHERE id = %s",
            (world["principle"],),
        )
        refused(
            conn,
            "UPDATE case_law_principles SET rule_text = 'אחר' WHERE id = %s",
            (world["principle"],),
            rule="principle_frozen",
        )
        row = conn.execute(
            "SELECT actor, db_role FROM learning_audit WHERE principle_id = %s"
            " AND to_status = 'approved'",
            (world["principle"],),
        ).fetchone()
        assert row == {"actor": "chair", "db_role": "legal_ai_chair"}


def test_audit_rows_only_for_rows_that_exist(app, world, agent_db_url):
    with app.store.pool.connection() as conn:
        before = conn.execute("SELECT count(*) AS n FROM learning_audit").fetchone()["n"]
    again = lessons.propose(app, CASE, "fact", "המועד הקובע הוא 1.1.2024")  # a retried proposal
    assert again["created"] is False
    with connect(app, "legal_ai_agent", agent_db_url) as conn:
        after = conn.execute("SELECT count(*) AS n FROM learning_audit").fetchone()["n"]
        assert after == before
        refused(
            conn,
            "INSERT INTO learning_audit (actor, action, lesson_id) VALUES"
            " ('chair', 'approve', 999999)",
        )
        orphans = conn.execute(
            "SELECT count(*) AS n FROM learning_audit a WHERE a.lesson_id IS NOT NULL AND NOT"
            " EXISTS (SELECT 1 FROM decision_lessons l WHERE l.id = a.lesson_id)"
        ).fetchone()["n"]
        assert orphans == 0
