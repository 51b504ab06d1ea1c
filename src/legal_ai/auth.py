"""Who is acting: the chair or a named agent (or the operator's own scripts), decided from the
credential presented — never from a request body.

- `LEGAL_AI_CHAIR_TOKEN` authenticates the chair (the desk's login comes with the desk).
- `LEGAL_AI_AGENT_TOKEN` authenticates agents: one token (agent `agent`) or `name=token,...`.
- `LEGAL_AI_API_TOKEN`, the older single credential, authenticates an agent named `api`.

A `Principal` carries its database role: the store runs every transaction of a chair request as
`legal_ai_chair` and of an agent request as `legal_ai_agent`, and the database's gate refuses
chair decisions made under any other role (docs/security.md). The system's own model stages (the
worker's panel, synthesis, voice, enrichment) act as a `worker` principal, database role
`legal_ai_worker`: never a credential's, only the worker process's or the operator's own
commands (App.acting_as refuses it for a chair's or an agent's request).
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass

from .config import Settings
from .errors import Forbidden, InvalidInput, Unauthorized
from .store.db import AGENT_ROLE, CHAIR_ROLE, WORKER_ROLE


@dataclass(frozen=True)
class Principal:
    """An authenticated actor. `kind`: chair | agent | operator (local scripts, no token) |
    worker (one of the system's own stages, named: `learning-engine`, `principle-panel`...)."""

    kind: str
    name: str

    @property
    def actor(self) -> str:
        """What the audit records: `chair`, `agent:<name>`, `system:<name>` or `operator`."""
        if self.kind == "worker":
            return f"system:{self.name}"
        return {"chair": "chair", "operator": "operator"}.get(self.kind, f"agent:{self.name}")

    @property
    def is_chair(self) -> bool:
        return self.kind == "chair"

    @property
    def db_role(self) -> str | None:
        """The database role its transactions run as (None: the login's own)."""
        return {"chair": CHAIR_ROLE, "agent": AGENT_ROLE, "worker": WORKER_ROLE}.get(self.kind)

    @property
    def is_request(self) -> bool:
        """Whether it came from a credential (the chair or an agent): a request."""
        return self.kind in ("chair", "agent")


CHAIR = Principal("chair", "chair")
OPERATOR = Principal("operator", "operator")


def agent(name: str = "agent") -> Principal:
    return Principal("agent", name)


def system_principal(name: str) -> Principal:
    """One of the system's own stages (the model panel, synthesis, voice, enrichment, jobs)."""
    return Principal("worker", name)


def agent_tokens(settings: Settings) -> dict[str, str]:
    """token -> agent name, from LEGAL_AI_AGENT_TOKEN (`tok` or `name=tok,...`) and the older
    LEGAL_AI_API_TOKEN (agent `api`)."""
    tokens: dict[str, str] = {}
    for entry in (settings.agent_token or "").split(","):
        entry = entry.strip()
        if not entry:
            continue
        name, sep, token = entry.partition("=")
        name, token = (name.strip(), token.strip()) if sep else ("agent", name.strip())
        if not name or not token:
            raise InvalidInput("LEGAL_AI_AGENT_TOKEN: write one token or name=token,name=token")
        tokens[token] = name
    if settings.api_token:
        tokens[settings.api_token] = "api"
    if settings.chair_token and settings.chair_token in tokens:
        raise InvalidInput("LEGAL_AI_CHAIR_TOKEN must differ from every agent token")
    return tokens


def metrics_token(settings: Settings) -> str | None:
    """The configured metrics token (None: /metrics is off). InvalidInput when it is also the
    chair's or an agent's token: a scraper's credential must not be one that acts."""
    token = (settings.metrics_token or "").strip() or None
    if token is None:
        return None
    if token == (settings.chair_token or "").strip() or token in agent_tokens(settings):
        raise InvalidInput(
            "LEGAL_AI_METRICS_TOKEN must differ from the chair's and every agent's token"
        )
    return token


def configured(settings: Settings) -> bool:
    """Whether any credential is configured (the HTTP API refuses to start without one)."""
    return bool(settings.chair_token or agent_tokens(settings))


def authenticate(settings: Settings, token: str | None) -> Principal:
    """The principal a bearer token stands for; Unauthorized when it is missing or unknown.
    Every comparison runs in constant time."""
    supplied = (token or "").strip().encode()
    if not supplied:
        raise Unauthorized(
            "missing token: send Authorization: Bearer <token>", code="auth.missing_token"
        )
    found: Principal | None = None
    if settings.chair_token and hmac.compare_digest(supplied, settings.chair_token.encode()):
        found = CHAIR
    for known, name in agent_tokens(settings).items():
        if hmac.compare_digest(supplied, known.encode()):
            found = found or agent(name)
    if found is None:
        raise Unauthorized(
            "wrong token: send Authorization: Bearer <token>", code="auth.wrong_token"
        )
    return found


def cli_principal(settings: Settings) -> Principal:
    """Who runs a CLI command: the chair when her token is in the environment, an agent when an
    agent token is, else the operator (ingest, drafts, finals, reports — never chair decisions)."""
    if settings.chair_token:
        return CHAIR
    tokens = agent_tokens(settings)
    if tokens:
        return agent(next(iter(tokens.values())))
    return OPERATOR


def require_chair(principal: Principal, what: str) -> None:
    """Refuse `what` unless the chair is acting (Forbidden names what to set)."""
    if not principal.is_chair:
        raise Forbidden(
            f"{what} is the chair's decision; {principal.actor} may not make it "
            "(the chair acts with LEGAL_AI_CHAIR_TOKEN)",
            code="auth.chair_only",
        )
