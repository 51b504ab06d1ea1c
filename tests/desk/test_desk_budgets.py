"""The models' daily budgets on the desk's system page (issue 24 item 5), in Hebrew only: each
role with a budget and its spending today; a spent one in red, with how many jobs wait and when
they go on by themselves (or sooner, when the budget is raised); no section without budgets. The
wait itself is real: a learning job whose curator meets the spent budget is deferred by the queue
(the model, an OpenAI SDK client of the scripted server, is never asked)."""

from __future__ import annotations

import datetime as dt
import re
from zoneinfo import ZoneInfo

import pytest
from fastapi.testclient import TestClient
from pydantic import BaseModel
from test_desk_hebrew import problems

from helpers import CHAIR_TOKEN, sign_in, text_of
from legal_ai.app import App
from legal_ai.learning.engine import jobs
from legal_ai.learning.engine.models import recorder
from legal_ai.providers.models import CallRecord
from legal_ai.store import job_queue as queue
from legal_ai.web.app import create_app
from llm_servers import Reply, scripted_openai
from system_panel import engine

pytestmark = pytest.mark.db
CASE = "ערר (מרכז) 1042/23"


class Said(BaseModel):
    text: str


def budgeted(app: App, budget: str, **models: str) -> App:
    settings = app.settings.model_copy(
        update={"model_budgets": budget, "chair_token": CHAIR_TOKEN, **models}
    )
    return App(settings, store=app.store, embedder=app._inner_embedder)


def system_page(app: App) -> str:
    """/system as the signed-in chair reads it, served over `app`."""
    with TestClient(create_app(app.settings, legal=app)) as client:
        assert sign_in(client).status_code == 303
        page = client.get("/system")
    assert page.status_code == 200
    return page.text


def words(page: str) -> str:
    """The page's text as read: tags dropped, white space as single spaces."""
    return " ".join(re.sub(r"<[^>]+>", " ", text_of(page)).split()).replace(" :", ":")


def spend(app: App, stage: str, tokens_in: int, tokens_out: int) -> None:
    """A call the worker made today, recorded as its recorder writes it."""
    recorder(engine(app), case=CASE)(
        CallRecord(
            stage=stage,
            provider="openai",
            model="scripted",
            base_url=None,
            prompt_hash="0" * 64,
            attempt=1,
            latency_ms=5,
            outcome="ok",
            tokens_in=tokens_in,
            tokens_out=tokens_out,
        )
    )


def curate_only() -> jobs.Stages:
    """The job's stages with the curator asking its model (a case without our draft has only
    the curator to run)."""

    def ask(app, case, model):
        return {"said": model.ask("curate", case, Said, stage="curator")}

    def never(*args, **kwargs):
        raise AssertionError("not a stage of a case without our draft")

    return jobs.Stages(distill=never, vote=never, curate=ask)


def test_a_spent_budget_and_its_waiting_job_on_the_system_page(desk_app):
    with desk_app.store.transaction() as conn:
        conn.execute("SET LOCAL session_replication_role = replica")  # model_calls: append-only
        conn.execute("TRUNCATE jobs, model_calls RESTART IDENTITY CASCADE")
    spend(desk_app, "curator", 1200, 34)  # 1,234 of the curator's 1,000
    spend(desk_app, "distill", 300, 20)
    asked = []
    with scripted_openai(lambda request, path: asked.append(request) or Reply(json={})) as server:
        app = budgeted(
            desk_app, "curator=1000,distiller=5000", curator=f"openai:curator@{server.url}"
        )
        with app.store.transaction() as conn:
            queue.enqueue(conn, "learning", CASE, f"learning:{CASE}:budget-test")
        report = jobs.run(app, stages=curate_only(), environ={})
    assert asked == []  # the budget was spent before the call: nothing sent
    [pending] = report["pending"]
    assert pending["status"] == "waiting" and pending["reason"].startswith("deferred (not failed)")

    page = system_page(app)
    assert problems(page) == []
    said = words(page)
    assert "תקציב יומי לעבודת המודלים" in said
    assert "קריאת ההחלטות מול תדריך הכתיבה: התקציב של היום נוצל (1,234 מתוך 1,000 יחידות)" in said
    zone = ZoneInfo("Asia/Jerusalem")
    tomorrow = dt.datetime.now(zone).date() + dt.timedelta(days=1)
    assert (
        f"משימה אחת ממתינה ותימשך מעצמה ב־{tomorrow.day}.{tomorrow.month}.{tomorrow.year} 00:00"
        in said
    )
    assert "זיקוק לקחי הסגנון מההחלטות: נוצלו היום 320 מתוך 5,000 יחידות" in said
    assert 'class="reached"' in page and page.count("field-error") >= 1

    # Raised above what was spent: the page no longer says it is spent.
    roomier = system_page(budgeted(desk_app, "curator=2000"))
    assert "נוצלו היום 1,234 מתוך 2,000 יחידות" in words(roomier)
    assert "התקציב של היום נוצל" not in roomier

    # No budget set: no section at all.
    assert "תקציב יומי" not in system_page(budgeted(desk_app, ""))
