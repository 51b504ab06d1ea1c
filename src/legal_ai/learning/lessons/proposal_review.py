"""The chair's part in the voice-fingerprint proposals (learning/lessons/voice_proposals.py writes them under
$LEGAL_AI_HOME/proposals/): the proposals newest first, item by item, each with what in it
carries substance (learning/checks/purity.py, with the words that triggered it); she adopts an item —
or the part of it she edited — into the methodology, or dismisses it; and she asks for a new one.

- Adopting goes through the methodology's own edit (learning/methodology/profiles.edit: as her, a new
  version, undoable like any other edit), checked against the version her page showed (saved
  since: methodology.stale, nothing written). A transition phrase joins the profile's
  `transition_phrases`; everything else (rhythm, openings, register, the rest) its
  `voice_invariants`. The audit row of that edit names the proposal and the item.
- Dismissing is an audit row of its own (`dismiss_fingerprint`, store/voice_proposals.py), so the
  item is shown as dismissed and never offered again. The audit is append-only and written in
  her name only under her role.
- Asking for a proposal is a request file (`proposals/requested.json`, her name and the time):
  the model runs in `legal-ai worker` (a request never runs a model, context.acting_as), which
  writes the proposal as `legal-ai learning fingerprint` does and removes the request; a failure
  is kept in `proposals/request-failed.json` for the page to say. The proposals themselves are
  never changed."""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...auth import require_chair
from ...errors import AppError, Conflict, InvalidInput
from ...store import voice_proposals as store
from .. import vocabulary as vocab
from ..checks import purity
from ..methodology import profiles as methodology
from . import voice_proposals as fingerprint

if TYPE_CHECKING:
    from ...context import Context
    from ...providers.models import ChatModel

NAME = re.compile(r"voice-fingerprint-\d{8}-\d{6}(?:-\d{1,4})?")
MAX_SHOWN = 20  # proposals on the page, newest first
MAX_TEXT = 1_000  # an item she adopts, as she edited it
REQUEST = "requested.json"
FAILED = "request-failed.json"
# Where each field of the description goes when she adopts it.
TARGET = {
    "sentence_rhythm": "voice_invariants",
    "openings": "voice_invariants",
    "transitions": "transition_phrases",
    "language_register": "voice_invariants",
    "other": "voice_invariants",
}
ORDER = ("sentence_rhythm", "openings", "transitions", "language_register", "other")


def _load(path: Path) -> dict | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    ok = isinstance(data, dict) and data.get("kind") == "voice_fingerprint_proposal"
    return data if ok and isinstance(data.get("fingerprint"), dict) else None


def items_of(data: dict) -> list[dict]:
    """A proposal's items in the description's order: {key, field, text, target}; a list field
    gives an item per entry (key `openings-2`), a text field one (key `sentence_rhythm`)."""
    fp = data["fingerprint"]
    out = []
    for field in ORDER:
        value = fp.get(field)
        texts = value if isinstance(value, list) else [value]
        for i, text in enumerate(texts, start=1):
            if isinstance(text, str) and text.strip():
                key = f"{field}-{i}" if isinstance(value, list) else field
                out.append(
                    {"key": key, "field": field, "text": text.strip(), "target": TARGET[field]}
                )
    return out


def _findings(text: str) -> list[dict]:
    return [{"rule": f.rule, "match": f.match} for f in purity.check(text)]


def _decided(conn: Any) -> dict[tuple[str, str], dict]:
    out: dict[tuple[str, str], dict] = {}
    for row in store.decisions(conn):
        ref = (row["details"] or {}).get("fingerprint") or {}
        key = (str(ref.get("proposal")), str(ref.get("item")))
        if key in out:
            continue  # the first decision stands
        adopted = row["action"] != store.DISMISS
        out[key] = {
            "state": "adopted" if adopted else "dismissed",
            "by": row["actor"],
            "at": row["at"],
            "reason": row["reason"],
            "appeal_type": (row["details"] or {}).get("appeal_type") if adopted else None,
            "version": (row["details"] or {}).get("version") if adopted else None,
            "adopted_text": ref.get("text"),
        }
    return out


def adopted(conn: Any) -> list[dict]:
    """The items she adopted, oldest first: {proposal, item, field, text (as adopted),
    appeal_type, version, at}."""
    out = []
    for (proposal, key), row in _decided(conn).items():
        if row["state"] != "adopted":
            continue
        head, _, tail = key.rpartition("-")
        field = head if tail.isdigit() else key
        out.append(
            {
                "proposal": proposal,
                "item": key,
                "field": field,
                "text": row["adopted_text"],
                "appeal_type": row["appeal_type"],
                "version": row["version"],
                "at": row["at"],
            }
        )
    return out


def _proposal(app: Context, name: str) -> dict:
    if not NAME.fullmatch(name or ""):
        raise InvalidInput("no such voice-fingerprint proposal", code="fingerprint.item")
    data = _load(fingerprint.folder(app) / f"{name}.json")
    if data is None:
        raise InvalidInput("no such voice-fingerprint proposal", code="fingerprint.item")
    return data


def proposals(app: Context, limit: int = MAX_SHOWN) -> dict:
    """The proposals newest first (at most `limit`), each item with its findings and what she
    decided on it; how many there are; and the state of her request for a new one."""
    paths = sorted(
        (
            p
            for p in fingerprint.folder(app).glob("voice-fingerprint-*.json")
            if NAME.fullmatch(p.stem)
        ),
        key=lambda p: p.stem,
        reverse=True,
    )
    with app.store.connection() as conn:
        decided = _decided(conn)
    shown = []
    for path in paths[:limit]:
        data = _load(path)
        if data is None:
            continue
        items = [
            {
                **item,
                "findings": _findings(item["text"]),
                **decided.get((path.stem, item["key"]), {}),
            }
            for item in items_of(data)
        ]
        shown.append(
            {
                "name": path.stem,
                "created_at": dt.datetime.fromisoformat(data["created_at"]),
                "model": data.get("model"),
                "finals": len(data.get("finals") or []),
                "sample_chars": data.get("sample_chars"),
                "items": items,
                "open": sum(1 for i in items if not i.get("state")),
            }
        )
    return {"proposals": shown, "total": len(paths), **request_state(app)}


def _item(app: Context, name: str, key: str) -> dict:
    data = _proposal(app, name)
    for item in items_of(data):
        if item["key"] == key:
            return item
    raise InvalidInput("no such item in the proposal", code="fingerprint.item")


def _undecided(app: Context, name: str, key: str) -> None:
    with app.store.connection() as conn:
        if (name, key) in _decided(conn):
            raise Conflict("this item was already decided; reload", code="fingerprint.decided")


def adopt(
    app: Context,
    name: str,
    key: str,
    appeal_type: str,
    expected_version: int,
    text: str | None = None,
) -> dict:
    """Her adoption of one item (or of `text`, the part of it she edited) into the methodology
    profile `appeal_type`, through methodology.edit as her, from the version she saw."""
    require_chair(app.principal, "adopting a voice-fingerprint item")
    item = _item(app, name, key)
    chosen = vocab.free_text(text, "the adopted text", required=False, max_chars=MAX_TEXT)
    chosen = " ".join((chosen or item["text"]).split())
    _undecided(app, name, key)
    shown = methodology.show(app, appeal_type)
    if shown["version"] != expected_version:
        raise Conflict(
            f"the {appeal_type} methodology was saved as version {shown['version']} meanwhile;"
            " nothing was saved: reload",
            code="methodology.stale",
        )
    current = list(shown["profile"].get(item["target"]) or [])
    changes = {item["target"]: current + ([chosen] if chosen not in current else [])}
    return methodology.edit(
        app,
        appeal_type,
        changes,
        reason=f"voice fingerprint {name[len('voice-fingerprint-') :][:8]}: {item['field']}",
        expected_version=expected_version,
        details={"fingerprint": {"proposal": name, "item": key, "text": chosen}},
    )


def dismiss(app: Context, name: str, key: str, reason: str | None = None) -> None:
    """Her dismissal of one item: recorded, never offered again."""
    require_chair(app.principal, "dismissing a voice-fingerprint item")
    _item(app, name, key)
    reason = vocab.free_text(reason, "reason", required=False, max_chars=2000)
    _undecided(app, name, key)
    with app.store.transaction() as conn:
        store.dismiss(conn, app.principal.actor, name, key, reason)


# -- asking for a new proposal -------------------------------------------------------------------
def _write(path: Path, data: dict) -> None:
    fingerprint.write_whole(path, json.dumps(data, ensure_ascii=False, default=str) + "\n")


def _read_state(path: Path) -> dict | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("at"), str):
        return None
    try:
        data["at"] = dt.datetime.fromisoformat(data["at"])
    except ValueError:
        return None
    return data


def request_state(app: Context) -> dict:
    """{requested: {by, at} or None, failed: {at, said, code} or None}."""
    return {
        "requested": _read_state(fingerprint.folder(app) / REQUEST),
        "failed": _read_state(fingerprint.folder(app) / FAILED),
    }


def request(app: Context) -> dict:
    """Her request for a new proposal, for the worker (one at a time: asked again while one
    waits, the first stands)."""
    require_chair(app.principal, "asking for a voice-fingerprint proposal")
    path = fingerprint.folder(app) / REQUEST
    state = _read_state(path)
    if state is None:
        now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        _write(path, {"by": app.principal.actor, "at": now})
        state = _read_state(path)
    return state or {}


def run_requested(app: Context, model: ChatModel) -> dict | None:
    """The worker's part: when she asked for a proposal, write it (fingerprint.propose) and
    clear the request; a refusal or a model's failure is kept for her page, and the request
    cleared (she asks again). None when nothing was asked for."""
    path = fingerprint.folder(app) / REQUEST
    if _read_state(path) is None:
        return None
    failed = fingerprint.folder(app) / FAILED
    try:
        result = fingerprint.propose(app, model)
    except AppError as exc:
        now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        _write(failed, {"at": now, "code": exc.code, "said": str(exc)})
        path.unlink(missing_ok=True)
        return {"failed": str(exc)}
    failed.unlink(missing_ok=True)
    path.unlink(missing_ok=True)
    return result
