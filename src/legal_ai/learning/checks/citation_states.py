"""A citation's states and its problems: the `status` and `problems` of each citation the draft
check answers (learning/checks/citation_check.py; DESIGN §10), in one place for every module of
the check that finds one (citation_sections, citation_pinpoints)."""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict, get_args

# A citation's problems, most serious first (DESIGN §10's states but `found`): its status is the
# first of its problems' kinds, `found` for none. SEVERITY is read from them.
ProblemKind = Literal[
    "not_in_library",
    "law_not_in_library",
    "section_not_found",
    "ambiguous",
    "name_mismatch",
    "quote_not_found",
    "pinpoint_not_found",
    "lookup_failed",
]
Status = ProblemKind | Literal["found"]
SEVERITY: tuple[Status, ...] = (*get_args(ProblemKind), "found")


class NotInLibrary(TypedDict):
    """A ruling the library does not hold (a missing precedent, or an invented one)."""

    kind: Literal["not_in_library"]
    looked_for: str


class LawNotInLibrary(TypedDict):
    """A statute's section whose law the library does not hold (the law as read)."""

    kind: Literal["law_not_in_library"]
    law: str | None
    section: str


class SectionNotFound(TypedDict):
    """A section the library's law lacks, or a held section lacking its subsections."""

    kind: Literal["section_not_found"]
    law: str | None
    section: str
    held_section: NotRequired[str | None]


class Ambiguous(TypedDict):
    """Several rulings of the library fit: none is guessed."""

    kind: Literal["ambiguous"]
    candidates: int


class NameMismatch(TypedDict):
    """The parties written with the number are not the library's."""

    kind: Literal["name_mismatch"]
    written: str
    library: str


class QuoteNotFound(TypedDict):
    """A quotation attributed to the citation that is not in its text."""

    kind: Literal["quote_not_found"]
    quote: str


class PinpointNotFound(TypedDict):
    """A paragraph or page the ruling does not have (`missing`, its own `held`), or one the
    quotation is not in (`quote_in`: where it is)."""

    kind: Literal["pinpoint_not_found"]
    pinpoint: str
    unit: str
    missing: NotRequired[list[int]]
    held: str
    quote_in: NotRequired[list[int]]


class LookupFailed(TypedDict):
    """A check that could not run, and why (a pinpoint's, with the pinpoint)."""

    kind: Literal["lookup_failed"]
    why: str
    pinpoint: NotRequired[str]
    unit: NotRequired[str]


# One problem of a citation: its kind and what was compared, by kind.
Problem = (
    NotInLibrary
    | LawNotInLibrary
    | SectionNotFound
    | Ambiguous
    | NameMismatch
    | QuoteNotFound
    | PinpointNotFound
    | LookupFailed
)


class Unchecked(TypedDict):
    """What a citation writes that the library cannot compare, and why."""

    what: str
    why: str


def status_of(problems: list[Problem]) -> Status:
    """The most serious of the problems' kinds (SEVERITY), `found` for none."""
    return min((p["kind"] for p in problems), key=SEVERITY.index, default="found")
