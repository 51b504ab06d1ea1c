"""Daily token budgets per model role (LEGAL_AI_MODEL_BUDGETS).

Every model the learning engine builds for a role with a budget (learning/engine/models.py:
`configured`, `single_model`, `principle_panel`) is wrapped in `Budgeted`: before each call it
reads what the role's calls spent today (store/spending.py: tokens in + out of `model_calls`,
the day from midnight to midnight in LEGAL_AI_SCHEDULE_TIMEZONE) and, once that reached the
budget, raises BudgetReached instead of calling. So a call that answers and carries the role past
its budget is kept (it was paid for: the stage uses its answer) and the stage stops before its
next call. A budget may thus be passed by the calls of one unit at most.

A unit is the calls whose answers are used together (`unit(models)`): the style panel's two
votes on one lesson, the principle panel's three readings of one item. The budget is checked
once, before the unit's first call, so that a unit is never cut in half (half a panel's votes
would be paid for and thrown away, and asked again on resume).

A job that meets a budget is deferred, not failed (`defer`): it waits (status `waiting`,
`waiting_for` the reason, its result marked with the role), and each worker pass queues it again
once the role may spend (`resumable`): the next day, or as soon as the budget is raised. Its
stages resume by their own keys (a lesson with verdicts is not voted again, a stage done is not
run again), so nothing is lost or done twice.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast
from zoneinfo import ZoneInfo

from ...errors import BudgetReached
from ...store import job_queue as queue
from ...store import spending
from ...store.rows import Conn

if TYPE_CHECKING:
    from ...context import Context
    from ...providers.models import ChatModel
    from ...providers.models.base import T


@dataclass
class Budget:
    """One role's daily ceiling (`limit` tokens; None: none), read against `model_calls` in the
    day of `at` (None: the database's clock at each check; a test's controlled clock)."""

    app: Context
    role: str
    limit: int | None
    at: dt.datetime | None = None
    open_units: int = 0

    def state(self) -> dict:
        """{"role", "budget", "spent", "calls", "left", "reached", "day_start", "resumes_at",
        "zone"} for today."""
        zone = self.app.settings.schedule_timezone
        with self.app.store.connection() as conn:
            row = spending.spent_today(conn, self.role, zone, self.at)
        spent, local = int(row["spent"]), ZoneInfo(zone)
        return {
            "role": self.role,
            "budget": self.limit,
            "spent": spent,
            "calls": int(row["calls"]),
            "left": None if self.limit is None else max(0, self.limit - spent),
            "reached": self.limit is not None and spent >= self.limit,
            "day_start": row["start"].astimezone(local),
            "resumes_at": row["end"].astimezone(local),
            "zone": zone,
        }

    def check(self) -> None:
        """BudgetReached when the role spent its budget today (nothing is asked then)."""
        if self.limit is None:
            return
        state = self.state()
        if state["reached"]:
            raise BudgetReached(
                self.role, state["spent"], self.limit, state["resumes_at"], state["zone"]
            )


def budget(app: Context, role: str, at: dt.datetime | None = None) -> Budget:
    return Budget(app, role, app.settings.budgets.get(role), at)


class Budgeted:
    """A ChatModel whose calls are checked against its role's budget first (outside a unit)."""

    def __init__(self, model: ChatModel, budget: Budget) -> None:
        self.model = model
        self.budget = budget
        self.spec = model.spec

    @property
    def last_call(self) -> int | None:
        return self.model.last_call

    def ask(self, system: str, user: str, schema: type[T], *, stage: str) -> T:
        if not self.budget.open_units:
            self.budget.check()
        return self.model.ask(system, user, schema, stage=stage)

    def close(self) -> None:
        self.model.close()


def guarded(model: ChatModel, budget: Budget) -> ChatModel:
    """`model` checked against `budget` before each call; as it is when the role has none."""
    # Budgeted is a ChatModel whose `last_call` is its model's (a read-only property).
    return model if budget.limit is None else cast("ChatModel", Budgeted(model, budget))


@contextmanager
def unit(models: list[ChatModel]) -> Iterator[None]:
    """The calls made inside are one unit: each budget of `models` is checked once, here
    (BudgetReached before any call), and not again until the unit ends."""
    held = list({id(m.budget): m.budget for m in models if isinstance(m, Budgeted)}.values())
    for each in held:
        each.check()
    for each in held:
        each.open_units += 1
    try:
        yield
    finally:
        for each in held:
            each.open_units -= 1


# -- jobs ---------------------------------------------------------------------------------------


def defer(conn: Conn, job: dict, worker: str, exc: BudgetReached, result: dict) -> dict | None:
    """Park a claimed job until its role may spend again: waiting, with the reason and the
    role (its `result`, the work done so far, kept); the claim not counted as an attempt. None
    when the job is no longer this worker's."""
    marked = {**result, "budget": {"role": exc.role}}
    return queue.wait(conn, job["id"], worker, job["attempts"], str(exc), marked)


def waits_for(job: dict) -> str | None:
    """The role whose budget a waiting job waits for (None: it waits for something else)."""
    if job.get("status") != "waiting":
        return None
    return ((job.get("result") or {}).get("budget") or {}).get("role")


def deferral(waiting_for: str | None) -> str | None:
    """A waiting job's reason in words when a budget deferred it (BudgetReached's message, which
    starts "budget: "), else None."""
    if waiting_for and waiting_for.startswith("budget: "):
        return f"deferred (not failed) by its daily {waiting_for}"
    return None


def resumable(app: Context, at: dt.datetime | None = None) -> Callable[[Conn, dict], bool | None]:
    """For a worker pass: whether a waiting job may run again — for a job deferred by a budget,
    True once its role may spend (a new day, a budget raised or removed), else False; None for
    a job that waits for something else (its configuration decides)."""
    zone = app.settings.schedule_timezone
    limits = app.settings.budgets

    def may_run(conn: Conn, job: dict) -> bool | None:
        role = waits_for(job)
        if role is None:
            return None
        limit = limits.get(role)
        return limit is None or int(spending.spent_today(conn, role, zone, at)["spent"]) < limit

    return may_run


def overview(app: Context, at: dt.datetime | None = None) -> list[dict]:
    """Each role with a budget: its state today (Budget.state) and how many jobs it defers."""
    with app.store.connection() as conn:
        deferred = spending.deferred(conn)
    return [
        {**budget(app, role, at).state(), "deferred": deferred.get(role, 0)}
        for role in app.settings.budgets
    ]
