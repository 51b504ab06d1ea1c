"""The judge model of the citation check (issue 33 item 2; the role `verifier`, LEGAL_AI_VERIFIER):
a scripted model on 127.0.0.1, reached through the real OpenAI SDK, says whether the passage the
embedder found supports the sentence citing it. Its word is the model's (`support.judge`,
`said_by: "model"`), never a problem or a status; a quotation not in the passage discards the
verdict; a failing, slow or malformed model, a spent budget and the check's limit of questions
leave the check complete, each saying why in one line. No model configured, or a request's
check: as before, no judge. The library is test_citation_states.py's."""

import json
import re

import pytest
import test_citation_states as states

from helpers import run, write
from legal_ai.auth import agent
from legal_ai.learning.checks import citation_judge, copy_policy
from llm_servers import Reply, prompt_text, schema_name, scripted_openai
from shapes import assert_shape

pytestmark = pytest.mark.db
library = states.library  # the fixture: four fictional rulings and a tiny statute
CASE = states.CASE

STRONG = (
    "מוסד התכנון אינו מוסמך להתיר תוספת קומה שהיא סטייה ניכרת בדרך של הקלה "
    "(עע\"מ 5151/19 כהן נ' הוועדה המקומית חיפה)."
)
ALSO = 'ועדת הערר דחתה ערר על תוספת קומה החורגת ממספר הקומות שבתכנית (עע"מ 5151/19).'
THIRD = 'תוספת קומה מעבר למספר הקומות שבתכנית היא סטייה ניכרת מן התכנית (עע"מ 5151/19).'
DRAFT = " ".join((STRONG, ALSO, THIRD))
_PASSAGE = re.compile(r"<<<PASSAGE\n(.*)\nPASSAGE>>>", re.S)


class Judge:
    """The scripted judge: answers its `verdicts` in turn, quoting the first words of the passage
    it was shown (or `quote` when set); `fail`: that reply instead."""

    def __init__(self, *verdicts: str) -> None:
        self.verdicts = list(verdicts)
        self.quote: str | None = None
        self.fail: Reply | None = None
        self.passages: list[str] = []

    def __call__(self, request: dict, path: str) -> Reply:
        if self.fail is not None:
            return self.fail
        if schema_name(request) != "Verdict":
            return Reply(status=400)
        passage = _PASSAGE.search(prompt_text(request)).group(1)
        self.passages.append(passage)
        quote = self.quote or " ".join(passage.split()[2:9])
        return Reply(json={"verdict": self.verdicts.pop(0), "quote": quote})


@pytest.fixture
def judge(library, monkeypatch):
    """The scripted judge as LEGAL_AI_VERIFIER (no retries); yields the script and its server."""
    script = Judge()
    with scripted_openai(script) as server:
        configure(monkeypatch, library, verifier=f"openai:judge@{server.url}", model_retries=0)
        yield script, server


def configure(monkeypatch, app, **values) -> None:
    monkeypatch.setattr(app, "settings", app.settings.model_copy(update=values))


def checked(app, tmp_path, text: str = DRAFT) -> list[dict]:
    """`legal-ai draft check`'s report (its service), the draft given as a file, held to its
    type (the judge's word in each support's `judge`)."""
    report = copy_policy.check(app, CASE, write(tmp_path / "draft.txt", text))
    assert_shape(report, copy_policy.DraftCheck)
    return report["citations"]


def calls(app) -> list[dict]:
    with app.store.connection() as conn:
        return conn.execute(
            "SELECT stage, model, outcome, db_role FROM model_calls ORDER BY id"
        ).fetchall()


def test_the_models_word_on_each_support_never_a_problem(library, judge, tmp_path):
    script, server = judge
    script.verdicts = ["supported", "partly", "not_supported"]
    found = checked(library, tmp_path)
    assert [c["support"]["judge"]["verdict"] for c in found] == [
        "supported",
        "partly",
        "not_supported",
    ]
    for citation, passage in zip(found, script.passages, strict=True):
        judged = citation["support"]["judge"]
        assert passage == citation["support"]["passage"]  # asked on the passage she is shown
        assert judged["said_by"] == "model" and judged["model"] == "openai:judge"
        assert judged["quote"] in " ".join(passage.split()) and judged["unanswered"] is None
        assert citation["problems"] == [] and citation["status"] == "found"  # a word, not a fact
    supported, partly, refuted = found
    assert not any(a["kind"] == "judge" for a in supported["attention"])
    for citation, verdict in ((partly, "partly"), (refuted, "not_supported")):
        assert {
            "kind": "judge",
            "verdict": verdict,
            "model": "openai:judge",
            "said_by": "model",
        } in citation["attention"]
    # Each question is a call of the system's stage `verification`, recorded as every stage's.
    rows = calls(library)
    assert [(r["stage"], r["model"], r["outcome"]) for r in rows] == [
        ("verification", "judge", "ok")
    ] * 3
    assert {r["db_role"] for r in rows} == {"legal_ai_worker"}
    assert all(r["model"] == "judge" for r in server.requests)


def test_a_quotation_not_in_the_passage_discards_the_verdict(library, judge, tmp_path):
    script, _ = judge
    script.verdicts = ["not_supported", "supported"]
    script.quote = "המערערים זכאים להיתר בנייה בכל מקרה"  # not in any passage
    first, *_ = checked(library, tmp_path, STRONG)
    judged = first["support"]["judge"]
    assert judged["verdict"] is None and judged["quote"] == script.quote
    assert judged["unanswered"].startswith("verdict discarded: its quotation is not in the passage")
    assert "not_supported" in judged["unanswered"] and judged["said_by"] == "model"
    assert not any(a["kind"] == "judge" for a in first["attention"])
    # Two words of the passage are no quotation to rest on either.
    script.quote = " ".join(first["support"]["passage"].split()[:2])
    [short] = checked(library, tmp_path, STRONG)
    assert short["support"]["judge"]["verdict"] is None
    assert short["support"]["judge"]["unanswered"].startswith("verdict discarded")


def test_a_failing_model_leaves_the_check_complete(library, judge, tmp_path):
    script, server = judge
    script.fail = Reply(status=500)
    found = checked(library, tmp_path)
    whys = [c["support"]["judge"]["unanswered"] for c in found]
    assert [c["support"]["judge"]["verdict"] for c in found] == [None] * 3
    assert whys[0].startswith("the judge could not answer: openai:judge failed at verification")
    assert "500" in whys[0] and "\n" not in whys[0]
    assert server.url not in json.dumps(found) and "127.0.0.1" not in whys[0]
    # Two failures in a row: the third citation is not asked (a server down costs two calls).
    assert whys[2] == f"not asked: the judge failed {citation_judge.MAX_FAILURES} times in a row"
    assert len(server.requests) == 2
    assert all(c["status"] == "found" and c["support"]["score"] for c in found)


def test_an_answer_that_is_not_json_or_comes_too_late(library, judge, tmp_path, monkeypatch):
    script, _ = judge
    script.fail = Reply(text="המקור תומך, לדעתי")  # not the JSON asked for
    [citation] = checked(library, tmp_path, STRONG)
    why = citation["support"]["judge"]["unanswered"]
    assert why.startswith("the judge could not answer: openai:judge gave no valid Verdict")
    assert "not JSON" in why
    script.fail = Reply(json={"verdict": "maybe", "quote": "x"})  # JSON, not the schema's
    [citation] = checked(library, tmp_path, STRONG)
    assert "gave no valid Verdict" in citation["support"]["judge"]["unanswered"]
    script.fail = Reply(json={"verdict": "supported", "quote": "x"}, delay=1.5)
    configure(monkeypatch, library, model_timeout_s=0.5)
    [citation] = checked(library, tmp_path, STRONG)
    assert citation["support"]["judge"]["unanswered"].startswith("the judge could not answer")
    assert citation["status"] == "found" and citation["support"]["passage"]


def test_the_daily_budget_and_the_checks_limit(library, judge, tmp_path, monkeypatch):
    script, server = judge
    script.verdicts = ["supported"] * 3
    # One call (160 tokens, the scripted usage) passes a budget of 150: the rest wait for it.
    configure(monkeypatch, library, model_budgets="verifier=150")
    found = checked(library, tmp_path)
    assert found[0]["support"]["judge"]["verdict"] == "supported"
    for citation in found[1:]:
        why = citation["support"]["judge"]["unanswered"]
        assert why.startswith("not asked: budget: the verifier models spent 160 of their 150")
    assert len(server.requests) == 1
    # No budget, a limit of two questions a check.
    script.verdicts = ["supported"] * 3
    configure(monkeypatch, library, model_budgets="", verifier_max_calls=2)
    found = checked(library, tmp_path)
    assert [c["support"]["judge"]["verdict"] for c in found[:2]] == ["supported"] * 2
    assert found[2]["support"]["judge"] == {
        "model": "openai:judge",
        "said_by": "model",
        "verdict": None,
        "quote": None,
        "unanswered": "not asked: this check asked the judge its 2 questions "
        "(LEGAL_AI_VERIFIER_MAX_CALLS)",
    }
    assert len(server.requests) == 3


def test_no_model_or_a_request_no_judge(library, tmp_path, monkeypatch, cli_env):
    found = checked(library, tmp_path)
    assert all(c["support"] and "judge" not in c["support"] for c in found)
    assert calls(library) == []
    # A key the provider needs and that is absent: said for each citation, nothing asked.
    configure(monkeypatch, library, verifier="openai:gpt-4.1-mini")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    [citation] = checked(library, tmp_path, STRONG)
    assert citation["support"]["judge"]["unanswered"] == (
        "the judge could not answer: set OPENAI_API_KEY for LEGAL_AI_VERIFIER=openai:gpt-4.1-mini"
    )
    # A request (an agent's MCP check_draft) never runs the system's model stage.
    script = Judge("supported")
    with scripted_openai(script) as server:
        configure(monkeypatch, library, verifier=f"openai:judge@{server.url}")
        report = copy_policy.check_draft_text(library.acting_as(agent("writer")), CASE, STRONG)
        [citation] = report["citations"]
        assert citation["support"] and "judge" not in citation["support"]
        assert server.requests == []
        # The CLI's draft check says the model's word as the model's.
        env = {**cli_env, "LEGAL_AI_VERIFIER": f"openai:judge@{server.url}"}
        out = run(env, "draft", "check", CASE, str(write(tmp_path / "d.txt", STRONG))).stdout
    assert "judge (the model's word, openai:judge): supported, quoting" in out
    assert len(server.requests) == 1
