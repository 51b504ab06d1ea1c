"""The chair's methodology profiles: `universal` plus one per appeal type (golden ratios,
discussion rules, content checklists, transition phrases, anti-patterns, voice invariants, the
block headings, folded lessons). Versioned; every write locks the profile row
(`SELECT … FOR UPDATE`) so concurrent edits serialise instead of overwriting each other."""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from ..auth import require_chair
from ..errors import InvalidInput, NotFound
from ..store import learning as store
from . import vocabulary as vocab

if TYPE_CHECKING:
    from ..services import App

PROFILE_KEYS = ("blocks", "golden_ratios", "discussion_rules", "content_checklists",
                "transition_phrases", "anti_patterns", "voice_invariants", "lessons")  # fmt: skip


def _merge(base: Any, extra: Any) -> Any:
    """Type profile over universal: dicts merge, lists concatenate (no duplicates)."""
    if isinstance(base, dict) and isinstance(extra, dict):
        out = dict(base)
        for key, value in extra.items():
            out[key] = _merge(base[key], value) if key in base else value
        return out
    if isinstance(base, list) and isinstance(extra, list):
        return base + [v for v in extra if v not in base]
    return extra


def merged_profile(conn, appeal_type: str | None) -> dict:
    universal = store.get_profile(conn, "universal")
    profile = copy.deepcopy(universal["profile"]) if universal else {}
    if appeal_type:
        typed = store.get_profile(conn, appeal_type)
        if typed:
            profile = _merge(profile, typed["profile"])
    return profile


def show(app: App, appeal_type: str = "universal") -> dict:
    appeal_type = _profile_key(appeal_type)
    with app.store.connection() as conn:
        row = store.get_profile(conn, appeal_type)
    if row is None:
        raise NotFound(f"no methodology profile for {appeal_type!r}")
    return {"appeal_type": appeal_type, "version": row["version"],
            "updated_by": row["updated_by"], "profile": row["profile"]}  # fmt: skip


def _profile_key(appeal_type: str) -> str:
    if appeal_type == "universal":
        return appeal_type
    return vocab.choice(appeal_type, vocab.APPEAL_TYPES, "appeal type", required=True)


def edit(app: App, appeal_type: str, changes: dict, *, reason: str = "edit") -> dict:
    """Replace the given top-level keys of a profile (the chair's edit), as a new version."""
    require_chair(app.principal, "editing the methodology")
    actor = app.principal.actor
    appeal_type = _profile_key(appeal_type)
    unknown = set(changes) - set(PROFILE_KEYS)
    if not changes or unknown:
        raise InvalidInput(
            f"methodology keys {sorted(unknown) or '(none)'} are not editable; use: "
            + ", ".join(PROFILE_KEYS)
        )
    with app.store.transaction() as conn:
        row = store.get_profile(conn, appeal_type, lock=True)
        profile = {**row["profile"], **changes}
        saved = store.save_profile(conn, appeal_type, profile, actor, reason)
        store.audit(conn, actor, "edit_methodology", None,
                    {"appeal_type": appeal_type, "keys": sorted(changes),
                     "version": saved["version"]})  # fmt: skip
    return {"appeal_type": appeal_type, "version": saved["version"], "profile": saved["profile"]}
