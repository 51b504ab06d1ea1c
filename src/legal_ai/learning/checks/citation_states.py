"""A citation's states and its problems: the `status` and `problems` of each citation the draft
check answers (learning/checks/citation_check.py; DESIGN §10), in one place for every module of
the check that finds one (citation_sections, citation_pinpoints)."""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict, get_args

# A citation's states (DESIGN §10), most serious first: its status is the first of its problems'
# kinds. SEVERITY is read from it.
Status = Literal[
    "not_in_library",
    "law_not_in_library",
    "section_not_found",
    "ambiguous",
    "name_mismatch",
    "quote_not_found",
    "pinpoint_not_found",
    "lookup_failed",
    "found",
]
SEVERITY: tuple[Status, ...] = get_args(Status)


class Problem(TypedDict):
    """One problem of a citation: its `kind` (a Status other than `found`) and what was compared,
    by kind: `candidates` (ambiguous), `looked_for` (not_in_library), `law` and `section`
    (the section's states; `held_section` of a held section lacking its subsections),
    `written` and `library` (name_mismatch), `quote` (quote_not_found), `pinpoint`, `unit`,
    `missing`, `held` and `quote_in` (the pinpoint's), `why` (lookup_failed)."""

    kind: Status
    candidates: NotRequired[int]
    looked_for: NotRequired[str]
    law: NotRequired[str | None]
    section: NotRequired[str]
    held_section: NotRequired[str | None]
    written: NotRequired[str]
    library: NotRequired[str]
    quote: NotRequired[str]
    pinpoint: NotRequired[str]
    unit: NotRequired[str]
    missing: NotRequired[list[int]]
    held: NotRequired[str]
    quote_in: NotRequired[list[int]]
    why: NotRequired[str]


class Unchecked(TypedDict):
    """What a citation writes that the library cannot compare, and why."""

    what: str
    why: str


def status_of(problems: list[Problem]) -> Status:
    """The most serious of the problems' kinds (SEVERITY), `found` for none."""
    return min((p["kind"] for p in problems), key=SEVERITY.index, default="found")
