"""One brief (issue 14 item 6): `writing_brief(app, appeal_type, outcome, case)` gathers channel A
(the methodology: ratios, rules, the voice she adopted), B (block exemplars, templates,
contrastive pairs), C (approved voice documents) and the approved lessons, every part and item
with its provenance, never a paragraph, pair or document of the case being written, within a
size budget cut in the stated order (what was cut reported); a channel-B module that is not
there, or an appeal type with no finals yet, is a note, not an error. The project's four
fictional pairs are uploaded as finals of one appeal type (permit) so that each case has others
to learn from."""

import asyncio
import json

import pytest
from fastapi.testclient import TestClient

import factories
from helpers import ROOT, mcp_session, payload, run
from legal_ai.auth import CHAIR
from legal_ai.errors import InvalidInput
from legal_ai.knowledge import brief, voice, voice_review
from legal_ai.learning.lessons import lessons
from legal_ai.web.app import create_app
from scenarios import blocks_of, claims, permit_world
from shapes import assert_shape

pytestmark = pytest.mark.db

CASE = "ערר (מרכז) 7001/25"  # the case being written (its final is in the corpus too)
EXEMPLAR_OF = "ערר (מרכז) 7014/25"  # the case whose voice document the chair approves
A_KEYS = (
    "methodology_versions",
    "block_order",
    "golden_ratios",
    "golden_ratios_from",
    "discussion_rules",
    "transition_phrases",
    "anti_patterns",
    "voice_invariants",
    "content_checklist",
    "folded_lessons",
    "lessons",
)


@pytest.fixture
def approved_voice(app, voice_writer):
    """A voice document of EXEMPLAR_OF written by the scripted writer (conftest.py's
    `voice_writer`) and approved by the chair (call it once the world is uploaded)."""
    script, _ = voice_writer

    def make() -> dict:
        chair = app.acting_as(CHAIR)
        marked = voice_review.mark(chair, EXEMPLAR_OF)
        text = next(r for r in factories.records() if r["case_number"] == EXEMPLAR_OF)
        script.document = claims(blocks_of(app, text["final_text"]))
        assert voice.run(app)["written"]
        return voice_review.review(chair, marked["id"], "approve")

    return make


def style_content(app, case: str) -> str:
    with app.store.connection() as conn:
        return conn.execute(
            "SELECT content FROM documents WHERE corpus = 'style' AND case_number = %s", (case,)
        ).fetchone()["content"]


def test_every_channel_with_provenance_never_the_case_itself(app, tmp_path, approved_voice):
    permit_world(app, tmp_path)
    document = approved_voice()
    lesson = lessons.propose(
        app.acting_as(CHAIR), None, "style", "משפטים קצרים, בגוף ראשון רבים", source="chair"
    )
    full = brief.writing_brief(app, "permit", "partially_accepted", case=CASE)
    assert_shape(full, brief.WritingBrief)
    for key in A_KEYS:  # the keys the writer read before are all there
        assert key in full, key
    assert full["case_number"] == CASE and full["anti_patterns"] and full["voice_invariants"]
    assert set(full["channels"]) == {"A", "B", "C", "lessons"}
    for keys in full["channels"].values():
        for key in keys:
            assert key in full, key
    for part in (
        "block_order",
        "golden_ratios",
        "exemplars",
        "templates",
        "contrastive_examples",
        "voice_documents",
        "lessons",
        "voice",
    ):
        assert full["provenance"][part]["channel"] in ("A", "B", "C", "lessons"), part
    assert "4 finals" in full["provenance"]["golden_ratios"]["source"]

    # B: her paragraphs, each pointing at where it stands in her final; never the case's own.
    assert full["exemplars"]
    for item in full["exemplars"]:
        p = item["provenance"]
        assert p["channel"] == "B" and p["corpus"] == "style" and p["case_number"] != CASE
        assert style_content(app, p["case_number"])[p["char_start"] : p["char_end"]] == item["text"]
    blocks = [e["block"] for e in full["exemplars"]]
    assert blocks[: len(set(blocks))] == list(dict.fromkeys(blocks))  # every block's best first
    assert full["templates"] and all(t["support"] >= 2 for t in full["templates"])
    assert all(t["provenance"]["sources"] for t in full["templates"])
    assert [t["support"] for t in full["templates"]] == sorted(
        (t["support"] for t in full["templates"]), reverse=True
    )
    assert full["contrastive_examples"]
    for item in full["contrastive_examples"]:
        assert item["case_number"] != CASE and item["left"] != item["right"]
        assert item["provenance"]["spans"]["final"]["doc_id"] == item["case_number"]
    # C: the approved voice document, with its provenance.
    [published] = full["voice_documents"]
    assert published["id"] == document["id"] and published["case_number"] == EXEMPLAR_OF
    assert published["provenance"]["channel"] == "C" and published["blocks"]
    # The approved lesson, with where it comes from.
    [shown] = full["lessons"]
    assert shown["id"] == lesson["id"]
    assert shown["provenance"] == {
        "channel": "lessons",
        "source": f"decision_lessons #{lesson['id']}",
        "from": "chair",
        "approved_by": "chair",
    }
    budget = full["budget"]
    assert budget["max_chars"] == brief.BRIEF_MAX_CHARS and budget["cut"] == []
    assert budget["chars"] == len(
        json.dumps(
            {k: v for k, v in full.items() if k != "budget"}, ensure_ascii=False, default=str
        )
    )

    # Written for the exemplary case itself: its own document and paragraphs are left out.
    own = brief.writing_brief(app, "permit", case=EXEMPLAR_OF)
    assert own["voice_documents"] == []
    assert EXEMPLAR_OF not in {e["case_number"] for e in own["exemplars"]}
    assert EXEMPLAR_OF not in {e["case_number"] for e in own["contrastive_examples"]}


def test_the_budget_cuts_in_the_stated_order(app, tmp_path, approved_voice):
    permit_world(app, tmp_path)
    approved_voice()
    whole = brief.writing_brief(app, "permit", "partially_accepted", case=CASE)
    limit = whole["budget"]["chars"] - 3000
    cut = brief.writing_brief(app, "permit", "partially_accepted", case=CASE, max_chars=limit)
    report = cut["budget"]
    assert_shape(cut, brief.WritingBrief)  # what was cut: a CutPart each
    assert report["chars"] <= limit and not report["over_budget"]
    assert report["cut_first"] == list(brief.TRIM_ORDER)
    assert report["cut"] and report["cut"][0]["part"] == "contrastive_examples"
    parts = [c["part"] for c in report["cut"]]
    assert parts == [p for p in brief.TRIM_ORDER if p in parts]  # in the stated order
    for c in report["cut"]:  # the counts are what is missing
        assert len(whole[c["part"]]) - len(cut[c["part"]]) == c["items"] and c["chars"] > 0
    for earlier, later in zip(brief.TRIM_ORDER, brief.TRIM_ORDER[1:], strict=False):
        if later in parts:  # a later part is cut only once the earlier one is empty
            assert cut[earlier] == []
    for key in A_KEYS:  # the methodology and the lessons are never cut
        assert cut[key] == whole[key]
    # What survives is what ranked first.
    kept = cut["contrastive_examples"] or cut["exemplars"]
    source = whole["contrastive_examples"] if cut["contrastive_examples"] else whole["exemplars"]
    assert kept == source[: len(kept)]

    tiny = brief.writing_brief(app, "permit", case=CASE, max_chars=brief.MIN_BRIEF_CHARS)
    assert tiny["budget"]["over_budget"] is True  # the methodology alone is larger
    assert all(tiny[part] == [] for part in brief.TRIM_ORDER)
    assert tiny["anti_patterns"] == whole["anti_patterns"]


def test_fit_cuts_last_items_first():
    parts = {p: [{"text": f"{p}-{i}-" + "א" * 100} for i in range(3)] for p in brief.TRIM_ORDER}
    data = {"lessons": [{"text": "ב" * 50}], **parts}
    size = len(json.dumps(data, ensure_ascii=False))
    report = brief.fit(data, size - 150)  # two items' worth
    assert report["cut"] == [
        {"part": "contrastive_examples", "items": 2, "chars": report["cut"][0]["chars"]}
    ]
    assert [i["text"][:22] for i in data["contrastive_examples"]] == ["contrastive_examples-0"]
    assert len(data["exemplars"]) == 3 and report["chars"] <= size - 150


def test_an_appeal_type_with_no_finals_says_so(app):
    """Channel B of an appeal type none of her finals has is empty, and the notes say why;
    channel A is whole."""
    empty = brief.writing_brief(app, "plan", "remanded")
    assert empty["exemplars"] == empty["templates"] == empty["contrastive_examples"] == []
    assert any("no final of appeal type plan" in n for n in empty["notes"])
    assert empty["block_order"] and empty["content_checklist"]  # channel A is still there


def test_bad_input(app):
    for value in (10, brief.MAX_BRIEF_CHARS + 1, True, "5000"):
        with pytest.raises(InvalidInput, match="max_chars"):
            brief.writing_brief(app, "permit", max_chars=value)
    with pytest.raises(InvalidInput, match="unknown appeal type"):
        brief.writing_brief(app, "divorce")
    with pytest.raises(InvalidInput, match="malformed case number"):
        brief.writing_brief(app, "permit", case="7001")


def test_cli_http_and_mcp_take_the_case_and_the_budget(app, settings, tmp_path, cli_env):
    permit_world(app, tmp_path)
    got = json.loads(
        run(
            cli_env,
            "brief",
            "permit",
            "--outcome",
            "rejected",
            "--case",
            CASE,
            "--max-chars",
            "6000",
        ).stdout
    )
    assert got["case_number"] == CASE and got["budget"]["max_chars"] == 6000
    assert_shape(got, brief.WritingBrief)
    assert got["budget"]["chars"] <= 6000 and got["budget"]["cut"]
    assert CASE not in {e["case_number"] for e in got["exemplars"]}
    bad = run(cli_env, "brief", "permit", "--max-chars", "5", check=False)
    assert bad.returncode == 2 and "max_chars" in bad.stderr

    configured = settings.model_copy(update={"agent_token": "agent-secret"})
    client = TestClient(create_app(configured, legal=app))
    answer = client.get(
        "/api/brief",
        headers={"Authorization": "Bearer agent-secret"},
        params={"appeal_type": "permit", "case": CASE, "max_chars": 8000},
    ).json()
    assert answer["case_number"] == CASE and answer["budget"]["chars"] <= 8000
    assert_shape(answer, brief.WritingBrief)

    calls = [
        ("get_writing_brief", {"appeal_type": "permit", "case_number": CASE, "max_chars": 30000})
    ]
    _, tools, results = asyncio.run(mcp_session(cli_env, calls))
    schema = tools["get_writing_brief"].input_schema["properties"]
    assert {"case_number", "max_chars"} <= set(schema)
    [result] = results.values()
    data = payload(result)
    assert data["case_number"] == CASE and data["budget"]["max_chars"] == 30000
    assert_shape(data, brief.WritingBrief)
    assert data["exemplars"] and CASE not in {e["case_number"] for e in data["exemplars"]}


def test_the_bench_measures_template_coverage_slot_for_slot():
    """bench/writer_materials.py's measure: a final's formulaic words are covered where a known
    template occurs, slots matching whatever fills them."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "writer_materials", ROOT / "bench" / "writer_materials.py"
    )
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert bench.template_keys("ביום {date} שמענו את הצדדים {text}") == [
        "ביום",
        "{date}",
        "שמענו",
        "את",
        "הצדדים",
    ]
    parts = [("hearing", 0, bench.templates.tokens("8. ביום 7.4.2025 שמענו את הצדדים וסיירנו."))]
    known = [{"block": "hearing", "text": "ביום {date} שמענו את הצדדים {text}"}]
    assert bench.covered_positions(parts, known) == {(0, i) for i in range(5)}
    assert bench.covered_positions(parts, [{**known[0], "block": "opening"}]) == set()
    wanted = bench.formulaic_positions(parts, [("hearing", 3, 30)])
    assert (0, 0) in wanted and (0, 5) not in wanted  # "וסיירנו" ends past the span
