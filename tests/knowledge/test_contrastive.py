"""Contrastive pairs (issue 14 item 3): where our drafts and the chair's finals of the analyzed
pairs differ in a block, as (our wording -> her wording) with the word diff, style only (the
purity rules drop differences of substance), with provenance and the instruction; served by the
service, the CLI, the HTTP API and the MCP tool."""

import asyncio
import json
import re
import subprocess
import sys

import pytest
from fastapi.testclient import TestClient

import factories
from helpers import run, write
from legal_ai.errors import InvalidInput
from legal_ai.knowledge import contrastive
from legal_ai.knowledge.contrastive import INSTRUCTION, Contrasts, get_contrastive_examples
from legal_ai.learning.pairs import drafts, finals
from legal_ai.text import citations
from legal_ai.text.blocks import BLOCKS
from legal_ai.web.app import create_app
from shapes import assert_shape

pytestmark = pytest.mark.db


def analyzed_pairs(app, tmp_path) -> dict[str, dict]:
    """The four fictional pairs: each draft registered, then its final uploaded (analyzed)."""
    records = {r["case_number"]: r for r in factories.records()}
    for case, record in records.items():
        slug = factories.slug(case)
        draft = write(tmp_path / f"{slug}.draft.txt", record["draft_text"])
        drafts.add_draft(
            app,
            case,
            draft,
            appeal_type=record["appeal_type"],
            outcome=record["outcome"],
            practice_area=record["practice_area"],
        )
        final = write(tmp_path / f"{slug}.final.txt", record["final_text"])
        assert finals.upload_final(app, case, final)["pair_status"] == "analyzed"
    return records


def stored_draft(app, case: str) -> str:
    with app.store.pool.connection() as conn:
        return conn.execute(
            "SELECT content FROM drafts WHERE case_number = %s ORDER BY version DESC LIMIT 1",
            (case,),
        ).fetchone()["content"]


def test_examples_with_diff_provenance_and_the_instruction(app, tmp_path):
    records = analyzed_pairs(app, tmp_path)
    result = get_contrastive_examples(app, "opening", k=10)
    assert result["instruction"] == INSTRUCTION == "write like the right side, not the left"
    assert result["pairs_considered"] == 4 and "note" not in result
    assert_shape(result, Contrasts)
    examples = result["examples"]
    assert examples and len(examples) <= 10
    for e in examples:
        assert e["block"] == "opening" and e["case_number"] in records
        draft, final = e["spans"]["draft"], e["spans"]["final"]
        # Provenance: both sides are exactly those spans of our draft and of her final.
        assert (
            stored_draft(app, e["case_number"])[draft["char_start"] : draft["char_end"]]
            == e["left"]
        )
        her_final = records[e["case_number"]]["final_text"]
        assert her_final[final["char_start"] : final["char_end"]] == e["right"]
        assert final["doc_id"] == e["case_number"] and draft["draft_version"] == 1
        # The diff's pieces put together are both sides exactly, and something changed.
        assert "".join(op["left"] for op in e["diff"]) == e["left"]
        assert "".join(op["right"] for op in e["diff"]) == e["right"]
        assert any(op["op"] != "equal" for op in e["diff"]) and 0 < e["share_changed"] <= 1
    # Her opening formula against our "as will be detailed below".
    formula = [
        e
        for e in examples
        if e["case_number"] == "ערר (מרכז) 7014/25" and "נקדים אחרית לראשית" in e["right"]
    ]
    assert len(formula) == 1
    assert "כפי שיפורט להלן" in formula[0]["left"] and "נקדים" not in formula[0]["left"]
    assert (
        formula[0]["diff_text"] == "[-וכפי שיפורט להלן,-] {+נקדים אחרית לראשית:+} דין הערר להידחות."
    )
    # Most changed first, one per case before a second of any case.
    first_round = examples[: len({e["case_number"] for e in examples})]
    assert len({e["case_number"] for e in first_round}) == len(first_round)
    shares = [e["share_changed"] for e in first_round]
    assert shares == sorted(shares, reverse=True)


def test_differences_of_substance_are_dropped(app, tmp_path):
    analyzed_pairs(app, tmp_path)
    # 7014's subject: the number of children (22 -> 20) is a fact, not wording.
    subject = get_contrastive_examples(app, "subject", appeal_type="change_of_use")
    assert subject["examples"] == [] and subject["dropped_as_substance"] >= 1
    assert "only in substance" in subject["note"]
    # The conclusions: 7001's added condition (יותנה) is the holding's terms; 7014's costs
    # formula is style and stays.
    conclusion = get_contrastive_examples(app, "conclusion", k=10)
    assert [e["case_number"] for e in conclusion["examples"]] == ["ערר (מרכז) 7014/25"]
    assert conclusion["examples"][0]["diff_text"] == (
        "הערר נדחה. [-כל צד יישא בהוצאותיו.-] {+אין צו להוצאות.+}"
    )
    assert conclusion["dropped_as_substance"] >= 2
    # Across every block: no served example adds, drops or alters a number or a citation.
    for block in BLOCKS:
        for e in get_contrastive_examples(app, block, k=50)["examples"]:
            numbers = [sorted(re.findall(r"\d+", side)) for side in (e["left"], e["right"])]
            assert numbers[0] == numbers[1], (block, e["diff_text"])
            refs = [
                sorted(c.ref for c in citations.extract(side)) for side in (e["left"], e["right"])
            ]
            assert refs[0] == refs[1], (block, e["diff_text"])


def test_an_appeal_type_filters_and_one_without_pairs_says_so(app, tmp_path):
    analyzed_pairs(app, tmp_path)
    typed = get_contrastive_examples(app, "respondents_claims", appeal_type="betterment_levy")
    assert [e["case_number"] for e in typed["examples"]] == ["ערר 8815/25"]
    assert typed["examples"][0]["appeal_type"] == "betterment_levy"
    empty = get_contrastive_examples(app, "discussion", appeal_type="procedural")
    assert empty["examples"] == [] and empty["pairs_considered"] == 0
    assert "no analyzed draft/final pair of appeal type procedural yet" in empty["note"]
    assert_shape(typed, Contrasts)
    assert_shape(empty, Contrasts)


def test_bad_input(app):
    with pytest.raises(InvalidInput, match="unknown block 'verdict'; choose one of: header"):
        get_contrastive_examples(app, "verdict")
    with pytest.raises(InvalidInput, match="unknown appeal type 'divorce'"):
        get_contrastive_examples(app, "discussion", appeal_type="divorce")
    for k in (0, 51, True):
        with pytest.raises(InvalidInput, match="k must be a whole number from 1 to 50"):
            get_contrastive_examples(app, "discussion", k=k)
    nothing = get_contrastive_examples(app, "discussion")
    assert nothing["examples"] == [] and "no analyzed draft/final pair yet" in nothing["note"]


def test_a_pair_without_the_block_or_without_rewording_gives_nothing():
    row = {
        "case_number": "ערר 1/25",
        "appeal_type": "permit",
        "draft_id": 1,
        "draft_version": 1,
        "final_doc_id": "ערר 1/25",
        "draft_content": "x",
        "final_content": "y",
        "draft_blocks": {"discussion": "טקסט שלנו על הבקשה ועל השכנים והפגיעה בהם"},
        "final_blocks": {
            "discussion": "טקסט שלנו על הבקשה ועל השכנים והפגיעה בהם",
            "conclusion": "הערר נדחה.",
        },
    }
    assert contrastive.pair_examples(row, "discussion") == ([], 0)  # the same words
    assert contrastive.pair_examples(row, "conclusion") == ([], 0)  # ours has no conclusion
    row["final_blocks"]["discussion"] = 'משפט אחר לגמרי שהיו"ר כתבה בעצמה בלי קשר לטיוטה'
    assert contrastive.pair_examples(row, "discussion") == ([], 0)  # written anew: content


def test_cli_http_and_mcp(app, tmp_path, cli_env):
    analyzed_pairs(app, tmp_path)
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "legal_ai.cli",
            "contrastive",
            "opening",
            "--appeal-type",
            "change_of_use",
            "--limit",
            "1",
            "--json",
        ],
        env=cli_env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    printed = json.loads(result.stdout)
    assert_shape(printed, Contrasts)
    assert printed["instruction"] == INSTRUCTION and len(printed["examples"]) == 1
    assert printed["examples"][0]["case_number"] == "ערר (מרכז) 7014/25"
    bad = run(cli_env, "contrastive", "verdict", check=False)
    assert bad.returncode != 0 and "unknown block" in bad.stderr

    settings = app.settings.model_copy(update={"agent_token": "writer=t0ken"})
    with TestClient(create_app(settings, legal=app)) as client:
        headers = {"Authorization": "Bearer t0ken"}
        answer = client.get(
            "/api/contrastive/opening",
            headers=headers,
            params={"appeal_type": "change_of_use", "k": 1},
        )
        assert answer.status_code == 200, answer.text
        assert answer.json()["examples"] == printed["examples"]
        assert client.get("/api/contrastive/verdict", headers=headers).status_code == 400
        assert client.get("/api/contrastive/opening").status_code == 401

    from helpers import mcp_session, payload

    _, tools, results = asyncio.run(
        mcp_session(
            cli_env,
            [
                (
                    "get_contrastive_examples",
                    {"block": "opening", "appeal_type": "change_of_use", "k": 1},
                ),
                ("get_contrastive_examples", {"block": "verdict"}),
            ],
        )
    )
    assert tools["get_contrastive_examples"].input_schema["required"] == ["block"]
    good, refused = results.values()
    assert payload(good)["examples"] == printed["examples"]
    assert refused.is_error and "unknown block" in refused.content[0].text
