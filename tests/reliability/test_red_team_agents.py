"""The red team of issue 31 items 6 and 7: an agent's labels on a first draft do not become the
labels of the chair's final; an agent cannot flood her queue with proposals nor open cases at
will (a clear 429 naming the cap, nothing written — over HTTP, over MCP, and in SQL as the
agent's own login against the database's ceilings); an agent cannot file its requests under
another's request id. docs/security.md lists each attack."""

from __future__ import annotations

import asyncio
import json
import re
from urllib.parse import quote

import psycopg
import pytest
from fastapi.testclient import TestClient
from psycopg.rows import dict_row

import factories
from helpers import AGENT, CHAIR_TOKEN, remote_session, serving, write
from legal_ai.learning.pairs import drafts, finals
from legal_ai.web.app import create_app
from legal_ai.web.desk.labels import APPEAL_TYPE, OUTCOME

pytestmark = pytest.mark.db

HER = factories.records()[0]  # permit, partially_accepted, planning
CASE = HER["case_number"]
URL_CASE = quote(CASE, safe="")
WRONG = {"appeal_type": "change_of_use", "outcome": "accepted", "practice_area": "planning"}
OTHER_AGENT = "another-agent-token"
REFUSED_SQL = (
    psycopg.errors.InsufficientPrivilege,
    psycopg.errors.CheckViolation,
    psycopg.errors.ConfigurationLimitExceeded,
)


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def agent_draft(client, case: str, text: str, token: str = AGENT, **labels):
    return client.post(
        f"/api/cases/{quote(case, safe='')}/draft/upload",
        headers=bearer(token),
        files={"file": ("draft.txt", text.encode(), "text/plain")},
        data=labels,
    )


def her_final(client, case: str, text: str, **fields):
    return client.post(
        f"/api/cases/{quote(case, safe='')}/final/upload",
        headers=bearer(CHAIR_TOKEN),
        files={"file": ("final.txt", text.encode(), "text/plain")},
        data=fields,
    )


def one(app, query: str, *args) -> dict | None:
    with app.store.pool.connection() as conn:
        conn.row_factory = dict_row
        return conn.execute(query, args).fetchone()


def exemplar_labels(app, case: str) -> set[tuple]:
    with app.store.pool.connection() as conn:
        conn.row_factory = dict_row
        rows = conn.execute(
            "SELECT DISTINCT appeal_type, outcome FROM block_exemplars WHERE case_number = %s",
            (case,),
        ).fetchall()
    return {(r["appeal_type"], r["outcome"]) for r in rows}


# -- item 6: her labels are hers -----------------------------------------------------------------


def test_an_agents_draft_labels_never_become_her_finals(app, client, chair, agent_db_url):
    """The issue's attack end to end: the agent labels its first draft another appeal type; her
    final sent with the file only is refused (nothing stored), sent with her labels it keeps
    them — in the case, in the exemplars the writer reads — and neither a later draft nor the
    agent's login changes them; the case page says, in Hebrew, that the draft was labelled
    otherwise."""
    assert agent_draft(client, CASE, HER["draft_text"], **WRONG).status_code == 200
    bare = her_final(client, CASE, HER["final_text"])
    assert bare.status_code == 400, bare.text
    said = bare.json()["error"]
    assert "labels are the chair's" in said and "appeal_type = change_of_use" in said
    assert "labels_from_draft=true" in said
    pair = one(app, "SELECT status FROM draft_final_pairs WHERE case_number = %s", CASE)
    assert pair["status"] == "draft_done"  # nothing of the final was stored

    # The desk's form asks for them, opened with the draft's (she corrects them).
    page = chair.get(f"/cases/{URL_CASE}").text
    form = page.split('id="upload-final"')[1].split("</form>")[0]
    assert re.search(r'<option value="change_of_use" selected>', form)
    hers = {"appeal_type": HER["appeal_type"], "outcome": HER["outcome"]}
    final = her_final(client, CASE, HER["final_text"], **hers)
    assert final.status_code == 200, final.text
    labels = final.json()["labels"]
    assert labels["source"] == "final" and labels["from_draft"] == []
    assert (labels["appeal_type"], labels["outcome"]) == (HER["appeal_type"], HER["outcome"])
    assert exemplar_labels(app, CASE) == {(HER["appeal_type"], HER["outcome"])}

    # A later draft of the agent: refused, her labels kept.
    again = agent_draft(client, CASE, HER["draft_text"] + "\nתוספת", **WRONG)
    assert again.status_code == 400
    # The agent's own login: neither the labels nor whose they are.
    with psycopg.connect(agent_db_url, autocommit=True) as conn:
        for statement in (
            "UPDATE cases SET appeal_type = 'change_of_use' WHERE case_number = %s",
            "UPDATE cases SET outcome = 'accepted', labels_source = NULL WHERE case_number = %s",
            "UPDATE cases SET labels_source = 'draft' WHERE case_number = %s",
        ):
            with pytest.raises(REFUSED_SQL):
                conn.execute(statement, (CASE,))
    row = one(
        app, "SELECT appeal_type, outcome, labels_source FROM cases WHERE case_number = %s", CASE
    )
    assert row == {**hers, "labels_source": "final"}
    assert exemplar_labels(app, CASE) == {(HER["appeal_type"], HER["outcome"])}

    # Her case page: the draft was labelled otherwise, each label with both values, in Hebrew.
    page = chair.get(f"/cases/{URL_CASE}").text
    notice = page.split('id="labels-mismatch"')[1].split(">", 1)[1].split("</div>")[0]
    assert "הטיוטה סווגה אחרת" in notice and "סוג ערר" in notice and "תוצאה" in notice
    assert APPEAL_TYPE["change_of_use"] in notice and APPEAL_TYPE[HER["appeal_type"]] in notice
    assert OUTCOME["accepted"] in notice and OUTCOME[HER["outcome"]] in notice
    assert not re.search(r"[A-Za-z]{3,}", re.sub(r"<[^>]+>", "", notice))


def test_the_drafts_labels_only_when_she_confirms_or_marked_unconfirmed(app, client, chair):
    """labels_from_draft=true: the draft's labels, hers now (`final`, which were taken said);
    the CLI's default without labels (the operator's upload): the draft's, marked `draft` and
    shown on her case page as not confirmed; her labels sent again with the same file take."""
    rec, other = factories.records()[1], factories.records()[3]
    assert agent_draft(client, rec["case_number"], rec["draft_text"], **WRONG).status_code == 200
    confirmed = her_final(client, rec["case_number"], rec["final_text"], labels_from_draft="true")
    assert confirmed.status_code == 200, confirmed.text
    labels = confirmed.json()["labels"]
    assert labels["source"] == "final" and labels["appeal_type"] == "change_of_use"
    assert set(labels["from_draft"]) >= {"appeal_type", "outcome"}

    path = write(app.settings.home / "d.txt", other["draft_text"])
    drafts.add_draft(app, other["case_number"], path, **WRONG)
    path = write(app.settings.home / "f.txt", other["final_text"])
    result = finals.upload_final(app, other["case_number"], path)  # `legal-ai final upload`
    assert result["labels"]["source"] == "draft"
    assert any("taken from the draft, unconfirmed" in n for n in result["notes"])
    page = chair.get(f"/cases/{quote(other['case_number'], safe='')}").text
    assert 'id="labels-unconfirmed"' in page and "לא אושרו בידייך" in page
    relabelled = her_final(
        client, other["case_number"], other["final_text"], appeal_type="plan", outcome="remanded"
    )
    assert relabelled.status_code == 200 and relabelled.json()["changed"] is False
    row = one(
        app,
        "SELECT appeal_type, labels_source FROM cases WHERE case_number = %s",
        other["case_number"],
    )
    assert row == {"appeal_type": "plan", "labels_source": "final"}
    assert exemplar_labels(app, other["case_number"]) == {("plan", "remanded")}


# -- item 7: caps per agent --------------------------------------------------------------------


@pytest.fixture
def capped(desk_app, monkeypatch):
    """The App configured with small caps — 6 open proposals per agent, 3 new cases an hour —
    and two agents' tokens (its settings are what the web app and its services read)."""
    settings = desk_app.settings.model_copy(
        update={
            "agent_token": f"writer={AGENT},other={OTHER_AGENT}",
            "chair_token": CHAIR_TOKEN,
            "max_open_proposals": 6,
            "max_new_cases": 3,
            "new_cases_window_minutes": 60,
        }
    )
    monkeypatch.setattr(desk_app, "settings", settings)
    return settings


def findings(n: int) -> list[str]:
    return [f"[סגנון] ממצא מספר {n}-{i}" for i in range(3)]


def test_open_proposals_past_the_cap_are_429_over_http_and_mcp(app, capped, tmp_path):
    api = create_app(capped, legal=app)
    with TestClient(api) as client:
        assert agent_draft(client, CASE, HER["draft_text"]).status_code == 200
        url = f"/api/cases/{URL_CASE}/curator-findings"
        for n in range(2):
            done = client.post(url, headers=bearer(AGENT), json={"findings": findings(n)})
            assert done.status_code == 200 and done.json()["recorded"] == 3
        over = client.post(url, headers=bearer(AGENT), json={"findings": findings(2)})
        assert over.status_code == 429, over.text
        body = over.json()
        assert body["cap"] == "LEGAL_AI_MAX_OPEN_PROPOSALS" and body["limit"] == 6
        assert "open proposals cap" in body["error"] and "Retry-After" not in over.headers
        # The same findings again add nothing and are not refused; another agent has its own.
        same = client.post(url, headers=bearer(AGENT), json={"findings": findings(1)})
        assert same.status_code == 200 and same.json()["recorded"] == 0
        theirs = client.post(url, headers=bearer(OTHER_AGENT), json={"findings": findings(9)})
        assert theirs.status_code == 200 and theirs.json()["recorded"] == 3
    count = one(
        app,
        "SELECT count(*) AS n FROM decision_lessons WHERE proposed_by = 'agent:writer'"
        " AND review_status = 'proposed'",
    )
    assert count["n"] == 6  # nothing of the refused call was written

    with serving(create_app(capped, legal=app), lifespan="on") as base:
        calls = [("record_curator_findings", {"case_number": CASE, "findings": findings(5)})]
        _, [result] = asyncio.run(remote_session(base, AGENT, calls))
    assert result.is_error
    text = result.content[0].text  # the SDK's "Error executing tool ...: " then the JSON
    said = json.loads(text[text.index("{") :])
    assert said["status"] == 429 and said["cap"] == "LEGAL_AI_MAX_OPEN_PROPOSALS"
    assert (
        one(app, "SELECT count(*) AS n FROM decision_lessons WHERE proposed_by = 'agent:writer'")[
            "n"
        ]
        == 6
    )


def test_new_cases_past_the_cap_are_429_with_retry_after(app, capped):
    with TestClient(create_app(capped, legal=app)) as client:
        for n in range(3):
            assert (
                agent_draft(client, f"ערר (מרכז) 95{n:02d}/25", HER["draft_text"]).status_code
                == 200
            )
        over = agent_draft(client, "ערר (מרכז) 9599/25", HER["draft_text"])
        assert over.status_code == 429, over.text
        assert over.json()["cap"] == "LEGAL_AI_MAX_NEW_CASES" and over.json()["limit"] == 3
        assert 1 <= int(over.headers["Retry-After"]) <= 3600
        # Nothing written: no case, no draft. A new version of a known case is no new case;
        # another agent opens its own.
        assert (
            one(app, "SELECT count(*) AS n FROM cases WHERE case_number = 'ערר (מרכז) 9599/25'")[
                "n"
            ]
            == 0
        )
        assert one(app, "SELECT count(*) AS n FROM drafts")["n"] == 3
        again = agent_draft(client, "ערר (מרכז) 9500/25", HER["draft_text"] + "\nגרסה 2")
        assert again.status_code == 200, again.text
        theirs = agent_draft(client, "ערר (מרכז) 9599/25", HER["draft_text"], token=OTHER_AGENT)
        assert theirs.status_code == 200, theirs.text
    row = one(app, "SELECT created_by FROM cases WHERE case_number = 'ערר (מרכז) 9599/25'")
    assert row["created_by"] == "agent:other"


def test_the_agent_login_meets_the_databases_ceilings(app, agent_db_url):
    """In SQL as the agent's own login: at most 200 open proposals under one name (and 1000 for
    the login) and 200 new cases an hour; past them 53400, nothing written. A login that may not
    write the table at all is refused sooner (the role grants of migration 0033)."""
    with psycopg.connect(agent_db_url, autocommit=True) as conn:
        made = 0
        refused: Exception | None = None
        for n in range(201):
            try:
                conn.execute("INSERT INTO cases (case_number) VALUES (%s)", (f"ערר {n}/99",))
                made += 1
            except REFUSED_SQL as exc:
                refused = exc
                break
        assert made <= 200 and refused is not None
        if made == 200:
            assert isinstance(refused, psycopg.errors.ConfigurationLimitExceeded)
        proposed = 0
        refused = None
        for n in range(201):
            try:
                conn.execute(
                    "INSERT INTO decision_lessons (category, text, source, dedupe_key,"
                    " proposed_by) VALUES ('style', %s, 'curator', %s, 'agent:flood')",
                    (f"הצעה {n}", f"flood-{n}"),
                )
                proposed += 1
            except REFUSED_SQL as exc:
                refused = exc
                break
        assert proposed <= 200 and refused is not None
        if proposed == 200:
            assert isinstance(refused, psycopg.errors.ConfigurationLimitExceeded)


# -- item 7: request ids ---------------------------------------------------------------------------


def test_a_reused_or_malformed_request_id_is_replaced(app, client):
    mine = "agent-run.2025:0001"
    search = client.get(
        "/api/search",
        params={"query": "היתר בנייה", "corpus": "internal"},
        headers={**bearer(AGENT), "X-Request-ID": mine},
    )
    assert search.status_code == 200 and search.headers["x-request-id"] == mine
    # The chair's request with the agent's id (recorded in the search log): a fresh one.
    theirs = client.get(
        "/api/search",
        params={"query": "הקלה", "corpus": "internal"},
        headers={**bearer(CHAIR_TOKEN), "X-Request-ID": mine},
    )
    used = theirs.headers["x-request-id"]
    assert theirs.status_code == 200 and used != mine and re.fullmatch(r"[0-9a-f]{32}", used)
    logged = one(app, "SELECT array_agg(request_id) AS ids FROM search_log")["ids"]
    assert sorted(logged) == sorted([mine, used])
    # An id seen by this server before (nothing recorded: a health probe) is not taken again;
    # malformed ones (too short, a space, a newline's escape, too long) never.
    probe = "probe-id-0001"
    assert client.get("/healthz", headers={"X-Request-ID": probe}).headers["x-request-id"] == probe
    assert client.get("/healthz", headers={"X-Request-ID": probe}).headers["x-request-id"] != probe
    for bad in ("abc", "two words here", "id\\r\\nX-Evil: 1", "x" * 129, "<script>1234</script>"):
        answer = client.get("/healthz", headers={"X-Request-ID": bad})
        assert re.fullmatch(r"[0-9a-f]{32}", answer.headers["x-request-id"]), bad
