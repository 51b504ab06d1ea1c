"""The writer's brief: everything the writing agent reads for one decision, all of it approved,
each part with its provenance, within a size budget (07-learning §0.2).

- Channel A — the chair's measured and adopted methodology: block order, golden ratios (the
  profile's, or measured over her finals), discussion rules, content checklist, and her voice as
  she adopted it into the methodology (voice invariants, transition phrases, anti-patterns: the
  approved part of the voice fingerprint), with the lessons folded into it.
- Channel B — real examples from her finals: block exemplars (knowledge/exemplars.py), templates
  of her formulaic passages (knowledge/templates.py), contrastive pairs of our wording against
  hers (knowledge/contrastive.py), gathered by knowledge/brief_examples.py. Never a paragraph of
  the case being written.
- Channel C — the deep-read voice documents the chair approved (knowledge/voice.py).
- The approved lessons (proposed, rejected and vetoed lessons never reach the writer).

The budget: the brief's JSON is kept within `max_chars` (BRIEF_MAX_CHARS by default) by cutting
items, last (least relevant) first, from the parts in TRIM_ORDER — contrastive pairs, then
exemplars (the lowest-ranked of every block first), then voice documents, then templates. The
methodology and the approved lessons are never cut (the brief says `over_budget` when they alone
exceed it). `budget` reports the limit, the size, and what was cut from which part.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Literal, NotRequired, TypedDict, get_args

from ..errors import InvalidInput
from ..learning import vocabulary as vocab
from ..learning.methodology import merged_profile
from ..learning.pairs import chair_ratios
from ..store import drafts_lessons as store
from .brief_examples import (
    BriefContrast,
    BriefExemplar,
    BriefTemplate,
    _contrastive,
    _exemplars,
    _templates,
)
from .voice import BriefVoiceDocument, for_brief

if TYPE_CHECKING:
    from ..context import Context

BRIEF_MAX_CHARS = 40_000
MIN_BRIEF_CHARS = 2_000
MAX_BRIEF_CHARS = 500_000
# The parts cut to fit the budget, in the order they are cut (TRIM_ORDER is read from it).
Trimmed = Literal["contrastive_examples", "exemplars", "voice_documents", "templates"]
TRIM_ORDER: tuple[Trimmed, ...] = get_args(Trimmed)
NEVER_CUT = ("methodology (channel A)", "lessons")
# What the writer does before handing a draft over: the same check the
# chair's report shows, run by the agent itself.
BEFORE_HANDING_OVER = (
    "Before you hand a draft over, run the draft check (MCP check_draft, or `legal-ai draft "
    "check CASE FILE`) and mend every citation whose status is not `found` (read its `problems`: "
    "a name, a pinpoint, a section or a quotation the library does not bear out), and look again "
    "at those marked `attention`. Cite only what the library holds, from its text. The chair "
    "receives a cite-check report of every draft version you register."
)

CHANNELS = {
    "A": [
        "block_order",
        "golden_ratios",
        "discussion_rules",
        "transition_phrases",
        "anti_patterns",
        "voice_invariants",
        "content_checklist",
        "folded_lessons",
    ],
    "B": ["exemplars", "templates", "contrastive_examples"],
    "C": ["voice_documents"],
    "lessons": ["lessons"],
}


class Checklist(TypedDict):
    """MCP `get_content_checklist`: what a decision of this appeal type and outcome covers."""

    appeal_type: str
    outcome: str | None
    checklist: list[str]


class Lesson(TypedDict):
    """An approved lesson's words: what the writer follows, in whichever list it is read."""

    id: int
    category: str
    kind: str
    text: str
    block: str | None


class ListedLesson(Lesson):
    """An approved lesson as MCP `get_lessons_for_outcome` lists it: who proposed it, who
    approved it."""

    source: str
    reviewed_by: str | None


class OutcomeLessons(TypedDict):
    """MCP `get_lessons_for_outcome`: the approved lessons of an appeal type and outcome."""

    appeal_type: str
    outcome: str | None
    lessons: list[ListedLesson]


# An approved lesson's provenance in the brief ("from": the lesson's source; a key Python
# cannot name as an attribute).
LessonProvenance = TypedDict(
    "LessonProvenance",
    {"channel": Literal["lessons"], "source": str, "from": str, "approved_by": str | None},
)


class BriefLesson(Lesson):
    """An approved lesson as the writer reads it in the brief, with its provenance."""

    provenance: LessonProvenance


class PartProvenance(TypedDict):
    """Where a part of the brief comes from: its channel and source (the voice's keys too)."""

    channel: str
    source: str
    keys: NotRequired[list[str]]
    note: NotRequired[str]


class CutPart(TypedDict):
    """What the budget cut from one part: how many items, how many characters."""

    part: Trimmed
    items: int
    chars: int


class Budget(TypedDict):
    """The brief's size against its limit, what is cut first and never, and what was cut."""

    max_chars: int
    chars: int
    cut_first: list[Trimmed]
    never_cut: list[str]
    cut: list[CutPart]
    over_budget: bool


class BriefParts(TypedDict):
    """The brief before its budget (what `fit` measures and cuts)."""

    appeal_type: str
    outcome: str | None
    case_number: str | None
    methodology_versions: dict[str, int | None]
    block_order: list[str]
    golden_ratios: dict[str, float]
    golden_ratios_from: str
    discussion_rules: list[Any]
    transition_phrases: list[Any]
    anti_patterns: list[Any]
    voice_invariants: list[Any]
    content_checklist: list[str]
    folded_lessons: list[dict[str, Any]]
    lessons: list[BriefLesson]
    exemplars: list[BriefExemplar]
    templates: list[BriefTemplate]
    contrastive_examples: list[BriefContrast]
    voice_documents: list[BriefVoiceDocument]
    channels: dict[str, list[str]]
    before_handing_over: str
    provenance: dict[str, PartProvenance]
    notes: list[str]


class WritingBrief(BriefParts):
    """MCP `get_writing_brief` and `legal-ai brief --json`: everything the writer follows for
    one decision, each part with its provenance, and its `budget`."""

    budget: Budget


def _args(appeal_type: str, outcome: str | None) -> tuple[str, str | None]:
    return (
        vocab.choice(appeal_type, vocab.APPEAL_TYPES, "appeal type", required=True),
        vocab.choice(outcome, vocab.OUTCOMES, "outcome"),
    )


def _checklist(profile: dict, outcome: str | None) -> list[str]:
    lists = profile.get("content_checklists", {})
    items = list(lists.get("any", []))
    items += [i for i in lists.get(outcome or "", []) if i not in items]
    return items


def content_checklist(app: Context, appeal_type: str, outcome: str | None = None) -> Checklist:
    appeal_type, outcome = _args(appeal_type, outcome)
    with app.store.connection() as conn:
        profile = merged_profile(conn, appeal_type)
    return {
        "appeal_type": appeal_type,
        "outcome": outcome,
        "checklist": _checklist(profile, outcome),
    }


def lessons_for_outcome(
    app: Context, appeal_type: str, outcome: str | None = None
) -> OutcomeLessons:
    appeal_type, outcome = _args(appeal_type, outcome)
    with app.store.connection() as conn:
        rows = store.approved_lessons(conn, appeal_type, outcome)
    return {
        "appeal_type": appeal_type,
        "outcome": outcome,
        "lessons": [
            {**_lesson(r), "source": r["source"], "reviewed_by": r["reviewed_by"]} for r in rows
        ],
    }


# -- the budget ---------------------------------------------------------------------------------


def _size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, default=str))


def fit(brief: BriefParts, max_chars: int) -> Budget:
    """Cut items of the parts in TRIM_ORDER (last first) until the brief's JSON is within
    `max_chars`; returns the budget report (the brief is changed in place)."""
    cut: dict[str, CutPart] = {}
    size = _size(brief)
    for part in TRIM_ORDER:
        items = brief.get(part) or []
        while size > max_chars and items:
            dropped = items.pop()
            chars = _size(dropped)
            entry = cut.setdefault(part, {"part": part, "items": 0, "chars": 0})
            entry["items"] += 1
            entry["chars"] += chars
            size = _size(brief)
    return {
        "max_chars": max_chars,
        "chars": size,
        "cut_first": list(TRIM_ORDER),
        "never_cut": list(NEVER_CUT),
        "cut": list(cut.values()),
        "over_budget": size > max_chars,
    }


def _max_chars(value: int | None) -> int:
    if value is None:
        return BRIEF_MAX_CHARS
    if (
        isinstance(value, bool)
        or not isinstance(value, int)
        or not (MIN_BRIEF_CHARS <= value <= MAX_BRIEF_CHARS)
    ):
        raise InvalidInput(
            f"max_chars must be a whole number from {MIN_BRIEF_CHARS} to {MAX_BRIEF_CHARS}",
            code="number.out_of_range",
            field="max_chars",
        )
    return value


# -- the brief ----------------------------------------------------------------------------------


def _lesson(row: dict) -> Lesson:
    """An approved lesson's words, from its row (store/drafts_lessons.approved_lessons)."""
    return {
        "id": row["id"],
        "category": row["category"],
        "kind": row["kind"],
        "text": row["text"],
        "block": row["block"],
    }


def _lessons(approved: list[dict]) -> list[BriefLesson]:
    """The approved lessons as the writer reads them, each with its provenance."""
    return [
        {
            **_lesson(r),
            "provenance": {
                "channel": "lessons",
                "source": f"decision_lessons #{r['id']}",
                "from": r["source"],
                "approved_by": r["reviewed_by"],
            },
        }
        for r in approved
    ]


def _provenance(methodology: str, ratios_from: str) -> dict[str, PartProvenance]:
    """Where each part of the brief comes from (its channel and source)."""
    return {
        "block_order": {"channel": "A", "source": methodology},
        "golden_ratios": {"channel": "A", "source": ratios_from},
        "discussion_rules": {"channel": "A", "source": methodology},
        "content_checklist": {"channel": "A", "source": methodology},
        "voice": {
            "channel": "A",
            "source": methodology,
            "keys": ["voice_invariants", "transition_phrases", "anti_patterns"],
            "note": "the voice fingerprint as the chair adopted it into the methodology "
            "(a fingerprint proposal reaches the writer only through her edit)",
        },
        "folded_lessons": {"channel": "A", "source": methodology},
        "lessons": {
            "channel": "lessons",
            "source": "decision_lessons approved by the chair or a 2/2 panel",
        },
        "exemplars": {
            "channel": "B",
            "source": "knowledge/exemplars.py: her block "
            "paragraphs in the style corpus (each item's provenance)",
        },
        "templates": {
            "channel": "B",
            "source": "knowledge/templates.py: passages recurring "
            "nearly verbatim across her finals",
        },
        "contrastive_examples": {
            "channel": "B",
            "source": "knowledge/contrastive.py: our draft against her final, style only",
        },
        "voice_documents": {"channel": "C", "source": "voice documents the chair approved"},
    }


def _stored(app: Context, appeal_type: str, outcome: str | None, case: str | None) -> tuple:
    """What the brief reads in one connection: the merged profile and its versions, the approved
    lessons, her measured ratios and the finals they were measured over, the voice documents and
    their notes."""
    with app.store.connection() as conn:
        profile = merged_profile(conn, appeal_type)
        versions = {
            key: (store.get_profile(conn, key) or {}).get("version")
            for key in ("universal", appeal_type)
        }
        approved = store.approved_lessons(conn, appeal_type, outcome)
        ratios, finals = chair_ratios(conn, profile)
        voice_documents, voice_notes = for_brief(conn, appeal_type, outcome, case)
    return profile, versions, approved, ratios, finals, voice_documents, voice_notes


def _folded(profile: dict, approved: list[dict], outcome: str | None) -> list[dict]:
    """The lessons folded into the profile that are approved and fit the outcome."""
    approved_ids = {r["id"] for r in approved}
    return [
        item
        for item in profile.get("lessons", [])
        if item.get("id") in approved_ids and (item.get("outcome") in (None, outcome))
    ]


def writing_brief(
    app: Context,
    appeal_type: str,
    outcome: str | None = None,
    case: str | None = None,
    max_chars: int | None = None,
) -> WritingBrief:
    """Everything the writer should follow for this decision, all of it approved: channels A, B
    and C and the approved lessons, each part with its provenance, within `max_chars`. `case`:
    the case being written (its own paragraphs, pairs and voice document are never served)."""
    appeal_type, outcome = _args(appeal_type, outcome)
    case = vocab.case_number(case) if case else None
    limit = _max_chars(max_chars)
    notes: list[str] = []
    profile, versions, approved, ratios, finals, voice_documents, voice_notes = _stored(
        app, appeal_type, outcome, case
    )
    notes += voice_notes
    folded = _folded(profile, approved, outcome)
    methodology = (
        f"methodology profiles universal v{versions['universal']} and {appeal_type} "
        f"v{versions[appeal_type]}"
    )
    ratios_from = (
        "methodology"
        if profile.get("golden_ratios")
        else f"measured over {len(finals)} finals in the style corpus"
    )
    brief: BriefParts = {
        "appeal_type": appeal_type,
        "outcome": outcome,
        "case_number": case,
        "methodology_versions": versions,
        "block_order": profile.get("blocks", {}).get("order", []),
        "golden_ratios": profile.get("golden_ratios") or ratios,
        "golden_ratios_from": ratios_from,
        "discussion_rules": profile.get("discussion_rules", []),
        "transition_phrases": profile.get("transition_phrases", []),
        "anti_patterns": profile.get("anti_patterns", []),
        "voice_invariants": profile.get("voice_invariants", []),
        "content_checklist": _checklist(profile, outcome),
        "folded_lessons": folded,
        "lessons": _lessons(approved),
        "exemplars": _exemplars(app, appeal_type, outcome, case, notes),
        "templates": _templates(app, appeal_type, notes),
        "contrastive_examples": _contrastive(app, appeal_type, case, notes),
        "voice_documents": voice_documents,
        "channels": CHANNELS,
        "before_handing_over": BEFORE_HANDING_OVER,
        "provenance": _provenance(methodology, ratios_from),
        "notes": list(dict.fromkeys(notes)),
    }
    budget = fit(brief, limit)
    return {**brief, "budget": budget}
