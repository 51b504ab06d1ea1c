"""What the language models spent, read from `model_calls` (append-only, every attempt with the
tokens its provider reported): a role's spending in one day of the office's time zone (the
daily budgets, learning/engine/budgets.py), the jobs deferred by a budget, and the costs report
(`legal-ai learning costs`). Read only; every function takes the caller's connection.

A call is recorded under its stage's name; the role it belongs to (the setting that names its
model, LEGAL_AI_DISTILLER, ...) is ROLE_STAGES's: the learning job's distillation and the voice
fingerprint are the distiller's, its votes the style panel's, and so on."""

from __future__ import annotations

import datetime as dt
from typing import Any

from .rows import Conn, one

# role -> the stages its calls are recorded under (the `stage=` each use case asks with).
ROLE_STAGES: dict[str, tuple[str, ...]] = {
    "distiller": ("distill", "fingerprint"),
    "style_panel": ("panel",),
    "curator": ("curator",),
    "principle_panel": ("principle_panel",),
    "synthesizer": ("canonical_synthesis",),
    "voice_writer": ("voice_document",),
    "enricher": ("enrichment",),
    "verifier": ("verification",),
}
STAGE_ROLE = {stage: role for role, stages in ROLE_STAGES.items() for stage in stages}


def role_of(stage: str) -> str:
    """The role a stage's calls count against (an unknown stage is its own role)."""
    return STAGE_ROLE.get(stage, stage)


def spent_today(conn: Conn, role: str, zone: str, at: dt.datetime | None = None) -> dict:
    """Tokens (in + out) the role's calls spent in the day of `at` (default: the database's
    clock now) in time zone `zone`: {"spent", "calls", "start", "end"} — the day's bounds as
    instants (`end` is the next day's start: when a spent budget is whole again)."""
    return one(
        conn.execute(
            "WITH t AS (SELECT coalesce(%(at)s::timestamptz, clock_timestamp()) AS t),"
            " day AS (SELECT date_trunc('day', t AT TIME ZONE %(zone)s) AS d FROM t),"
            " bounds AS (SELECT d AT TIME ZONE %(zone)s AS start,"
            " (d + interval '1 day') AT TIME ZONE %(zone)s AS \"end\" FROM day)"
            ' SELECT b.start, b."end", count(c.id) AS calls,'
            " coalesce(sum(coalesce(c.tokens_in, 0) + coalesce(c.tokens_out, 0)), 0)::bigint AS spent"
            " FROM bounds b LEFT JOIN model_calls c ON c.stage = ANY(%(stages)s)"
            ' AND c.at >= b.start AND c.at < b."end"'
            ' GROUP BY b.start, b."end"',
            {"at": at, "zone": zone, "stages": list(ROLE_STAGES.get(role, (role,)))},
        )
    )


def deferred(conn: Conn) -> dict[str, int]:
    """How many jobs wait for each role's budget (status waiting, result.budget.role), by role."""
    rows = conn.execute(
        "SELECT result->'budget'->>'role' AS role, count(*) AS n FROM jobs"
        " WHERE status = 'waiting' AND result ? 'budget' GROUP BY 1"
    ).fetchall()
    return {r["role"]: r["n"] for r in rows}


def costs(conn: Conn, since: dt.date | None, zone: str) -> list[dict[str, Any]]:
    """The calls since the start of `since` in `zone` (None: all), per stage, model
    (`provider:model`) and case: calls, failed calls (any outcome but ok), tokens in and out."""
    return conn.execute(
        "SELECT stage, provider || ':' || model AS model, case_number, count(*) AS calls,"
        " count(*) FILTER (WHERE outcome <> 'ok') AS failures,"
        " coalesce(sum(tokens_in), 0)::bigint AS tokens_in,"
        " coalesce(sum(tokens_out), 0)::bigint AS tokens_out"
        " FROM model_calls"
        " WHERE %(since)s::date IS NULL OR at >= (%(since)s::date::timestamp AT TIME ZONE %(zone)s)"
        " GROUP BY 1, 2, 3 ORDER BY 1, 2, 3",
        {"since": since, "zone": zone},
    ).fetchall()
