"""Upkeep on arrival (issue 15 item 3): ingesting a ruling resolves, in its own transaction, the
missing precedents citing it and the digests pointing at it; a digest whose ruling is already in
the library is linked at once; a digest pointing at a ruling that does not exist stays unresolved
and `legal-ai health` lists it; `arrival.resolve_all` runs the same matching over everything and
changes nothing the second time."""

import json

import pytest

import factories
from helpers import run, write
from legal_ai.auth import system_principal
from legal_ai.learning.arrival import upkeep as arrival
from legal_ai.learning.pairs import finals
from legal_ai.ops.health import Health
from legal_ai.store import drafts_lessons as store
from scenarios import ARRIVAL_RULING as RULING
from scenarios import digest
from shapes import assert_shape

pytestmark = pytest.mark.db


def final_citing(app, tmp_path) -> dict:
    """The chair's final of the demo's pair: it cites עע"מ 9101/20 and בר"מ 9555/21, which the
    library does not hold (open missing precedents)."""
    rec = factories.records()[0]
    path = write(tmp_path / "final.txt", rec["final_text"])
    finals.upload_final(
        app, rec["case_number"], path, appeal_type=rec["appeal_type"], outcome=rec["outcome"]
    )
    return rec


def ruling(tmp_path, name: str = "ruling.txt", text: str = RULING):
    return write(tmp_path / name, text)


def external_meta(case_number: str) -> dict:
    return {
        "case_number": case_number,
        "title": f"פסק הדין ב{case_number}",
        "court": "בית המשפט העליון",
        "decided_on": "2021-03-04",
    }


def digest_row(app, doc_id: str) -> dict:
    with app.store.connection() as conn:
        return conn.execute(
            "SELECT case_law_id, points_to_key FROM digests WHERE doc_id = %s", (doc_id,)
        ).fetchone()


def open_refs(app) -> set[str]:
    return {m["ref"] for m in finals.missing_precedents(app)["missing_precedents"]}


def test_a_missing_precedent_is_resolved_by_ingesting_its_ruling(app, tmp_path, cli_env):
    """The issue's acceptance, through the CLI: no final is uploaded after the ruling."""
    final_citing(app, tmp_path)
    assert open_refs(app) == {'עע"מ 9101/20', 'בר"מ 9555/21'}
    # Spelled as a clerk types it: no gershayim, a hyphen — the one normalizer keys it the same.
    args = [
        "ingest",
        str(ruling(tmp_path)),
        "--corpus",
        "external",
        "--case-number",
        "עעמ 9101-20",
        "--meta",
        "title=פלוני נ' הוועדה המקומית שרון הדרום",
        "--meta",
        "court=בית המשפט העליון",
        "--meta",
        "decided_on=2021-03-04",
    ]
    report = json.loads(run(cli_env, *args, "--json").stdout)
    assert report["ingested"] == 1 and report["resolved"]["missing_precedents"] == 1
    listed = json.loads(run(cli_env, "learning", "missing-precedents", "--json").stdout)
    assert [m["ref"] for m in listed["missing_precedents"]] == ['בר"מ 9555/21']
    with app.store.connection() as conn:
        linked = conn.execute(
            "SELECT a.case_law_id, m.status, m.resolved_at IS NOT NULL AS stamped, c.case_number"
            " FROM authorities a JOIN missing_precedents m ON m.authority_id = a.id"
            " JOIN case_law c ON c.id = a.case_law_id WHERE a.ref = %s",
            ('עע"מ 9101/20',),
        ).fetchone()
    assert (linked["status"], linked["stamped"], linked["case_number"]) == (
        "resolved",
        True,
        'עע"מ 9101/20',
    )
    health = json.loads(run(cli_env, "health", "--json").stdout)
    assert_shape(health, Health)
    assert health["missing_precedents"]["count"] == 1
    assert [m["ref"] for m in health["missing_precedents"]["items"]] == ['בר"מ 9555/21']
    # The text line says what the arrival settled; the same file again settles nothing.
    other = ruling(tmp_path, "other.txt", RULING + " הערעור נדחה.")
    out = run(
        cli_env,
        "ingest",
        str(other),
        "--corpus",
        "external",
        "--case-number",
        'בר"מ 9555/21',
        "--meta",
        "title=אלמוני נ' הוועדה המקומית",
        "--meta",
        "court=בית המשפט העליון",
        "--meta",
        "decided_on=2022-01-02",
    ).stdout
    assert "on arrival: 1 missing precedent(s) resolved, 0 digest(s) linked" in out
    assert open_refs(app) == set()
    again = json.loads(run(cli_env, *args, "--json").stdout)
    assert again["unchanged"] == 1 and again["resolved"]["missing_precedents"] == 0


def test_digests_are_linked_both_ways_and_a_pointer_to_nothing_stays_in_health(
    app, tmp_path, cli_env
):
    # A digest arrives before its ruling: unresolved, listed, with its key.
    first = digest(app, tmp_path, "yomon-1", "בג\"צ 4321/19 פלוני נ' הוועדה המחוזית")
    assert first.resolved["digests"] == 0
    assert dict(digest_row(app, "yomon-1")) == {
        "case_law_id": None,
        "points_to_key": 'בג"ץ 4321/19',
    }
    with app.store.connection() as conn:
        listed = arrival.unresolved_digests(conn)
    assert (
        listed["count"] == 1
        and 'no ruling בג"ץ 4321/19 in the library' in listed["items"][0]["reason"]
    )

    # The ruling arrives (another spelling of the court): the digest is linked in its ingest.
    report = app.ingest([ruling(tmp_path)], "external", meta=external_meta("בגץ 4321-19"))
    assert report.ingested == 1 and report.resolved["digests"] == 1
    with app.store.connection() as conn:
        ruling_id = conn.execute(
            "SELECT id FROM case_law WHERE case_number = %s", ('בג"ץ 4321/19',)
        ).fetchone()["id"]
    assert digest_row(app, "yomon-1")["case_law_id"] == ruling_id

    # A digest whose ruling is in the library is linked at once; one pointing nowhere is not.
    second = digest(app, tmp_path, "yomon-2", 'בג"ץ 4321/19')
    assert second.resolved["digests"] == 1
    assert digest_row(app, "yomon-2")["case_law_id"] == ruling_id
    nowhere = digest(app, tmp_path, "yomon-3", "עע\"מ 1/99 אין כזה נ' אין כזו")
    assert nowhere.resolved["digests"] == 0 and nowhere.ingested == 1
    assert digest_row(app, "yomon-3")["case_law_id"] is None

    health = json.loads(run(cli_env, "health", "--json").stdout)
    assert_shape(health, Health)
    [entry] = health["unresolved_digests"]["items"]
    assert health["unresolved_digests"]["count"] == 1
    assert entry["doc_id"] == "yomon-3" and entry["key"] == 'עע"מ 1/99'
    assert 'no ruling עע"מ 1/99 in the library' in entry["reason"]
    text = run(cli_env, "health").stdout
    assert "unresolved_digests: 1 (digests whose ruling is not in the library)" in text
    # The search hit of a linked digest names its ruling.
    hits = app.tool("search_digests", query="הקלה בקווי בניין סטייה ניכרת", limit=10)["hits"]
    assert {h["doc_id"]: h["case_law_id"] for h in hits}["yomon-2"] == ruling_id

    # Its pointer corrected (same text, another points_to): linked on that update.
    fixed = digest(app, tmp_path, "yomon-3", 'בג"ץ 4321/19')
    assert fixed.updated == 1 and fixed.resolved["digests"] == 1
    assert digest_row(app, "yomon-3")["case_law_id"] == ruling_id


def test_resolve_all_repairs_what_was_stored_before_and_is_idempotent(app, tmp_path):
    final_citing(app, tmp_path)
    app.ingest([ruling(tmp_path)], "external", meta=external_meta('עע"מ 9101/20'))
    digest(app, tmp_path, "yomon-1", 'עע"מ 9101/20')
    digest(app, tmp_path, "yomon-2", 'עע"מ 2/98')
    assert open_refs(app) == {'בר"מ 9555/21'}
    # As if stored before upkeep on arrival existed: nothing linked, no keys.
    with app.store.transaction() as conn:
        conn.execute("UPDATE authorities SET case_law_id = NULL")
        conn.execute("UPDATE missing_precedents SET status = 'open', resolved_at = NULL")
        conn.execute("UPDATE digests SET case_law_id = NULL, points_to_key = NULL")
    assert open_refs(app) == {'עע"מ 9101/20', 'בר"מ 9555/21'}

    first = arrival.resolve_all(app)
    assert first == {
        "precedents_resolved": 1,
        "precedents_reopened": 0,
        "digests_linked": 1,
        "digests_keyed": 2,
        "enrichment_queued": 0,
        "treatments_changed": 0,
        "missing_precedents_open": 1,
        "citations_ambiguous": 0,
        "unresolved_digests": 1,
    }
    assert open_refs(app) == {'בר"מ 9555/21'}
    assert digest_row(app, "yomon-1")["case_law_id"] is not None
    with app.store.connection() as conn:
        state = conn.execute(
            "SELECT (SELECT json_agg(a ORDER BY a.id) FROM authorities a) AS a,"
            " (SELECT json_agg(m ORDER BY m.id) FROM missing_precedents m) AS m,"
            " (SELECT json_agg(d.* ORDER BY d.id) FROM (SELECT id, case_law_id, points_to_key"
            "  FROM digests) d) AS d"
        ).fetchone()
    # as the nightly job runs: the system's own stage (an agent's role writes no citation link)
    second = arrival.resolve_all(app.acting_as(system_principal("scheduler")))
    assert second == {**first, "precedents_resolved": 0, "digests_linked": 0, "digests_keyed": 0}
    with app.store.connection() as conn:
        after = conn.execute(
            "SELECT (SELECT json_agg(a ORDER BY a.id) FROM authorities a) AS a,"
            " (SELECT json_agg(m ORDER BY m.id) FROM missing_precedents m) AS m,"
            " (SELECT json_agg(d.* ORDER BY d.id) FROM (SELECT id, case_law_id, points_to_key"
            "  FROM digests) d) AS d"
        ).fetchone()
    assert after == state  # not a row changed

    # The ruling removed: its precedent opens again and its digest is unresolved again.
    with app.store.transaction() as conn:
        conn.execute("DELETE FROM case_law WHERE case_number = %s", ('עע"מ 9101/20',))
    gone = arrival.resolve_all(app)
    assert (
        gone["precedents_reopened"],
        gone["missing_precedents_open"],
        gone["unresolved_digests"],
    ) == (1, 2, 2)
    assert open_refs(app) == {'עע"מ 9101/20', 'בר"מ 9555/21'}


def test_a_committee_decision_arriving_resolves_the_precedent_citing_it(app, tmp_path):
    """An internal decision is a library item too: a final that cites one not yet stored opens a
    missing precedent, and ingesting that decision resolves it; pointers without a case number
    key to nothing."""
    assert arrival.ruling_key("עע\"מ 0123/05 פלוני נ' הוועדה") == 'עע"מ 123/05'
    assert arrival.ruling_key("ערר(מרכז) 1042 / 23") == "ערר (מרכז) 1042/23"
    assert arrival.ruling_key('ערר (ת"א) 1042/23') == "ערר (תל אביב) 1042/23"
    assert arrival.ruling_key("יומון התכנון, גיליון מרץ") is None
    assert arrival.ruling_key("") is None and arrival.ruling_key(None) is None
    rec = factories.records()[0]
    cited = "ערר (מרכז) 6990/24"
    text = rec["final_text"].replace("אין צו להוצאות", f"ראו גם {cited}. אין צו להוצאות", 1)
    finals.upload_final(
        app,
        rec["case_number"],
        write(tmp_path / "final.txt", text),
        appeal_type=rec["appeal_type"],
        outcome=rec["outcome"],
    )
    assert cited in open_refs(app)
    decision = write(tmp_path / "decision.txt", "החלטה: הערר נדחה. " + RULING)
    report = app.ingest(
        [decision],
        "internal",
        meta={
            "case_number": "ערר(מרכז) 6990-24",
            "title": "החלטה קודמת",
            "practice_area": "planning",
            "decided_on": "2024-05-01",
        },
    )
    assert report.resolved["missing_precedents"] == 1
    assert report.resolved["enrichment_queued"] == 1  # and its enrichment is queued
    assert cited not in open_refs(app)
    with app.store.connection() as conn:
        final_id = conn.execute(
            "SELECT id FROM case_law WHERE case_number = %s", (rec["case_number"],)
        ).fetchone()["id"]
        cites = {c["ref"]: c["linked_case_law_id"] for c in store.citations_of(conn, final_id)}
        earlier = conn.execute(
            "SELECT id FROM case_law WHERE case_number = %s", (cited,)
        ).fetchone()["id"]
    assert cites[cited] == earlier
