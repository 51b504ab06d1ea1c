"""Drafts and finals uploaded as scans (migration 0049, `decision_scans`) attacked as the agent's
own login (fixture agent_db_url: a member of legal_ai_agent only), and the table's own rules
held against the server's login: the record says who uploaded, and the worker later stores the
scan acting for exactly that principal, so no one but the server writes it. Needs no Tesseract
(the scan here is a few bytes never read); tests/web/test_scanned_decisions.py reads real ones."""

from __future__ import annotations

import hashlib

import psycopg
import pytest

from legal_ai.ingest import ocr_jobs
from legal_ai.store import decision_scans

pytestmark = pytest.mark.db

CASE = "ערר (מרכז) 4472/25"
PDF = b"%PDF-1.4 a scan that is never read\n"
SHA = hashlib.sha256(PDF).hexdigest()


def _recorded(app, kind: str = "draft", actor: tuple[str, str] = ("agent", "writer")) -> dict:
    with app.store.transaction() as conn, app.store.as_login(conn):
        ocr_jobs.enqueue(conn, SHA, PDF)
        return decision_scans.add(
            conn,
            kind=kind,
            case_number=CASE,
            sha=SHA,
            source_name="upload:scan.pdf",
            fields={},
            actor_kind=actor[0],
            actor_name=actor[1],
        )


def test_the_agents_own_login_neither_reads_nor_writes_a_scanned_upload(app, agent_db_url):
    row = _recorded(app)
    attacks = (
        "SELECT actor_kind, fields FROM decision_scans",
        # a final recorded in the chair's name: the worker would store it as hers
        "INSERT INTO decision_scans (kind, case_number, file_sha256, source_name, actor_kind,"
        " actor_name) VALUES ('final', %(case)s, %(sha)s, 'x.pdf', 'chair', 'chair')",
        # the agent's waiting draft turned into a final of the chair's, or its fields rewritten
        "UPDATE decision_scans SET kind = 'final', actor_kind = 'chair', actor_name = 'chair'"
        " WHERE id = %(id)s",
        'UPDATE decision_scans SET fields = \'{"outcome": "rejected"}\' WHERE id = %(id)s',
        # another's upload settled as done (never stored) or removed
        "UPDATE decision_scans SET status = 'done' WHERE id = %(id)s",
        "DELETE FROM decision_scans WHERE id = %(id)s",
        "TRUNCATE decision_scans",
    )
    params = {"case": CASE, "sha": SHA, "id": row["id"]}
    with psycopg.connect(agent_db_url) as conn:
        for attack in attacks:
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(attack, params)
            conn.rollback()
    with app.store.as_role(None).connection() as conn:
        kept = conn.execute("SELECT * FROM decision_scans WHERE id = %s", (row["id"],)).fetchone()
    assert kept is not None
    assert (kept["kind"], kept["actor_kind"], kept["actor_name"], kept["status"]) == (
        "draft",
        "agent",
        "writer",
        "waiting",
    )
    assert kept["fields"] == {}


def test_the_tables_rules_hold_against_the_servers_own_login(app):
    """A final is the chair's (or the operator's) even in the server's hands; a failure says why
    and its code (what the desk shows in Hebrew)."""
    row = _recorded(app)
    with app.store.transaction() as conn, app.store.as_login(conn):
        with pytest.raises(psycopg.errors.CheckViolation, match="final_is_the_chairs"):
            with conn.transaction():
                conn.execute("UPDATE decision_scans SET kind = 'final' WHERE id = %s", (row["id"],))
        with pytest.raises(psycopg.errors.CheckViolation, match="failed_says_why"):
            with conn.transaction():
                conn.execute(
                    "UPDATE decision_scans SET status = 'failed', error = 'x' WHERE id = %s",
                    (row["id"],),
                )
        with pytest.raises(psycopg.errors.CheckViolation, match="error_code"):
            with conn.transaction():
                conn.execute(
                    "UPDATE decision_scans SET error_code = 'Not A Code' WHERE id = %s",
                    (row["id"],),
                )


def test_a_cancelled_waiting_scan_leaves_nothing_and_a_taken_one_stays(app):
    row = _recorded(app, "final", ("chair", "chair"))
    key = ocr_jobs.key(SHA)
    with app.store.transaction() as conn, app.store.as_login(conn):
        gone = decision_scans.cancel(conn, row["id"])
    assert gone == {"job_removed": True, "scan_removed": True}
    with app.store.as_role(None).connection() as conn:
        assert conn.execute("SELECT 1 FROM decision_scans").fetchall() == []
        assert conn.execute("SELECT 1 FROM jobs WHERE key = %s", (key,)).fetchall() == []
        assert (
            conn.execute("SELECT 1 FROM scanned_files WHERE file_sha256 = %s", (SHA,)).fetchall()
            == []
        )

    # Two uploads of one scan: cancelling one keeps the scan and its job for the other.
    first, second = _recorded(app), _recorded(app)
    with app.store.transaction() as conn, app.store.as_login(conn):
        assert decision_scans.cancel(conn, first["id"]) == {
            "job_removed": False,
            "scan_removed": False,
        }
        # Taken by the worker (being stored): no longer cancellable.
        assert decision_scans.claim(conn, second["id"], 600.0) is not None
        assert decision_scans.cancel(conn, second["id"]) is None
    with app.store.as_role(None).connection() as conn:
        assert [r["id"] for r in conn.execute("SELECT id FROM decision_scans")] == [second["id"]]
        assert conn.execute("SELECT 1 FROM jobs WHERE key = %s", (key,)).fetchall() != []
