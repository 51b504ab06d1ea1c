"""Bounds on what one agent may add: open proposals waiting for the chair
(LEGAL_AI_MAX_OPEN_PROPOSALS per agent name) and new cases opened per window
(LEGAL_AI_MAX_NEW_CASES per LEGAL_AI_NEW_CASES_WINDOW_MINUTES). Past a cap: CapReached (HTTP 429,
an MCP tool error carrying the same JSON), inside the transaction that would write, so nothing
is written. Only agents are counted; the chair, the operator and the system's stages are not.

The counts run in the writing transaction under a per-agent advisory lock, so two requests of
one agent cannot both pass the last free place. The database holds its own ceilings against an
agent's SQL (migration 0034: 200 open proposals per name, 1000 per role or login, 200 new cases
per role or login an hour); its refusal (SQLSTATE 53400) is answered the same way
(`from_database`)."""

from __future__ import annotations

import datetime as dt
import math
from typing import TYPE_CHECKING

import psycopg

from ..errors import CapReached
from ..store import agent_bounds as store
from ..store.rows import Conn

if TYPE_CHECKING:
    from ..context import Context

PROPOSALS_CAP = "LEGAL_AI_MAX_OPEN_PROPOSALS"
CASES_CAP = "LEGAL_AI_MAX_NEW_CASES"
CEILING = "the database's ceiling (migration 0034)"


def _agent(app: Context) -> str | None:
    return app.principal.actor if app.principal.kind == "agent" else None


def open_proposals(app: Context, conn: Conn, dedupe_keys: list[str]) -> None:
    """Refuse the agent's proposals `dedupe_keys` when the new ones among them would put it
    past its open-proposal cap (a proposal made again is never refused: it adds nothing)."""
    actor = _agent(app)
    if actor is None or not dedupe_keys:
        return
    store.lock(conn, "proposals", actor)
    new = len(set(dedupe_keys) - store.known_lessons(conn, dedupe_keys))
    if not new:
        return
    cap = app.settings.max_open_proposals
    waiting = store.open_proposals(conn, actor)
    if waiting + new > cap:
        raise CapReached(
            f"open proposals cap: {actor} has {waiting} proposals waiting for the chair and asks "
            f"for {new} more (at most {cap}, {PROPOSALS_CAP}); nothing was recorded: propose "
            "again once she has decided some",
            PROPOSALS_CAP,
            cap,
        )


def new_case(app: Context, conn: Conn, case_number: str) -> str | None:
    """Refuse the agent's new case when it opened its cap of cases in the window (a case that
    exists is never refused); the name to record as its creator (None: not an agent)."""
    actor = _agent(app)
    if actor is None:
        return None
    store.lock(conn, "new-cases", actor)
    if store.case_exists(conn, case_number):
        return actor
    cap, minutes = app.settings.max_new_cases, app.settings.new_cases_window_minutes
    opened, oldest = store.new_cases(conn, actor, minutes)
    if opened >= cap:
        free_at = (oldest or store.now(conn)) + dt.timedelta(minutes=minutes)
        wait = max(1, math.ceil((free_at - store.now(conn)).total_seconds()))
        raise CapReached(
            f"new cases cap: {actor} opened {opened} cases in the last {minutes} minutes (at most "
            f"{cap}, {CASES_CAP}); nothing was recorded: try again in {wait} seconds",
            CASES_CAP,
            cap,
            retry_after=wait,
        )
    return actor


def from_database(exc: psycopg.errors.ConfigurationLimitExceeded) -> CapReached:
    """The database's own ceiling refusing an agent's write, said like a cap."""
    message = (exc.diag.message_primary or str(exc)).strip()
    cases = message.startswith("new cases")
    return CapReached(
        f"{message}; nothing was recorded ({CEILING})",
        CASES_CAP if cases else PROPOSALS_CAP,
        200,
        retry_after=3600 if cases else None,
    )
