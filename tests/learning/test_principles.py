"""Principles extracted by the three-model panel (issue 13, items 1-2): every branch of the
rule, quotes not in the source dropped, the cap, linking to an existing principle, extraction
twice, fewer than three models, the database refusing a panel approval that breaks the rule,
corpus isolation of canonical principles, the CLI's JSON and search hits with their term. Each
model is a scripted OpenAI-compatible server on 127.0.0.1 told apart by the request's model
(conftest.py's `panel`; the rules, quotes and ruling are scenarios.py's)."""

import json

import psycopg
import pytest

from helpers import run
from legal_ai.auth import system_principal
from legal_ai.errors import InvalidInput
from legal_ai.learning.principles import extraction as principles
from legal_ai.learning.principles import review as principle_review
from scenarios import PANEL_RULING as RULING
from scenarios import Q1, Q2, Q3, Q4, R1, R2, R3, R4, cand, ingest
from shapes import assert_shape
from system_panel import system_call

pytestmark = pytest.mark.db


def listed(app):
    return {p["rule_text"]: p for p in principle_review.list_principles(app)["principles"]}


def test_every_branch_of_the_rule_dropped_quotes_and_search(app, tmp_path, panel):
    script, _ = panel
    ingest(app, tmp_path, "ruling-1", RULING)
    script.answers = {
        "a": [cand(R1[0], Q1, 0.9), cand(R2[0], Q2, 0.9), cand(R3[0], Q3, 0.6)],
        "b": [cand(R1[1], Q1, 0.8), cand(R2[1], Q2, 0.88), cand(R4, Q4, 0.99)],
        "c": [cand(R1[0], Q1, 0.7), cand(R3[1], Q3, 0.5), cand(R4, "משפט שאינו בפסק הדין כלל", 1)],
    }
    report = principles.extract(app, doc_id="ruling-1")
    assert report == {
        "failed": [],
        "candidates": 4,
        "approved": 2,
        "pending_review": 1,
        "rejected": 1,
        "linked": 0,
        "capped": 0,
        "dropped_quotes": 1,
        "ungrounded": 0,
    }
    rows = listed(app)
    assert {r["votes"] for r in rows.values()} == {3, 2, 1}
    three = next(r for r in rows.values() if r["votes"] == 3)
    assert three["review_status"] == "approved" and three["score"] == pytest.approx(0.8)
    # The panel's approval is "הצעת הפאנל" until the chair confirms it (issue 37 item 10).
    assert three["term"] == "הצעת הפאנל" and three["term_once_confirmed"] == "הלכה"
    assert three["unconfirmed"] is True and three["supporting_quote"] == Q1
    two_high = next(r for r in rows.values() if r["votes"] == 2 and r["score"] >= 0.85)
    two_low = next(r for r in rows.values() if r["votes"] == 2 and r["score"] < 0.85)
    one = next(r for r in rows.values() if r["votes"] == 1)
    assert two_high["review_status"] == "approved" and two_high["reviewed_by"] == "panel"
    assert two_low["review_status"] == "pending_review" and two_low["reviewed_by"] is None
    assert one["review_status"] == "rejected" and one["reviewed_by"] == "panel"
    with app.store.connection() as conn:
        calls = conn.execute(
            "SELECT count(*) AS n FROM model_calls WHERE stage = 'principle_panel'"
        ).fetchone()["n"]
    assert calls == 3
    # Approved ones are search hits with their term and verbatim quote; nothing else is.
    hits = app.tool("search_precedent_library", query="סטייה ניכרת הקלה")["hits"]
    found = [h for h in hits if h["kind"] == "principle"]
    assert found and all(h["term"] == "הצעת הפאנל" and h["unconfirmed"] for h in found)
    assert all(h["term_once_confirmed"] == "הלכה" for h in found)
    texts = json.dumps(found, ensure_ascii=False)
    assert Q1 in texts and R4 not in texts and two_low["rule_text"] not in texts

    # Twice: nothing new.
    again = principles.extract(app, doc_id="ruling-1")
    assert (again["approved"], again["pending_review"], again["rejected"], again["linked"]) == (
        0,
        0,
        0,
        0,
    )
    assert len(listed(app)) == 4


def test_cap_and_linking_and_isolation(app, tmp_path, panel):
    script, _ = panel
    rules = [
        "סטייה ניכרת מתכנית אינה ניתנת לאישור בדרך של הקלה",
        "על הוועדה המקומית לנמק את החלטתה בכתב",
        "זכות הטיעון של המתנגד היא זכות יסוד בהליך התכנוני",
        "היטל השבחה מחושב לפי ההפרש בשווי המקרקעין",
        "פיצויים לפי סעיף 197 משולמים בגין פגיעה במקרקעין",
        "ועדת הערר רשאית לדון בערר מחדש מבראשית",
        "הקלה בקווי בניין מותרת כאשר אין פגיעה בשכנים",
    ]
    text = ". ".join(rules) + "."
    ingest(app, tmp_path, "ruling-1", text)
    every = [cand(rule, rule, 0.9 - i * 0.01) for i, rule in enumerate(rules)]
    script.answers = {"a": every, "b": every, "c": every}
    report = principles.extract(app, doc_id="ruling-1")
    assert (report["approved"], report["capped"]) == (5, 2)
    assert rules[5] not in listed(app) and rules[6] not in listed(app)  # lowest scores capped

    # A second ruling restating R1 (a paraphrase): linked to the same canonical, not capped.
    ingest(app, tmp_path, "ruling-2", f"נפסק כי {R1[1]}.")
    script.answers = {m: [cand(R1[1], R1[1], 0.95)] for m in "abc"}
    linked = principles.extract(app, doc_id="ruling-2")
    assert (linked["linked"], linked["approved"], linked["capped"]) == (1, 0, 0)
    rows = listed(app)
    assert rows[R1[1]]["occurrences"] == 2 and rows[rules[0]]["occurrences"] == 2

    # The same rule in an internal decision is never linked to the external canonical.
    ingest(app, tmp_path, "decision-1", f"נפסק כי {R1[1]}.", corpus="internal")
    inner = principles.extract(app, corpus="internal")
    assert (inner["linked"], inner["approved"]) == (0, 1)
    inner_row = next(
        p
        for p in principle_review.list_principles(app)["principles"]
        if p["doc_id"] == "decision-1"
    )
    assert inner_row["term_once_confirmed"] == "כלל פרשני" and inner_row["occurrences"] == 1
    with app.store.connection() as conn:
        external = conn.execute(
            "SELECT canonical_id FROM case_law_principles WHERE source_kind ="
            " 'external_upload' AND canonical_id IS NOT NULL LIMIT 1"
        ).fetchone()["canonical_id"]
    with pytest.raises(psycopg.errors.ForeignKeyViolation):
        with app.store.transaction() as conn:
            conn.execute(
                "UPDATE case_law_principles SET canonical_id = %s WHERE id = %s",
                (external, inner_row["id"]),
            )


def test_the_database_decides_by_the_recorded_votes_never_the_row(app, tmp_path, panel):
    """The panel's rule holds in the database on the votes it counts from principle_votes, each
    tied to an extraction call the worker made; the row's own votes and score are ignored."""
    ingest(app, tmp_path, "ruling-1", RULING)
    engine = app.acting_as(system_principal("principle-panel"))
    with app.store.connection() as conn:
        ruling = conn.execute("SELECT id FROM case_law WHERE doc_id = 'ruling-1'").fetchone()["id"]
    insert = (
        "INSERT INTO case_law_principles (source_kind, case_law_id, rule_text,"
        " supporting_quote, review_status, reviewed_by, votes, score, text_hash, analyzed,"
        " analyzer) VALUES ('external_upload', %s, 'כלל', %s, %s, %s, %s, %s, 'h',"
        " 'a', 'simple') RETURNING id, votes, score"
    )
    for status in ("approved", "rejected", "proposed"):  # the panel never inserts a decision
        with pytest.raises(psycopg.errors.CheckViolation, match="panel"):
            with engine.store.transaction() as conn:
                conn.execute(insert, (ruling, Q1, status, "panel", 3, 1.0))
    calls = {m: system_call(app, "principle_panel", f"openai:{m}") for m in "abc"}
    other = system_call(app, "panel", "openai:a")  # a call of another stage

    def proposed(votes: dict[str, float | None]) -> int:
        with engine.store.transaction() as conn:
            row = conn.execute(insert, (ruling, Q1, "proposed", None, 3, 1.0)).fetchone()
            assert (row["votes"], row["score"]) == (None, None)  # never the writer's claim
            for model, score in votes.items():
                conn.execute(
                    "INSERT INTO principle_votes (principle_id, source_kind, model,"
                    " model_call_id, voted, score) VALUES (%s, 'external_upload', %s,"
                    " %s, %s, %s)",
                    (row["id"], f"openai:{model}", calls[model], score is not None, score),
                )
        return row["id"]

    def decide(principle_id: int, status: str):
        with engine.store.transaction() as conn:
            return conn.execute(
                "UPDATE case_law_principles SET review_status = %s, reviewed_by"
                " = 'panel', votes = 3, score = 1 WHERE id = %s RETURNING votes,"
                " score",
                (status, principle_id),
            ).fetchone()

    low = proposed({"a": 0.9, "b": 0.1, "c": None})  # 2 votes, mean 0.5
    with pytest.raises(psycopg.errors.CheckViolation, match="rule gives proposed"):
        decide(low, "approved")
    two = proposed({"a": 0.85, "b": 0.85, "c": None})
    with pytest.raises(psycopg.errors.CheckViolation, match="rule gives approved"):
        decide(two, "rejected")
    assert decide(two, "approved") == {"votes": 2, "score": 0.85}  # counted, not the row's 3/1
    one = proposed({"a": 0.99, "b": None})  # two of the three models only
    with pytest.raises(psycopg.errors.CheckViolation, match="three models"):
        decide(one, "rejected")
    with pytest.raises(psycopg.errors.CheckViolation, match="extraction call"):
        with engine.store.transaction() as conn:  # a vote on a call of another stage
            conn.execute(
                "INSERT INTO principle_votes (principle_id, source_kind, model,"
                " model_call_id, voted, score) VALUES (%s, 'external_upload',"
                " 'openai:c', %s, true, 1)",
                (one, other),
            )


def test_fewer_than_three_models_refused(app, tmp_path, panel, monkeypatch):
    _, value = panel
    ingest(app, tmp_path, "ruling-1", RULING)
    two = ",".join(value.split(",")[:2])
    monkeypatch.setattr(app, "settings", app.settings.model_copy(update={"principle_panel": two}))
    with pytest.raises(InvalidInput, match="LEGAL_AI_PRINCIPLE_PANEL"):
        principles.extract(app, doc_id="ruling-1")
    monkeypatch.setattr(app, "settings", app.settings.model_copy(update={"principle_panel": None}))
    with pytest.raises(InvalidInput, match="LEGAL_AI_PRINCIPLE_PANEL"):
        principles.extract(app, all=True)


def test_the_counts_named_once_are_the_reports_keys():
    """The extraction's counts as its Literal names them are the keys of its report's type."""
    assert set(principles.COUNTS) == set(principles.Counts.__annotations__)
    assert principles.counts() == dict.fromkeys(principles.COUNTS, 0)


def test_cli_extract_and_list_json(app, tmp_path, panel, cli_env):
    script, value = panel
    ingest(app, tmp_path, "ruling-1", RULING)
    script.answers = {m: [cand(R1[0], Q1, 0.9)] for m in "abc"}
    env = {**cli_env, "LEGAL_AI_PRINCIPLE_PANEL": value, "LEGAL_AI_MODEL_RETRIES": "0"}
    out = run(env, "principles", "extract", "--doc-id", "ruling-1", "--json")
    assert json.loads(out.stdout) == {
        "failed": [],
        "candidates": 1,
        "approved": 1,
        "pending_review": 0,
        "rejected": 0,
        "linked": 0,
        "capped": 0,
        "dropped_quotes": 0,
        "ungrounded": 0,
    }
    shown = json.loads(run(env, "principles", "list", "--status", "approved", "--json").stdout)
    assert_shape(json.loads(out.stdout), principles.ExtractReport)
    assert_shape(shown, principle_review.PrincipleList)
    [row] = shown["principles"]
    assert {
        k: row[k]
        for k in (
            "term",
            "rule_text",
            "supporting_quote",
            "votes",
            "score",
            "review_status",
            "occurrences",
        )
    } == {
        "term": "הצעת הפאנל",
        "rule_text": R1[0],
        "supporting_quote": Q1,
        "votes": 3,
        "score": 0.9,
        "review_status": "approved",
        "occurrences": 1,
    }
    assert "page" in row and "id" in row


def test_a_rejected_principle_never_links_nor_seeds_a_canonical(app, tmp_path, panel):
    """Issue 21 item 5: a new principle links only to a live one (approved or awaiting her);
    the wording she rejected, drawn again from its own ruling, does not come back."""
    from legal_ai.auth import CHAIR

    script, _ = panel
    ingest(app, tmp_path, "ruling-1", f"נפסק כי {R1[1]}.")
    script.answers = {m: [cand(R1[1], R1[1], 0.95)] for m in "abc"}
    assert principles.extract(app, doc_id="ruling-1")["approved"] == 1
    first = listed(app)[R1[1]]
    app.acting_as(CHAIR).review_principle(first["id"], "reject", "not what the ruling holds")

    # A second ruling restating it: a principle of its own, not an occurrence of the rejected.
    ingest(app, tmp_path, "ruling-2", f"עוד נפסק כי {R1[1]}.")
    second = principles.extract(app, doc_id="ruling-2")
    assert (second["linked"], second["approved"]) == (0, 1)
    with app.store.connection() as conn:
        rows = conn.execute(
            "SELECT p.review_status, p.canonical_id, c.doc_id FROM case_law_principles p"
            " JOIN case_law c ON c.id = p.case_law_id ORDER BY p.id"
        ).fetchall()
    assert [(r["doc_id"], r["review_status"]) for r in rows] == [
        ("ruling-1", "rejected"),
        ("ruling-2", "approved"),
    ]
    assert rows[1]["canonical_id"] is None or rows[1]["canonical_id"] != rows[0]["canonical_id"]

    # The rejected wording drawn again from its own ruling: nothing new.
    again = principles.extract(app, doc_id="ruling-1")
    assert (again["approved"], again["pending_review"], again["linked"]) == (0, 0, 0)
