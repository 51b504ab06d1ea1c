"""What the chair decides, listed, shown and reviewed one way: lessons,
principles, canonical statements, voice documents and enrichment proposals are each a `Gated`
kind — its noun, statuses as the lists show them, decisions, and how the store reads its rows.

- `list(app, status, page)`: the rows of one status (or all) by id, a page at a time
  (paging.py), each shaped for the lists.
- `show(app, id)`: one item in full, or NotFound.
- `review(app, id, decision, reason, expected_status, decide)`: the chair's decision. The
  decision is checked, then that the principal is the chair, then the reason; in one
  transaction the row is read under its lock, `expected_status` (the status she saw) is checked
  against it (errors.Stale says who decided what meanwhile), and the kind's `decide(conn, row,
  status, reason)` writes what the decision means for it. A database gate's refusal is
  InvalidInput (errors.refused_by_gate). The gates themselves stay per table (the triggers).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..auth import require_chair
from ..errors import InvalidInput, NotFound, as_shown, refused_by_gate
from ..paging import Page, listed, window
from ..store import jsonable
from ..store.rows import Conn
from .vocabulary import free_text

if TYPE_CHECKING:
    from ..context import Context

# decide(conn, row, status, reason) -> the answer, or None for `show` of the item afterwards.
Decide = Callable[["Conn", dict, str, str | None], dict | None]


def _status(row: dict) -> str:
    return row["status"]


def _decider(row: dict) -> str | None:
    return row.get("reviewed_by")


@dataclass(frozen=True)
class Gated:
    noun: str  # "voice document": what messages call one
    key: str  # "voice_documents": the list's key
    statuses: tuple[str, ...]  # as the lists and pages show them
    decisions: Mapping[str, str]  # decision -> the status it sets
    rows: Callable[..., list]  # (conn, status, *, limit, offset) -> rows by id
    get: Callable[..., dict | None]  # (conn, id, *, lock=False) -> row
    shape: Callable[[dict], dict] = jsonable  # a row as the lists show it
    detail: Callable[[Any, dict], dict] | None = None  # (conn, row) -> in full; None: shape
    shown_status: Callable[[dict], str] = _status  # its status as the lists show it
    decided_by: Callable[[dict], str | None] = _decider  # who set its status
    where: str = ""  # how to list them, for NotFound ("; list them with ...")

    def status_of(self, decision: str) -> str:
        status = self.decisions.get(decision)
        if status is None:
            raise InvalidInput(
                f"unknown decision {decision!r}; choose one of: {', '.join(self.decisions)}",
                code="choice.unknown",
                field="decision",
            )
        return status

    def check_status(self, status: str | None, *, also: tuple[str, ...] = ()) -> None:
        if status is not None and status not in self.statuses + also:
            raise InvalidInput(
                f"unknown status {status!r}; choose one of: {', '.join(self.statuses + also)}",
                code="choice.unknown",
                field="status",
            )

    def list(
        self, app: Context, status: str | None = None, page: Page | None = None, **filters: Any
    ) -> dict:
        """By id (of one status, and the kind's own `filters`); one `page` with its `page`
        object (paging.py), or all when `page` is None."""
        self.check_status(status)
        limit, offset = window(page)
        with app.store.connection() as conn:
            rows = self.rows(conn, status, limit=limit, offset=offset, **filters)
        return listed(self.key, rows, page, self.shape)

    def locked(self, conn: Conn, item_id: int) -> dict:
        row = self.get(conn, item_id, lock=True)
        if row is None:
            raise NotFound(f"no {self.noun} {item_id}")
        return row

    def show(self, app: Context, item_id: int) -> dict:
        with app.store.connection() as conn:
            row = self.get(conn, item_id)
            if row is None:
                raise NotFound(f"no {self.noun} {item_id}{self.where}")
            return self.detail(conn, row) if self.detail else self.shape(row)

    def review(
        self,
        app: Context,
        item_id: int,
        decision: str,
        reason: str | None,
        expected_status: str | None,
        decide: Decide,
    ) -> dict:
        """The chair's `decision` on item `item_id` (see the module's docstring)."""
        status = self.status_of(decision)
        require_chair(app.principal, f"{decision} of {self.noun} {item_id}")
        reason = free_text(reason, "reason", required=False, max_chars=2000)
        with refused_by_gate():
            with app.store.transaction() as conn:
                row = self.locked(conn, item_id)
                as_shown(
                    self.noun,
                    item_id,
                    self.shown_status(row),
                    expected_status,
                    self.statuses,
                    self.decided_by(row),
                )
                answer = decide(conn, row, status, reason)
        return answer if answer is not None else self.show(app, item_id)
