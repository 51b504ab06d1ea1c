"""What the language models cost, in tokens (`legal-ai learning costs [--since DATE]`): every
recorded call (model_calls: each attempt, failed ones too, with the tokens its provider reported)
summed per role (the setting that names the model: LEGAL_AI_DISTILLER, ...), per role and model, and
per final (the case a call worked for), with each role's daily budget and what it spent today
(learning/engine/budgets.py)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, TypedDict, TypeVar

from ...errors import InvalidInput
from ...store import spending
from . import budgets

if TYPE_CHECKING:
    from ...context import Context

K = TypeVar("K", bound=Hashable)


class Sums(TypedDict):
    """Calls, failed calls (any outcome but ok), tokens in and out."""

    calls: int
    failures: int
    tokens_in: int
    tokens_out: int


class RoleCosts(Sums):
    """A role's sums, its daily budget (None: none) and what it spent today."""

    role: str
    budget: int | None
    spent_today: int


class ModelCosts(Sums):
    role: str
    model: str  # provider:model


class FinalCosts(Sums):
    case_number: str


class Costs(TypedDict):
    """`legal-ai learning costs --json`: from which day (None: the first call), in which zone,
    the total and the sums per role, per role and model, and per final."""

    since: str | None
    zone: str
    total: Sums
    by_role: list[RoleCosts]
    by_model: list[ModelCosts]
    by_final: list[FinalCosts]


def since_date(value: str | None) -> dt.date | None:
    """`--since YYYY-MM-DD` as a date (None: from the first call)."""
    if not value:
        return None
    try:
        return dt.date.fromisoformat(value.strip())
    except ValueError:
        raise InvalidInput(
            f"--since {value!r} is not a date: write YYYY-MM-DD", code="date.invalid"
        ) from None


def _sums(rows: list[dict]) -> Sums:
    return {
        "calls": sum(int(r["calls"]) for r in rows),
        "failures": sum(int(r["failures"]) for r in rows),
        "tokens_in": sum(int(r["tokens_in"]) for r in rows),
        "tokens_out": sum(int(r["tokens_out"]) for r in rows),
    }


def _summed(rows: list[dict], key: Callable[[dict], K]) -> dict[K, Sums]:
    """The rows' sums per key."""
    groups: dict[K, list[dict]] = {}
    for row in rows:
        groups.setdefault(key(row), []).append(row)
    return {group: _sums(members) for group, members in groups.items()}


def report(app: Context, since: str | None = None, at: dt.datetime | None = None) -> Costs:
    """{"since", "zone", "total", "by_role": [{"role", sums, "budget", "spent_today"}],
    "by_model": [{"role", "model", sums}], "by_final": [{"case_number", sums}]}; sums are calls,
    failures (any outcome but ok), tokens_in and tokens_out. A call made for no case (a ruling's
    principles, a canonical statement) counts in its role and model, not under a final."""
    day = since_date(since)
    zone = app.settings.schedule_timezone
    with app.store.connection() as conn:
        rows = [
            {**r, "role": spending.role_of(r["stage"])} for r in spending.costs(conn, day, zone)
        ]
    limits = app.settings.budgets
    roles = _summed(rows, lambda r: r["role"])
    for role in limits:
        roles.setdefault(role, _sums([]))
    by_role: list[RoleCosts] = [
        {
            "role": role,
            **sums,
            "budget": limits.get(role),
            "spent_today": budgets.budget(app, role, at).state()["spent"],
        }
        for role, sums in sorted(roles.items())
    ]
    models = _summed(rows, lambda r: (r["role"], r["model"]))
    finals = _summed([r for r in rows if r["case_number"]], lambda r: r["case_number"])
    return {
        "since": day.isoformat() if day else None,
        "zone": zone,
        "total": _sums(rows),
        "by_role": by_role,
        "by_model": [
            {"role": role, "model": model, **sums} for (role, model), sums in sorted(models.items())
        ],
        "by_final": [{"case_number": case, **sums} for case, sums in sorted(finals.items())],
    }
