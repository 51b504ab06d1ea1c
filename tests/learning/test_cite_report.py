"""The cite-check report (issue 33 items 4-5; docs/verification.md "The report"): one per draft
version and per final, kept with the library as it was (a later ingest leaves an old report as
it was; a new check writes a new one), `legal-ai draft report`, the desk's printable page and the
case page opening with its problems, the MCP check naming the report — and no agent writes or
alters a report: not over HTTP, not over MCP on its own login, not in SQL on its own login."""

from __future__ import annotations

import asyncio
import json
import re
import typing
from urllib.parse import quote

import psycopg
import pytest

import factories
from helpers import AGENT, mcp_session, payload, run, write
from legal_ai.learning.checks import cite_report, copy_policy
from legal_ai.learning.checks.citation_states import ProblemKind
from legal_ai.learning.pairs import drafts
from legal_ai.store import cite_reports as store
from scenarios import upload
from shapes import assert_shape

CASE = "ערר (מרכז) 8101/25"
FOUND = 'עע"מ 5151/19'
LATER = 'עע"מ 6262/20'  # not in the library until a later ingest


def rulings(app, tmp_path, *entries: tuple[str, str]) -> None:
    """Fictional rulings (doc_id, case number) ingested into the library."""
    lines = [
        {
            "doc_id": doc_id,
            "doc_type": "ruling",
            "title": f"כהן נ' הוועדה המקומית ({doc_id})",
            "court": "בית המשפט העליון",
            "decided_on": "2020-01-01",
            "case_number": number,
            "text": f"פסק דין בדוי {doc_id}: 1. הקלה בקו בניין. 2. הערעור נדחה.",
        }
        for doc_id, number in entries
    ]
    path = write(
        tmp_path / f"rulings-{entries[0][0]}.jsonl",
        "\n".join(json.dumps(x, ensure_ascii=False) for x in lines),
    )
    assert app.ingest([path], "external").ingested == len(lines)


def draft_text(extra: str) -> str:
    base = factories.records()[0]["draft_text"]
    return f"{base}\n\n{extra}\n"


def add(app, tmp_path, name: str, extra: str) -> dict:
    """`legal-ai draft add` (its service), the answer held to its type (DraftAdded)."""
    rec = factories.records()[0]
    added = drafts.add_draft(
        app,
        CASE,
        write(tmp_path / name, draft_text(extra)),
        appeal_type=rec["appeal_type"],
        outcome=rec["outcome"],
        practice_area=rec["practice_area"],
    )
    assert_shape(added, drafts.DraftAdded)
    return added


def login(app) -> str:
    """The database login the application connects as (the report's `checked_by`)."""
    with app.store.as_role(None).connection() as conn:
        return conn.execute("SELECT current_user AS who").fetchone()["who"]


def statuses(shown: dict) -> dict[str, str]:
    """Each authority's status, the report held to its type (`draft report --json`)."""
    assert_shape(shown, cite_report.ShownReport)
    return {a["ref"]: a["status"] for a in shown["authorities"]}


@pytest.fixture
def library(app, tmp_path):
    rulings(app, tmp_path, ("aam-5151", FOUND))
    return app


def test_the_reports_order_names_every_problem_once():
    """The report's order of problems is its own (what she mends first), but it names every
    kind a problem may be, once: a new state cannot fall to the end unnoticed."""
    assert sorted(cite_report.PROBLEM_ORDER) == sorted(typing.get_args(ProblemKind))


def test_a_report_per_draft_version_kept_with_the_library_then(library, tmp_path, cli_env):
    app = library
    first = add(app, tmp_path, "v1.txt", f"כפי שנפסק ב{FOUND} וב{LATER}, אין להתערב.")
    second = add(app, tmp_path, "v2.txt", f"כפי שנפסק ב{FOUND}, אין להתערב בשיקול הדעת.")
    assert first["draft_version"] == 1 and second["draft_version"] == 2
    assert first["cite_report"]["version"] == 1 and second["cite_report"]["version"] == 2

    v1 = cite_report.get_report(app, CASE, version=1)
    assert v1["report_id"] == first["cite_report"]["report_id"]
    assert statuses(v1)[FOUND] == "found" and statuses(v1)[LATER] == "not_in_library"
    assert v1["problems"] >= 1 and v1["ordered"][0]["status"] != "found"  # problems first
    assert v1["library"]["items"] == 1 and v1["library"]["item_version_id"]
    assert v1["checked_by"] == login(app)  # the login that wrote it, not a request's role
    newest = cite_report.get_report(app, CASE)  # no final yet: the newest draft's
    assert newest["version"] == 2 and LATER not in statuses(newest)

    # The CLI: the same report, as JSON and as lines.
    shown = json.loads(run(cli_env, "draft", "report", CASE, "--version", "1", "--json").stdout)
    assert shown["report_id"] == v1["report_id"] and statuses(shown) == statuses(v1)
    lines = run(cli_env, "draft", "report", CASE, "--version", "1").stdout
    assert "of the draft v1" in lines and "not_in_library" in lines and LATER in lines
    missing = run(cli_env, "draft", "report", CASE, "--version", "9", check=False)
    assert missing.returncode != 0 and "draft version 9" in missing.stderr
    assert len(missing.stderr.strip().splitlines()) == 1


def test_a_later_ingest_leaves_an_old_report_and_a_new_check_writes_a_new_one(
    library, tmp_path, cli_env
):
    app = library
    first = add(app, tmp_path, "v1.txt", f"ראו {LATER}, שם נקבע כך.")
    with app.store.connection() as conn:
        before = store.latest_of(conn, CASE)
    rulings(app, tmp_path, ("aam-6262", LATER))  # the library grows after the check

    again = cite_report.get_report(app, CASE, version=1)
    assert again["report_id"] == first["cite_report"]["report_id"]
    assert statuses(again)[LATER] == "not_in_library"  # as the library was then
    assert again["library"] == before["library"] and again["library"]["items"] == 1

    fresh = json.loads(run(cli_env, "draft", "report", CASE, "--check", "--json").stdout)
    assert fresh["report_id"] != again["report_id"] and fresh["version"] == 1
    assert statuses(fresh)[LATER] == "found" and fresh["library"]["items"] == 2
    with app.store.connection() as conn:
        rows = store.reports_of(conn, CASE)
    assert [r["id"] for r in rows] == [again["report_id"], fresh["report_id"]]
    assert rows[0]["report"] == before["report"] and rows[0]["created_at"] == before["created_at"]


def test_a_draft_without_citations_has_an_empty_report_said_so(library, tmp_path, cli_env):
    rec = factories.records()[0]
    text = "\n".join(
        line for line in rec["draft_text"].splitlines() if '"' not in line and "/" not in line
    )
    result = drafts.add_draft(
        library, CASE, write(tmp_path / "plain.txt", text), appeal_type=rec["appeal_type"]
    )
    shown = cite_report.get_report(library, CASE)
    assert shown["report_id"] == result["cite_report"]["report_id"]
    if shown["empty"]:
        assert "no citations" in run(cli_env, "draft", "report", CASE).stdout
    else:  # the fictional draft's own header may still cite: never a silent pass
        assert shown["authorities"]


def test_the_final_has_its_report(app, tmp_path):
    rec = upload(app, tmp_path, 0)
    shown = cite_report.get_report(app, rec["case_number"])
    assert shown["subject"] == "final" and shown["version"] == 1
    draft = cite_report.get_report(app, rec["case_number"], subject="draft")
    assert draft["subject"] == "draft" and draft["report_id"] < shown["report_id"]


def test_the_mcp_check_names_the_report_of_a_stored_version(library, tmp_path):
    app = library
    extra = f"כפי שנפסק ב{FOUND} וב{LATER}, אין להתערב."
    added = add(app, tmp_path, "v1.txt", extra)
    with app.store.connection() as conn:
        stored = store.draft_version(conn, CASE, 1)["content"]
    checked = copy_policy.check_draft_text(app, CASE, stored)
    assert_shape(checked, copy_policy.TextCheck)
    assert checked["report"]["version"] == 1
    assert checked["report"]["report_id"] > added["cite_report"]["report_id"]  # a new check
    assert {c["ref"]: c["status"] for c in checked["citations"]}[LATER] == "not_in_library"
    unstored = copy_policy.check_draft_text(app, CASE, stored + "\nועוד משפט.")
    assert "report" not in unstored  # not a stored version: the check alone, nothing kept
    assert_shape(unstored, copy_policy.TextCheck)


def test_the_desk_report_page_and_the_case_page_open_with_its_problems(library, tmp_path, chair):
    app, client = library, chair
    add(app, tmp_path, "v1.txt", f"כפי שנפסק ב{FOUND} וב{LATER}, אין להתערב.")
    page = client.get("/cite-report/" + quote(CASE, safe=""))
    assert page.status_code == 200
    html = page.text
    assert 'dir="rtl"' in html and "@media print" in html and "דוח בדיקת הציטוטים" in html
    assert html.index("אינו בספרייה") < html.index("נמצא בספרייה")  # problems first
    assert "not_in_library" not in re.sub(r'data-status="[a-z_]+"', "", html)
    download = client.get("/cite-report/" + quote(CASE, safe="") + "?version=1&download=1")
    assert download.headers["content-disposition"].startswith("attachment;")
    assert client.get("/cite-report/" + quote("ערר 1/99", safe="")).status_code == 404

    case_page = client.get("/cases/" + quote(CASE, safe="")).text
    assert case_page.index('id="cite-check"') < case_page.index('id="findings"')
    opening = case_page[case_page.index('id="cite-check"') : case_page.index('id="findings"')]
    assert "6262/20" in opening and "אינו בספרייה" in opening
    assert "5151/19" not in opening  # its problems, not the rest


def test_no_agent_writes_or_alters_a_report(library, tmp_path, client, agent_db_url, cli_env):
    app = library
    # HTTP: an agent's draft gets the system's report — whatever the agent sends with it.
    response = client.post(
        f"/api/cases/{quote(CASE, safe='')}/draft/upload",
        headers={"Authorization": f"Bearer {AGENT}"},
        files={"file": ("d.txt", draft_text(f"ראו {LATER}.").encode(), "text/plain")},
        data={"appeal_type": factories.records()[0]["appeal_type"]},
    )
    assert response.status_code == 200, response.text
    kept = response.json()["cite_report"]
    with app.store.connection() as conn:
        row = store.latest_of(conn, CASE)
    assert row["id"] == kept["report_id"] and row["checked_by"] == login(app)
    assert {a["ref"]: a["status"] for a in row["report"]["authorities"]}[LATER] == "not_in_library"
    # No route writes one: the desk's page is the chair's, read only.
    assert client.post("/cite-report/" + quote(CASE, safe="")).status_code in (401, 403, 405)

    # MCP, on the agent's own login: the check answers, and keeps no report.
    mcp_env = {**cli_env, "LEGAL_AI_DATABASE_URL": agent_db_url}
    with app.store.connection() as conn:
        text = store.draft_version(conn, CASE, None)["content"]
    _, _, results = asyncio.run(
        mcp_session(mcp_env, [("check_draft", {"case_number": CASE, "text": text})])
    )
    [checked] = [payload(r) for r in results.values()]
    assert checked["report"] is None and "may not keep a report" in checked["report_note"]
    assert {c["ref"]: c["status"] for c in checked["citations"]}[LATER] == "not_in_library"
    with app.store.connection() as conn:
        assert [r["id"] for r in store.reports_of(conn, CASE)] == [kept["report_id"]]

    # SQL on the agent's own login: no insert, no update, no delete, no truncate.
    forged = (
        "INSERT INTO cite_reports (checked_case, subject, draft_id, version, content_hash,"
        " report, library) VALUES (%s, 'draft', %s, 1, 'x', '{\"authorities\": []}', '{}')"
    )
    with psycopg.connect(agent_db_url, autocommit=True) as conn:
        for statement, args in (
            (forged, (CASE, row["draft_id"])),
            ("UPDATE cite_reports SET report = '{}'", None),
            ("DELETE FROM cite_reports", None),
            ("TRUNCATE cite_reports", None),
        ):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement, args)
        assert conn.execute("SELECT count(*) FROM cite_reports").fetchone()[0] == 1
    # The request roles are refused by the gate too; and nobody rewrites a report.
    with app.store.pool.connection() as conn:
        for role in ("legal_ai_agent", "legal_ai_chair", "legal_ai_worker"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege), conn.transaction():
                conn.execute(f"SET LOCAL ROLE {role}")
                conn.execute(forged, (CASE, row["draft_id"]))
        for statement in ("UPDATE cite_reports SET report = '{}'", "DELETE FROM cite_reports"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege), conn.transaction():
                conn.execute(statement)
