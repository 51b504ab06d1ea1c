"""Completeness as the specification states it (issue 21 item 6), against a real PostgreSQL: an
internal decision ingested without its headnote is not searchable and awaits metadata (the ingest
report and `health` say what to set); given with `--meta` (or JSONL fields) it is searchable at
once. A searchable item has every chunk's span resolving in its stored text: a chunk's text or
the stored text edited in SQL makes it unsearchable, `health` names it (hash/span check) and
`reindex` repairs it."""

from __future__ import annotations

import json

import pytest

from helpers import DECISION_FIELDS, health_of, run, write

pytestmark = pytest.mark.db

META = {
    "case_number": "ערר (מרכז) 2210/24",
    "decided_on": "2024-06-01",
    "practice_area": "planning",
    "title": "ערר על סירוב להקלה",
}
# Long enough for several chunks, so that one broken chunk among resolving ones is tested.
SENTENCES = [
    f"בפסקה {n} דנה הוועדה בבקשה להקלה בקו בניין צדדי ובפגיעה בפרטיות השכנים הסמוכים למגרש."
    for n in range(1, 60)
]
TEXT = "\n".join(SENTENCES)


def status(app, doc_id: str) -> dict:
    with app.store.connection() as conn:
        return conn.execute(
            "SELECT id, searchable, missing, content FROM case_law WHERE doc_id = %s", (doc_id,)
        ).fetchone()


def test_an_internal_decision_without_its_headnote_awaits_metadata(app, tmp_path, cli_env):
    path = write(tmp_path / "decision.txt", TEXT)
    fields = {k: v for k, v in DECISION_FIELDS.items() if k != "headnote"}
    report = app.ingest([path], "internal", meta={**META, **fields}, doc_id="d-2210")
    [entry] = report.unsearchable
    assert entry["missing"] == ["headnote"] and "--meta headnote=…" in entry["set"]
    assert "LEGAL_AI_ENRICHER" in entry["set"] and report.resolved["enrichment_queued"] == 1
    assert app.search("internal", "הקלה בקו בניין צדדי").hits == []
    [waiting] = health_of(app)["awaiting_metadata"]["items"]
    assert waiting["doc_id"] == "d-2210" and waiting["missing"] == ["headnote"]
    assert waiting["state"].startswith("queued") and "/training/metadata" in waiting["set"]
    out = run(cli_env, "health").stdout
    assert "awaiting_metadata: 1" in out and "to set: give its headnote" in out

    # Given with --meta, searchable at once (the same text: a metadata-only update).
    done = json.loads(
        run(
            cli_env,
            "ingest",
            str(path),
            "--corpus",
            "internal",
            "--doc-id",
            "d-2210",
            *(f"--meta={k}={v}" for k, v in {**META, **DECISION_FIELDS}.items()),
            "--json",
        ).stdout
    )
    assert (done["updated"], done["unsearchable"]) == (1, [])
    assert status(app, "d-2210")["searchable"]
    assert app.search("internal", "הקלה בקו בניין צדדי").hits
    assert health_of(app)["awaiting_metadata"]["count"] == 0

    # JSONL fields do the same; tags given empty are missing, as a blank headnote is.
    record = {**META, **DECISION_FIELDS, "doc_id": "d-2211", "text": TEXT + "\nסוף."}
    lines = write(tmp_path / "decisions.jsonl", json.dumps(record, ensure_ascii=False))
    assert app.ingest([lines], "internal").unsearchable == []
    empty = {**record, "doc_id": "d-2212", "tags": [], "text": TEXT + "\nסוף אחר."}
    lines = write(tmp_path / "empty.jsonl", json.dumps(empty, ensure_ascii=False))
    assert app.ingest([lines], "internal").unsearchable[0]["missing"] == ["tags"]


def test_a_chunk_edited_in_sql_is_found_by_health_and_repaired_by_reindex(app, tmp_path):
    path = write(tmp_path / "decision.txt", TEXT)
    app.ingest([path], "internal", meta={**META, **DECISION_FIELDS}, doc_id="d-2210")
    item = status(app, "d-2210")
    assert item["searchable"]
    with app.store.transaction() as conn:
        count = conn.execute(
            "SELECT count(*) AS n FROM case_law_chunks WHERE case_law_id = %s", (item["id"],)
        ).fetchone()["n"]
        assert count > 2
        # One chunk of several: its text changed, its hashes made to agree (as a careless fix
        # in SQL would): the span no longer reads it.
        conn.execute(
            "UPDATE case_law_chunks SET text = replace(text, 'הקלה', 'הריסה')"
            " WHERE case_law_id = %s AND ordinal = 1",
            (item["id"],),
        )
    assert not status(app, "d-2210")["searchable"]  # every chunk must resolve, not one
    [changed] = health_of(app)["changed_outside_ingest"]["items"]
    assert (changed["doc_id"], changed["text_changed"], changed["chunks"]) == ("d-2210", False, [1])
    assert "legal-ai reindex" in changed["reason"]

    [repaired] = app.reindex()["repaired"]
    assert repaired["repaired"] and not repaired["text_restored"]
    assert status(app, "d-2210")["searchable"]
    assert health_of(app)["changed_outside_ingest"]["count"] == 0
    assert app.search("internal", "הקלה בקו בניין צדדי").hits


def test_a_stored_text_edited_in_sql_is_restored_by_reindex(app, tmp_path):
    path = write(tmp_path / "decision.txt", TEXT)
    app.ingest([path], "internal", meta={**META, **DECISION_FIELDS}, doc_id="d-2210")
    original = status(app, "d-2210")["content"]
    with app.store.transaction() as conn:
        conn.execute(
            "UPDATE case_law SET content = replace(content, 'השכנים', 'השכנות')"
            " WHERE doc_id = 'd-2210'"
        )
    assert not status(app, "d-2210")["searchable"]
    [changed] = health_of(app)["changed_outside_ingest"]["items"]
    assert changed["text_changed"] and "its stored text" in changed["reason"]
    [repaired] = app.reindex()["repaired"]
    assert repaired["repaired"] and repaired["text_restored"]
    after = status(app, "d-2210")
    assert after["content"] == original and after["searchable"]
    assert health_of(app)["changed_outside_ingest"]["count"] == 0
