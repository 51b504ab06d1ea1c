"""The configured language models of the learning engine, and the recorder that writes each of
their calls to `model_calls` (DESIGN §8).

`configured(app, case=..., job_id=...)` reads LEGAL_AI_DISTILLER, LEGAL_AI_STYLE_PANEL and
LEGAL_AI_CURATOR (specs `PROVIDER:MODEL[@BASE_URL]`) and builds each model with a recorder bound
to the case and job. A stage that is not configured, or whose provider's key is absent, is left
out, and `missing` says what to set — nothing fails for want of a model. A role with a daily
budget (LEGAL_AI_MODEL_BUDGETS) gets its models checked against it before each call
(learning/engine/budgets.py).

Each call is recorded in its own short transaction, so the calls of a stage that fails later
are still there (the provenance of every model decision, including the failed ones).
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from ...errors import AppError, InvalidInput
from ...providers.models import (
    CallRecord,
    ChatModel,
    ModelSpec,
    Recorder,
    make_model,
    parse_spec,
    parse_specs,
)
from ...providers.models.base import KEY_VARIABLES
from ...store import job_queue as store
from . import budgets

if TYPE_CHECKING:
    from ...context import Context

# stage -> (its variable, how many models, what it does: for the message)
STAGES = {
    "distiller": ("LEGAL_AI_DISTILLER", 1, "distill style lessons from each draft/final pair"),
    "style_panel": (
        "LEGAL_AI_STYLE_PANEL",
        2,
        "vote on proposed style lessons (two models, comma-separated)",
    ),
    "curator": ("LEGAL_AI_CURATOR", 1, "read each final against the writing brief"),
}
MAX_ERROR_CHARS = 500


@dataclass
class Lease:
    """The job a recorder renews the lease of at every call (a heartbeat): a slow stage keeps
    its job while its calls come back. `lost` turns true when another worker took the job."""

    job_id: int
    worker: str
    attempt: int
    seconds: int
    lost: bool = False


@dataclass
class Models:
    """The models of the learning stages. A stage whose model is None (or a panel that is not
    two models) is not configured; `reasons[stage]` says what to set, `missing` lists them."""

    distiller: ChatModel | None
    curator: ChatModel | None
    panel: list[ChatModel]
    missing: list[str] = field(default_factory=list)
    reasons: dict[str, str] = field(default_factory=dict)


def public_url(url: str | None) -> str | None:
    """A base URL without user or password (the record keeps where, never a credential)."""
    if not url:
        return url
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def recorder(
    app: Context, *, case: str | None = None, job_id: int | None = None, lease: Lease | None = None
) -> Recorder:
    """A Recorder that writes each call to `model_calls` (case and job attached) in its own
    transaction, and renews `lease` with it. Returns the call's `model_calls` id (a panel's
    verdict names the call it rests on)."""

    def record(call: CallRecord) -> int:
        row = {
            "stage": call.stage,
            "provider": call.provider,
            "model": call.model,
            "base_url": public_url(call.base_url),
            "case_number": case,
            "job_id": job_id,
            "prompt_hash": call.prompt_hash,
            "attempt": max(1, call.attempt),
            "tokens_in": call.tokens_in,
            "tokens_out": call.tokens_out,
            "latency_ms": max(0, int(call.latency_ms)),
            "outcome": call.outcome,
            "error": (call.error or None) and " ".join(str(call.error).split())[:MAX_ERROR_CHARS],
        }
        with app.store.transaction() as conn:
            call_id = store.insert_call(conn, row)
            if lease is not None and not lease.lost:
                mine = store.renew(conn, lease.job_id, lease.worker, lease.attempt, lease.seconds)
                lease.lost = not mine
        return call_id

    return record


def key_missing(spec: ModelSpec, environ: Mapping[str, str]) -> str | None:
    """The variable of the provider's key when none is set (None: set, or not needed — an
    endpoint named by its base URL, a local server, may need no key: the adapter then sends a
    placeholder, and a server that wants one answers 401, which names the variable)."""
    if spec.base_url:
        return None
    variable = KEY_VARIABLES[spec.provider]
    return None if (environ.get(variable) or "").strip() else variable


def _spec_text(specs: list[ModelSpec]) -> str:
    return ",".join(f"{s.name}@{public_url(s.base_url)}" if s.base_url else s.name for s in specs)


def configured(
    app: Context,
    *,
    case: str | None = None,
    job_id: int | None = None,
    lease: Lease | None = None,
    environ: Mapping[str, str] | None = None,
    at: dt.datetime | None = None,
) -> Models:
    """The configured models, each recording its calls for `case` / `job_id`. A malformed spec
    is InvalidInput (naming the variable); a stage left unset or without its key is missing.
    `environ` is where the SDKs will look for their keys (the process environment); `at` the
    clock of the roles' budgets (None: the database's)."""
    settings = app.settings
    environ = os.environ if environ is None else environ
    record = recorder(app, case=case, job_id=job_id, lease=lease)
    values = {
        "distiller": settings.distiller,
        "style_panel": settings.style_panel,
        "curator": settings.curator,
    }
    built: dict[str, list[ChatModel]] = {}
    reasons: dict[str, str] = {}
    for stage, (variable, count, does) in STAGES.items():
        value = (values[stage] or "").strip()
        if not value:
            example = (
                "openai:gpt-4.1-mini,anthropic:claude-sonnet-4-5"
                if count == 2
                else ("openai:gpt-4.1-mini")
            )
            reasons[stage] = f"set {variable} (PROVIDER:MODEL[@BASE_URL], e.g. {example}) to {does}"
            continue
        specs = [parse_spec(value, variable)] if count == 1 else parse_specs(value, variable, 2)
        keys = [(spec, key_missing(spec, environ)) for spec in specs]
        absent = [(spec, key) for spec, key in keys if key]
        if absent:
            reasons[stage] = "; ".join(
                f"set {key} for {variable}={_spec_text([spec])}" for spec, key in absent
            )
            continue
        limit = budgets.budget(app, stage, at)  # one per role: the panel's two models share it
        try:
            built[stage] = [
                budgets.guarded(make_model(spec, settings, record), limit) for spec in specs
            ]
        except AppError as exc:  # an SDK that refuses its configuration: say which and why
            reasons[stage] = f"{variable}={_spec_text(specs)}: {exc}"
    return Models(
        distiller=built.get("distiller", [None])[0],
        curator=built.get("curator", [None])[0],
        panel=built.get("style_panel", []),
        missing=list(reasons.values()),
        reasons=reasons,
    )


def left_to_the_worker(queued: int, variable: str, value: str | None, does: str) -> dict:
    """What a request that asks for model work answers (a request never runs the system's
    stages; `legal-ai worker` does at each pass): {"queued": how many wait, "runs_in",
    "waiting_for": what to set when the stage's model `variable` is unset, else None}."""
    waiting = (
        None
        if (value or "").strip()
        else (f"set {variable} (PROVIDER:MODEL[@BASE_URL]) for the worker to {does}")
    )
    return {"queued": queued, "runs_in": "legal-ai worker", "waiting_for": waiting}


PRINCIPLE_PANEL = "LEGAL_AI_PRINCIPLE_PANEL"


def single_model(
    app: Context,
    variable: str,
    value: str | None,
    purpose: str,
    *,
    environ: Mapping[str, str] | None = None,
    at: dt.datetime | None = None,
    **record: Any,
) -> tuple[ChatModel | None, str | None]:
    """The one model a setting names (`value` of `variable`), recording its calls with `record`
    (case, job_id, lease) and checked against its role's budget (the variable's name, e.g.
    LEGAL_AI_ENRICHER: enricher; clock `at`): (model, None), or (None, what to set) when it is
    unset or its provider's key is absent. A malformed spec is InvalidInput naming the
    variable."""
    environ = os.environ if environ is None else environ
    value = (value or "").strip()
    if not value:
        return None, (
            f"set {variable} (PROVIDER:MODEL[@BASE_URL], e.g. openai:gpt-4.1-mini) to {purpose}"
        )
    spec = parse_spec(value, variable)
    key = key_missing(spec, environ)
    if key:
        return None, f"set {key} for {variable}={_spec_text([spec])}"
    model = make_model(spec, app.settings, recorder(app, **record))
    role = variable.removeprefix("LEGAL_AI_").lower()
    return budgets.guarded(model, budgets.budget(app, role, at)), None


def principle_panel(
    app: Context,
    *,
    job_id: int | None = None,
    environ: Mapping[str, str] | None = None,
    at: dt.datetime | None = None,
) -> list[ChatModel]:
    """The three models of the principle panel (LEGAL_AI_PRINCIPLE_PANEL), recording their calls
    like the other stages. Fewer than three configured (or a key absent) is InvalidInput naming
    the variable."""
    environ = os.environ if environ is None else environ
    value = (app.settings.principle_panel or "").strip()
    if not value:
        raise InvalidInput(
            f"set {PRINCIPLE_PANEL} to three models (PROVIDER:MODEL[@BASE_URL], comma-separated)"
            " to extract principles"
        )
    specs = parse_specs(value, PRINCIPLE_PANEL, 3)
    absent = [(spec, key) for spec in specs if (key := key_missing(spec, environ))]
    if absent:
        raise InvalidInput(
            "; ".join(
                f"set {key} for {PRINCIPLE_PANEL}={_spec_text([spec])}" for spec, key in absent
            )
        )
    record = recorder(app, job_id=job_id)
    limit = budgets.budget(app, "principle_panel", at)
    return [budgets.guarded(make_model(spec, app.settings, record), limit) for spec in specs]
