"""The system's panel in tests that need a lesson or principle it decided as their setting (the
panel itself, through the real SDKs against scripted local servers, is tested in
learning/test_engine_stages.py, test_jobs.py and test_principles.py): lessons proposed by the system's
distillation, and panel verdicts resting on model calls the worker recorded, as the worker's own
stage would record them."""

from __future__ import annotations

from legal_ai.auth import system_principal
from legal_ai.learning import vocabulary as vocab
from legal_ai.learning.engine.models import recorder
from legal_ai.learning.lessons import lesson_panel, lessons
from legal_ai.providers.models import CallRecord
from legal_ai.store import drafts_lessons as learning_store
from legal_ai.store import jsonable

ENGINE = system_principal("learning-engine")


def engine(app):
    """`app` as the learning engine (the worker's role)."""
    return app if app.principal == ENGINE else app.acting_as(ENGINE)


def distilled(app, case, category, text, **kw) -> dict:
    """A lesson the system's distillation proposed (the only kind the panel may decide), as its
    stage records one: a style lesson with `evidence_verified` (the stage found its evidence on
    her edits; the database admits the flag from the worker's role only), substance without.
    Whether a distilled lesson earns the flag is tested through the distiller itself
    (learning/test_engine_stages.py, reliability/test_red_team_lessons.py)."""
    stage = engine(app)
    case = vocab.case_number(case) if case else None
    with stage.store.transaction() as conn:
        pair = learning_store.get_pair(conn, case) if case else None
        row, created = learning_store.insert_lesson(
            conn,
            {
                "pair_id": pair["id"] if pair else None,
                "case_number": case,
                "category": category,
                "text": text,
                "block": kw.get("block"),
                "appeal_type": kw.get("appeal_type"),
                "outcome": kw.get("outcome"),
                "source": "distillation",
                "dedupe_key": lessons._dedupe_key("distillation", case, category, text),
                "proposed_by": stage.principal.actor,
                "evidence_verified": learning_store.category_kinds(conn)[category] == "style",
            },
        )
    return {**jsonable(row), "created": created}


def system_call(app, stage: str, model: str) -> int:
    """A model call the worker made (an ok answer of `model`, `provider:name`), as its
    recorder writes it: its model_calls id."""
    provider, _, name = model.partition(":")
    return recorder(engine(app))(
        CallRecord(
            stage=stage,
            provider=provider,
            model=name,
            base_url=None,
            prompt_hash="0" * 64,
            attempt=1,
            latency_ms=1,
            outcome="ok",
        )
    )


def panel_decides(app, lesson_id: int, votes: dict[str, str]) -> dict:
    """The system's style panel on a lesson: {model: vote}, each vote resting on a call the
    worker recorded."""
    verdicts = [
        {"model": model, "vote": vote, "model_call_id": system_call(app, "panel", model)}
        for model, vote in votes.items()
    ]
    return lesson_panel.decide_by_panel(engine(app), lesson_id, verdicts)
