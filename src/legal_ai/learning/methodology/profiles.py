"""The chair's methodology profiles: `universal` plus one per appeal type (golden ratios,
discussion rules, content checklists, transition phrases, anti-patterns, voice invariants, the
block headings, folded lessons). Versioned; every write locks the profile row
(`SELECT … FOR UPDATE`) so concurrent edits serialise instead of overwriting each other."""

from __future__ import annotations

import copy
import json
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, field_validator

from ...auth import require_chair
from ...errors import Conflict, InvalidInput, NotFound
from ...store import drafts_lessons as store
from ...store import methodology_versions as versions_store
from ...store import migrations
from ...text import blocks as text_blocks
from ...text.hebrew import clean_text
from .. import vocabulary as vocab

if TYPE_CHECKING:
    from ...context import Context

PROFILE_KEYS = (
    "blocks",
    "golden_ratios",
    "discussion_rules",
    "content_checklists",
    "transition_phrases",
    "anti_patterns",
    "voice_invariants",
    "lessons",
)


# -- the schema an edit is checked against ---------------------------------------------------------
def _text(value: str) -> str:
    value = clean_text(value).strip()
    if not value:
        raise ValueError("is empty")
    return value


Text = Annotated[str, Field(max_length=2000), AfterValidator(_text)]
Pattern = Annotated[str, Field(max_length=500), AfterValidator(_text)]
if TYPE_CHECKING:  # the closed vocabularies are checked by pydantic when the profile is read
    Block = str
    HeadedBlock = str
    ChecklistKey = str
    Outcome = str
else:
    Block = Literal[text_blocks.BLOCKS]
    HeadedBlock = Literal[tuple(b for b in text_blocks.BLOCKS if b not in ("header", "signature"))]
    ChecklistKey = Literal[("any", *vocab.OUTCOMES)]
    Outcome = Literal[vocab.OUTCOMES]
Ratio = Annotated[float, Field(ge=0, le=1)]
Phrases = Annotated[list[Text], Field(max_length=500)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class BlockSpec(_Strict):
    """`blocks`: the order of the 12 blocks, one heading pattern per block (matched against a
    whole line) and the pattern that starts the signature."""

    order: list[Block] = None  # type: ignore[assignment]  # absent means BLOCKS
    headings: Annotated[dict[HeadedBlock, Pattern], Field(min_length=text_blocks.MIN_HEADINGS)]
    signature_start: Pattern = None  # type: ignore[assignment]

    @field_validator("order")
    @classmethod
    def _whole_order(cls, order: list[str]) -> list[str]:
        if sorted(order) != sorted(text_blocks.BLOCKS):
            raise ValueError("order must name each of the 12 blocks once")
        return order


class FoldedLesson(_Strict):
    id: int
    category: Text
    text: Text
    block: Block | None = None
    outcome: Outcome | None = None
    case_number: str | None = None


class ProfileChanges(_Strict):
    """The editable top-level keys of a profile; a key left out is not changed."""

    blocks: BlockSpec = None  # type: ignore[assignment]
    golden_ratios: dict[Block, Ratio] = None  # type: ignore[assignment]
    discussion_rules: Phrases = None  # type: ignore[assignment]
    content_checklists: dict[ChecklistKey, Phrases] = None  # type: ignore[assignment]
    transition_phrases: Phrases = None  # type: ignore[assignment]
    anti_patterns: Phrases = None  # type: ignore[assignment]
    voice_invariants: Phrases = None  # type: ignore[assignment]
    lessons: Annotated[list[FoldedLesson], Field(max_length=5000)] = None  # type: ignore[assignment]

    @field_validator("golden_ratios")
    @classmethod
    def _shares(cls, ratios: dict[str, float]) -> dict[str, float]:
        if sum(ratios.values()) > 1.0001:
            raise ValueError("the ratios are shares of one decision; they sum to at most 1")
        return ratios


def validated_changes(changes: Any) -> dict:
    """`changes` checked against the profile's schema (unknown keys, wrong types, ratios out of
    [0, 1] refused) with every regular expression compiled and time-boxed against pathological
    lines (`text.blocks.check_pattern`, the engine and limit uploads run under). Returns the
    cleaned changes; InvalidInput names the offending key."""
    if not isinstance(changes, dict):
        raise InvalidInput(
            "a methodology edit is a JSON object of profile keys",
            code="methodology.edit",
            field="changes",
        )
    unknown = set(changes) - set(PROFILE_KEYS)
    if not changes or unknown:
        raise InvalidInput(
            f"methodology keys {sorted(unknown) or '(none)'} are not editable; use: "
            + ", ".join(PROFILE_KEYS),
            code="methodology.edit",
            field="changes",
        )
    try:
        model = ProfileChanges.model_validate(changes)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(part) for part in error["loc"]) or "(the edit)"
        reason = "not a known key" if error["type"] == "extra_forbidden" else error["msg"]
        raise InvalidInput(
            f"methodology {where}: {reason}".replace("Value error, ", ""),
            code="methodology.edit",
            field="changes",
        ) from None
    cleaned = model.model_dump(exclude_unset=True)
    spec = cleaned.get("blocks")
    if spec:
        for block, pattern in spec["headings"].items():
            text_blocks.check_pattern(pattern, f"methodology blocks.headings.{block}")
        if "signature_start" in spec:
            text_blocks.check_pattern(
                spec["signature_start"], "methodology blocks.signature_start", signature=True
            )
    return cleaned


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


def seed_profile() -> dict:
    """The universal profile as a new database holds it (migration 0007's seed): for measures
    taken without a database (bench/reading.py)."""
    seed = next(m for m in migrations.available() if m.version == 7).sql
    return json.loads(seed.split("$json$")[1])


def merged_profile(conn, appeal_type: str | None) -> dict:
    universal = store.get_profile(conn, "universal")
    profile = copy.deepcopy(universal["profile"]) if universal else {}
    if appeal_type:
        typed = store.get_profile(conn, appeal_type)
        if typed:
            profile = _merge(profile, typed["profile"])
    return profile


def show(app: Context, appeal_type: str = "universal") -> dict:
    appeal_type = _profile_key(appeal_type)
    with app.store.connection() as conn:
        row = store.get_profile(conn, appeal_type)
    if row is None:
        raise NotFound(f"no methodology profile for {appeal_type!r}")
    return {
        "appeal_type": appeal_type,
        "version": row["version"],
        "updated_by": row["updated_by"],
        "profile": row["profile"],
    }


def _profile_key(appeal_type: str) -> str:
    if appeal_type == "universal":
        return appeal_type
    return vocab.choice(appeal_type, vocab.APPEAL_TYPES, "appeal type", required=True)


def edit(
    app: Context,
    appeal_type: str,
    changes: dict,
    *,
    reason: str = "edit",
    expected_version: int | None = None,
    details: dict | None = None,
) -> dict:
    """Replace the given top-level keys of a profile (the chair's edit), as a new version.
    `expected_version`: the version the chair saw; saved since (another tab): Stale-like
    Conflict, nothing written. `details`: what else the audit row records (where the change
    came from: a voice-fingerprint item she adopted)."""
    require_chair(app.principal, "editing the methodology")
    actor = app.principal.actor
    reason = vocab.free_text(reason, "reason", required=False, max_chars=2000) or "edit"
    appeal_type = _profile_key(appeal_type)
    changes = validated_changes(changes)
    with app.store.transaction() as conn:
        row = store.get_profile(conn, appeal_type, lock=True)
        if row is None:
            raise NotFound(f"no methodology profile {appeal_type!r}")
        if expected_version is not None and row["version"] != expected_version:
            raise Conflict(
                f"the {appeal_type} methodology was saved as version {row['version']} meanwhile"
                f" (you saw version {expected_version}); nothing was saved: reload",
                code="methodology.stale",
            )
        profile = {**row["profile"], **changes}
        saved = store.save_profile(conn, appeal_type, profile, actor, reason)
        store.audit(
            conn,
            actor,
            "edit_methodology",
            None,
            {
                **(details or {}),
                "appeal_type": appeal_type,
                "keys": sorted(changes),
                "version": saved["version"],
            },
        )
    return {"appeal_type": appeal_type, "version": saved["version"], "profile": saved["profile"]}


# -- versions: history, diff, restore ------------------------------------------------------------
def history(app: Context, appeal_type: str) -> dict:
    """Every saved version of a profile, newest first: version, who saved it, why, when."""
    appeal_type = _profile_key(appeal_type)
    with app.store.connection() as conn:
        rows = versions_store.versions(conn, appeal_type)
    if not rows:
        raise NotFound(f"no methodology profile for {appeal_type!r}")
    return {
        "appeal_type": appeal_type,
        "versions": [
            {
                "version": r["version"],
                "updated_by": r["updated_by"],
                "reason": r["reason"],
                "created_at": r["created_at"].isoformat(),
            }
            for r in rows
        ],
    }


def _version(conn, appeal_type: str, number: Any) -> dict:
    if not isinstance(number, int) or isinstance(number, bool) or number < 1:
        raise InvalidInput(
            f"a methodology version is a whole number from 1; got {number!r}",
            code="number.out_of_range",
            field="version",
        )
    row = versions_store.version(conn, appeal_type, number)
    if row is None:
        latest = (store.get_profile(conn, appeal_type) or {}).get("version")
        known = f"versions 1 to {latest}" if latest else "no versions"
        raise NotFound(f"no version {number} of the {appeal_type} methodology ({known})")
    return row


def diff(app: Context, appeal_type: str, a: int, b: int) -> dict:
    """What changed from version `a` to version `b` of a profile: one entry per top-level key
    whose value differs, with its whole value before and after (None where the key is absent);
    keys in the profile's order, then any others alphabetically."""
    appeal_type = _profile_key(appeal_type)
    with app.store.connection() as conn:
        old, new = _version(conn, appeal_type, a), _version(conn, appeal_type, b)
    before, after = old["profile"], new["profile"]
    keys = [k for k in PROFILE_KEYS if k in before or k in after]
    keys += sorted((set(before) | set(after)) - set(PROFILE_KEYS))
    changes = [
        {"key": key, "before": before.get(key), "after": after.get(key)}
        for key in keys
        if before.get(key) != after.get(key)
    ]
    return {"appeal_type": appeal_type, "a": a, "b": b, "changes": changes}


def restore(
    app: Context,
    appeal_type: str,
    version: int,
    reason: str | None = None,
    *,
    undo: bool = False,
    expected_version: int | None = None,
) -> dict:
    """The chair's one-click restore: a NEW version whose profile is that of `version` (history
    is never rewritten). A folded lesson that is no longer approved (vetoed since) is not
    brought back; the answer lists it under `dropped_lessons`. `undo`: the restore is a step
    back (learning/methodology/undo.py), said in its audit row so that the next step goes on
    back instead of returning. `expected_version`: the version the chair saw; saved since
    (another tab): InvalidInput, nothing written."""
    require_chair(app.principal, "restoring a methodology version")
    actor = app.principal.actor
    appeal_type = _profile_key(appeal_type)
    reason = vocab.free_text(reason, "reason", required=False, max_chars=2000)
    with app.store.transaction() as conn:
        row = store.get_profile(conn, appeal_type, lock=True)  # serialise with edits, promotes
        if expected_version is not None and row and row["version"] != expected_version:
            raise InvalidInput(
                f"the {appeal_type} methodology was saved as version {row['version']} meanwhile;"
                " reload"
            )
        profile = copy.deepcopy(_version(conn, appeal_type, version)["profile"])
        folded = profile.get("lessons") or []
        ids = [item.get("id") for item in folded if isinstance(item.get("id"), int)]
        statuses = versions_store.lesson_statuses(conn, ids) if ids else {}
        dropped = [i for i in ids if statuses.get(i) != "approved"]
        if "lessons" in profile:
            profile["lessons"] = [item for item in folded if item.get("id") not in dropped]
        saved = store.save_profile(
            conn, appeal_type, profile, actor, reason or f"restore of version {version}"
        )
        store.audit(
            conn,
            actor,
            "restore_methodology",
            None,
            {
                "appeal_type": appeal_type,
                "restored": version,
                "version": saved["version"],
                "dropped_lessons": dropped,
                **({"undo": True} if undo else {}),
            },
        )
    return {
        "appeal_type": appeal_type,
        "version": saved["version"],
        "restored_from": version,
        "dropped_lessons": dropped,
        "profile": saved["profile"],
    }
