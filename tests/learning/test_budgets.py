"""Model budgets (issue 24 item 5): a role's daily token budget (LEGAL_AI_MODEL_BUDGETS) checked
before each call against what model_calls recorded today. Through the real OpenAI SDK against the
scripted server, which reports each answer's usage tokens: the style panel stops mid-stage once a
lesson's votes carried it past its budget (the votes kept, the next lesson not asked), its job
deferred with the reason (waiting, not failed), left alone while the budget is spent, resumed when
the budget is raised and, for another job, when the day turns (a controlled clock); no lesson
voted twice; `learning costs` per role, model and final (the desk's system page:
tests/desk/test_desk_budgets.py). Bad input: the setting's own errors."""

from __future__ import annotations

import datetime as dt
import json
import re
from zoneinfo import ZoneInfo

import pytest
from pydantic import ValidationError

import factories
from helpers import run, write
from legal_ai.app import App
from legal_ai.config import Settings
from legal_ai.config_checks import MODEL_ROLES
from legal_ai.errors import BudgetReached
from legal_ai.knowledge import voice
from legal_ai.learning.arrival import enrichment
from legal_ai.learning.checks import citation_judge
from legal_ai.learning.engine import budgets, jobs
from legal_ai.learning.engine import costs as engine_costs
from legal_ai.learning.engine import models as engine
from legal_ai.learning.engine.models import recorder
from legal_ai.learning.lessons.panel import SYSTEM, PanelVote
from legal_ai.learning.pairs import drafts, finals
from legal_ai.learning.principles import extraction as principles
from legal_ai.learning.principles import jobs as principle_jobs
from legal_ai.learning.principles import synthesis
from legal_ai.ops.worker import STAGES
from legal_ai.providers.models import CallRecord
from legal_ai.store import spending
from llm_servers import Reply, schema_name, scripted_openai
from scenarios import PANEL_RULING, Q1, R1, cand, ingest
from shapes import assert_shape
from system_panel import engine as as_worker

pytestmark = pytest.mark.db

PANEL_TOKENS = (600, 30)  # what each panel vote costs, as the scripted server reports it
LESSONS = (  # two per distillation, each distinct (a repeat would corroborate, not propose)
    ("style", "משפטים קצרים והצהרתיים, בלי הקדמות ובלי מילות מילוי"),
    ("anti_pattern", "להשמיט ביטויי מילוי בפתיחת פסקה"),
    ("style", "לפתוח כל פסקת דיון במסקנה, ורק אחריה לנמק אותה"),
    ("anti_pattern", "להימנע משמות פעולה כשפועל פשוט אומר את אותו הדבר"),
)
_BLOCK_RE = re.compile(
    r"## block: (\w+)[^\n]*\n<<<DRAFT\n(.*?)\nDRAFT>>>\n<<<FINAL\n(.*?)\nFINAL>>>", re.S
)


@pytest.fixture
def legal(desk_app):
    """The emptied test database (the desk's chair password set), the queue and the call record
    emptied too."""
    with desk_app.store.transaction() as conn:
        conn.execute("SET LOCAL session_replication_role = replica")  # model_calls: append-only
        conn.execute("TRUNCATE jobs, model_calls RESTART IDENTITY CASCADE")
    return desk_app


class Script:
    """The scripted models: a distiller that quotes its own prompt (verbatim spans) with the next
    two lessons of LESSONS, a panel that approves everything, a curator."""

    def __init__(self) -> None:
        self.distilled = 0

    def __call__(self, request: dict, path: str) -> Reply:
        name = schema_name(request)
        user = request["messages"][-1]["content"]
        if name == "DistilledLessons":
            blocks = _BLOCK_RE.findall(user)[:2]
            pairs = LESSONS[2 * self.distilled : 2 * self.distilled + 2]
            self.distilled += 1
            lessons = [
                {
                    "category": category,
                    "block": block,
                    "lesson": text,
                    "draft_span": " ".join(draft.split()[:6]),
                    "final_span": " ".join(final.split()[:6]),
                    "is_substance": False,
                    "substance_reason": "",
                    "substance_category": "",
                }
                for (category, text), (block, draft, final) in zip(pairs, blocks, strict=True)
            ]
            return Reply(json={"lessons": lessons}, tokens_in=2000, tokens_out=300)
        if name == "PanelVote":
            return Reply(
                json={"vote": "approve", "reason": "סגנון כללי"},
                tokens_in=PANEL_TOKENS[0],
                tokens_out=PANEL_TOKENS[1],
            )
        if name == "CuratorFindings":
            findings = [{"tag": "סגנון", "finding": "משפטי הדיון קצרים ועניינים"}]
            return Reply(json={"findings": findings}, tokens_in=3000, tokens_out=100)
        return Reply(status=400)


def models(app: App, url: str, budget: str) -> App:
    """`app` with the three learning roles on the scripted server and LEGAL_AI_MODEL_BUDGETS."""
    settings = app.settings.model_copy(
        update={
            "distiller": f"openai:distiller@{url}",
            "style_panel": f"openai:panel-a@{url},openai:panel-b@{url}",
            "curator": f"openai:curator@{url}",
            "model_retries": 0,
            "model_budgets": budget,
        }
    )
    return App(settings, store=app.store, embedder=app._inner_embedder)


def upload_pair(app: App, tmp_path, index: int) -> str:
    record = factories.records()[index]
    slug = factories.slug(record["case_number"])
    drafts.add_draft(
        app,
        record["case_number"],
        write(tmp_path / f"{slug}.draft.txt", record["draft_text"]),
        appeal_type=record["appeal_type"],
        outcome=record["outcome"],
        practice_area=record["practice_area"],
    )
    finals.upload_final(
        app, record["case_number"], write(tmp_path / f"{slug}.final.txt", record["final_text"])
    )
    return record["case_number"]


def rows(app: App, query: str, params=()) -> list[dict]:
    with app.store.connection() as conn:
        return conn.execute(query, params).fetchall()


def job_of(app: App, case: str) -> dict:
    [job] = rows(app, "SELECT * FROM jobs WHERE kind = 'learning' AND case_number = %s", (case,))
    return job


def votes(app: App) -> dict[int, int]:
    """Each lesson's number of panel verdicts."""
    found = rows(app, "SELECT lesson_id, count(*) AS n FROM panel_verdicts GROUP BY lesson_id")
    return {r["lesson_id"]: r["n"] for r in found}


def panel_calls(app: App) -> int:
    return len(rows(app, "SELECT id FROM model_calls WHERE stage = 'panel'"))


def test_a_stage_stops_at_its_budget_and_resumes_when_raised_and_the_next_day(
    legal, tmp_path, cli_env
):
    vote = sum(PANEL_TOKENS)  # 630 tokens a vote; a lesson's two votes: 1260
    first = upload_pair(legal, tmp_path, 0)
    second = upload_pair(legal, tmp_path, 1)
    script = Script()
    with scripted_openai(script) as server:
        # 700 a day: the first lesson's two votes are asked (0 spent before them) and carry the
        # panel to 1260; the stage stops before the next lesson, its job deferred. The second
        # job distills (the distiller has no budget), and its panel asks nothing.
        tight = models(legal, server.url, "style_panel=700")
        report = jobs.run(tight, stages=STAGES, environ={})
        assert len(server.requests) == 2 + 2  # two distillations, one lesson's two votes
        assert panel_calls(legal) == 2
        a, b = job_of(legal, first), job_of(legal, second)
        for job in (a, b):
            assert job["status"] == "waiting" and job["error"] is None
            assert job["attempts"] == 0  # deferred: no attempt spent, nothing failed
            assert job["waiting_for"].startswith(
                f"budget: the style_panel models spent {2 * vote} of their 700 tokens today"
            )
            assert job["result"]["budget"] == {"role": "style_panel"}
            assert set(job["result"]["stages"]) == {"distill"}  # the panel is not done
        # The first job's panel stopped midway: the lesson it voted is kept with its verdicts.
        [piece] = a["result"]["partial"]["panel"]
        assert piece["stopped"] == "budget" and piece["auto_approved"] == 1
        [voted] = piece["lessons"]
        proposed_a = a["result"]["stages"]["distill"]["proposed"]
        assert len(proposed_a) == 2 and voted == {"id": proposed_a[0], "outcome": "approved"}
        assert votes(legal) == {proposed_a[0]: 2}
        # `learning run` says so: each job deferred with the reason, the role's budget reached.
        assert report["auto_approved"] == 1 and report["failed"] == []
        assert {p["status"] for p in report["pending"]} == {"waiting"}
        assert all(p["reason"].startswith("deferred (not failed)") for p in report["pending"])
        [state] = report["budgets"]
        assert state["role"] == "style_panel" and state["spent"] == 2 * vote
        assert state["reached"] and state["deferred"] == 2 and state["budget"] == 700
        zone = ZoneInfo("Asia/Jerusalem")  # the office's day ends at its midnight
        midnight = dt.datetime.combine(
            dt.datetime.now(zone).date() + dt.timedelta(days=1), dt.time(), zone
        )
        assert state["resumes_at"] == midnight.isoformat()

        # The worker's next pass, same day, same budget: the jobs stay deferred, nothing asked.
        again = jobs.run(tight, stages=STAGES, environ={})
        assert again["jobs"] == [] and len(server.requests) == 4
        assert job_of(legal, first)["status"] == "waiting"

        # Raised to 2000: the first job resumes where it stopped — its second lesson only (the
        # first keeps its two verdicts, asked once), then the curator — and is done; the second
        # job finds the panel at 2520 and stays deferred, before any vote.
        raised = models(legal, server.url, "style_panel=2000")
        jobs.run(raised, stages=STAGES, environ={})
        assert len(server.requests) == 4 + 2 + 1
        a = job_of(legal, first)
        assert a["status"] == "done" and a["attempts"] == 1 and a["error"] is None
        assert set(a["result"]["stages"]) == {"distill", "panel", "curator"}
        assert a["result"]["stages"]["panel"]["lessons"] == [
            {"id": proposed_a[0], "outcome": "skipped"},  # voted before the budget stopped it
            {"id": proposed_a[1], "outcome": "approved"},
        ]
        assert a["result"]["partial"]["panel"][0]["auto_approved"] == 1  # kept
        b = job_of(legal, second)
        assert b["status"] == "waiting" and "spent 2520 of their 2000" in b["waiting_for"]

        # The day turns (a controlled clock: tomorrow): the second job resumes and is done.
        tomorrow = dt.datetime.now(dt.UTC) + dt.timedelta(days=1)
        after = jobs.run(raised, stages=STAGES, environ={}, at=tomorrow)
        assert [j["status"] for j in after["jobs"]] == ["done"]
        assert len(server.requests) == 7 + 2 + 2 + 1  # its two lessons' votes, its curator
    # Every lesson voted once by each model: nothing lost, nothing asked twice.
    assert sorted(votes(legal).values()) == [2, 2, 2, 2] and panel_calls(legal) == 8
    assert job_of(legal, second)["status"] == "done"
    assert script.distilled == 2

    # `legal-ai learning costs --json`: per role, per role and model, per final.
    env = {**cli_env, "LEGAL_AI_MODEL_BUDGETS": "style_panel=2000"}
    costs = json.loads(run(env, "learning", "costs", "--json").stdout)
    assert_shape(costs, engine_costs.Costs)
    by_role = {r["role"]: r for r in costs["by_role"]}
    assert by_role["style_panel"] == {
        "role": "style_panel",
        "calls": 8,
        "failures": 0,
        "tokens_in": 8 * 600,
        "tokens_out": 8 * 30,
        "budget": 2000,
        "spent_today": 8 * vote,
    }
    assert by_role["distiller"]["calls"] == 2 and by_role["distiller"]["budget"] is None
    assert by_role["distiller"]["tokens_in"] == 2 * 2000
    assert by_role["curator"]["tokens_out"] == 2 * 100
    by_model = {(r["role"], r["model"]): r["calls"] for r in costs["by_model"]}
    assert by_model == {
        ("curator", "openai:curator"): 2,
        ("distiller", "openai:distiller"): 2,
        ("style_panel", "openai:panel-a"): 4,
        ("style_panel", "openai:panel-b"): 4,
    }
    by_final = {r["case_number"]: r for r in costs["by_final"]}
    assert set(by_final) == {first, second}
    assert by_final[first]["calls"] == 1 + 4 + 1
    assert by_final[first]["tokens_in"] == 2000 + 4 * 600 + 3000
    assert costs["total"]["calls"] == 12 and costs["zone"] == "Asia/Jerusalem"
    # --since tomorrow: nothing yet; a date that is not one is refused, one line.
    tomorrow_day = (dt.date.today() + dt.timedelta(days=2)).isoformat()
    later = json.loads(run(env, "learning", "costs", "--since", tomorrow_day, "--json").stdout)
    assert later["total"]["calls"] == 0 and later["by_final"] == []
    assert_shape(later, engine_costs.Costs)
    bad = run(env, "learning", "costs", "--since", "1.5.2026", check=False)
    assert bad.returncode == 2 and "YYYY-MM-DD" in bad.stderr
    text = run(env, "learning", "costs").stdout
    assert "style_panel: 8 call(s), tokens in 4800 / out 240; today 5040 of 2000 a day" in text


def test_the_budget_is_checked_before_each_call_and_a_unit_once(legal):
    """A call that carries the role past its budget is kept (it answered); the next is refused
    before it is sent; inside a unit the budget is checked once, at its start."""
    seen = []

    def script(request: dict, path: str) -> Reply:
        seen.append(request["model"])
        return Reply(json={"vote": "approve", "reason": "טוב"}, tokens_in=500, tokens_out=10)

    with scripted_openai(script) as server:
        app = models(legal, server.url, "style_panel=600,curator=0")
        built = engine.configured(app, environ={})
        a, b = built.panel
        assert a.budget is b.budget  # one budget per role, shared by its models
        a.ask(SYSTEM, "1", PanelVote, stage="panel")  # 0 spent: asked, 510 recorded
        a.ask(SYSTEM, "2", PanelVote, stage="panel")  # 510 < 600: asked, 1020 now
        with pytest.raises(BudgetReached) as caught:
            b.ask(SYSTEM, "3", PanelVote, stage="panel")  # 1020 >= 600: not sent
        assert seen == ["panel-a", "panel-a"]
        assert caught.value.role == "style_panel" and caught.value.spent == 1020
        with pytest.raises(BudgetReached):
            with budgets.unit(built.panel):  # refused at the start: no vote of the unit
                pytest.fail("a unit over its budget is not entered")
        # Raised to 1100: the unit starts (1020 < 1100) and both its calls are made, though the
        # first carries the role past the budget.
        roomier = engine.configured(models(legal, server.url, "style_panel=1100"), environ={})
        with budgets.unit(roomier.panel):
            for model in roomier.panel:
                model.ask(SYSTEM, "4", PanelVote, stage="panel")
        assert seen[2:] == ["panel-a", "panel-b"]
        # 0 pauses a role: its first call is refused.
        with pytest.raises(BudgetReached):
            built.curator.ask(SYSTEM, "5", PanelVote, stage="curator")
        # No budget: the model is the adapter itself, never checked.
        free = engine.configured(models(legal, server.url, ""), environ={})
        assert not isinstance(free.distiller, budgets.Budgeted)


def test_the_day_is_the_offices_in_its_time_zone(legal):
    """The budget's day runs midnight to midnight in LEGAL_AI_SCHEDULE_TIMEZONE (DST aware)."""
    at = dt.datetime(2026, 3, 27, 21, 30, tzinfo=dt.UTC)  # 00:30 on 28.3 in Jerusalem (+03)
    with legal.store.connection() as conn:
        day = spending.spent_today(conn, "distiller", "Asia/Jerusalem", at)
        utc = spending.spent_today(conn, "distiller", "UTC", at)
    assert day["start"] == dt.datetime(2026, 3, 27, 21, 0, tzinfo=dt.UTC)
    assert day["end"] == dt.datetime(2026, 3, 28, 21, 0, tzinfo=dt.UTC)
    assert utc["start"] == dt.datetime(2026, 3, 27, tzinfo=dt.UTC) and day["spent"] == 0
    # Israel's clocks go forward on 27.3.2026 at 02:00: that day has 23 hours.
    short = dt.datetime(2026, 3, 27, 12, 0, tzinfo=dt.UTC)
    with legal.store.connection() as conn:
        spring = spending.spent_today(conn, "distiller", "Asia/Jerusalem", short)
    assert spring["end"] - spring["start"] == dt.timedelta(hours=23)


@pytest.mark.parametrize(
    "value, said",
    [
        ("distiller=lots", "write ROLE=TOKENS"),
        ("writer=1000", "ROLE one of distiller"),
        ("distiller=10,distiller=20", "two budgets"),
        ("distiller", "write ROLE=TOKENS"),
        ("curator=-5", "write ROLE=TOKENS"),
    ],
)
def test_a_malformed_budget_is_refused_naming_the_form(value, said):
    with pytest.raises(ValidationError, match=said):
        Settings(model_budgets=value)


def test_the_budgets_setting_is_read_plainly():
    settings = Settings(model_budgets=" Distiller = 200_000 , style_panel=0,")
    assert settings.model_budgets == "distiller=200000,style_panel=0"
    assert settings.budgets == {"distiller": 200000, "style_panel": 0}
    assert Settings().budgets == {}


def test_every_stage_that_calls_a_model_counts_against_a_role():
    stages = {"distill", "fingerprint", "panel", "curator"}
    stages |= {principles.STAGE, synthesis.STAGE, voice.STAGE, enrichment.STAGE}
    stages |= {citation_judge.STAGE}
    assert {spending.role_of(s) for s in stages} == set(spending.ROLE_STAGES)
    assert set(MODEL_ROLES) == set(spending.ROLE_STAGES)


def test_a_principle_job_is_deferred_by_its_panels_budget_and_runs_once_raised(
    app, tmp_path, panel, monkeypatch
):
    """The principle panel's three readings are one unit: a spent budget defers the job before
    any of them (waiting, not failed; left alone by the next pass); raised, all three are asked
    and the item's principles written once."""
    script, value = panel
    script.answers = {m: [cand(R1[0], Q1, 0.9)] for m in "abc"}
    recorder(as_worker(app))(  # what the panel already spent today
        CallRecord("principle_panel", "openai", "a", None, "0" * 64, 1, 5, "ok", 450, 50)
    )

    def budget(tokens: int) -> None:
        update = {"model_budgets": f"principle_panel={tokens}"}
        monkeypatch.setattr(app, "settings", app.settings.model_copy(update=update))

    budget(500)
    ingest(app, tmp_path, "ruling-1", PANEL_RULING)
    report = principle_jobs.run(app)
    [pending] = report["pending"]
    assert pending["status"] == "waiting" and report["failed"] == []
    assert pending["reason"].startswith(
        "deferred (not failed) by its daily budget: the principle_panel models spent 500 of "
        "their 500 tokens today"
    )
    [job] = rows(app, "SELECT * FROM jobs WHERE kind = 'principles'")
    assert job["attempts"] == 0 and job["error"] is None
    assert job["result"]["budget"] == {"role": "principle_panel"}
    assert principle_jobs.run(app)["jobs"] == []  # the next pass leaves it: still spent
    assert len(rows(app, "SELECT id FROM model_calls")) == 1  # no reading asked

    budget(501)  # raised: 500 < 501, the unit's three readings are asked though they pass it
    done = principle_jobs.run(app)
    assert done["extracted"] == 1 and done["approved"] == 1 and done["pending"] == []
    assert len(rows(app, "SELECT id FROM model_calls WHERE stage = 'principle_panel'")) == 1 + 3
    [job] = rows(app, "SELECT * FROM jobs WHERE kind = 'principles'")
    assert job["status"] == "done" and job["attempts"] == 1
