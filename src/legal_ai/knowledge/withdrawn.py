"""Her finals withdrawn from what the writer reads: a final she does not want imitated (an
unusual case, a decision she would write differently today) is withdrawn whole — its paragraphs
are no longer block exemplars, it no longer counts towards a template (the templates are
measured again without it) and its draft/final pair is no longer a contrastive example — and
restored the same way. Only the chair decides: a row in her name under her role (the audit's
gate, migration 0027), refused here first for anyone else (Forbidden). What her finals measure
(her usual proportions, the style distance) still counts every final: no passage of it reaches
the writer. The desk's portrait lists her finals with the link to withdraw or restore each."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..auth import require_chair
from ..errors import NotFound
from ..learning import vocabulary as vocab
from ..store import withdrawn_finals as store

if TYPE_CHECKING:
    from ..context import Context


def withdrawn(app: Context) -> list[dict]:
    """The finals withdrawn now: {case_number, at, reason}, the latest first."""
    with app.store.connection() as conn:
        return store.withdrawn(conn)


def _decide(app: Context, case: str, reason: str | None, withdraw: bool) -> dict:
    require_chair(app.principal, "withdrawing or restoring a final from what the writer reads")
    case = vocab.case_number(case)
    reason = vocab.free_text(reason, "reason", required=False, max_chars=2000)
    with app.store.transaction() as conn:
        if not store.is_style_final(conn, case):
            raise NotFound(f"no final of {case} in her style corpus", code="final.not_found")
        now = {r["case_number"] for r in store.withdrawn(conn)}
        changed = (case in now) != withdraw
        if changed:
            action = store.WITHDRAW if withdraw else store.RESTORE
            store.record(conn, app.principal.actor, action, case, reason)
    return {"case_number": case, "withdrawn": withdraw, "changed": changed}


def withdraw(app: Context, case: str, reason: str | None = None) -> dict:
    """Her final of `case` withdrawn from what the writer reads (nothing changes if it is)."""
    return _decide(app, case, reason, True)


def restore(app: Context, case: str, reason: str | None = None) -> dict:
    """Her final of `case` read by the writer again (nothing changes if it is)."""
    return _decide(app, case, reason, False)
