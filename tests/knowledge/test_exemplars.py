"""Block exemplars and templates (issue 14 items 1-2) on the project's fictional finals: her
paragraphs kept per block with their provenance, served from other cases only; templates found
by measurement for the formulaic blocks, none for the discussion, none from one final."""

import json

import psycopg
import pytest
from fastapi.testclient import TestClient

import factories
from helpers import health_of, write
from helpers import run as run_cli
from legal_ai.errors import InvalidInput
from legal_ai.knowledge import exemplars, paragraphs, templates
from legal_ai.learning.pairs import finals
from legal_ai.text.blocks import BLOCKS
from legal_ai.web.app import create_app
from shapes import assert_shape

pytestmark = pytest.mark.db

# A fifth fictional final: another permit appeal, so a permit case has another final to learn
# from (the four fixtures are of four appeal types). Invented like the rest.
OTHER_PERMIT = "ערר (מרכז) 7031/25"


def other_permit_final() -> str:
    text = factories.records()[0]["final_text"]
    for old, new in (
        ("7001/25", "7031/25"),
        ("20 באפריל 2025", "2 ביוני 2025"),
        ("ביום 10.3.2025", "ביום 4.5.2025"),
        ("על הוועדה לשקול את הפגיעה בשכנים", "מקומות החניה שבמגרש אינם מספיקים לדירה הנוספת"),
        ("הפגיעה כאן ניתנת לצמצום.", "החניה ברחוב מלאה כבר בשעות הערב."),
    ):
        assert old in text
        text = text.replace(old, new)
    return text


def upload(app, tmp_path, record: dict, text: str | None = None) -> dict:
    path = write(
        tmp_path / f"{factories.slug(record['case_number'])}.txt", text or record["final_text"]
    )
    return finals.upload_final(
        app,
        record["case_number"],
        path,
        practice_area=record["practice_area"],
        decided_on=record["decided_on"],
        appeal_type=record["appeal_type"],
        outcome=record["outcome"],
    )


def stored_templates(app) -> list[dict]:
    with app.store.connection() as conn:
        return conn.execute("SELECT block, text, support FROM block_templates").fetchall()


def test_paragraphs_keep_exact_offsets():
    """Pure text: every block's paragraphs, their spans index the final as stored (CRLF too)."""
    from legal_ai.store.migrations import available

    seed = next(m for m in available() if m.version == 7).sql
    spec = json.loads(seed.split("$json$")[1])["blocks"]
    text = factories.records()[1]["final_text"].replace("\n", "\r\n")
    found = paragraphs.split(text, spec)
    assert {p.block for p in found} == set(BLOCKS)
    assert all(text[p.char_start : p.char_end] == p.text for p in found)
    discussion = [p for p in found if p.block == "discussion"]
    assert [p.ordinal for p in discussion] == [0, 1, 2, 3, 4]
    assert discussion[0].text.startswith("10. לאחר שעיינו")


def test_slots_mark_dates_case_numbers_numbers_and_names():
    keys = [
        t.key
        for t in templates.tokens(
            "8. ביום 12.5.2025 שמענו את הצדדים (עע\"מ 9230/22 אלמונית נ' הוועדה המקומית עמק הדר)"
            " בתוך 45 ימים, ניתנה היום, 3 ביוני 2025, העוררת: ג' פרידמן"
        )
    ]
    assert keys[:6] == ["ביום", "{date}", "שמענו", "את", "הצדדים", "{case_number}"]
    assert keys[6] == "{name}" and "{number}" in keys and keys.count("{date}") == 2
    assert keys[-1] == "{name}" and "8" not in keys


def test_templates_measured_on_her_finals(app, tmp_path):
    recs = factories.records()
    upload(app, tmp_path, recs[0])
    # One final: nothing recurs across finals, so no template is invented.
    assert stored_templates(app) == []
    one = templates.get_templates(app)
    assert one["templates"] == [] and "none is invented" in one["note"]
    for record in recs[1:]:
        upload(app, tmp_path, record)
    # Measured in the uploads' transactions: stored before anyone asked.
    assert stored_templates(app)
    found = templates.get_templates(app)
    assert_shape(found, templates.Templates)
    by_block: dict[str, list[dict]] = {}
    for t in found["templates"]:
        by_block.setdefault(t["block"], []).append(t)
        assert t["support"] >= 2 and len(t["examples"]) == t["support"]
        assert all(s["case_number"] in t["examples"] for s in t["sources"])
    assert {"header", "opening", "hearing", "conclusion", "signature"} <= set(by_block)
    assert "discussion" not in by_block
    # The discussion's opening sentence recurs (measured) but analysis is never a template.
    assert found["block_shares"]["discussion"] > 0
    texts = {t["text"]: t for t in found["templates"]}
    hearing = texts["ביום {date} שמענו את הצדדים {text}"]
    assert hearing["support"] == 4 and hearing["slots"] == ["date", "text"]
    signature = by_block["signature"][0]
    assert (
        signature["text"].startswith("ניתנה היום, {date}.\nרותם לוי") and signature["support"] == 4
    )
    assert texts["אין צו להוצאות."]["support"] == 4
    assert texts["נקדים אחרית לראשית: דין הערר {text}"]["examples"] == [
        recs[0]["case_number"],
        recs[1]["case_number"],
        recs[2]["case_number"],
    ]
    header = [t for t in by_block["header"] if "{case_number}" in t["text"]]
    assert header and header[0]["text"].startswith("ועדת הערר לתכנון ובנייה – מחוז מרכז")
    # A template's source span is its text in the final, slots filled in.
    with app.store.connection() as conn:
        source = hearing["sources"][0]
        content = conn.execute(
            "SELECT content FROM documents WHERE id = %s", (source["document_id"],)
        ).fetchone()["content"]
    assert content[source["char_start"] : source["char_end"]].startswith("ביום 10.3.2025 שמענו")

    discussion = templates.get_templates(app, block="discussion")
    assert discussion["templates"] == [] and "never copies" in discussion["note"]
    levy = templates.get_templates(app, appeal_type="betterment_levy")["templates"]
    assert levy and all("betterment_levy" in t["appeal_types"] for t in levy)
    assert all(recs[2]["case_number"] in t["examples"] for t in levy)
    none = templates.get_templates(app, appeal_type="procedural")
    assert none["templates"] == [] and "no final of appeal type procedural" in none["note"]
    with pytest.raises(InvalidInput, match="unknown block 'summary'; choose one of: header"):
        templates.get_templates(app, block="summary")

    # The database refuses a template of one final, and a paragraph that is not its span.
    with app.store.transaction() as conn, pytest.raises(psycopg.errors.CheckViolation):
        conn.execute(
            "INSERT INTO block_templates (block, text, support, words, examples, "
            "sources) VALUES ('opening', 'x y z', 1, 3, '[]', '[]')"
        )
    with app.store.transaction() as conn, pytest.raises(psycopg.errors.CheckViolation):
        row = conn.execute("SELECT * FROM block_exemplars LIMIT 1").fetchone()
        conn.execute("UPDATE block_exemplars SET text = 'לא כך' WHERE id = %s", (row["id"],))


def test_exemplars_from_other_cases_only(app, tmp_path):
    recs = factories.records()
    permit, other = recs[0], {**recs[0], "case_number": OTHER_PERMIT, "decided_on": "2025-06-02"}
    upload(app, tmp_path, permit)
    upload(app, tmp_path, other, other_permit_final())
    upload(app, tmp_path, recs[3])  # a plan appeal: another appeal type
    with app.store.connection() as conn:
        rows = conn.execute(
            "SELECT e.*, d.content FROM block_exemplars e JOIN documents d ON d.id = e.document_id"
            " WHERE e.case_number = %s ORDER BY e.block, e.ordinal",
            (permit["case_number"],),
        ).fetchall()
    assert {r["block"] for r in rows} == set(BLOCKS)
    assert all(r["content"][r["char_start"] : r["char_end"]] == r["text"] for r in rows)
    assert all(
        r["appeal_type"] == "permit"
        and r["outcome"] == "partially_accepted"
        and r["practice_area"] == "planning"
        and str(r["decided_on"]) == "2025-04-20"
        and r["embedding"] is not None
        for r in rows
    )

    # Writing 7001: only the other permit final's paragraphs, with provenance.
    found = exemplars.get_block_exemplars(
        app,
        "discussion",
        "permit",
        case=permit["case_number"],
        query="חניה ברחוב",
        limit=5,
    )
    assert found["query_from"] == "query" and found["exemplars"]
    assert_shape(found, exemplars.Exemplars)
    assert {e["case_number"] for e in found["exemplars"]} == {OTHER_PERMIT}
    assert len(found["exemplars"]) == 1  # one paragraph per final
    best = found["exemplars"][0]
    assert "החניה ברחוב" in best["text"] and best["block"] == "discussion"
    assert set(best) >= {
        "case_number",
        "block",
        "text",
        "doc_id",
        "char_start",
        "char_end",
        "score",
    }
    two = exemplars.get_block_exemplars(
        app, "discussion", "permit", query="חניה", limit=5, per_final=2
    )
    per_case = [e["case_number"] for e in two["exemplars"]]
    assert set(per_case) == {permit["case_number"], OTHER_PERMIT}
    assert max(per_case.count(c) for c in set(per_case)) == 2
    assert all(e["appeal_type"] == "permit" for e in two["exemplars"])

    # No query: the case's own documents make it; without them, her typical paragraphs.
    notice = write(tmp_path / "notice.txt", "כתב ערר: העוררים טוענים כי אין די מקומות חניה.")
    app.ingest(
        [notice], "case", meta={"case_number": permit["case_number"], "practice_area": "planning"}
    )
    by_case = exemplars.get_block_exemplars(app, "hearing", "permit", case=permit["case_number"])
    assert by_case["query_from"] == "case"
    assert [e["case_number"] for e in by_case["exemplars"]] == [OTHER_PERMIT]
    typical = exemplars.get_block_exemplars(app, "opening", "permit")
    assert typical["query_from"] == "block" and len(typical["exemplars"]) == 2

    # Relaxed filters say so; an appeal type without finals (but the case) says so.
    relaxed = exemplars.get_block_exemplars(
        app, "conclusion", "permit", outcome="rejected", case=permit["case_number"]
    )
    assert relaxed["relaxed"] == ["outcome"] and "outcome rejected" in relaxed["note"]
    for answer in (two, by_case, typical, relaxed):
        assert_shape(answer, exemplars.Exemplars)
    assert [e["case_number"] for e in relaxed["exemplars"]] == [OTHER_PERMIT]
    plan = exemplars.get_block_exemplars(app, "discussion", "plan", case=recs[3]["case_number"])
    assert plan["exemplars"] == [] and "no final of appeal type plan other than" in plan["note"]
    empty = exemplars.get_block_exemplars(app, "discussion", "compensation_197", query="x")
    assert empty["exemplars"] == [] and "compensation_197" in empty["note"]
    assert_shape(plan, exemplars.Exemplars)
    assert_shape(empty, exemplars.Exemplars)
    with pytest.raises(
        InvalidInput, match="unknown block 'reasoning'; choose one of: header, opening, background"
    ):
        exemplars.get_block_exemplars(app, "reasoning", "permit")
    with pytest.raises(InvalidInput, match="appeal type"):
        exemplars.get_block_exemplars(app, "discussion", "zoning")

    # The case's appeal type changes: its paragraphs follow (the database keeps them).
    with app.store.transaction() as conn:
        conn.execute(
            "UPDATE cases SET appeal_type = 'plan' WHERE case_number = %s", (OTHER_PERMIT,)
        )
    moved = exemplars.get_block_exemplars(app, "discussion", "plan", query="חניה")
    assert OTHER_PERMIT in {e["case_number"] for e in moved["exemplars"]}

    # Over HTTP and the command line, the same answers.
    settings = app.settings.model_copy(update={"agent_token": "writer=tok-ex"})
    with TestClient(create_app(settings, legal=app)) as client:
        headers = {"Authorization": "Bearer tok-ex"}
        answer = client.get(
            "/api/exemplars/discussion",
            headers=headers,
            params={"appeal_type": "plan", "case": recs[3]["case_number"], "query": "חניה"},
        )
        assert answer.status_code == 200, answer.text
        assert_shape(answer.json(), exemplars.Exemplars)
        assert [e["case_number"] for e in answer.json()["exemplars"]] == [OTHER_PERMIT]
        bad = client.get("/api/exemplars/nope", headers=headers, params={"appeal_type": "plan"})
        assert bad.status_code == 400 and "choose one of" in bad.text
        listed = client.get("/api/templates", headers=headers, params={"block": "signature"})
        assert listed.status_code == 200 and listed.json()["templates"][0]["support"] == 3
        assert_shape(listed.json(), templates.Templates)


def test_command_line(app, tmp_path, cli_env):
    recs = factories.records()
    for record in recs[:2]:
        upload(app, tmp_path, record)

    def run(*args):
        return run_cli(cli_env, *args, check=False)

    listed = run("templates", "--block", "signature", "--json")
    assert listed.returncode == 0, listed.stderr
    assert_shape(json.loads(listed.stdout), templates.Templates)
    signature = json.loads(listed.stdout)["templates"]
    assert [t["examples"] for t in signature] == [[recs[0]["case_number"], recs[1]["case_number"]]]
    assert set(signature[0]) >= {"block", "text", "slots", "support", "examples"}
    bad = run("exemplars", "summary", "--appeal-type", "permit", "--json")
    assert bad.returncode == 2 and "unknown block 'summary'; choose one of" in bad.stderr
    found = run(
        "exemplars",
        "opening",
        "--appeal-type",
        "change_of_use",
        "--case",
        recs[0]["case_number"],
        "--query",
        "שימוש חורג",
        "--limit",
        "3",
        "--json",
    )
    assert found.returncode == 0, found.stderr
    payload = json.loads(found.stdout)
    assert_shape(payload, exemplars.Exemplars)
    assert [e["case_number"] for e in payload["exemplars"]] == [recs[1]["case_number"]]
    assert "שימוש חורג" in payload["exemplars"][0]["text"]
    refreshed = run("exemplars", "--refresh", "--json")
    assert refreshed.returncode == 0, refreshed.stderr
    assert json.loads(refreshed.stdout)["finals_cut"] == 0  # both were cut on upload


def test_style_ingest_refresh_and_delete(app, tmp_path):
    """Finals ingested into the style corpus (not uploaded) are cut too, the templates measured
    once after each batch; `refresh` cuts finals stored before migration 0018 (simulated: their
    paragraphs deleted; the nightly upkeep runs it) but not a style document that is no
    decision; a deleted final takes its
    paragraphs, and the next read measures the templates again."""
    recs = factories.records()[1:3]
    for record in recs:
        path = write(
            tmp_path / f"{factories.slug(record['case_number'])}.txt", record["final_text"]
        )
        meta = {
            "case_number": record["case_number"],
            "practice_area": record["practice_area"],
            "appeal_type": record["appeal_type"],
        }
        assert app.ingest([path], "style", meta=meta).ingested == 1
    note = write(tmp_path / "note.txt", "מכתב קצר ללא כותרות של החלטה.")
    app.ingest([note], "style", meta={"case_number": "ערר 1/25", "practice_area": "planning"})
    signature = [t for t in stored_templates(app) if t["block"] == "signature"]
    assert [t["support"] for t in signature] == [2]
    with app.store.transaction() as conn:
        types = conn.execute("SELECT DISTINCT appeal_type FROM block_exemplars ORDER BY 1")
        # From the metadata: no case row gives one.
        assert [r["appeal_type"] for r in types] == ["betterment_levy", "change_of_use"]
        written = conn.execute("SELECT count(*) AS n FROM block_exemplars").fetchone()["n"]
        conn.execute("DELETE FROM block_exemplars")
    # The nightly upkeep cuts them (as `legal-ai exemplars --refresh` does).
    import datetime as dt

    from legal_ai.ops.tasks import nightly_upkeep

    upkeep = nightly_upkeep(app, dt.datetime(2026, 5, 3, 2, 30, tzinfo=dt.UTC))
    result = upkeep["steps"]["exemplars"]
    assert "2 final(s) cut into block exemplars" in upkeep["summary"]
    assert result["finals_cut"] == 2 and result["paragraphs"] == written
    assert [d.rsplit("/", 1)[-1] for d in result["not_decisions"]] == ["note.txt"]
    with app.store.connection() as conn:
        missing = "SELECT count(*) AS n FROM block_exemplars WHERE embedding IS NULL"
        assert conn.execute(missing).fetchone()["n"] == 0
    assert exemplars.refresh(app)["finals_cut"] == 0
    with app.store.transaction() as conn:
        conn.execute(
            "DELETE FROM documents WHERE corpus = 'style' AND case_number = %s",
            (recs[0]["case_number"],),
        )
        left = "SELECT DISTINCT case_number FROM block_exemplars"
        assert [r["case_number"] for r in conn.execute(left)] == [recs[1]["case_number"]]
    after = templates.get_templates(app)
    assert after["templates"] == [] and after["finals"] == 1


def test_paragraphs_changed_in_sql_are_seen_and_reindex_cuts_them_again(app, tmp_path):
    """Her finals' paragraphs carry their text's hash and their span in the final: one edited
    past its trigger, one deleted in SQL, each is reported by health with the final's case
    number, and `reindex` cuts the final again (same paragraphs as before, health clean)."""
    record = factories.records()[0]
    upload(app, tmp_path, record)
    assert health_of(app)["exemplars_changed"] == {"count": 0, "items": []}
    every = "SELECT block, ordinal, char_start, char_end, text FROM block_exemplars ORDER BY 1, 2"
    with app.store.connection() as conn:
        before = conn.execute(every).fetchall()
        first, second = conn.execute(
            "SELECT id, block FROM block_exemplars e WHERE ordinal = 1 AND EXISTS (SELECT 1"
            " FROM block_exemplars n WHERE n.block = e.block AND n.ordinal = 2) ORDER BY id LIMIT 2"
        ).fetchall()  # a middle paragraph: one deleted from a block's end leaves no gap
    with app.store.transaction() as conn:
        conn.execute("SET LOCAL session_replication_role = replica")  # past the span trigger
        conn.execute(
            "UPDATE block_exemplars SET text = text || ' ועוד' WHERE id = %s", (first["id"],)
        )
        conn.execute("DELETE FROM block_exemplars WHERE id = %s", (second["id"],))
    [changed] = health_of(app)["exemplars_changed"]["items"]
    assert changed["case_number"] == record["case_number"]
    assert changed["edited"] == [first["id"]] and changed["gaps"] == [second["block"]]
    assert "run `legal-ai reindex`" in changed["reason"]
    done = app.reindex()
    assert len(done["exemplars_recut"]) == 1
    with app.store.connection() as conn:
        assert conn.execute(every).fetchall() == before
        assert (
            conn.execute(
                "SELECT count(*) AS n FROM block_exemplars WHERE embedding IS NULL"
            ).fetchone()["n"]
            == 0
        )
    assert health_of(app)["exemplars_changed"]["count"] == 0
