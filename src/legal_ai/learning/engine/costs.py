"""What the language models cost, in tokens (`legal-ai learning costs [--since DATE]`): every
recorded call (model_calls: each attempt, failed ones too, with the tokens its provider reported)
summed per role (the setting that names the model: LEGAL_AI_DISTILLER, ...), per role and model, and
per final (the case a call worked for), with each role's daily budget and what it spent today
(learning/engine/budgets.py)."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from ...errors import InvalidInput
from ...store import spending
from . import budgets

if TYPE_CHECKING:
    from ...context import Context

SUMS = ("calls", "failures", "tokens_in", "tokens_out")


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


def _summed(rows: list[dict], key) -> dict[tuple, dict]:
    out: dict[tuple, dict] = {}
    for row in rows:
        into = out.setdefault(key(row), dict.fromkeys(SUMS, 0))
        for name in SUMS:
            into[name] += int(row[name])
    return out


def report(app: Context, since: str | None = None, at: dt.datetime | None = None) -> dict:
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
    roles = _summed(rows, lambda r: (r["role"],))
    for role in limits:
        roles.setdefault((role,), dict.fromkeys(SUMS, 0))
    by_role = [
        {
            "role": role,
            **sums,
            "budget": limits.get(role),
            "spent_today": budgets.budget(app, role, at).state()["spent"],
        }
        for (role,), sums in sorted(roles.items())
    ]
    models = _summed(rows, lambda r: (r["role"], r["model"]))
    finals = _summed([r for r in rows if r["case_number"]], lambda r: (r["case_number"],))
    return {
        "since": day.isoformat() if day else None,
        "zone": zone,
        "total": {name: sum(int(r[name]) for r in rows) for name in SUMS},
        "by_role": by_role,
        "by_model": [
            {"role": role, "model": model, **sums} for (role, model), sums in sorted(models.items())
        ],
        "by_final": [{"case_number": case, **sums} for (case,), sums in sorted(finals.items())],
    }
